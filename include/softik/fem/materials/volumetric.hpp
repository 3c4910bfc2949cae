// Shared machinery of the decoupled (isochoric + volumetric) laws used by Abaqus and CalculiX
// (docs/method.md section 4):  psi = W(Ibar1, Ibar2) + U(J), with
//   C = F^T F, J = det F, I1 = tr C, I2 = (I1^2 - tr(C^2))/2,
//   Ibar1 = J^(-2/3) I1, Ibar2 = J^(-4/3) I2.
//
// Volumetric term U(J), selectable (all with initial bulk modulus K = U''(1) = 2/D1):
//   LogSquared:  U = kappa/2 (log J)^2 = (log J)^2 / D1,   kappa = 2/D1
//   D1Form:      U = (J - 1)^2 / D1                        (Abaqus/CalculiX polynomial family)
//   JSquaredLog: U = ((J^2 - 1)/2 - log J) / D1            (Abaqus/CalculiX Arruda-Boyce and
//                                                           Van der Waals volumetric term)
//
// Derivatives with respect to the symmetric C (Holzapfel, "Nonlinear Solid Mechanics", 2000,
// sections 6.4-6.6), Cinv = C^{-1}, (A x B)_IJKL = A_IJ B_KL, (A . B)_IJKL = (A_IK B_JL + A_IL B_JK)/2:
//   G1 = dIbar1/dC = J^(-2/3) (I - I1/3 Cinv)
//   G2 = dIbar2/dC = J^(-4/3) (I1 I - C) - 2/3 Ibar2 Cinv
//   H1 = d2Ibar1/dC2 = -1/3 J^(-2/3) (I x Cinv + Cinv x I) + 1/9 Ibar1 Cinv x Cinv + 1/3 Ibar1 Cinv . Cinv
//   H2 = d2Ibar2/dC2 = J^(-4/3) (I x I - I . I) - 2/3 J^(-4/3) ((I1 I - C) x Cinv + Cinv x (I1 I - C))
//                      + 4/9 Ibar2 Cinv x Cinv + 2/3 Ibar2 Cinv . Cinv
//   dJ/dC = J/2 Cinv,  dCinv/dC = -Cinv . Cinv
// so, with W_a = dW/dIbar_a, W_ab = d2W/dIbar_a dIbar_b and U' = dU/dJ:
//   S  = 2 (W1 G1 + W2 G2) + J U' Cinv
//   CC = 4 (W11 G1 x G1 + W12 (G1 x G2 + G2 x G1) + W22 G2 x G2 + W1 H1 + W2 H2)
//        + J (U' + J U'') Cinv x Cinv - 2 J U' Cinv . Cinv
// At F = I: G1 = G2 = 0, and the small-strain moduli are mu = 2 (W1 + W2), K = U''(1).
#pragma once

#include <cmath>

#include <Eigen/LU>  // fixed-size inverse() and determinant()

#include "softik/fem/law_capabilities.hpp"
#include "softik/fem/materials/linear_elastic.hpp"
#include "softik/fem/pk2_to_pk1.hpp"

namespace softik::fem {

/// Volumetric part of the decoupled laws (see the header comment). The constant is always D1
/// (= 2/K, as Abaqus and CalculiX print it); LogSquared uses kappa = 2/D1.
enum class Volumetric {
  LogSquared = 0,  ///< kappa/2 (log J)^2, kappa = 2/D1
  D1Form = 1,      ///< (J - 1)^2 / D1
  JSquaredLog = 2  ///< ((J^2 - 1)/2 - log J) / D1 (Abaqus' Arruda-Boyce / Van der Waals term)
};

/// U, dU/dJ and d2U/dJ2.
SOFTIK_HD_INLINE VolumetricTerm volumetric_term(Volumetric kind, Real D1, Real J) {
  const Real k = 1 / D1;
  if (kind == Volumetric::LogSquared) {
    const Real lj = log(J);
    return {k * lj * lj, 2 * k * lj / J, 2 * k * (1 - lj) / (J * J)};
  }
  if (kind == Volumetric::JSquaredLog)
    return {k * (0.5 * (J * J - 1) - log(J)), k * (J - 1 / J), k * (1 + 1 / (J * J))};
  return {k * (J - 1) * (J - 1), 2 * k * (J - 1), 2 * k};
}

/// Kinematic quantities of the decoupled laws at F.
struct IsochoricKinematics {
  Mat3 C;
  Mat3 Cinv;
  Real J;
  Real I1, I2;
  Real I1bar, I2bar;
  Real Jm23;  ///< J^(-2/3)
};

SOFTIK_HD_INLINE IsochoricKinematics isochoric_kinematics(const Mat3& F) {
  IsochoricKinematics k;
  k.C = F.transpose() * F;
  k.J = F.determinant();
  k.Cinv = k.C.inverse();
  k.I1 = k.C.trace();
  k.I2 = 0.5 * (k.I1 * k.I1 - (k.C * k.C).trace());
  k.Jm23 = pow(k.J, -2.0 / 3.0);
  k.I1bar = k.Jm23 * k.I1;
  k.I2bar = k.Jm23 * k.Jm23 * k.I2;
  return k;
}

/// Derivatives of the isochoric energy W(Ibar1, Ibar2).
struct IsochoricDerivatives {
  Real W1 = 0, W2 = 0;             ///< dW/dIbar1, dW/dIbar2
  Real W11 = 0, W12 = 0, W22 = 0;  ///< second derivatives
};

namespace detail {
SOFTIK_HD_INLINE Mat3 dI1bar_dC(const IsochoricKinematics& k) {
  return k.Jm23 * (Mat3::Identity() - (k.I1 / 3) * k.Cinv);
}
SOFTIK_HD_INLINE Mat3 dI2bar_dC(const IsochoricKinematics& k) {
  return k.Jm23 * k.Jm23 * (k.I1 * Mat3::Identity() - k.C) - (2.0 / 3.0 * k.I2bar) * k.Cinv;
}
}  // namespace detail

/// S = 2 (W1 G1 + W2 G2) + J U' Cinv.
SOFTIK_HD_INLINE Mat3 decoupled_pk2(const IsochoricKinematics& k, const IsochoricDerivatives& w,
                                    const VolumetricTerm& u) {
  Mat3 S = (k.J * u.dU) * k.Cinv;
  if (w.W1 != 0) S += 2 * w.W1 * detail::dI1bar_dC(k);
  if (w.W2 != 0) S += 2 * w.W2 * detail::dI2bar_dC(k);
  return S;
}

/// CC = dS/dE of the decoupled law (see the header comment), gathered by tensor:
///   CC = a Cinv x Cinv + b Cinv . Cinv + c (I x Cinv + Cinv x I) + 4 W11 G1 x G1
///        + 4 W2 Jm43 (I x I - I . I) + q (A x Cinv + Cinv x A) + 4 W12 (G1 x G2 + G2 x G1) + 4 W22 G2 x G2
/// with A = I1 I - C and
///   a = J (U' + J U'') + 4/9 W1 Ibar1 + 16/9 W2 Ibar2,   b = -2 J U' + 4/3 W1 Ibar1 + 8/3 W2 Ibar2,
///   c = -4/3 W1 J^(-2/3),   q = -8/3 W2 J^(-4/3),
/// each of the 21 independent entries (Voigt pairs, CC's minor and major symmetries) evaluated
/// once and written to its up to 8 places.
SOFTIK_HD_INLINE Mat9 decoupled_cc(const IsochoricKinematics& k, const IsochoricDerivatives& w,
                                   const VolumetricTerm& u) {
  const Mat3& Ci = k.Cinv;
  const Real Jm43 = k.Jm23 * k.Jm23;
  const bool second = w.W2 != 0 || w.W12 != 0 || w.W22 != 0;
  Real a = k.J * (u.dU + k.J * u.d2U) + 4 * w.W1 * k.I1bar / 9;
  Real b = -2 * k.J * u.dU + 4 * w.W1 * k.I1bar / 3;
  const Real c = -4 * w.W1 * k.Jm23 / 3, e = 4 * w.W11;
  const Mat3 G1 = w.W11 != 0 || second ? detail::dI1bar_dC(k) : Mat3::Zero();
  Mat3 G2 = Mat3::Zero(), A = Mat3::Zero();
  Real p = 0, q = 0;
  if (second) {
    G2 = detail::dI2bar_dC(k);
    A = k.I1 * Mat3::Identity() - k.C;
    a += 16 * w.W2 * k.I2bar / 9;
    b += 8 * w.W2 * k.I2bar / 3;
    p = 4 * w.W2 * Jm43;
    q = -8 * w.W2 * Jm43 / 3;
  }
  Mat9 CC;
  for (int beta = 0; beta < 6; ++beta) {
    const int K = voigt_row(beta), L = voigt_column(beta);
    for (int alpha = 0; alpha <= beta; ++alpha) {
      const int I = voigt_row(alpha), J = voigt_column(alpha);
      const Real dIJ = I == J ? 1 : 0, dKL = K == L ? 1 : 0;
      Real v = a * Ci(I, J) * Ci(K, L) + 0.5 * b * (Ci(I, K) * Ci(J, L) + Ci(I, L) * Ci(J, K)) +
               c * (dIJ * Ci(K, L) + Ci(I, J) * dKL) + e * G1(I, J) * G1(K, L);
      if (second) {
        const Real odotI = 0.5 * ((I == K && J == L ? 1 : 0) + (I == L && J == K ? 1 : 0));
        v += p * (dIJ * dKL - odotI) + q * (A(I, J) * Ci(K, L) + Ci(I, J) * A(K, L)) +
             4 * w.W12 * (G1(I, J) * G2(K, L) + G2(I, J) * G1(K, L)) + 4 * w.W22 * G2(I, J) * G2(K, L);
      }
      for (int s1 = 0; s1 < 2; ++s1)
        for (int s2 = 0; s2 < 2; ++s2) {
          const int r = s1 ? flat(J, I) : flat(I, J), t = s2 ? flat(L, K) : flat(K, L);
          CC(r, t) = v;
          CC(t, r) = v;
        }
    }
  }
  return CC;
}

namespace detail {
/// Host-only: validates D1 (> 0: these displacement-only elements need a compressible law).
inline void check_D1(const char* law, Real D1) {
  check_finite(law, "D1", D1);
  SOFTIK_CHECK(D1 > 0, law << ": D1 = " << D1
                           << " is out of range; it must be > 0 (D1 = 2/K, K the bulk modulus; the fully "
                              "incompressible D1 = 0 needs a mixed formulation softik does not have)");
}

/// Host-only: shear modulus and D1 = 2/K from (E, nu), -1 < nu < 0.5 strictly.
struct ShearBulk {
  Real mu;
  Real D1;
};
inline ShearBulk shear_and_D1_from_young_poisson(const char* law, Real E, Real nu) {
  check_young_poisson(law, E, nu);
  const Real K = E / (3 * (1 - 2 * nu));
  check_derived(law, E, nu, "K (bulk modulus)", K, true);
  const ShearBulk m{E / (2 * (1 + nu)), 2 / K};
  check_derived(law, E, nu, "mu (shear modulus)", m.mu, true);
  check_derived(law, E, nu, "D1 = 2/K", m.D1, true);
  return m;
}

inline void check_volumetric(const char* law, Volumetric v) {
  SOFTIK_CHECK(v == Volumetric::LogSquared || v == Volumetric::D1Form || v == Volumetric::JSquaredLog,
               law << ": unknown Volumetric value " << static_cast<int>(v)
                   << "; valid values are LogSquared, D1Form, JSquaredLog");
}
}  // namespace detail

}  // namespace softik::fem
