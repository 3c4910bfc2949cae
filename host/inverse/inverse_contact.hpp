// Contacts inside the inverse step (inverse_solver.cpp; docs/inverse_contact.md): the
// contact rows of a step, and the constraint-space solves with the contact forces as unknowns.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "host/inverse/contact_complementarity.hpp"
#include "softik/constraints.hpp"
#include "softik/contact.hpp"
#include "softik/inverse.hpp"

namespace softik::inverse_detail {

/// The contacts of one step: the points, their rows among the contact rows (normal, then t1, t2
/// for a pair with friction), the previous step's forces and states carried over.
struct StepContacts {
  std::vector<ContactPoint> points;
  std::vector<ContactRows> layout;
  std::vector<std::string> names;  ///< "contact of node 12 with 'wall'"
  std::vector<ContactState> start;
  Eigen::VectorXd lambda_previous;  ///< per contact row: the last step's force in this step's frame
  int num_rows() const { return layout.empty() ? 0 : layout.back().row + layout.back().rows; }
};

/// Detects the contacts of `nodes` with the obstacles at x within contact_distance + alarm and
/// appends their rows to `rows` (J: n, t1, t2 at the node's DOFs; delta: the gap, 0, 0). The
/// previous step's contacts (by node and obstacle) hand over their force, re-expressed in the new
/// frame, and their state (pressed ones start sticking); a new contact starts pressed when it
/// already penetrates.
/// `reach`: obstacles (indices) that a force target names; one that no candidate is near gets the
/// four candidates nearest to it, at any distance, so that the target has a contact to approach.
StepContacts detect_step_contacts(const ContactOptions& options, const std::vector<int>& nodes,
                                  const std::vector<Real>& x, Real alarm, const std::vector<int>& reach,
                                  const std::vector<ContactPoint>& previous, const std::vector<Real>& previous_lambda,
                                  const std::vector<signed char>& previous_state, std::vector<ConstraintRow>& rows);

/// The constraint space of a step as the contact solves see it: W and delta_free over every row
/// (constraints' rows first, then the contact rows from `first_contact`), the actuator and
/// effector rows, the actuators' bounds (rate windows applied) and names.
struct ContactSpace {
  const Eigen::MatrixXd& W;
  const Eigen::VectorXd& delta_free;
  const std::vector<int>& actuators;
  const std::vector<int>& effectors;
  int first_contact = 0;
  const std::vector<Interval>& lambda_bounds;
  const std::vector<Interval>& delta_bounds;
  const std::vector<std::string>& actuator_names;
  const StepContacts& contacts;
};

/// The rows of W (and delta_free) that are the contacts' rows: first_contact onward.
std::vector<int> contact_rows(const ContactSpace& space);

/// The actuators' part of a QP over their forces (the first variables and rows): the force bounds
/// (lambda_bounds), the rows' bounds delta_bounds - da_free (da_free: the actuators' free
/// violations), and the variables' and rows' names.
void set_actuator_bounds(const ContactSpace& space, const Eigen::VectorXd& da_free, QpProblem& qp);

struct ContactSolve {
  Eigen::VectorXd lambda_a, lambda_c;  ///< the actuation and the contact forces (per contact row)
  QpStatus status = QpStatus::Optimal;
  int iterations = 0;  ///< QP active-set changes or Gauss-Seidel sweeps
  int pivots = 0;
  Real kkt = 0;
  std::string message;
  std::vector<ContactState> states;
  std::vector<Real> target_forces;  ///< per force target
  Real effector_error = 0;          ///< |delta_e| predicted at the answer (QP solves)
  /// The contact forces meet the contact laws: the QP's answer lies on a piece it solved (the
  /// last, or the best feasible one met), or the forward contact solve converged. False for an
  /// infeasible piece's least-violation answer.
  bool contact_laws = false;
};

/// The QP of docs/method.md 8.3 over (lambda_a, lambda_c) with the complementarity of the contacts
/// (contact_complementarity.hpp): objective the effector rows and the force targets
/// (targets: obstacle index per target, -1 when that obstacle is not among them), energy weight
/// epsilon relative as without contacts. lambda_a_now: the current actuation (with the previous
/// contact forces, it picks the contact a force target presses first when none is pressed).
/// `start`: the contact states to pivot from (one per contact).
ContactSolve solve_inverse_with_contacts(const ContactSpace& space, const std::vector<ContactForceTarget>& targets,
                                         const std::vector<int>& target_obstacle, Real epsilon,
                                         const Eigen::VectorXd& lambda_a_now, std::vector<ContactState> start,
                                         int max_pivots, int qp_max_iterations);

/// The contact states of the forward answer at `lambda_a` on the QP's own pyramid
/// (contact::solve_box_pyramid, at most max_sweeps sweeps): pressed where the normal force is
/// positive, and per tangent of a pressed pair stick inside the pyramid, slip on a facet. That
/// answer meets every condition of its piece, so the piece is feasible: the start that the
/// pivoting falls back on when the states carried over lead to none. Empty when the sweeps do
/// not converge.
std::vector<ContactState> forward_states(const ContactSpace& space, const Eigen::VectorXd& lambda_a, int max_sweeps);

/// The contact forces that answer a given actuation (forward mode, and the Gauss-Seidel variant):
/// the frictional contact problem of contact.hpp on the exact Coulomb cone, with
/// delta = delta_c_free + W_ca lambda_a + W_cc lambda_c. lambda_c: warm start in, answer out.
ContactSolverReport contact_response(const ContactSpace& space, const Eigen::VectorXd& lambda_a,
                                     const ContactSolverOptions& options, Eigen::VectorXd& lambda_c);

/// The Gauss-Seidel of docs/method.md 8.4 alternated with the exact contact response: the actuators'
/// sweep sees the contact forces of the last response, the response the actuation of the last
/// sweep, until neither changes (relative tol) or max_rounds.
ContactSolve gauss_seidel_with_contacts(const ContactSpace& space, const Eigen::VectorXd& lambda_a_start,
                                        const ContactSolverOptions& contact_options, int max_sweeps, Real tol);

/// The constraint-space solve of a step with contacts: with every input imposed (and no force
/// target) the exact contact response alone; with InverseMethod::GaussSeidel the alternation
/// above (force targets refused: they need the QP); else the complementarity QP. lambda_a: the
/// current actuation (the imposed values are taken from the bounds). The states are filled in
/// every case (from the forces where the solve has none); the report gets the status,
/// iterations, KKT residual, pivots, message and target forces.
ContactSolve solve_step_contacts(const ContactSpace& space, const InverseOptions& options,
                                 const ContactOptions& contact, const std::vector<ContactForceTarget>& targets,
                                 Real epsilon, const Eigen::VectorXd& lambda_a, InverseStepReport& report);

/// The step's contact forces and states as the solver keeps them (3 per contact: normal, t1, t2;
/// 0 for a frictionless pair's tangents); the report's contacts, pressed_contacts, normal_force
/// and max_penetration (over the candidate `nodes` at x_new); `motion` the largest node motion
/// from x to x_new.
void contact_outcome(const StepContacts& contacts, const Eigen::VectorXd& lambda_c,
                     const std::vector<ContactState>& states, const ContactOptions& options,
                     const std::vector<int>& nodes, const std::vector<Real>& x, const std::vector<Real>& x_new,
                     std::vector<Real>& forces, std::vector<signed char>& state_codes, InverseStepReport& report,
                     Real& motion);

/// Adds the pressed contacts and the sum of lambda_n of kept contact forces and state codes (3
/// per contact, as contact_outcome stores them) to `pressed` and `normal_force`.
void add_force_totals(const std::vector<Real>& forces, const std::vector<signed char>& codes, int& pressed,
                      Real& normal_force);

/// Why the effectors stay away from their goals after a step with contacts (empty when the
/// predicted effector error is below 1e-6 x model_size), naming what holds them: the contacts
/// touching after the step (pressed, or at a gap below 1e-8 x model_size; the first three by
/// force, the count and the total normal force), the actuators at a bound of their
/// force/pressure or displacement (rate windows included), and position-effector goals inside
/// an obstacle.
std::string contact_limits_message(const ContactSpace& space, const ContactSolve& solve,
                                   const std::vector<std::shared_ptr<Constraint>>& constraints,
                                   const ContactOptions& options, Real model_size);

/// Throws softik::Error for a force target with a negative or non-finite force or weight, or a
/// name already among `existing`.
void check_force_target(const ContactForceTarget& target, const std::vector<ContactForceTarget>& existing);

/// The index of the obstacle named `name` in options.obstacles; an Error naming the known ones
/// (or, without obstacles, saying `when_none`) when there is none.
int obstacle_named(const ContactOptions& options, const std::string& name, const std::string& when_none);

/// The largest penetration (-gap, 0 when none) of `nodes` into the obstacles at x, at time t.
Real max_penetration(const ContactOptions& options, const std::vector<int>& nodes, const std::vector<Real>& x,
                     Real t = 0);

}  // namespace softik::inverse_detail
