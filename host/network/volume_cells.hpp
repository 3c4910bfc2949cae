// A network's volume cells visited on the host (node_network.cpp's checks, network_forces.cpp's
// energy, bounds and state check): the cell type picked once, each cell's node positions loaded
// into a fixed-size array for the fem/cell_volume.hpp functions.
#pragma once

#include "softik/fem/cell_volume.hpp"
#include "softik/node_network.hpp"

namespace softik::network {

/// Calls fn(Cell{}, c, xc) for every volume cell c of `net` (validated: Tet4 or Hex8 cells), with
/// Cell fem::Tet4Volume or fem::Hex8Volume and xc[0 .. Cell::num_nodes) its nodes' positions in x.
template <class Fn>
void for_each_volume_cell(const NodeNetwork& net, const Real* x, Fn&& fn) {
  const auto visit = [&](auto cell) {
    using Cell = decltype(cell);
    fem::Vec3 xc[Cell::num_nodes];
    for (int c = 0; c < net.num_volume_cells(); ++c) {
      const int* n = net.volume_cells.data() + static_cast<size_t>(c) * Cell::num_nodes;
      for (int a = 0; a < Cell::num_nodes; ++a) {
        const size_t j = 3 * static_cast<size_t>(n[a]);
        xc[a] = fem::Vec3(x[j], x[j + 1], x[j + 2]);
      }
      fn(cell, c, static_cast<const fem::Vec3*>(xc));
    }
  };
  if (net.num_volume_cells() == 0) return;
  if (net.volume_cell_type == CellType::Hex8)
    visit(fem::Hex8Volume{});
  else
    visit(fem::Tet4Volume{});
}

}  // namespace softik::network
