#include "softik/mesh.hpp"

#include <cmath>
#include <iterator>
#include <vector>

#include <Eigen/Geometry>

#include "host/mesh/element_dispatch.hpp"
#include "softik/error.hpp"
#include "softik/fem/kinematics.hpp"

namespace softik {

// The tables below are in CellType's order: Edge2, Tri3, Quad4, Tet4, Hex8, Tet10.
int nodes_per_cell(CellType type) {
  constexpr int kNodes[] = {2, 3, 4, 4, 8, 10};
  const int k = static_cast<int>(type);
  return k >= 0 && k < int(std::size(kNodes)) ? kNodes[k] : 0;
}

int cell_dimension(CellType type) {
  constexpr int kDimensions[] = {1, 2, 2, 3, 3, 3};
  const int k = static_cast<int>(type);
  return k >= 0 && k < int(std::size(kDimensions)) ? kDimensions[k] : 0;
}

const char* cell_type_name(CellType type) {
  constexpr const char* kNames[] = {"Edge2", "Tri3", "Quad4", "Tet4", "Hex8", "Tet10"};
  const int k = static_cast<int>(type);
  return k >= 0 && k < int(std::size(kNames)) ? kNames[k] : "unknown";
}

int Mesh::num_cells() const { return static_cast<int>(cells.size() / nodes_per_cell(cell_type)); }

std::vector<Real> Mesh::rest_positions() const {
  std::vector<Real> x(static_cast<size_t>(num_dofs()));
  for (int n = 0; n < num_nodes(); ++n)
    for (int i = 0; i < dim; ++i) x[static_cast<size_t>(n) * dim + i] = X[3 * static_cast<size_t>(n) + i];
  return x;
}

namespace {

void check_group_indices(const std::map<std::string, std::vector<int>>& groups, int bound, const char* what,
                         const char* range) {
  for (const auto& [name, ids] : groups)
    for (size_t k = 0; k < ids.size(); ++k)
      SOFTIK_CHECK(ids[k] >= 0 && ids[k] < bound, what << " group '" << name << "' entry " << k << " is " << ids[k]
                                                       << ", outside [0, " << bound << ") " << range
                                                       << ": fix the group or the mesh it belongs to");
}

}  // namespace

MeshReport validate(const Mesh& mesh) {
  const int npc = nodes_per_cell(mesh.cell_type);
  SOFTIK_CHECK(mesh.dim == cell_dimension(mesh.cell_type),
               "mesh dimension " << mesh.dim << " does not match its cells (" << cell_type_name(mesh.cell_type)
                                 << " is " << cell_dimension(mesh.cell_type) << "D): set Mesh::dim accordingly");
  SOFTIK_CHECK(mesh.X.size() % 3 == 0,
               "Mesh::X has " << mesh.X.size() << " entries, not a multiple of 3 (x, y, z per node)");
  SOFTIK_CHECK(mesh.cells.size() % static_cast<size_t>(npc) == 0,
               "connectivity has " << mesh.cells.size() << " entries, not a multiple of " << npc << " ("
                                   << cell_type_name(mesh.cell_type) << ")");
  const int num_nodes = mesh.num_nodes();
  for (int n = 0; n < num_nodes; ++n)
    for (int i = 0; i < 3; ++i)
      SOFTIK_CHECK(std::isfinite(mesh.X[3 * static_cast<size_t>(n) + i]),
                   "node " << n << " has a non-finite coordinate " << i << " ("
                           << mesh.X[3 * static_cast<size_t>(n) + i]
                           << "): fix the mesh file or the generator that produced it");

  MeshReport report;
  std::vector<char> referenced(static_cast<size_t>(num_nodes), 0);
  const int num_cells = mesh.num_cells();
  for (int c = 0; c < num_cells; ++c) {
    const int* nodes = mesh.cell(c);
    for (int a = 0; a < npc; ++a) {
      SOFTIK_CHECK(nodes[a] >= 0 && nodes[a] < num_nodes, "cell " << c << " local node " << a << " refers to node "
                                                                  << nodes[a] << ", outside [0, " << num_nodes
                                                                  << "): the connectivity is corrupt");
      for (int b = 0; b < a; ++b)
        SOFTIK_CHECK(nodes[a] != nodes[b], "cell " << c << " uses node " << nodes[a] << " twice (local " << b << " and "
                                                   << a << "): a collapsed cell, remove or remesh it");
      referenced[static_cast<size_t>(nodes[a])] = 1;
    }
  }
  for (char r : referenced) report.unreferenced_nodes += r ? 0 : 1;

  report.min_detJ = 1e300;
  report.max_detJ = -1e300;
  detail::dispatch_element(mesh.cell_type, [&](auto tag) {
    using E = typename decltype(tag)::type;
    fem::RestData<E> rest;
    for (int c = 0; c < num_cells; ++c) {
      const fem::NodeMatrix<E> X = detail::cell_coordinates<E>(mesh, mesh.X.data(), 3, c);
      const Real min_detJ = fem::compute_rest_data<E>(X, rest);
      if constexpr (E::order == 2) {
        // Corners positively oriented but det J <= 0 somewhere: a mid-node folds the cell.
        const Real corners = (X.row(1) - X.row(0)).cross(X.row(2) - X.row(0)).dot(X.row(3) - X.row(0));
        SOFTIK_CHECK(min_detJ > 0 || !(corners > 0),
                     "cell " << c << " (" << cell_type_name(mesh.cell_type)
                             << ") folds over at rest (det J = " << min_detJ
                             << " near a mid-node while its corners are positively oriented): a mid-node "
                                "is too far from the middle of its edge; move it back (at most about a quarter of "
                                "the edge's length) or remesh");
      }
      SOFTIK_CHECK(min_detJ > 0, "cell " << c << " (" << cell_type_name(mesh.cell_type) << ") is "
                                         << (min_detJ < 0 ? "inverted" : "degenerate")
                                         << " at rest (det J = " << min_detJ << "): "
                                         << (min_detJ < 0 ? "reorder its nodes (swap two) to the positive orientation"
                                                          : "its nodes are coplanar/collinear; remesh"));
      if (min_detJ < report.min_detJ) report.min_detJ = min_detJ;
      if (min_detJ > report.max_detJ) report.max_detJ = min_detJ;
    }
  });
  check_group_indices(mesh.node_groups, num_nodes, "node", "(node indices)");
  check_group_indices(mesh.cell_groups, num_cells, "cell", "(cell indices)");
  for (const auto& [name, surface] : mesh.surface_groups) {
    for (size_t t = 0; t < surface.triangles.size(); ++t)
      for (int v : surface.triangles[t])
        SOFTIK_CHECK(v >= 0 && v < num_nodes, "surface '" << name << "' triangle " << t << " refers to node " << v
                                                          << ", outside [0, " << num_nodes << ")");
    for (size_t t = 0; t < surface.quads.size(); ++t)
      for (int v : surface.quads[t])
        SOFTIK_CHECK(v >= 0 && v < num_nodes, "surface '" << name << "' quad " << t << " refers to node " << v
                                                          << ", outside [0, " << num_nodes << ")");
    for (size_t t = 0; t < surface.triangles6.size(); ++t)
      for (int v : surface.triangles6[t])
        SOFTIK_CHECK(v >= 0 && v < num_nodes, "surface '" << name << "' quadratic triangle " << t << " refers to node "
                                                          << v << ", outside [0, " << num_nodes << ")");
  }
  return report;
}

}  // namespace softik
