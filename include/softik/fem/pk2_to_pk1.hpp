// The one generic place where second Piola-Kirchhoff quantities become first Piola-Kirchhoff
// ones (docs/method.md section 2), plus the fourth-order building blocks the S(C) laws use.
// Host and device (SOFTIK_HD).
//
// Notation: E = (C - I)/2 Green strain, C = F^T F, S = dpsi/dE = 2 dpsi/dC,
// CC(I+3J, K+3L) = dS_IJ/dE_KL = 4 d2psi/dC_IJ dC_KL, with the minor symmetries
// CC_IJKL = CC_JIKL = CC_IJLK and the major symmetry CC_IJKL = CC_KLIJ.
//
// P = F S, i.e. P_iJ = F_iI S_IJ.
//
// Derivation of the tangent dP_iJ/dF_kL:
//   dP_iJ = dF_iI S_IJ + F_iI dS_IJ,   dF_iI/dF_kL = delta_ik delta_IL
//   => first term: delta_ik S_LJ.
//   dS_IJ = CC_IJMN dE_MN,  dE_MN = (dF_aM F_aN + F_aM dF_aN) / 2
//   => dE_MN/dF_kL = (delta_ML F_kN + F_kM delta_NL) / 2
//   => dS_IJ/dF_kL = (CC_IJLN F_kN + CC_IJML F_kM) / 2 = sum_M CC_IJML F_kM   (minor symmetry)
//   => dP_iJ/dF_kL = delta_ik S_LJ + sum_{I,M} F_iI CC_IJML F_kM.
// For fixed (J, L) the second term is the 3x3 block F G F^T with G_IM = CC(I+3J, M+3L); it
// sits at rows i+3J, columns k+3L of the 9x9 matrix (the flat(i,j) = i + 3j convention).
#pragma once

#include "softik/fem/lane_ops.hpp"
#include "softik/fem/tensor.hpp"

namespace softik::fem {

/// First Piola-Kirchhoff stress from the second: P = F S.
SOFTIK_HD_INLINE Mat3 pk1_from_pk2(const Mat3& F, const Mat3& S) { return F * S; }
/// P = F S for a lanes type T (lane_ops.hpp: several cells at once).
template <class T>
SOFTIK_HD_INLINE TMat<T, 3, 3> pk1_from_pk2(const TMat<T, 3, 3>& F, const TMat<T, 3, 3>& S) {
  TMat<T, 3, 3> P;
  for (int i = 0; i < 3; ++i)
    for (int J = 0; J < 3; ++J) P(i, J) = F(i, 0) * S(0, J) + F(i, 1) * S(1, J) + F(i, 2) * S(2, J);
  return P;
}

/// dP/dF (dPdF(i+3J, k+3L) = dP_iJ/dF_kL) from S and CC = dS/dE (see the derivation above).
SOFTIK_HD_INLINE Mat9 dPdF_from_pk2(const Mat3& F, const Mat3& S, const Mat9& CC) {
  Mat9 A;
  const Mat3 Ft = F.transpose();
  for (int J = 0; J < 3; ++J)
    for (int L = 0; L < 3; ++L) {
      const Mat3 G = CC.template block<3, 3>(3 * J, 3 * L);  // G(I, M) = CC(I+3J, M+3L)
      Mat3 B = F * G * Ft;
      const Real s = S(L, J);
      B(0, 0) += s;
      B(1, 1) += s;
      B(2, 2) += s;
      A.template block<3, 3>(3 * J, 3 * L) = B;
    }
  return A;
}

/// dP/dF of a law written in S(E): its pk2_and_tangent (S and CC from one evaluation) through
/// dPdF_from_pk2.
template <class Law>
SOFTIK_HD Mat9 dPdF_from_pk2_law(const Law& law, const Mat3& F) {
  Mat9 CC;
  const Mat3 S = law.pk2_and_tangent(F, CC);
  return dPdF_from_pk2(F, S, CC);
}

// ---- fourth-order building blocks, stored as 9x9 with the flat(i,j) = i + 3j convention ----

/// (A (x) B)_IJKL = A_IJ B_KL.
SOFTIK_HD_INLINE Mat9 outer9(const Mat3& A, const Mat3& B) { return vec(A) * vec(B).transpose(); }

/// Symmetrised product (A (.) B)_IJKL = (A_IK B_JL + A_IL B_JK) / 2. For A = B = C^{-1} this
/// is -dC^{-1}/dC; for A = B = I it is the symmetric fourth-order identity.
SOFTIK_HD_INLINE Mat9 odot9(const Mat3& A, const Mat3& B) {
  Mat9 T;
  for (int L = 0; L < 3; ++L)
    for (int K = 0; K < 3; ++K)
      for (int J = 0; J < 3; ++J)
        for (int I = 0; I < 3; ++I) T(flat(I, J), flat(K, L)) = 0.5 * (A(I, K) * B(J, L) + A(I, L) * B(J, K));
  return T;
}

}  // namespace softik::fem
