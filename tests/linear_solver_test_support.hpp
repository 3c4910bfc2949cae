// The stiffness matrices shared by the linear solver tests (test_linear_solver.cpp and the GPU
// solver tests in tests/cuda/): a Tet4 beam and random right-hand sides.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <memory>
#include <random>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace solver_test {

struct System {
  Mesh mesh;
  std::unique_ptr<Assembler> assembler;
  std::vector<Real> K;
  int n() const { return assembler->num_free_dofs(); }
};

/// A 4 x 1 x 1 Tet4 beam of 12 x 3 x 3 cells (E = 100, nu = 0.3), its xmin face clamped (or
/// nothing fixed: six rigid-body modes, K singular), optionally compressed along x before K is
/// assembled (the neo-Hookean tangent is indefinite at 0.4). `extra_fixed`: DOFs fixed too.
inline System beam(bool fixed, Formulation formulation, Real compression = 1.0,
                   const std::vector<int>& extra_fixed = {}) {
  System s;
  s.mesh = box_mesh(CellType::Tet4, {12, 3, 3}, {4.0, 1.0, 1.0});
  AssemblyOptions options;
  options.formulation = formulation;
  const Material m = formulation == Formulation::Hyperelastic
                         ? Material(fem::NeoHookean::from_young_poisson(100.0, 0.3))
                         : Material(fem::LinearElastic::from_young_poisson(100.0, 0.3));
  std::vector<char> fixed_dofs;
  if (fixed) fixed_dofs = fix_nodes(s.mesh, s.mesh.node_groups.at("xmin"));
  if (!extra_fixed.empty() && fixed_dofs.empty()) fixed_dofs.assign(static_cast<std::size_t>(s.mesh.num_dofs()), 0);
  for (int dof : extra_fixed) fixed_dofs[static_cast<std::size_t>(dof)] = 1;
  s.assembler = std::make_unique<Assembler>(s.mesh, std::vector<Material>{m}, fixed_dofs, options);
  std::vector<Real> x = s.mesh.rest_positions();
  for (std::size_t k = 0; k < x.size(); k += 3) x[k] *= compression;
  s.assembler->assemble(x, nullptr, nullptr, &s.K);
  return s;
}

/// A solver of `kind` that has analysed s's pattern and factorised its K.
inline std::unique_ptr<LinearSolver> factored(LinearSolverKind kind, const System& s) {
  auto solver = make_linear_solver(kind);
  solver->analyze(s.assembler->pattern());
  solver->factorize(s.K);
  return solver;
}

/// n x nrhs standard normal entries (reproducible from the seed).
inline Eigen::MatrixXd random_columns(int n, int nrhs, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<Real> g;
  Eigen::MatrixXd B(n, nrhs);
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) B(i, j) = g(rng);
  return B;
}

}  // namespace solver_test
}  // namespace softik
