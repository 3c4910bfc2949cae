// Stable neo-Hookean: B. Smith, F. de Goes, T. Kim, "Stable Neo-Hookean Flesh Simulation",
// ACM Trans. Graph. 37(2), 2018 -- the paper's final, rest-stable energy (with the
// log(I_C + 1) term), written directly in F (no C^{-1}, defined for J <= 0: robust to inversion).
//
// Energy parameters (mu_, lambda_) from the small-strain Lame parameters (mu, lambda) by the
// paper's Lame reparametrisation, so that the tangent at F = I is exactly linear elasticity
// with (mu, lambda):
//   mu_ = 4/3 mu,   lambda_ = lambda + 5/6 mu,   alpha = 1 + mu_/lambda_ - mu_/(4 lambda_)
// (alpha = 1 + 3 mu_ / (4 lambda_) makes P(I) = 0.) With I_C = tr(F^T F), J = det F,
// g = dJ/dF = cof(F) (columns f1 x f2, f2 x f0, f0 x f1 of F = [f0 f1 f2]):
//   psi = mu_/2 (I_C - 3) + lambda_/2 (J - alpha)^2 - mu_/2 log(I_C + 1) - psi0
//         psi0 = lambda_/2 (1 - alpha)^2 - mu_/2 log 4   (constant shift so that psi(I) = 0;
//                                                        the paper omits it, P is unchanged)
//   P   = mu_ (1 - 1/(I_C + 1)) F + lambda_ (J - alpha) g
//   dP/dF = mu_ (1 - 1/(I_C + 1)) Id + 2 mu_/(I_C + 1)^2 vec(F) vec(F)^T
//           + lambda_ vec(g) vec(g)^T + lambda_ (J - alpha) d2J/dF2
//   d2J/dF2: 3x3 blocks (column j of g w.r.t. column l of F), block(j, j+1) = -[f_{j+2}]x,
//            block(j, j+2) = [f_{j+1}]x (indices mod 3), zero diagonal blocks
//            ([a]x b = a x b), the Hessian of J the paper also writes out.
// Derivation of the reparametrisation (second variation at F = I in direction H):
//   3/4 mu_ (H:H + tr(H^2)) + (lambda_ - 5/8 mu_) tr(H)^2 == mu (H:H + tr(H^2)) + lambda tr(H)^2.
#pragma once

#include <cmath>

#include <Eigen/Geometry>  // cross()
#include <Eigen/LU>        // fixed-size determinant()

#include "softik/fem/materials/linear_elastic.hpp"

namespace softik::fem {

struct StableNeoHookean {
  Real mu = 0;      ///< small-strain shear modulus (NOT the paper's energy mu_; see above)
  Real lambda = 0;  ///< small-strain first Lame parameter
  static constexpr bool tolerates_inversion = true;   ///< defined for det F <= 0 (no log J)
  static constexpr bool bulk_measure_linear = false;  ///< its bulk term sees m = J

  /// The bulk term U = lambda_/2 (J - alpha)^2.
  SOFTIK_HD VolumetricTerm bulk_term(Real J) const {
    const Real l = energy_lambda(), e = J - alpha();
    return {0.5 * l * e * e, l * e, l};
  }

  SOFTIK_HD Real energy_mu() const { return 4.0 / 3.0 * mu; }
  SOFTIK_HD Real energy_lambda() const { return lambda + 5.0 / 6.0 * mu; }
  SOFTIK_HD Real alpha() const { return 1 + 0.75 * energy_mu() / energy_lambda(); }

  SOFTIK_HD Real psi(const Mat3& F) const {
    const Real m = energy_mu(), l = energy_lambda(), a = alpha();
    const Real Ic = F.squaredNorm(), Jm = F.determinant() - a;
    const Real psi0 = 0.5 * l * (1 - a) * (1 - a) - 0.5 * m * log(4.0);
    return 0.5 * m * (Ic - 3) + 0.5 * l * Jm * Jm - 0.5 * m * log(Ic + 1) - psi0;
  }

  SOFTIK_HD Mat3 P(const Mat3& F) const {
    const Real m = energy_mu(), l = energy_lambda(), a = alpha();
    const Real Ic = F.squaredNorm();
    return (m * (1 - 1 / (Ic + 1))) * F + (l * (F.determinant() - a)) * dJdF(F);
  }

  SOFTIK_HD Mat9 dPdF(const Mat3& F) const {
    const Real m = energy_mu(), l = energy_lambda(), a = alpha();
    const Real Ic = F.squaredNorm();
    const Vec9 f = vec(F), g = vec(dJdF(F));
    Mat9 A = (m * (1 - 1 / (Ic + 1))) * Mat9::Identity() + (2 * m / ((Ic + 1) * (Ic + 1))) * (f * f.transpose()) +
             l * (g * g.transpose());
    const Real s = l * (F.determinant() - a);
    for (int j = 0; j < 3; ++j) {
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      A.block<3, 3>(3 * j, 3 * j1) -= s * cross_matrix(F.col(j2));
      A.block<3, 3>(3 * j, 3 * j2) += s * cross_matrix(F.col(j1));
    }
    return A;
  }

  /// dJ/dF = cof(F).
  SOFTIK_HD static Mat3 dJdF(const Mat3& F) {
    Mat3 G;
    G.col(0) = F.col(1).cross(F.col(2));
    G.col(1) = F.col(2).cross(F.col(0));
    G.col(2) = F.col(0).cross(F.col(1));
    return G;
  }

  /// [a]x with [a]x b = a x b.
  SOFTIK_HD static Mat3 cross_matrix(const Vec3& a) {
    Mat3 X;
    X << 0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0;
    return X;
  }

  /// (lambda, mu): the small-strain Lame parameters (mu > 0, lambda + 2 mu / 3 > 0).
  static StableNeoHookean from_lame(Real lambda, Real mu) {
    detail::check_lame("StableNeoHookean", lambda, mu);
    return StableNeoHookean{mu, lambda};
  }

  static StableNeoHookean from_young_poisson(Real E, Real nu) {
    const detail::Lame l = detail::lame_from_young_poisson("StableNeoHookean", E, nu);
    return StableNeoHookean{l.mu, l.lambda};
  }
};

}  // namespace softik::fem
