// Conjugate gradients preconditioned by a kept factorisation (host/linear/factor_pcg.hpp), the
// solver of the static solve's Krylov steps: the product with K against a dense product, one
// iteration where the factor is K's own, convergence to the tolerance (checked with a residual
// computed here, not by the recurrence) where the factor is of a nearby K, the iteration cap, a
// zero right-hand side, and the breakdown on an indefinite K.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "host/linear/factor_pcg.hpp"
#include "softik/assembly.hpp"
#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

struct LoadedBox {
  Mesh mesh;
  std::unique_ptr<Assembler> assembler;
  std::vector<Real> K;  ///< at rest, E = 1e5
  std::vector<Real> b;

  LoadedBox() {
    mesh = box_mesh(CellType::Tet4, {6, 3, 3}, {0.06, 0.03, 0.03});
    assembler =
        std::make_unique<Assembler>(mesh, std::vector<Material>{fem::LinearElastic::from_young_poisson(1e5, 0.3)},
                                    fix_nodes(mesh, mesh.node_groups.at("xmin")));
    assembler->assemble(mesh.rest_positions(), nullptr, nullptr, &K);
    b.resize(static_cast<size_t>(assembler->num_free_dofs()));
    for (size_t k = 0; k < b.size(); ++k) b[k] = std::sin(0.7 * static_cast<Real>(k)) + 0.1;
  }
  const CsrPattern& pattern() const { return assembler->pattern(); }
  int n() const { return assembler->num_free_dofs(); }
  /// A K nearby: the stiffness of every row block's first half scaled by 1 + s (symmetric:
  /// entry (i, j) scaled by sqrt((1 + s_i)(1 + s_j))).
  std::vector<Real> nearby(Real s) const {
    std::vector<Real> out = K;
    const CsrPattern& p = pattern();
    auto scale = [&](int i) { return i < n() / 2 ? std::sqrt(1 + s) : 1.0; };
    for (int i = 0; i < p.rows; ++i)
      for (int k = p.row_ptr[static_cast<size_t>(i)]; k < p.row_ptr[static_cast<size_t>(i) + 1]; ++k)
        out[static_cast<size_t>(k)] *= scale(i) * scale(p.col[static_cast<size_t>(k)]);
    return out;
  }
  /// |b - A x| / |b|, A given by the pattern's entries, summed here entry by entry.
  Real relative_residual(const std::vector<Real>& A, const std::vector<Real>& x) const {
    const CsrPattern& p = pattern();
    Real r2 = 0, b2 = 0;
    for (int i = 0; i < p.rows; ++i) {
      Real Ax = 0;
      for (int k = p.row_ptr[static_cast<size_t>(i)]; k < p.row_ptr[static_cast<size_t>(i) + 1]; ++k)
        Ax += A[static_cast<size_t>(k)] * x[static_cast<size_t>(p.col[static_cast<size_t>(k)])];
      r2 += (b[static_cast<size_t>(i)] - Ax) * (b[static_cast<size_t>(i)] - Ax);
      b2 += b[static_cast<size_t>(i)] * b[static_cast<size_t>(i)];
    }
    return std::sqrt(r2 / b2);
  }
};

std::unique_ptr<LinearSolver> factored(const LoadedBox& block, const std::vector<Real>& values) {
  auto solver = make_linear_solver();
  solver->analyze(block.pattern());
  solver->factorize(values);
  return solver;
}

TEST(FactorPcg, TheProductWithKEqualsTheDenseProduct) {
  const LoadedBox block;
  const int n = block.n();
  std::vector<Real> dense(static_cast<size_t>(n) * n, 0.0), x(static_cast<size_t>(n)), y(x.size());
  const CsrPattern& p = block.pattern();
  for (int i = 0; i < n; ++i)
    for (int k = p.row_ptr[static_cast<size_t>(i)]; k < p.row_ptr[static_cast<size_t>(i) + 1]; ++k)
      dense[static_cast<size_t>(i) * n + p.col[static_cast<size_t>(k)]] = block.K[static_cast<size_t>(k)];
  for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = std::cos(1.3 * i);
  for (int threads : {1, 2}) {
    detail::csr_multiply(p, block.K, x.data(), y.data(), threads);
    for (int i = 0; i < n; ++i) {
      Real expected = 0;
      for (int j = 0; j < n; ++j) expected += dense[static_cast<size_t>(i) * n + j] * x[static_cast<size_t>(j)];
      ASSERT_NEAR(y[static_cast<size_t>(i)], expected, 1e-9 * std::abs(block.K[0])) << "row " << i;
    }
  }
  // The pattern holds both triangles: K is symmetric entry for entry (to round-off).
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j)
      ASSERT_NEAR(dense[static_cast<size_t>(i) * n + j], dense[static_cast<size_t>(j) * n + i],
                  1e-12 * std::abs(block.K[0]));
}

TEST(FactorPcg, KsOwnFactorSolvesInOneIteration) {
  const LoadedBox block;
  const auto solver = factored(block, block.K);
  std::vector<Real> x(block.b.size()), direct(block.b.size());
  const detail::FactorPcgResult r =
      detail::factor_pcg(block.pattern(), block.K, *solver, block.b.data(), x.data(), 1e-10, 10, 2);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.iterations, 1);
  solver->solve(block.b.data(), direct.data(), 1);
  for (size_t k = 0; k < x.size(); ++k) ASSERT_NEAR(x[k], direct[k], 1e-10 * std::abs(direct[k]) + 1e-18) << k;
}

TEST(FactorPcg, ANearbyFactorConvergesToTheToleranceOfTheNewK) {
  const LoadedBox block;
  const auto solver = factored(block, block.K);
  const std::vector<Real> K2 = block.nearby(0.3);
  for (Real tolerance : {1e-3, 1e-6, 1e-10}) {
    std::vector<Real> x(block.b.size());
    const detail::FactorPcgResult r =
        detail::factor_pcg(block.pattern(), K2, *solver, block.b.data(), x.data(), tolerance, 50, 1);
    ASSERT_TRUE(r.converged) << tolerance;
    EXPECT_GT(r.iterations, 1);
    EXPECT_LE(r.relative_residual, tolerance);
    // The true residual of the new K, summed here, within round-off of the recurrence's.
    EXPECT_LE(block.relative_residual(K2, x), tolerance * 1.01 + 1e-13) << tolerance;
    // ... and not a solution of the old K: its residual there is large.
    EXPECT_GT(block.relative_residual(block.K, x), 1e-2) << tolerance;
  }
}

TEST(FactorPcg, StopsAtTheIterationCapWithoutClaimingConvergence) {
  const LoadedBox block;
  const auto solver = factored(block, block.K);
  const std::vector<Real> K2 = block.nearby(3.0);
  std::vector<Real> x(block.b.size());
  const detail::FactorPcgResult r =
      detail::factor_pcg(block.pattern(), K2, *solver, block.b.data(), x.data(), 1e-12, 2, 2);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 2);
  EXPECT_GT(r.relative_residual, 1e-12);
  EXPECT_NEAR(block.relative_residual(K2, x), r.relative_residual, 1e-9);
}

TEST(FactorPcg, AZeroRightHandSideGivesZero) {
  const LoadedBox block;
  const auto solver = factored(block, block.K);
  std::vector<Real> zero(block.b.size(), 0.0), x(block.b.size(), 1.0);
  const detail::FactorPcgResult r =
      detail::factor_pcg(block.pattern(), block.K, *solver, zero.data(), x.data(), 1e-8, 10, 1);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_TRUE(std::all_of(x.begin(), x.end(), [](Real v) { return v == 0; }));
}

TEST(FactorPcg, AnIndefiniteKBreaksDownInsteadOfConverging) {
  const LoadedBox block;
  const auto solver = factored(block, block.K);
  std::vector<Real> minus = block.K;
  for (Real& v : minus) v = -v;
  std::vector<Real> x(block.b.size());
  const detail::FactorPcgResult r =
      detail::factor_pcg(block.pattern(), minus, *solver, block.b.data(), x.data(), 1e-8, 10, 1);
  EXPECT_FALSE(r.converged);
  EXPECT_TRUE(r.indefinite);
  EXPECT_EQ(r.iterations, 1);
}

}  // namespace
}  // namespace softik
