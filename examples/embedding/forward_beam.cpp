// Forward static solve through softik's C++ API: a cantilever beam (1 m x 0.1 m x 0.1 m, Hex8,
// neo-Hookean with Poisson's ratio 0) clamped at x = 0, a small downward load on its free end,
// solved by Newton-Raphson (solve_static). The tip deflection must match beam theory: the
// Euler-Bernoulli term P L^3 / (3 E I) plus Timoshenko's shear term P L / (k G A), k = 5/6.
// The load is small (deflection 0.4 % of the length), so the nonlinear solve is in the linear
// regime where beam theory holds. Exits 1 when the deflection is off, 2 on a softik::Error.
#include <cmath>
#include <cstdio>
#include <vector>

#include <softik/error.hpp>
#include <softik/mesh_generator.hpp>
#include <softik/static_solver.hpp>

int main() {
  using softik::Real;
  constexpr Real length = 1.0, side = 0.1, young = 1e4, load = 1e-3;
  try {
    softik::BoxSpec spec;
    spec.size = {length, side, side};
    spec.cells = {40, 4, 4};
    const softik::Mesh mesh = softik::make_box(3, softik::CellType::Hex8, spec);

    softik::AssemblyOptions options;
    options.formulation = softik::Formulation::Hyperelastic;
    const softik::Assembler assembler(mesh, {softik::fem::NeoHookean::from_young_poisson(young, 0.0)},
                                      softik::fix_nodes(mesh, mesh.node_groups.at("xmin")), options);

    // The load, split evenly over the nodes of the free end (x = length).
    const std::vector<int>& end = mesh.node_groups.at("xmax");
    std::vector<Real> f_ext(static_cast<size_t>(mesh.num_dofs()), 0.0);
    for (int n : end) f_ext[3 * static_cast<size_t>(n) + 2] = -load / static_cast<Real>(end.size());

    auto solver = softik::make_linear_solver();
    std::vector<Real> x = mesh.rest_positions();
    const softik::StaticResult result = softik::solve_static(assembler, *solver, f_ext, x);

    Real deflection = 0;  // mean downward displacement of the free end
    for (int n : end) deflection -= x[3 * static_cast<size_t>(n) + 2] - mesh.X[3 * static_cast<size_t>(n) + 2];
    deflection /= static_cast<Real>(end.size());
    const Real inertia = side * side * side * side / 12, area = side * side, shear_modulus = young / 2;
    const Real theory =
        load * length * length * length / (3 * young * inertia) + load * length / (5.0 / 6.0 * shear_modulus * area);
    const Real error = std::abs(deflection - theory) / theory;
    std::printf(
        "forward_beam: %d Newton iterations, tip deflection %.4e m, beam theory %.4e m, relative error %.2f %%\n",
        result.iterations, deflection, theory, 100 * error);
    // Linear hexahedra 4 cells through the height are a little stiff in bending (shear locking:
    // 3.1 % here); tests/assembly/test_beam.cpp shows the error falling as O(h^2) toward 0 on refinement.
    // A wrong modulus, load or sign is off by far more than 5 %.
    if (!(error < 0.05)) {
      std::fprintf(stderr, "forward_beam: FAILED: the tip deflection is more than 5 %% off beam theory\n");
      return 1;
    }
    return 0;
  } catch (const softik::Error& e) {
    std::fprintf(stderr, "forward_beam: softik error (%s): %s\n", softik::error_kind_name(e.kind()), e.what());
    return 2;
  }
}
