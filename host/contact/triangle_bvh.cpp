// closest_point_on_triangle() and the TriangleBvh (triangle_bvh.hpp).
#include "host/contact/triangle_bvh.hpp"

#include <algorithm>
#include <cmath>

namespace softik {
namespace contact {

namespace {

constexpr int kLeafSize = 4;
constexpr int kMaxDepth = 60;

Vec3r node_position(const Real* x, int n) {
  return Vec3r(x[3 * size_t(n)], x[3 * size_t(n) + 1], x[3 * size_t(n) + 2]);
}

TrianglePoint make_point(const Vec3r& a, const Vec3r& b, const Vec3r& c, Real u, Real v, Real w,
                         TriangleRegion region) {
  TrianglePoint r;
  r.barycentric = {{u, v, w}};
  r.point = u * a + v * b + w * c;
  r.region = region;
  return r;
}

}  // namespace

// Ericson 5.1.5: with ab = b - a, ac = c - a and d1 = ab.ap, d2 = ac.ap (ap = p - a),
// d3 = ab.bp, d4 = ac.bp, d5 = ab.cp, d6 = ac.cp, the region tests are
// vertex a: d1 <= 0, d2 <= 0;  vertex b: d3 >= 0, d4 <= d3;  vertex c: d6 >= 0, d5 <= d6;
// edge ab: vc = d1 d4 - d3 d2 <= 0, d1 >= 0, d3 <= 0 (t = d1 / (d1 - d3));
// edge ac: vb = d5 d2 - d1 d6 <= 0, d2 >= 0, d6 <= 0 (t = d2 / (d2 - d6));
// edge bc: va = d3 d6 - d5 d4 <= 0, d4 - d3 >= 0, d5 - d6 >= 0 (t = (d4 - d3) / ((d4 - d3) + (d5 - d6)));
// else the face with v = vb / (va + vb + vc), w = vc / (va + vb + vc).
TrianglePoint closest_point_on_triangle(const Vec3r& p, const Vec3r& a, const Vec3r& b, const Vec3r& c) {
  const Vec3r ab = b - a, ac = c - a, ap = p - a;
  const Real d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return make_point(a, b, c, 1, 0, 0, TriangleRegion::VertexA);
  const Vec3r bp = p - b;
  const Real d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return make_point(a, b, c, 0, 1, 0, TriangleRegion::VertexB);
  const Real vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const Real t = d1 / (d1 - d3);
    return make_point(a, b, c, 1 - t, t, 0, TriangleRegion::EdgeAB);
  }
  const Vec3r cp = p - c;
  const Real d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return make_point(a, b, c, 0, 0, 1, TriangleRegion::VertexC);
  const Real vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const Real t = d2 / (d2 - d6);
    return make_point(a, b, c, 1 - t, 0, t, TriangleRegion::EdgeCA);
  }
  const Real va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const Real t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return make_point(a, b, c, 0, 1 - t, t, TriangleRegion::EdgeBC);
  }
  const Real denom = 1 / (va + vb + vc);
  const Real v = vb * denom, w = vc * denom;
  return make_point(a, b, c, 1 - v - w, v, w, TriangleRegion::Face);
}

void TriangleBvh::build(const std::vector<std::array<int, 3>>& triangles, const Real* x) {
  nodes_.clear();
  order_.resize(triangles.size());
  if (triangles.empty()) return;
  std::vector<Vec3r> centroid(triangles.size());
  for (size_t t = 0; t < triangles.size(); ++t) {
    order_[t] = int(t);
    const auto& tri = triangles[t];
    centroid[t] = (node_position(x, tri[0]) + node_position(x, tri[1]) + node_position(x, tri[2])) / 3;
  }
  nodes_.reserve(2 * triangles.size() / kLeafSize + 2);
  nodes_.emplace_back();
  split(0, 0, int(triangles.size()), centroid, 0);
  refit(triangles, x);
}

// Median split of order_[begin, end) along the longest axis of the centroids' box; the two
// children are appended side by side, so every child has a larger index than its parent.
int TriangleBvh::split(int node, int begin, int end, const std::vector<Vec3r>& centroid, int depth) {
  if (end - begin <= kLeafSize || depth >= kMaxDepth) {
    nodes_[size_t(node)].first = begin;
    nodes_[size_t(node)].count = end - begin;
    return node;
  }
  Aabb box;
  for (int k = begin; k < end; ++k) box.grow(centroid[size_t(order_[size_t(k)])]);
  int axis = 0;
  (box.hi - box.lo).maxCoeff(&axis);
  const int mid = begin + (end - begin) / 2;
  std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end, [&](int l, int r) {
    const Real cl = centroid[size_t(l)][axis], cr = centroid[size_t(r)][axis];
    return cl < cr || (cl == cr && l < r);
  });
  const int left = int(nodes_.size());
  nodes_.emplace_back();
  nodes_.emplace_back();
  nodes_[size_t(node)].first = left;
  nodes_[size_t(node)].count = 0;
  split(left, begin, mid, centroid, depth + 1);
  split(left + 1, mid, end, centroid, depth + 1);
  return node;
}

void TriangleBvh::refit(const std::vector<std::array<int, 3>>& triangles, const Real* x) {
  for (size_t i = nodes_.size(); i-- > 0;) {
    Node& node = nodes_[i];
    node.box = Aabb();
    if (node.count > 0) {
      for (int k = 0; k < node.count; ++k)
        for (int n : triangles[size_t(order_[size_t(node.first + k)])]) node.box.grow(node_position(x, n));
    } else {
      for (int child : {node.first, node.first + 1}) {
        node.box.grow(nodes_[size_t(child)].box.lo);
        node.box.grow(nodes_[size_t(child)].box.hi);
      }
    }
  }
}

}  // namespace contact
}  // namespace softik
