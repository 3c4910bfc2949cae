// The box the assembly benchmarks run on (bench/assembly.cpp, bench/dilatation.cpp): about
// `target` cells over a 4 x 1 x 1 box (4n x n x n cubes: one Hex8 or six tetrahedra each), with
// a bent-and-stretched state x (2% stretch along x, a parabolic bend in z).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "softik/mesh_generator.hpp"

namespace softik::bench {

struct Box {
  Mesh mesh;
  std::vector<Real> x;
};

inline Box bent_box(CellType type, int target) {
  const int per_cube = type == CellType::Hex8 ? 1 : 6;
  const int n = std::max(1, static_cast<int>(std::lround(std::cbrt(target / (4.0 * per_cube)))));
  BoxSpec spec;
  spec.size = {4.0, 1.0, 1.0};
  spec.cells = {4 * n, n, n};
  Box box;
  box.mesh = make_box(3, type, spec);
  box.x = box.mesh.rest_positions();
  for (int k = 0; k < box.mesh.num_nodes(); ++k) {
    const Real X = box.mesh.X[3 * k];
    box.x[3 * k + 0] *= 1.02;
    box.x[3 * k + 2] += 0.05 * X * X;
  }
  return box;
}

}  // namespace softik::bench
