// Rigid obstacles (contact.hpp): names, prescribed paths, validation and exact signed distances
// of the plane, sphere, box and capped cylinder (the triangle mesh is in mesh_obstacle.cpp).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

#include "host/contact/mesh_obstacle.hpp"
#include "softik/contact.hpp"
#include "softik/error.hpp"
#include "softik/surface.hpp"

namespace softik {

namespace {

std::string label(const Obstacle& o) { return "obstacle '" + o.name + "' (" + obstacle_shape_name(o.shape) + "): "; }

std::string text(const Vec3r& v) {
  std::ostringstream s;
  s << "(" << v[0] << ", " << v[1] << ", " << v[2] << ")";
  return s.str();
}

void check_unit(const Obstacle& o, const Vec3r& v, const char* what) {
  SOFTIK_CHECK(v.allFinite(), label(o) << what << " " << text(v) << " is not finite; give a unit vector");
  SOFTIK_CHECK(std::abs(v.norm() - 1) <= 1e-9, label(o) << what << " " << text(v) << " has length " << v.norm()
                                                        << "; give a unit vector (divide it by its length)");
}

void check_positive(const Obstacle& o, Real value, const char* what) {
  SOFTIK_CHECK(std::isfinite(value) && value > 0, label(o)
                                                      << what << " is " << value << "; give a finite positive length");
}

void check_path(const Obstacle& o) {
  SOFTIK_CHECK(o.path_times.size() == o.path_offsets.size(), label(o) << "the path has " << o.path_times.size()
                                                                      << " times but " << o.path_offsets.size()
                                                                      << " offsets; give one offset per time");
  for (size_t k = 0; k < o.path_times.size(); ++k) {
    SOFTIK_CHECK(std::isfinite(o.path_times[k]) && o.path_offsets[k].allFinite(),
                 label(o) << "path point " << k << " (time " << o.path_times[k] << ", offset "
                          << text(o.path_offsets[k]) << ") is not finite; give finite times and offsets");
    SOFTIK_CHECK(k == 0 || o.path_times[k] > o.path_times[k - 1],
                 label(o) << "path time " << k << " (" << o.path_times[k] << ") does not exceed time " << k - 1 << " ("
                          << o.path_times[k - 1] << "); give strictly increasing path times");
  }
}

void check_mesh(const Obstacle& o) {
  SOFTIK_CHECK(!o.triangles.empty() && !o.vertices.empty() && o.vertices.size() % 3 == 0,
               label(o) << "the mesh has " << o.vertices.size() << " vertex coordinates and " << o.triangles.size()
                        << " triangles; give 3 coordinates per vertex and at least one closed surface");
  for (size_t i = 0; i < o.vertices.size(); ++i)
    SOFTIK_CHECK(std::isfinite(o.vertices[i]), label(o) << "vertex " << i / 3 << " has a non-finite coordinate ("
                                                        << o.vertices[i] << "); fix the mesh");
  Mesh mesh;
  mesh.X = o.vertices;
  SurfaceGroup surface;
  surface.triangles = o.triangles;
  try {
    check_surface(mesh, surface, o.name, /*require_closed=*/true, /*allow_flip=*/false);
  } catch (const Error& e) {
    throw Error(
        label(o) + e.what() + " (an obstacle mesh must be closed and wound with its normals out of the obstacle)",
        e.kind(), e.source());
  }
}

// Plane: d = n.(p - c), closest point p - d n.
ObstacleDistance plane_distance(const Obstacle& o, const Vec3r& p) {
  ObstacleDistance r;
  r.distance = o.normal.dot(p - o.center);
  r.point = p - r.distance * o.normal;
  r.normal = o.normal;
  return r;
}

// Sphere: d = |p - c| - R, n = (p - c)/|p - c| (+z at the centre), closest point c + R n.
ObstacleDistance sphere_distance(const Obstacle& o, const Vec3r& p) {
  ObstacleDistance r;
  const Vec3r v = p - o.center;
  const Real len = v.norm();
  r.normal = len > 0 ? Vec3r(v / len) : Vec3r::UnitZ();
  r.distance = len - o.radius;
  r.point = o.center + o.radius * r.normal;
  return r;
}

// Box, in its frame q = R^T (p - c): outside, d = |q - clamp(q, -h, h)| with the clamp the
// closest point; inside, d = max_i (|q_i| - h_i) (the nearest face k, ties to the lowest k),
// closest point q with q_k = sign(q_k) h_k, normal sign(q_k) e_k.
ObstacleDistance box_distance(const Obstacle& o, const Vec3r& p) {
  const Vec3r q = o.rotation.transpose() * (p - o.center);
  const Vec3r& h = o.half_extents;
  const Vec3r clamped = q.cwiseMax(-h).cwiseMin(h);
  const Vec3r out = q - clamped;
  ObstacleDistance r;
  if ((q.cwiseAbs() - h).maxCoeff() > 0) {
    r.distance = out.norm();
    r.point = o.center + o.rotation * clamped;
    r.normal = o.rotation * (out / r.distance);
    return r;
  }
  int k = 0;
  r.distance = (q.cwiseAbs() - h).maxCoeff(&k);
  const Real side = q[k] < 0 ? -1 : 1;
  Vec3r c = q;
  c[k] = side * h[k];
  r.point = o.center + o.rotation * c;
  r.normal = side * o.rotation.col(k);
  return r;
}

// Capped cylinder with z = a.(p - c), radial v = p - c - z a, r = |v|, u = v / r:
// dr = r - R, dz = |z| - L. Outside (dr > 0 or dz > 0): d = sqrt(max(dr,0)^2 + max(dz,0)^2),
// closest point c + clamp(z, -L, L) a + min(r, R) u. Inside: d = max(dr, dz); the side
// (point c + z a + R u, normal u) when dr > dz, else the cap (c + sign(z) L a + v, sign(z) a).
ObstacleDistance cylinder_distance(const Obstacle& o, const Vec3r& p) {
  const Vec3r w = p - o.center;
  const Real z = o.axis.dot(w);
  const Vec3r v = w - z * o.axis;
  const Real rr = v.norm();
  Vec3r u, spare;
  if (rr > 0) {
    u = v / rr;
  } else {
    tangent_frame(o.axis, u, spare);
  }
  const Real dr = rr - o.radius, dz = std::abs(z) - o.half_length;
  const Real side = z < 0 ? -1 : 1;
  ObstacleDistance r;
  if (dr > 0 || dz > 0) {
    r.distance = std::hypot(std::max(dr, Real(0)), std::max(dz, Real(0)));
    r.point = o.center + std::clamp(z, -o.half_length, o.half_length) * o.axis + std::min(rr, o.radius) * u;
    r.normal = (p - r.point) / r.distance;
  } else if (dr > dz) {
    r.distance = dr;
    r.point = o.center + z * o.axis + o.radius * u;
    r.normal = u;
  } else {
    r.distance = dz;
    r.point = o.center + side * o.half_length * o.axis + v;
    r.normal = side * o.axis;
  }
  return r;
}

ObstacleDistance mesh_distance(const Obstacle& o, const Vec3r& p) { return contact::MeshDistance(o).distance(p); }

}  // namespace

const char* obstacle_shape_name(ObstacleShape shape) {
  constexpr const char* kNames[] = {"plane", "sphere", "box", "cylinder", "mesh"};  // in ObstacleShape's order
  const int k = static_cast<int>(shape);
  return k >= 0 && k < int(std::size(kNames)) ? kNames[k] : "unknown";
}

// offset(t) = o_k + (t - t_k) / (t_{k+1} - t_k) (o_{k+1} - o_k) for t_k <= t < t_{k+1}, held outside.
Vec3r Obstacle::offset(Real t) const {
  if (path_times.empty() || path_offsets.size() != path_times.size()) return Vec3r::Zero();
  if (t <= path_times.front()) return path_offsets.front();
  if (t >= path_times.back()) return path_offsets.back();
  const size_t k = size_t(std::upper_bound(path_times.begin(), path_times.end(), t) - path_times.begin()) - 1;
  const Real s = (t - path_times[k]) / (path_times[k + 1] - path_times[k]);
  return path_offsets[k] + s * (path_offsets[k + 1] - path_offsets[k]);
}

void validate(const Obstacle& o) {
  SOFTIK_CHECK(o.center.allFinite(),
               label(o) << "the centre " << text(o.center) << " is not finite; give finite coordinates");
  SOFTIK_CHECK(std::isfinite(o.friction) && o.friction >= 0,
               label(o) << "the friction coefficient is " << o.friction << "; give mu >= 0 (0: frictionless)");
  switch (o.shape) {
    case ObstacleShape::Plane:
      check_unit(o, o.normal, "the normal");
      break;
    case ObstacleShape::Sphere:
      check_positive(o, o.radius, "the radius");
      break;
    case ObstacleShape::Box: {
      for (int i = 0; i < 3; ++i)
        check_positive(o, o.half_extents[i], i == 0 ? "half extent 0" : i == 1 ? "half extent 1" : "half extent 2");
      const Real off =
          (o.rotation.transpose() * o.rotation - Eigen::Matrix<Real, 3, 3>::Identity()).cwiseAbs().maxCoeff();
      SOFTIK_CHECK(o.rotation.allFinite() && off <= 1e-9 && o.rotation.determinant() > 0,
                   label(o) << "the rotation is not a rotation matrix (|R^T R - I| = " << off << ", det R = "
                            << o.rotation.determinant() << "); give orthonormal axes as columns, right-handed");
      break;
    }
    case ObstacleShape::Cylinder:
      check_unit(o, o.axis, "the axis");
      check_positive(o, o.radius, "the radius");
      check_positive(o, o.half_length, "the half length");
      break;
    case ObstacleShape::TriangleMesh:
      check_mesh(o);
      break;
  }
  check_path(o);
}

ObstacleDistance distance_to_obstacle(const Obstacle& obstacle, Real t, const Vec3r& p) {
  const Vec3r offset = obstacle.offset(t);
  const Vec3r q = p - offset;  // the point in the obstacle's rest placement
  using Distance = ObstacleDistance (*)(const Obstacle&, const Vec3r&);
  constexpr Distance kDistance[] = {plane_distance, sphere_distance, box_distance, cylinder_distance,
                                    mesh_distance};  // in ObstacleShape's order
  const int k = static_cast<int>(obstacle.shape);
  ObstacleDistance r;
  if (k >= 0 && k < int(std::size(kDistance))) r = kDistance[k](obstacle, q);
  r.point += offset;
  return r;
}

// t1 = (n x e) / |n x e| with e the coordinate axis least aligned with n (lowest index on ties),
// t2 = n x t1: a right-handed orthonormal frame (n, t1, t2) fixed by n alone.
void tangent_frame(const Vec3r& n, Vec3r& t1, Vec3r& t2) {
  int k = 0;
  n.cwiseAbs().minCoeff(&k);
  t1 = n.cross(Vec3r::Unit(k)).normalized();
  t2 = n.cross(t1);
}

}  // namespace softik
