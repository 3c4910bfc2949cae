// NeoHookean (compressible, Lame form; docs/method.md section 4):
//   C = F^T F, J = det F, C_inv = C^{-1}
//   psi = mu/2 (tr C - 3) - mu log J + lambda/2 (log J)^2
//   S   = mu (I - C_inv) + lambda log J C_inv
//   CC_IJKL = lambda C_inv_IJ C_inv_KL + (mu - lambda log J)(C_inv_IK C_inv_JL + C_inv_IL C_inv_JK)
//   K_ab  = lambda h_a h_b^T + (mu - lambda log J) h_b h_a^T + mu (g_a . g_b) I per point and weight,
//           h_a = F^-T g_a (stiffness_blocks: the element stiffness from S and CC in closed form)
//   P = F S = mu F + (lambda log J - mu) F^-T; dP/dF via pk2_to_pk1.hpp.
//   Small-strain limit: linear elasticity with the same (lambda, mu).
// Source: Bonet & Wood, "Nonlinear Continuum Mechanics for Finite Element Analysis", 2nd ed.,
// section 6.4.3 (docs/method.md section 4, [1]); SOFA Elasticity plugin README.
// The decoupled Abaqus/CalculiX form, NeoHookeanD1, is in neo_hookean_d1.hpp.
#pragma once

#include <cmath>

#include <Eigen/LU>  // fixed-size inverse() and determinant()

#include "softik/fem/lane_ops.hpp"
#include "softik/fem/materials/linear_elastic.hpp"
#include "softik/fem/materials/volumetric.hpp"
#include "softik/fem/pk2_to_pk1.hpp"
#include "softik/fem/symmetric_blocks.hpp"

namespace softik::fem {

struct NeoHookean {
  Real mu = 0;                                             ///< shear modulus
  Real lambda = 0;                                         ///< first Lame parameter
  static constexpr bool has_closed_form_stiffness = true;  ///< pk1_and_block_terms
  static constexpr bool bulk_measure_linear = false;       ///< its bulk term sees m = J
  template <int n, int Q>
  using StiffnessTerms = BlockTerms<n, Real, false, Q>;  ///< a cell's closed-form stiffness

  /// The bulk term U = lambda/2 (log J)^2.
  SOFTIK_HD VolumetricTerm bulk_term(Real J) const {
    const Real lj = log(J);
    return {0.5 * lambda * lj * lj, lambda * lj / J, lambda * (1 - lj) / (J * J)};
  }

  // The law written once for any scalar or lanes type T (fem/lane_ops.hpp): one cell (psi, S,
  // pk2_and_tangent below; the device) and the host's Tet4 batches (host/assembly/cell_batch.hpp).

  /// C^-1 = cof(C) / det C of C = F^T F (into C_inv); returns tr C.
  template <class T, class MF, class MC>
  SOFTIK_HD_INLINE static T inverse_right_cauchy_green(const MF& F, MC& C_inv) {
    T C[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j) C[i][j] = C[j][i] = F(0, i) * F(0, j) + F(1, i) * F(1, j) + F(2, i) * F(2, j);
    T cof[3][3];  // symmetric, as C is
    cof[0][0] = C[1][1] * C[2][2] - C[1][2] * C[1][2];
    cof[0][1] = cof[1][0] = C[0][2] * C[1][2] - C[0][1] * C[2][2];
    cof[0][2] = cof[2][0] = C[0][1] * C[1][2] - C[0][2] * C[1][1];
    cof[1][1] = C[0][0] * C[2][2] - C[0][2] * C[0][2];
    cof[1][2] = cof[2][1] = C[0][1] * C[0][2] - C[0][0] * C[1][2];
    cof[2][2] = C[0][0] * C[1][1] - C[0][1] * C[0][1];
    const T inv_det = 1.0 / (C[0][0] * cof[0][0] + C[0][1] * cof[0][1] + C[0][2] * cof[0][2]);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) C_inv(i, j) = cof[i][j] * inv_det;
    return C[0][0] + C[1][1] + C[2][2];
  }

  /// psi = mu/2 (tr C - 3) - mu log J + lambda/2 (log J)^2.
  template <class T>
  SOFTIK_HD_INLINE static T energy(const T& lambda, const T& mu, const T& trC, const T& logJ) {
    return 0.5 * mu * (trC - 3.0) - mu * logJ + 0.5 * lambda * logJ * logJ;
  }

  /// S = mu (I - C^-1) + lambda log J C^-1.
  template <class T, class MC, class MS>
  SOFTIK_HD_INLINE static void pk2(const T& lambda, const T& mu, const MC& C_inv, const T& logJ, MS& S) {
    const T l = lambda * logJ;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) S(i, j) = mu * ((i == j ? 1.0 : 0.0) - C_inv(i, j)) + l * C_inv(i, j);
  }

  /// CC_IJKL = lambda C^-1_IJ C^-1_KL + c2 (C^-1_IK C^-1_JL + C^-1_IL C^-1_JK) / 2 with
  /// c2 = 2 (mu - lambda log J).
  template <class T, class MC>
  SOFTIK_HD_INLINE static T tangent(const T& lambda, const T& c2, const MC& C_inv, int I, int J, int K, int L) {
    return lambda * (C_inv(I, J) * C_inv(K, L)) + c2 * (0.5 * (C_inv(I, K) * C_inv(J, L) + C_inv(I, L) * C_inv(J, K)));
  }

  /// The stiffness of one point in closed form: with g_a = dN_a/dX (row a of g), h_a = F^-T g_a
  /// and c = mu - lambda log J,
  ///   K_ab = w [lambda h_a h_b^T + c h_b h_a^T + mu (g_a . g_b) I],
  /// the same K as B^T CC B + (g_a . S g_b) I (pk2_stiffness.hpp) with this law's S and CC, since
  /// F C^-1 F^T = I and g_a . S g_b = mu g_a . g_b - c g_a . C^-1 g_b: 21 multiply-adds per block
  /// instead of about 110. Written as point q of BlockTerms (symmetric_blocks.hpp): u_a = w lambda h_a,
  /// c_a = w c h_a, s = w mu.
  template <int n, class T, int Q, class MI, class G>
  SOFTIK_HD_INLINE static void block_terms(const T& lambda, const T& mu, const T& logJ, const MI& F_inv_T, const G& g,
                                           const T& w, BlockTerms<n, T, false, Q>& t, int q) {
    const T lw = lambda * w, cw = (mu - lambda * logJ) * w;
    t.s[q] = mu * w;
    for (int a = 0; a < n; ++a)
      for (int i = 0; i < 3; ++i) {
        const T h = F_inv_T(i, 0) * g(a, 0) + F_inv_T(i, 1) * g(a, 1) + F_inv_T(i, 2) * g(a, 2);
        t.g[a][i][q] = g(a, i);
        t.h[a][i][q] = h;
        t.u[a][i][q] = lw * h;
        t.c[a][i][q] = cw * h;
      }
  }

  /// The blocks of one point (block_terms), a <= b handed to emit(a, b, K_ab) as TMats, then
  /// emit(b, a, K_ab^T) (the host's Tet4 batches).
  template <int n, class T, class MI, class G, class Emit>
  SOFTIK_HD_INLINE static void stiffness_blocks(const T& lambda, const T& mu, const T& logJ, const MI& F_inv_T,
                                                const G& g, const T& w, Emit&& emit) {
    BlockTerms<n, T, false> t;
    block_terms<n>(lambda, mu, logJ, F_inv_T, g, w, t, 0);
    emit_summed_blocks(t, emit);
  }

  /// P = F S = mu F + (lambda log J - mu) F^-T (F C^-1 = F^-T), given F^-T.
  template <class T, class MF, class MI, class MP>
  SOFTIK_HD_INLINE static void pk1(const T& lambda, const T& mu, const MF& F, const MI& F_inv_T, const T& logJ, MP& P) {
    const T c = lambda * logJ - mu;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) P(i, j) = mu * F(i, j) + c * F_inv_T(i, j);
  }

  SOFTIK_HD Real psi(const Mat3& F) const {
    return energy(lambda, mu, (F.transpose() * F).trace(), Real(log(F.determinant())));
  }

  SOFTIK_HD Mat3 S(const Mat3& F) const {
    Mat3 C_inv, S;
    inverse_right_cauchy_green<Real>(F, C_inv);
    pk2(lambda, mu, C_inv, Real(log(F.determinant())), S);
    return S;
  }

  SOFTIK_HD Mat3 P(const Mat3& F) const {
    Mat3 P;
    pk1(lambda, mu, F, Mat3(F.inverse().transpose()), Real(log(F.determinant())), P);
    return P;
  }

  /// P and the stiffness terms of point q in closed form, F inverted once (hyperelastic_element on
  /// the CPU, which sums the terms of a cell's points with emit_summed_blocks).
  template <int n, int Q, class G>
  SOFTIK_HD Mat3 pk1_and_block_terms(const Mat3& F, const G& g, Real w, StiffnessTerms<n, Q>& terms, int q) const {
    const Mat3 F_inv_T = F.inverse().transpose();
    const Real logJ = log(F.determinant());
    block_terms<n>(lambda, mu, logJ, F_inv_T, g, w, terms, q);
    Mat3 P;
    pk1(lambda, mu, F, F_inv_T, logJ, P);
    return P;
  }

  /// S and CC = dS/dE from one evaluation (dPdF; the GPU's stiffness).
  SOFTIK_HD Mat3 pk2_and_tangent(const Mat3& F, Mat9& CC) const {
    Mat3 C_inv, S;
    inverse_right_cauchy_green<Real>(F, C_inv);
    const Real logJ = log(F.determinant());
    const Real c2 = 2 * (mu - lambda * logJ);
    for (int L = 0; L < 3; ++L)
      for (int K = 0; K < 3; ++K)
        for (int J = 0; J < 3; ++J)
          for (int I = 0; I < 3; ++I) CC(flat(I, J), flat(K, L)) = tangent(lambda, c2, C_inv, I, J, K, L);
    pk2(lambda, mu, C_inv, logJ, S);
    return S;
  }

  SOFTIK_HD Mat9 dPdF(const Mat3& F) const { return dPdF_from_pk2_law(*this, F); }

  static NeoHookean from_lame(Real lambda, Real mu) {
    detail::check_lame("NeoHookean", lambda, mu);
    return NeoHookean{mu, lambda};
  }

  static NeoHookean from_young_poisson(Real E, Real nu) {
    const detail::Lame l = detail::lame_from_young_poisson("NeoHookean", E, nu);
    return NeoHookean{l.mu, l.lambda};
  }
};

}  // namespace softik::fem
