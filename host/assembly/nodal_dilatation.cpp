#include "host/assembly/nodal_dilatation.hpp"

#include <algorithm>

#include "host/assembly/element_kernels.hpp"
#include "softik/error.hpp"

namespace softik {

NodalDilatation::NodalDilatation(const Mesh& mesh, const ElementKernels& kernels, const CellLoop& loop,
                                 const std::vector<std::vector<int>>& rings, const std::vector<int>& free_index,
                                 const CsrPattern& pattern)
    : npc_(nodes_per_cell(mesh.cell_type)), dim_(mesh.dim), num_cells_(mesh.num_cells()) {
  const int num_nodes = mesh.num_nodes();
  // node -> the cells around it, with the node's local index in each.
  cells_ptr_.assign(static_cast<std::size_t>(num_nodes) + 1, 0);
  for (int v : mesh.cells) ++cells_ptr_[static_cast<std::size_t>(v) + 1];
  for (int a = 0; a < num_nodes; ++a) cells_ptr_[a + 1] += cells_ptr_[a];
  cells_of_node_.resize(mesh.cells.size());
  std::vector<int> next(cells_ptr_.begin(), cells_ptr_.end() - 1);
  for (int c = 0; c < num_cells_; ++c)
    for (int a = 0; a < npc_; ++a) {
      const int node = mesh.cell(c)[a];
      cells_of_node_[static_cast<std::size_t>(next[static_cast<std::size_t>(node)]++)] = c;
    }
  // Rings and, per node, the CSR slots of every pair of DOFs of its ring.
  ring_ptr_.assign(static_cast<std::size_t>(num_nodes) + 1, 0);
  slot_ptr_.assign(static_cast<std::size_t>(num_nodes) + 1, 0);
  for (int a = 0; a < num_nodes; ++a) {
    const std::size_t r = rings[static_cast<std::size_t>(a)].size() * static_cast<std::size_t>(dim_);
    ring_ptr_[a + 1] = ring_ptr_[a] + static_cast<int>(rings[static_cast<std::size_t>(a)].size());
    slot_ptr_[a + 1] = slot_ptr_[a] + r * r;
  }
  ring_.reserve(static_cast<std::size_t>(ring_ptr_.back()));
  for (const auto& list : rings) ring_.insert(ring_.end(), list.begin(), list.end());
  ring_slots_.assign(slot_ptr_.back(), -1);
  for (int a = 0; a < num_nodes; ++a) {
    const int* R = ring_.data() + ring_ptr_[a];
    const int size = ring_ptr_[a + 1] - ring_ptr_[a], rd = size * dim_;
    int* out = ring_slots_.data() + slot_ptr_[a];
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < dim_; ++i) {
        const int row = free_index[static_cast<std::size_t>(R[j]) * dim_ + i];
        if (row < 0) continue;
        const int* begin = pattern.col.data() + pattern.row_ptr[static_cast<std::size_t>(row)];
        const int* end = pattern.col.data() + pattern.row_ptr[static_cast<std::size_t>(row) + 1];
        for (int k = 0; k < size; ++k)
          for (int l = 0; l < dim_; ++l) {
            const int col = free_index[static_cast<std::size_t>(R[k]) * dim_ + l];
            if (col < 0) continue;
            const int* it = std::lower_bound(begin, end, col);
            SOFTIK_CHECK_KIND(it != end && *it == col, ErrorKind::Internal,
                              "the stiffness pattern lacks the second-ring entry of nodes " << R[j] << " and " << R[k]);
            out[(j * dim_ + i) * rd + k * dim_ + l] = static_cast<int>(it - pattern.col.data());
          }
      }
  }
  // Rest volume per node: the cells' rest volumes shared equally among their nodes.
  std::vector<Real> V_cell(static_cast<std::size_t>(num_cells_));
  const std::vector<Real> X = mesh.rest_positions();
  kernels.cell_volumes(loop, X.data(), V_cell.data());
  V_node_.assign(static_cast<std::size_t>(num_nodes), 0.0);
  for (int c = 0; c < num_cells_; ++c)
    for (int a = 0; a < npc_; ++a) V_node_[static_cast<std::size_t>(mesh.cell(c)[a])] += V_cell[static_cast<std::size_t>(c)] / npc_;
}

void NodalDilatation::prepare(const ElementKernels& kernels, const CellLoop& loop, const Real* x, bool stiffness,
                              Work& work) const {
  const std::size_t num_nodes = V_node_.size();
  std::vector<Real> v_cell(static_cast<std::size_t>(num_cells_));
  kernels.cell_volumes(loop, x, v_cell.data());
  work.theta.assign(num_nodes, 0.0);
  for (int c = 0; c < num_cells_; ++c)
    for (int a = 0; a < npc_; ++a)
      work.theta[static_cast<std::size_t>(loop.mesh->cell(c)[a])] += v_cell[static_cast<std::size_t>(c)] / npc_;
  for (std::size_t a = 0; a < num_nodes; ++a)
    if (V_node_[a] > 0) work.theta[a] /= V_node_[a];
  work.pi.assign(num_nodes, 0.0);
  work.kappa.assign(num_nodes, 0.0);
  work.cell_bulk_energy.assign(static_cast<std::size_t>(num_cells_), 0.0);
  const int bad = kernels.nodal_bulk(loop, work.theta.data(), V_node_.data(), work.pi.data(), work.kappa.data(),
                                     work.cell_bulk_energy.data());
  SOFTIK_CHECK_NUMERICAL(bad < 0, "the cells around node " << bad << " are inverted on average (nodal volume ratio "
                                                           << (bad >= 0 ? work.theta[static_cast<std::size_t>(bad)] : 0)
                                                           << " <= 0), where the " << kernels.formulation_name()
                                                           << " law's bulk term is undefined: take smaller load steps, "
                                                              "or use StableNeoHookean, which tolerates inversion");
  if (stiffness) work.volume_gradient.assign(static_cast<std::size_t>(num_cells_) * npc_ * dim_, 0.0);
}

void NodalDilatation::add_second_ring(const Mesh& mesh, const Work& work, bool project_spd, Real* K) const {
  // Serial over the nodes: the rings of neighbouring nodes overlap, and a fixed order keeps K
  // bitwise reproducible for any thread count.
  const int nd = npc_ * dim_;
  std::vector<Real> g;
  for (std::size_t a = 0; a < V_node_.size(); ++a) {
    const Real kappa = project_spd ? std::max(work.kappa[a], Real(0)) : work.kappa[a];
    if (kappa == 0) continue;
    const int* R = ring_.data() + ring_ptr_[a];
    const int size = ring_ptr_[a + 1] - ring_ptr_[a], rd = size * dim_;
    g.assign(static_cast<std::size_t>(rd), 0.0);
    for (int k = cells_ptr_[a]; k < cells_ptr_[a + 1]; ++k) {
      const int c = cells_of_node_[static_cast<std::size_t>(k)];
      const Real* gc = work.volume_gradient.data() + static_cast<std::size_t>(c) * nd;
      for (int b = 0; b < npc_; ++b) {
        const int j = static_cast<int>(std::lower_bound(R, R + size, mesh.cell(c)[b]) - R);
        for (int i = 0; i < dim_; ++i) g[static_cast<std::size_t>(j * dim_ + i)] += gc[b * dim_ + i] / npc_;
      }
    }
    const int* slots = ring_slots_.data() + slot_ptr_[a];
    for (int r = 0; r < rd; ++r) {
      const Real kr = kappa * g[static_cast<std::size_t>(r)];
      if (kr == 0) continue;
      for (int s = 0; s < rd; ++s) {
        const int slot = slots[r * rd + s];
        if (slot >= 0) K[slot] += kr * g[static_cast<std::size_t>(s)];
      }
    }
  }
}

}  // namespace softik
