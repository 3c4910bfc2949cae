// Pivoting on contact states for the inverse QP with contacts (contact_complementarity.hpp).
#include "host/inverse/contact_complementarity.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "softik/error.hpp"

namespace softik::inverse_detail {

namespace {

/// A multiplier counts (a constraint pushes back) above this fraction of the problem's force
/// scale G (QpKkt's normalisation); below it, it is round-off of a constraint that merely holds.
constexpr Real kPushBack = 1e-9;

/// Rows of one contact in a piece: the normal row, then per tangent (delta_tk, facet+, facet-).
int piece_rows(const ContactRows& c) { return c.rows == 3 ? 7 : 1; }

/// The QP of the piece `states`: base, the contact variables' bounds and the contact rows.
QpProblem piece(const ContactQp& p, const std::vector<ContactState>& states, std::vector<int>& first_row) {
  const Eigen::Index n = p.base.H.rows();
  const Eigen::Index na = n - p.Wc.rows();
  const Eigen::Index m0 = p.base.A.rows();
  Eigen::Index m = m0;
  first_row.clear();
  for (const ContactRows& c : p.contacts) {
    first_row.push_back(static_cast<int>(m));
    m += piece_rows(c);
  }
  QpProblem q;
  q.H = p.base.H;
  q.g = p.base.g;
  q.g_terms = p.base.g_terms;
  q.lower = Eigen::VectorXd::Constant(n, -kInf);
  q.upper = Eigen::VectorXd::Constant(n, kInf);
  if (p.base.lower.size() == na) q.lower.head(na) = p.base.lower;
  if (p.base.upper.size() == na) q.upper.head(na) = p.base.upper;
  q.A = Eigen::MatrixXd::Zero(m, n);
  q.a_lower = Eigen::VectorXd::Constant(m, -kInf);
  q.a_upper = Eigen::VectorXd::Constant(m, kInf);
  if (m0 > 0) {
    q.A.topRows(m0) = p.base.A;
    q.a_lower.head(m0) = p.base.a_lower;
    q.a_upper.head(m0) = p.base.a_upper;
  }
  q.variable_names = p.base.variable_names;
  q.row_names = p.base.row_names;
  const bool named = !q.variable_names.empty();
  for (size_t i = 0; i < p.contacts.size(); ++i) {
    const ContactRows& c = p.contacts[i];
    const ContactState& s = states[i];
    const std::string& who = p.contact_names[i];
    const Eigen::Index vn = na + c.row, r = first_row[i];
    const bool pressed = s.normal == ContactState::kPressed;
    // Normal: separated lambda_n = 0, delta_n >= 0; pressed lambda_n >= 0, delta_n = 0.
    q.lower(vn) = 0;
    q.upper(vn) = pressed ? kInf : 0;
    q.A.row(r) = p.Wc.row(c.row);
    q.a_lower(r) = -p.delta_c_free(c.row);
    q.a_upper(r) = pressed ? -p.delta_c_free(c.row) : kInf;
    if (named) {
      q.variable_names.push_back(who + " normal force");
      q.row_names.push_back(who + " gap");
    }
    if (c.rows != 3) continue;
    const Real mu = contact::pyramid_half_width(c.mu);
    for (int k = 0; k < 2; ++k) {
      const Eigen::Index vt = vn + 1 + k, rd = r + 1 + 3 * k, rp = rd + 1, rm = rd + 2;
      q.lower(vt) = pressed ? -kInf : 0;
      q.upper(vt) = pressed ? kInf : 0;
      q.A.row(rd) = p.Wc.row(c.row + 1 + k);
      q.A(rp, vn) = mu;  // facet+: mu' lambda_n - lambda_tk >= 0
      q.A(rp, vt) = -1;
      q.A(rm, vn) = mu;  // facet-: mu' lambda_n + lambda_tk >= 0
      q.A(rm, vt) = 1;
      const Real d = -p.delta_c_free(c.row + 1 + k);
      if (pressed) {
        const signed char t = s.tangent[k];
        q.a_lower(rd) = t == ContactState::kSlipPlus ? -kInf : d;
        q.a_upper(rd) = t == ContactState::kSlipMinus ? kInf : d;
        if (t != ContactState::kSlipMinus) q.a_lower(rp) = 0;
        if (t == ContactState::kSlipPlus) q.a_upper(rp) = 0;
        if (t != ContactState::kSlipPlus) q.a_lower(rm) = 0;
        if (t == ContactState::kSlipMinus) q.a_upper(rm) = 0;
      }
      if (named) {
        const std::string axis = k == 0 ? " t1" : " t2";
        q.variable_names.push_back(who + axis + " friction force");
        q.row_names.push_back(who + axis + " slip");
        q.row_names.push_back(who + axis + " friction pyramid (+)");
        q.row_names.push_back(who + axis + " friction pyramid (-)");
      }
    }
  }
  return q;
}

/// G of QpKkt: the size of the forces in the stationarity equation H x + g = mu_x + A^T mu_a.
Real force_scale(const QpProblem& q, const QpResult& r) {
  Real G = std::max((q.H * r.x).cwiseAbs().maxCoeff(), q.g.cwiseAbs().maxCoeff());
  for (Eigen::Index j = 0; j < r.mu_x.size(); ++j) G = std::max(G, std::abs(r.mu_x(j)));
  for (Eigen::Index j = 0; j < r.mu_a.size(); ++j)
    G = std::max(G, std::abs(r.mu_a(j)) * q.A.row(j).cwiseAbs().maxCoeff());
  return G;
}

std::vector<signed char> flatten(const std::vector<ContactState>& states) {
  std::vector<signed char> out;
  for (const ContactState& s : states) out.insert(out.end(), {s.normal, s.tangent[0], s.tangent[1]});
  return out;
}

/// Checks that the problem's sizes agree and that every contact's rows lie in Wc with a finite,
/// non-negative friction coefficient, before any piece is built from them.
void check_contact_qp(const ContactQp& p) {
  const Eigen::Index n = p.base.H.rows(), nc = p.Wc.rows(), na = n - nc;
  SOFTIK_CHECK(
      na >= 0 && p.Wc.cols() == n && p.delta_c_free.size() == nc && p.contact_names.size() == p.contacts.size(),
      "solve_contact_qp: inconsistent sizes (" << n << " variables, Wc " << p.Wc.rows() << " x " << p.Wc.cols() << ", "
                                               << p.contacts.size() << " contacts)");
  for (const ContactRows& c : p.contacts)
    SOFTIK_CHECK((c.rows == 1 || c.rows == 3) && c.row >= 0 && c.row + c.rows <= nc && std::isfinite(c.mu) && c.mu >= 0,
                 "solve_contact_qp: a contact has rows [" << c.row << ", " << c.row + c.rows << ") of " << nc
                                                          << " and friction " << c.mu);
}

/// The moves out of an infeasible piece (see the header for each move): the piece itself cannot be
/// met, so a separated contact that the actuation cannot keep out of the obstacle is pressed, a
/// pressed one that cannot be held without pulling is separated. Writes them into `next`; returns
/// their number.
int infeasible_moves(const ContactQp& p, const std::vector<ContactState>& states, const std::vector<int>& first_row,
                     const QpResult& r, std::vector<ContactState>& next) {
  int moves = 0;
  for (int row : r.conflicting_rows)
    for (size_t i = 0; i < p.contacts.size(); ++i) {
      const int k = row - first_row[i];
      if (k < 0 || k >= piece_rows(p.contacts[i])) continue;
      if (k == 0) {                // the gap row
        next[i] = ContactState{};  // pressed contacts start sticking
        if (states[i].normal == ContactState::kSeparated) next[i].normal = ContactState::kPressed;
      } else {  // a tangent's rows: slip the other way, or slip where a stick conflicts
        signed char& t = next[i].tangent[(k - 1) / 3];
        t = t == ContactState::kSlipPlus    ? ContactState::kSlipMinus
            : t == ContactState::kSlipMinus ? ContactState::kSlipPlus
            : r.row_violation(row) > 0      ? ContactState::kSlipMinus
                                            : ContactState::kSlipPlus;
      }
      ++moves;
    }
  return moves;
}

/// The moves from an optimal piece (see the header for each move): which contacts push back, i.e.
/// whose multiplier exceeds kPushBack of the force scale: a separated contact whose gap row pushes
/// is pressed, a pressed one whose lambda_n >= 0 holds against a pull is separated, and a tangent
/// sticks or slips by its facet and slip rows. Writes them into `next`; returns their number.
int optimal_moves(const ContactQp& p, const QpProblem& q, const QpResult& r, const std::vector<ContactState>& states,
                  const std::vector<int>& first_row, std::vector<ContactState>& next) {
  const Eigen::Index na = p.base.H.rows() - p.Wc.rows();
  int moves = 0;
  const Real threshold = kPushBack * force_scale(q, r);
  auto pushes = [&](Eigen::Index row, Real sign) {  // sign +1: at the lower side, -1: at the upper
    return sign * r.mu_a(row) * q.A.row(row).cwiseAbs().maxCoeff() > threshold;
  };
  for (size_t i = 0; i < p.contacts.size(); ++i) {
    const ContactRows& c = p.contacts[i];
    const Eigen::Index vn = na + c.row, row = first_row[i];
    if (states[i].normal == ContactState::kSeparated) {
      if (!pushes(row, 1)) continue;
      next[i].normal = ContactState::kPressed;  // at lambda = 0, delta_n = 0: slip keeps the point
      for (int k = 0; k < 2 && c.rows == 3; ++k) {
        const Eigen::Index rd = row + 1 + 3 * k;
        next[i].tangent[k] = q.A.row(rd).dot(r.x) + p.delta_c_free(c.row + 1 + k) <= 0 ? ContactState::kSlipPlus
                                                                                       : ContactState::kSlipMinus;
      }
      ++moves;
      continue;
    }
    if (r.mu_x(vn) > threshold) {  // lambda_n >= 0 holds against a pull
      next[i] = ContactState{};
      ++moves;
      continue;
    }
    for (int k = 0; k < 2 && c.rows == 3; ++k) {
      const Eigen::Index rd = row + 1 + 3 * k, rp = rd + 1, rm = rd + 2;
      signed char& t = next[i].tangent[k];
      const signed char was = t;
      if (was == ContactState::kStick) {
        const Real plus = r.mu_a(rp), minus = r.mu_a(rm);
        if (pushes(rp, 1) && plus >= minus)
          t = ContactState::kSlipPlus;
        else if (pushes(rm, 1))
          t = ContactState::kSlipMinus;
      } else if (was == ContactState::kSlipPlus ? pushes(rd, -1) : pushes(rd, 1)) {
        t = ContactState::kStick;
      }
      if (t != was) ++moves;
    }
  }
  return moves;
}

/// Whether the pivoting stops after a piece whose answer is out.qp, with `moves` moves to the
/// state set `next`; sets out.settled and out.message when it does. It stops when no contact
/// moves, when `next` was seen before, or when the moves would pass max_pivots.
bool stop_pivoting(ContactQpResult& out, int moves, Real objective,
                   const std::map<std::vector<signed char>, Real>& visited, const std::vector<ContactState>& next,
                   int max_pivots) {
  if (moves == 0) {
    out.settled = out.qp.status == QpStatus::Optimal;
    if (!out.settled && out.message.empty()) out.message = out.qp.message;
    return true;
  }
  // The objective never increases from piece to piece, so a state set seen before has the
  // same optimum as this one: every piece the multipliers point to is as good as this point,
  // which is then a local optimum of the union of the pieces (B-stationary). Settled.
  const auto seen = visited.find(flatten(next));
  if (seen != visited.end()) {
    const Real scale = std::max({std::abs(objective), std::abs(seen->second), 1e-300});
    out.settled = out.qp.status == QpStatus::Optimal && std::abs(objective - seen->second) <= 1e-9 * scale;
    if (!out.settled)
      out.message =
          "the contact states came back to an earlier set with a different objective (round-off in a "
          "degenerate problem); the last set's answer is used";
    return true;
  }
  if (out.pivots + moves > max_pivots) {
    out.message = "the contact states did not settle within " + std::to_string(max_pivots) +
                  " changes (InverseOptions::contact_max_pivots); the last set's answer is used";
    return true;
  }
  return false;
}

/// When the last piece's answer is not optimal, the best feasible piece's answer met on the way
/// (if any) replaces it: that answer meets every contact condition, unlike a least-violation one.
void use_best_feasible(ContactQpResult& out, std::optional<std::pair<QpResult, std::vector<ContactState>>>& best) {
  if (out.qp.status != QpStatus::Optimal && best) {
    out.message +=
        (out.message.empty() ? "" : "; ") +
        std::string("the answer of the best feasible piece met is used (every contact condition holds there)");
    out.qp = std::move(best->first);
    out.states = std::move(best->second);
    out.settled = false;
  }
}

/// The pyramid is a row of the QP, which an infeasible piece's least-violation answer (and the
/// feasibility tolerance) may leave slightly violated; the friction forces are put back on it so
/// that no answer ever leaves the friction law (the infeasibility itself is reported).
void clamp_to_pyramids(const ContactQp& p, Eigen::VectorXd& x) {
  const Eigen::Index na = p.base.H.rows() - p.Wc.rows();
  for (const ContactRows& c : p.contacts) {
    if (c.rows != 3) continue;
    const Real bound = contact::pyramid_half_width(c.mu) * x(na + c.row);
    for (int k = 1; k <= 2; ++k) x(na + c.row + k) = std::clamp(x(na + c.row + k), -bound, bound);
  }
}

}  // namespace

ContactQpResult solve_contact_qp(const ContactQp& p, std::vector<ContactState> states, int max_pivots,
                                 const QpOptions& options) {
  check_contact_qp(p);
  if (states.size() != p.contacts.size()) states.assign(p.contacts.size(), ContactState{});
  ContactQpResult out;
  std::map<std::vector<signed char>, Real> visited;  ///< state sets and their pieces' optimal objective
  std::vector<int> first_row;
  QpActiveSet warm;
  // The best feasible piece's answer so far: in exact arithmetic every move keeps the answer
  // feasible, but on a degenerate set (many contacts at zero gap and zero force) round-off can
  // lead into an infeasible piece; then that answer, which meets every contact condition, is
  // returned rather than a least-violation one that leaves contacts violated.
  std::optional<std::pair<QpResult, std::vector<ContactState>>> best;
  Real best_objective = kInf;
  while (true) {
    const QpProblem q = piece(p, states, first_row);
    QpResult r = solve_qp(q, options, warm.empty() ? nullptr : &warm);
    const Real objective = 0.5 * r.x.dot(q.H * r.x) + q.g.dot(r.x);
    visited[flatten(states)] = objective;
    ++out.pieces;
    warm = r.active_set;
    if (r.status == QpStatus::Optimal && objective < best_objective) {
      best_objective = objective;
      best.emplace(r, states);
    }
    // Which contacts push back (see the header for each move).
    std::vector<ContactState> next = states;
    int moves = 0;
    if (r.status == QpStatus::Infeasible)
      moves = infeasible_moves(p, states, first_row, r, next);
    else if (r.status == QpStatus::Optimal)
      moves = optimal_moves(p, q, r, states, first_row, next);
    out.qp = std::move(r);
    if (stop_pivoting(out, moves, objective, visited, next, max_pivots)) break;
    out.pivots += moves;
    states = std::move(next);
  }
  out.states = std::move(states);
  use_best_feasible(out, best);
  clamp_to_pyramids(p, out.qp.x);
  return out;
}

}  // namespace softik::inverse_detail
