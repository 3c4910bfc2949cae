// The passes of Dilatation::NodalMean (the average nodal pressure element of
// include/softik/fem/dilatation.hpp; Bonet & Burton 1998) around the cell pass, written once for
// every backend: the CPU's NodalDilatation (nodal_dilatation.hpp) runs them under host policies,
// the CUDA DeviceAssembler under exec::Cuda. With n nodes per cell:
//   CellVolume           v_c = sum_q w_q m(F_q)                                  per cell
//   NodalVolumeRatio     theta_a = (sum_{c ∋ a} v_c / n) / V_a                    per node (gather)
//   CellNodalBulk        pi_a += V_c/n U_c'(theta_a) / V_a,
//                        kappa_a += V_c/n U_c''(theta_a) / V_a^2,
//                        E_c = sum_{a ∈ c} V_c/n U_c(theta_a)                      per cell (scatter)
//   (the cell pass of cell_kernel.hpp reads pi and writes each cell's volume gradient g_c)
//   RingVolumeGradient   g_a = sum_{c ∋ a} g_c / n on the ring of a               per node (gather)
//   SecondRingRow        K += kappa_a g_a g_a^T through a's slot table            per row (scatter)
// The gathers visit a node's cells in ascending order, so every backend forms each sum in one
// order; the scatters add plainly under a policy that never runs two colliding iterations at
// once (Scatter::Coloured) and atomically otherwise (Scatter::Atomic).
#pragma once

#include <cstddef>

#include "host/assembly/cell_kernel.hpp"

namespace softik::assembly {

/// The node -> cells and node -> ring tables of a mesh (built once: NodalDilatation).
template <exec::Space S>
struct NodalTopology {
  int num_nodes = 0, nodes_per_cell = 0, dim = 0;
  exec::Table<const int, S> nodes;            ///< (cell, a): node a of the cell
  exec::View<const int, S> cells_ptr;         ///< node a's cells: cells_of_node[cells_ptr[a] .. cells_ptr[a + 1])
  exec::View<const int, S> cells_of_node;     ///< ascending per node
  exec::View<const int, S> ring_ptr;          ///< node a's ring: ring[ring_ptr[a] .. ring_ptr[a + 1])
  exec::View<const int, S> ring;              ///< the sorted nodes of the cells around a (a included)
  exec::View<const int, S> ring_owner;        ///< per ring entry, the node whose ring holds it
  exec::View<const std::size_t, S> slot_ptr;  ///< node a's (|ring| dim)^2 slots start here
  exec::View<const int, S> ring_slots;        ///< CSR slot of ring DOF pair (r, s) at r |ring| dim + s, or -1
  exec::View<const Real, S> rest_volume;      ///< V_a = sum_{c ∋ a} V_c / n
};

/// The position of `node` in the sorted ring R (it is there: the ring holds every node of the
/// cells around its centre).
SOFTIK_HD_INLINE int ring_position(const int* R, int size, int node) {
  int lo = 0, hi = size;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (R[mid] < node)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// Whether NodalMean applies to element E (the linear simplices: one point, n = dim + 1 nodes,
/// equal nodal shares of the cell's volume).
template <class E>
constexpr bool nodal_mean_element() {
  return E::num_quad == 1 && E::num_nodes == E::dim + 1;
}

/// v_c: each cell's volume under law M's volume measure at the pass's x (fem::cell_volume).
template <class E, class M, exec::Space S>
struct CellVolume {
  CellPass<S> pass;
  exec::View<Real, S> out;
  SOFTIK_HD void operator()(int c) const {
    const GatheredCell<E, M, TotalLagrangian, S> cell(pass, 0, c, pass.x.data, pass.status.data);
    out[static_cast<std::size_t>(c)] = fem::cell_volume<E, M>(cell.rest, cell.xe);
  }
};

/// theta_a from the cells' volumes (a node with no volume keeps its summed volume).
template <exec::Space S>
struct NodalVolumeRatio {
  NodalTopology<S> topology;
  exec::View<const Real, S> cell_volume;
  exec::View<Real, S> theta;
  SOFTIK_HD void operator()(int a) const {
    const NodalTopology<S>& t = topology;
    Real v = 0;
    for (int k = t.cells_ptr[static_cast<std::size_t>(a)]; k < t.cells_ptr[static_cast<std::size_t>(a) + 1]; ++k)
      v += cell_volume[static_cast<std::size_t>(t.cells_of_node[static_cast<std::size_t>(k)])] / t.nodes_per_cell;
    const Real V = t.rest_volume[static_cast<std::size_t>(a)];
    theta[static_cast<std::size_t>(a)] = V > 0 ? v / V : v;
  }
};

/// The arrays CellNodalBulk reads and writes (pi, kappa accumulated; cell_energy written).
template <exec::Space S>
struct NodalBulkFields {
  exec::View<const Real, S> theta, rest_volume;  ///< per node
  exec::View<Real, S> pi, kappa;                 ///< per node, accumulated
  exec::View<Real, S> cell_energy;               ///< per cell, written
  exec::View<int, S> first_bad_node;             ///< one entry: smallest node with theta <= 0 where M is undefined
};

/// The nodal pressures and stiffnesses and each cell's bulk energy (law M of each cell: per-cell
/// materials lend their law to their share of a node).
template <class E, class M, Scatter mode, exec::Space S>
struct CellNodalBulk {
  CellPass<S> pass;
  NodalBulkFields<S> fields;
  SOFTIK_HD void operator()(int c) const {
    constexpr int n = E::num_nodes;
    fem::RestData<E> rest;
    for_each_rest_word<E>(rest, false, [&](int w, Real& word) {
      word = pass.rest(static_cast<std::size_t>(c), static_cast<std::size_t>(w));
    });
    Real V = 0;
    for (int q = 0; q < E::num_quad; ++q) V += rest.w_detJ[q];
    const M law = reinterpret_cast<const M*>(pass.materials.data)[pass.material_stride * static_cast<std::size_t>(c)];
    const Real share = V / n;
    Real e = 0;
    for (int a = 0; a < n; ++a) {
      const int node = pass.nodes(static_cast<std::size_t>(c), static_cast<std::size_t>(a));
      const Real t = fields.theta[static_cast<std::size_t>(node)],
                 Va = fields.rest_volume[static_cast<std::size_t>(node)];
      if (!fem::tolerates_inversion<M>::value && !(t > 0)) {
        exec::atomic_min(fields.first_bad_node.data, node);
        continue;
      }
      const fem::VolumetricTerm u = fem::BulkSplit<M>::term(law, t);
      e += share * u.U;
      scatter_add<mode>(&fields.pi[static_cast<std::size_t>(node)], share * u.dU / Va);
      scatter_add<mode>(&fields.kappa[static_cast<std::size_t>(node)], share * u.d2U / (Va * Va));
    }
    fields.cell_energy[static_cast<std::size_t>(c)] = e;
  }
};

/// g_a = sum_{c ∋ a} g_c / n on the ring of node a, into a's own section of ring_gradient
/// (from ring_ptr[a] dim), in the ring's order.
template <exec::Space S>
struct RingVolumeGradient {
  NodalTopology<S> topology;
  exec::View<const Real, S> volume_gradient;  ///< g_c per cell, n dim words at c n dim
  exec::View<Real, S> ring_gradient;          ///< ring_ptr[num_nodes] dim words
  SOFTIK_HD void operator()(int a) const {
    const NodalTopology<S>& t = topology;
    const std::size_t node = static_cast<std::size_t>(a);
    const int n = t.nodes_per_cell, d = t.dim, nd = n * d;
    const int* R = t.ring.data + t.ring_ptr[node];
    const int size = t.ring_ptr[node + 1] - t.ring_ptr[node];
    Real* g = ring_gradient.data + static_cast<std::size_t>(t.ring_ptr[node]) * d;
    for (int r = 0; r < size * d; ++r) g[r] = 0;
    for (int k = t.cells_ptr[node]; k < t.cells_ptr[node + 1]; ++k) {
      const int c = t.cells_of_node[static_cast<std::size_t>(k)];
      const Real* gc = volume_gradient.data + static_cast<std::size_t>(c) * nd;
      for (int b = 0; b < n; ++b) {
        const int j = ring_position(R, size, t.nodes(static_cast<std::size_t>(c), static_cast<std::size_t>(b)));
        for (int i = 0; i < d; ++i) g[j * d + i] += gc[b * d + i] / n;
      }
    }
  }
};

/// Row r of node a's term K += kappa_a g_a g_a^T (row i = the i-th of the dim ring_ptr[num_nodes]
/// rows of all nodes, node by node: entry k = i / dim of the rings, centre ring_owner[k]), from
/// the gradients RingVolumeGradient left. With project_spd a negative kappa_a is clamped to zero.
template <Scatter mode, exec::Space S>
struct SecondRingRow {
  NodalTopology<S> topology;
  exec::View<const Real, S> kappa;
  exec::View<const Real, S> ring_gradient;
  bool project_spd = false;
  exec::View<Real, S> K;
  SOFTIK_HD void operator()(int i) const {
    const NodalTopology<S>& t = topology;
    const int d = t.dim;
    const std::size_t entry = static_cast<std::size_t>(i / d);
    const std::size_t node = static_cast<std::size_t>(t.ring_owner[entry]);
    Real k_a = kappa[node];
    if (project_spd && k_a < 0) k_a = 0;
    const int first = t.ring_ptr[node], rd = (t.ring_ptr[node + 1] - first) * d;
    const int r = i - first * d;  // the row within node a's ring
    const Real* g = ring_gradient.data + static_cast<std::size_t>(first) * d;
    const Real kr = k_a * g[r];
    if (kr == 0) return;
    const int* slots = t.ring_slots.data + t.slot_ptr[node] + static_cast<std::size_t>(r) * rd;
    for (int s = 0; s < rd; ++s)
      if (slots[s] >= 0) scatter_add<mode>(&K[static_cast<std::size_t>(slots[s])], kr * g[s]);
  }
};

}  // namespace softik::assembly
