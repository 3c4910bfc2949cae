// Contact options checked against a mesh, shared by the DynamicSolver (dynamics.hpp) and the
// InverseSolver (inverse.hpp): one set of checks, defaults and candidate nodes for both.
#pragma once

#include <utility>
#include <vector>

#include "softik/contact.hpp"
#include "softik/mesh.hpp"

namespace softik::contact {

/// Row r (0: normal, 1: t1, 2: t2) of a contact's Jacobian H over the mesh DOFs (contact.hpp's
/// conventions): the direction at the node, minus the barycentric weights times it at the
/// triangle's nodes for a contact with a deformable surface. Appends (DOF, value) to `out`.
void append_contact_row(const ContactPoint& p, int r, std::vector<std::pair<int, Real>>& out);

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
