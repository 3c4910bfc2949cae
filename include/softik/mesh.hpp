// The volume mesh: nodes, cells of one element type, and named node/cell/surface groups.
//
// Layout:
//   X      rest coordinates, 3 per node always (X[3n+0..2]); for dim < 3 the unused
//          coordinates are 0. Units are the user's (SI recommended: metres).
//   cells  connectivity, nodes_per_cell(cell_type) node indices per cell, VTK/Gmsh ordering.
// Degrees of freedom: node n, component i (0 <= i < dim) is DOF n*dim + i.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "softik/config.hpp"

namespace softik {

/// Cell types. Tet10 is the quadratic tetrahedron (VTK order: corners, then the mid-nodes of
/// edges (0,1), (1,2), (0,2), (0,3), (1,3), (2,3)).
enum class CellType { Edge2, Tri3, Quad4, Tet4, Hex8, Tet10 };

int nodes_per_cell(CellType type);
int cell_dimension(CellType type);
const char* cell_type_name(CellType type);

/// A surface made of triangles, quads and/or quadratic triangles (node indices into the mesh),
/// e.g. a cavity wall. A quadratic triangle (Tri6, the face of a Tet10) lists its corners, then
/// the mid-nodes of its edges (0,1), (1,2), (2,0).
struct SurfaceGroup {
  std::vector<std::array<int, 3>> triangles;
  std::vector<std::array<int, 4>> quads;
  std::vector<std::array<int, 6>> triangles6;
  bool empty() const { return triangles.empty() && quads.empty() && triangles6.empty(); }
};

struct Mesh {
  int dim = 3;
  CellType cell_type = CellType::Tet4;
  std::vector<Real> X;
  std::vector<int> cells;
  std::map<std::string, std::vector<int>> node_groups;
  std::map<std::string, std::vector<int>> cell_groups;
  std::map<std::string, SurfaceGroup> surface_groups;

  int num_nodes() const { return static_cast<int>(X.size() / 3); }
  int num_cells() const;
  int num_dofs() const { return num_nodes() * dim; }
  const int* cell(int c) const { return cells.data() + static_cast<size_t>(c) * nodes_per_cell(cell_type); }
  /// Rest positions as a DOF vector (num_dofs entries): the starting configuration x = X.
  std::vector<Real> rest_positions() const;
};

/// What validate() found that is legal but suspicious.
struct MeshReport {
  int unreferenced_nodes = 0;
  Real min_detJ = 0;  ///< smallest Jacobian determinant over all cells and quadrature points
  Real max_detJ = 0;
};

/// Checks the mesh and throws softik::Error naming the node or cell and the fix on: a
/// dimension that does not match the cell type, a connectivity size that is not a multiple of
/// the cell size, NaN/inf coordinates, out-of-range node indices (cells and groups), a node
/// repeated in one cell, inverted or degenerate cells (det J <= 0 at any quadrature point).
MeshReport validate(const Mesh& mesh);

}  // namespace softik

namespace softik {

/// The boundary of a 3D mesh: every cell face that belongs to exactly one cell, wound so that
/// its normal points out of the body (triangles for Tet4, quads for Hex8, quadratic triangles
/// for Tet10).
SurfaceGroup boundary_surface(const Mesh& mesh);

}  // namespace softik
