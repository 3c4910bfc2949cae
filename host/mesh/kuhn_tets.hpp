// The generators' split of a logical hex into six tetrahedra (mesh_generator.cpp: the box;
// shell_generator.cpp: the shells), so that both split their hexes the same way.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include "softik/mesh.hpp"

namespace softik::detail {

/// The signed volume of the tet t of m: positive when (t1 - t0, t2 - t0, t3 - t0) is right-handed.
inline Real signed_tet_volume(const Mesh& m, const std::array<int, 4>& t) {
  const Real* p[4];
  for (int k = 0; k < 4; ++k) p[k] = &m.X[3 * static_cast<size_t>(t[k])];
  Real e[3][3];
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 3; ++i) e[k][i] = p[k + 1][i] - p[0][i];
  return (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
          e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) /
         6.0;
}

/// Appends the logical hex with corners h in VTK order (h[0] = (0,0,0), h[1] = (1,0,0),
/// h[2] = (1,1,0), h[3] = (0,1,0), h[4..7] the same at w = 1) to m.cells as six Kuhn tets, one per
/// path (0,0,0) -> (1,1,1) along the axes in each order. A tet that comes out negatively oriented
/// is flipped (swapping two vertices keeps its faces).
inline void add_kuhn_tets(Mesh& m, const int* h) {
  // Corner index of logical (cu, cv, cw) in VTK order.
  const auto corner = [&](int cu, int cv, int cw) {
    static constexpr int kBottom[2][2] = {{0, 3}, {1, 2}};  // [cu][cv]
    return h[kBottom[cu][cv] + 4 * cw];
  };
  const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (const auto& p : perms) {
    int c[3] = {0, 0, 0};
    std::array<int, 4> t;
    t[0] = corner(0, 0, 0);
    for (int s = 0; s < 3; ++s) {
      c[p[s]] = 1;
      t[static_cast<size_t>(s) + 1] = corner(c[0], c[1], c[2]);
    }
    if (signed_tet_volume(m, t) < 0) std::swap(t[2], t[3]);
    m.cells.insert(m.cells.end(), t.begin(), t.end());
  }
}

}  // namespace softik::detail
