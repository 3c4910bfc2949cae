// Contact options against a mesh (contact_setup.hpp).
#include "host/contact/contact_setup.hpp"

#include <algorithm>
#include <cmath>

#include "softik/error.hpp"

namespace softik::contact {

void append_contact_row(const ContactPoint& p, int r, std::vector<std::pair<int, Real>>& out) {
  const Vec3r& dir = r == 0 ? p.normal : r == 1 ? p.t1 : p.t2;
  for (int i = 0; i < 3; ++i) {
    out.emplace_back(3 * p.node + i, dir(i));
    if (p.obstacle >= 0) continue;
    for (size_t j = 0; j < 3; ++j) out.emplace_back(3 * p.triangle[j] + i, -p.barycentric[j] * dir(i));
  }
}

void edge_lengths(const Mesh& mesh, Real* shortest, Real* mean) {
  const int npc = nodes_per_cell(mesh.cell_type);
  Real lo = 1e300, sum = 0;
  long count = 0;
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const int* nodes = mesh.cell(c);
    for (int i = 0; i < npc; ++i)
      for (int j = i + 1; j < npc; ++j) {
        Real d2 = 0;
        for (int k = 0; k < 3; ++k) {
          const Real d = mesh.X[3 * static_cast<size_t>(nodes[i]) + k] - mesh.X[3 * static_cast<size_t>(nodes[j]) + k];
          d2 += d * d;
        }
        lo = std::min(lo, std::sqrt(d2));
        sum += std::sqrt(d2);
        ++count;
      }
  }
  *shortest = lo;
  *mean = count ? sum / static_cast<Real>(count) : 0;
}

void prepare_contact_options(const Mesh& mesh, ContactOptions& c, Real size) {
  SOFTIK_CHECK(mesh.dim == 3,
               "contact needs a 3D mesh (Tet4 or Hex8), got a " << cell_type_name(mesh.cell_type) << " mesh");
  for (const Obstacle& o : c.obstacles) validate(o);
  SOFTIK_CHECK(std::isfinite(c.body_friction) && c.body_friction >= 0,
               "contact: friction between parts mu = " << c.body_friction << "; Coulomb's coefficient must be >= 0");
  Real shortest = 0, mean = 0;
  edge_lengths(mesh, &shortest, &mean);
  SOFTIK_CHECK(std::isfinite(c.contact_distance) && c.contact_distance >= 0,
               "contact: contact_distance = " << c.contact_distance << "; give a distance >= 0");
  SOFTIK_CHECK(c.contact_distance <= shortest,
               "contact: contact_distance = " << c.contact_distance << " is larger than the smallest element edge ("
                                              << shortest << "); give a distance below it (e.g. 0.1 of it)");
  SOFTIK_CHECK(std::isfinite(c.alarm_distance), "contact: alarm_distance = " << c.alarm_distance);
  if (c.alarm_distance < 0) c.alarm_distance = 0.1 * mean;
  SOFTIK_CHECK(std::isfinite(c.tolerance), "contact: tolerance = " << c.tolerance);
  c.solver.tolerance = c.tolerance < 0 ? 1e-9 * size : c.tolerance;
  SOFTIK_CHECK(c.solver.tolerance > 0, "contact: tolerance = " << c.tolerance << "; give a positive length");
}

std::vector<int> contact_candidate_nodes(const Mesh& mesh, const std::vector<int>& free,
                                         const std::vector<int>& nodes) {
  auto movable = [&](int node) {
    return free[3 * static_cast<size_t>(node)] >= 0 || free[3 * static_cast<size_t>(node) + 1] >= 0 ||
           free[3 * static_cast<size_t>(node) + 2] >= 0;
  };
  std::vector<int> out;
  if (!nodes.empty()) {
    for (int n : nodes) {
      SOFTIK_CHECK(n >= 0 && n < mesh.num_nodes(),
                   "contact: node " << n << " is outside [0, " << mesh.num_nodes() << ")");
      if (movable(n)) out.push_back(n);
    }
    return out;
  }
  const SurfaceGroup boundary = boundary_surface(mesh);
  std::vector<char> on_boundary(static_cast<size_t>(mesh.num_nodes()), 0);
  for (const auto& t : boundary.triangles)
    for (int n : t) on_boundary[static_cast<size_t>(n)] = 1;
  for (const auto& q : boundary.quads)
    for (int n : q) on_boundary[static_cast<size_t>(n)] = 1;
  for (const auto& t : boundary.triangles6)  // Tet10: corners and mid-nodes
    for (int n : t) on_boundary[static_cast<size_t>(n)] = 1;
  for (int n = 0; n < mesh.num_nodes(); ++n)
    if (on_boundary[static_cast<size_t>(n)] && movable(n)) out.push_back(n);
  return out;
}

}  // namespace softik::contact
