// Structured meshes of boxes at any resolution, for tests, benchmarks and examples.
// Node groups "xmin", "xmax", "ymin", "ymax", "zmin", "zmax" hold the nodes on each face of
// the box (those that exist in the mesh's dimension); surface groups of the same names hold
// the boundary faces of 3D meshes, wound so that their normals point out of the body.
#pragma once

#include <array>
#include <functional>
#include <vector>

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
/// with positive orientation. Tet10: the Tet4 mesh made quadratic (to_tet10).
Mesh make_box(int dim, CellType type, const BoxSpec& spec);

/// Refuses, before anything is allocated, a generated mesh that could not be solved here: more
/// than 2^31 degrees of freedom (softik indexes DOFs with int), or a lower bound of the memory its
/// mesh and stiffness matrix alone need (bytes per node below, from the nonzeros of one
/// stiffness row: 27 neighbour nodes for hexahedra, ~15 for tetrahedra, ~35 for quadratic
/// tetrahedra, 9 for 2-D cells, x 3 DOFs
/// x 12 bytes of CSR entry; the factorisation needs several times more) above this machine's
/// physical memory. The error gives both figures and names `who`.
void check_generated_size(const char* who, double nodes, double cells, CellType type);

/// A 3D structured mesh on the tensor-product grid coords[0] x coords[1] x coords[2] (each list
/// strictly increasing, at least 2 entries; spacings may differ). Grid cell (i, j, k) spans
/// [coords[0][i], coords[0][i+1]] x [coords[1][j], ..] x [coords[2][k], ..] and is kept when
/// `keep` is empty or keep[i + nx*(j + ny*k)] != 0 (nx, ny = cells along x, y). Each kept cell is
/// one Hex8 or six Tet4 (Kuhn subdivision around the diagonal from its min to its max corner: a
/// shared face is split along the same diagonal from both sides, so the tet mesh is conforming),
/// all positively oriented. Grid nodes used by no kept cell are dropped; the others keep grid
/// order (i fastest, then j, then k). Cells are numbered in grid order too. No groups are added.
/// Tet10: the Tet4 mesh made quadratic (to_tet10).
Mesh make_tensor_grid(const std::array<std::vector<Real>, 3>& coords, CellType type,
                      const std::vector<char>& keep = {});

/// Where the mid-node of the edge from a to b goes (rest coordinates); empty: (a + b) / 2.
using EdgeMidpoint = std::function<std::array<Real, 3>(const std::array<Real, 3>& a, const std::array<Real, 3>& b)>;

/// The quadratic (Tet10) mesh of a Tet4 mesh: the same corners and cells, one new node per edge
/// (numbered after the corners, in order of first use by the cells) placed by `midpoint` (a
/// generator on a curved body puts it on the curved surface), node groups extended by the
/// mid-node of every edge whose ends they hold, cell groups kept, surface triangles made
/// quadratic triangles. Throws on a mesh that is not Tet4.
Mesh to_tet10(const Mesh& tet4, const EdgeMidpoint& midpoint = {});

}  // namespace softik
