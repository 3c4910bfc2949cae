// The warning of bodies that overlap at t = 0 (scene_build_warnings.hpp): a node of one body
// inside a cell of another, deeper than round-off below the other's boundary.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "host/contact/triangle_bvh.hpp"
#include "host/scene/build/scene_build_warnings.hpp"
#include "softik/point_location.hpp"

namespace softik::scene_detail {

namespace {

/// Body b alone: the merged mesh's nodes (all of them, so that node numbers stay) and b's cells.
Mesh body_cells(const Mesh& merged, const MeshParts& parts, size_t b) {
  Mesh m;
  m.dim = merged.dim;
  m.cell_type = merged.cell_type;
  m.X = merged.X;
  const size_t npc = static_cast<size_t>(nodes_per_cell(merged.cell_type));
  m.cells.assign(merged.cells.begin() + static_cast<long>(parts.cell_begin[b] * npc),
                 merged.cells.begin() + static_cast<long>(parts.cell_begin[b + 1] * npc));
  return m;
}

/// The distance from p to the nearest boundary face of `body` (triangles; quads as two).
Real depth_below(const Vec3r& p, const Mesh& body, const SurfaceGroup& boundary) {
  const auto X = [&](int n) { return Vec3r(body.X[3 * n], body.X[3 * n + 1], body.X[3 * n + 2]); };
  Real best = HUGE_VAL;
  const auto triangle = [&](int a, int b, int c) {
    best = std::min(best, (contact::closest_point_on_triangle(p, X(a), X(b), X(c)).point - p).norm());
  };
  for (const auto& t : boundary.triangles) triangle(t[0], t[1], t[2]);
  for (const auto& t : boundary.triangles6) triangle(t[0], t[1], t[2]);
  for (const auto& q : boundary.quads) triangle(q[0], q[1], q[2]), triangle(q[0], q[2], q[3]);
  return best;
}

}  // namespace

void warn_overlapping_bodies(const Scene& scene, BuiltScene& out, Real diagonal) {
  const Mesh& mesh = out.mesh;
  const MeshParts& parts = out.parts;
  if (scene.bodies.size() < 2 || mesh.dim != 3) return;
  const Real tol = 1e-9 * diagonal;  // touching is not overlapping
  for (size_t b = 0; b < scene.bodies.size(); ++b) {
    const Mesh host = body_cells(mesh, parts, b);
    const PointLocator locator(host);
    const SurfaceGroup boundary = boundary_surface(host);
    for (size_t a = 0; a < scene.bodies.size(); ++a) {
      if (a == b) continue;
      int inside = 0, deepest_node = -1;
      Real deepest = 0;
      for (int n = parts.node_begin[a]; n < parts.node_begin[a + 1]; ++n) {
        const std::array<Real, 3> p{mesh.X[3 * n], mesh.X[3 * n + 1], mesh.X[3 * n + 2]};
        if (locator.nearest(p).distance > 0) continue;
        const Real d = depth_below(Vec3r(p[0], p[1], p[2]), host, boundary);
        if (d <= tol) continue;
        ++inside;
        if (d > deepest) deepest = d, deepest_node = n;
      }
      if (inside == 0) continue;
      std::ostringstream w;
      w << scene.bodies[a].where.str() << ": bodies '" << scene.bodies[a].name << "' and '" << scene.bodies[b].name
        << "' overlap at t = 0: " << inside << " node(s) of '" << scene.bodies[a].name << "' lie inside '"
        << scene.bodies[b].name << "', the deepest " << deepest << " below its surface (node " << deepest_node
        << "); move them apart with their transforms (bodies in contact should touch, not overlap)";
      out.warnings.push_back(w.str());
    }
  }
}

}  // namespace softik::scene_detail
