// The constraint-space solve of an inverse step (constraint_space_solve.hpp).
#include "host/inverse/constraint_space_solve.hpp"

#include <algorithm>
#include <sstream>
#include <string>

#include "host/inverse/inverse_checks.hpp"
#include "softik/error.hpp"

namespace softik::inverse_detail {

namespace {

/// The problem without contacts, in the blocks docs/method.md 8.2 ([16]) writes it with.
struct ActuatorSpace {
  Eigen::MatrixXd W_ea, W_aa;
  Eigen::VectorXd de_free, da_free;
};

ActuatorSpace actuator_space(const ContactSpace& s) {
  ActuatorSpace a;
  a.W_ea = s.W(s.effectors, s.actuators);
  a.W_aa = s.W(s.actuators, s.actuators);
  a.de_free = s.delta_free(s.effectors);
  a.da_free = s.delta_free(s.actuators);
  return a;
}

/// docs/method.md section 8.4; [16] eqs. 6-10.
void solve_gauss_seidel(const ContactSpace& s, const ActuatorSpace& a, const InverseOptions& o, Eigen::VectorXd& lambda,
                        InverseStepReport& rep) {
  for (Eigen::Index j = 0; j < lambda.size(); ++j)
    lambda(j) =
        std::clamp(lambda(j), s.lambda_bounds[static_cast<size_t>(j)].lo, s.lambda_bounds[static_cast<size_t>(j)].hi);
  rep.solver_iterations = gauss_seidel_inverse(a.W_ea, a.de_free, a.W_aa, a.da_free, s.lambda_bounds, s.delta_bounds,
                                               lambda, o.gauss_seidel_iterations, o.gauss_seidel_tolerance);
  rep.status = rep.solver_iterations > o.gauss_seidel_iterations ? QpStatus::IterationLimit : QpStatus::Optimal;
  if (rep.status == QpStatus::IterationLimit)
    rep.message = "Gauss-Seidel: no convergence within " + std::to_string(o.gauss_seidel_iterations) +
                  " sweeps (relative change of lambda above " + std::to_string(o.gauss_seidel_tolerance) +
                  "); the actuators may be nearly redundant: use the QP method";
}

/// Every input imposed (forward mode): nothing to optimise; only the delta bounds to check.
void apply_imposed_inputs(const ContactSpace& s, const ActuatorSpace& a, Eigen::VectorXd& lambda,
                          InverseStepReport& rep) {
  for (Eigen::Index j = 0; j < lambda.size(); ++j) lambda(j) = s.lambda_bounds[static_cast<size_t>(j)].lo;
  const Eigen::VectorXd delta_a = a.da_free + a.W_aa * lambda;
  for (Eigen::Index j = 0; j < lambda.size(); ++j) {
    const Interval& db = s.delta_bounds[static_cast<size_t>(j)];
    if (db.contains(delta_a(j))) continue;
    std::ostringstream msg;
    msg << "actuator '" << s.actuator_names[static_cast<size_t>(j)] << "': its imposed force/pressure " << lambda(j)
        << " gives displacement/volume growth " << delta_a(j) << ", outside its bounds [" << db.lo << ", " << db.hi
        << "] (rate window included)";
    rep.status = QpStatus::Infeasible;
    rep.message += (rep.message.empty() ? "" : "; ") + msg.str();
  }
}

/// The QP of docs/method.md section 8.3 ([16] eq. 5) with the relative energy weight:
///   min 1/2 lambda^T (W_ea^T W_ea + eps_abs W_aa) lambda + lambda^T W_ea^T delta_e_free,
///   eps_abs = eps |W_ea^T W_ea|_F / |W_aa|_F, within the lambda bounds and delta_a_free + W_aa lambda
///   within the delta bounds.
void solve_quadratic_program(const ContactSpace& s, const ActuatorSpace& a, const ConstraintSpaceSettings& settings,
                             QpActiveSet& warm, Eigen::VectorXd& lambda, InverseStepReport& rep) {
  const Eigen::Index na = lambda.size(), ne = a.de_free.size();
  QpProblem qp;
  const Eigen::MatrixXd EtE = a.W_ea.transpose() * a.W_ea;
  const Real waa = a.W_aa.norm();
  const Real eps_abs = (ne > 0 && EtE.norm() > 0 && waa > 0) ? settings.epsilon * EtE.norm() / waa : 1.0;
  qp.H = EtE + eps_abs * a.W_aa;
  qp.g = a.W_ea.transpose() * a.de_free;
  qp.g_terms = a.W_ea.cwiseAbs().transpose() * a.de_free.cwiseAbs();  // g's round-off scale
  qp.A = a.W_aa;
  set_actuator_bounds(s, a.da_free, qp);
  QpOptions qo;
  qo.max_iterations = settings.options.qp_max_iterations;
  QpResult res;
  try {
    res = solve_qp(qp, qo, &warm);
  } catch (const Error& e) {
    // W_aa = J_a K^-1 J_a^T is positive definite when K is; an indefinite tangent (a state
    // far from equilibrium, or past a limit point) can make it indefinite.
    SOFTIK_CHECK_NUMERICAL(!settings.tangent_indefinite,
                           "InverseSolver: the tangent stiffness at this state is indefinite, so the "
                           "constraint-space QP is not convex ("
                               << e.what()
                               << "); approach the goals in smaller steps (effector max_shift, actuator rate "
                                  "limits) or use the converged solve(), which follows a continuation path");
    throw;
  }
  warm = res.active_set;
  rep.status = res.status;
  rep.solver_iterations = res.iterations;
  rep.kkt_residual = res.kkt.max();
  rep.message = res.message;
  if (res.status == QpStatus::Unbounded) {
    // No answer to apply: the actuation stays where it was (within its bounds), and the
    // message names the actuators that need a bound.
    for (Eigen::Index j = 0; j < na; ++j)
      lambda(j) =
          std::clamp(lambda(j), s.lambda_bounds[static_cast<size_t>(j)].lo, s.lambda_bounds[static_cast<size_t>(j)].hi);
    rep.message = unbounded_message(res, s.actuator_names, s.lambda_bounds);
  } else {
    lambda = res.x.array() + 0.0;  // + 0.0: no "-0" pressure in the outputs
  }
}

}  // namespace

ConstraintSpaceAnswer solve_constraint_space(const ContactSpace& space, const ConstraintSpaceSettings& settings,
                                             const std::vector<bool>& idle, const Eigen::VectorXd& lambda_now,
                                             QpActiveSet& warm, InverseStepReport& rep) {
  ConstraintSpaceAnswer out;
  out.lambda_a = lambda_now;
  const Eigen::Index na = static_cast<Eigen::Index>(space.actuators.size());
  if (!space.contacts.points.empty() || !settings.targets.empty()) {
    // The contact forces join the unknowns (inverse_contact.hpp).
    const ContactSolve r = solve_step_contacts(space, settings.options, settings.contact, settings.targets,
                                               settings.epsilon, lambda_now, rep);
    out.lambda_a = r.lambda_a;
    out.lambda_c = r.lambda_c;
    out.states = r.states;
    out.contact_laws = r.contact_laws;
    // An effector held off its goal: say by what (contacts, bounds, a goal inside an obstacle).
    const std::string why =
        contact_limits_message(space, r, settings.constraints, settings.contact, settings.model_size);
    if (!why.empty()) rep.message += (rep.message.empty() ? "" : "; ") + why;
  } else if (na > 0) {
    const ActuatorSpace a = actuator_space(space);
    if (settings.options.method == InverseMethod::GaussSeidel)
      solve_gauss_seidel(space, a, settings.options, out.lambda_a, rep);
    else if (std::all_of(space.lambda_bounds.begin(), space.lambda_bounds.end(),
                         [](const Interval& b) { return b.lo == b.hi; }))
      apply_imposed_inputs(space, a, out.lambda_a, rep);
    else
      solve_quadratic_program(space, a, settings, warm, out.lambda_a, rep);
  }
  // With contacts, an actuator without a direct coupling may still move an effector through a
  // contact it presses: only those that reach no effector that way either are idle.
  std::vector<bool> idle_now = idle;
  const int contact_rows = space.contacts.num_rows();
  for (size_t j = 0; j < idle_now.size(); ++j)
    for (int c = space.first_contact; idle_now[j] && c < space.first_contact + contact_rows; ++c) {
      if (space.W(c, space.actuators[j]) == 0) continue;
      for (int e : space.effectors) idle_now[j] = idle_now[j] && space.W(e, c) == 0;
    }
  const std::string idle_note = idle_actuators_message(idle_now, space.actuator_names);
  if (!idle_note.empty()) rep.message += (rep.message.empty() ? "" : "; ") + idle_note;
  require_finite(
      out.lambda_a.data(), static_cast<size_t>(na), "the actuation lambda",
      [&](size_t j) { return "actuator '" + space.actuator_names[j] + "'"; },
      "the constraint-space solve returned it; check the actuators' bounds");
  return out;
}

void accept_constraints(const std::vector<std::shared_ptr<Constraint>>& constraints, const Mesh& mesh,
                        const std::vector<Real>& x, const Real* actuation) {
  size_t a = 0;
  for (const auto& c : constraints) {
    if (c->role() == ConstraintRole::Actuator) {
      c->accept(mesh, x, actuation + a);
      a += static_cast<size_t>(c->num_rows());
    } else {
      c->accept(mesh, x, nullptr);
    }
  }
}

}  // namespace softik::inverse_detail
