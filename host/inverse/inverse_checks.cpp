// Guards of the inverse step (inverse_checks.hpp).
#include "host/inverse/inverse_checks.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "softik/error.hpp"

namespace softik::inverse_detail {

void require_finite(const Real* values, size_t n, const std::string& what,
                    const std::function<std::string(size_t)>& where, const std::string& hint) {
  for (size_t i = 0; i < n; ++i)
    SOFTIK_CHECK_NUMERICAL(std::isfinite(values[i]),
                           what << " is not finite at " << where(i) << " (" << values[i] << "); " << hint);
}

std::vector<bool> clean_round_off_couplings(Eigen::MatrixXd& W, const std::vector<int>& effectors,
                                            const std::vector<int>& actuators) {
  std::vector<bool> idle(actuators.size(), !effectors.empty());
  for (size_t j = 0; j < actuators.size(); ++j) {
    const int a = actuators[j];
    for (int e : effectors) {
      const Real largest = std::sqrt(std::max<Real>(W(e, e), 0) * std::max<Real>(W(a, a), 0));
      if (std::abs(W(e, a)) <= kRoundOffCoupling * largest) {
        W(e, a) = W(a, e) = 0;
      } else {
        idle[j] = false;
      }
    }
  }
  return idle;
}

namespace {
/// The distinct names of the flagged rows, quoted and joined: "'a', 'b'".
std::string join_names(const std::vector<size_t>& rows, const std::vector<std::string>& names) {
  std::vector<std::string> seen;
  std::ostringstream out;
  for (size_t j : rows) {
    if (std::find(seen.begin(), seen.end(), names[j]) != seen.end()) continue;
    out << (seen.empty() ? "" : ", ") << "'" << names[j] << "'";
    seen.push_back(names[j]);
  }
  return out.str();
}
}  // namespace

std::string idle_actuators_message(const std::vector<bool>& idle, const std::vector<std::string>& names) {
  std::vector<size_t> rows;
  for (size_t j = 0; j < idle.size(); ++j)
    if (idle[j]) rows.push_back(j);
  if (rows.empty()) return {};
  return (rows.size() == 1 ? "actuator " : "actuators ") + join_names(rows, names) +
         " cannot move the effectors along their selected axes (the coupling W_ea is at round-off level, below " +
         "1e-10 of its largest possible value; e.g. an effector axis across the actuator's plane of symmetry): " +
         (rows.size() == 1 ? "it keeps" : "they keep") +
         " the least-energy input and cannot serve these goals; select other axes or add an actuator that acts "
         "along them";
}

std::string inadmissible_state_message(const std::string& cause, const std::vector<std::string>& names,
                                       const std::vector<Real>& lambda, const std::vector<Interval>& lambda_bounds) {
  std::ostringstream msg;
  msg << "InverseSolver: the state this step starts from is outside where the law is defined (" << cause
      << "). When it is the previous inverse step's result, that step's actuation drove the body there";
  std::vector<std::string> unbounded;
  for (size_t j = 0; j < names.size() && j < lambda.size() && j < lambda_bounds.size(); ++j) {
    msg << (j == 0 ? " (" : ", ") << "'" << names[j] << "' = " << lambda[j];
    if (j + 1 == names.size() || j + 1 == lambda.size()) msg << ")";
    const Interval& b = lambda_bounds[j];
    if (lambda[j] > 0 && !std::isfinite(b.hi))
      unbounded.push_back("'" + names[j] + "' has no upper bound (max_pressure / max_force)");
    if (lambda[j] < 0 && !std::isfinite(b.lo))
      unbounded.push_back("'" + names[j] + "' has no lower bound (min_pressure / min_force)");
  }
  msg << ". ";
  for (size_t k = 0; k < unbounded.size(); ++k) msg << (k == 0 ? "" : "; ") << unbounded[k];
  if (!unbounded.empty()) msg << ": bound it. ";
  msg << "Bound the actuators to what the body can take, limit each step's goal (an effector's max_shift), "
         "or use the converged solve (mode: converged), which shortens a step that inverts a cell";
  return msg.str();
}

std::string unbounded_message(const QpResult& res, const std::vector<std::string>& names,
                              const std::vector<Interval>& lambda_bounds) {
  std::vector<size_t> up, down;
  for (int i : res.unbounded_variables) (res.direction(i) > 0 ? up : down).push_back(static_cast<size_t>(i));
  std::ostringstream msg;
  msg << "the constraint-space QP is unbounded: the effector error keeps decreasing, at no cost in energy, as ";
  if (!up.empty())
    msg << (up.size() == 1 ? "actuator " : "actuators ") << join_names(up, names) << " grow without limit";
  if (!up.empty() && !down.empty()) msg << " and ";
  if (!down.empty())
    msg << (down.size() == 1 ? "actuator " : "actuators ") << join_names(down, names) << " fall without limit";
  msg << ", and no bound stops ";
  msg << (up.size() + down.size() == 1 ? "it" : "them") << ". Give ";
  std::vector<std::string> told;  // "name side": each once
  auto need = [&](size_t j, bool upper) {
    if (std::isfinite(upper ? lambda_bounds[j].hi : lambda_bounds[j].lo)) return;
    const std::string key = names[j] + (upper ? " up" : " down");
    if (std::find(told.begin(), told.end(), key) != told.end()) return;
    msg << (told.empty() ? "" : ", ") << "'" << names[j] << "' "
        << (upper ? "an upper bound (max_pressure / max_force)" : "a lower bound (min_pressure / min_force)");
    told.push_back(key);
  };
  for (size_t j : up) need(j, true);
  for (size_t j : down) need(j, false);
  if (told.empty()) msg << "them bounds";
  msg << ", or raise the energy weight epsilon. The actuation was kept at its previous value.";
  return msg.str();
}

}  // namespace softik::inverse_detail
