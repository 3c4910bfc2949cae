// The two-thread sweeps over a supernodal factor (host/linear/supernodal_sweeps.hpp) against a
// dense triangular solve with the same L, in double and in single precision, and CHOLMOD's solves
// and preconditioner that use them against K.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <memory>
#include <random>
#include <vector>

#include "host/linear/factor_pcg.hpp"
#include "host/linear/linear_solvers.hpp"
#include "host/linear/supernodal_sweeps.hpp"
#include "softik/mesh_generator.hpp"
#include "tests/linear_solver_test_support.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

using detail::SupernodalLayout;
using detail::SupernodalSweeps;

/// Two chains of `chain_a` and `chain_b` supernodes of `width` columns under one separator
/// supernode of `top` columns (the root), postordered: chain A is supernodes 0 .. chain_a-1,
/// chain B the next ones.
/// Each chain supernode's rows below are the next supernode of its chain and the separator.
struct ToyFactor {
  std::vector<int> super, pi, px, s;
  std::vector<double> x;
  SupernodalLayout layout;
  Eigen::MatrixXd dense;  ///< the same L

  ToyFactor(int chain_a, int chain_b, int width, int top, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    const int ns = chain_a + chain_b + 1, n = (chain_a + chain_b) * width + top;
    super.push_back(0), pi.push_back(0), px.push_back(0);
    for (int k = 0; k < ns; ++k) {
      const int k1 = super.back(), nscol = k < ns - 1 ? width : top;
      super.push_back(k1 + nscol);
      for (int c = k1; c < k1 + nscol; ++c) s.push_back(c);
      const bool last_of_chain = k == chain_a - 1 || k == chain_a + chain_b - 1;
      if (k < ns - 1 && !last_of_chain)
        for (int c = k1 + width; c < k1 + 2 * width; ++c) s.push_back(c);  // the next in the chain
      if (k < ns - 1)
        for (int c = n - top; c < n; ++c) s.push_back(c);  // the separator
      pi.push_back(static_cast<int>(s.size()));
      const int nsrow = pi.back() - pi[static_cast<size_t>(k)];
      for (int c = 0; c < nscol; ++c)
        for (int r = 0; r < nsrow; ++r) x.push_back(r < c ? 0.0 : r == c ? 2.0 + u(rng) : 0.2 * u(rng));
      px.push_back(static_cast<int>(x.size()));
    }
    layout = SupernodalLayout{n, ns, super.data(), pi.data(), px.data(), s.data()};
    dense = Eigen::MatrixXd::Zero(n, n);
    for (int k = 0; k < ns; ++k) {
      const int nscol = super[k + 1] - super[k], nsrow = pi[k + 1] - pi[k];
      for (int c = 0; c < nscol; ++c)
        for (int r = 0; r < nsrow; ++r)
          dense(s[pi[k] + r], super[k] + c) = x[static_cast<size_t>(px[k] + c * nsrow + r)];
    }
  }
};

TEST(SupernodalSweeps, AgreeWithDenseTriangularSolvesForAnyThreadCount) {
  const ToyFactor f(100, 100, 8, 16, 7);
  const SupernodalSweeps sweeps(f.layout);
  ASSERT_TRUE(sweeps.worthwhile());
  // The two chains are equal halves: the longest path is one chain and the separator.
  EXPECT_LT(sweeps.critical_fraction(), 0.52);
  const Eigen::Index n = f.layout.n;
  for (int nrhs : {1, 3}) {
    const Eigen::MatrixXd B = solver_test::random_columns(static_cast<int>(n), nrhs, 11);
    const Eigen::MatrixXd z = f.dense.triangularView<Eigen::Lower>().solve(B);
    const Eigen::MatrixXd w = f.dense.transpose().triangularView<Eigen::Upper>().solve(B);
    Eigen::MatrixXd Z2 = B, Z1 = B, W2 = B, W1 = B;
    sweeps.forward(f.x.data(), Z2.data(), nrhs, 2);
    sweeps.forward(f.x.data(), Z1.data(), nrhs, 1);
    sweeps.backward(f.x.data(), W2.data(), nrhs, 2);
    sweeps.backward(f.x.data(), W1.data(), nrhs, 1);
    EXPECT_LT((Z2 - z).norm(), 1e-12 * z.norm()) << nrhs << " columns";
    EXPECT_LT((W2 - w).norm(), 1e-12 * w.norm()) << nrhs << " columns";
    // The groups are fixed: the same numbers on one thread as on two.
    EXPECT_EQ(Z1, Z2);
    EXPECT_EQ(W1, W2);
  }
}

TEST(SupernodalSweeps, SinglePrecisionSweepsAgreeToFloatRoundOff) {
  const ToyFactor f(100, 100, 8, 16, 7);
  const SupernodalSweeps sweeps(f.layout);
  ASSERT_TRUE(sweeps.worthwhile());
  const std::vector<float> x(f.x.begin(), f.x.end());
  const int n = f.layout.n;
  const Eigen::VectorXd b = solver_test::random_columns(n, 1, 13);
  const Eigen::VectorXd z = f.dense.triangularView<Eigen::Lower>().solve(b);
  const Eigen::VectorXd w = f.dense.transpose().triangularView<Eigen::Upper>().solve(b);
  for (int threads : {1, 2}) {
    Eigen::VectorXf Z = b.cast<float>(), W = b.cast<float>();
    sweeps.forward(x.data(), Z.data(), 1, threads);
    sweeps.backward(x.data(), W.data(), 1, threads);
    // float's unit round-off is 6e-8; this L's diagonal dominates, so errors barely grow.
    const Real ez = (Z.cast<double>() - z).norm() / z.norm(), ew = (W.cast<double>() - w).norm() / w.norm();
    EXPECT_LT(ez, 1e-5) << threads;
    EXPECT_LT(ew, 1e-5) << threads;
    EXPECT_GT(ez, 1e-12) << "no single-precision round-off: the double sweeps ran";
  }
}

TEST(SupernodalSweeps, SmallOrUnsplittableFactorsAreLeftToCholmod) {
  const ToyFactor small(4, 4, 3, 4, 1);  // a few hundred entries: the second thread would not pay
  EXPECT_FALSE(SupernodalSweeps(small.layout).worthwhile());
  // One chain under the separator (a path): nothing to run side by side.
  const ToyFactor path(200, 0, 8, 16, 2);
  const SupernodalSweeps chain(path.layout);
  EXPECT_FALSE(chain.worthwhile());
  EXPECT_DOUBLE_EQ(chain.critical_fraction(), 1.0);
  // A lopsided pair (150 and 50 supernodes): the longest path is the long chain, 3/4 of L.
  const ToyFactor lopsided(150, 50, 8, 16, 3);
  EXPECT_NEAR(SupernodalSweeps(lopsided.layout).critical_fraction(), 0.75, 0.01);
}

#ifdef SOFTIK_HAVE_CHOLMOD
/// A Tet4 box whose factor splits (its nested-dissection-like AMD tree has two large halves), its
/// stiffness, and CHOLMOD with K factorised.
struct SplitBox {
  Mesh mesh;
  std::unique_ptr<Assembler> assembler;
  std::vector<Real> K;
  std::unique_ptr<LinearSolver> solver = make_cholmod_solver();
  SplitBox() {
    mesh = box_mesh(CellType::Tet4, {40, 5, 5}, {8.0, 1.0, 1.0});
    assembler =
        std::make_unique<Assembler>(mesh, std::vector<Material>{fem::LinearElastic::from_young_poisson(100.0, 0.3)},
                                    fix_nodes(mesh, mesh.node_groups.at("xmin")), AssemblyOptions{});
    assembler->assemble(mesh.rest_positions(), nullptr, nullptr, &K);
    solver->analyze(assembler->pattern());
    solver->factorize(K);
  }
};

// CHOLMOD's solves through the sweeps solve K x = b, and the half solves compose to the full one.
TEST(SupernodalSweeps, CholmodSolvesWithTheSplitSweepsSolveK) {
  SplitBox box;
  const int n = box.assembler->num_free_dofs();
  ASSERT_GT(box.solver->info().factor_nnz, 4e4);
  const Eigen::MatrixXd B = solver_test::random_columns(n, 2, 5);
  Eigen::MatrixXd X(n, 2), Z(n, 2), Y(n, 2);
  box.solver->solve(B.data(), X.data(), 2);
  // K x - b with K's CSR rows (the full symmetric pattern).
  const CsrPattern& p = box.assembler->pattern();
  Eigen::MatrixXd R = -B;
  for (int i = 0; i < n; ++i)
    for (int q = p.row_ptr[static_cast<size_t>(i)]; q < p.row_ptr[static_cast<size_t>(i) + 1]; ++q)
      R.row(i) += box.K[static_cast<size_t>(q)] * X.row(p.col[static_cast<size_t>(q)]);
  EXPECT_LT(R.norm(), 1e-10 * B.norm());
  box.solver->solve_forward(B.data(), Z.data(), 2);
  box.solver->solve_backward(Z.data(), Y.data(), 2);
  EXPECT_LT((Y - X).norm(), 1e-12 * X.norm());
  // z = L^-1 P b: |z|^2 = b^T K^-1 b.
  EXPECT_NEAR(Z.col(0).squaredNorm(), B.col(0).dot(X.col(0)), 1e-10 * B.col(0).dot(X.col(0)));
}

// The preconditioner applies a single-precision copy of the factor (LinearSolver::precondition):
// K^-1 b to float round-off, the copy renewed with every factorisation, and conjugate gradients
// around it still solve K x = b to a double-precision tolerance.
TEST(SupernodalSweeps, CholmodPreconditionsWithASinglePrecisionFactor) {
  SplitBox box;
  const int n = box.assembler->num_free_dofs();
  const Eigen::VectorXd b = solver_test::random_columns(n, 1, 9);
  Eigen::VectorXd x(n), p(n);
  box.solver->solve(b.data(), x.data(), 1);
  box.solver->precondition(b.data(), p.data());
  const Real difference = (p - x).norm() / x.norm();
  EXPECT_LT(difference, 1e-4);
  EXPECT_GT(difference, 1e-12) << "no single-precision round-off: precondition() did not use the float copy";
  // A new factorisation (2 K) replaces the copy: the preconditioner halves.
  std::vector<Real> K2 = box.K;
  for (Real& v : K2) v *= 2;
  box.solver->factorize(K2);
  Eigen::VectorXd p2(n);
  box.solver->precondition(b.data(), p2.data());
  EXPECT_LT((p2 - 0.5 * x).norm(), 1e-4 * (0.5 * x).norm());
  // CG with K2's own factor as preconditioner reaches 1e-12 of K2's true residual in a few iterations.
  Eigen::VectorXd y(n);
  const detail::FactorPcgResult r =
      detail::factor_pcg(box.assembler->pattern(), K2, *box.solver, b.data(), y.data(), 1e-12, 10, 2);
  ASSERT_TRUE(r.converged);
  EXPECT_LE(r.iterations, 4);
  const CsrPattern& pattern = box.assembler->pattern();
  Eigen::VectorXd residual = -b;
  for (int i = 0; i < n; ++i)
    for (int q = pattern.row_ptr[static_cast<size_t>(i)]; q < pattern.row_ptr[static_cast<size_t>(i) + 1]; ++q)
      residual[i] += K2[static_cast<size_t>(q)] * y[pattern.col[static_cast<size_t>(q)]];
  EXPECT_LT(residual.norm(), 1e-11 * b.norm());
}
#endif

}  // namespace
}  // namespace softik
