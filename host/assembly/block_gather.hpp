// The rotated corotational stiffness of the linear simplices gathered node block by node block,
// without atomics (the GPU's full assembly; docs/gpu.md, "What runs on the GPU"). For one
// quadrature point the block (a, b) of a cell is
//   K_ab = fem::isotropic_stiffness_block(law, h_a^T h_b),   h_a = sqrt(w) R dN_a/dX,  w = w_0 det J_0
// (= fem::rotated_stiffness_block(law, w, g_a, g_b) with g_a = R dN_a/dX), and since the shape
// functions sum to one, sum_a dN_a/dX = 0: h_{n-1} = -(h_0 + ... + h_{n-2}). So a cell's whole
// stiffness follows from n - 1 rows h_a (9 words on Tet4). Two passes:
//   1. CellFrame (one iteration per cell): the corotational element's rotation, energy and force
//      (fem::corotational_force, the force scattered as the cell kernel does), and the cell's
//      frame words [h_a rows, a < n - 1: (n - 1) d words] into a table;
//   2. GatherBlock (one iteration per node block (A, B) of K): the sum of K_ab over the cells
//      holding both nodes (node A at local a, B at b), read from their frames in a fixed order,
//      stored into the block's free entries of K (no atomics, K not zeroed first: every entry of
//      the free-DOF pattern belongs to exactly one block, so the pass writes all of K).
// The scatter kernel instead adds each cell's 16 blocks (144 entries on Tet4) to K with atomics,
// which bounds it on the GPU. Both bodies are written once (exec::forall) and run on any policy;
// the host table of blocks is built once per mesh (build_block_gather). The sums are those of the
// scatter in another order: equal to round-off, and bitwise reproducible from run to run.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "host/assembly/cell_kernel.hpp"
#include "softik/exec/view.hpp"
#include "softik/fem/corotational_element.hpp"
#include "softik/mesh.hpp"

namespace softik::assembly {

/// Whether element E takes the gathered stiffness: one quadrature point, affine (Tet4, Tri3; the
/// 1D Edge2, with its four-entry element matrix, keeps the scatter).
template <class E>
constexpr bool block_gather_element() {
  return E::num_quad == 1 && E::affine && E::num_nodes >= 3;
}

/// Frame words of a cell: its first n - 1 rows h_a = sqrt(w) R dN_a/dX ((n - 1) d words, row-major;
/// the last row is minus their sum). Measured on an H200 (1.03M Tet4, gathered K + force, chunked
/// order): 13 words [g_a rows, w] 0.66 ms, padded to 16 (whole 32-byte sectors) 0.79 ms, these 9
/// words 0.62 ms: the gather's frame reads bound it, so the frame is as short as it can be.
template <class E>
constexpr int frame_words() {
  return (E::num_nodes - 1) * E::dim;
}

/// Row a of cell `cell`'s frame h (the last row as minus the sum of the others).
template <class E, exec::Space S>
SOFTIK_HD_INLINE Eigen::Matrix<Real, 1, E::dim> frame_row(const exec::Table<Real, S>& frames, std::size_t cell, int a) {
  constexpr int d = E::dim, n = E::num_nodes;
  Eigen::Matrix<Real, 1, d> h = Eigen::Matrix<Real, 1, d>::Zero();
  if (a < n - 1) {
    for (int i = 0; i < d; ++i) h(i) = frames(cell, static_cast<std::size_t>(a * d + i));
  } else {
    for (int r = 0; r < n - 1; ++r)
      for (int i = 0; i < d; ++i) h(i) -= frames(cell, static_cast<std::size_t>(r * d + i));
  }
  return h;
}

/// Row nodes per chunk of the gather order (one GPU warp of diagonal blocks).
constexpr int kGatherChunkNodes = 32;

/// The node blocks of K in gather order (row nodes in chunks of kGatherChunkNodes; in each chunk
/// the diagonal blocks A = B, then the others; each group by row node, then by slot) and the
/// cell blocks each one sums. Pair word p = (c n + a) n + b: block (a, b) of cell c.
struct BlockGatherTable {
  std::vector<int> ptr;    ///< block k sums pairs[ptr[k] .. ptr[k + 1])
  std::vector<int> pairs;  ///< pair words, ascending within a block
  std::vector<int> base;   ///< per block: its slot base (slot_map.hpp)
  std::vector<int> row_a;  ///< per block: the row word of its row node A
  std::vector<int> row_b;  ///< per block: the row word of its column node B
  int num_blocks() const { return static_cast<int>(base.size()); }
};

/// The blocks of the free-DOF pattern of `mesh` from the Assembler's slot map (block_slots: per
/// cell, npc^2 node-block bases; node_rows: per node, its row word). Blocks with a fully fixed
/// node (base -1) are left out. Throws when the pair words overflow an int (over 2^31 / npc^2
/// cells).
BlockGatherTable build_block_gather(const Mesh& mesh, const std::vector<int>& block_slots,
                                    const std::vector<int>& node_rows);

template <exec::Space S>
struct BlockGatherPass {
  int num_blocks = 0;
  exec::View<const int, S> ptr, pairs, base, row_a, row_b;
  exec::Table<Real, S> frames;  ///< (cell, word): frame_words<E>() words per cell
};

/// Pass 1: the corotational element of cell c without its stiffness, and its frame words.
template <class E, Scatter mode, exec::Space S>
struct CellFrame {
  CellPass<S> pass;
  BlockGatherPass<S> gather;
  SOFTIK_HD void operator()(int c) const {
    constexpr int d = E::dim, n = E::num_nodes;
    CellStatus* status = pass.status.data;
    const GatheredCell<E, fem::LinearElastic, RotatedCorotational, S> cell(pass, 0, c, pass.x.data, status);
    fem::RotationFrame<d> frame;
    Eigen::Matrix<Real, n, d> g_hat;
    Real energy = 0;
    fem::ElementVector<E> fe;
    const Real detF = fem::corotational_force<E>(cell.material, cell.rest, cell.xe, pass.rotation, frame, g_hat,
                                                 static_cast<bool>(pass.force), pass.cell_energy ? &energy : nullptr,
                                                 pass.force ? &fe : nullptr);
    if (!admissible<fem::LinearElastic, RotatedCorotational>(detF, pass.rotation))
      exec::atomic_min(&status->first_invalid_cell, c);
    write_cell_outputs<E, mode>(pass, 0, c, cell.nodes, energy, fe);
    // row a = sqrt(w) (R dN_a/dX)^T, a < n - 1
    const Eigen::Matrix<Real, n - 1, d> h =
        (std::sqrt(cell.rest.w_detJ[0]) * cell.rest.dN_dX[0].template topRows<n - 1>()) * frame.R.transpose();
    const std::size_t cell_index = static_cast<std::size_t>(c);
    SOFTIK_UNROLL_BY(n - 1)
    for (int a = 0; a < n - 1; ++a)
      for (int i = 0; i < d; ++i) gather.frames(cell_index, static_cast<std::size_t>(a * d + i)) = h(a, i);
  }
};

/// Stores the d x d block into K's free entries of the node block with base `base` between nodes
/// of row words row_a and row_b (slot_map.hpp).
template <int d, class Block>
SOFTIK_HD_INLINE void store_block(Real* K, int base, int row_a, int row_b, const Block& block) {
  for_each_block_slot<d>(base, row_a, row_b, [&](int slot, int i, int k) { K[slot] = block(i, k); });
}

/// Pass 2: block k of K, the sum of its cells' K_ab (fem::isotropic_stiffness_block of h_a^T h_b,
/// each cell with its own law).
template <class E, exec::Space S>
struct GatherBlock {
  CellPass<S> pass;  ///< materials, material_stride and K are read
  BlockGatherPass<S> gather;
  SOFTIK_HD void operator()(int k) const {
    constexpr int d = E::dim, n = E::num_nodes;
    const fem::LinearElastic* laws = reinterpret_cast<const fem::LinearElastic*>(pass.materials.data);
    fem::MatD<d> block = fem::MatD<d>::Zero();
    const int end = gather.ptr[static_cast<std::size_t>(k) + 1];
    for (int p = gather.ptr[static_cast<std::size_t>(k)]; p < end; ++p) {
      const int word = gather.pairs[static_cast<std::size_t>(p)];
      const int c = word / (n * n), a = (word / n) % n, b = word % n;
      const std::size_t cell_index = static_cast<std::size_t>(c);
      const Eigen::Matrix<Real, 1, d> ha = frame_row<E>(gather.frames, cell_index, a);
      const Eigen::Matrix<Real, 1, d> hb = frame_row<E>(gather.frames, cell_index, b);
      block += fem::isotropic_stiffness_block<d>(laws[pass.material_stride * cell_index], ha.transpose() * hb);
    }
    store_block<d>(pass.K.data, gather.base[static_cast<std::size_t>(k)], gather.row_a[static_cast<std::size_t>(k)],
                   gather.row_b[static_cast<std::size_t>(k)], block);
  }
};

/// Force (scattered as `mode`), energy per cell and the gathered K of a pass whose K view is set,
/// with the policies of the two passes (the second's iterations write disjoint blocks).
template <class E, Scatter mode, class CellPolicy, class BlockPolicy>
void assemble_gathered(const CellPolicy& cells, const BlockPolicy& blocks, const CellPass<CellPolicy::space>& pass,
                       const BlockGatherPass<CellPolicy::space>& gather) {
  static_assert(CellPolicy::space == BlockPolicy::space, "both passes run in one memory space");
  forall(cells, pass.num_cells, CellFrame<E, mode, CellPolicy::space>{pass, gather});
  forall(blocks, gather.num_blocks, GatherBlock<E, CellPolicy::space>{pass, gather});
}

}  // namespace softik::assembly
