// The one per-triangle body of pressure loads, for every backend (the CPU's cavity.cpp runs it
// with exec::Serial, the CUDA backend's DevicePressure with exec::Cuda):
//   forces   f_i += w_t P/6 (p2 - p1) x (p3 - p1) at each vertex of triangle t
//            (fem::triangle_pressure_forces; docs/method.md section 6, [6] eq. 5), spread to the
//            vertex's nodes with its embedding weights; with P = 1, the actuator's Jacobian column.
//   volume   V_t = w_t p1 . (p2 x p3) / 6 per triangle (fem::triangle_volume_contribution),
//            written per triangle and summed by the caller in a fixed order.
// Vertex positions: p_v = x_v (vertex v is mesh node v) or p_v = sum_k w_vk x_node(v,k) for a
// surface embedded in the cells (SurfaceEmbedding). A quad is the four triangles of its two
// diagonal splits with w_t = 1/2 (fem::quad_split_vertex), a triangle has w_t = 1
// (expand_triangles below builds that list once). A quadratic triangle (Tri6) is one face of its
// own, after the flat triangles: faces num_triangles.. are the quadratic ones, with the
// consistent load and exact volume of fem/quadratic_pressure_load.hpp.
#pragma once

#include <cstddef>
#include <vector>

#include "host/assembly/cell_kernel.hpp"
#include "softik/fem/pressure_load.hpp"
#include "softik/fem/quadratic_pressure_load.hpp"
#include "softik/mesh.hpp"

namespace softik::assembly {

template <exec::Space S>
struct PressureSurface {
  int num_triangles = 0;
  int num_quadratic = 0;
  exec::View<const int, S> triangles;         ///< vertex j of triangle t at 3 t + j
  exec::View<const int, S> quadratic;         ///< vertex j of quadratic triangle t at 6 t + j
  exec::View<const Real, S> triangle_weight;  ///< w_t
  int nodes_per_vertex = 0;                   ///< 0: vertex v is mesh node v
  exec::View<const int, S> nodes;             ///< node k of vertex v at v * nodes_per_vertex + k
  exec::View<const Real, S> weights;          ///< same layout
  exec::View<const Real, S> x;                ///< node positions, 3 per node
  /// Faces the kernels run over: the flat triangles, then the quadratic ones.
  SOFTIK_HD int num_faces() const { return num_triangles + num_quadratic; }
};

template <exec::Space S>
SOFTIK_HD_INLINE fem::Vec3 vertex_position(const PressureSurface<S>& s, int v) {
  if (s.nodes_per_vertex == 0) {
    const std::size_t o = 3 * static_cast<std::size_t>(v);
    return fem::Vec3(s.x[o], s.x[o + 1], s.x[o + 2]);
  }
  fem::Vec3 p = fem::Vec3::Zero();
  for (int k = 0; k < s.nodes_per_vertex; ++k) {
    const std::size_t e = static_cast<std::size_t>(v) * s.nodes_per_vertex + k;
    const std::size_t o = 3 * static_cast<std::size_t>(s.nodes[e]);
    p += s.weights[e] * fem::Vec3(s.x[o], s.x[o + 1], s.x[o + 2]);
  }
  return p;
}

/// Face t's vertices and their positions: 3 for a flat triangle, 6 for a quadratic one; returns
/// the count.
template <exec::Space S>
SOFTIK_HD_INLINE int face_vertices(const PressureSurface<S>& s, int t, int v[6], fem::Vec3 p[6]) {
  const bool quadratic = t >= s.num_triangles;
  const int count = quadratic ? 6 : 3;
  for (int j = 0; j < count; ++j) {
    v[j] = quadratic ? s.quadratic[6 * static_cast<std::size_t>(t - s.num_triangles) + j]
                     : s.triangles[3 * static_cast<std::size_t>(t) + j];
    p[j] = vertex_position(s, v[j]);
  }
  return count;
}

template <Scatter mode, exec::Space S>
struct TrianglePressureForces {
  PressureSurface<S> surface;
  Real P = 0;
  exec::View<Real, S> f;  ///< 3 per node, accumulated

  SOFTIK_HD void operator()(int t) const {
    const PressureSurface<S>& s = surface;
    int v[6];
    fem::Vec3 p[6], fv[6];
    const int count = face_vertices(s, t, v, p);
    if (count == 6)
      fem::tri6_pressure_forces(P, p, fv);
    else
      fem::triangle_pressure_forces(s.triangle_weight[static_cast<std::size_t>(t)] * P, p[0], p[1], p[2], fv[0], fv[1],
                                    fv[2]);
    for (int j = 0; j < count; ++j) {
      if (s.nodes_per_vertex == 0) {
        const std::size_t o = 3 * static_cast<std::size_t>(v[j]);
        for (int i = 0; i < 3; ++i) scatter_add<mode>(&f[o + i], fv[j][i]);
      } else {
        for (int k = 0; k < s.nodes_per_vertex; ++k) {
          const std::size_t e = static_cast<std::size_t>(v[j]) * s.nodes_per_vertex + k;
          const std::size_t o = 3 * static_cast<std::size_t>(s.nodes[e]);
          const Real w = s.weights[e];
          for (int i = 0; i < 3; ++i) scatter_add<mode>(&f[o + i], w * fv[j][i]);
        }
      }
    }
  }
};

template <exec::Space S>
struct TriangleVolume {
  PressureSurface<S> surface;
  exec::View<Real, S> out;  ///< one value per triangle

  SOFTIK_HD void operator()(int t) const {
    int v[6];
    fem::Vec3 p[6];
    if (face_vertices(surface, t, v, p) == 6)
      out[static_cast<std::size_t>(t)] = fem::tri6_volume_contribution(p);
    else
      out[static_cast<std::size_t>(t)] =
          surface.triangle_weight[static_cast<std::size_t>(t)] * fem::triangle_volume_contribution(p[0], p[1], p[2]);
  }
};

/// A surface's faces as the kernels read them: its triangles (w = 1), then each quad's four
/// split triangles (w = 1/2); then its quadratic triangles.
struct TriangleList {
  std::vector<int> vertices;   ///< 3 per flat triangle
  std::vector<Real> weights;   ///< one per flat triangle
  std::vector<int> quadratic;  ///< 6 per quadratic triangle
  int num_flat() const { return static_cast<int>(weights.size()); }
  int size() const { return num_flat() + static_cast<int>(quadratic.size() / 6); }
};

inline TriangleList expand_triangles(const SurfaceGroup& s) {
  TriangleList list;
  list.vertices.reserve(3 * (s.triangles.size() + 4 * s.quads.size()));
  list.weights.reserve(s.triangles.size() + 4 * s.quads.size());
  for (const auto& t : s.triangles) {
    list.vertices.insert(list.vertices.end(), t.begin(), t.end());
    list.weights.push_back(1.0);
  }
  for (const auto& q : s.quads)
    for (int t = 0; t < 4; ++t) {
      for (int j = 0; j < 3; ++j) list.vertices.push_back(q[static_cast<std::size_t>(fem::quad_split_vertex(t, j))]);
      list.weights.push_back(0.5);
    }
  for (const auto& t : s.triangles6) list.quadratic.insert(list.quadratic.end(), t.begin(), t.end());
  return list;
}

}  // namespace softik::assembly
