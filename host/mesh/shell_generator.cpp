#include "softik/shell_generator.hpp"

#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "host/mesh/kuhn_tets.hpp"
#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"

namespace softik {

namespace {

constexpr Real kPi = 3.14159265358979323846;

void check_common(const char* who, Real a, Real b, int nr, CellType type, Real grading) {
  SOFTIK_CHECK(std::isfinite(a) && std::isfinite(b) && a > 0 && b > a,
               who << ": radii a = " << a << ", b = " << b << " are invalid; need finite 0 < a < b");
  SOFTIK_CHECK(nr >= 1, who << ": nr = " << nr << " radial cells, need >= 1");
  SOFTIK_CHECK(type == CellType::Hex8 || type == CellType::Tet4 || type == CellType::Tet10,
               who << ": cell type " << cell_type_name(type) << " is not supported; use Hex8, Tet4 or Tet10");
  SOFTIK_CHECK(std::isfinite(grading) && grading > 0,
               who << ": radial_grading = " << grading << ", need a positive ratio (1: uniform)");
}

/// Radii r_0 = a < r_1 < ... < r_nr = b whose cell sizes grow geometrically with ratio q per
/// cell, q^(nr-1) = grading (the outermost cell is `grading` times the innermost):
///   r_i = a + (b - a) (q^i - 1) / (q^nr - 1),   or uniform when q = 1.
std::vector<Real> graded_radii(Real a, Real b, int nr, Real grading) {
  const Real q = nr > 1 ? std::pow(grading, Real(1) / (nr - 1)) : Real(1);
  std::vector<Real> r(static_cast<size_t>(nr) + 1);
  for (int i = 0; i <= nr; ++i) {
    const Real s = std::abs(q - 1) < 1e-12 ? Real(i) / nr : (std::pow(q, i) - 1) / (std::pow(q, nr) - 1);
    r[static_cast<size_t>(i)] = a + (b - a) * s;
  }
  r.back() = b;  // exact, whatever the rounding of the series
  return r;
}

/// Appends one logical hex (VTK corner order over logical axes (u, v, w): h[0] = (0,0,0),
/// h[1] = (1,0,0), h[2] = (1,1,0), h[3] = (0,1,0), h[4..7] the same at w = 1), as a Hex8 or as
/// six Kuhn tets, one per path (0,0,0) -> (1,1,1) along the axes in each order. Each face of the
/// hex is split along its diagonal from the logical-min to the logical-max corner, so two hexes
/// whose shared face has the same logical min corner in both produce matching triangles.
/// A tet that comes out negatively oriented is flipped (swapping two vertices keeps its faces).
void add_cell(Mesh& m, const std::array<int, 8>& h) {
  if (m.cell_type == CellType::Hex8) {
    m.cells.insert(m.cells.end(), h.begin(), h.end());
    return;
  }
  detail::add_kuhn_tets(m, h.data());
}

/// Appends the quad (q0, q1, q2, q3) to a surface group: as a quad (Hex8 meshes) or as the two
/// triangles (q0, q1, q2), (q0, q2, q3) (Tet4 meshes; q0-q2 is the Kuhn diagonal of that face
/// when q0 and q2 are its logical-min and -max corners). The winding is kept.
void add_face(const Mesh& m, SurfaceGroup& s, const std::array<int, 4>& q) {
  if (m.cell_type == CellType::Hex8) {
    s.quads.push_back(q);
  } else {
    s.triangles.push_back({q[0], q[1], q[2]});
    s.triangles.push_back({q[0], q[2], q[3]});
  }
}

}  // namespace

// Node (i, j, k) of the (r, theta, z) grid sits at (r_i cos theta_j, r_i sin theta_j, t k / nz),
// theta_j = (pi/2) j / nt, with x = 0 exactly on theta = pi/2 and y = 0 exactly on theta = 0.
// Logical axes (u, v, w) = (r, theta, z) are right-handed (e_r x e_theta = e_z), so the VTK
// hex over them is positively oriented. The inner face (u = 0) wound (h0, h3, h7, h4) has the
// normal e_theta x e_z = e_r: away from the axis, into the material.
Mesh make_thick_cylinder_quarter(Real a, Real b, Real t, int nr, int nt, int nz, CellType type, Real radial_grading) {
  const char* who = "make_thick_cylinder_quarter";
  check_common(who, a, b, nr, type, radial_grading);
  if (type == CellType::Tet10) {
    // Mid-nodes at the middle of the edge in (r, theta, z): on the walls r = a and r = b.
    const auto midpoint = [](const std::array<Real, 3>& p, const std::array<Real, 3>& q) {
      const Real r = (std::hypot(p[0], p[1]) + std::hypot(q[0], q[1])) / 2;
      const Real theta = (std::atan2(p[1], p[0]) + std::atan2(q[1], q[0])) / 2;
      return std::array<Real, 3>{r * std::cos(theta), r * std::sin(theta), (p[2] + q[2]) / 2};
    };
    return to_tet10(make_thick_cylinder_quarter(a, b, t, nr, nt, nz, CellType::Tet4, radial_grading), midpoint);
  }
  SOFTIK_CHECK(std::isfinite(t) && t > 0, who << ": thickness t = " << t << ", need a positive finite length");
  SOFTIK_CHECK(nt >= 1 && nz >= 1, who << ": nt = " << nt << ", nz = " << nz << " cells, need >= 1 each");
  Mesh m;
  m.dim = 3;
  m.cell_type = type;
  const std::vector<Real> r = graded_radii(a, b, nr, radial_grading);
  const auto id = [&](int i, int j, int k) { return i + (nr + 1) * (j + (nt + 1) * k); };
  m.X.reserve(3 * static_cast<size_t>((nr + 1) * (nt + 1) * (nz + 1)));
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= nt; ++j) {
      const Real theta = 0.5 * kPi * j / nt;
      const Real c = j == nt ? Real(0) : std::cos(theta), s = j == 0 ? Real(0) : std::sin(theta);
      for (int i = 0; i <= nr; ++i) {
        const Real ri = r[static_cast<size_t>(i)];
        m.X.insert(m.X.end(), {ri * c, ri * s, k == nz ? t : t * k / nz});
      }
    }
  SurfaceGroup& inner = m.surface_groups["inner"];
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < nt; ++j)
      for (int i = 0; i < nr; ++i) {
        const std::array<int, 8> h = {
            id(i, j, k),     id(i + 1, j, k),     id(i + 1, j + 1, k),     id(i, j + 1, k),
            id(i, j, k + 1), id(i + 1, j, k + 1), id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1)};
        add_cell(m, h);
        // Logical min corner h0 = (theta_j, z_k), max h7: the Kuhn diagonal of this face.
        if (i == 0) add_face(m, inner, {h[0], h[3], h[7], h[4]});
      }
  auto& g_inner = m.node_groups["inner"];
  auto& g_outer = m.node_groups["outer"];
  auto& g_x0 = m.node_groups["x0"];
  auto& g_y0 = m.node_groups["y0"];
  auto& g_zmin = m.node_groups["zmin"];
  auto& g_zmax = m.node_groups["zmax"];
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= nt; ++j)
      for (int i = 0; i <= nr; ++i) {
        const int n = id(i, j, k);
        if (i == 0) g_inner.push_back(n);
        if (i == nr) g_outer.push_back(n);
        if (j == nt) g_x0.push_back(n);
        if (j == 0) g_y0.push_back(n);
        if (k == 0) g_zmin.push_back(n);
        if (k == nz) g_zmax.push_back(n);
      }
  return m;
}

// The cube-surface octant {max(i, j, k) = n} of the integer lattice {0..n}^3 holds the surface
// nodes; a lattice point shared by two or three faces is one node, so the seams merge exactly.
// Lattice point (i, j, k) maps to the direction d = (g(i), g(j), g(k)) / |.|, g(i) = tan(pi/4 i/n)
// (g(0) = 0 and g(n) = 1 exactly), at radii r_0 = a .. r_nr = b.
// Patches and their logical axes (u, v) (w = r, outward): x = 1: (y, z); y = 1: (z, x); z = 1:
// (x, y). Each is right-handed with w (y x z = x, z x x = y, x x y = z), so the VTK hex over
// (u, v, w) is positively oriented and its inner face (h0, h1, h2, h3) has the normal e_u x e_v
// along +r. Every logical index increases with its physical lattice coordinate, so on a seam
// face (the seam coordinate and r) both neighbouring hexes have the same logical min corner and
// their Kuhn tets share the face diagonal: the Tet4 mesh is conforming across the seams.
Mesh make_thick_sphere_octant(Real a, Real b, int nr, int n, CellType type, Real radial_grading) {
  const char* who = "make_thick_sphere_octant";
  check_common(who, a, b, nr, type, radial_grading);
  if (type == CellType::Tet10) {
    // Mid-nodes at the mean radius along the mean direction: on the spheres r = a and r = b.
    const auto midpoint = [](const std::array<Real, 3>& p, const std::array<Real, 3>& q) {
      const Real rp = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
      const Real rq = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
      std::array<Real, 3> d{p[0] / rp + q[0] / rq, p[1] / rp + q[1] / rq, p[2] / rp + q[2] / rq};
      const Real s = (rp + rq) / 2 / std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      return std::array<Real, 3>{s * d[0], s * d[1], s * d[2]};
    };
    return to_tet10(make_thick_sphere_octant(a, b, nr, n, CellType::Tet4, radial_grading), midpoint);
  }
  SOFTIK_CHECK(n >= 1, who << ": n = " << n << " cells per patch edge, need >= 1");
  SOFTIK_CHECK(n <= 1000, who << ": n = " << n << " cells per patch edge is more than this generator allows (1000)");
  Mesh m;
  m.dim = 3;
  m.cell_type = type;
  const std::vector<Real> r = graded_radii(a, b, nr, radial_grading);
  // Surface lattice numbering: lattice[(i*(n+1) + j)*(n+1) + k] -> surface node, -1 off the octant.
  const int n1 = n + 1;
  std::vector<int> lattice(static_cast<size_t>(n1) * n1 * n1, -1);
  const auto lat = [&](int i, int j, int k) -> int& { return lattice[(static_cast<size_t>(i) * n1 + j) * n1 + k]; };
  std::vector<std::array<int, 3>> points;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j)
      for (int k = 0; k <= n; ++k)
        if (i == n || j == n || k == n) {
          lat(i, j, k) = static_cast<int>(points.size());
          points.push_back({i, j, k});
        }
  const int ns = static_cast<int>(points.size());  // 3 n^2 + 3 n + 1
  const auto g = [&](int i) { return i == 0 ? Real(0) : i == n ? Real(1) : std::tan(0.25 * kPi * i / n); };
  m.X.reserve(3 * static_cast<size_t>(ns) * (nr + 1));
  for (int l = 0; l <= nr; ++l)
    for (const auto& p : points) {
      const Real d[3] = {g(p[0]), g(p[1]), g(p[2])};
      const Real scale = r[static_cast<size_t>(l)] / std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      m.X.insert(m.X.end(), {d[0] * scale, d[1] * scale, d[2] * scale});
    }
  const auto node = [&](int surface, int l) { return surface + ns * l; };
  // Patch p: lattice point of logical (u, v): x = 1 -> (n, u, v); y = 1 -> (v, n, u); z = 1 -> (u, v, n).
  const auto patch_point = [&](int p, int u, int v) {
    return p == 0 ? lat(n, u, v) : p == 1 ? lat(v, n, u) : lat(u, v, n);
  };
  SurfaceGroup& inner = m.surface_groups["inner"];
  for (int p = 0; p < 3; ++p)
    for (int l = 0; l < nr; ++l)
      for (int v = 0; v < n; ++v)
        for (int u = 0; u < n; ++u) {
          const int s0 = patch_point(p, u, v), s1 = patch_point(p, u + 1, v), s2 = patch_point(p, u + 1, v + 1),
                    s3 = patch_point(p, u, v + 1);
          const std::array<int, 8> h = {node(s0, l),     node(s1, l),     node(s2, l),     node(s3, l),
                                        node(s0, l + 1), node(s1, l + 1), node(s2, l + 1), node(s3, l + 1)};
          add_cell(m, h);
          if (l == 0) add_face(m, inner, {h[0], h[1], h[2], h[3]});
        }
  const char* plane_names[3] = {"x0", "y0", "z0"};
  auto& g_inner = m.node_groups["inner"];
  auto& g_outer = m.node_groups["outer"];
  for (int l = 0; l <= nr; ++l)
    for (int s = 0; s < ns; ++s) {
      if (l == 0) g_inner.push_back(node(s, l));
      if (l == nr) g_outer.push_back(node(s, l));
      for (int axis = 0; axis < 3; ++axis)
        if (points[static_cast<size_t>(s)][static_cast<size_t>(axis)] == 0)
          m.node_groups[plane_names[axis]].push_back(node(s, l));
    }
  return m;
}

}  // namespace softik
