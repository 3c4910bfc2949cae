// The constraint-space solves of the inverse step with contact forces as unknowns (inverse_contact.hpp):
// the QP with the contacts' complementarity, its Gauss-Seidel alternative, the starts tried when a
// solve ends on a bound, and the message that names the limits a failed solve ran into.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "host/inverse/inverse_contact.hpp"
#include "softik/error.hpp"

namespace softik::inverse_detail {

namespace {

// Sub-blocks of W and delta by row lists (Eigen's indexed views, copied).
Eigen::MatrixXd pick(const Eigen::MatrixXd& W, const std::vector<int>& rows, const std::vector<int>& cols) {
  return W(rows, cols);
}
Eigen::VectorXd pick(const Eigen::VectorXd& v, const std::vector<int>& rows) { return v(rows); }

}  // namespace

void set_actuator_bounds(const ContactSpace& space, const Eigen::VectorXd& da_free, QpProblem& qp) {
  const Eigen::Index na = da_free.size();
  qp.lower.resize(na);
  qp.upper.resize(na);
  qp.a_lower.resize(na);
  qp.a_upper.resize(na);
  for (Eigen::Index j = 0; j < na; ++j) {
    const Interval& lb = space.lambda_bounds[static_cast<size_t>(j)];
    const Interval& db = space.delta_bounds[static_cast<size_t>(j)];
    qp.lower(j) = lb.lo;
    qp.upper(j) = lb.hi;
    qp.a_lower(j) = db.lo - da_free(j);
    qp.a_upper(j) = db.hi - da_free(j);
    const std::string& who = space.actuator_names[static_cast<size_t>(j)];
    qp.variable_names.push_back(who + " force/pressure");
    qp.row_names.push_back(who + " displacement/volume growth");
  }
}

namespace {

/// A force target on an obstacle none of whose contacts is pressed has no slope to follow (the
/// force is 0 on the whole separated piece, whatever the actuation). Its contact that the
/// actuators would press deepest at their upper bounds (the current value where unbounded) is
/// then brought to the obstacle: while it is apart (gap above 1e-9 of the gaps' scale at the
/// current forces), the target's row is that contact's gap (approach); once it touches, it starts
/// pressed (its tangents slipping the way the probe moves it) and the row is the force.
/// Returns per target the contact row it approaches (-1: none); updates `start` (the states to
/// start from, the step's own when their number does not match).
std::vector<int> approach_targets(const ContactSpace& s, const ContactQp& p,
                                  const std::vector<ContactForceTarget>& targets,
                                  const std::vector<int>& target_obstacle, const Eigen::VectorXd& lambda_a_now,
                                  std::vector<ContactState>& start) {
  const StepContacts& c = s.contacts;
  const Eigen::Index na = static_cast<Eigen::Index>(s.actuators.size()), n = p.Wc.cols();
  const Eigen::Index nt = static_cast<Eigen::Index>(targets.size());
  if (start.size() != c.points.size()) start = c.start;
  Eigen::VectorXd z_now(n);
  z_now << lambda_a_now, c.lambda_previous;
  const Eigen::VectorXd delta_now = p.delta_c_free + p.Wc * z_now;
  Eigen::VectorXd z_probe = z_now;
  for (Eigen::Index j = 0; j < na; ++j)
    if (std::isfinite(s.lambda_bounds[static_cast<size_t>(j)].hi))
      z_probe(j) = s.lambda_bounds[static_cast<size_t>(j)].hi;
  const Eigen::VectorXd delta_probe = p.delta_c_free + p.Wc * z_probe;
  const Real gap_scale = p.delta_c_free.size() ? p.delta_c_free.cwiseAbs().maxCoeff() : 0;
  std::vector<int> approach(static_cast<size_t>(nt), -1);  // the contact a target approaches
  for (Eigen::Index t = 0; t < nt; ++t) {
    int nearest = -1;
    bool pressed = false;
    for (size_t i = 0; i < c.points.size(); ++i) {
      if (c.points[i].obstacle != target_obstacle[static_cast<size_t>(t)]) continue;
      pressed = pressed || start[i].normal == ContactState::kPressed;
      if (nearest < 0 || delta_probe(c.layout[i].row) < delta_probe(c.layout[static_cast<size_t>(nearest)].row))
        nearest = static_cast<int>(i);
    }
    if (pressed || nearest < 0 || !(targets[static_cast<size_t>(t)].force > 0)) continue;
    const ContactRows& l = c.layout[static_cast<size_t>(nearest)];
    if (delta_now(l.row) > 1e-9 * gap_scale) {
      approach[static_cast<size_t>(t)] = l.row;
      continue;
    }
    ContactState& st = start[static_cast<size_t>(nearest)];
    st.normal = ContactState::kPressed;
    for (int k = 0; k < 2 && l.rows == 3; ++k)
      st.tangent[k] = delta_probe(l.row + 1 + k) <= 0 ? ContactState::kSlipPlus : ContactState::kSlipMinus;
  }
  return approach;
}

/// Objective rows E z + e0: the effectors (delta_e = delta_e_free + W_ez z) and the force targets
/// (weight (sum lambda_n - force), or the approached contact's gap).
void objective_rows(const ContactSpace& s, const ContactQp& p, const std::vector<ContactForceTarget>& targets,
                    const std::vector<int>& target_obstacle, const std::vector<int>& z,
                    const std::vector<int>& approach, Eigen::MatrixXd& E, Eigen::VectorXd& e0) {
  const StepContacts& c = s.contacts;
  const Eigen::Index na = static_cast<Eigen::Index>(s.actuators.size()), n = p.Wc.cols();
  const Eigen::Index ne = static_cast<Eigen::Index>(s.effectors.size());
  const Eigen::Index nt = static_cast<Eigen::Index>(targets.size());
  E = Eigen::MatrixXd::Zero(ne + nt, n);
  e0 = Eigen::VectorXd::Zero(ne + nt);
  E.topRows(ne) = pick(s.W, s.effectors, z);
  e0.head(ne) = pick(s.delta_free, s.effectors);
  for (Eigen::Index t = 0; t < nt; ++t) {
    if (approach[static_cast<size_t>(t)] >= 0) {
      E.row(ne + t) = p.Wc.row(approach[static_cast<size_t>(t)]);
      e0(ne + t) = p.delta_c_free(approach[static_cast<size_t>(t)]);
      continue;
    }
    std::vector<Eigen::Index> normals;
    for (size_t i = 0; i < c.points.size(); ++i)
      if (c.points[i].obstacle == target_obstacle[static_cast<size_t>(t)]) normals.push_back(na + c.layout[i].row);
    Real w = targets[static_cast<size_t>(t)].weight;
    if (w == 0 && !normals.empty()) {
      for (Eigen::Index v : normals) w += s.W(z[static_cast<size_t>(v)], z[static_cast<size_t>(v)]);
      w /= static_cast<Real>(normals.size());
    }
    for (Eigen::Index v : normals) E(ne + t, v) = w;
    e0(ne + t) = -w * targets[static_cast<size_t>(t)].force;
  }
}

/// The QP without the contacts' rows (`base`): the objective |E z + e0|^2 / 2 with the energy
/// weight, relative as without contacts, eps |W_ea^T W_ea| / |W_aa| over the actuators, applied to
/// the energy of every constraint force; when the objective does not see the actuators directly
/// (force targets only: they act through the contact forces), relative over all of z. Then the
/// actuators' force and displacement bounds with their names.
void base_qp(const ContactSpace& s, const std::vector<int>& z, const Eigen::MatrixXd& E, const Eigen::VectorXd& e0,
             Real epsilon, QpProblem& base) {
  const Eigen::Index na = static_cast<Eigen::Index>(s.actuators.size());
  const Eigen::MatrixXd EtE = E.transpose() * E, Wzz = pick(s.W, z, z);
  const Real eaa = EtE.topLeftCorner(na, na).norm(), waa = pick(s.W, s.actuators, s.actuators).norm();
  Real eps_abs = 1.0;
  if (eaa > 0 && waa > 0)
    eps_abs = epsilon * eaa / waa;
  else if (EtE.norm() > 0 && Wzz.norm() > 0)
    eps_abs = epsilon * EtE.norm() / Wzz.norm();
  base.H = EtE + eps_abs * Wzz;
  base.g = E.transpose() * e0;
  base.g_terms = E.cwiseAbs().transpose() * e0.cwiseAbs();
  base.A = pick(s.W, s.actuators, z);
  set_actuator_bounds(s, pick(s.delta_free, s.actuators), base);
}

/// The QP's options: a cold active-set solve takes n to 3n changes (qp.hpp); a piece has n
/// variables and about 7 rows per frictional contact, so the cap grows with the contacts.
QpOptions contact_qp_options(const ContactSpace& s, Eigen::Index n, int qp_max_iterations) {
  Eigen::Index piece_rows = static_cast<Eigen::Index>(s.actuators.size());
  for (const ContactRows& l : s.contacts.layout) piece_rows += l.rows == 3 ? 7 : 1;
  QpOptions qo;
  qo.max_iterations = std::max<Eigen::Index>(qp_max_iterations, 3 * (n + piece_rows));
  return qo;
}

/// The answer from the pivoting's result: the actuation and contact forces (no "-0"), the status
/// (Optimal only when the contact states settled), the effectors' predicted error and the force
/// each target's obstacle receives.
ContactSolve contact_solve_answer(const ContactSpace& s, ContactQpResult& r, const Eigen::MatrixXd& E,
                                  const Eigen::VectorXd& e0, const std::vector<ContactForceTarget>& targets,
                                  const std::vector<int>& target_obstacle) {
  const StepContacts& c = s.contacts;
  const Eigen::Index na = static_cast<Eigen::Index>(s.actuators.size()),
                     nc = static_cast<Eigen::Index>(s.contacts.num_rows());
  const Eigen::Index ne = static_cast<Eigen::Index>(s.effectors.size());
  const Eigen::Index nt = static_cast<Eigen::Index>(targets.size());
  ContactSolve out;
  out.lambda_a = r.qp.x.head(na).array() + 0.0;  // + 0.0: no "-0" in the outputs
  out.lambda_c = r.qp.x.tail(nc).array() + 0.0;
  out.status = r.qp.status;
  if (r.qp.status == QpStatus::Optimal && !r.settled) out.status = QpStatus::IterationLimit;
  out.iterations = r.qp.iterations;
  out.pivots = r.pivots;
  out.kkt = r.qp.kkt.max();
  out.message = r.message.empty() ? r.qp.message : r.message;
  out.states = std::move(r.states);
  out.effector_error = (e0.head(ne) + E.topRows(ne) * r.qp.x).norm();
  out.contact_laws = r.qp.status == QpStatus::Optimal;  // the best feasible piece's, when one replaced it
  for (Eigen::Index t = 0; t < nt; ++t) {
    Real f = 0;
    for (size_t i = 0; i < c.points.size(); ++i)
      if (c.points[i].obstacle == target_obstacle[static_cast<size_t>(t)]) f += out.lambda_c(c.layout[i].row);
    out.target_forces.push_back(f);
  }
  return out;
}

}  // namespace

ContactSolve solve_inverse_with_contacts(const ContactSpace& s, const std::vector<ContactForceTarget>& targets,
                                         const std::vector<int>& target_obstacle, Real epsilon,
                                         const Eigen::VectorXd& lambda_a_now, std::vector<ContactState> start,
                                         int max_pivots, int qp_max_iterations) {
  const std::vector<int> crow = contact_rows(s);
  std::vector<int> z = s.actuators;
  z.insert(z.end(), crow.begin(), crow.end());
  const Eigen::Index na = static_cast<Eigen::Index>(s.actuators.size()), nc = static_cast<Eigen::Index>(crow.size());
  const Eigen::Index n = na + nc;
  const StepContacts& c = s.contacts;
  ContactQp p;
  p.Wc = pick(s.W, crow, z);
  p.delta_c_free = pick(s.delta_free, crow);
  const std::vector<int> approach = approach_targets(s, p, targets, target_obstacle, lambda_a_now, start);
  Eigen::MatrixXd E;
  Eigen::VectorXd e0;
  objective_rows(s, p, targets, target_obstacle, z, approach, E, e0);
  base_qp(s, z, E, e0, epsilon, p.base);
  p.contacts = c.layout;
  p.contact_names = c.names;
  ContactQpResult r = solve_contact_qp(p, start, max_pivots, contact_qp_options(s, n, qp_max_iterations));
  return contact_solve_answer(s, r, E, e0, targets, target_obstacle);
}

ContactSolve gauss_seidel_with_contacts(const ContactSpace& s, const Eigen::VectorXd& lambda_a_start,
                                        const ContactSolverOptions& contact_options, int max_sweeps, Real tol) {
  const std::vector<int> crow = contact_rows(s);
  const Eigen::MatrixXd W_ea = pick(s.W, s.effectors, s.actuators), W_aa = pick(s.W, s.actuators, s.actuators);
  const Eigen::MatrixXd W_ec = pick(s.W, s.effectors, crow), W_ac = pick(s.W, s.actuators, crow);
  const Eigen::VectorXd de_free = pick(s.delta_free, s.effectors), da_free = pick(s.delta_free, s.actuators);
  ContactSolve out;
  out.lambda_a = lambda_a_start;
  for (Eigen::Index j = 0; j < out.lambda_a.size(); ++j)
    out.lambda_a(j) = std::clamp(out.lambda_a(j), s.lambda_bounds[static_cast<size_t>(j)].lo,
                                 s.lambda_bounds[static_cast<size_t>(j)].hi);
  out.lambda_c = s.contacts.lambda_previous;
  constexpr int kRounds = 200;
  bool settled = false;
  int round = 0;
  for (; round < kRounds && !settled; ++round) {
    Eigen::VectorXd la = out.lambda_a, lc = out.lambda_c;
    const int sweeps = gauss_seidel_inverse(W_ea, de_free + W_ec * lc, W_aa, da_free + W_ac * lc, s.lambda_bounds,
                                            s.delta_bounds, la, max_sweeps, tol);
    out.iterations += std::min(sweeps, max_sweeps);
    const ContactSolverReport cr = contact_response(s, la, contact_options, lc);
    out.contact_laws = cr.converged;
    auto change = [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
      const Real scale = std::max(a.cwiseAbs().maxCoeff(), b.cwiseAbs().maxCoeff());
      return a.size() == 0 || (a - b).cwiseAbs().maxCoeff() <= 1e-10 * std::max(scale, 1e-300);
    };
    settled = cr.converged && change(la, out.lambda_a) && (lc.size() == 0 || change(lc, out.lambda_c));
    out.lambda_a = la;
    out.lambda_c = lc;
  }
  out.pivots = round;
  if (!settled) {
    out.status = QpStatus::IterationLimit;
    out.message = "Gauss-Seidel with contacts: the actuation and the contact forces did not settle within " +
                  std::to_string(kRounds) +
                  " rounds (an actuator pushing against a contact it cannot see through the "
                  "frozen contact forces); use the QP method";
  }
  return out;
}

namespace {

/// The pivoting finds a local optimum of the union of pieces from its start. Two more starts,
/// each on a feasible piece (forward_states), are tried when the first answer is not optimal or
/// leaves the effectors off their goals:
/// - the forward answer at the current actuation (within its bounds): the states carried over
///   from the last step can start on an infeasible piece (the actuation now presses a contact
///   that was apart, e.g. a grasp closing), from which the pivoting has no descent to follow;
/// - when an effector row has no direct coupling to any actuator (W_ea = 0 after the round-off
///   cleaning: an object held by fingers, moved only through contacts), the forward answer with
///   every actuator at its upper bound: a contact that is apart has no slope on its piece (its
///   force is 0 whatever the actuation), so such an effector is out of reach until the actuation
///   presses the contacts; from that piece the pivoting lets go of what does not help.
/// The best answer is kept: optimal before not settled before infeasible, then the smaller
/// effector error (without force targets, whose rows depend on the start).
void more_starts(const ContactSpace& space, const std::vector<ContactForceTarget>& targets,
                 const std::vector<int>& target_obstacle, Real epsilon, const Eigen::VectorXd& lambda_a,
                 const InverseOptions& o, const ContactSolverOptions& contact_options, ContactSolve& r) {
  if (space.contacts.points.empty()) return;
  const Real scale = space.effectors.empty() ? 0 : space.delta_free(space.effectors).cwiseAbs().maxCoeff();
  auto rank = [](QpStatus st) { return st == QpStatus::Optimal ? 0 : st == QpStatus::IterationLimit ? 1 : 2; };
  auto better = [&](const ContactSolve& a, const ContactSolve& b) {
    if (rank(a.status) != rank(b.status)) return rank(a.status) < rank(b.status);
    return targets.empty() && a.effector_error < b.effector_error * (1 - 1e-9);
  };
  auto held = [&](const ContactSolve& a) {
    return !space.effectors.empty() && a.effector_error > 1e-9 * std::max(scale, Real(1e-300));
  };
  bool through_contacts = false;
  for (int e : space.effectors) {
    bool direct = false;
    for (int a : space.actuators) direct = direct || space.W(e, a) != 0;
    through_contacts = through_contacts || !direct;
  }
  int pivots = r.pivots;
  for (int probe = 0; probe < 2; ++probe) {
    if (r.status == QpStatus::Optimal && !held(r)) break;
    if (probe == 0 && r.status == QpStatus::Optimal) continue;  // the first start was fine
    if (probe == 1 && !through_contacts) break;
    Eigen::VectorXd la = lambda_a;
    for (Eigen::Index j = 0; j < la.size(); ++j) {
      const Interval& b = space.lambda_bounds[static_cast<size_t>(j)];
      la(j) = probe == 1 && std::isfinite(b.hi) ? b.hi : std::clamp(la(j), b.lo, b.hi);
    }
    const std::vector<ContactState> start = forward_states(space, la, contact_options.max_iterations);
    if (start.empty()) continue;
    ContactSolve again = solve_inverse_with_contacts(space, targets, target_obstacle, epsilon, lambda_a, start,
                                                     o.contact_max_pivots, o.qp_max_iterations);
    pivots += again.pivots;
    if (better(again, r)) r = std::move(again);
  }
  r.pivots = pivots;  // every start's
}

}  // namespace

ContactSolve solve_step_contacts(const ContactSpace& space, const InverseOptions& o, const ContactOptions& contact,
                                 const std::vector<ContactForceTarget>& targets, Real epsilon,
                                 const Eigen::VectorXd& lambda_a, InverseStepReport& rep) {
  const ContactSolverOptions& contact_options = contact.solver;
  std::vector<int> target_obstacle;
  for (const ContactForceTarget& t : targets)
    target_obstacle.push_back(obstacle_named(contact, t.obstacle, "set contact first"));
  ContactSolve r;
  const bool imposed = std::all_of(space.lambda_bounds.begin(), space.lambda_bounds.end(),
                                   [](const Interval& b) { return b.lo == b.hi; });
  if (imposed && targets.empty()) {
    r.lambda_a = lambda_a;
    for (Eigen::Index j = 0; j < r.lambda_a.size(); ++j) r.lambda_a(j) = space.lambda_bounds[static_cast<size_t>(j)].lo;
    r.lambda_c = space.contacts.lambda_previous;
    const ContactSolverReport cr = contact_response(space, r.lambda_a, contact_options, r.lambda_c);
    r.iterations = cr.iterations;
    r.contact_laws = cr.converged;
    if (!cr.converged) {
      r.status = QpStatus::IterationLimit;
      r.message = "the contact solve did not converge (residual " + std::to_string(cr.residual) + ")";
    }
  } else if (o.method == InverseMethod::GaussSeidel) {
    SOFTIK_CHECK(targets.empty(),
                 "InverseSolver: contact force targets need the QP method (the Gauss-Seidel sweeps "
                 "run over actuators only); set the method to QP");
    r = gauss_seidel_with_contacts(space, lambda_a, contact_options, o.gauss_seidel_iterations,
                                   o.gauss_seidel_tolerance);
  } else {
    r = solve_inverse_with_contacts(space, targets, target_obstacle, epsilon, lambda_a, space.contacts.start,
                                    o.contact_max_pivots, o.qp_max_iterations);
    more_starts(space, targets, target_obstacle, epsilon, lambda_a, o, contact_options, r);
    // The least-violation answer of an infeasible problem weighs every row alike, contacts
    // included: a body could be left inside an obstacle because an actuator's displacement window
    // (a rate limit) could not hold too. The windows give way first: solved again without the
    // displacement bounds that hold no answer, the contacts and the force/pressure bounds kept.
    std::vector<std::string> relaxed;
    for (size_t j = 0; j < space.delta_bounds.size(); ++j)
      if (std::isfinite(space.delta_bounds[j].lo) || std::isfinite(space.delta_bounds[j].hi))
        relaxed.push_back(space.actuator_names[j]);
    if (r.status == QpStatus::Infeasible && !relaxed.empty()) {
      const std::vector<Interval> free_delta(space.delta_bounds.size(), Interval{});
      const ContactSpace wider{space.W,         space.delta_free,     space.actuators,
                               space.effectors, space.first_contact,  space.lambda_bounds,
                               free_delta,      space.actuator_names, space.contacts};
      ContactSolve again = solve_inverse_with_contacts(wider, targets, target_obstacle, epsilon, lambda_a,
                                                       space.contacts.start, o.contact_max_pivots, o.qp_max_iterations);
      if (again.status != QpStatus::Infeasible) {
        std::string names;
        for (const std::string& n : relaxed) names += (names.empty() ? "'" : ", '") + n + "'";
        again.message =
            "infeasible with the contacts: the displacement/volume-growth bounds (rate windows included) "
            "of " +
            names + " were set aside for this step so that no contact is violated (" + r.message + ")";
        again.status = QpStatus::Infeasible;
        again.pivots += r.pivots;
        r = std::move(again);
      }
    }
  }
  if (r.states.size() != space.contacts.points.size()) {  // from the forces
    r.states.assign(space.contacts.points.size(), ContactState{});
    for (size_t i = 0; i < space.contacts.points.size(); ++i)
      if (r.lambda_c(space.contacts.layout[i].row) > 0) r.states[i].normal = ContactState::kPressed;
  }
  rep.status = r.status;
  rep.solver_iterations = r.iterations;
  rep.kkt_residual = r.kkt;
  rep.contact_pivots = r.pivots;
  rep.message = r.message;
  rep.target_forces = r.target_forces;
  return r;
}

std::string contact_limits_message(const ContactSpace& s, const ContactSolve& r,
                                   const std::vector<std::shared_ptr<Constraint>>& constraints,
                                   const ContactOptions& options, Real model_size) {
  Eigen::VectorXd lam = Eigen::VectorXd::Zero(s.W.rows());
  for (size_t j = 0; j < s.actuators.size(); ++j) lam(s.actuators[j]) = r.lambda_a(static_cast<Eigen::Index>(j));
  lam.segment(s.first_contact, r.lambda_c.size()) = r.lambda_c;
  const Eigen::VectorXd delta = s.delta_free + s.W * lam;
  const Real error = std::sqrt(pick(delta, s.effectors).squaredNorm());
  if (!(error > 1e-6 * model_size)) return {};
  const Eigen::VectorXd delta_a = pick(delta, s.actuators);
  std::vector<std::pair<std::string, Vec3r>> goals;
  for (const auto& con : constraints)
    if (const auto* pe = dynamic_cast<const PositionEffector*>(con.get()))
      goals.emplace_back(pe->name(), Vec3r(pe->goal()[0], pe->goal()[1], pe->goal()[2]));
  std::ostringstream msg;
  msg << "the effectors stay " << error << " from their goals";
  // Contacts that hold the body: pressed, or touching (gap at most 1e-8 of the model size after
  // the step) with no force, where the objective would push through.
  std::vector<std::pair<Real, size_t>> holding;
  Real total = 0;
  for (size_t i = 0; i < s.contacts.points.size(); ++i) {
    const int row = s.contacts.layout[i].row;
    if (r.states[i].normal != ContactState::kPressed && delta(s.first_contact + row) > 1e-8 * model_size) continue;
    holding.emplace_back(r.lambda_c(row), i);
    total += r.lambda_c(row);
  }
  std::sort(holding.begin(), holding.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> causes;
  if (!holding.empty()) {
    std::ostringstream c;
    c << holding.size() << " contact" << (holding.size() > 1 ? "s" : "") << " touching (";
    for (size_t k = 0; k < std::min<size_t>(3, holding.size()); ++k)
      c << (k ? ", " : "") << s.contacts.names[holding[k].second] << ": " << holding[k].first << " N";
    c << (holding.size() > 3 ? ", ..." : "") << "; total normal force " << total << " N)";
    causes.push_back(c.str());
  }
  auto at = [](Real v, Real bound) {
    return std::isfinite(bound) && std::abs(v - bound) <= 1e-9 * std::max(std::abs(bound), 1e-300);
  };
  for (size_t j = 0; j < s.actuator_names.size(); ++j) {
    const Interval& lb = s.lambda_bounds[j];
    const Interval& db = s.delta_bounds[j];
    const Real l = r.lambda_a(static_cast<Eigen::Index>(j)), d = delta_a(static_cast<Eigen::Index>(j));
    std::ostringstream c;
    if (at(l, lb.hi) || at(l, lb.lo))
      c << "actuator '" << s.actuator_names[j] << "' at its " << (at(l, lb.hi) ? "upper" : "lower")
        << " force/pressure bound " << l;
    else if (at(d, db.hi) || at(d, db.lo))
      c << "actuator '" << s.actuator_names[j] << "' at its " << (at(d, db.hi) ? "upper" : "lower")
        << " displacement/volume growth bound " << d << " (rate window included)";
    if (!c.str().empty()) causes.push_back(c.str());
  }
  for (const auto& [name, goal] : goals)
    for (const Obstacle& o : options.obstacles) {
      const Real depth = options.contact_distance - distance_to_obstacle(o, 0, goal).distance;
      if (depth > 0)
        causes.push_back("the goal of effector '" + name + "' lies inside obstacle '" + o.name + "' (" +
                         std::to_string(depth) + " deep): no state of the body reaches it");
    }
  if (causes.empty()) return msg.str();
  msg << ", held by ";
  for (size_t k = 0; k < causes.size(); ++k) msg << (k ? "; " : "") << causes[k];
  return msg.str();
}

}  // namespace softik::inverse_detail
