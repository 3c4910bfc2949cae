// Selecting nodes for boundary conditions, probes and loads: by named group, by an
// axis-aligned box, by a plane, by a sphere, or by a list; cells by where their centroid lies;
// and turning a selection into fixed DOFs.
#pragma once

#include <array>
#include <vector>

#include "softik/mesh.hpp"

namespace softik {

/// Nodes with lo[i] - tol <= X[i] <= hi[i] + tol for every i < mesh.dim (tol absolute).
std::vector<int> nodes_in_box(const Mesh& mesh, const std::array<Real, 3>& lo, const std::array<Real, 3>& hi,
                              Real tol = 0);

/// Nodes within distance tol of the plane through `point` with normal `normal` (need not be unit).
std::vector<int> nodes_on_plane(const Mesh& mesh, const std::array<Real, 3>& point, const std::array<Real, 3>& normal,
                                Real tol);

/// Nodes with |X - center| <= radius + tol. Throws for a non-finite centre or a radius that is not > 0.
std::vector<int> nodes_in_sphere(const Mesh& mesh, const std::array<Real, 3>& center, Real radius, Real tol = 0);

/// The cells' centroids (the mean of their nodes' rest positions) as a mesh of points, point c the
/// centroid of cell c: cells are then selected by centroid with nodes_in_box, nodes_in_sphere, ...
Mesh cell_centroids(const Mesh& mesh);

/// Marks the given components (components[i] true fixes component i) of `nodes` in the fixed-DOF
/// mask `fixed` (num_dofs entries; created zero-filled when empty). Throws on an out-of-range node.
void fix_components(const Mesh& mesh, const std::vector<int>& nodes, const std::array<bool, 3>& components,
                    std::vector<char>& fixed);

/// The node closest to point p (ties: smallest index).
int closest_node(const Mesh& mesh, const std::array<Real, 3>& p);

/// The diagonal of the nodes' axis-aligned bounding box (0 for a mesh without nodes): the
/// model's length scale for relative tolerances.
Real bounding_box_diagonal(const Mesh& mesh);

}  // namespace softik
