// One call that runs a network's node-centric force gather (link_gather.hpp with its volume
// cells, volume_gather.hpp) under any execution policy: the host's exec::HostCells
// (host/network/network_forces.cpp) and exec::Cuda (cuda/network/device_network.cu) pick the same
// instantiation of the same loop body from the same tables. The policy's forall is found by
// argument-dependent lookup, so the CUDA translation unit includes cuda/exec/forall_cuda.cuh.
#pragma once

#include "host/network/link_gather.hpp"
#include "host/network/volume_gather.hpp"
#include "softik/exec/forall.hpp"

namespace softik::network {

/// The node -> link and node -> volume-cell incidence tables of NetworkForces (node_network.hpp),
/// as views of one space.
template <exec::Space S>
struct NetworkTables {
  exec::View<const int, S> first, other;    ///< links: node i's incidences, each link's other node
  exec::View<const Real, S> spring, extra;  ///< links: (k, L) per incidence; (k3, c) or empty
  bool extras = false;                      ///< extra holds (k3, c)
  int cell_nodes = 0;                       ///< volume cells: 4 (Tet4), 8 (Hex8), 0 (none)
  int num_cells = 0;
  exec::View<const int, S> cell_first, cell_slot, cell_list;   ///< volume_gather.hpp's first, slot, nodes
  exec::View<const Real, S> cell_stiffness, cell_rest_volume;  ///< kappa, V0 per cell
  exec::View<Real, S> cell_pressure;                           ///< scratch, num_cells: the first pass's p_c
};

namespace detail {

template <bool Extras, class Cells, class Policy, exec::Space S>
void gather_with(const Policy& policy, int num_nodes, const NetworkTables<S>& t, const Cells& cells,
                 exec::View<const Real, S> x, exec::View<const Real, S> v, exec::View<Real, S> f) {
  static_assert(Policy::space == S, "the policy runs where the tables live");
  forall(policy, num_nodes, GatherLinkForces<S, Extras, Cells>{t.first, t.other, t.spring, t.extra, x, v, f, cells});
}

template <class Cells, class Policy, exec::Space S>
void gather_cells(const Policy& policy, int num_nodes, const NetworkTables<S>& t, const Cells& cells,
                  exec::View<const Real, S> x, exec::View<const Real, S> v, exec::View<Real, S> f) {
  if (t.extras)
    gather_with<true>(policy, num_nodes, t, cells, x, v, f);
  else
    gather_with<false>(policy, num_nodes, t, cells, x, v, f);
}

/// Both passes for cells of type Cell: p_c per cell, then the nodes' gather.
template <class Cell, class Policy, exec::Space S>
void gather_with_cells(const Policy& policy, int num_nodes, const NetworkTables<S>& t, exec::View<const Real, S> x,
                       exec::View<const Real, S> v, exec::View<Real, S> f) {
  forall(policy, t.num_cells,
         CellPressures<S, Cell>{t.cell_list, t.cell_stiffness, t.cell_rest_volume, x, t.cell_pressure});
  const exec::View<const Real, S> pressure{t.cell_pressure.data, t.cell_pressure.size};
  gather_cells(policy, num_nodes, t, VolumeCellForces<S, Cell>{t.cell_first, t.cell_slot, t.cell_list, pressure}, x, v,
               f);
}

}  // namespace detail

/// f += the forces of the links and volume cells at positions x and velocities v (v null: no
/// dashpot forces), all views of the policy's space; with volume cells first the pass over the
/// cells into t.cell_pressure. Returns when the policy's loops do.
template <class Policy, exec::Space S>
void gather_network_forces(const Policy& policy, int num_nodes, const NetworkTables<S>& t, exec::View<const Real, S> x,
                           exec::View<const Real, S> v, exec::View<Real, S> f) {
  if (t.cell_nodes == fem::Tet4Volume::num_nodes)
    detail::gather_with_cells<fem::Tet4Volume>(policy, num_nodes, t, x, v, f);
  else if (t.cell_nodes == fem::Hex8Volume::num_nodes)
    detail::gather_with_cells<fem::Hex8Volume>(policy, num_nodes, t, x, v, f);
  else
    detail::gather_cells(policy, num_nodes, t, NoVolumeCells{}, x, v, f);
}

}  // namespace softik::network
