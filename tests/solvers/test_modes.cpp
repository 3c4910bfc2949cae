// Natural modes (modes.hpp) against mechanics: a slender cantilever's first two bending pairs
// against Euler-Bernoulli (quadratic tetrahedra, nu = 0), the modes M-orthonormal and solving
// K phi = lambda M phi; a body that floats has six zero eigenvalues (rigid motions) found with a
// negative shift, and is refused with the fix at shift 0; bad options are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/modes.hpp"
#include "tests/expect_refused.hpp"
#include "tests/math_constants.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

struct Beam {
  Mesh mesh;
  std::unique_ptr<Assembler> assembler;
};

// A beam of length 1 and square section h, quadratic tetrahedra, linear elastic E, nu = 0; clamped
// at x = 0, or free.
Beam make_beam(Real h, bool clamped) {
  Beam b;
  BoxSpec spec;
  spec.size = {1.0, h, h};
  spec.cells = {40, 2, 2};
  b.mesh = make_box(3, CellType::Tet10, spec);
  AssemblyOptions o;
  o.formulation = Formulation::LinearSmallStrain;
  std::vector<char> fixed(static_cast<size_t>(b.mesh.num_dofs()), 0);
  if (clamped) fixed = fix_nodes(b.mesh, b.mesh.node_groups.at("xmin"));
  b.assembler = std::make_unique<Assembler>(
      b.mesh, std::vector<Material>{fem::LinearElastic::from_young_poisson(1e6, 0.0)}, fixed, o);
  return b;
}

TEST(Modes, CantileverBendingFrequenciesAreEulerBernoullis) {
  const Real h = 0.05, E = 1e6, rho = 1000;
  Beam b = make_beam(h, true);
  std::unique_ptr<LinearSolver> solver = make_linear_solver();
  ModesOptions o;
  o.count = 4;
  o.density = rho;
  const ModesResult r = natural_modes(*b.assembler, *solver, b.mesh.rest_positions(), o);
  ASSERT_EQ(r.frequencies.size(), 4u);
  const Real c = std::sqrt(E * h * h / 12 / rho);  // sqrt(E I / (rho A)), L = 1
  const Real f1 = 1.87510407 * 1.87510407 / (2 * kPi) * c, f2 = 4.69409113 * 4.69409113 / (2 * kPi) * c;
  std::printf("cantilever modes: %.6f %.6f Hz (Euler-Bernoulli %.6f), %.6f %.6f Hz (%.6f)\n", r.frequencies[0],
              r.frequencies[1], f1, r.frequencies[2], r.frequencies[3], f2);
  for (int k : {0, 1}) EXPECT_NEAR(r.frequencies[static_cast<size_t>(k)], f1, 0.01 * f1) << "mode " << k + 1;
  for (int k : {2, 3}) EXPECT_NEAR(r.frequencies[static_cast<size_t>(k)], f2, 0.015 * f2) << "mode " << k + 1;
  EXPECT_NEAR(r.frequencies[1], r.frequencies[0], 1e-3 * f1);  // the square section's two directions

  // K phi = lambda M phi and phi_i^T M phi_j = delta_ij on the free DOFs.
  std::vector<Real> K;
  b.assembler->assemble(b.mesh.rest_positions(), nullptr, nullptr, &K);
  const std::vector<Real> M = b.assembler->mass_matrix(rho);
  const CsrPattern& p = b.assembler->pattern();
  const std::vector<int>& free = b.assembler->free_dof_index();
  const auto times = [&](const std::vector<Real>& A, const std::vector<Real>& shape) {
    std::vector<Real> z(static_cast<size_t>(p.rows)), y(static_cast<size_t>(p.rows), 0.0);
    for (size_t d = 0; d < free.size(); ++d)
      if (free[d] >= 0) z[static_cast<size_t>(free[d])] = shape[d];
    for (int r = 0; r < p.rows; ++r)
      for (int e = p.row_ptr[static_cast<size_t>(r)]; e < p.row_ptr[static_cast<size_t>(r) + 1]; ++e)
        y[static_cast<size_t>(r)] += A[static_cast<size_t>(e)] * z[static_cast<size_t>(p.col[static_cast<size_t>(e)])];
    return std::make_pair(z, y);
  };
  for (size_t i = 0; i < 4; ++i) {
    const auto [zi, Kz] = times(K, r.shapes[i]);
    const auto [zi2, Mz] = times(M, r.shapes[i]);
    Real residual = 0, scale = 0;
    for (size_t k = 0; k < Kz.size(); ++k) {
      residual += std::pow(Kz[k] - r.eigenvalues[i] * Mz[k], 2);
      scale += Kz[k] * Kz[k];
    }
    EXPECT_LT(std::sqrt(residual / scale), 1e-8) << "mode " << i + 1;
    for (size_t j = 0; j < 4; ++j) {
      const auto [zj, unused] = times(M, r.shapes[j]);
      Real dot = 0;
      for (size_t k = 0; k < Mz.size(); ++k) dot += zj[k] * Mz[k];
      EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 1e-8) << i << ", " << j;
    }
  }
}

TEST(Modes, AFloatingBodyHasSixRigidModes) {
  Beam b = make_beam(0.2, false);
  std::unique_ptr<LinearSolver> solver = make_linear_solver();
  ModesOptions o;
  o.count = 7;
  o.shift = -1;
  o.density = 1000;
  const ModesResult r = natural_modes(*b.assembler, *solver, b.mesh.rest_positions(), o);
  ASSERT_EQ(r.eigenvalues.size(), 7u);
  for (size_t k = 0; k < 6; ++k) EXPECT_LT(std::abs(r.eigenvalues[k]), 1e-7 * r.eigenvalues[6]) << "mode " << k + 1;
  EXPECT_GT(r.eigenvalues[6], 1.0);  // the first elastic mode
  o.shift = 0;
  std::unique_ptr<LinearSolver> fresh = make_linear_solver();
  expect_refused([&] { natural_modes(*b.assembler, *fresh, b.mesh.rest_positions(), o); },
                 "give a negative modes shift");
}

TEST(Modes, BadOptionsAreRefused) {
  Beam b = make_beam(0.05, true);
  std::unique_ptr<LinearSolver> solver = make_linear_solver();
  const std::vector<Real> X = b.mesh.rest_positions();
  ModesOptions o;
  o.count = 0;
  expect_refused([&] { natural_modes(*b.assembler, *solver, X, o); }, "modes: count = 0");
  o = ModesOptions{};
  o.density = -1;
  expect_refused([&] { natural_modes(*b.assembler, *solver, X, o); }, "modes: density = -1");
  o = ModesOptions{};
  o.shift = std::nan("");
  expect_refused([&] { natural_modes(*b.assembler, *solver, X, o); }, "modes: shift");
}

}  // namespace
}  // namespace softik
