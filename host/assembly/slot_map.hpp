// Where a cell's element entry (a d + i, b d + k) lives in the free-DOF CSR values, stored by
// node pair instead of by entry (16 words per Tet4 instead of 144; the kernels read it per cell).
//
// The pattern is nodal (build_pattern in assembly.cpp): every free row of node A holds the same
// columns (the free DOFs of A's neighbours, sorted), and a node's free DOFs are adjacent columns.
// So with, for the cell's nodes A = nodes[a], B = nodes[b],
//   base_ab = slot of (first free row of A, first free column of B), -1 if A or B has none,
//   row_A   = (L_A << kFreeMaskBits) | m_A,  L_A = entries per row of A, m_A bit i = DOF i free,
// the entry's slot is
//   base_ab + rank(m_A, i) L_A + rank(m_B, k),   rank(m, i) = free DOFs of the node below i,
// and there is none (-1) where DOF i of A or DOF k of B is fixed.
#pragma once

#include "softik/config.hpp"

namespace softik::assembly {

constexpr int kFreeMaskBits = 3;  ///< d <= 3 DOFs per node
constexpr int kFreeMask = (1 << kFreeMaskBits) - 1;

/// row_A of the header: L_A entries per row and the free mask m_A.
SOFTIK_HD_INLINE int node_row_word(int row_length, int free_mask) { return (row_length << kFreeMaskBits) | free_mask; }

/// rank(m, i): the free DOFs of a node below DOF i.
SOFTIK_HD_INLINE int free_rank(int mask, int i) { return (i > 0 ? (mask & 1) : 0) + (i > 1 ? ((mask >> 1) & 1) : 0); }

/// The slot of entry (i, k) of the node block with base `base` between nodes of row words
/// row_a and row_b (see the header), or -1 if either DOF is fixed.
SOFTIK_HD_INLINE int entry_slot(int base, int row_a, int row_b, int i, int k) {
  if (base < 0 || !((row_a >> i) & 1) || !((row_b >> k) & 1)) return -1;
  return base + free_rank(row_a, i) * (row_a >> kFreeMaskBits) + free_rank(row_b, k);
}

/// Calls f(slot, i, k) for every free entry (i, k) of the d x d node block with base `base`
/// between nodes of row words row_a and row_b; nothing when the block has no free entry (base -1).
template <int d, class F>
SOFTIK_HD_INLINE void for_each_block_slot(int base, int row_a, int row_b, F&& f) {
  if (base < 0) return;
  constexpr int all_free = (1 << d) - 1;
  if ((row_a & kFreeMask) == all_free && (row_b & kFreeMask) == all_free) {  // the common case
    const int row_length = row_a >> kFreeMaskBits;
    for (int i = 0; i < d; ++i)
      for (int k = 0; k < d; ++k) f(base + i * row_length + k, i, k);
    return;
  }
  for (int i = 0; i < d; ++i)
    for (int k = 0; k < d; ++k) {
      const int slot = entry_slot(base, row_a, row_b, i, k);
      if (slot >= 0) f(slot, i, k);
    }
}

}  // namespace softik::assembly
