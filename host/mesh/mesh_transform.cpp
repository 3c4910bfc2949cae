// Transforms x = t + R (s p) and merged meshes (softik/mesh_transform.hpp).
#include "softik/mesh_transform.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "softik/error.hpp"

namespace softik {

namespace {

using Rotation = std::array<std::array<Real, 3>, 3>;

constexpr Real kPi = 3.14159265358979323846;

Rotation multiply(const Rotation& A, const Rotation& B) {
  Rotation C{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) C[i][j] += A[i][k] * B[k][j];
  return C;
}

bool finite3(const std::array<Real, 3>& v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }

}  // namespace

bool Transform::is_identity() const {
  const Rotation I{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  return rotation == I && translation == std::array<Real, 3>{0, 0, 0} && scale == 1;
}

std::array<Real, 3> Transform::rotate(const std::array<Real, 3>& v) const {
  std::array<Real, 3> r{};
  for (int i = 0; i < 3; ++i) r[i] = rotation[i][0] * v[0] + rotation[i][1] * v[1] + rotation[i][2] * v[2];
  return r;
}

std::array<Real, 3> Transform::apply(const std::array<Real, 3>& p) const {
  const std::array<Real, 3> r = rotate({scale * p[0], scale * p[1], scale * p[2]});
  return {translation[0] + r[0], translation[1] + r[1], translation[2] + r[2]};
}

// R = I + sin(a) [k]x + (1 - cos(a)) [k]x^2 (Rodrigues), k the unit axis.
Rotation rotation_axis_angle(const std::array<Real, 3>& axis, Real degrees, const std::string& what) {
  SOFTIK_CHECK(finite3(axis) && std::isfinite(degrees),
               what << ": the axis and the angle must be finite numbers, got axis [" << axis[0] << ", " << axis[1]
                    << ", " << axis[2] << "], angle " << degrees);
  const Real n = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  SOFTIK_CHECK(n > 0 && std::isfinite(n),
               what << ": the rotation axis has zero length; give a direction, e.g. [0, 0, 1]");
  const Real k[3] = {axis[0] / n, axis[1] / n, axis[2] / n};
  const Real a = degrees * kPi / 180, s = std::sin(a), c1 = 1 - std::cos(a);
  const Rotation K{{{0, -k[2], k[1]}, {k[2], 0, -k[0]}, {-k[1], k[0], 0}}};
  const Rotation K2 = multiply(K, K);
  Rotation R{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R[i][j] = (i == j ? 1.0 : 0.0) + s * K[i][j] + c1 * K2[i][j];
  return R;
}

// R = R_z(a_z) R_y(a_y) R_x(a_x): about the fixed x axis first.
Rotation rotation_euler_xyz(const std::array<Real, 3>& degrees, const std::string& what) {
  SOFTIK_CHECK(finite3(degrees), what << ": the Euler angles must be finite numbers (degrees), got [" << degrees[0]
                                      << ", " << degrees[1] << ", " << degrees[2] << "]");
  const Rotation Rx = rotation_axis_angle({1, 0, 0}, degrees[0], what);
  const Rotation Ry = rotation_axis_angle({0, 1, 0}, degrees[1], what);
  const Rotation Rz = rotation_axis_angle({0, 0, 1}, degrees[2], what);
  return multiply(Rz, multiply(Ry, Rx));
}

void check_transform(const Transform& t, const std::string& what) {
  SOFTIK_CHECK(finite3(t.translation), what << ": the translation must be finite, got [" << t.translation[0] << ", "
                                            << t.translation[1] << ", " << t.translation[2] << "]");
  SOFTIK_CHECK(std::isfinite(t.scale) && t.scale > 0,
               what << ": the scale must be a finite number > 0 (a zero scale collapses the body, a negative one "
                       "turns it inside out), got "
                    << t.scale);
  Real worst = 0;
  for (int i = 0; i < 3; ++i) {
    SOFTIK_CHECK(finite3(t.rotation[static_cast<size_t>(i)]), what << ": the rotation has a non-finite entry");
    for (int j = 0; j < 3; ++j) {
      Real dot = 0;  // (R R^T)_ij
      for (int k = 0; k < 3; ++k) dot += t.rotation[i][k] * t.rotation[j][k];
      worst = std::max(worst, std::abs(dot - (i == j ? 1.0 : 0.0)));
    }
  }
  const Rotation& R = t.rotation;
  const Real det = R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1]) -
                   R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0]) +
                   R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]);
  SOFTIK_CHECK(worst <= 1e-9 && det > 0, what << ": the rotation must be a proper rotation (orthonormal, determinant "
                                                 "+1); |R R^T - I| = "
                                              << worst << ", det R = " << det);
}

void transform_points(const Transform& t, std::vector<Real>& X) {
  for (size_t p = 0; p + 2 < X.size(); p += 3) {
    const std::array<Real, 3> x = t.apply({X[p], X[p + 1], X[p + 2]});
    X[p] = x[0];
    X[p + 1] = x[1];
    X[p + 2] = x[2];
  }
}

void transform_mesh(const Transform& t, Mesh& mesh) { transform_points(t, mesh.X); }

int MeshParts::body_of_node(int node) const {
  const auto it = std::upper_bound(node_begin.begin(), node_begin.end(), node);
  return static_cast<int>(it - node_begin.begin()) - 1;
}

namespace {

void check_mergeable(const std::vector<NamedMesh>& bodies) {
  SOFTIK_CHECK(!bodies.empty(), "merge_meshes: no bodies");
  std::set<std::string> names;
  for (const NamedMesh& b : bodies) {
    SOFTIK_CHECK(!b.name.empty() && b.name.find('/') == std::string::npos,
                 "merge_meshes: every body needs a name without '/', got '" << b.name << "'");
    SOFTIK_CHECK(names.insert(b.name).second, "merge_meshes: two bodies are named '" << b.name << "'");
    const Mesh& m = b.mesh;
    const Mesh& first = bodies.front().mesh;
    SOFTIK_CHECK(m.dim == first.dim && m.cell_type == first.cell_type,
                 "body '" << b.name << "' has " << cell_type_name(m.cell_type) << " cells in " << m.dim << "D, body '"
                          << bodies.front().name << "' " << cell_type_name(first.cell_type) << " cells in " << first.dim
                          << "D: the bodies of one scene share one cell type (mesh them alike, e.g. "
                          << "cell_type: " << cell_type_name(first.cell_type) << ")");
  }
}

}  // namespace

Mesh merge_meshes(const std::vector<NamedMesh>& bodies, MeshParts* parts) {
  check_mergeable(bodies);
  Mesh out;
  out.dim = bodies.front().mesh.dim;
  out.cell_type = bodies.front().mesh.cell_type;
  MeshParts p;
  for (const NamedMesh& b : bodies) {
    const Mesh& m = b.mesh;
    const int node0 = out.num_nodes(), cell0 = out.num_cells();
    p.node_begin.push_back(node0);
    p.cell_begin.push_back(cell0);
    out.X.insert(out.X.end(), m.X.begin(), m.X.end());
    for (int n : m.cells) out.cells.push_back(n + node0);
    const std::string prefix = b.name + "/";
    for (const auto& [name, nodes] : m.node_groups) {
      std::vector<int>& g = out.node_groups[prefix + name];
      for (int n : nodes) g.push_back(n + node0);
    }
    for (const auto& [name, cells] : m.cell_groups) {
      std::vector<int>& g = out.cell_groups[prefix + name];
      for (int c : cells) g.push_back(c + cell0);
    }
    for (const auto& [name, s] : m.surface_groups) {
      SurfaceGroup& g = out.surface_groups[prefix + name];
      for (auto t : s.triangles) g.triangles.push_back({t[0] + node0, t[1] + node0, t[2] + node0});
      for (auto q : s.quads) g.quads.push_back({q[0] + node0, q[1] + node0, q[2] + node0, q[3] + node0});
      for (auto t : s.triangles6) {
        for (int& v : t) v += node0;
        g.triangles6.push_back(t);
      }
    }
    std::vector<int>& all_nodes = out.node_groups[b.name];
    for (int n = 0; n < m.num_nodes(); ++n) all_nodes.push_back(n + node0);
    std::vector<int>& all_cells = out.cell_groups[b.name];
    for (int c = 0; c < m.num_cells(); ++c) all_cells.push_back(c + cell0);
  }
  p.node_begin.push_back(out.num_nodes());
  p.cell_begin.push_back(out.num_cells());
  if (parts) *parts = std::move(p);
  return out;
}

}  // namespace softik
