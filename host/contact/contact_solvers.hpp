// The pieces of solve_frictional_contact() (host/contact, and the inverse step's contact start):
// the Coulomb cone, the exact single-contact solve used by projected Gauss-Seidel, the pivoting
// (Lemke) solver, and the solve on the inverse QP's 4-facet pyramid.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "softik/contact.hpp"

namespace softik {
namespace contact {

using MatrixXr = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
using VectorXr = Eigen::Matrix<Real, Eigen::Dynamic, 1>;
using Mat3r = Eigen::Matrix<Real, 3, 3>;

/// The Euclidean projection of z = (z_n, z_t) onto K_mu = {|z_t| <= mu z_n}:
/// z if |z_t| <= mu z_n; 0 if mu |z_t| <= -z_n (the polar cone); else
/// (z_n + mu |z_t|) / (1 + mu^2) (1, mu z_t / |z_t|).
Vec3r project_on_cone(const Vec3r& z, Real mu);

/// One contact's natural-map residual (length units), rho = 1 / max diag(W_ii):
/// |lambda - proj_K(lambda - rho (delta + mu |delta_t| e_n))| / rho.
Real contact_residual(const Vec3r& lambda, const Vec3r& delta, Real mu, Real rho);

/// The exact solution of one contact, delta = b + A lambda (A = W_ii, b = the rest of delta):
/// separation (b_n >= 0: lambda = 0), else stick (lambda = -A^-1 b inside the cone), else slip
/// (delta_n = 0, lambda_t = -mu lambda_n s with delta_t parallel to s, s found by a scan of the
/// angle and bisection; the root nearest the current lambda's direction). `current` is kept
/// when no slip direction exists (a singular or strongly coupled A).
Vec3r solve_single_contact(const Mat3r& A, const Vec3r& b, Real mu, const Vec3r& current);

/// For a W that softik built from a step's tangent (W = H A^-1 H^T): throws a Numerical Error
/// when a diagonal is not positive or W holds a non-finite value, i.e. when the tangent A has
/// stopped being positive definite in the contacts' directions (a hyperelastic body compressed
/// past its stable range, a buckling mode). Not an input error: the same scene runs with a
/// smaller step. `what` names the solve ("dynamics contact", "inverse contact").
void check_step_compliance(const MatrixXr& W, const char* what);

/// Each contact's state at (lambda, delta): 0 separated (lambda_n <= 0), 2 slipping (mu = 0, or
/// on the cone's boundary with |delta_t| > slip_threshold), else 1 stick (a contact on the
/// boundary without slip sticks: delta_i = 0 holds at such a solution).
std::vector<int> contact_states(const VectorXr& lambda, const VectorXr& delta, const std::vector<Real>& mu,
                                Real slip_threshold);

/// Active-set polish: with `states` fixed, solves the linear equations of that state exactly
/// (stick: delta_i = 0; slip: delta_n = 0 with lambda_t = -mu lambda_n s, s = delta_t / |delta_t|
/// when direction_from_slip, else -lambda_t / |lambda_t|, at the current lambda; separated:
/// lambda_i = 0). Returns false when the system is singular.
bool polish_active_set(const MatrixXr& W, const VectorXr& delta_free, const std::vector<Real>& mu,
                       const std::vector<int>& states, bool direction_from_slip, VectorXr& lambda);

/// Block projected Gauss-Seidel with the exact local solve above.
ContactSolverReport solve_projected_gauss_seidel(const MatrixXr& W, const VectorXr& delta_free,
                                                 const std::vector<Real>& mu, VectorXr& lambda,
                                                 const ContactSolverOptions& options);

/// mu' = mu / sqrt(2): the half-width of the 4-facet pyramid |lambda_tk| <= mu' lambda_n (k = 1, 2)
/// inscribed in the Coulomb cone of coefficient mu, the friction law of the inverse QP.
inline Real pyramid_half_width(Real mu) { return mu * 0.70710678118654752440; }

/// The frictional contact problem on the 4-facet pyramid |lambda_tk| <= mu' lambda_n of the
/// inverse QP (host/inverse/contact_complementarity.hpp) with its slip law per axis (stick:
/// delta_tk = 0; slip on a facet: delta_tk against the force):
/// projected Gauss-Seidel, each contact solved exactly by trying its states. lambda: warm start
/// in, answer out. The sweeps stop when one changes no force by more than 1e-12 of the largest
/// (or after max_sweeps); report.residual is then the largest violation of those conditions
/// (length units), and converged means it is at most 1e-9 of the largest |delta_free|.
ContactSolverReport solve_box_pyramid(const MatrixXr& W, const VectorXr& delta_free, const std::vector<Real>& mu,
                                      VectorXr& lambda, int max_sweeps);

/// Lemke's method on the LCP of the inscribed 8-facet friction pyramid (exact when mu = 0).
ContactSolverReport solve_direct(const MatrixXr& W, const VectorXr& delta_free, const std::vector<Real>& mu,
                                 VectorXr& lambda, const ContactSolverOptions& options);

/// max_i contact_residual over the contacts, for delta = delta_free + W lambda.
Real natural_map_residual(const MatrixXr& W, const VectorXr& delta, const std::vector<Real>& mu,
                          const VectorXr& lambda);

}  // namespace contact
}  // namespace softik
