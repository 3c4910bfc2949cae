// The clamped Tet4 beam the linear solver benchmarks factor (bench/linear_solver.cpp,
// bench/cuda_linear_solver.cpp): 4n x n x n cubes of 6 tets over a 4 x 1 x 1 box, clamped at
// x = 0, corotational LinearElastic (E = 1e5, nu = 0.45), K assembled at rest; cached per n.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/mesh_generator.hpp"

namespace softik::bench {

struct Beam {
  Mesh mesh;
  std::unique_ptr<Assembler> assembler;
  std::vector<Real> K;
};

inline const Beam& beam(int n) {
  static std::map<int, std::unique_ptr<Beam>> cache;
  auto& slot = cache[n];
  if (!slot) {
    slot = std::make_unique<Beam>();
    BoxSpec spec;
    spec.size = {4.0, 1.0, 1.0};
    spec.cells = {4 * n, n, n};
    slot->mesh = make_box(3, CellType::Tet4, spec);
    slot->assembler = std::make_unique<Assembler>(
        slot->mesh, std::vector<Material>{fem::LinearElastic::from_young_poisson(1e5, 0.45)},
        fix_nodes(slot->mesh, slot->mesh.node_groups.at("xmin")));
    slot->assembler->assemble(slot->mesh.rest_positions(), nullptr, nullptr, &slot->K);
  }
  return *slot;
}

}  // namespace softik::bench
