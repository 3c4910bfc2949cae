// The frictional contact problem on the inverse QP's 4-facet pyramid (contact_solvers.hpp):
// projected Gauss-Seidel with an exact local solve by enumeration of the contact's states.
#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Dense>

#include "host/contact/contact_solvers.hpp"

namespace softik {
namespace contact {

namespace {

/// The tangent states tried by the local solve, simplest first: stick (0) or slip along +t_k
/// (+1: lambda_tk = +mu' lambda_n) or -t_k (-1).
constexpr int kTangentStates[9][2] = {{0, 0}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

/// One contact with delta = b + A lambda on the pyramid |lambda_tk| <= m lambda_n (m = mu'):
/// separated when b_n >= 0; else pressed, delta_n = 0, and per tangent stick (delta_tk = 0 inside
/// the pyramid) or slip on a facet (lambda_tk = +-m lambda_n with -+delta_tk >= 0). `tol`: the
/// slack allowed on a slip's sign (length units). The first state that fits is returned.
Vec3r solve_box_contact(const Mat3r& A, const Vec3r& b, Real m, Real tol, const Vec3r& current) {
  if (b(0) >= 0) return Vec3r::Zero();
  if (m == 0) return Vec3r(-b(0) / A(0, 0), 0, 0);
  for (const auto& s : kTangentStates) {
    Mat3r M = Mat3r::Zero();
    Vec3r r = Vec3r::Zero();
    M.row(0) = A.row(0);
    r(0) = -b(0);
    for (int k = 1; k <= 2; ++k) {
      if (s[k - 1] == 0) {
        M.row(k) = A.row(k);
        r(k) = -b(k);
      } else {
        M(k, k) = 1;
        M(k, 0) = -s[k - 1] * m;
      }
    }
    const Vec3r lambda = M.colPivHouseholderQr().solve(r);
    if (!lambda.allFinite() || lambda(0) < 0) continue;
    const Vec3r delta = b + A * lambda;
    bool ok = true;
    for (int k = 1; k <= 2 && ok; ++k) {
      if (s[k - 1] == 0)
        ok = std::abs(lambda(k)) <= m * lambda(0) * (1 + 1e-12);
      else
        ok = s[k - 1] * delta(k) <= tol;
    }
    if (ok) return lambda;
  }
  return current;  // no state fits (a strongly coupled A): keep the last answer
}

}  // namespace

ContactSolverReport solve_box_pyramid(const MatrixXr& W, const VectorXr& delta_free, const std::vector<Real>& mu,
                                      VectorXr& lambda, int max_sweeps) {
  const Eigen::Index n = static_cast<Eigen::Index>(mu.size());
  ContactSolverReport report;
  if (n == 0) {
    lambda.resize(0);
    report.converged = true;
    return report;
  }
  if (lambda.size() != 3 * n || !lambda.allFinite()) lambda = VectorXr::Zero(3 * n);
  VectorXr delta = delta_free + W * lambda;
  const Real length = std::max(delta_free.cwiseAbs().maxCoeff(), Real(1e-300));
  const Real tol = 1e-13 * length;
  for (int sweep = 1; sweep <= max_sweeps; ++sweep) {
    Real change = 0, size = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const Mat3r A = W.block<3, 3>(3 * i, 3 * i);
      const Vec3r old = lambda.segment<3>(3 * i);
      const Vec3r b = delta.segment<3>(3 * i) - A * old;
      const Vec3r now = solve_box_contact(A, b, pyramid_half_width(mu[static_cast<size_t>(i)]), tol, old);
      const Vec3r step = now - old;
      if (step.squaredNorm() == 0) continue;
      lambda.segment<3>(3 * i) = now;
      delta.noalias() += W.middleCols<3>(3 * i) * step;
      change = std::max(change, step.cwiseAbs().maxCoeff());
      size = std::max(size, now.cwiseAbs().maxCoeff());
    }
    report.iterations = sweep;
    size = std::max(size, lambda.cwiseAbs().maxCoeff());
    if (change <= 1e-12 * size) break;
  }
  delta = delta_free + W * lambda;
  // The residual of the pyramid's conditions (length units): gaps of pressed contacts, negative
  // gaps, and stick tangents' slip.
  Real residual = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Real ln = lambda(3 * i), m = pyramid_half_width(mu[static_cast<size_t>(i)]);
    residual = std::max(residual, std::max(Real(0), -delta(3 * i)));
    if (ln <= 0) continue;
    residual = std::max(residual, std::abs(delta(3 * i)));
    for (int k = 1; k <= 2 && m > 0; ++k) {  // frictionless: no tangential law
      const Real lt = lambda(3 * i + k);
      if (std::abs(lt) < m * ln * (1 - 1e-9))
        residual = std::max(residual, std::abs(delta(3 * i + k)));
      else
        residual = std::max(residual, std::max(Real(0), (lt > 0 ? 1 : -1) * delta(3 * i + k)));
    }
  }
  report.residual = residual;
  // Settled sweeps are an answer only where every contact found a state that fits (a contact
  // that kept its last force because none did leaves its law violated).
  report.converged = residual <= 1e-9 * length;
  return report;
}

}  // namespace contact
}  // namespace softik
