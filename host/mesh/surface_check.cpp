// check_surface(): validation and orientation of a cavity / pressure surface (surface.hpp).
#include "softik/surface.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <queue>
#include <sstream>
#include <utility>
#include <vector>

#include "softik/error.hpp"
#include "softik/fem/pressure_load.hpp"
#include "softik/fem/quadratic_pressure_load.hpp"

namespace softik {

namespace {

using fem::Vec3;

// One face of the surface: global index f (triangles first, then quads, then quadratic
// triangles), its corner nodes and, for a quadratic triangle, the mid-nodes of its edges
// (0,1), (1,2), (2,0) (mid[k] on the edge from corner k to corner k + 1).
struct Face {
  int size;  ///< corners: 3 or 4
  std::array<int, 4> n;
  std::array<int, 3> mid{-1, -1, -1};
  bool quadratic() const { return mid[0] >= 0; }
};

// "face 7 (quad 1)".
std::string label(const SurfaceGroup& s, int f) {
  std::ostringstream o;
  const int nt = static_cast<int>(s.triangles.size()), nq = static_cast<int>(s.quads.size());
  if (f < nt)
    o << "face " << f << " (triangle " << f << ")";
  else if (f < nt + nq)
    o << "face " << f << " (quad " << f - nt << ")";
  else
    o << "face " << f << " (quadratic triangle " << f - nt - nq << ")";
  return o.str();
}

// Use of an undirected edge (lo, hi) by a face: forward when the face runs lo -> hi.
struct EdgeUse {
  int face;
  bool forward;
};

/// Every undirected edge (lo, hi) between corners with the faces that use it.
using EdgeMap = std::map<std::pair<int, int>, std::vector<EdgeUse>>;

/// The first edge used by one face only (-1s if none) and how many there are.
struct BoundaryEdges {
  int count = 0;
  std::pair<int, int> first{-1, -1};
  int first_face = -1;
};

/// Bounding box of the surface nodes: its diagonal and centre.
struct Bounds {
  double diag;
  Vec3 centre;
};

/// Position of mesh node n.
Vec3 point(const Mesh& mesh, int n) {
  return Vec3(mesh.X[3 * size_t(n)], mesh.X[3 * size_t(n) + 1], mesh.X[3 * size_t(n) + 2]);
}

// Every node of a face: its corners, then its mid-nodes.
std::vector<int> face_nodes(const Face& F) {
  std::vector<int> all(F.n.begin(), F.n.begin() + F.size);
  if (F.quadratic()) all.insert(all.end(), F.mid.begin(), F.mid.end());
  return all;
}

/// The faces of the surface in global order: triangles, quads, then quadratic triangles.
std::vector<Face> collect_faces(const SurfaceGroup& surface, int nf) {
  std::vector<Face> faces;
  faces.reserve(static_cast<size_t>(nf));
  for (const auto& t : surface.triangles) faces.push_back({3, {t[0], t[1], t[2], -1}});
  for (const auto& q : surface.quads) faces.push_back({4, q});
  for (const auto& t : surface.triangles6) faces.push_back({3, {t[0], t[1], t[2], -1}, {t[3], t[4], t[5]}});
  return faces;
}

// Node indices and the bounding box of the surface nodes.
Bounds check_nodes(const Mesh& mesh, const SurfaceGroup& surface, const std::vector<Face>& faces,
                   const std::string& where) {
  const int nf = static_cast<int>(faces.size());
  const int num_nodes = mesh.num_nodes();
  Vec3 lo = Vec3::Constant(HUGE_VAL), hi = Vec3::Constant(-HUGE_VAL);
  for (int f = 0; f < nf; ++f) {
    for (int n : face_nodes(faces[size_t(f)])) {
      SOFTIK_CHECK(n >= 0 && n < num_nodes, where << label(surface, f) << " uses node " << n << ", outside the mesh's "
                                                  << num_nodes << " nodes; fix the surface's node indices");
      lo = lo.cwiseMin(point(mesh, n));
      hi = hi.cwiseMax(point(mesh, n));
    }
  }
  const double diag = (hi - lo).norm();
  const Vec3 centre = (lo + hi) / 2;
  return {diag, centre};
}

// Degenerate faces: a repeated node or (vector) area ~0 relative to the bounding box.
void check_degenerate_faces(const Mesh& mesh, const SurfaceGroup& surface, const std::vector<Face>& faces,
                            const std::string& where, double diag) {
  const int nf = static_cast<int>(faces.size());
  for (int f = 0; f < nf; ++f) {
    const Face& F = faces[size_t(f)];
    const std::vector<int> all = face_nodes(F);
    for (size_t a = 0; a < all.size(); ++a)
      for (size_t b = a + 1; b < all.size(); ++b)
        SOFTIK_CHECK(all[a] != all[b], where << label(surface, f) << " is degenerate: node " << all[a]
                                             << " appears twice; remove the face or fix its nodes");
    const Vec3 p0 = point(mesh, F.n[0]), p1 = point(mesh, F.n[1]), p2 = point(mesh, F.n[2]);
    const double area =
        F.size == 3 ? (p1 - p0).cross(p2 - p0).norm() / 2 : (p2 - p0).cross(point(mesh, F.n[3]) - p1).norm() / 2;
    SOFTIK_CHECK(area > 1e-14 * diag * diag,
                 where << label(surface, f) << " is degenerate: its area is " << area
                       << " (zero or not finite); remove the face or fix its node coordinates");
  }
}

// Edges (between corners): every undirected edge with the faces that use it and in which
// direction. Quadratic faces sharing an edge must share its mid-node too (else a crack).
EdgeMap collect_edges(const SurfaceGroup& surface, const std::vector<Face>& faces, const std::string& where) {
  const int nf = static_cast<int>(faces.size());
  EdgeMap edges;
  std::map<std::pair<int, int>, std::pair<int, int>> edge_mid;  // edge -> (mid-node, first face)
  for (int f = 0; f < nf; ++f) {
    const Face& F = faces[size_t(f)];
    for (int k = 0; k < F.size; ++k) {
      const int u = F.n[size_t(k)], v = F.n[size_t((k + 1) % F.size)];
      const std::pair<int, int> e{std::min(u, v), std::max(u, v)};
      edges[e].push_back({f, u < v});
      if (!F.quadratic()) continue;
      const auto [it, inserted] = edge_mid.insert({e, {F.mid[size_t(k)], f}});
      SOFTIK_CHECK(inserted || it->second.first == F.mid[size_t(k)],
                   where << label(surface, it->second.second) << " and " << label(surface, f) << " share edge "
                         << e.first << "-" << e.second << " but give it different mid-nodes (" << it->second.first
                         << " and " << F.mid[size_t(k)]
                         << "): the quadratic surface has a crack; give both faces the same mid-node");
    }
  }
  return edges;
}

/// Checks that no edge is shared by more than two faces and counts the boundary edges.
BoundaryEdges check_manifold(const SurfaceGroup& surface, const EdgeMap& edges, const std::string& where) {
  BoundaryEdges b;
  for (const auto& [e, uses] : edges) {
    SOFTIK_CHECK(uses.size() <= 2, where << "edge " << e.first << "-" << e.second << " is shared by " << uses.size()
                                         << " faces (" << label(surface, uses[0].face) << ", "
                                         << label(surface, uses[1].face) << ", " << label(surface, uses[2].face)
                                         << ", ...): the surface is non-manifold; a cavity wall may share each edge "
                                            "between two faces only, remove the extra faces");
    if (uses.size() == 1 && b.count++ == 0) {
      b.first = e;
      b.first_face = uses[0].face;
    }
  }
  return b;
}

/// Propagates relative orientations from face `start` over the faces connected to it: count[o] is
/// the number of faces with orientation o (0: that of `start`, 1: opposed). False when some face
/// would need both orientations (the part is not orientable).
bool propagate_orientation(const EdgeMap& edges, size_t num_faces, int start, int count[2]) {
  std::vector<std::vector<std::pair<int, int>>> adj(num_faces);  // (neighbour, 1 = opposed)
  for (const auto& [e2, u2] : edges)
    if (u2.size() == 2) {
      const int rel = u2[0].forward == u2[1].forward ? 1 : 0;
      adj[size_t(u2[0].face)].push_back({u2[1].face, rel});
      adj[size_t(u2[1].face)].push_back({u2[0].face, rel});
    }
  std::vector<int> o(num_faces, -1);
  std::queue<int> pending;
  o[size_t(start)] = 0;
  pending.push(start);
  bool orientable = true;
  while (!pending.empty()) {
    const int f = pending.front();
    pending.pop();
    ++count[o[size_t(f)]];
    for (const auto& [g, rel] : adj[size_t(f)]) {
      const int want = o[size_t(f)] ^ rel;
      if (o[size_t(g)] < 0) {
        o[size_t(g)] = want;
        pending.push(g);
      } else if (o[size_t(g)] != want) {
        orientable = false;
      }
    }
  }
  return orientable;
}

// Consistent winding: the two faces on an edge must run it in opposite directions.
void check_winding(const SurfaceGroup& surface, size_t num_faces, const EdgeMap& edges, const std::string& where) {
  for (const auto& [e, uses] : edges) {
    if (uses.size() != 2 || uses[0].forward != uses[1].forward) continue;
    // Propagate relative orientations over the part containing the first face to find the
    // smaller set of faces wound against the rest, and name the one of this pair in it.
    int count[2] = {0, 0};
    const bool orientable = propagate_orientation(edges, num_faces, uses[0].face, count);
    if (orientable)
      SOFTIK_CHECK(false, where << label(surface, uses[0].face) << " and " << label(surface, uses[1].face)
                                << " both run edge " << e.first << "-" << e.second
                                << " in the same direction (a flipped face): reverse "
                                << label(surface, count[1] <= count[0] ? uses[1].face : uses[0].face)
                                << " (swap its 2nd and last nodes); " << std::min(count[0], count[1])
                                << " face(s) are wound against their neighbours");
    SOFTIK_CHECK(false, where << label(surface, uses[0].face) << " and " << label(surface, uses[1].face)
                              << " both run edge " << e.first << "-" << e.second
                              << " in the same direction, and no choice of face windings fixes it "
                                 "(the surface is not orientable); rebuild the surface");
  }
}

// Signed volume about the bounding-box centre (origin-independent for a closed surface).
double signed_volume(const Mesh& mesh, const std::vector<Face>& faces, const Vec3& centre) {
  double volume = 0;
  auto tri_volume = [&](int a, int b, int c) {
    return fem::triangle_volume_contribution(point(mesh, a) - centre, point(mesh, b) - centre, point(mesh, c) - centre);
  };
  for (const Face& F : faces) {
    if (F.quadratic()) {  // the same rule as the pressure loads (fem/quadratic_pressure_load.hpp)
      const std::vector<int> all = face_nodes(F);
      Vec3 p[6];
      for (int a = 0; a < 6; ++a) p[a] = point(mesh, all[size_t(a)]) - centre;
      volume += fem::tri6_volume_contribution(p);
    } else if (F.size == 3) {
      volume += tri_volume(F.n[0], F.n[1], F.n[2]);
    } else {  // the same quad rule as the pressure loads (fem/pressure_load.hpp)
      volume += fem::quad_volume_contribution(point(mesh, F.n[0]) - centre, point(mesh, F.n[1]) - centre,
                                              point(mesh, F.n[2]) - centre, point(mesh, F.n[3]) - centre);
    }
  }
  return volume;
}

/// Checks that a closed surface with signed volume `volume` encloses a volume and, when it is wound
/// inward, reverses every face of `out` (if allowed). True when the faces were reversed.
bool orient_outward(SurfaceGroup& out, double volume, double diag, bool allow_flip, const std::string& where) {
  SOFTIK_CHECK(std::abs(volume) >= 1e-12 * diag * diag * diag,
               where << "the closed surface encloses no volume (" << volume << " for a bounding-box diagonal of "
                     << diag << "); it is flat or folded onto itself, fix the surface");
  if (volume >= 0) return false;
  SOFTIK_CHECK(allow_flip, where << "the surface is wound inward (signed volume " << volume
                                 << " < 0): face normals must point out of the cavity into the "
                                    "material; reverse all faces or allow flipping");
  for (auto& t : out.triangles) std::swap(t[1], t[2]);
  for (auto& q : out.quads) std::swap(q[1], q[3]);
  for (auto& t : out.triangles6) {  // corners 1 <-> 2, mid-nodes (0,1) <-> (2,0)
    std::swap(t[1], t[2]);
    std::swap(t[3], t[5]);
  }
  return true;
}

}  // namespace

SurfaceGroup check_surface(const Mesh& mesh, const SurfaceGroup& surface, const std::string& name, bool require_closed,
                           bool allow_flip, SurfaceReport* report) {
  const std::string where = "surface '" + name + "': ";
  const int nt = static_cast<int>(surface.triangles.size());
  const int nq = static_cast<int>(surface.quads.size());
  const int n6 = static_cast<int>(surface.triangles6.size());
  const int nf = nt + nq + n6;
  SOFTIK_CHECK(nf > 0, where << "the surface has no faces; give the cavity wall as "
                                "triangles, quads and/or quadratic triangles (node indices into the mesh)");

  const std::vector<Face> faces = collect_faces(surface, nf);
  const Bounds box = check_nodes(mesh, surface, faces, where);
  check_degenerate_faces(mesh, surface, faces, where, box.diag);
  const EdgeMap edges = collect_edges(surface, faces, where);
  const BoundaryEdges boundary = check_manifold(surface, edges, where);
  check_winding(surface, faces.size(), edges, where);

  SurfaceReport r;
  r.closed = boundary.count == 0;
  r.boundary_edges = boundary.count;
  r.num_triangles = nt + 2 * nq + n6;
  SOFTIK_CHECK(!require_closed || r.closed, where << "the cavity surface is not closed: edge " << boundary.first.first
                                                  << "-" << boundary.first.second << " is used only by "
                                                  << label(surface, boundary.first_face) << " (" << boundary.count
                                                  << " boundary edges in all); add the missing faces, or "
                                                     "do not require a closed surface");

  double volume = signed_volume(mesh, faces, box.centre);
  SurfaceGroup out = surface;
  if (r.closed && orient_outward(out, volume, box.diag, allow_flip, where)) {
    r.flipped = nf;
    volume = -volume;
  }
  r.volume = volume;
  if (report) *report = r;
  return out;
}

}  // namespace softik
