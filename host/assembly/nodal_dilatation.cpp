#include "host/assembly/nodal_dilatation.hpp"

#include <algorithm>
#include <limits>

#include "host/assembly/element_kernels.hpp"
#include "softik/error.hpp"

namespace softik {

NodalDilatation::NodalDilatation(const Mesh& mesh, const std::vector<Real>& rest_cell_volumes,
                                 const std::vector<int>& free_index, const CsrPattern& pattern)
    : npc_(nodes_per_cell(mesh.cell_type)), dim_(mesh.dim), num_cells_(mesh.num_cells()) {
  SOFTIK_CHECK_KIND(rest_cell_volumes.size() == static_cast<std::size_t>(num_cells_), ErrorKind::Internal,
                    "NodalDilatation: " << rest_cell_volumes.size() << " rest volumes for " << num_cells_ << " cells");
  const int num_nodes = mesh.num_nodes();
  // node -> the cells around it (ascending: the gathers sum in cell order).
  t_.cells_ptr.assign(static_cast<std::size_t>(num_nodes) + 1, 0);
  for (int v : mesh.cells) ++t_.cells_ptr[static_cast<std::size_t>(v) + 1];
  for (int a = 0; a < num_nodes; ++a) t_.cells_ptr[a + 1] += t_.cells_ptr[a];
  t_.cells_of_node.resize(mesh.cells.size());
  std::vector<int> next(t_.cells_ptr.begin(), t_.cells_ptr.end() - 1);
  for (int c = 0; c < num_cells_; ++c)
    for (int a = 0; a < npc_; ++a)
      t_.cells_of_node[static_cast<std::size_t>(next[static_cast<std::size_t>(mesh.cell(c)[a])]++)] = c;
  // Rings: the sorted nodes of the cells around each node.
  t_.ring_ptr.assign(static_cast<std::size_t>(num_nodes) + 1, 0);
  std::vector<int> list;
  for (int a = 0; a < num_nodes; ++a) {
    list.clear();
    for (int k = t_.cells_ptr[a]; k < t_.cells_ptr[a + 1]; ++k) {
      const int* nodes = mesh.cell(t_.cells_of_node[static_cast<std::size_t>(k)]);
      list.insert(list.end(), nodes, nodes + npc_);
    }
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    t_.ring.insert(t_.ring.end(), list.begin(), list.end());
    t_.ring_owner.insert(t_.ring_owner.end(), list.size(), a);
    t_.ring_ptr[a + 1] = static_cast<int>(t_.ring.size());
  }
  SOFTIK_CHECK(
      t_.ring.size() * static_cast<std::size_t>(dim_) < static_cast<std::size_t>(std::numeric_limits<int>::max()),
      "the average nodal pressure (dilatation NodalMean) of " << num_nodes << " nodes has "
                                                              << t_.ring.size() * static_cast<std::size_t>(dim_)
                                                              << " second-ring rows, more than its passes index: "
                                                                 "split the model or use a coarser mesh");
  // Per node, the CSR slots of every pair of DOFs of its ring.
  t_.slot_ptr.assign(static_cast<std::size_t>(num_nodes) + 1, 0);
  for (int a = 0; a < num_nodes; ++a) {
    const std::size_t r =
        static_cast<std::size_t>(t_.ring_ptr[a + 1] - t_.ring_ptr[a]) * static_cast<std::size_t>(dim_);
    t_.slot_ptr[a + 1] = t_.slot_ptr[a] + r * r;
  }
  t_.ring_slots.assign(t_.slot_ptr.back(), -1);
  for (int a = 0; a < num_nodes; ++a) {
    const int* R = t_.ring.data() + t_.ring_ptr[a];
    const int size = t_.ring_ptr[a + 1] - t_.ring_ptr[a], rd = size * dim_;
    int* out = t_.ring_slots.data() + t_.slot_ptr[a];
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
  t_.rest_volume.assign(static_cast<std::size_t>(num_nodes), 0.0);
  for (int c = 0; c < num_cells_; ++c)
    for (int a = 0; a < npc_; ++a)
      t_.rest_volume[static_cast<std::size_t>(mesh.cell(c)[a])] +=
          rest_cell_volumes[static_cast<std::size_t>(c)] / npc_;
}

assembly::NodalTopology<exec::Space::Host> NodalDilatation::topology(const Mesh& mesh) const {
  assembly::NodalTopology<exec::Space::Host> t;
  t.num_nodes = static_cast<int>(t_.rest_volume.size());
  t.nodes_per_cell = npc_;
  t.dim = dim_;
  t.nodes = {{mesh.cells.data(), mesh.cells.size()}, exec::Layout::records(static_cast<std::size_t>(npc_))};
  t.cells_ptr = {t_.cells_ptr.data(), t_.cells_ptr.size()};
  t.cells_of_node = {t_.cells_of_node.data(), t_.cells_of_node.size()};
  t.ring_ptr = {t_.ring_ptr.data(), t_.ring_ptr.size()};
  t.ring = {t_.ring.data(), t_.ring.size()};
  t.ring_owner = {t_.ring_owner.data(), t_.ring_owner.size()};
  t.slot_ptr = {t_.slot_ptr.data(), t_.slot_ptr.size()};
  t.ring_slots = {t_.ring_slots.data(), t_.ring_slots.size()};
  t.rest_volume = {t_.rest_volume.data(), t_.rest_volume.size()};
  return t;
}

void check_nodal_volume_ratio(int bad, Real theta, const std::string& law_name) {
  SOFTIK_CHECK_NUMERICAL(bad < 0, "the cells around node " << bad << " are inverted on average (nodal volume ratio "
                                                           << theta << " <= 0), where the " << law_name
                                                           << " law's bulk term is undefined: take smaller load steps, "
                                                              "or use StableNeoHookean, which tolerates inversion");
}

void NodalDilatation::prepare(const ElementKernels& kernels, const CellLoop& loop, const Real* x, bool stiffness,
                              Work& work) const {
  const std::size_t num_nodes = t_.rest_volume.size();
  std::vector<Real> v_cell(static_cast<std::size_t>(num_cells_));
  kernels.cell_volumes(loop, x, v_cell.data());
  work.theta.assign(num_nodes, 0.0);
  forall(exec::HostCells{loop.colours.num_threads}, static_cast<int>(num_nodes),
         assembly::NodalVolumeRatio<exec::Space::Host>{
             topology(*loop.mesh), {v_cell.data(), v_cell.size()}, {work.theta.data(), num_nodes}});
  work.pi.assign(num_nodes, 0.0);
  work.kappa.assign(num_nodes, 0.0);
  work.cell_bulk_energy.assign(static_cast<std::size_t>(num_cells_), 0.0);
  const int bad = kernels.nodal_bulk(loop, work.theta.data(), t_.rest_volume.data(), work.pi.data(), work.kappa.data(),
                                     work.cell_bulk_energy.data());
  check_nodal_volume_ratio(bad, bad >= 0 ? work.theta[static_cast<std::size_t>(bad)] : 0, kernels.formulation_name());
  if (stiffness) work.volume_gradient.assign(static_cast<std::size_t>(num_cells_) * npc_ * dim_, 0.0);
}

void NodalDilatation::add_second_ring(const CellLoop& loop, const Work& work, bool project_spd, Real* K) const {
  // The gradients node by node (each node writes its own section), then the rows serially: the
  // rings of neighbouring nodes overlap, and a fixed order keeps K bitwise reproducible for any
  // thread count.
  const assembly::NodalTopology<exec::Space::Host> t = topology(*loop.mesh);
  std::vector<Real> ring_gradient(t_.ring.size() * static_cast<std::size_t>(dim_));
  forall(
      exec::HostCells{loop.colours.num_threads}, t.num_nodes,
      assembly::RingVolumeGradient<exec::Space::Host>{
          t, {work.volume_gradient.data(), work.volume_gradient.size()}, {ring_gradient.data(), ring_gradient.size()}});
  forall(exec::Serial{}, static_cast<int>(ring_gradient.size()),
         assembly::SecondRingRow<assembly::Scatter::Coloured, exec::Space::Host>{
             t,
             {work.kappa.data(), work.kappa.size()},
             {ring_gradient.data(), ring_gradient.size()},
             project_spd,
             {K, 0}});
}

}  // namespace softik
