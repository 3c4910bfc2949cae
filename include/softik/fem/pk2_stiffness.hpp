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

#include "softik/fem/tensor.hpp"

namespace softik::fem {

/// K += w (B^T D B + geometric term) of one quadrature point of an n-node 3D element; g(a, J) =
/// dN_a/dX_J, K indexed (a * 3 + i, b * 3 + k) (see the header comment).
template <int n, class Gradients, class Stiffness>
SOFTIK_HD void add_pk2_stiffness(const Mat3& F, const Mat3& S, const Mat9& CC, const Gradients& g, Real w,
                                 Stiffness& K) {
  using Mat6 = Eigen::Matrix<Real, 6, 6>;
  using Mat63 = Eigen::Matrix<Real, 6, 3>;
  Mat6 D;
  for (int beta = 0; beta < 6; ++beta)
    for (int alpha = 0; alpha < 6; ++alpha)
      D(alpha, beta) = w * CC(flat(voigt_row(alpha), voigt_column(alpha)), flat(voigt_row(beta), voigt_column(beta)));
  Mat63 B[n];
  Vec3 Sg[n];
  for (int a = 0; a < n; ++a) {
    const Vec3 ga = g.row(a).transpose();
    for (int k = 0; k < 3; ++k) {
      B[a](0, k) = F(k, 0) * ga[0];
      B[a](1, k) = F(k, 1) * ga[1];
      B[a](2, k) = F(k, 2) * ga[2];
      B[a](3, k) = F(k, 0) * ga[1] + F(k, 1) * ga[0];
      B[a](4, k) = F(k, 1) * ga[2] + F(k, 2) * ga[1];
      B[a](5, k) = F(k, 0) * ga[2] + F(k, 2) * ga[0];
    }
    Sg[a].noalias() = w * (S * ga);
  }
  for (int b = 0; b < n; ++b) {
    Mat63 DB;  // D B_b, formed where the blocks (a, b) use it (1.1-1.35x over all n at once before)
    DB.noalias() = D * B[b];
    for (int a = 0; a <= b; ++a) {
      Mat3 Kab;
      Kab.noalias() = B[a].transpose() * DB;
      const Real geometric = g.row(a).dot(Sg[b].transpose());
      Kab(0, 0) += geometric;
      Kab(1, 1) += geometric;
      Kab(2, 2) += geometric;
      if (b == a) {  // the upper triangle mirrored: round-off alone would break the symmetry
        Kab(1, 0) = Kab(0, 1);
        Kab(2, 0) = Kab(0, 2);
        Kab(2, 1) = Kab(1, 2);
      }
      K.template block<3, 3>(3 * a, 3 * b) += Kab;
      if (b != a) K.template block<3, 3>(3 * b, 3 * a) += Kab.transpose();
    }
  }
}

}  // namespace softik::fem
