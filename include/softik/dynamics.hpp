// Implicit dynamics with the free-motion contact loop (docs/method.md section 9; [17]).
//
// Equation of motion on the free DOFs (fixed DOFs do not move):
//   M a + D v = f(x) + f_ext(t, x) + H^T lambda,      D = alpha M + beta K(x)   (Rayleigh)
// M the consistent or row-sum lumped mass (Assembler::mass_matrix), f = -dE/dx the elastic force,
// f_ext(t, x) = sum_k g_k(t) f_k + sum_p P_p(t) J_p(x) + sum_c J_c(x)^T lambda_c(t) (gravity, cavity
// pressures, driven actuators such as cables), each scaled by a piecewise-linear TimeFunction.
//
// Schemes (the unknown of a step is x_{n+1}; v and a follow from it):
//   backward Euler  v = (x - x_n)/dt,  a = (v - v_n)/dt                   (first order, dissipative)
//   Newmark         a = (x - x_n - dt v_n)/(beta dt^2) - (1/(2 beta) - 1) a_n,
//                   v = v_n + dt ((1 - gamma) a_n + gamma a)               (beta = 1/4, gamma = 1/2:
//                   the trapezoidal rule, second order, energy-conserving for a linear model)
// Newton on r(x) = f + f_ext - D v - M a with the tangent
//   A = (1 + beta c_v) K + (c_a + alpha c_v) M - (load stiffness),  c_v = dv/dx, c_a = da/dx.
//
// Contact (docs/method.md section 9.1; [17]): 1. free motion: the step above without contact;
// 2. detection at the start of the step (where nothing interpenetrates, so every node finds the
// right face) within the alarm distance plus the step's largest motion, and each pair's
// violation at the free positions: delta_free_n = gap + n . u_rel, delta_free_t = t . u_rel
// (u_rel the node's free motion relative to what it touches);
// 3. compliance W = H A^-1 H^T (A the last factorised tangent; with a Cholesky factor
// W = Z^T Z, Z = L^-1 P H^T, forward solves only); 4. the frictional contact solve
// (contact.hpp); 5. correction x = x_free + A^-1 H^T lambda, then v and a from x.
// lambda is a force (N), not an impulse: a body at rest on the floor carries its weight in
// sum lambda_n for any dt. (SOFA's compliance dt H A_v^-1 H^T acts on impulses with a velocity
// tangent A_v = dt^2 A; this is the same operator in position/force units.)
//
// Control (add_control; docs/inverse_contact.md): the inverse problem inside the loop,
// the constraint-space solve of docs/method.md 8.3-8.4 with the compliance of 9.1. Actuators
// added with add_control have inputs lambda_a that are unknowns of every step, effectors have goals:
// 1. free motion with the inputs of the last step held, lambda_a^prev (their force J_a^T lambda_a and
//    stiffness, as a driven actuator's), giving x_free;
// 2. the rows H of the constraints at x_free (actuators, effectors, sensors) and of the contact pairs
//    (as above), W = H A^-1 H^T with the tangent A of the free motion, and the free violation in
//    terms of the total inputs: delta_free = delta(x_free) - W_:a lambda_a^prev (contact rows: the
//    violation at x_free);
// 3. the constraint-space solve of InverseSolver (inverse.hpp): the QP of eq. 5 over lambda_a with
//    the energy weight and every bound and rate window, or Gauss-Seidel; with contacts, over
//    (lambda_a, lambda_c) with complementarity and the friction pyramid (contact force targets
//    are for static problems: InverseSolver::add_contact_force_target);
// 4. correction x = x_free + A^-1 H^T (lambda_a - lambda_a^prev, lambda_c), then v and a from x.
// The actuation is a force (Pa, N) held over the step, like the contact forces.
//
// A step whose Newton iteration diverges (no convergence, NaN, an inverted cell) is cut: it is
// redone as two half steps, at most max_step_cuts levels deep, and the report says so.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/constraints.hpp"
#include "softik/contact.hpp"
#include "softik/inverse.hpp"
#include "softik/linear_solver.hpp"
#include "softik/loads.hpp"

namespace softik {

/// A piecewise-linear function of time: values[k] at times[k] (strictly increasing), linear in
/// between, held at the end values outside. Empty: the constant 1.
struct TimeFunction {
  std::vector<Real> times;
  std::vector<Real> values;
  Real operator()(Real t) const;
};

/// Throws softik::Error naming `what` on sizes that differ, times that do not increase, NaN.
void validate(const TimeFunction& f, const std::string& what);

enum class TimeScheme { BackwardEuler, Newmark };

/// "backward_euler" or "newmark".
const char* time_scheme_name(TimeScheme scheme);

/// An actuator whose lambda (pressure, cable tension, force) is imposed as a function of time;
/// its force J(x)^T lambda(t) and stiffness enter every step: the part in the CSR pattern
/// (Constraint::add_stiffness) in the factorised tangent, the low-rank part of a cable
/// (Constraint::add_low_rank_stiffness) through the Woodbury identity, so Newton stays quadratic.
struct DrivenActuator {
  std::shared_ptr<Constraint> actuator;
  TimeFunction lambda;  ///< one function for all rows of the actuator
};

/// A support moved along a prescribed rigid motion (a gripper's base lifted, a clamp turned): its
/// nodes follow
///   x(t) = c + d(t) + R(t) (X - c)
/// from their rest positions X, with d(t) the translation interpolated linearly in path_offsets
/// between path_times (held at the end values outside; empty: none) and R(t) the rotation by
/// angle(t) degrees about `axis` through the rest point `center` (angle empty: none). Its nodes'
/// DOFs (all components) must be fixed in the Assembler; their velocities and accelerations follow
/// from the positions by the time scheme. The support moves the body through the elastic forces;
/// the mass coupling of its acceleration to the free DOFs (off-diagonal consistent-mass terms) is
/// left out: exact with a lumped mass, where there is none.
struct MovingSupport {
  std::string name;  ///< named in errors
  std::vector<int> nodes;
  std::vector<Real> path_times;
  std::vector<std::array<Real, 3>> path_offsets;
  std::array<Real, 3> axis{0, 0, 1};
  std::array<Real, 3> center{0, 0, 0};
  TimeFunction angle;  ///< degrees over time; empty: no rotation

  /// d(t).
  std::array<Real, 3> offset(Real t) const;
  /// x(t) of a node at rest position X.
  std::array<Real, 3> position(const std::array<Real, 3>& X, Real t) const;
};

/// Throws softik::Error naming the support on: no nodes, a node outside [0, num_nodes), path
/// sizes that differ or times that do not increase, a non-finite number, a zero axis.
void validate(const MovingSupport& support, int num_nodes);

/// Nodal forces (num_dofs entries, e.g. gravity_load) scaled by a function of time.
struct NodalLoad {
  std::vector<Real> values;
  TimeFunction factor;
};

struct DynamicLoads {
  std::vector<NodalLoad> nodal;
  std::vector<PressureLoad> pressures;         ///< pressure = the value at factor 1
  std::vector<TimeFunction> pressure_factors;  ///< one per pressure (missing: constant 1)
  std::vector<DrivenActuator> actuators;
  std::vector<MovingSupport> supports;
};

struct DynamicsOptions {
  Real dt = 1e-3;
  TimeScheme scheme = TimeScheme::BackwardEuler;
  Real newmark_beta = 0.25;
  Real newmark_gamma = 0.5;
  Real density = 1000;               ///< mass density (> 0)
  bool lumped_mass = false;          ///< row-sum lumped instead of consistent mass
  Real rayleigh_mass = 0;            ///< alpha (1/time)
  Real rayleigh_stiffness = 0;       ///< beta (time)
  int max_iterations = 25;           ///< Newton iterations per step
  Real residual_tolerance = 1e-9;    ///< |r| <= tol * (|f| + |f_ext| + |M a| + |D v|)
  Real increment_tolerance = 1e-12;  ///< or |dx| <= tol * model size
  int max_step_cuts = 6;
  bool pressure_stiffness = true;
  ContactOptions contact;
};

/// What one step did.
struct DynamicStepReport {
  int step = 0;        ///< steps completed, from 1
  Real time = 0;       ///< at the end of the step
  int iterations = 0;  ///< Newton iterations (all sub-steps)
  Real residual = 0;   ///< final |r| of the free motion
  int substeps = 1;    ///< > 1 when the step was cut
  int factorizations = 0;
  Real kinetic_energy = 0;
  Real elastic_energy = 0;
  int contacts = 0;                     ///< contact points detected
  int active_contacts = 0;              ///< with lambda_n > 0
  Real normal_force = 0;                ///< sum of lambda_n
  Vec3r contact_force = Vec3r::Zero();  ///< resultant of the contact forces on the body
  Real max_penetration = 0;             ///< largest -gap at the corrected positions (0 when none)
  /// The contact solves of the step (of all its sub-steps when cut): converged only if each
  /// did, iterations summed, the largest residual.
  ContactSolverReport contact_solve;
  int contact_solves = 0;
  double seconds_detection = 0, seconds_compliance = 0, seconds_contact_solve = 0, seconds_total = 0;
  std::vector<Real> pressures;  ///< P_p(t) per pressure load
  /// With control (add_control) the contact forces come from this solve, and contact_solve above
  /// sums its iterations and is converged when those contact forces meet the contact laws (not
  /// for an infeasible piece's least-violation answer or an unconverged forward contact solve).
  /// With control: the constraint-space solve of the (last sub-)step: status,
  /// iterations, message, lambda (the inputs), actuator_delta, effector_error (linearised, after
  /// the correction), W and the contact counts; its timings are 0 (see seconds_*).
  InverseStepReport control;
};

class DynamicSolver {
 public:
  /// The assembler (and its mesh), the solver and the loads must outlive the DynamicSolver.
  /// Starts at rest at the assembler's rest positions at time 0. Throws softik::Error on bad
  /// options (dt <= 0 or NaN, density <= 0, beta/gamma outside the stable range, negative
  /// damping, mu < 0, a contact distance larger than the smallest element, bad obstacles).
  DynamicSolver(const Assembler& assembler, LinearSolver& solver, DynamicLoads loads, DynamicsOptions options);
  ~DynamicSolver();
  DynamicSolver(DynamicSolver&&) noexcept;
  DynamicSolver& operator=(DynamicSolver&&) noexcept;

  /// Sets positions and velocities (num_dofs each); the acceleration is recomputed.
  void set_state(const std::vector<Real>& x, const std::vector<Real>& v, Real time = 0);
  const std::vector<Real>& positions() const;
  const std::vector<Real>& velocities() const;
  Real time() const;

  /// Advances one dt. Throws softik::Error (Numerical) when even the smallest sub-step fails,
  /// and then leaves the state (positions, velocities, time, contacts) where the step began.
  DynamicStepReport step();

  /// The contacts and their forces (lambda_n, lambda_t1, lambda_t2 per contact) of the last step.
  const std::vector<ContactPoint>& contacts() const;
  const std::vector<Real>& contact_forces() const;
  /// Gap and tangential slip (delta = delta_free + H A^-1 H^T lambda) of the last step, 3 per
  /// contact. Only the rows that can carry a force enter the solve (a frictionless pair's tangent
  /// rows and rows moving no free DOF carry none), but every row's delta is reported.
  const std::vector<Real>& contact_deltas() const;
  /// Control (see "Control" above): an actuator (its input becomes an unknown of every step,
  /// starting at 0 within its bounds), an effector (a goal; set_goal between steps moves it) or a
  /// sensor. Names must be unique. Throws softik::Error for a null constraint or a repeated name.
  void add_control(std::shared_ptr<Constraint> constraint);
  /// The options of the constraint-space solve: method, epsilon, qp_max_iterations,
  /// Gauss-Seidel settings, contact_max_pivots (the solve()-only ones are not used).
  InverseOptions& control_options();
  const std::vector<std::shared_ptr<Constraint>>& control_constraints() const;
  /// The controlled inputs of the last step, per actuator row in the order added.
  const std::vector<Real>& actuation() const;

  /// Warnings (bodies that start interpenetrating an obstacle, ...), one line each.
  const std::vector<std::string>& warnings() const;

  /// The force the supports put on the body at the current state, R = -(f + f_ext) on every fixed
  /// DOF (0 on the free ones): what holds the elastic forces and the loads there. The inertia of
  /// the supported nodes themselves (and the consistent-mass coupling to them) is not in it.
  std::vector<Real> reactions() const;
  Real kinetic_energy() const;  ///< v^T M v / 2 over the free DOFs
  Real elastic_energy() const;  ///< E(x)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace softik
