// The inverse problem (docs/method.md section 8; [16]): find the actuator inputs
// lambda_a (pressures, cable tensions, point forces) that bring the effectors to their goals,
// within the actuators' bounds.
//
// One step at positions x (docs/method.md section 8.2; [16], Steps I-III):
//   assemble f(x) = -dE/dx and K(x) on the free DOFs; factor K once;
//   Step I    dx_free = K^-1 (f + f_ext)                    (no actuation)
//             delta_free = delta(x) + J dx_free              (every constraint row)
//   Step II   Y = K^-1 J^T (all rows in one multi-RHS solve), W = J Y:
//             effectors  delta_e = delta_e_free + W_ea lambda_a
//             actuators  delta_a = delta_a_free + W_aa lambda_a
//             QP (eq. 5): min 1/2 lambda^T (W_ea^T W_ea + eps_abs W_aa) lambda + lambda^T W_ea^T delta_e_free
//                 s.t. lambda bounds, delta_a bounds (rate windows included),
//             eps_abs = eps ||W_ea^T W_ea||_F / ||W_aa||_F   (eps: InverseOptions::epsilon)
//             or the Gauss-Seidel iteration of eqs. 6-10.
//             Couplings W_ea(e, a) at round-off level (below 1e-10 of sqrt(W_ee W_aa), their
//             Cauchy-Schwarz bound) are set to 0 first: an actuator that cannot move an effector
//             (an effector axis across its plane of symmetry) keeps its least-energy input and the
//             report says so, instead of the ratio of two round-off values (1e18 Pa).
//             With eps zero or tiny the QP is only semi-definite (qp.hpp); should it be unbounded
//             (status Unbounded), the actuation stays at its previous value and the message names
//             the actuators that need a bound.
//   Step III  x <- x + dx_free + Y_a lambda_a.
// With a Cholesky factor K = P^T L L^T P (LinearSolver::has_cholesky_factor) Steps I-II need
// forward solves only (docs/method.md sections 7 and 8.2):
//   Z0 = L^-1 P (f + f_ext),  Z_J = L^-1 P J^T,  W = Z_J^T Z_J,  delta_free = delta + Z_J^T Z0,
//   Step III  dx = P^T L^-T (Z0 + Z_J,a lambda_a)   (one backward solve of one column);
// an indefinite K (L D L^T) takes the full solves above.
// With the actuators' own stiffness (actuator_stiffness, and always in solve()) the tangent is
// K_t = K + K_a + U C U^T: K_a (cavity follower loads) lies in the CSR pattern, U C U^T (cables:
// couplings between distant points, constraints.hpp LowRankStiffness) does not and is applied
// by the Woodbury identity: with B = [f + f_ext, J^T, U] and G = B^T K^-1 B (= Z^T Z on the half
// path), a^T K_t^-1 b = a^T K^-1 b - (a^T K^-1 U) M (U^T K^-1 b), M = (I + C U^T K^-1 U)^-1 C, so W
// and delta_free come from G - G_:U M G_U:, and Step III adds -K^-1 U M U^T K^-1 (rhs + J_a^T lambda).
// lambda is the physical actuation (Pa, N), the total value at x, never an impulse: nothing
// depends on a time step. Sensors' rows are evaluated and reported, never solved for.
// No NaN or infinity leaves a step (docs/method.md section 8.2): W, delta_free, lambda, dx, the new
// positions, the predicted effector error and actuator displacements and every constraint output
// are checked, and a non-finite one is a softik::Error of kind Numerical naming the quantity and
// the constraint, actuator or DOF (x and lambda are then left as they were, unless only an output
// after the update is at fault).
//
// Contacts (set_contact; docs/inverse_contact.md): rows of the obstacles' contacts join J (normal,
// and t1, t2 with friction), their forces lambda_c join the unknowns, and the constraint-space
// solve becomes the QP above over (lambda_a, lambda_c) with 0 <= lambda_n _|_ delta_n >= 0 and a
// friction pyramid (pivoting on contact states, host/inverse/contact_complementarity.cpp), or the
// exact Coulomb cone with imposed inputs and with Gauss-Seidel. Step III applies J_c^T lambda_c too.
//
// Modes: step() is the real-time mode (one linearisation per call, goals may move between
// calls); solve() repeats steps until equilibrium f + f_ext + J_a^T lambda_a = 0 and the
// constraint-space solution both meet their tolerances. solve() follows a continuation path
// when the whole problem is too far for Newton from the starting state: the problem at
// s in (0, 1] has every effector goal moved from its offset at the start toward the goal,
//   delta_e(x; s) = delta_e(x) - (1 - s) delta_e(x_start),
// and every imposed value of an actuator (lambda or delta with equal bounds) drawn from its value
// at the start, v(s) = v_start + s (v - v_start) (an imposed pressure is then ramped as in load
// stepping); inequality bounds are left as they are. It tries s = 1 first; a failed
// increment (no convergence within max_iterations, an unfactorable tangent, an inverted state)
// is undone and halved, a converged one doubles the next, as the load steps of solve_static. Forward re-simulation:
// give actuators equal lambda bounds (imposed pressure) or equal delta bounds (imposed volume growth).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/constraints.hpp"
#include "softik/contact.hpp"
#include "softik/linear_solver.hpp"
#include "softik/loads.hpp"
#include "softik/qp.hpp"

namespace softik {

class PressureEvaluator;  // host/loads/pressure_evaluator.hpp

enum class InverseMethod { QP, GaussSeidel };

struct InverseOptions {
  InverseMethod method = InverseMethod::QP;
  /// Relative weight of the deformation energy in the QP (docs/method.md section 8.3; [16] eq. 5).
  Real epsilon = 1e-3;
  /// solve() lowers the energy weight by 10x per iteration down to this value, so that its
  /// answer is the effector optimum itself (the minimal-energy one among equal optima) rather
  /// than the eps-biased one of a single real-time step.
  Real epsilon_min = 1e-10;
  /// Add the actuators' own stiffness (cavity follower load P d2V/dx2, cable T d2L/dx2) at the
  /// current lambda to K in real-time steps. Off by default there, as in the reference method; solve() always adds
  /// it, which makes its iterations Newton steps on the equilibrium (quadratic convergence).
  bool actuator_stiffness = false;
  /// Real-time steps may reuse the factorisation of K for up to this many steps (0: refactor
  /// every step, as the reference method). A reused factor gives a chord step: the same fixed
  /// point (equilibrium and the QP's answer), reached at a linear rate instead of one
  /// linearisation per step. A step refactors when the relative equilibrium residual is above
  /// 1e-2 (far from equilibrium a stale K makes the steps oscillate) or grew tenfold.
  /// The way to a 1 kHz control loop (the project's target), factorisation being most of a step.
  int reuse_factorization = 0;
  /// Use the forward-solve-only path when the linear solver holds a Cholesky factor (same
  /// answer to round-off, m backward solves fewer); false always takes the full solves.
  bool half_solves = true;
  int gauss_seidel_iterations = 10000;
  Real gauss_seidel_tolerance = 1e-13;  ///< relative change of lambda
  int qp_max_iterations = 500;
  // solve():
  /// Per continuation increment; at least log10(epsilon / epsilon_min) + 2 (the last increment
  /// lowers the energy weight 10x per iteration).
  int max_iterations = 50;
  /// The smallest continuation increment before solve() gives up (reports not converged).
  Real min_increment = 1.0 / 256;
  Real residual_tolerance = 1e-9;  ///< |f + f_ext + J_a^T lambda|_free <= tol * force scale
  Real lambda_tolerance = 1e-9;    ///< |lambda_k - lambda_k-1| <= tol * max(|lambda|, tiny)
  /// Contacts (InverseSolver::set_contact): the most contact state changes one step may make
  /// while pivoting (docs/inverse_contact.md); more is reported, never looped on.
  int contact_max_pivots = 200;
};

/// A goal for the total normal force a body presses on an obstacle with (N): the row
/// weight * (sum of lambda_n over the contacts with `obstacle` - force) joins the effector rows.
/// weight converts force to length (m/N), so that the force error counts like an effector offset;
/// 0 takes the mean normal compliance W_nn of those contacts at each step (the displacement a
/// force error would make).
struct ContactForceTarget {
  std::string name;
  std::string obstacle;  ///< Obstacle::name
  Real force = 0;        ///< >= 0
  Real weight = 0;       ///< >= 0
};

/// What one step did.
struct InverseStepReport {
  /// Of the constraint-space solve: Optimal, Infeasible (least-violation answer applied),
  /// IterationLimit, or Unbounded (QP with eps zero or tiny only: nothing applied, lambda kept);
  /// Gauss-Seidel: Optimal or IterationLimit.
  QpStatus status = QpStatus::Optimal;
  int solver_iterations = 0;  ///< QP or Gauss-Seidel iterations
  Real kkt_residual = 0;      ///< QP only
  /// What went wrong or needs attention, naming the constraints: the infeasibility explanation,
  /// the actuators an unbounded QP needs bounded, actuators that cannot move the effectors.
  std::string message;
  Real equilibrium_residual = 0;  ///< |f + f_ext + J_a^T lambda_prev| on the free DOFs at the step's start
  Real force_scale = 0;           ///< the force its tolerance is relative to
  /// equilibrium_residual / force_scale (the residual itself when the scale is 0: nothing loaded)
  Real relative_residual() const { return force_scale > 0 ? equilibrium_residual / force_scale : equilibrium_residual; }
  std::vector<Real> lambda;          ///< per actuator row, after the step
  std::vector<Real> actuator_delta;  ///< delta_a = delta_a_free + W_aa lambda: the linearised actuator
                                     ///< displacements (volume growth, cable shortening) after the step
  Real effector_error = 0;           ///< |delta_e| predicted by the linearisation after the step
  /// The constraint-space compliance W = J K^-1 J^T of the step (m x m over every constraint row,
  /// in row order; symmetric), as the QP saw it.
  std::vector<Real> W;
  bool half_solves = false;  ///< Steps I-II used forward solves only (Cholesky factor of K)
  bool refactored = true;    ///< K was assembled and factored (false: an earlier factor reused)
  /// Constraint rows whose forward solve L^-1 P J^T was kept from an earlier step on the same
  /// factorisation because their J had not changed (a position effector; chord steps with half
  /// solves on a host solver; 0 otherwise). The step solved only its other columns.
  int kept_columns = 0;
  Real continuation = 1;  ///< solve(): the point s of the continuation path of this step
  // Contacts (InverseSolver::set_contact; all 0 without):
  int contacts = 0;          ///< contact points in the step (detected within the alarm distance)
  int pressed_contacts = 0;  ///< carrying a normal force (the rest separated)
  int contact_pivots = 0;    ///< contact state changes of the constraint-space solve
  /// Largest -gap over the candidate nodes at the new positions (0: none penetrates). The
  /// linearised step keeps every detected contact out; this is what the nonlinearity (and nodes
  /// that came from beyond the alarm distance) left. solve() counts a state as converged only
  /// when it is within the contact tolerance.
  Real max_penetration = 0;
  Real normal_force = 0;            ///< sum of lambda_n
  std::vector<Real> target_forces;  ///< per ContactForceTarget: the normal force reached (linearised)
  // seconds per phase; t_solves: the solves of Steps I-II (forward only on the half path),
  // t_update: Step III, including the half path's backward solve
  Real t_assembly = 0, t_factorization = 0, t_solves = 0, t_constraint_solve = 0, t_update = 0;
};

struct InverseSolveReport {
  bool converged = false;
  int iterations = 0;   ///< steps taken (those of undone increments included; steps that threw not)
  int increments = 0;   ///< converged continuation increments (1 when the whole problem converged at once)
  int cuts = 0;         ///< increments undone and halved
  std::string message;  ///< why it did not converge (empty when it did)
  std::vector<InverseStepReport> steps;
};

namespace detail {
class InverseStep;  // one step_with call, docs/method.md 8.2 (host/inverse/inverse_solver.cpp)
}

class InverseSolver {
 public:
  /// `external`: nodal loads (gravity) and imposed pressures applied at full value; prescribed
  /// displacements are not supported here (fix the DOFs at their positions in x instead).
  InverseSolver(const Assembler& assembler, LinearSolver& solver, Loads external = {}, InverseOptions options = {});

  void add(std::shared_ptr<Constraint> constraint);
  const std::vector<std::shared_ptr<Constraint>>& constraints() const { return constraints_; }
  InverseOptions& options() { return options_; }

  /// One real-time step from x (updated in place).
  InverseStepReport step(std::vector<Real>& x);
  /// Steps until converged, along the continuation path when needed; x updated in place. When
  /// it fails, x and lambda are left at the last converged increment.
  InverseSolveReport solve(std::vector<Real>& x);

  /// Current actuation, per actuator row in the order the actuators were added.
  const std::vector<Real>& lambda() const { return lambda_; }

  /// Contact with rigid obstacles inside the inverse problem (docs/inverse_contact.md): the
  /// contact forces join the actuation as unknowns of the constraint-space solve, with
  /// complementarity to the gaps and Coulomb friction (a pyramid in the QP, the exact cone with
  /// imposed inputs). Checks as the DynamicSolver's (obstacles, distances, tolerance: the
  /// penetration allowed, < 0: 1e-9 x the model size); between_parts is refused (a static
  /// problem has no inertia to hold a free part: use a DynamicSolver).
  void set_contact(ContactOptions options);
  void add_contact_force_target(ContactForceTarget target);
  /// The contacts of the last step and their forces (lambda_n, lambda_t1, lambda_t2 per contact,
  /// the friction forces 0 for a frictionless pair), in N.
  const std::vector<ContactPoint>& contacts() const { return contacts_; }
  const std::vector<Real>& contact_forces() const { return contact_lambda_; }
  /// The totals of those contacts, as a step report gives them: after a solve() that failed,
  /// those of the increment it restored (the state x holds), not of the last step it tried.
  struct ContactTotals {
    int contacts = 0;                 ///< contact points
    int pressed_contacts = 0;         ///< in the pressed state (carrying a normal force)
    Real normal_force = 0;            ///< sum of lambda_n, N
    std::vector<Real> target_forces;  ///< per contact force target: the normal force on its obstacle
  };
  ContactTotals contact_totals() const;

 private:
  friend class detail::InverseStep;
  /// A point s of solve()'s continuation path: the start values delta_start (every row, in row
  /// order) and lambda_start (every actuator row).
  struct Continuation {
    Real s = 1;
    std::vector<Real> delta_start, lambda_start;
  };
  InverseStepReport step_with(std::vector<Real>& x, Real epsilon, bool actuator_stiffness,
                              const Continuation* path = nullptr, int reuse = 0);
  /// Steps until the problem at path.s is solved (the energy weight is lowered to epsilon_min
  /// when s = 1); false when it fails (see solve()). Appends the step reports to out.
  bool converge(std::vector<Real>& x, const Continuation& path, InverseSolveReport& out);
  void accept_all(const std::vector<Real>& x);
  bool admissible(const std::vector<Real>& x) const;  ///< no cell inverted where the law is undefined

  const Assembler& assembler_;
  LinearSolver& solver_;
  Loads external_;
  /// One per external_.pressures entry, on the assembler's backend.
  std::vector<std::shared_ptr<PressureEvaluator>> external_pressure_;
  InverseOptions options_;
  std::vector<std::shared_ptr<Constraint>> constraints_;
  std::vector<Real> lambda_;
  QpActiveSet warm_;  ///< the previous step's active set
  bool analyzed_ = false;
  bool factor_valid_ = false;  ///< the solver holds a factorisation of an earlier step's K
  int factor_age_ = 0;         ///< steps since it was computed
  Real last_relative_residual_ = kInf;
  /// While a factorisation is kept (reuse_factorization): the constraint rows' J^T (n_free x k,
  /// column-major) of the last step and their forward solves L^-1 P J^T on that factor, so that
  /// a chord step solves again only the rows whose J changed (host/inverse/kept_columns.hpp).
  std::vector<Real> kept_Jt_, kept_Z_;
  int kept_rows_ = -1;  ///< k; -1: nothing kept
  // Contacts (set_contact):
  bool has_contact_ = false;
  ContactOptions contact_;
  std::vector<int> contact_nodes_;  ///< candidates: boundary nodes with a free DOF
  std::vector<ContactForceTarget> force_targets_;
  std::vector<ContactPoint> contacts_;  ///< of the last step
  std::vector<Real> contact_lambda_;    ///< 3 per contact
  std::vector<signed char>
      contact_state_;     ///< per contact of the last step: normal, t1, t2 (contact_complementarity.hpp)
  Real last_motion_ = 0;  ///< largest node motion of the last step (widens the detection)
  Real model_size_ = 1;   ///< the mesh's bounding-box diagonal (tolerances of the contact report)
  /// The index of the obstacle named `name` in contact_.obstacles (an Error naming the known ones
  /// when there is none).
  int obstacle_index(const std::string& name) const;
};

/// Gauss-Seidel in constraint space (docs/method.md 8.4; [16] eqs. 6-10): per actuator j, the change
///   d lambda_j = -(w_*j . delta_e) / |w_*j|^2,  w_*j = column j of W_ea  (0 when w_*j = 0),
/// clamped to the lambda bounds and to the lambda interval keeping delta_a_j in its bounds;
/// delta_e += w_*j d lambda_j. Sweeps until the largest change is below tol * max |lambda|.
/// Returns the number of sweeps (max_sweeps + 1 when it did not converge). W_ea should have its
/// round-off couplings zeroed (InverseSolver does): a column of round-off gives a change of
/// round-off over round-off. Non-finite input is an Error (Input); a lambda that becomes infinite
/// is an Error of kind Numerical, never returned.
int gauss_seidel_inverse(const Eigen::MatrixXd& W_ea, const Eigen::VectorXd& delta_e_free, const Eigen::MatrixXd& W_aa,
                         const Eigen::VectorXd& delta_a_free, const std::vector<Interval>& lambda_bounds,
                         const std::vector<Interval>& delta_bounds, Eigen::VectorXd& lambda, int max_sweeps, Real tol);

}  // namespace softik
