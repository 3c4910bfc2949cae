// The rotated stiffness R K0 R^T of the corotational element (corotational_element.hpp), block by
// block, for any element trait E: from the rest-frame sums of the shape gradients (cells with
// several points), or from one point's rotated gradients (the linear simplices, also for lanes of
// cells, lane_ops.hpp). Every block a <= b is formed once and K_ba = K_ab^T handed out beside it.
#pragma once

#include "softik/fem/element_traits.hpp"
#include "softik/fem/kinematics.hpp"
#include "softik/fem/lane_ops.hpp"
#include "softik/fem/materials/linear_elastic.hpp"

namespace softik::fem {

/// Block (a, b) of the rotated stiffness R K0 R^T. For the isotropic tensor
/// C_iJkL = lambda d_iJ d_kL + mu (d_ik d_JL + d_iL d_Jk), with g_qa = R dN_a/dX at point q,
///   R K0_ab R^T = O_ab lambda + O_ab^T mu + tr(O_ab) mu I,   O_ab = sum_q w_q detJ_q g_qa g_qb^T;
/// this is the block from O_ab.
template <int d>
SOFTIK_HD_INLINE MatD<d> isotropic_stiffness_block(const LinearElastic& linear, const MatD<d>& O) {
  MatD<d> block = linear.lambda * O + linear.mu * O.transpose();
  block.diagonal().array() += linear.mu * O.trace();
  return block;
}

/// The block (a, b) of any element: O_ab = R G_ab R^T with the rest-frame sum
///   G_ab = sum_q w_q detJ_q dN_a/dX|_q (dN_b/dX|_q)^T
/// (two 3 x 3 products per block instead of rotating both gradients at every point).
template <class E>
SOFTIK_HD MatD<E::dim> rotated_stiffness_block(const LinearElastic& linear, const RestData<E>& rest,
                                               const MatD<E::dim>& R, int a, int b) {
  constexpr int d = E::dim;
  MatD<d> G = MatD<d>::Zero();
  for (int q = 0; q < E::num_quad; ++q) G += rest.w_detJ[q] * (rest.dN_dX[q].row(a).transpose() * rest.dN_dX[q].row(b));
  return isotropic_stiffness_block<d>(linear, R * G * R.transpose());
}

/// The same block from one point's weight w = w_q detJ_q and gradients g_a, g_b (rows).
template <int d, class Row>
SOFTIK_HD_INLINE MatD<d> rotated_stiffness_block(const LinearElastic& linear, Real w, const Row& ga, const Row& gb) {
  return isotropic_stiffness_block<d>(linear, w * (ga.transpose() * gb));
}

/// Every block of R K0 R^T of a one-point cell (the linear simplices: n nodes in d dimensions),
/// handed to emit(a, b, K_ab) as a TMat, for a scalar or lanes T (lane_ops.hpp). With
/// g_a = R dN_a/dX (dN row a), w = w_0 det J_0, p_a = lambda w g_a and q_a = mu w g_a, the block of
/// isotropic_stiffness_block is
///   K_ab = p_a g_b^T + g_b q_a^T + (q_a . g_b) I,   and K_ba = K_ab^T,
/// so a cell forms its n (n + 1) / 2 blocks a <= b (10 of 16 on Tet4) at 2 products per entry.
template <int n, int d, class T, class DN, class MR, class Emit>
SOFTIK_HD_INLINE void rotated_blocks_simplex(const T& lambda, const T& mu, const T& w, const DN& dN, const MR& R,
                                             Emit&& emit) {
  T g[n][d], p[n][d], q[n][d];
  const T lw = lambda * w, mw = mu * w;
  for (int a = 0; a < n; ++a)
    for (int i = 0; i < d; ++i) {
      T s = dN(a, 0) * R(i, 0);
      for (int k = 1; k < d; ++k) s = s + dN(a, k) * R(i, k);
      g[a][i] = s;
      p[a][i] = lw * s;
      q[a][i] = mw * s;
    }
  [[maybe_unused]] constexpr int unroll = n <= 4 ? n : 1;  // read by the device compiler only
  SOFTIK_UNROLL_BY(unroll)
  for (int b = 0; b < n; ++b) {
    SOFTIK_UNROLL_BY(unroll)
    for (int a = 0; a <= b; ++a) {
      TMat<T, d, d> block;
      for (int i = 0; i < d; ++i)
        for (int k = 0; k < d; ++k) block(i, k) = p[a][i] * g[b][k] + g[b][i] * q[a][k];
      T shear = q[a][0] * g[b][0];
      for (int i = 1; i < d; ++i) shear = shear + q[a][i] * g[b][i];
      for (int i = 0; i < d; ++i) block(i, i) = block(i, i) + shear;
      emit(a, b, block);
      if (a != b) {
        TMat<T, d, d> transposed;
        for (int i = 0; i < d; ++i)
          for (int k = 0; k < d; ++k) transposed(i, k) = block(k, i);
        emit(b, a, transposed);
      }
    }
  }
}

/// rotated_blocks_simplex for a one-point cell of trait E.
template <class E, class Emit>
SOFTIK_HD_INLINE void rotated_blocks_one_point(const LinearElastic& linear, const RestData<E>& rest,
                                               const MatD<E::dim>& R, Emit&& emit) {
  static_assert(E::num_quad == 1, "one quadrature point");
  rotated_blocks_simplex<E::num_nodes, E::dim>(linear.lambda, linear.mu, rest.w_detJ[0], rest.dN_dX[0], R, emit);
}

/// Every block of R K0 R^T of a cell with several points (Hex8, Quad4, the quadratic cells),
/// handed to emit(a, b, K_ab). G_ba = G_ab^T (rotated_stiffness_block), so K_ba = K_ab^T: a cell
/// forms its n (n + 1) / 2 blocks a <= b (36 of 64 on Hex8).
template <class E, class Emit>
SOFTIK_HD_INLINE void rotated_blocks_points(const LinearElastic& linear, const RestData<E>& rest, const MatD<E::dim>& R,
                                            Emit&& emit) {
  constexpr int n = E::num_nodes;
  for (int b = 0; b < n; ++b)
    for (int a = 0; a <= b; ++a) {
      const MatD<E::dim> block = rotated_stiffness_block<E>(linear, rest, R, a, b);
      emit(a, b, block);
      if (a != b) emit(b, a, block.transpose());
    }
}

}  // namespace softik::fem
