// to_tet10(): a Tet4 mesh made quadratic by one new node per edge (mesh_generator.hpp).
#include <algorithm>
#include <array>
#include <map>
#include <utility>
#include <vector>

#include "softik/error.hpp"
#include "softik/fem/element_traits.hpp"
#include "softik/mesh_generator.hpp"

namespace softik {

Mesh to_tet10(const Mesh& tet4, const EdgeMidpoint& midpoint) {
  SOFTIK_CHECK(tet4.cell_type == CellType::Tet4 && tet4.dim == 3,
               "to_tet10: the mesh has " << cell_type_name(tet4.cell_type)
                                         << " cells; only a Tet4 mesh can be made quadratic (one node per edge)");
  // A tetrahedral mesh has about 1.2 edges per cell (7/6 for a Kuhn-split grid): the new nodes.
  check_generated_size("to_tet10", tet4.num_nodes() + 1.2 * tet4.num_cells(), tet4.num_cells(), CellType::Tet10);
  Mesh m;
  m.dim = 3;
  m.cell_type = CellType::Tet10;
  m.X = tet4.X;
  m.cell_groups = tet4.cell_groups;
  std::map<std::pair<int, int>, int> mid;  // sorted edge -> its mid-node
  const auto mid_node = [&](int a, int b) {
    const std::pair<int, int> key{std::min(a, b), std::max(a, b)};
    const auto found = mid.find(key);
    if (found != mid.end()) return found->second;
    const int n = m.num_nodes();
    std::array<Real, 3> pa, pb, p;
    for (int i = 0; i < 3; ++i) {
      pa[i] = tet4.X[3 * static_cast<size_t>(key.first) + i];
      pb[i] = tet4.X[3 * static_cast<size_t>(key.second) + i];
      p[i] = (pa[i] + pb[i]) / 2;
    }
    if (midpoint) p = midpoint(pa, pb);
    m.X.insert(m.X.end(), p.begin(), p.end());
    mid.emplace(key, n);
    return n;
  };
  const int num_cells = tet4.num_cells();
  m.cells.reserve(10 * static_cast<size_t>(num_cells));
  for (int c = 0; c < num_cells; ++c) {
    const int* v = tet4.cell(c);
    m.cells.insert(m.cells.end(), v, v + 4);
    for (int e = 0; e < 6; ++e)
      m.cells.push_back(mid_node(v[fem::Tet10::edge_corner(e, 0)], v[fem::Tet10::edge_corner(e, 1)]));
  }
  // A node group gains the mid-node of every edge whose two ends it holds (a clamped face stays
  // clamped along its edges).
  for (const auto& [name, nodes] : tet4.node_groups) {
    std::vector<char> in(static_cast<size_t>(tet4.num_nodes()), 0);
    for (int n : nodes) in[static_cast<size_t>(n)] = 1;
    std::vector<int> out = nodes;
    for (const auto& [edge, n] : mid)
      if (in[static_cast<size_t>(edge.first)] && in[static_cast<size_t>(edge.second)]) out.push_back(n);
    std::sort(out.begin(), out.end());
    m.node_groups[name] = std::move(out);
  }
  // Surface triangles become quadratic triangles (corners, then the mid-nodes of (0,1), (1,2),
  // (2,0)); a triangle that is no face of a cell (an edge without a mid-node) is refused.
  for (const auto& [name, s] : tet4.surface_groups) {
    SOFTIK_CHECK(
        s.quads.empty() && s.triangles6.empty(),
        "to_tet10: surface '" << name << "' has quads or quadratic triangles; a Tet4 mesh's surfaces are triangles");
    SurfaceGroup& q = m.surface_groups[name];
    for (const auto& t : s.triangles) {
      std::array<int, 6> face{t[0], t[1], t[2], -1, -1, -1};
      for (int k = 0; k < 3; ++k) {
        const int a = t[static_cast<size_t>(k)], b = t[static_cast<size_t>((k + 1) % 3)];
        const auto found = mid.find({std::min(a, b), std::max(a, b)});
        SOFTIK_CHECK(found != mid.end(), "to_tet10: surface '" << name << "' has a triangle with edge " << a << "-" << b
                                                               << ", which is no edge of a cell; give cell faces");
        face[static_cast<size_t>(3 + k)] = found->second;
      }
      q.triangles6.push_back(face);
    }
  }
  return m;
}

}  // namespace softik
