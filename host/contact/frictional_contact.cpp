// solve_frictional_contact() and frictional_contact_residual() (contact.hpp): input checks,
// the natural-map residual and block projected Gauss-Seidel.
#include <algorithm>
#include <cmath>

#include "host/contact/contact_solvers.hpp"
#include "softik/error.hpp"

namespace softik {

namespace contact {

namespace {

// rho_i = 1 / max diag(W_ii): the natural map's step, so that residuals are lengths.
Real contact_rho(const MatrixXr& W, Eigen::Index i) { return 1 / W.diagonal().segment<3>(3 * i).maxCoeff(); }

}  // namespace

Real natural_map_residual(const MatrixXr& W, const VectorXr& delta, const std::vector<Real>& mu,
                          const VectorXr& lambda) {
  Real r = 0;
  for (Eigen::Index i = 0; i < Eigen::Index(mu.size()); ++i)
    r = std::max(r,
                 contact_residual(lambda.segment<3>(3 * i), delta.segment<3>(3 * i), mu[size_t(i)], contact_rho(W, i)));
  return r;
}

// One sweep over the contacts: lambda_i <- the exact solution of contact i with the others
// fixed, delta_i = b + W_ii lambda_i, b = delta_i - W_ii lambda_i; delta is kept current.
void gauss_seidel_sweep(const MatrixXr& W, const std::vector<Real>& mu, VectorXr& lambda, VectorXr& delta) {
  for (Eigen::Index i = 0; i < Eigen::Index(mu.size()); ++i) {
    const Mat3r A = W.block<3, 3>(3 * i, 3 * i);
    const Vec3r li = lambda.segment<3>(3 * i);
    const Vec3r b = delta.segment<3>(3 * i) - A * li;
    const Vec3r next = solve_single_contact(A, b, mu[size_t(i)], li);
    const Vec3r step = next - li;
    if (step.isZero(0)) continue;
    delta.noalias() += W.middleCols<3>(3 * i) * step;
    lambda.segment<3>(3 * i) = next;
  }
}

// Sweeps until the residual meets the tolerance. Once the contact states have not changed for
// `wait` sweeps, an active-set polish (two passes, the second with the updated slip
// directions) is tried and kept when it lowers the residual; a polish that does not help
// doubles the wait.
ContactSolverReport solve_projected_gauss_seidel(const MatrixXr& W, const VectorXr& delta_free,
                                                 const std::vector<Real>& mu, VectorXr& lambda,
                                                 const ContactSolverOptions& options) {
  VectorXr delta = delta_free + W * lambda;
  ContactSolverReport report;
  std::vector<int> states;
  int stable = 0, wait = 3;
  for (int it = 1; it <= options.max_iterations; ++it) {
    gauss_seidel_sweep(W, mu, lambda, delta);
    report.iterations = it;
    Real residual = natural_map_residual(W, delta, mu, lambda);
    if (residual > options.tolerance) {
      const std::vector<int> now = contact_states(lambda, delta, mu, 0);
      stable = now == states ? stable + 1 : 0;
      states = now;
      if (stable < wait) continue;
      // Contacts on the cone's boundary polished as slipping along their friction force.
      for (Real slip_threshold : {Real(0)}) {
        const std::vector<int> trial = contact_states(lambda, delta, mu, slip_threshold);
        VectorXr candidate = lambda;
        if (!polish_active_set(W, delta_free, mu, trial, false, candidate) ||
            !polish_active_set(W, delta_free, mu, trial, false, candidate))
          continue;
        const VectorXr candidate_delta = delta_free + W * candidate;
        const Real r = natural_map_residual(W, candidate_delta, mu, candidate);
        if (r < residual) {
          lambda = candidate;
          delta = candidate_delta;
          residual = r;
        }
      }
      stable = 0;
      if (residual > options.tolerance) {
        wait *= 2;
        continue;
      }
    }
    delta = delta_free + W * lambda;  // confirm without the round-off of the updates
    if (natural_map_residual(W, delta, mu, lambda) <= options.tolerance) {
      report.converged = true;
      break;
    }
  }
  report.residual = natural_map_residual(W, delta_free + W * lambda, mu, lambda);
  report.converged = report.converged && report.residual <= options.tolerance;
  return report;
}

}  // namespace contact

void contact::check_step_compliance(const MatrixXr& W, const char* what) {
  const char* advice =
      "the step's tangent stiffness is no longer positive definite where the contacts push (a hyperelastic body "
      "compressed past its stable range, or buckling under the contact). A smaller time or load step, a stiffer "
      "volumetric response (a larger poisson or bulk modulus) or formulation: corotational (whose tangent stays "
      "positive definite) helps";
  SOFTIK_CHECK_NUMERICAL(W.allFinite(), what << ": the contact compliance W = H A^-1 H^T holds NaN or inf: " << advice);
  for (Eigen::Index k = 0; k < W.rows(); ++k)
    SOFTIK_CHECK_NUMERICAL(W(k, k) > 0, what << ": the contact compliance W = H A^-1 H^T has W(" << k << ", " << k
                                             << ") = " << W(k, k) << " <= 0 (contact " << k / 3 << ", "
                                             << (k % 3 == 0 ? "normal" : "tangent") << " row): " << advice);
}

namespace {

void check_problem(const contact::MatrixXr& W, const contact::VectorXr& delta_free, const std::vector<Real>& mu) {
  const Eigen::Index m = 3 * Eigen::Index(mu.size());
  SOFTIK_CHECK(W.rows() == m && W.cols() == m && delta_free.size() == m,
               "frictional contact: " << mu.size() << " contacts need W of size " << m << " x " << m
                                      << " and delta_free of size " << m << ", got W " << W.rows() << " x " << W.cols()
                                      << " and delta_free " << delta_free.size()
                                      << "; give 3 rows (normal, t1, t2) per contact");
  SOFTIK_CHECK(W.allFinite() && delta_free.allFinite(),
               "frictional contact: W or delta_free holds NaN or inf; the step that built them diverged");
  for (size_t i = 0; i < mu.size(); ++i)
    SOFTIK_CHECK(std::isfinite(mu[i]) && mu[i] >= 0,
                 "frictional contact: contact " << i << " has friction coefficient " << mu[i] << "; give mu >= 0");
  for (Eigen::Index k = 0; k < m; ++k)
    SOFTIK_CHECK(W(k, k) > 0, "frictional contact: W(" << k << ", " << k << ") = " << W(k, k) << " (contact " << k / 3
                                                       << ") is not positive; a contact row must move a free DOF");
}

}  // namespace

ContactSolverReport solve_frictional_contact(const Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>& W,
                                             const Eigen::Matrix<Real, Eigen::Dynamic, 1>& delta_free,
                                             const std::vector<Real>& mu,
                                             Eigen::Matrix<Real, Eigen::Dynamic, 1>& lambda,
                                             const ContactSolverOptions& options) {
  check_problem(W, delta_free, mu);
  SOFTIK_CHECK(std::isfinite(options.tolerance) && options.tolerance >= 0 && options.max_iterations >= 1,
               "frictional contact: tolerance " << options.tolerance << " and max_iterations " << options.max_iterations
                                                << "; give tolerance >= 0 and at least 1 iteration");
  if (lambda.size() != delta_free.size()) lambda = contact::VectorXr::Zero(delta_free.size());
  SOFTIK_CHECK(lambda.allFinite(), "frictional contact: the warm start lambda holds NaN or inf; pass zeros");
  if (mu.empty()) {
    ContactSolverReport report;
    report.converged = true;
    return report;
  }
  if (options.method == ContactSolverMethod::Direct) return contact::solve_direct(W, delta_free, mu, lambda, options);
  return contact::solve_projected_gauss_seidel(W, delta_free, mu, lambda, options);
}

Real frictional_contact_residual(const Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>& W,
                                 const Eigen::Matrix<Real, Eigen::Dynamic, 1>& delta_free, const std::vector<Real>& mu,
                                 const Eigen::Matrix<Real, Eigen::Dynamic, 1>& lambda) {
  check_problem(W, delta_free, mu);
  SOFTIK_CHECK(lambda.size() == delta_free.size() && lambda.allFinite(), "frictional contact residual: lambda has "
                                                                             << lambda.size() << " entries (need "
                                                                             << delta_free.size() << ", all finite)");
  return contact::natural_map_residual(W, delta_free + W * lambda, mu, lambda);
}

}  // namespace softik
