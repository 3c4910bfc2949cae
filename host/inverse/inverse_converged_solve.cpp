// The converged inverse solve (inverse.hpp, InverseSolver::solve): Newton iterations on the
// equilibrium with the constraint-space solve in each (the actuators' own stiffness included,
// so convergence is quadratic near the solution), along a continuation path when the whole
// problem is too far from the starting state.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "softik/error.hpp"
#include "softik/inverse.hpp"
#include "softik/mesh_selection.hpp"

namespace softik {

namespace {
/// An increment is abandoned when its residual exceeds this multiple of its best so far, and
/// this relative level: below it, a growth comes from the QP's active set changing near a bound
/// (seen on the finger at 11k tets as the pressure reaches its bound: 1e-7 -> 8e-7), not from
/// Newton leaving its basin.
constexpr Real kDivergence = 4;
constexpr Real kDivergenceFloor = 1e-3;
/// Equilibrium is also reached when a Newton step moves the free nodes by at most this times the
/// model's size (|dx| <= tol * bounding-box diagonal), as in the static solver
/// (NewtonOptions::increment_tolerance, the same default): with nothing loaded (an actuation of 0,
/// a zero force target) the residual's force scale is round-off and the relative residual is
/// round-off over round-off, which never meets residual_tolerance.
constexpr Real kIncrementTolerance = 1e-12;
/// The most halvings of a step that inverted a cell.
constexpr int kMaxStepCuts = 20;

/// Far from the solution the linearised step can invert cells (a law with log J is then
/// undefined): go back along the step, halving it, until the state is admissible. Returns the
/// halvings (kMaxStepCuts: every shortened step inverted a cell).
template <class Admissible>
int shorten_step(std::vector<Real>& x, const std::vector<Real>& x_old, std::vector<Real>& lambda,
                 const std::vector<Real>& lambda_old, InverseStepReport& rep, Admissible&& admissible) {
  int cut = 0;
  for (; cut < kMaxStepCuts && !admissible(x); ++cut) {
    for (size_t k = 0; k < x.size(); ++k) x[k] = 0.5 * (x_old[k] + x[k]);
    for (size_t j = 0; j < lambda.size(); ++j) lambda[j] = 0.5 * (lambda_old[j] + lambda[j]);
    rep.lambda = lambda;
  }
  return cut;
}

/// Why an iteration fails its increment outright: every shortened step inverted a cell, or the
/// equilibrium residual is not finite (nullptr: neither).
const char* iteration_failure(int cut, Real relative) {
  if (cut == kMaxStepCuts) return "every shortened step inverted a cell";
  if (!std::isfinite(relative)) return "the equilibrium residual is not finite";
  return nullptr;
}

/// Whether lambda settled: its largest change since the previous iteration is within
/// `tolerance` of its largest entry.
bool lambda_settled(const std::vector<Real>& lambda, const std::vector<Real>& previous, Real tolerance) {
  Real change = 0, scale = 0;
  for (size_t j = 0; j < lambda.size(); ++j) {
    change = std::max(change, std::abs(lambda[j] - previous[j]));
    scale = std::max(scale, std::abs(lambda[j]));
  }
  return change <= tolerance * std::max(scale, 1e-300);
}

/// |x - x_old|^2: the step's increment, squared.
Real squared_motion(const std::vector<Real>& x, const std::vector<Real>& x_old) {
  Real motion = 0;
  for (size_t k = 0; k < x.size(); ++k) motion += (x[k] - x_old[k]) * (x[k] - x_old[k]);
  return motion;
}

/// Divergence test: the relative equilibrium residual of a Newton iteration that is on its way
/// grows by at most a small factor over its best so far (`best`, updated when it does not diverge).
bool diverging(Real relative, Real& best) {
  if (relative > kDivergence * best && relative > kDivergenceFloor) return true;
  best = std::min(best, relative);
  return false;
}

/// The message of an increment that used up max_iterations. A constraint-space solve that was not
/// optimal is the likely reason: say which and why.
std::string no_convergence_message(int max_iterations, const std::vector<InverseStepReport>& steps) {
  std::string message = "no convergence within max_iterations = " + std::to_string(max_iterations);
  if (!steps.empty() && steps.back().status != QpStatus::Optimal)
    message += std::string("; the last constraint-space solve was ") + qp_status_name(steps.back().status) +
               (steps.back().message.empty() ? "" : ": " + steps.back().message);
  return message;
}
}  // namespace

bool InverseSolver::admissible(const std::vector<Real>& x) const {
  try {
    assembler_.energy(x);
    return true;
  } catch (const Error&) {
    return false;
  }
}

bool InverseSolver::converge(std::vector<Real>& x, const Continuation& path, InverseSolveReport& out) {
  const bool final = path.s >= 1;
  // At the end of the path the energy weight is lowered by 10x per iteration down to
  // epsilon_min, so that the answer is the effector optimum itself (the minimal-energy one among
  // equal optima); intermediate points of the path keep the real-time weight.
  Real epsilon = options_.epsilon;
  std::vector<Real> previous = lambda_;
  // Divergence test (diverging): not applied at the first step (its residual is that of the
  // previous, converged state) nor once the residual meets its tolerance (round-off then
  // fluctuates freely while the energy weight is lowered).
  Real best = kInf;
  const Real size = bounding_box_diagonal(assembler_.mesh());
  const auto is_admissible = [this](const std::vector<Real>& state) { return admissible(state); };
  for (int it = 0; it < options_.max_iterations; ++it) {
    const std::vector<Real> x_old = x, lambda_old = lambda_;
    InverseStepReport rep;
    try {
      rep = step_with(x, epsilon, true, &path);
    } catch (const Error& e) {
      // From the increment's start state (the previous converged state) no shorter increment
      // can help: the error is the answer (singular K, a non-convex QP at the start, bad input).
      if (it == 0) throw;
      // Later, the linearised step has led to a state that admits no step (e.g. a tangent made
      // indefinite, so W_aa is not positive): the increment fails and solve() takes a shorter one.
      out.message = e.what();
      return false;
    }
    rep.continuation = path.s;
    ++out.iterations;
    const int cut = shorten_step(x, x_old, lambda_, lambda_old, rep, is_admissible);
    accept_all(x);
    const bool settled = lambda_settled(lambda_, previous, options_.lambda_tolerance);
    previous = lambda_;
    const Real relative = rep.relative_residual();
    const bool at_floor = !final || epsilon <= options_.epsilon_min;
    const bool equilibrium = relative <= options_.residual_tolerance ||
                             (it > 0 && std::sqrt(squared_motion(x, x_old)) <= kIncrementTolerance * size);
    // With contacts, a state that penetrates an obstacle beyond the contact tolerance is no answer.
    const bool solved =
        rep.status == QpStatus::Optimal && (!has_contact_ || rep.max_penetration <= contact_.solver.tolerance);
    out.steps.push_back(std::move(rep));
    if (const char* failure = iteration_failure(cut, relative)) {
      out.message = failure;
      return false;
    }
    if (at_floor && equilibrium && settled && solved && it > 0) return true;
    // With contacts, a step whose contacts change state moves to another branch of the
    // equilibrium: its residual may rise without Newton leaving its basin (max_iterations bounds it).
    if (it > 0 && !equilibrium && !has_contact_ && diverging(relative, best)) {
      out.message = "the Newton iterations diverged (relative residual " + std::to_string(relative) + ")";
      return false;
    }
    if (final) epsilon = std::max(options_.epsilon_min, epsilon * 0.1);
  }
  out.message = no_convergence_message(options_.max_iterations, out.steps);
  return false;
}

InverseSolveReport InverseSolver::solve(std::vector<Real>& x) {
  SOFTIK_CHECK(options_.min_increment > 0 && options_.min_increment <= 1,
               "InverseSolver::solve: min_increment must be in (0, 1], got " << options_.min_increment);
  // The last increment lowers the energy weight 10x per iteration from epsilon to epsilon_min
  // and needs one more iteration to see lambda settle.
  const int lowering = static_cast<int>(std::ceil(std::log10(options_.epsilon / options_.epsilon_min)));
  SOFTIK_CHECK(options_.max_iterations >= lowering + 2,
               "InverseSolver::solve: max_iterations = "
                   << options_.max_iterations << " is too few: the last increment "
                   << "lowers the energy weight from epsilon = " << options_.epsilon << " to epsilon_min = "
                   << options_.epsilon_min << " in " << lowering << " iterations; allow at least " << lowering + 2);
  InverseSolveReport out;
  // The start of the continuation path: every row's value and the actuation at x.
  Continuation path;
  {
    std::vector<ConstraintRow> rows;
    for (const auto& c : constraints_) c->rows(assembler_.mesh(), x, rows);
    for (const ConstraintRow& r : rows) path.delta_start.push_back(r.delta);
    path.lambda_start = lambda_;
  }
  Real s = 0, ds = 1;
  while (true) {
    path.s = std::min<Real>(1, s + ds);
    const std::vector<Real> x_start = x, lambda_start = lambda_;
    const QpActiveSet warm_start = warm_;
    const auto contacts_start = contacts_;
    const auto contact_lambda_start = contact_lambda_;
    const auto contact_state_start = contact_state_;
    if (converge(x, path, out)) {
      ++out.increments;
      s = path.s;
      if (s >= 1) {
        out.converged = true;
        out.message.clear();
        break;
      }
      ds = std::min(2 * ds, 1 - s);  // a failure then halves the remaining distance, never retries it
    } else {
      // Undo the increment (rate windows and outputs re-centre on the restored state) and halve it.
      x = x_start;
      lambda_ = lambda_start;
      warm_ = warm_start;
      contacts_ = contacts_start;
      contact_lambda_ = contact_lambda_start;
      contact_state_ = contact_state_start;
      accept_all(x);
      ++out.cuts;
      ds *= 0.5;
      if (ds < options_.min_increment) {
        std::ostringstream msg;
        msg << "stopped at continuation s = " << s
            << " of 1 (increment below min_increment = " << options_.min_increment << "); last failure: " << out.message
            << ". The goal may be beyond a limit point of the structure, or need a finer path";
        out.message = msg.str();
        break;
      }
    }
  }
  return out;
}

}  // namespace softik
