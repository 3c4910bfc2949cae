// softik's main example (for now): generate a cantilever beam, bend it with a prescribed
// displacement field, and assemble its elastic energy, forces and tangent stiffness with the
// corotational (Tet4) and neo-Hookean (Hex8) formulations. Prints energy, force norm, nnz and timing.
//
// Usage: beam_assembly [cells_along_length]   (default 40: 40 x 8 x 8 cells)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "softik/assembly.hpp"
#include "softik/mesh_generator.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Bend the beam about the y axis: a curvature kappa, as a pure-bending displacement field.
std::vector<softik::Real> bent_positions(const softik::Mesh& mesh, softik::Real kappa) {
  std::vector<softik::Real> x = mesh.rest_positions();
  for (int n = 0; n < mesh.num_nodes(); ++n) {
    const softik::Real X = mesh.X[3 * n], Z = mesh.X[3 * n + 2] - 0.05;
    x[3 * n + 0] = (1.0 / kappa - Z) * std::sin(kappa * X);
    x[3 * n + 2] = 0.05 + 1.0 / kappa - (1.0 / kappa - Z) * std::cos(kappa * X);
  }
  return x;
}

void run(const char* label, softik::CellType type, softik::Formulation formulation, const softik::Material& material,
         int nx) {
  softik::BoxSpec spec;
  spec.size = {1.0, 0.1, 0.1};  // metres
  spec.cells = {nx, std::max(1, nx / 5), std::max(1, nx / 5)};
  const softik::Mesh mesh = softik::make_box(3, type, spec);
  softik::AssemblyOptions options;
  options.formulation = formulation;
  const softik::Assembler assembler(mesh, {material}, softik::fix_nodes(mesh, mesh.node_groups.at("xmin")), options);
  const std::vector<softik::Real> x = bent_positions(mesh, 1.0);

  softik::Real energy = 0;
  std::vector<softik::Real> force, K;
  assembler.assemble(x, &energy, &force, &K);  // warm-up: first touch of the buffers
  const int repeats = 5;
  const auto t0 = Clock::now();
  for (int r = 0; r < repeats; ++r) assembler.assemble(x, &energy, &force, &K);
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count() / repeats;
  double norm = 0;
  for (softik::Real f : force) norm += f * f;
  std::printf("%-32s %8d cells %8d free DOFs %10d nnz | energy %.6e J | |f| %.6e N | %.3f ms (%.2f M cells/s)\n", label,
              mesh.num_cells(), assembler.num_free_dofs(), assembler.pattern().nnz(), energy, std::sqrt(norm),
              1e3 * seconds, mesh.num_cells() / seconds / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  const int nx = argc > 1 ? std::atoi(argv[1]) : 40;
  if (nx < 1) {
    std::fprintf(stderr, "usage: %s [cells_along_length >= 1]\n", argv[0]);
    return 2;
  }
  try {
    const softik::Real E = 1e6, nu = 0.45;  // a soft silicone, Pa
    std::printf("softik: 1 m x 0.1 m x 0.1 m cantilever (E = %.0e Pa, nu = %.2f) bent to curvature 1/m\n", E, nu);
    run("Tet4 corotational", softik::CellType::Tet4, softik::Formulation::Corotational,
        softik::fem::LinearElastic::from_young_poisson(E, nu), nx);
    run("Tet4 neo-Hookean", softik::CellType::Tet4, softik::Formulation::Hyperelastic,
        softik::fem::NeoHookean::from_young_poisson(E, nu), nx);
    run("Hex8 corotational", softik::CellType::Hex8, softik::Formulation::Corotational,
        softik::fem::LinearElastic::from_young_poisson(E, nu), nx);
    run("Hex8 neo-Hookean", softik::CellType::Hex8, softik::Formulation::Hyperelastic,
        softik::fem::NeoHookean::from_young_poisson(E, nu), nx);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
