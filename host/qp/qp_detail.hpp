// The internal interface between the parts of the QP solver (host/qp/qp_solver.cpp: checks,
// scaling, least violation; qp_dual_active_set.cpp: the Goldfarb-Idnani iteration;
// qp_semidefinite.cpp: semi-definite H). Private to host/qp: not installed, not part of the
// public API of include/softik/qp.hpp.
#pragma once

#include <Eigen/Dense>

#include "softik/config.hpp"
#include "softik/qp.hpp"

namespace softik {
namespace qp_detail {

/// The Goldfarb-Idnani iteration on a validated problem (sizes checked, no NaN, lower <= upper on
/// variables, H symmetric positive definite) with at most `budget` active-set changes. Fills x,
/// mu_x, mu_a, status (Optimal, Infeasible when the constraints conflict, IterationLimit),
/// iterations, warm_started and active_set; nothing else.
QpResult dual_active_set(const QpProblem& p, const QpActiveSet* warm, int budget, Real feasibility_tolerance);

/// The curvature of a validated H (symmetric, finite): the variables' scale D = diag(H) (1 where
/// H_ii = 0) and, when H is not strictly convex to working precision, an orthonormal basis of
/// its flat directions in the scaled variables y = D^1/2 x (top of include/softik/qp.hpp). An H with a
/// clearly negative eigenvalue is an Error.
struct Curvature {
  Eigen::VectorXd scale;  ///< D: n entries > 0
  Eigen::MatrixXd flat;   ///< n x k, orthonormal columns (k = 0: strictly convex)
  Real largest = 1;       ///< the largest eigenvalue of D^-1/2 H D^-1/2 (when k > 0)
  bool strictly_convex() const { return flat.cols() == 0; }
};
Curvature analyse_curvature(const QpProblem& p);

/// The QP on a validated problem with curvature c: the Goldfarb-Idnani iteration when strictly
/// convex, else the semi-definite treatment of the top of include/softik/qp.hpp. Fills what
/// dual_active_set fills; status Unbounded also fills direction and unbounded_variables (the
/// caller writes the message). Infeasible constraints give status Infeasible (the caller
/// computes the least-violation answer).
QpResult solve_convex(const QpProblem& p, const Curvature& c, const QpActiveSet* warm, int budget,
                      Real feasibility_tolerance);

/// Relative violation of value v against [lo, hi] (positive when violated), with the scale of
/// QpKkt: |bound| + terms (terms = sum_k |a_k x_k|).
Real relative_violation(Real v, Real lo, Real hi, Real terms);
}  // namespace qp_detail

}  // namespace softik
