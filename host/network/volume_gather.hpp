// The volume cells' part of the node-centric force gather (link_gather.hpp runs it in the same
// loop body, for every backend), in two passes: CellPressures evaluates each cell once,
// p_c = dW/dV = kappa (V - V0) / V0 of its volume term W = kappa/2 (V - V0)^2 / V0
// (fem/cell_volume.hpp); then node i sums, over the volume cells it belongs to, its own share
// -dW/dx_i = -p_c dV/dx_i. The incidences of node i are [first[i], first[i+1]), each the cell's
// slot n c + a (n nodes per cell, c the cell, a node i's place in it): the cell's nodes are
// nodes[n c .. n c + n). No two iterations of either pass write one entry (no atomics) and the
// sums are formed in one order everywhere.
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

/// The cell's node positions at x.
template <class Cell, class Nodes, class X>
SOFTIK_HD void cell_positions(const Nodes& nodes, int c, const X& x, fem::Vec3* xc) {
  for (int b = 0; b < Cell::num_nodes; ++b) {
    const int j = nodes[Cell::num_nodes * c + b];
    xc[b] = fem::Vec3(x[3 * j], x[3 * j + 1], x[3 * j + 2]);
  }
}

/// The first pass: iteration c stores the volume term's p_c = kappa (V - V0) / V0 of cell c.
template <exec::Space S, class Cell>
struct CellPressures {
  exec::View<const int, S> nodes;         ///< Cell::num_nodes per cell
  exec::View<const Real, S> stiffness;    ///< kappa per cell (Pa)
  exec::View<const Real, S> rest_volume;  ///< V0 per cell (m^3)
  exec::View<const Real, S> x;            ///< positions, 3 per node
  exec::View<Real, S> pressure;           ///< p_c per cell (Pa), written

  SOFTIK_HD void operator()(int c) const {
    fem::Vec3 xc[Cell::num_nodes];
    cell_positions<Cell>(nodes, c, x, xc);
    pressure[c] = fem::volume_term_pressure(stiffness[c], rest_volume[c], Cell::volume(xc));
  }
};

/// The second pass's share, for the volume cells of one type (Cell: fem::Tet4Volume or
/// fem::Hex8Volume), from the first pass's p_c.
template <exec::Space S, class Cell>
struct VolumeCellForces {
  exec::View<const int, S> first;      ///< num_nodes + 1
  exec::View<const int, S> slot;       ///< per incidence: Cell::num_nodes * cell + local index
  exec::View<const int, S> nodes;      ///< Cell::num_nodes per cell
  exec::View<const Real, S> pressure;  ///< p_c per cell (CellPressures)

  /// sum over node i's cells of -p_c dV/dx_i at positions x (3 per node).
  SOFTIK_HD fem::Vec3 force_on(int i, const exec::View<const Real, S>& x) const {
    constexpr int n = Cell::num_nodes;
    fem::Vec3 sum = fem::Vec3::Zero();
    for (int k = first[i]; k < first[i + 1]; ++k) {
      const int c = slot[k] / n, a = slot[k] % n;
      fem::Vec3 xc[n];
      cell_positions<Cell>(nodes, c, x, xc);
      sum -= pressure[c] * Cell::gradient(xc, a);
    }
    return sum;
  }
};

}  // namespace softik::network
