// Structured meshes of boxes at any resolution, for tests, benchmarks and examples.
// Node groups "xmin", "xmax", "ymin", "ymax", "zmin", "zmax" hold the nodes on each face of
// the box (those that exist in the mesh's dimension); surface groups of the same names hold
// the boundary faces of 3D meshes, wound so that their normals point out of the body.
#pragma once

#include <array>

#include "softik/mesh.hpp"

namespace softik {

struct BoxSpec {
  std::array<Real, 3> origin{0, 0, 0};
  std::array<Real, 3> size{1, 1, 1};
  std::array<int, 3> cells{1, 1, 1};  ///< cells per axis (only the first `dim` are used)
};

/// 1D: Edge2 line.  2D: Quad4 grid, or each quad split into two Tri3.
/// 3D: Hex8 grid, or each hex split into six Tet4 around its main diagonal (Kuhn
/// subdivision: neighbouring hexes share face diagonals, so the tet mesh is conforming), all
/// with positive orientation.
Mesh make_box(int dim, CellType type, const BoxSpec& spec);

}  // namespace softik
