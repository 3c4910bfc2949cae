// The element stiffness of one quadrature point from the second Piola-Kirchhoff stress S and
// its tangent CC = dS/dE (docs/method.md section 2), without forming dP/dF. Host and device.
//
// With g_a = dN_a/dX (node a's material gradient) and E = (F^T F - I)/2, a nodal displacement
// dx_bk changes E by dE_IJ = (F_kI g_b,J + F_kJ g_b,I) / 2, so the second variation of
// w psi(E) is
//   K_(a i)(b k) = w [ sum_{alpha,beta} B_a(alpha, i) D(alpha, beta) B_b(beta, k) + delta_ik g_a^T S g_b ]
// in Voigt notation: alpha = (I, J) runs over (0,0) (1,1) (2,2) (0,1) (1,2) (0,2),
//   B_a(alpha, k) = F_kI g_a,I                  for I = J (normal strains)
//                 = F_kI g_a,J + F_kJ g_a,I     for I != J (engineering shears, 2 E_IJ)
//   D(alpha, beta) = CC_IJKL with alpha = (I, J), beta = (K, L) (CC's minor symmetries).
// This is the same K as sum_{J,L} g_a,J dP_iJ/dF_kL g_b,L with dP/dF from pk2_to_pk1.hpp (the
// first term is the material part, the second the geometric one), formed with small fixed-size
// products (D B_b per node, B_a^T (D B_b) per node pair) instead of dP/dF's nine F G F^T blocks
// and its contraction: about as many multiply-adds on a Tet4, in fewer passes over fewer
// temporaries (bench/RESULTS.md, "The stiffness from S and CC"), and exactly symmetric: only the
// blocks b >= a are computed, K_ba = K_ab^T.
#pragma once

#include <type_traits>

#include "softik/fem/lane_ops.hpp"
#include "softik/fem/tensor.hpp"

namespace softik::fem {

namespace detail {
/// The small matrices of pk2_blocks: Eigen's fixed-size ones for one cell (its products are
/// vectorised: 1.1-1.35x faster than plain loops on Hex8 and Tet10 cells), TMat for lanes.
template <class T, int R, int C>
using Pk2Mat = typename std::conditional<std::is_same<T, Real>::value, Eigen::Matrix<Real, R, C>, TMat<T, R, C>>::type;

/// out = a b and out = a^T b.
template <int R, int K, int C>
SOFTIK_HD_INLINE void product(const Eigen::Matrix<Real, R, K>& a, const Eigen::Matrix<Real, K, C>& b,
                              Eigen::Matrix<Real, R, C>& out) {
  out.noalias() = a * b;
}
template <int K, int R, int C>
SOFTIK_HD_INLINE void transposed_product(const Eigen::Matrix<Real, K, R>& a, const Eigen::Matrix<Real, K, C>& b,
                                         Eigen::Matrix<Real, R, C>& out) {
  out.noalias() = a.transpose() * b;
}
template <class T, int R, int K, int C>
SOFTIK_HD_INLINE void product(const TMat<T, R, K>& a, const TMat<T, K, C>& b, TMat<T, R, C>& out) {
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      T s = a(i, 0) * b(0, j);
      for (int k = 1; k < K; ++k) s = s + a(i, k) * b(k, j);
      out(i, j) = s;
    }
}
template <class T, int K, int R, int C>
SOFTIK_HD_INLINE void transposed_product(const TMat<T, K, R>& a, const TMat<T, K, C>& b, TMat<T, R, C>& out) {
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      T s = a(0, i) * b(0, j);
      for (int k = 1; k < K; ++k) s = s + a(k, i) * b(k, j);
      out(i, j) = s;
    }
}
}  // namespace detail

/// Every node block of w (B^T D B + geometric term) of one quadrature point of an n-node 3D
/// element, for a scalar or lanes T (lane_ops.hpp): g(a, J) = dN_a/dX_J, D the unscaled Voigt
/// tangent (D(alpha, beta) = CC_IJKL, see the header comment). Forms the blocks a <= b and hands
/// each to emit(a, b, K_ab), then emit(b, a, K_ab^T).
template <int n, class T, class MF, class MS, class MD, class Gradients, class Emit>
SOFTIK_HD_INLINE void pk2_blocks(const MF& F, const MS& S, const MD& D, const Gradients& g, const T& w, Emit&& emit) {
  detail::Pk2Mat<T, 6, 6> wD;
  for (int beta = 0; beta < 6; ++beta)
    for (int alpha = 0; alpha < 6; ++alpha) wD(alpha, beta) = w * D(alpha, beta);
  detail::Pk2Mat<T, 6, 3> B[n];
  T Sg[n][3];
  for (int a = 0; a < n; ++a) {
    const T ga[3] = {g(a, 0), g(a, 1), g(a, 2)};
    for (int k = 0; k < 3; ++k) {
      B[a](0, k) = F(k, 0) * ga[0];
      B[a](1, k) = F(k, 1) * ga[1];
      B[a](2, k) = F(k, 2) * ga[2];
      B[a](3, k) = F(k, 0) * ga[1] + F(k, 1) * ga[0];
      B[a](4, k) = F(k, 1) * ga[2] + F(k, 2) * ga[1];
      B[a](5, k) = F(k, 0) * ga[2] + F(k, 2) * ga[0];
    }
    for (int i = 0; i < 3; ++i) Sg[a][i] = w * (S(i, 0) * ga[0] + S(i, 1) * ga[1] + S(i, 2) * ga[2]);
  }
  for (int b = 0; b < n; ++b) {
    detail::Pk2Mat<T, 6, 3> DB;  // D B_b
    detail::product(wD, B[b], DB);
    for (int a = 0; a <= b; ++a) {
      detail::Pk2Mat<T, 3, 3> Kab;
      detail::transposed_product(B[a], DB, Kab);
      const T geometric = g(a, 0) * Sg[b][0] + g(a, 1) * Sg[b][1] + g(a, 2) * Sg[b][2];
      for (int i = 0; i < 3; ++i) Kab(i, i) = Kab(i, i) + geometric;
      if (a == b) {  // the upper triangle mirrored: round-off alone would break the symmetry
        Kab(1, 0) = Kab(0, 1);
        Kab(2, 0) = Kab(0, 2);
        Kab(2, 1) = Kab(1, 2);
      }
      emit(a, b, Kab);
      if (a != b) {
        detail::Pk2Mat<T, 3, 3> transposed;
        for (int i = 0; i < 3; ++i)
          for (int k = 0; k < 3; ++k) transposed(i, k) = Kab(k, i);
        emit(b, a, transposed);
      }
    }
  }
}

/// K += w (B^T D B + geometric term) of one quadrature point of an n-node 3D element from S and
/// CC (pk2_blocks); K indexed (a * 3 + i, b * 3 + k).
template <int n, class Gradients, class Stiffness>
SOFTIK_HD void add_pk2_stiffness(const Mat3& F, const Mat3& S, const Mat9& CC, const Gradients& g, Real w,
                                 Stiffness& K) {
  TMat<Real, 6, 6> D;
  for (int beta = 0; beta < 6; ++beta)
    for (int alpha = 0; alpha < 6; ++alpha)
      D(alpha, beta) = CC(flat(voigt_row(alpha), voigt_column(alpha)), flat(voigt_row(beta), voigt_column(beta)));
  pk2_blocks<n>(F, S, D, g, w, [&](int a, int b, const Mat3& Kab) {
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) K(3 * a + i, 3 * b + k) += Kab(i, k);
  });
}

}  // namespace softik::fem
