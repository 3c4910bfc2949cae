// MeshDistance (mesh_obstacle.hpp) and load_obstacle_mesh().
#include "host/contact/mesh_obstacle.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "softik/error.hpp"
#include "softik/mesh_io.hpp"

namespace softik {
namespace contact {

MeshDistance::MeshDistance(const Obstacle& obstacle) : vertices_(obstacle.vertices), triangles_(obstacle.triangles) {
  const size_t nt = triangles_.size();
  face_normal_.resize(nt);
  edge_normal_.assign(3 * nt, Vec3r::Zero());
  vertex_normal_.assign(vertices_.size() / 3, Vec3r::Zero());
  std::map<std::pair<int, int>, std::vector<size_t>> edge_uses;  // undirected edge -> 3*t + k
  for (size_t t = 0; t < nt; ++t) {
    const auto& tri = triangles_[t];
    const Vec3r p[3] = {vertex(tri[0]), vertex(tri[1]), vertex(tri[2])};
    // n_f = (b - a) x (c - a) / |(b - a) x (c - a)|  (right-hand rule: out of the obstacle)
    const Vec3r cross = (p[1] - p[0]).cross(p[2] - p[0]);
    const Real area2 = cross.norm();
    face_normal_[t] = area2 > 0 ? Vec3r(cross / area2) : Vec3r::Zero();
    for (int k = 0; k < 3; ++k) {
      // Vertex pseudo-normal: N_v = sum_f alpha_f n_f, alpha_f the face's angle at v.
      const Vec3r e1 = p[(k + 1) % 3] - p[k], e2 = p[(k + 2) % 3] - p[k];
      const Real alpha = std::atan2(e1.cross(e2).norm(), e1.dot(e2));
      vertex_normal_[size_t(tri[size_t(k)])] += alpha * face_normal_[t];
      const int a = tri[size_t(k)], b = tri[size_t((k + 1) % 3)];
      edge_uses[{std::min(a, b), std::max(a, b)}].push_back(3 * t + size_t(k));
    }
  }
  // Edge pseudo-normal: N_e = n_f1 + n_f2 over the two faces sharing the edge.
  for (const auto& use : edge_uses) {
    Vec3r sum = Vec3r::Zero();
    for (size_t slot : use.second) sum += face_normal_[slot / 3];
    for (size_t slot : use.second) edge_normal_[slot] = sum;
  }
  bvh_.build(triangles_, vertices_.data());
}

ObstacleDistance MeshDistance::distance(const Vec3r& q) const {
  Real best2 = std::numeric_limits<Real>::infinity();
  int best = -1;
  TrianglePoint best_point;
  bvh_.nearest(q, best2, [&](int t) {
    const auto& tri = triangles_[size_t(t)];
    const TrianglePoint c = closest_point_on_triangle(q, vertex(tri[0]), vertex(tri[1]), vertex(tri[2]));
    const Real d2 = (q - c.point).squaredNorm();
    if (d2 < best2 || (d2 == best2 && t < best)) {
      best2 = d2;
      best = t;
      best_point = c;
    }
  });
  SOFTIK_CHECK_KIND(best >= 0, ErrorKind::Internal, "mesh obstacle without triangles");
  const auto& tri = triangles_[size_t(best)];
  Vec3r pseudo;
  switch (best_point.region) {
    case TriangleRegion::VertexA:
      pseudo = vertex_normal_[size_t(tri[0])];
      break;
    case TriangleRegion::VertexB:
      pseudo = vertex_normal_[size_t(tri[1])];
      break;
    case TriangleRegion::VertexC:
      pseudo = vertex_normal_[size_t(tri[2])];
      break;
    case TriangleRegion::EdgeAB:
      pseudo = edge_normal_[3 * size_t(best)];
      break;
    case TriangleRegion::EdgeBC:
      pseudo = edge_normal_[3 * size_t(best) + 1];
      break;
    case TriangleRegion::EdgeCA:
      pseudo = edge_normal_[3 * size_t(best) + 2];
      break;
    default:
      pseudo = face_normal_[size_t(best)];
      break;
  }
  ObstacleDistance r;
  r.point = best_point.point;
  const Vec3r v = q - best_point.point;
  const Real len = v.norm();
  // A point on the surface (to round-off of the obstacle's size) takes the face normal.
  const Real scale = (bounds().hi - bounds().lo).norm();
  if (len <= 1e-14 * scale) {
    r.distance = 0;
    r.normal = face_normal_[size_t(best)];
    return r;
  }
  const bool inside = v.dot(pseudo) < 0;
  r.distance = inside ? -len : len;
  r.normal = (inside ? -v : v) / len;
  return r;
}

}  // namespace contact

Obstacle load_obstacle_mesh(const std::string& path, const std::string& name) {
  const SurfaceMesh surface = read_surface(path);
  Obstacle obstacle;
  obstacle.name = name;
  obstacle.shape = ObstacleShape::TriangleMesh;
  obstacle.vertices = surface.X;
  obstacle.triangles = surface.triangles;
  try {
    validate(obstacle);
  } catch (const Error& e) {
    throw Error("file '" + path + "': " + e.what(), e.kind(), e.source());
  }
  return obstacle;
}

}  // namespace softik
