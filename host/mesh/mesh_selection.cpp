#include "softik/mesh_selection.hpp"

#include <cmath>

#include "softik/error.hpp"

namespace softik {

std::vector<int> nodes_in_box(const Mesh& mesh, const std::array<Real, 3>& lo, const std::array<Real, 3>& hi,
                              Real tol) {
  for (int i = 0; i < mesh.dim; ++i)
    SOFTIK_CHECK(std::isfinite(lo[i]) && std::isfinite(hi[i]) && lo[i] <= hi[i],
                 "nodes_in_box: box component " << i << " is [" << lo[i] << ", " << hi[i]
                                                << "]; give finite bounds with min <= max");
  std::vector<int> out;
  for (int n = 0; n < mesh.num_nodes(); ++n) {
    bool inside = true;
    for (int i = 0; i < mesh.dim && inside; ++i) {
      const Real v = mesh.X[3 * static_cast<size_t>(n) + i];
      inside = v >= lo[i] - tol && v <= hi[i] + tol;
    }
    if (inside) out.push_back(n);
  }
  return out;
}

std::vector<int> nodes_in_sphere(const Mesh& mesh, const std::array<Real, 3>& center, Real radius, Real tol) {
  SOFTIK_CHECK(std::isfinite(center[0]) && std::isfinite(center[1]) && std::isfinite(center[2]),
               "nodes_in_sphere: the centre must be finite");
  SOFTIK_CHECK(std::isfinite(radius) && radius > 0, "nodes_in_sphere: radius = " << radius << "; give a radius > 0");
  const Real reach = radius + tol;
  std::vector<int> out;
  for (int n = 0; n < mesh.num_nodes(); ++n) {
    Real d2 = 0;
    for (int i = 0; i < 3; ++i)
      d2 += std::pow(mesh.X[3 * static_cast<size_t>(n) + i] - center[static_cast<size_t>(i)], 2);
    if (d2 <= reach * reach) out.push_back(n);
  }
  return out;
}

Mesh cell_centroids(const Mesh& mesh) {
  Mesh points;
  points.dim = mesh.dim;
  points.X.assign(3 * static_cast<size_t>(mesh.num_cells()), 0.0);
  const int npc = nodes_per_cell(mesh.cell_type);
  for (int c = 0; c < mesh.num_cells(); ++c)
    for (int a = 0; a < npc; ++a)
      for (int i = 0; i < 3; ++i)
        points.X[3 * static_cast<size_t>(c) + i] += mesh.X[3 * static_cast<size_t>(mesh.cell(c)[a]) + i] / npc;
  return points;
}

std::vector<int> nodes_on_plane(const Mesh& mesh, const std::array<Real, 3>& point, const std::array<Real, 3>& normal,
                                Real tol) {
  const Real len = std::sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
  SOFTIK_CHECK(std::isfinite(len) && len > 0,
               "nodes_on_plane: the plane normal is zero or not finite; give a direction");
  SOFTIK_CHECK(std::isfinite(tol) && tol >= 0, "nodes_on_plane: tolerance " << tol << " must be >= 0");
  std::vector<int> out;
  for (int n = 0; n < mesh.num_nodes(); ++n) {
    Real d = 0;  // signed distance (X - point) . normal / |normal|
    for (int i = 0; i < 3; ++i) d += (mesh.X[3 * static_cast<size_t>(n) + i] - point[i]) * normal[i];
    if (std::abs(d / len) <= tol) out.push_back(n);
  }
  return out;
}

void fix_components(const Mesh& mesh, const std::vector<int>& nodes, const std::array<bool, 3>& components,
                    std::vector<char>& fixed) {
  if (fixed.empty()) fixed.assign(static_cast<size_t>(mesh.num_dofs()), 0);
  SOFTIK_CHECK(
      fixed.size() == static_cast<size_t>(mesh.num_dofs()),
      "fix_components: the fixed-DOF mask has " << fixed.size() << " entries, expected num_dofs = " << mesh.num_dofs());
  for (int n : nodes) {
    SOFTIK_CHECK(n >= 0 && n < mesh.num_nodes(),
                 "fix_components: node " << n << " is out of range (the mesh has " << mesh.num_nodes() << " nodes)");
    for (int i = 0; i < mesh.dim; ++i)
      if (components[static_cast<size_t>(i)]) fixed[static_cast<size_t>(n) * mesh.dim + i] = 1;
  }
}

int closest_node(const Mesh& mesh, const std::array<Real, 3>& p) {
  SOFTIK_CHECK(mesh.num_nodes() > 0, "closest_node: the mesh has no nodes");
  int best = 0;
  Real best_d = INFINITY;
  for (int n = 0; n < mesh.num_nodes(); ++n) {
    Real d = 0;
    for (int i = 0; i < 3; ++i) {
      const Real e = mesh.X[3 * static_cast<size_t>(n) + i] - p[i];
      d += e * e;
    }
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  return best;
}

Real bounding_box_diagonal(const Mesh& mesh) {
  if (mesh.num_nodes() == 0) return 0;
  Real lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t k = 0; k < mesh.X.size(); ++k) {
    lo[k % 3] = std::min(lo[k % 3], mesh.X[k]);
    hi[k % 3] = std::max(hi[k % 3], mesh.X[k]);
  }
  Real s = 0;
  for (int i = 0; i < 3; ++i) s += (hi[i] - lo[i]) * (hi[i] - lo[i]);
  return std::sqrt(s);
}

}  // namespace softik
