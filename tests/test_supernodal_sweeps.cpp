// The two-thread sweeps over a supernodal factor (host/solvers/supernodal_sweeps.hpp) against a
// dense triangular solve with the same L, and CHOLMOD's solves that use them against K.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>
#include <vector>

#include "host/solvers/linear_solvers.hpp"
#include "host/solvers/supernodal_sweeps.hpp"
#include "linear_solver_test_support.hpp"
#include "softik/mesh_generator.hpp"

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
        for (int r = 0; r < nsrow; ++r) dense(s[pi[k] + r], super[k] + c) = x[static_cast<size_t>(px[k] + c * nsrow + r)];
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
// A Tet4 box whose factor splits (its nested-dissection-like AMD tree has two large halves):
// CHOLMOD's solves through the sweeps solve K x = b, and the half solves compose to the full one.
TEST(SupernodalSweeps, CholmodSolvesWithTheSplitSweepsSolveK) {
  BoxSpec spec;
  spec.size = {8.0, 1.0, 1.0};
  spec.cells = {40, 5, 5};
  const Mesh mesh = make_box(3, CellType::Tet4, spec);
  const Assembler assembler(mesh, {Material(fem::LinearElastic::from_young_poisson(100.0, 0.3))},
                            fix_nodes(mesh, mesh.node_groups.at("xmin")), AssemblyOptions{});
  std::vector<Real> K;
  assembler.assemble(mesh.rest_positions(), nullptr, nullptr, &K);
  const int n = assembler.num_free_dofs();
  auto solver = make_cholmod_solver();
  solver->analyze(assembler.pattern());
  solver->factorize(K);
  ASSERT_GT(solver->info().factor_nnz, 4e4);
  const Eigen::MatrixXd B = solver_test::random_columns(n, 2, 5);
  Eigen::MatrixXd X(n, 2), Z(n, 2), Y(n, 2);
  solver->solve(B.data(), X.data(), 2);
  // K x - b with K's CSR rows (the full symmetric pattern).
  const CsrPattern& p = assembler.pattern();
  Eigen::MatrixXd R = -B;
  for (int i = 0; i < n; ++i)
    for (int q = p.row_ptr[static_cast<size_t>(i)]; q < p.row_ptr[static_cast<size_t>(i) + 1]; ++q)
      R.row(i) += K[static_cast<size_t>(q)] * X.row(p.col[static_cast<size_t>(q)]);
  EXPECT_LT(R.norm(), 1e-10 * B.norm());
  solver->solve_forward(B.data(), Z.data(), 2);
  solver->solve_backward(Z.data(), Y.data(), 2);
  EXPECT_LT((Y - X).norm(), 1e-12 * X.norm());
  // z = L^-1 P b: |z|^2 = b^T K^-1 b.
  EXPECT_NEAR(Z.col(0).squaredNorm(), B.col(0).dot(X.col(0)), 1e-10 * B.col(0).dot(X.col(0)));
}
#endif

}  // namespace
}  // namespace softik
