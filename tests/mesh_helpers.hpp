// Small helpers of the tests that build meshes and states on them: a 3D box mesh in one call, the
// pressure load on a generated actuator's cavity, and positions with random noise added.
#pragma once

#include <array>
#include <random>
#include <vector>

#include "softik/cavity.hpp"
#include "softik/mesh_generator.hpp"

namespace softik {

/// make_box(3, type, spec) with `cells` per axis over a box of `size` at the origin.
inline Mesh box_mesh(CellType type, const std::array<int, 3>& cells, const std::array<Real, 3>& size = {1, 1, 1}) {
  BoxSpec spec;
  spec.size = size;
  spec.cells = cells;
  return make_box(3, type, spec);
}

/// The pressure load "cavity" on the surface group "cavity" of a generated actuator (make_finger
/// and the other actuator generators), its pressure not set.
inline PressureLoad cavity_load(const Mesh& mesh) {
  PressureLoad load;
  load.name = "cavity";
  load.surface = mesh.surface_groups.at("cavity");
  return load;
}

/// x with every entry moved by a uniform random amount in [-amplitude, amplitude] (std::mt19937
/// seeded with `seed`).
inline std::vector<Real> with_noise(std::vector<Real> x, Real amplitude, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> u(-amplitude, amplitude);
  for (Real& v : x) v += u(rng);
  return x;
}

}  // namespace softik
