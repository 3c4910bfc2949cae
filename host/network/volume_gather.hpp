// The volume cells' part of the node-centric force gather (link_gather.hpp runs it in the same
// loop body, for every backend): node i sums, over the volume cells it belongs to, its own share
// -dW/dx_i = -p dV/dx_i of each cell's volume term W = kappa/2 (V - V0)^2 / V0
// (fem/cell_volume.hpp). The incidences of node i are [first[i], first[i+1]), each the cell's
// slot n c + a (n nodes per cell, c the cell, a node i's place in it): the cell's nodes are
// nodes[n c .. n c + n). Each cell's volume is recomputed by each of its nodes; in exchange no
// two iterations write one node (no atomics) and the sums are formed in one order everywhere.
#pragma once

#include "softik/exec/view.hpp"
#include "softik/fem/cell_volume.hpp"

namespace softik::network {

/// No volume cells: the gather adds nothing.
struct NoVolumeCells {
  template <class X>
  SOFTIK_HD fem::Vec3 force_on(int, const X&) const {
    return fem::Vec3::Zero();
  }
};

/// The volume cells of one type (Cell: fem::Tet4Volume or fem::Hex8Volume).
template <exec::Space S, class Cell>
struct VolumeCellForces {
  exec::View<const int, S> first;         ///< num_nodes + 1
  exec::View<const int, S> slot;          ///< per incidence: Cell::num_nodes * cell + local index
  exec::View<const int, S> nodes;         ///< Cell::num_nodes per cell
  exec::View<const Real, S> stiffness;    ///< kappa per cell (Pa)
  exec::View<const Real, S> rest_volume;  ///< V0 per cell (m^3)

  /// sum over node i's cells of -kappa (V - V0) / V0 dV/dx_i at positions x (3 per node).
  SOFTIK_HD fem::Vec3 force_on(int i, const exec::View<const Real, S>& x) const {
    constexpr int n = Cell::num_nodes;
    fem::Vec3 sum = fem::Vec3::Zero();
    for (int k = first[i]; k < first[i + 1]; ++k) {
      const int c = slot[k] / n, a = slot[k] % n;
      fem::Vec3 xc[n];
      for (int b = 0; b < n; ++b) {
        const int j = nodes[n * c + b];
        xc[b] = fem::Vec3(x[3 * j], x[3 * j + 1], x[3 * j + 2]);
      }
      sum += fem::volume_term_force<Cell>(stiffness[c], rest_volume[c], xc, a);
    }
    return sum;
  }
};

}  // namespace softik::network
