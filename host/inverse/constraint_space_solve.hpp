// The constraint-space solve of an inverse step (docs/method.md 8.2, Step II's second half): given the
// compliance W = J K^-1 J^T and the free violation delta_free of every row, the actuation lambda_a
// (and the contact forces lambda_c with contacts). One function for the static inverse step
// (inverse_solver.cpp) and the control step inside the dynamic loop (host/dynamics), so that both
// solve the same problem the same way.
#pragma once

#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "host/inverse/inverse_contact.hpp"
#include "softik/constraints.hpp"
#include "softik/contact.hpp"
#include "softik/inverse.hpp"
#include "softik/qp.hpp"

namespace softik::inverse_detail {

/// What the solve needs besides the constraint space itself.
struct ConstraintSpaceSettings {
  const InverseOptions& options;
  const ContactOptions& contact;  ///< the obstacles (force targets name them) and the contact solver
  const std::vector<ContactForceTarget>& targets;
  const std::vector<std::shared_ptr<Constraint>>& constraints;  ///< named by the diagnosis of a held effector
  Real epsilon;             ///< the energy weight of this step (relative, inverse.hpp)
  Real model_size;          ///< the mesh's bounding-box diagonal
  bool tangent_indefinite;  ///< the factorised tangent was indefinite (explains a non-convex QP)
};

struct ConstraintSpaceAnswer {
  Eigen::VectorXd lambda_a;          ///< per actuator row: the total actuation
  Eigen::VectorXd lambda_c;          ///< per contact row (empty without contacts)
  std::vector<ContactState> states;  ///< per contact
  /// The contact forces meet the contact laws (ContactSolve::contact_laws; true without contacts).
  bool contact_laws = true;
};

/// Solves for lambda_a (and lambda_c) in the constraint space `space` (W with its effector-actuator
/// round-off couplings already zeroed; `idle` per actuator row from clean_round_off_couplings):
///   with contacts or force targets: solve_step_contacts (the complementarity QP, Gauss-Seidel with
///     the exact contact response, or the response alone), then why an effector is held;
///   else Gauss-Seidel (docs/method.md 8.4), the imposed inputs (every lambda bound an equality:
///     only the delta bounds are checked), or the QP of 8.3 warm-started from `warm`.
/// lambda_now: the current actuation. Fills rep's status, iterations, KKT residual, pivots,
/// target forces and message. A non-finite lambda is an Error (Numerical).
ConstraintSpaceAnswer solve_constraint_space(const ContactSpace& space, const ConstraintSpaceSettings& settings,
                                             const std::vector<bool>& idle, const Eigen::VectorXd& lambda_now,
                                             QpActiveSet& warm, InverseStepReport& rep);

/// Accepts the state x in every constraint, in their order: an actuator with its rows' inputs, taken
/// in turn from `actuation` (one per actuator row), the others without.
void accept_constraints(const std::vector<std::shared_ptr<Constraint>>& constraints, const Mesh& mesh,
                        const std::vector<Real>& x, const Real* actuation);

}  // namespace softik::inverse_detail
