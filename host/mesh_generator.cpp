#include "softik/mesh_generator.hpp"

#include <cmath>

#include "softik/error.hpp"

namespace softik {

namespace {

Real signed_tet_volume(const Mesh& m, const std::array<int, 4>& t) {
  const Real* p[4];
  for (int a = 0; a < 4; ++a) p[a] = &m.X[3 * static_cast<size_t>(t[a])];
  Real e[3][3];
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 3; ++i) e[k][i] = p[k + 1][i] - p[0][i];
  return (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
          e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) / 6.0;
}

void add_face_groups(Mesh& m, const BoxSpec& spec) {
  const char* names[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};
  for (int axis = 0; axis < m.dim; ++axis) {
    const Real lo = spec.origin[axis], hi = spec.origin[axis] + spec.size[axis];
    const Real tol = 1e-9 * spec.size[axis];
    auto& gmin = m.node_groups[names[axis][0]];
    auto& gmax = m.node_groups[names[axis][1]];
    for (int n = 0; n < m.num_nodes(); ++n) {
      const Real v = m.X[3 * static_cast<size_t>(n) + axis];
      if (std::abs(v - lo) <= tol) gmin.push_back(n);
      if (std::abs(v - hi) <= tol) gmax.push_back(n);
    }
  }
  if (m.dim != 3) return;
  const SurfaceGroup boundary = boundary_surface(m);
  auto side_of = [&](const int* v, int k) {
    for (int axis = 0; axis < 3; ++axis)
      for (int s = 0; s < 2; ++s) {
        const Real plane = spec.origin[axis] + s * spec.size[axis];
        bool all = true;
        for (int j = 0; j < k; ++j) all = all && std::abs(m.X[3 * static_cast<size_t>(v[j]) + axis] - plane) <= 1e-9 * spec.size[axis];
        if (all) return std::string(names[axis][s]);
      }
    return std::string();
  };
  for (const auto& t : boundary.triangles) m.surface_groups[side_of(t.data(), 3)].triangles.push_back(t);
  for (const auto& q : boundary.quads) m.surface_groups[side_of(q.data(), 4)].quads.push_back(q);
}

}  // namespace

Mesh make_box(int dim, CellType type, const BoxSpec& spec) {
  SOFTIK_CHECK(dim >= 1 && dim <= 3, "make_box: dim must be 1, 2 or 3, got " << dim);
  SOFTIK_CHECK(cell_dimension(type) == dim, "make_box: " << cell_type_name(type) << " cells do not fill a " << dim
                                                         << "D box; use Edge2 (1D), Tri3/Quad4 (2D), Tet4/Hex8 (3D)");
  for (int i = 0; i < dim; ++i) {
    SOFTIK_CHECK(spec.cells[i] >= 1, "make_box: cells[" << i << "] = " << spec.cells[i] << ", need >= 1");
    SOFTIK_CHECK(spec.size[i] > 0 && std::isfinite(spec.size[i]),
                 "make_box: size[" << i << "] = " << spec.size[i] << ", need a positive finite length");
  }
  Mesh m;
  m.dim = dim;
  m.cell_type = type;
  const int nx = spec.cells[0], ny = dim > 1 ? spec.cells[1] : 0, nz = dim > 2 ? spec.cells[2] : 0;
  const auto id = [&](int i, int j, int k) { return i + (nx + 1) * (j + (ny + 1) * k); };
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        m.X.push_back(spec.origin[0] + spec.size[0] * i / nx);
        m.X.push_back(dim > 1 ? spec.origin[1] + spec.size[1] * j / ny : 0.0);
        m.X.push_back(dim > 2 ? spec.origin[2] + spec.size[2] * k / nz : 0.0);
      }
  for (int k = 0; k < (dim > 2 ? nz : 1); ++k)
    for (int j = 0; j < (dim > 1 ? ny : 1); ++j)
      for (int i = 0; i < nx; ++i) {
        if (dim == 1) {
          m.cells.insert(m.cells.end(), {id(i, 0, 0), id(i + 1, 0, 0)});
          continue;
        }
        if (dim == 2) {
          const int q[4] = {id(i, j, 0), id(i + 1, j, 0), id(i + 1, j + 1, 0), id(i, j + 1, 0)};
          if (type == CellType::Quad4) {
            m.cells.insert(m.cells.end(), {q[0], q[1], q[2], q[3]});
          } else {
            m.cells.insert(m.cells.end(), {q[0], q[1], q[2], q[0], q[2], q[3]});
          }
          continue;
        }
        // VTK hexahedron corners.
        const int h[8] = {id(i, j, k),         id(i + 1, j, k),         id(i + 1, j + 1, k),     id(i, j + 1, k),
                          id(i, j, k + 1),     id(i + 1, j, k + 1),     id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1)};
        if (type == CellType::Hex8) {
          m.cells.insert(m.cells.end(), h, h + 8);
          continue;
        }
        // Kuhn subdivision: one tet per path 000 -> 111 along the axes in the order p.
        const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        for (const auto& p : perms) {
          int c[3] = {0, 0, 0};
          std::array<int, 4> t;
          t[0] = id(i, j, k);
          for (int s = 0; s < 3; ++s) {
            c[p[s]] = 1;
            t[s + 1] = id(i + c[0], j + c[1], k + c[2]);
          }
          if (signed_tet_volume(m, t) < 0) std::swap(t[2], t[3]);
          m.cells.insert(m.cells.end(), t.begin(), t.end());
        }
      }
  add_face_groups(m, spec);
  return m;
}

}  // namespace softik
