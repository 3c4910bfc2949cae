// The signed distance to a closed triangle-mesh obstacle (host/contact only).
#pragma once

#include <array>
#include <vector>

#include "host/contact/triangle_bvh.hpp"
#include "softik/contact.hpp"

namespace softik {
namespace contact {

/// A TriangleMesh obstacle prepared for distance queries: the BVH over its triangles and the
/// angle-weighted pseudo-normals of its faces, edges and vertices (Baerentzen & Aanaes 2005,
/// "Signed distance computation using the angle weighted pseudonormal"): the sign of
/// (p - c).N at the closest point c with N the pseudo-normal of c's feature is the side of p.
class MeshDistance {
 public:
  explicit MeshDistance(const Obstacle& obstacle);
  /// Signed distance of q (in the obstacle's own frame: the path offset already removed).
  ObstacleDistance distance(const Vec3r& q) const;
  /// The box around the vertices.
  const Aabb& bounds() const { return bvh_.bounds(); }

 private:
  Vec3r vertex(int v) const {
    return Vec3r(vertices_[3 * size_t(v)], vertices_[3 * size_t(v) + 1], vertices_[3 * size_t(v) + 2]);
  }
  const std::vector<Real>& vertices_;
  const std::vector<std::array<int, 3>>& triangles_;
  TriangleBvh bvh_;
  std::vector<Vec3r> face_normal_;    ///< unit, per triangle
  std::vector<Vec3r> edge_normal_;    ///< 3 per triangle: edges (a,b), (b,c), (c,a): sum of the two faces' normals
  std::vector<Vec3r> vertex_normal_;  ///< sum over incident faces of angle * face normal
};

}  // namespace contact
}  // namespace softik
