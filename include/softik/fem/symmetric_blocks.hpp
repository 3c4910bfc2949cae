// The node blocks of a symmetric element stiffness, each node pair formed once.
//
// A closed-form stiffness (NeoHookean::block_terms, decoupled_i1_block_terms) writes one quadrature
// point's node block as a few outer products of per-node vectors,
//   K_ab = u_a h_b^T + v_a f_b^T + c_b h_a^T + s (g_a . g_b) I          (BlockTerms),
// so a cell's block is the sum of these over its points. emit_summed_blocks forms each block K_ab,
// a <= b, summed over the points (the terms of every point kept), and hands
// K_ba = K_ab^T beside it: K is exactly symmetric, about half the blocks cost nothing but a copy, and
// a cell of many points (Hex8: 8, Tet10: 4) writes each block of its element matrix once instead of
// once per point. Host and device; T a scalar or lanes type (lane_ops.hpp).
#pragma once

#include "softik/fem/lane_ops.hpp"

namespace softik::fem {

/// Calls block(a, b, K_ab) for every node pair a <= b (b the outer loop) to fill the d x d block
/// K_ab, sets a diagonal block's lower triangle from its upper one (round-off alone would break its
/// symmetry), and hands emit(a, b, K_ab), then, for a != b, emit(b, a, K_ab^T).
template <int n, int d, class T, class Block, class Emit>
SOFTIK_HD_INLINE void emit_symmetric_blocks(Block&& block, Emit&& emit) {
  for (int b = 0; b < n; ++b)
    for (int a = 0; a <= b; ++a) {
      TMat<T, d, d> K;
      block(a, b, K);
      if (a == b) {
        for (int i = 1; i < d; ++i)
          for (int k = 0; k < i; ++k) K(i, k) = K(k, i);
        emit(a, b, K);
        continue;
      }
      emit(a, b, K);
      TMat<T, d, d> transposed;
      for (int i = 0; i < d; ++i)
        for (int k = 0; k < d; ++k) transposed(i, k) = K(k, i);
      emit(b, a, transposed);
    }
}

/// The closed-form stiffness of a cell's Q points, K_ab = sum_q [u_a h_b^T + v_a f_b^T + c_b h_a^T
/// + s (g_a . g_b) I]_q (3D; the terms v_a f_b^T only where with_f: the decoupled Ibar1 laws; the
/// neo-Hookean law has none). Entry [a][i][q] is component i of node a's vector at point q (the
/// points innermost, so that the sums over them run in vector registers); g holds the points' shape
/// gradients dN_a/dX and s the factor of their dot products (the point's weight included). A law
/// fills point q (NeoHookean::block_terms, decoupled_i1_block_terms); points left out (inverted)
/// are zeroed (clear_points_from).
template <int n, class T, bool with_f, int Q = 1>
struct BlockTerms {
  T h[n][3][Q], u[n][3][Q], c[n][3][Q], g[n][3][Q];
  T f[with_f ? n : 1][3][Q], v[with_f ? n : 1][3][Q];
  T s[Q];

  /// Sets the points [first, Q) to zero, so that they add nothing.
  SOFTIK_HD_INLINE void clear_points_from(int first) {
    for (int q = first; q < Q; ++q) {
      s[q] = T(0.0);
      for (int a = 0; a < n; ++a)
        for (int i = 0; i < 3; ++i) {
          h[a][i][q] = u[a][i][q] = c[a][i][q] = g[a][i][q] = T(0.0);
          if constexpr (with_f) f[a][i][q] = v[a][i][q] = T(0.0);
        }
    }
  }
};

/// Hands emit(a, b, K_ab) the blocks of t summed over its points, as emit_symmetric_blocks does,
/// each (a, b) once. Each entry's terms are formed for every point first, then summed: pairwise
/// (a tree) for 8 points or more, which the compiler keeps in vector registers (a Hex8 neo-Hookean
/// cell 1.04 us instead of 1.80 us with one running sum, stand-alone, gcc 12 -O3, SSE2), in order
/// otherwise (a Tet10's 4 points: the tree was slower).
template <int n, class T, bool with_f, int Q, class Emit>
SOFTIK_HD_INLINE void emit_summed_blocks(const BlockTerms<n, T, with_f, Q>& t, Emit&& emit) {
  static_assert(Q < 8 || (Q & (Q - 1)) == 0, "emit_summed_blocks: 8 points or more must be a power of two");
  const auto point_sum = [](auto&& term) {
    T p[Q];
    for (int q = 0; q < Q; ++q) p[q] = term(q);
    if constexpr (Q >= 8) {
      for (int half = Q / 2; half >= 1; half /= 2)
        for (int q = 0; q < half; ++q) p[q] = p[q] + p[q + half];
      return p[0];
    } else {
      T sum = p[0];
      for (int q = 1; q < Q; ++q) sum = sum + p[q];
      return sum;
    }
  };
  emit_symmetric_blocks<n, 3, T>(
      [&](int a, int b, TMat<T, 3, 3>& K) {
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            K(i, j) = point_sum([&](int q) {
              if constexpr (with_f)
                return t.u[a][i][q] * t.h[b][j][q] + t.v[a][i][q] * t.f[b][j][q] + t.c[b][i][q] * t.h[a][j][q];
              else
                return t.u[a][i][q] * t.h[b][j][q] + t.c[b][i][q] * t.h[a][j][q];
            });
        const T gg = point_sum([&](int q) {
          return t.s[q] * (t.g[a][0][q] * t.g[b][0][q] + t.g[a][1][q] * t.g[b][1][q] + t.g[a][2][q] * t.g[b][2][q]);
        });
        for (int i = 0; i < 3; ++i) K(i, i) = K(i, i) + gg;
      },
      emit);
}

}  // namespace softik::fem
