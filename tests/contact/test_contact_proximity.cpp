// SurfaceProximity (contact.hpp) and the point-triangle closest point under it: a random
// triangulated sphere against a second, displaced sphere, the BVH answer against brute force
// over every triangle (also with self contact and after the surfaces move), and the gap sign.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <Eigen/Geometry>

#include "softik/contact.hpp"
#include "softik/error.hpp"
#include "tests/node_coordinates.hpp"

namespace softik {
namespace {

using Tri = std::array<int, 3>;

// A UV sphere of radius r at c with nodes from `first`, wound outward; nodes jittered by `jitter`.
void add_sphere(std::vector<Real>& x, std::vector<Tri>& tris, Vec3r c, Real r, int rings, int segs, Real jitter,
                std::mt19937& rng) {
  std::uniform_real_distribution<Real> u(-jitter, jitter);
  const int first = int(x.size() / 3);
  auto push = [&](const Vec3r& p) { x.insert(x.end(), {p[0] + u(rng), p[1] + u(rng), p[2] + u(rng)}); };
  push(c + Vec3r(0, 0, r));
  for (int i = 1; i < rings; ++i)
    for (int j = 0; j < segs; ++j) {
      const Real th = M_PI * i / rings, ph = 2 * M_PI * j / segs;
      push(c + r * Vec3r(std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), std::cos(th)));
    }
  push(c - Vec3r(0, 0, r));
  const int south = first + 1 + (rings - 1) * segs;
  auto ring = [&](int i, int j) { return first + 1 + (i - 1) * segs + (j % segs); };
  for (int j = 0; j < segs; ++j) {
    tris.push_back({first, ring(1, j), ring(1, j + 1)});
    tris.push_back({south, ring(rings - 1, j + 1), ring(rings - 1, j)});
    for (int i = 1; i + 1 < rings; ++i) {
      tris.push_back({ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)});
      tris.push_back({ring(i, j), ring(i + 1, j + 1), ring(i, j + 1)});
    }
  }
}

// Closest point on a triangle by brute force: the face projection when inside, else the
// nearest point of the three edges (each clamped).
Vec3r closest_reference(const Vec3r& p, const Vec3r& a, const Vec3r& b, const Vec3r& c) {
  const Vec3r n = (b - a).cross(c - a).normalized();
  const Vec3r q = p - n.dot(p - a) * n;
  const auto inside = [&](const Vec3r& u, const Vec3r& v) { return (v - u).cross(q - u).dot(n) >= 0; };
  if (inside(a, b) && inside(b, c) && inside(c, a)) return q;
  Vec3r best = a;
  for (const auto& e : {std::make_pair(a, b), std::make_pair(b, c), std::make_pair(c, a)}) {
    const Vec3r d = e.second - e.first;
    const Real t = std::clamp((p - e.first).dot(d) / d.squaredNorm(), Real(0), Real(1));
    const Vec3r s = e.first + t * d;
    if ((p - s).norm() < (p - best).norm()) best = s;
  }
  return best;
}

// Brute force: the closest admissible triangle of each node within the threshold.
std::vector<ContactPoint> brute_force(const std::vector<Tri>& tris, const std::vector<int>& tri_surface, bool self,
                                      const std::vector<int>& nodes, const std::vector<int>& node_surface,
                                      const std::vector<Real>& x, Real dc, Real da) {
  std::vector<std::vector<int>> ring(x.size() / 3);
  for (const Tri& t : tris)
    for (int k = 0; k < 3; ++k)
      ring[size_t(t[size_t(k)])].push_back(t[size_t((k + 1) % 3)]),
          ring[size_t(t[size_t((k + 1) % 3)])].push_back(t[size_t(k)]);
  std::vector<ContactPoint> out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Vec3r p = node_at(x, nodes[i]);
    const Real limit = (dc + da) * (dc + da);
    Real best = limit, best_align = 0;
    int best_t = -1;
    Vec3r best_c = Vec3r::Zero();
    for (size_t t = 0; t < tris.size(); ++t) {
      const Tri& tri = tris[t];
      const bool own = tri[0] == nodes[i] || tri[1] == nodes[i] || tri[2] == nodes[i];
      bool near_ring = false;
      for (int v : tri)
        for (int r : ring[size_t(nodes[i])]) near_ring = near_ring || v == r;
      if (own || (tri_surface[t] == node_surface[i] && (!self || near_ring))) continue;
      const Vec3r c = closest_reference(p, node_at(x, tri[0]), node_at(x, tri[1]), node_at(x, tri[2]));
      const Vec3r n =
          (node_at(x, tri[1]) - node_at(x, tri[0])).cross(node_at(x, tri[2]) - node_at(x, tri[0])).normalized();
      const Real d2 = (p - c).squaredNorm(), align = std::abs((p - c).normalized().dot(n));
      if (d2 >= limit) continue;
      // Ties (a shared edge or vertex): the triangle facing p most directly.
      const bool tie = best_t >= 0 && std::abs(d2 - best) <= 1e-9 * best;
      if ((!tie && d2 < best) || (tie && align > best_align + 1e-12))
        best = d2, best_t = int(t), best_c = c, best_align = align;
    }
    if (best_t < 0) continue;
    const Tri& tri = tris[size_t(best_t)];
    ContactPoint cp;
    cp.node = nodes[i];
    cp.triangle = tri;
    cp.normal = (node_at(x, tri[1]) - node_at(x, tri[0])).cross(node_at(x, tri[2]) - node_at(x, tri[0])).normalized();
    cp.gap = (p - best_c).dot(cp.normal) - dc;
    out.push_back(cp);
  }
  return out;
}

void expect_same(const std::vector<ContactPoint>& got, const std::vector<ContactPoint>& want,
                 const std::vector<Real>& x) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].node, want[k].node);
    EXPECT_EQ(got[k].triangle, want[k].triangle) << "node " << got[k].node;
    EXPECT_NEAR(got[k].gap, want[k].gap, 1e-12);
    EXPECT_LT((got[k].normal - want[k].normal).norm(), 1e-12);
    Vec3r c = Vec3r::Zero();
    for (int j = 0; j < 3; ++j) c += got[k].barycentric[size_t(j)] * node_at(x, got[k].triangle[size_t(j)]);
    EXPECT_NEAR((node_at(x, got[k].node) - c).dot(got[k].normal), got[k].gap + 0.01, 1e-12);
    EXPECT_EQ(got[k].obstacle, -1);
    EXPECT_EQ(got[k].friction, 0.3);
  }
}

TEST(ContactProximity, BvhMatchesBruteForceOnRandomSpheres) {
  std::mt19937 rng(17);
  std::vector<Real> x;
  std::vector<Tri> tris;
  add_sphere(x, tris, Vec3r(0, 0, 0), 1.0, 14, 24, 0.02, rng);
  const size_t first_b = tris.size();
  const int nodes_a = int(x.size() / 3);
  add_sphere(x, tris, Vec3r(1.85, 0.1, 0.05), 0.9, 12, 20, 0.02, rng);
  std::vector<int> tri_surface(tris.size(), 0);
  for (size_t t = first_b; t < tris.size(); ++t) tri_surface[t] = 1;
  std::vector<int> nodes, node_surface;
  for (int n = 0; n < int(x.size() / 3); ++n) nodes.push_back(n), node_surface.push_back(n < nodes_a ? 0 : 1);
  for (bool self : {false, true}) {
    SurfaceProximity prox(tris, tri_surface, self);
    auto got = prox.detect(nodes, node_surface, x, 0.01, 0.2, 0.3);
    auto want = brute_force(tris, tri_surface, self, nodes, node_surface, x, 0.01, 0.2);
    EXPECT_GT(want.size(), 20u);
    expect_same(got, want, x);
    // Move the second sphere into the first (refit, same tree): some gaps become negative.
    std::vector<Real> moved = x;
    for (size_t n = size_t(nodes_a); n < moved.size() / 3; ++n) moved[3 * n] -= 0.1;
    got = prox.detect(nodes, node_surface, moved, 0.01, 0.2, 0.3);
    want = brute_force(tris, tri_surface, self, nodes, node_surface, moved, 0.01, 0.2);
    expect_same(got, want, moved);
    bool penetrating = false;
    for (const auto& c : got) penetrating = penetrating || c.gap < 0;
    EXPECT_TRUE(penetrating);
  }
}

TEST(ContactProximity, GapSignFollowsTheTriangleWinding) {
  const std::vector<Real> x = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, 0.05, 0.2, 0.2, -0.03};
  SurfaceProximity prox({{0, 1, 2}}, {0});
  const auto c = prox.detect({3, 4}, {1, 1}, x, 0.01, 0.1, 0.5);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_NEAR(c[0].gap, 0.04, 1e-15);
  EXPECT_NEAR(c[1].gap, -0.04, 1e-15);
  EXPECT_LT((c[0].normal - Vec3r::UnitZ()).norm(), 1e-15);
  EXPECT_NEAR(c[0].barycentric[1], 0.2, 1e-15);
  EXPECT_NEAR(c[0].barycentric[2], 0.2, 1e-15);
  // Nodes of the same surface are ignored without self contact.
  EXPECT_TRUE(prox.detect({3}, {0}, x, 0.01, 0.1, 0.5).empty());
}

TEST(ContactProximity, BadInputThrows) {
  EXPECT_THROW(SurfaceProximity({{0, 1, 2}}, {}), Error);
  EXPECT_THROW(SurfaceProximity({{0, -1, 2}}, {0}), Error);
  SurfaceProximity prox({{0, 1, 2}}, {0});
  const std::vector<Real> x = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  EXPECT_THROW(prox.detect({3}, {}, x, 0.01, 0.1, 0.5), Error);
  EXPECT_THROW(prox.detect({5}, {1}, x, 0.01, 0.1, 0.5), Error);
  EXPECT_THROW(prox.detect({3}, {1}, x, 0.01, 0.1, -1), Error);
  EXPECT_THROW(prox.detect({3}, {1}, std::vector<Real>(6, 0.0), 0.01, 0.1, 0.5), Error);
}

}  // namespace
}  // namespace softik
