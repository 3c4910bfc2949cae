// The node blocks of a symmetric element stiffness, each node pair formed once.
//
// A closed-form stiffness (NeoHookean::stiffness_blocks, decoupled_i1_stiffness_blocks) builds
// K_ab for a <= b only and hands K_ba = K_ab^T to its caller beside it, so K is exactly symmetric
// and about half the blocks cost nothing but a copy. Host and device; T a scalar or lanes type
// (lane_ops.hpp).
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

}  // namespace softik::fem
