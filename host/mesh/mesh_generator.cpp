#include "softik/mesh_generator.hpp"

#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

#include "host/mesh/kuhn_tets.hpp"
#include "softik/error.hpp"

namespace softik {

namespace {

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
        for (int j = 0; j < k; ++j)
          all = all && std::abs(m.X[3 * static_cast<size_t>(v[j]) + axis] - plane) <= 1e-9 * spec.size[axis];
        if (all) return std::string(names[axis][s]);
      }
    return std::string();
  };
  for (const auto& t : boundary.triangles) m.surface_groups[side_of(t.data(), 3)].triangles.push_back(t);
  for (const auto& q : boundary.quads) m.surface_groups[side_of(q.data(), 4)].quads.push_back(q);
}

}  // namespace

Mesh make_tensor_grid(const std::array<std::vector<Real>, 3>& coords, CellType type, const std::vector<char>& keep) {
  if (type == CellType::Tet10) return to_tet10(make_tensor_grid(coords, CellType::Tet4, keep));
  SOFTIK_CHECK(type == CellType::Hex8 || type == CellType::Tet4,
               "make_tensor_grid: " << cell_type_name(type) << " cells do not fill a 3D grid; use Hex8, Tet4 or Tet10");
  int n[3];
  for (int axis = 0; axis < 3; ++axis) {
    const auto& c = coords[axis];
    SOFTIK_CHECK(c.size() >= 2,
                 "make_tensor_grid: coords[" << axis << "] has " << c.size() << " entries, need at least 2 (one cell)");
    for (size_t i = 0; i < c.size(); ++i) {
      SOFTIK_CHECK(std::isfinite(c[i]),
                   "make_tensor_grid: coords[" << axis << "][" << i << "] = " << c[i] << " is not finite");
      SOFTIK_CHECK(i == 0 || c[i] > c[i - 1], "make_tensor_grid: coords["
                                                  << axis << "] is not strictly increasing at entry " << i << " ("
                                                  << c[i - 1] << ", " << c[i] << ")");
    }
    n[axis] = static_cast<int>(c.size()) - 1;
  }
  const size_t num_grid_cells = static_cast<size_t>(n[0]) * n[1] * n[2];
  SOFTIK_CHECK(keep.empty() || keep.size() == num_grid_cells,
               "make_tensor_grid: keep has " << keep.size() << " entries, need 0 (all) or one per grid cell ("
                                             << num_grid_cells << ")");
  const auto kept = [&](int i, int j, int k) {
    return keep.empty() ||
           keep[static_cast<size_t>(i) + static_cast<size_t>(n[0]) * (j + static_cast<size_t>(n[1]) * k)];
  };
  // Grid node (i, j, k) -> mesh node, -1 while unused; filled in grid order so that the
  // numbering follows the grid.
  const auto gid = [&](int i, int j, int k) {
    return static_cast<size_t>(i) + static_cast<size_t>(n[0] + 1) * (j + static_cast<size_t>(n[1] + 1) * k);
  };
  std::vector<int> node_of(static_cast<size_t>(n[0] + 1) * (n[1] + 1) * (n[2] + 1), -1);
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        if (kept(i, j, k))
          for (int corner = 0; corner < 8; ++corner)
            node_of[gid(i + (corner & 1), j + ((corner >> 1) & 1), k + ((corner >> 2) & 1))] = 0;
  Mesh m;
  m.dim = 3;
  m.cell_type = type;
  int next = 0;
  for (int k = 0; k <= n[2]; ++k)
    for (int j = 0; j <= n[1]; ++j)
      for (int i = 0; i <= n[0]; ++i) {
        int& id = node_of[gid(i, j, k)];
        if (id < 0) continue;
        id = next++;
        m.X.insert(m.X.end(), {coords[0][static_cast<size_t>(i)], coords[1][static_cast<size_t>(j)],
                               coords[2][static_cast<size_t>(k)]});
      }
  const auto id = [&](int i, int j, int k) { return node_of[gid(i, j, k)]; };
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        if (!kept(i, j, k)) continue;
        // VTK hexahedron corners.
        const int h[8] = {id(i, j, k),     id(i + 1, j, k),     id(i + 1, j + 1, k),     id(i, j + 1, k),
                          id(i, j, k + 1), id(i + 1, j, k + 1), id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1)};
        if (type == CellType::Hex8) {
          m.cells.insert(m.cells.end(), h, h + 8);
          continue;
        }
        detail::add_kuhn_tets(m, h);
      }
  return m;
}

void check_generated_size(const char* who, double nodes, double cells, CellType type) {
  const int dim = cell_dimension(type);
  SOFTIK_CHECK(nodes * dim < 2147483647.0,
               who << ": the mesh would have " << nodes << " nodes (" << nodes * dim
                   << " degrees of freedom), beyond softik's limit of 2^31 - 1 degrees of freedom: use fewer cells");
  const double neighbours = type == CellType::Hex8    ? 27
                            : type == CellType::Tet4  ? 15
                            : type == CellType::Tet10 ? 35  // a corner couples to ~15 corners and ~20 mid-nodes
                                                      : 9;
  const double bytes = nodes * (3 * 8 + dim * dim * neighbours * 12) + cells * nodes_per_cell(type) * 4;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return;  // unknown: nothing to compare with
  const double memory = static_cast<double>(pages) * static_cast<double>(page);
  SOFTIK_CHECK(bytes <= memory, who << ": the mesh would have " << nodes << " nodes and " << cells
                                    << " cells; its mesh and stiffness matrix alone need at least " << bytes / 1e9
                                    << " GB (the factorisation several times more), more than this machine's "
                                    << memory / 1e9 << " GB of memory: use fewer or larger cells");
}

Mesh make_box(int dim, CellType type, const BoxSpec& spec) {
  if (dim == 3 && type == CellType::Tet10) return to_tet10(make_box(dim, CellType::Tet4, spec));
  SOFTIK_CHECK(dim >= 1 && dim <= 3, "make_box: dim must be 1, 2 or 3, got " << dim);
  SOFTIK_CHECK(cell_dimension(type) == dim,
               "make_box: " << cell_type_name(type) << " cells do not fill a " << dim
                            << "D box; use Edge2 (1D), Tri3/Quad4 (2D), Tet4/Hex8/Tet10 (3D)");
  for (int i = 0; i < dim; ++i) {
    SOFTIK_CHECK(spec.cells[i] >= 1, "make_box: cells[" << i << "] = " << spec.cells[i] << ", need >= 1");
    SOFTIK_CHECK(spec.size[i] > 0 && std::isfinite(spec.size[i]),
                 "make_box: size[" << i << "] = " << spec.size[i] << ", need a positive finite length");
  }
  double nodes = 1, cells = type == CellType::Tet4 ? 6 : type == CellType::Tri3 ? 2 : 1;
  for (int i = 0; i < dim; ++i) {
    nodes *= spec.cells[i] + 1.0;
    cells *= spec.cells[i];
  }
  check_generated_size("make_box", nodes, cells, type);
  if (dim == 3) {
    std::array<std::vector<Real>, 3> coords;
    for (int axis = 0; axis < 3; ++axis)
      for (int i = 0; i <= spec.cells[axis]; ++i)
        coords[axis].push_back(spec.origin[axis] + spec.size[axis] * i / spec.cells[axis]);
    Mesh m = make_tensor_grid(coords, type);
    add_face_groups(m, spec);
    return m;
  }
  Mesh m;
  m.dim = dim;
  m.cell_type = type;
  const int nx = spec.cells[0], ny = dim > 1 ? spec.cells[1] : 0;
  const auto id = [&](int i, int j) { return i + (nx + 1) * j; };
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      m.X.push_back(spec.origin[0] + spec.size[0] * i / nx);
      m.X.push_back(dim > 1 ? spec.origin[1] + spec.size[1] * j / ny : 0.0);
      m.X.push_back(0.0);
    }
  for (int j = 0; j < (dim > 1 ? ny : 1); ++j)
    for (int i = 0; i < nx; ++i) {
      if (dim == 1) {
        m.cells.insert(m.cells.end(), {id(i, 0), id(i + 1, 0)});
        continue;
      }
      const int q[4] = {id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)};
      if (type == CellType::Quad4) {
        m.cells.insert(m.cells.end(), {q[0], q[1], q[2], q[3]});
      } else {
        m.cells.insert(m.cells.end(), {q[0], q[1], q[2], q[0], q[2], q[3]});
      }
    }
  add_face_groups(m, spec);
  return m;
}

}  // namespace softik
