// Contact options checked against a mesh, shared by the DynamicSolver (dynamics.hpp) and the
// InverseSolver (inverse.hpp): one set of checks, defaults and candidate nodes for both.
#pragma once

#include <vector>

#include "softik/contact.hpp"
#include "softik/mesh.hpp"

namespace softik::contact {

/// Shortest and mean distance between two nodes of one cell (all node pairs of every cell).
void edge_lengths(const Mesh& mesh, Real* shortest, Real* mean);

/// Validates `c` for `mesh` (obstacles, friction, distances, tolerance; each error names the
/// key and the fix) and fills its defaults: alarm_distance < 0 becomes 0.1 x the mean element
/// edge, solver.tolerance becomes `tolerance` (< 0: 1e-9 x size, the bounding-box diagonal).
void prepare_contact_options(const Mesh& mesh, ContactOptions& c, Real size);

/// The nodes that may touch: `nodes` (checked to be mesh nodes), or every node of the mesh's
/// boundary when empty; only those with a free DOF (free_dof_index: per DOF, -1 when fixed).
std::vector<int> contact_candidate_nodes(const Mesh& mesh, const std::vector<int>& free_dof_index,
                                         const std::vector<int>& nodes);

}  // namespace softik::contact
