// Closest points on triangles and an AABB tree over triangles (host/contact only).
//
// The tree's topology is built once from positions (median split of the centroids along the
// longest axis); refit() recomputes its boxes from new positions bottom-up in O(T), so a
// deforming surface keeps the same tree. nearest() visits the leaves whose boxes are within the
// caller's shrinking bound, nearer child first.
#pragma once

#include <array>
#include <cmath>
#include <vector>

#include <Eigen/Dense>

#include "softik/contact.hpp"

namespace softik {
namespace contact {

/// Which feature of triangle (a, b, c) holds the closest point.
enum class TriangleRegion { VertexA, VertexB, VertexC, EdgeAB, EdgeBC, EdgeCA, Face };

struct TrianglePoint {
  Vec3r point = Vec3r::Zero();
  std::array<Real, 3> barycentric{{0, 0, 0}};  ///< point = w0 a + w1 b + w2 c
  TriangleRegion region = TriangleRegion::Face;
};

/// The closest point of triangle (a, b, c) to p by Voronoi regions (Ericson, Real-Time Collision
/// Detection, 5.1.5): vertex regions, edge regions (d = (p - a).(b - a) etc.), else the face
/// with v = vb / (va + vb + vc), w = vc / (va + vb + vc).
TrianglePoint closest_point_on_triangle(const Vec3r& p, const Vec3r& a, const Vec3r& b, const Vec3r& c);

/// An axis-aligned box; dist2 is the squared distance of p to it (0 inside).
struct Aabb {
  Vec3r lo = Vec3r::Constant(HUGE_VAL);
  Vec3r hi = Vec3r::Constant(-HUGE_VAL);
  void grow(const Vec3r& p) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  Real dist2(const Vec3r& p) const {
    const Vec3r d = (lo - p).cwiseMax(p - hi).cwiseMax(Vec3r::Zero());
    return d.squaredNorm();
  }
};

class TriangleBvh {
 public:
  /// Builds the tree over `triangles` (indices into x, 3 coordinates per node).
  void build(const std::vector<std::array<int, 3>>& triangles, const Real* x);
  /// Recomputes every box from positions x (same triangles as build()).
  void refit(const std::vector<std::array<int, 3>>& triangles, const Real* x);
  bool empty() const { return nodes_.empty(); }
  const Aabb& bounds() const { return nodes_.front().box; }

  /// Calls leaf(triangle) for every triangle whose leaf box lies within sqrt(bound2) of p;
  /// leaf may lower bound2 (the best squared distance so far) to prune the rest.
  template <class Leaf>
  void nearest(const Vec3r& p, Real& bound2, Leaf&& leaf) const {
    if (nodes_.empty()) return;
    int stack[128];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Node& node = nodes_[size_t(stack[--top])];
      if (node.box.dist2(p) > bound2) continue;
      if (node.count > 0) {
        for (int k = 0; k < node.count; ++k) leaf(order_[size_t(node.first + k)]);
        continue;
      }
      const int l = node.first, r = node.first + 1;  // children are stored side by side
      const Real dl = nodes_[size_t(l)].box.dist2(p), dr = nodes_[size_t(r)].box.dist2(p);
      // Push the farther child first so that the nearer one is visited first.
      stack[top++] = dl <= dr ? r : l;
      stack[top++] = dl <= dr ? l : r;
    }
  }

 private:
  struct Node {
    Aabb box;
    int first = 0;  ///< leaf: first entry of order_; inner node: index of the left child
    int count = 0;  ///< leaf: number of triangles; inner node: 0
  };
  int split(int node, int begin, int end, const std::vector<Vec3r>& centroid, int depth);
  std::vector<Node> nodes_;
  std::vector<int> order_;
};

}  // namespace contact
}  // namespace softik
