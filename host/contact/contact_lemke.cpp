// The Direct contact solver (contact_solvers.hpp): Lemke's complementary pivoting on the LCP
// of the frictional contact problem with the Coulomb disc replaced by an inscribed pyramid.
#include <algorithm>
#include <cmath>
#include <vector>

#include "host/contact/contact_solvers.hpp"

namespace softik {
namespace contact {

namespace {

constexpr int kFacets = 8;  // friction directions d_k = (cos 2 pi k / 8, sin 2 pi k / 8) in (t1, t2)

// Lemke's method for w = M z + q >= 0, z >= 0, w.z = 0 (Cottle, Pang & Stone, 4.4): tableau
// [I | -M | -e | q] over the variables (w, z, z0), covering vector e = 1, lexicographic ratio test.
// Returns false on a secondary ray or after max_pivots pivots.
bool lemke(const MatrixXr& M, const VectorXr& q, int max_pivots, VectorXr& z, int& pivots) {
  const Eigen::Index N = q.size();
  z = VectorXr::Zero(N);
  pivots = 0;
  Eigen::Index r = 0;
  if (q.minCoeff(&r) >= 0) return true;
  MatrixXr T(N, 2 * N + 2);
  T << MatrixXr::Identity(N, N), -M, -VectorXr::Ones(N), q;
  const Eigen::Index z0 = 2 * N, rhs = 2 * N + 1;
  std::vector<Eigen::Index> basis(static_cast<size_t>(N));
  for (Eigen::Index i = 0; i < N; ++i) basis[size_t(i)] = i;
  Eigen::Index entering = z0;
  while (pivots < max_pivots) {
    // Pivot row r on column `entering`.
    const Real pivot = T(r, entering);
    T.row(r) /= pivot;
    for (Eigen::Index i = 0; i < N; ++i) {
      const Real factor = T(i, entering);
      if (i != r && factor != 0) T.row(i) -= factor * T.row(r);
    }
    ++pivots;
    const Eigen::Index leaving = basis[size_t(r)];
    basis[size_t(r)] = entering;
    if (leaving == z0) break;
    entering = leaving < N ? leaving + N : leaving - N;  // the complement of the leaving variable
    // Lexicographic minimum ratio over rows with a positive entry in the entering column.
    const Real eps = 1e-12 * std::max(Real(1), T.col(entering).cwiseAbs().maxCoeff());
    r = -1;
    for (Eigen::Index i = 0; i < N; ++i) {
      if (T(i, entering) <= eps) continue;
      if (r < 0) {
        r = i;
        continue;
      }
      const Real a = T(i, rhs) / T(i, entering), b = T(r, rhs) / T(r, entering);
      const Real tie = 1e-12 * std::max(std::abs(a), std::abs(b));
      if (a < b - tie) {
        r = i;
      } else if (a <= b + tie) {
        if (basis[size_t(i)] == z0) {
          r = i;
        } else if (basis[size_t(r)] != z0) {
          for (Eigen::Index j = 0; j < N; ++j) {
            const Real ai = T(i, j) / T(i, entering), ar = T(r, j) / T(r, entering);
            if (ai < ar) r = i;
            if (ai != ar) break;
          }
        }
      }
    }
    if (r < 0) return false;  // secondary ray: no solution found
  }
  if (std::find(basis.begin(), basis.end(), z0) != basis.end()) return false;
  for (Eigen::Index i = 0; i < N; ++i)
    if (basis[size_t(i)] >= N && basis[size_t(i)] < z0) z[basis[size_t(i)] - N] = std::max(Real(0), T(i, rhs));
  return true;
}

}  // namespace

// Variables z = (lambda_n per contact; beta_ik >= 0 and gamma_i per frictional contact), with
// lambda = G z (lambda_t = sum_k beta_ik d_k). The LCP (Stewart & Trinkle 1996):
//   delta_n = G_n^T (delta_free + W G z)        >= 0  _|_ lambda_n >= 0
//   d_k . delta_t + gamma                      >= 0  _|_ beta_k   >= 0
//   mu lambda_n - sum_k beta_k                 >= 0  _|_ gamma    >= 0
// i.e. M = G^T W G + [the gamma and mu couplings], q = G^T delta_free.
ContactSolverReport solve_direct(const MatrixXr& W, const VectorXr& delta_free, const std::vector<Real>& mu,
                                 VectorXr& lambda, const ContactSolverOptions& options) {
  const Eigen::Index n = Eigen::Index(mu.size());
  std::vector<Eigen::Index> first(static_cast<size_t>(n));  // first friction variable of contact i (beta, then gamma)
  Eigen::Index N = n;
  for (Eigen::Index i = 0; i < n; ++i) {
    first[size_t(i)] = N;
    if (mu[size_t(i)] > 0) N += kFacets + 1;
  }
  MatrixXr G = MatrixXr::Zero(3 * n, N);
  for (Eigen::Index i = 0; i < n; ++i) {
    G(3 * i, i) = 1;
    if (mu[size_t(i)] == 0) continue;
    for (int k = 0; k < kFacets; ++k) {
      G(3 * i + 1, first[size_t(i)] + k) = std::cos(2 * M_PI * k / kFacets);
      G(3 * i + 2, first[size_t(i)] + k) = std::sin(2 * M_PI * k / kFacets);
    }
  }
  MatrixXr M = G.transpose() * W * G;
  const VectorXr q = G.transpose() * delta_free;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (mu[size_t(i)] == 0) continue;
    const Eigen::Index g = first[size_t(i)] + kFacets;
    M(g, i) = mu[size_t(i)];
    for (int k = 0; k < kFacets; ++k) {
      M(first[size_t(i)] + k, g) = 1;
      M(g, first[size_t(i)] + k) = -1;
    }
  }
  ContactSolverReport report;
  VectorXr z;
  report.converged = lemke(M, q, options.max_iterations, z, report.iterations);
  if (report.converged) lambda = G * z;
  report.residual = natural_map_residual(W, delta_free + W * lambda, mu, lambda);
  return report;
}

}  // namespace contact
}  // namespace softik
