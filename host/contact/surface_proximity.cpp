// SurfaceProximity (contact.hpp): point-triangle proximity between deformable surfaces.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>

#include "host/contact/triangle_bvh.hpp"
#include "softik/contact.hpp"
#include "softik/error.hpp"

namespace softik {

struct SurfaceProximity::Impl {
  std::vector<std::array<int, 3>> triangles;
  std::vector<int> triangle_surface;
  bool self_contact = false;
  int num_nodes = 0;                  ///< 1 + the largest node index of the triangles
  std::vector<int> ring_start, ring;  ///< CSR: the edge neighbours of each node
  mutable std::mutex mutex;           ///< detect() refits the tree: one call at a time
  mutable contact::TriangleBvh bvh;
  mutable bool built = false;

  void build_rings();
  bool skipped(int tri, int node, int surface) const;
};

// The 1-ring of node n: every node sharing a triangle edge with n (sorted, unique).
void SurfaceProximity::Impl::build_rings() {
  std::vector<std::vector<int>> nb(static_cast<size_t>(num_nodes));
  for (const auto& t : triangles)
    for (int k = 0; k < 3; ++k) {
      nb[size_t(t[size_t(k)])].push_back(t[size_t((k + 1) % 3)]);
      nb[size_t(t[size_t((k + 1) % 3)])].push_back(t[size_t(k)]);
    }
  ring_start.assign(size_t(num_nodes) + 1, 0);
  for (int n = 0; n < num_nodes; ++n) {
    auto& v = nb[size_t(n)];
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    ring_start[size_t(n) + 1] = ring_start[size_t(n)] + int(v.size());
    ring.insert(ring.end(), v.begin(), v.end());
  }
}

// A triangle is never tested against one of its own nodes; on the node's own surface (self
// contact) neither is a triangle with a node in the node's 1-ring.
bool SurfaceProximity::Impl::skipped(int tri, int node, int surface) const {
  const auto& t = triangles[size_t(tri)];
  if (t[0] == node || t[1] == node || t[2] == node) return true;
  if (triangle_surface[size_t(tri)] != surface) return false;
  if (!self_contact) return true;
  if (node >= num_nodes) return false;
  const auto begin = ring.begin() + ring_start[size_t(node)], end = ring.begin() + ring_start[size_t(node) + 1];
  for (int v : t)
    if (std::binary_search(begin, end, v)) return true;
  return false;
}

SurfaceProximity::SurfaceProximity(std::vector<std::array<int, 3>> triangles, std::vector<int> triangle_surface,
                                   bool self_contact) {
  // Checked before anything is allocated: a constructor that throws runs no destructor.
  SOFTIK_CHECK(triangle_surface.size() == triangles.size(),
               "surface proximity: " << triangles.size() << " triangles but " << triangle_surface.size()
                                     << " surface ids; give one surface id per triangle");
  int num_nodes = 0;
  for (size_t t = 0; t < triangles.size(); ++t)
    for (int n : triangles[t]) {
      SOFTIK_CHECK(n >= 0,
                   "surface proximity: triangle " << t << " has node index " << n << "; give node indices >= 0");
      num_nodes = std::max(num_nodes, n + 1);
    }
  std::unique_ptr<Impl> impl = std::make_unique<Impl>();
  impl->num_nodes = num_nodes;
  impl_ = impl.release();
  impl_->triangles = std::move(triangles);
  impl_->triangle_surface = std::move(triangle_surface);
  impl_->self_contact = self_contact;
  impl_->build_rings();
}

SurfaceProximity::~SurfaceProximity() { delete impl_; }
SurfaceProximity::SurfaceProximity(SurfaceProximity&& o) noexcept : impl_(std::exchange(o.impl_, nullptr)) {}
SurfaceProximity& SurfaceProximity::operator=(SurfaceProximity&& o) noexcept {
  if (this != &o) {
    delete impl_;
    impl_ = std::exchange(o.impl_, nullptr);
  }
  return *this;
}

namespace {

Vec3r at(const std::vector<Real>& x, int n) {
  return Vec3r(x[3 * size_t(n)], x[3 * size_t(n) + 1], x[3 * size_t(n) + 2]);
}

void check_detect_input(const std::vector<int>& nodes, const std::vector<int>& node_surface, const std::vector<Real>& x,
                        int num_tri_nodes, Real contact_distance, Real alarm_distance, Real mu) {
  SOFTIK_CHECK(nodes.size() == node_surface.size(), "surface proximity: " << nodes.size() << " nodes but "
                                                                          << node_surface.size()
                                                                          << " node surface ids; give one per node");
  SOFTIK_CHECK(x.size() % 3 == 0 && int(x.size() / 3) >= num_tri_nodes,
               "surface proximity: the positions hold " << x.size() / 3 << " nodes but the triangles use "
                                                        << num_tri_nodes << "; pass the positions of the whole mesh");
  SOFTIK_CHECK(
      std::isfinite(contact_distance) && contact_distance >= 0 && std::isfinite(alarm_distance) && alarm_distance >= 0,
      "surface proximity: contact distance " << contact_distance << " and alarm distance " << alarm_distance
                                             << " must be finite and >= 0");
  SOFTIK_CHECK(std::isfinite(mu) && mu >= 0, "surface proximity: friction coefficient " << mu << "; give mu >= 0");
  for (int n : nodes)
    SOFTIK_CHECK(n >= 0 && 3 * size_t(n) + 2 < x.size(),
                 "surface proximity: node " << n << " is outside the positions; give node indices of the mesh");
  for (Real v : x) SOFTIK_CHECK(std::isfinite(v), "surface proximity: a position is not finite; the motion diverged");
}

// Distances within a relative kTie of each other are ties (a closest point on an edge or a
// vertex shared by several triangles): the triangle facing p most directly wins, i.e. the
// largest alignment |(p - c).n| / |p - c|, then the lowest index.
constexpr Real kTie = 1e-10;

struct Candidate {
  int triangle = -1;
  Real d2 = 0;
  Real alignment = 0;
  Vec3r normal = Vec3r::Zero();
  contact::TrianglePoint closest;
  bool better_than(const Candidate& o) const {
    if (o.triangle < 0) return true;
    if (d2 < o.d2 * (1 - kTie)) return true;
    if (d2 > o.d2 * (1 + kTie)) return false;
    if (alignment != o.alignment) return alignment > o.alignment;
    return triangle < o.triangle;
  }
};

}  // namespace

// Per node: the closest admissible triangle (Euclidean distance |p - c|, c = sum w_i x_i its
// closest point, ties as in Candidate) within contact_distance + alarm_distance;
// normal n = (x1 - x0) x (x2 - x0) / |.| (right-hand rule), gap = (p - c).n - contact_distance.
std::vector<ContactPoint> SurfaceProximity::detect(const std::vector<int>& nodes, const std::vector<int>& node_surface,
                                                   const std::vector<Real>& x, Real contact_distance,
                                                   Real alarm_distance, Real mu) const {
  const Impl& m = *impl_;
  check_detect_input(nodes, node_surface, x, m.num_nodes, contact_distance, alarm_distance, mu);
  std::lock_guard<std::mutex> lock(m.mutex);
  if (!m.built) {
    m.bvh.build(m.triangles, x.data());
    m.built = true;
  } else {
    m.bvh.refit(m.triangles, x.data());
  }
  const Real threshold = contact_distance + alarm_distance;
  std::vector<ContactPoint> contacts;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int node = nodes[i];
    const Vec3r p = at(x, node);
    Real bound2 = threshold * threshold;
    Candidate best;
    m.bvh.nearest(p, bound2, [&](int t) {
      if (m.skipped(t, node, node_surface[i])) return;
      const auto& tri = m.triangles[size_t(t)];
      Candidate c;
      c.triangle = t;
      c.normal = (at(x, tri[1]) - at(x, tri[0])).cross(at(x, tri[2]) - at(x, tri[0]));
      if (!(c.normal.norm() > 0)) return;  // a collapsed triangle has no normal
      c.normal.normalize();
      c.closest = contact::closest_point_on_triangle(p, at(x, tri[0]), at(x, tri[1]), at(x, tri[2]));
      c.d2 = (p - c.closest.point).squaredNorm();
      c.alignment = c.d2 > 0 ? std::abs((p - c.closest.point).dot(c.normal)) / std::sqrt(c.d2) : 1;
      if (c.d2 >= threshold * threshold || !c.better_than(best)) return;
      best = c;
      bound2 = std::min(threshold * threshold, best.d2 * (1 + 4 * kTie));
    });
    if (best.triangle < 0) continue;
    const int found = best.triangle;
    const auto& tri = m.triangles[size_t(found)];
    ContactPoint c;
    c.node = node;
    c.obstacle = -1;
    c.triangle = tri;
    c.barycentric = best.closest.barycentric;
    c.normal = best.normal;
    tangent_frame(c.normal, c.t1, c.t2);
    c.gap = (p - best.closest.point).dot(c.normal) - contact_distance;
    c.friction = mu;
    contacts.push_back(c);
  }
  return contacts;
}

}  // namespace softik
