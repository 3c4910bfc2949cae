// DynamicSolver, the control step (dynamics.hpp, "Control"): the inverse problem of docs/method.md 8
// with the compliance of 9.1 inside the free-motion loop. The constraint-space solve is the
// inverse step's own (host/inverse/constraint_space_solve.hpp); this file builds its rows and
// applies its answer.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <string>

#include "host/contact/contact_setup.hpp"
#include "host/dynamics/dynamic_solver_impl.hpp"
#include "host/inverse/constraint_space_solve.hpp"
#include "host/inverse/inverse_checks.hpp"
#include "softik/error.hpp"

namespace softik {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// How often a control step may add the pairs its correction would push into an obstacle and
/// solve again (each round adds every such pair at once; more are reported as penetration).
constexpr int kMaxDetectionRounds = 8;

constexpr const char* kSolveHint =
    "the solves with the step's tangent failed silently (a badly scaled model or a state far from equilibrium); "
    "reduce dt or check the fixed DOFs and the material";

}  // namespace

/// One constraint-space solve of the control step over a given set of contact pairs, and what
/// applying it needs.
struct DynamicSolver::Impl::ControlSolve {
  std::vector<ConstraintRow> rows;  ///< the constraints' rows, then the contact rows
  std::vector<int> actuators, effectors;
  int first_contact = 0;
  inverse_detail::StepContacts contacts;
  Matrix W;
  Vector delta;  ///< after the correction (linearised): delta_free + W (lambda_a, lambda_c)
  Vector dx;     ///< the correction A_t^-1 H^T (lambda_a - lambda_prev, lambda_c), free DOFs
  inverse_detail::ConstraintSpaceAnswer answer;
};

/// The constraints' rows at x_free, by role (out.rows, out.actuators with their names, out.effectors);
/// the actuators' delta bounds within their rate windows, so that one step moves an actuator no
/// further than its rate allows.
void DynamicSolver::Impl::control_rows(const std::vector<Real>& x_free, ControlSolve& out,
                                       std::vector<std::string>& names) const {
  std::vector<ConstraintRow>& rows = out.rows;
  for (const auto& con : control) {
    const size_t before = rows.size();
    con->rows(assembler.mesh(), x_free, rows);
    SOFTIK_CHECK(rows.size() - before == static_cast<size_t>(con->num_rows()),
                 "constraint '" << con->name() << "' returned a wrong number of rows");
    for (size_t r = before; r < rows.size(); ++r) {
      if (con->role() == ConstraintRole::Actuator) {
        out.actuators.push_back(static_cast<int>(r));
        names.push_back(con->name());
        Interval& d = rows[r].delta_bounds;
        d.lo = std::max(d.lo, rows[r].delta_window.lo);
        d.hi = std::min(d.hi, rows[r].delta_window.hi);
      } else if (con->role() == ConstraintRole::Effector) {
        out.effectors.push_back(static_cast<int>(r));
      }
    }
  }
}

/// The contact pairs' rows (normal; t1, t2 with friction) with their violation at x_free, after
/// the constraints' rows, and the last step's forces (re-expressed in the new frames) and states
/// to start from (out.contacts), so that a lasting contact resumes where the last step left it.
void DynamicSolver::Impl::control_contact_rows(const std::vector<ContactPoint>& pairs,
                                               const std::vector<Vec3r>& free_delta, ControlSolve& out) const {
  using inverse_detail::ContactState;
  const ContactOptions& c = options.contact;
  std::vector<ConstraintRow>& rows = out.rows;
  inverse_detail::StepContacts& sc = out.contacts;
  const std::vector<int> before = match_previous(pairs);
  std::vector<Real> lambda_start;
  for (size_t k = 0; k < pairs.size(); ++k) {
    const ContactPoint& p = pairs[k];
    inverse_detail::ContactRows layout;
    layout.row = static_cast<int>(rows.size()) - out.first_contact;
    layout.mu = p.friction;
    layout.rows = p.friction > 0 ? 3 : 1;
    const Vec3r* axes[3] = {&p.normal, &p.t1, &p.t2};
    Vec3r force = Vec3r::Zero();
    ContactState state;
    if (before[k] >= 0) {
      const size_t b = static_cast<size_t>(before[k]);
      const ContactPoint& q = contacts[b];
      force = lambda[3 * b] * q.normal + lambda[3 * b + 1] * q.t1 + lambda[3 * b + 2] * q.t2;
      if (3 * b < contact_codes.size() && contact_codes[3 * b] == ContactState::kPressed)
        state.normal = ContactState::kPressed;
    } else if (free_delta[k][0] < 0) {
      state.normal = ContactState::kPressed;
    }
    for (int r = 0; r < layout.rows; ++r) {
      ConstraintRow row;
      contact::append_contact_row(p, r, row.J);
      row.delta = free_delta[k][r];
      rows.push_back(std::move(row));
      lambda_start.push_back(force.dot(*axes[r]));
    }
    sc.points.push_back(p);
    sc.layout.push_back(layout);
    sc.start.push_back(state);
    sc.names.push_back("contact of node " + std::to_string(p.node) +
                       (p.obstacle >= 0 ? " with '" + c.obstacles[static_cast<size_t>(p.obstacle)].name + "'"
                                        : std::string(" with another part")));
  }
  sc.lambda_previous = Eigen::Map<const Vector>(lambda_start.data(), static_cast<Eigen::Index>(lambda_start.size()));
}

/// W = H A_t^-1 H^T (out.W; the returned compliance keeps what the correction needs), and the free
/// violation in terms of the total inputs: delta_free = delta(x_free) - W_:a lambda_prev (x_free
/// already holds J_a^T lambda_prev), both checked finite; idle: the rows whose round-off couplings
/// were cleaned.
DynamicSolver::Impl::Compliance DynamicSolver::Impl::control_compliance(ControlSolve& out, Vector& lambda_prev,
                                                                        Vector& delta_free,
                                                                        std::vector<bool>& idle) const {
  const std::vector<ConstraintRow>& rows = out.rows;
  const inverse_detail::StepContacts& sc = out.contacts;
  const std::vector<int>& free = assembler.free_dof_index();
  const Eigen::Index nfree = assembler.num_free_dofs();
  const Eigen::Index m = static_cast<Eigen::Index>(rows.size()), na = static_cast<Eigen::Index>(out.actuators.size());
  Matrix B = Matrix::Zero(nfree, m);
  for (Eigen::Index r = 0; r < m; ++r)
    for (const auto& [dof, value] : rows[static_cast<size_t>(r)].J) {
      const int row = free[static_cast<size_t>(dof)];
      if (row >= 0) B(row, r) += value;
    }
  Compliance comp = compliance(B);
  out.W = comp.W;
  lambda_prev = Eigen::Map<const Vector>(actuation.data(), na);
  delta_free.resize(m);
  for (Eigen::Index r = 0; r < m; ++r) delta_free(r) = rows[static_cast<size_t>(r)].delta;
  if (na > 0) delta_free -= out.W(Eigen::all, out.actuators) * lambda_prev;
  auto row_name = [&](size_t r) {
    if (r < static_cast<size_t>(out.first_contact)) return std::string("a row of the controlled constraints");
    size_t i = 0;
    while (i + 1 < sc.layout.size() && sc.layout[i + 1].row <= static_cast<int>(r) - out.first_contact) ++i;
    return "the row of the " + sc.names[i];
  };
  for (Eigen::Index col = 0; col < m; ++col)
    inverse_detail::require_finite(out.W.col(col).data(), static_cast<size_t>(m), "the control step's compliance W",
                                   row_name, kSolveHint);
  inverse_detail::require_finite(delta_free.data(), static_cast<size_t>(m), "the control step's free violation",
                                 row_name, kSolveHint);
  idle = inverse_detail::clean_round_off_couplings(out.W, out.effectors, out.actuators);
  return comp;
}

/// The constraint-space solve of the inverse step (out.answer, report.control, control_warm): the
/// actuation and the contact forces within the actuators' bounds.
void DynamicSolver::Impl::control_space_solve(ControlSolve& out, const std::vector<std::string>& names,
                                              const Vector& delta_free, const std::vector<bool>& idle,
                                              const Vector& lambda_prev, DynamicStepReport& report) {
  const std::vector<ConstraintRow>& rows = out.rows;
  std::vector<Interval> lambda_bounds, delta_bounds;
  for (int r : out.actuators) {
    lambda_bounds.push_back(rows[static_cast<size_t>(r)].lambda_bounds);
    delta_bounds.push_back(rows[static_cast<size_t>(r)].delta_bounds);
  }
  const inverse_detail::ContactSpace space{out.W,         delta_free,   out.actuators, out.effectors, out.first_contact,
                                           lambda_bounds, delta_bounds, names,         out.contacts};
  const std::vector<ContactForceTarget>
      no_targets;  // force targets: static inverse problems only (docs/inverse_contact.md)
  const inverse_detail::ConstraintSpaceSettings settings{
      control_options, options.contact, no_targets, control, control_options.epsilon, size, solver.info().indefinite};
  report.control = InverseStepReport{};
  out.answer = inverse_detail::solve_constraint_space(space, settings, idle, lambda_prev, control_warm, report.control);
}

/// The correction A_t^-1 H^T (lambda_a - lambda_prev, lambda_c) (out.dx, checked finite), and the
/// linearised values after it, delta = delta_free + W (lambda_a, lambda_c) (out.delta).
void DynamicSolver::Impl::control_correction(const Compliance& comp, const Vector& lambda_prev,
                                             const Vector& delta_free, ControlSolve& out) const {
  const Eigen::Index nfree = assembler.num_free_dofs();
  const Eigen::Index m = static_cast<Eigen::Index>(out.rows.size()),
                     na = static_cast<Eigen::Index>(out.actuators.size());
  Vector z = Vector::Zero(m), coefficients = Vector::Zero(m);
  for (Eigen::Index j = 0; j < na; ++j) {
    z(out.actuators[static_cast<size_t>(j)]) = out.answer.lambda_a(j);
    coefficients(out.actuators[static_cast<size_t>(j)]) = out.answer.lambda_a(j) - lambda_prev(j);
  }
  for (Eigen::Index r = 0; r < out.answer.lambda_c.size(); ++r) {
    z(out.first_contact + r) = out.answer.lambda_c(r);
    coefficients(out.first_contact + r) = out.answer.lambda_c(r);
  }
  out.dx = correction(comp, coefficients);
  inverse_detail::require_finite(
      out.dx.data(), static_cast<size_t>(nfree), "the control step's correction dx",
      [](size_t i) { return "free DOF " + std::to_string(i); }, kSolveHint);
  out.delta = delta_free + out.W * z;
}

DynamicSolver::Impl::ControlSolve DynamicSolver::Impl::solve_control(const std::vector<Real>& x_free,
                                                                     const std::vector<ContactPoint>& pairs,
                                                                     const std::vector<Vec3r>& free_delta,
                                                                     DynamicStepReport& report) {
  // The rows and the compliance count as the step's compliance time, the solve as its contact solve.
  auto clock = Clock::now();
  ControlSolve out;
  std::vector<std::string> names;
  control_rows(x_free, out, names);
  out.first_contact = static_cast<int>(out.rows.size());
  control_contact_rows(pairs, free_delta, out);
  Vector lambda_prev, delta_free;
  std::vector<bool> idle;
  const Compliance comp = control_compliance(out, lambda_prev, delta_free, idle);
  report.seconds_compliance += seconds_since(clock);

  clock = Clock::now();
  control_space_solve(out, names, delta_free, idle, lambda_prev, report);
  report.seconds_contact_solve += seconds_since(clock);

  control_correction(comp, lambda_prev, delta_free, out);
  return out;
}

std::vector<ContactPoint> DynamicSolver::Impl::missed_pairs(Real h, const std::vector<Real>& x_new,
                                                            const std::vector<ContactPoint>& pairs) const {
  const ContactOptions& c = options.contact;
  const Real tolerance = c.solver.tolerance;
  std::set<std::pair<int, int>> known;  // (node, obstacle or -1)
  for (const ContactPoint& p : pairs) known.insert({p.node, p.obstacle});
  std::vector<int> nodes, part_nodes;
  detection.penetrating_nodes(c, t + h, x_new, tolerance, known, nodes, part_nodes);
  // The pairs of those nodes as found at the start of the step, at any distance.
  std::vector<ContactPoint> out;
  for (const ContactPoint& p : detection.pairs(c, t, x, nodes, part_nodes, size))
    if (!known.count({p.node, p.obstacle})) out.push_back(p);
  return out;
}

void DynamicSolver::Impl::control_correct(Real h, std::vector<Real>& x_free, DynamicStepReport& report) {
  const auto clock = Clock::now();
  std::vector<Vec3r> free_delta;
  std::vector<ContactPoint> pairs;
  if (has_contact()) {
    pairs = detection.near_pairs(options.contact, t, h, x, x_free, free_delta);
  }
  report.seconds_detection += seconds_since(clock);
  std::vector<Real> x_new;
  const ControlSolve s = solve_control_rounds(h, x_free, pairs, free_delta, x_new, report);
  x_free.swap(x_new);
  report_control(s, report);
  store_control_contacts(s, free_delta, report);
  record_contacts(h, x_free, report);
  finish_control_report(h, x_free, s, report);
}

/// The actuation found by the solve moves the body within the step, which the detection at its
/// start could not foresee: a candidate that the correction would push into an obstacle (or
/// another part) joins the pairs (and free_delta) and the solve is repeated, until none does.
/// x_new: x_free with the last solve's correction.
DynamicSolver::Impl::ControlSolve DynamicSolver::Impl::solve_control_rounds(Real h, const std::vector<Real>& x_free,
                                                                            std::vector<ContactPoint>& pairs,
                                                                            std::vector<Vec3r>& free_delta,
                                                                            std::vector<Real>& x_new,
                                                                            DynamicStepReport& report) {
  const std::vector<int>& free = assembler.free_dof_index();
  ControlSolve s;
  for (int round = 0;; ++round) {
    s = solve_control(x_free, pairs, free_delta, report);
    x_new = x_free;
    for (size_t k = 0; k < x_new.size(); ++k)
      if (free[k] >= 0) x_new[k] += s.dx[free[k]];
    if (!has_contact() || round == kMaxDetectionRounds) break;
    const auto clock = Clock::now();
    const std::vector<ContactPoint> missed = missed_pairs(h, x_new, pairs);
    report.seconds_detection += seconds_since(clock);
    if (missed.empty()) break;
    for (const ContactPoint& p : missed) {
      pairs.push_back(p);
      free_delta.push_back(contact::ContactDetection::free_violation(options.contact, p, t, h, x, x_free));
    }
  }
  return s;
}

/// The control's part of the report (effector error, inputs, actuator values, W), and the inputs
/// the next free motion holds.
void DynamicSolver::Impl::report_control(const ControlSolve& s, DynamicStepReport& report) {
  const Eigen::Index na = static_cast<Eigen::Index>(s.actuators.size());
  InverseStepReport& rep = report.control;
  Real error2 = 0;
  for (int e : s.effectors) error2 += s.delta(e) * s.delta(e);
  rep.effector_error = std::sqrt(error2);
  rep.lambda.assign(s.answer.lambda_a.data(), s.answer.lambda_a.data() + na);
  for (int r : s.actuators) rep.actuator_delta.push_back(s.delta(r));
  rep.W.assign(s.W.data(), s.W.data() + s.W.size());
  actuation = rep.lambda;
}

/// The contacts of the step: forces and states (3 per contact), gaps and slips (the tangents of
/// a frictionless pair too, from the correction), the report.
void DynamicSolver::Impl::store_control_contacts(const ControlSolve& s, const std::vector<Vec3r>& free_delta,
                                                 DynamicStepReport& report) {
  using inverse_detail::ContactState;
  const std::vector<int>& free = assembler.free_dof_index();
  const inverse_detail::StepContacts& sc = s.contacts;
  const size_t nc = sc.points.size();
  report.contacts = std::max(report.contacts, static_cast<int>(nc));
  report.active_contacts = 0;
  report.normal_force = 0;
  report.contact_force.setZero();
  contacts = sc.points;
  lambda.assign(3 * nc, 0.0);
  deltas.assign(3 * nc, 0.0);
  contact_codes.assign(3 * nc, ContactState::kSeparated);
  std::vector<std::pair<int, Real>> entries;
  for (size_t k = 0; k < nc; ++k) {
    const inverse_detail::ContactRows& l = sc.layout[k];
    for (int r = 0; r < 3; ++r) {
      if (r < l.rows) {
        lambda[3 * k + static_cast<size_t>(r)] = s.answer.lambda_c(l.row + r);
        deltas[3 * k + static_cast<size_t>(r)] = s.delta(s.first_contact + l.row + r);
        continue;
      }
      entries.clear();
      contact::append_contact_row(sc.points[k], r, entries);
      Real slip = free_delta[k][r];
      for (const auto& [dof, value] : entries)
        if (free[static_cast<size_t>(dof)] >= 0) slip += value * s.dx[free[static_cast<size_t>(dof)]];
      deltas[3 * k + static_cast<size_t>(r)] = slip;
    }
    if (k < s.answer.states.size()) {
      contact_codes[3 * k] = s.answer.states[k].normal;
      contact_codes[3 * k + 1] = s.answer.states[k].tangent[0];
      contact_codes[3 * k + 2] = s.answer.states[k].tangent[1];
    }
  }
}

/// The report's penetration over every candidate, the contact solve's status and the control's
/// copy of the contact figures (after record_contacts).
void DynamicSolver::Impl::finish_control_report(Real h, const std::vector<Real>& x_new, const ControlSolve& s,
                                                DynamicStepReport& report) const {
  InverseStepReport& rep = report.control;
  // Every candidate node against every obstacle at the new positions, not only the pairs solved.
  report.max_penetration = std::max(report.max_penetration,
                                    inverse_detail::max_penetration(options.contact, detection.nodes(), x_new, t + h));
  // The contact forces came from the constraint-space solve (the frictional contact solver of a
  // step without control did not run): converged when they meet the contact laws, so that a
  // step whose contact answer breaks them (an infeasible piece's least-violation answer, an
  // unconverged forward contact solve with every input imposed) is counted among the
  // unconverged contact solves, not only behind the control's status.
  report.contact_solve.converged = s.answer.contact_laws;
  report.contact_solve.iterations += rep.solver_iterations;
  rep.contacts = report.contacts;
  rep.pressed_contacts = report.active_contacts;
  rep.normal_force = report.normal_force;
  rep.max_penetration = report.max_penetration;
}

void DynamicSolver::Impl::accept_control() {
  inverse_detail::accept_constraints(control, assembler.mesh(), x, actuation.data());
}

// --- DynamicSolver: control ---

void DynamicSolver::add_control(std::shared_ptr<Constraint> constraint) {
  SOFTIK_CHECK(constraint != nullptr, "DynamicSolver::add_control: null constraint");
  for (const auto& c : impl_->control)
    SOFTIK_CHECK(c->name() != constraint->name(), "DynamicSolver::add_control: two constraints are named '"
                                                      << c->name() << "'; give each a unique name");
  for (const DrivenActuator& d : impl_->loads.actuators)
    SOFTIK_CHECK(d.actuator != constraint, "DynamicSolver::add_control: actuator '"
                                               << constraint->name()
                                               << "' is already driven by a function of time; an input is either "
                                                  "imposed or solved for");
  const Assembler& assembler = impl_->assembler;
  constraint->use_backend(assembler.mesh(), assembler.options().backend);
  if (constraint->role() == ConstraintRole::Actuator)
    impl_->actuation.insert(impl_->actuation.end(), static_cast<size_t>(constraint->num_rows()), 0.0);
  impl_->control.push_back(std::move(constraint));
  impl_->control_warm = QpActiveSet{};
  impl_->constant_tangent = false;  // the actuators' force and stiffness change with x
  impl_->factor_dt = -1;
  impl_->accept_control();
}

InverseOptions& DynamicSolver::control_options() { return impl_->control_options; }
const std::vector<std::shared_ptr<Constraint>>& DynamicSolver::control_constraints() const { return impl_->control; }
const std::vector<Real>& DynamicSolver::actuation() const { return impl_->actuation; }

}  // namespace softik
