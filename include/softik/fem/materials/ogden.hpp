// Ogden, N terms, decoupled (Abaqus/CalculiX form):
//   psi = sum_p 2 mu_p / alpha_p^2 (lb1^a_p + lb2^a_p + lb3^a_p - 3) + U(J),
//   lb_a = J^(-1/3) lambda_a (isochoric principal stretches), U(J) selected by `volumetric`
//   (volumetric.hpp; Abaqus uses D1Form, (J - 1)^2 / D1). Small strain: mu = sum_p mu_p, K = 2/D1.
// Sources: R. W. Ogden, Proc. R. Soc. Lond. A 326 (1972) 565-584; Abaqus Theory Guide,
// "Hyperelastic material behavior" (Ogden form); CalculiX CrunchiX User's Manual,
// *HYPERELASTIC, OGDEN.
//
// Principal-stretch formulation in C (spectral, coincident stretches exact):
// C = sum_a c_a N_a N_a^T (c_a = lambda_a^2), cb_a = J^(-2/3) c_a, m = alpha/2, A = 2 mu/alpha,
// Tb = sum_a cb_a^m. Then psi_p = A/alpha (Tb - 3) = 2 mu/alpha^2 (Tb - 3) and, using
// d tr(C^m)/dC = m C^(m-1), dJ/dC = J/2 C_inv,
//   S_p = A J^(-2m/3) (C^(m-1) - tr(C^m)/3 C_inv) = sum_a s_a N_a N_a^T,  s_a = A (cb_a^m - Tb/3) / c_a
//   CC_p = 2 dS_p/dC = 2 A J^(-2m/3) [ D - m/3 (C^(m-1) x C_inv + C_inv x C^(m-1))
//                                       + m/9 tr(C^m) C_inv x C_inv + tr(C^m)/3 C_inv . C_inv ]
// where D = d C^(m-1)/dC is the Daleckii-Krein derivative of g(x) = x^(m-1):
//   D = sum_{a,b} g[c_a, c_b] N_a N_b^T (x) sym(N_a N_b^T),
//   g[x, y] = (g(x) - g(y)) / (x - y) for x != y,  g'(x) for x = y  (exactly the limit).
// The divided difference is evaluated without cancellation for any x, y > 0 as
//   g[x, y] = x^(q-1) expm1(q log1p(d)) / d,  d = (y - x)/x, q = m - 1   (q x^(q-1) at d = 0),
// so coincident (F = I, uniaxial stretch) and nearly coincident stretches are exact to
// round-off, and J^(-2m/3) g[c_a, c_b] = J^(-4/3) g[cb_a, cb_b].
// All terms are coaxial with C, so in the basis n_a = vec(N_a N_a^T),
// s_ab = vec(sym(N_a N_b^T)):  CC = sum_{a,c} K_ac n_a n_c^T + sum_{a<b} 2 h_ab s_ab s_ab^T with
//   K_ac = sum_p 2 A [ -m/3 (mb_a/c_c + mb_c/c_a) + m/9 Tb/(c_a c_c) ] + J (U' + J U'')/(c_a c_c) + h_aa [a = c]
//   h_ab = sum_p 2 A [ J^(-4/3) g[cb_a, cb_b] + Tb/3 /(c_a c_b) ] - 2 J U' /(c_a c_b),   mb_a = cb_a^m / c_a,
// (the volumetric part J (U' + J U'') C_inv x C_inv - 2 J U' C_inv . C_inv is from volumetric.hpp),
// and P = F S, dP/dF via pk2_to_pk1.hpp. At F = I: CC = 2 mu (I . I - 1/3 I x I) + K I x I.
#pragma once

#include <array>
#include <cmath>

#include "softik/fem/materials/volumetric.hpp"
#include "softik/fem/sym_eigen3.hpp"

namespace softik::fem {

namespace detail {
/// Divided difference of g(x) = x^q at (x, y), x, y > 0; q x^(q-1) when x == y.
SOFTIK_HD_INLINE Real power_divided_difference(Real q, Real x, Real y) {
  const Real d = (y - x) / x;
  const Real xq1 = pow(x, q - 1);
  if (d == 0) return q * xq1;
  return xq1 * expm1(q * log1p(d)) / d;
}
}  // namespace detail

template <int N>
struct Ogden {
  Real mu[N] = {};     ///< mu_p (Abaqus' mu_i); initial shear modulus sum_p mu_p
  Real alpha[N] = {};  ///< alpha_p (nonzero)
  Real D1 = 0;         ///< = 2 / K
  Volumetric volumetric = Volumetric::D1Form;
  static constexpr bool bulk_measure_linear = false;  ///< its bulk term sees m = J

  /// The bulk term U(J) of its volumetric form (volumetric.hpp).
  SOFTIK_HD VolumetricTerm bulk_term(Real J) const { return volumetric_term(volumetric, D1, J); }

  SOFTIK_HD Real psi(const Mat3& F) const {
    Vec3 c;
    Mat3 V;
    sym_eigen3(F.transpose() * F, c, V);
    const Real J = F.determinant();
    const Real Jm23 = pow(J, -2.0 / 3.0);
    Real w = 0;
    for (int p = 0; p < N; ++p) {
      const Real m = 0.5 * alpha[p];
      Real Tb = 0;
      for (int a = 0; a < 3; ++a) Tb += pow(Jm23 * c[a], m);
      w += 2 * mu[p] / (alpha[p] * alpha[p]) * (Tb - 3);
    }
    return w + volumetric_term(volumetric, D1, J).U;
  }

  SOFTIK_HD Mat3 S(const Mat3& F) const {
    Vec3 c;
    Mat3 V;
    sym_eigen3(F.transpose() * F, c, V);
    const Real J = F.determinant();
    return V * principal_pk2(c, J, volumetric_term(volumetric, D1, J)).asDiagonal() * V.transpose();
  }

  SOFTIK_HD Mat3 P(const Mat3& F) const { return pk1_from_pk2(F, S(F)); }

  /// S and CC = dS/dE from one evaluation (hyperelastic_element's stiffness; dPdF).
  SOFTIK_HD Mat3 pk2_and_tangent(const Mat3& F, Mat9& CC) const {
    Vec3 c;
    Mat3 V;
    sym_eigen3(F.transpose() * F, c, V);
    const Real J = F.determinant();
    const Real Jm23 = pow(J, -2.0 / 3.0), Jm43 = Jm23 * Jm23;
    const VolumetricTerm u = volumetric_term(volumetric, D1, J);
    Mat3 K, h;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        const Real cc = 1 / (c[a] * c[b]);
        K(a, b) = J * (u.dU + J * u.d2U) * cc;
        h(a, b) = -2 * J * u.dU * cc;
      }
    for (int p = 0; p < N; ++p) {
      const Real m = 0.5 * alpha[p], A2 = 4 * mu[p] / alpha[p];  // A2 = 2 A
      Vec3 cb, mb;
      Real Tb = 0;
      for (int a = 0; a < 3; ++a) {
        cb[a] = Jm23 * c[a];
        const Real cbm = pow(cb[a], m);
        mb[a] = cbm / c[a];
        Tb += cbm;
      }
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          const Real cc = 1 / (c[a] * c[b]);
          K(a, b) += A2 * (-m / 3 * (mb[a] / c[b] + mb[b] / c[a]) + m / 9 * Tb * cc);
          if (b >= a) {
            const Real hab = A2 * (Jm43 * detail::power_divided_difference(m - 1, cb[a], cb[b]) + Tb / 3 * cc);
            h(a, b) += hab;
            if (b > a) h(b, a) += hab;
          }
        }
    }
    Vec9 n[3];
    for (int a = 0; a < 3; ++a) n[a] = vec(V.col(a) * V.col(a).transpose());
    CC.setZero();
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 3; ++b) CC += (K(a, b) + (a == b ? h(a, a) : 0.0)) * (n[a] * n[b].transpose());
      for (int b = a + 1; b < 3; ++b) {
        const Mat3 Nab = V.col(a) * V.col(b).transpose();
        const Vec9 s = vec(0.5 * (Nab + Nab.transpose()));
        CC += (2 * h(a, b)) * (s * s.transpose());
      }
    }
    return V * principal_pk2(c, J, u).asDiagonal() * V.transpose();
  }

  SOFTIK_HD Mat9 dPdF(const Mat3& F) const { return dPdF_from_pk2_law(*this, F); }

  /// Principal values s_a of S (S = sum_a s_a N_a N_a^T) from the eigenvalues c_a of C.
  SOFTIK_HD Vec3 principal_pk2(const Vec3& c, Real J, const VolumetricTerm& u) const {
    const Real Jm23 = pow(J, -2.0 / 3.0);
    Vec3 s;
    for (int a = 0; a < 3; ++a) s[a] = J * u.dU / c[a];
    for (int p = 0; p < N; ++p) {
      const Real m = 0.5 * alpha[p], A = 2 * mu[p] / alpha[p];
      Vec3 cbm;
      for (int a = 0; a < 3; ++a) cbm[a] = pow(Jm23 * c[a], m);
      const Real Tb = cbm.sum();
      for (int a = 0; a < 3; ++a) s[a] += A * (cbm[a] - Tb / 3) / c[a];
    }
    return s;
  }

  /// Constants as Abaqus/CalculiX print them (mu_i, alpha_i, D1): alpha_p != 0,
  /// sum_p mu_p > 0 (initial shear modulus), D1 > 0.
  static Ogden from_constants(const std::array<Real, N>& mu_p, const std::array<Real, N>& alpha_p, Real D1,
                              Volumetric volumetric = Volumetric::D1Form) {
    Ogden o;
    Real mu0 = 0;
    for (int p = 0; p < N; ++p) {
      detail::check_finite("Ogden", "mu_i", mu_p[p]);
      detail::check_finite("Ogden", "alpha_i", alpha_p[p]);
      SOFTIK_CHECK(alpha_p[p] != 0, "Ogden: alpha_" << p + 1 << " = 0 is out of range; every alpha_i must be nonzero");
      o.mu[p] = mu_p[p];
      o.alpha[p] = alpha_p[p];
      mu0 += mu_p[p];
    }
    SOFTIK_CHECK(mu0 > 0, "Ogden: sum of mu_i = "
                              << mu0 << " is out of range; the initial shear modulus sum_i mu_i must be > 0");
    detail::check_D1("Ogden", D1);
    detail::check_volumetric("Ogden", volumetric);
    o.D1 = D1;
    o.volumetric = volumetric;
    return o;
  }

  /// Small-strain consistent: mu_p = mu / N each (sum = E / (2 (1 + nu))), D1 = 2 / K,
  /// K = E / (3 (1 - 2 nu)); the exponents alpha_p are the caller's.
  static Ogden from_young_poisson(Real E, Real nu, const std::array<Real, N>& alpha_p,
                                  Volumetric volumetric = Volumetric::D1Form) {
    const detail::ShearBulk m = detail::shear_and_D1_from_young_poisson("Ogden", E, nu);
    std::array<Real, N> mu_p;
    for (int p = 0; p < N; ++p) mu_p[p] = m.mu / N;
    return from_constants(mu_p, alpha_p, m.D1, volumetric);
  }
};

}  // namespace softik::fem
