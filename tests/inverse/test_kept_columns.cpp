// The inverse step's kept columns (host/inverse/kept_columns.hpp): on a kept factor, the columns
// of constraint rows whose J^T did not change are taken from the last solve and the others are
// solved again, on the forward path (Z = L^-1 P B, G = Z^T Z) and on the full path (Z = K^-1 B,
// the path of solvers without a Cholesky factor such as cuDSS). Either way Z must be the Z that
// solving every column gives.
#include <gtest/gtest.h>

#include <random>

#include "host/inverse/kept_columns.hpp"
#include "tests/inverse_test_support.hpp"

namespace softik {
namespace {

using inverse_detail::KeptSolve;

Real relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a - b).norm() / b.norm(); }

class KeptColumnsTest : public ::testing::TestWithParam<KeptSolve> {
 protected:
  void SetUp() override {
    std::vector<Real> K;
    f.assembler.assemble(f.inflate(10e3), nullptr, nullptr, &K);
    solver->analyze(f.assembler.pattern());
    solver->factorize(K);
    ASSERT_TRUE(solver->has_cholesky_factor()) << "the finger's tangent at 10 kPa is definite";
  }
  /// Every column of B solved the way `how` asks.
  Eigen::MatrixXd solved(const Eigen::MatrixXd& B) const {
    Eigen::MatrixXd Z(B.rows(), B.cols());
    if (GetParam() == KeptSolve::Forward)
      solver->solve_forward(B.data(), Z.data(), static_cast<int>(B.cols()));
    else
      solver->solve(B.data(), Z.data(), static_cast<int>(B.cols()));
    return Z;
  }
  const inverse_test::Finger f;
  std::unique_ptr<LinearSolver> solver = make_linear_solver();
};

TEST_P(KeptColumnsTest, AChangedRowIsSolvedAgainAndTheOthersAreTheSolvesOfTheirColumns) {
  const Eigen::Index n = f.assembler.num_free_dofs();
  constexpr int k = 3;  // columns 1..3: constraint rows; column 4: a low-rank column (always solved)
  std::mt19937 rng(7);
  std::normal_distribution<Real> normal;
  Eigen::MatrixXd B(n, 1 + k + 1);
  for (Eigen::Index i = 0; i < B.size(); ++i) B.data()[i] = normal(rng);
  std::vector<Real> kept_Jt, kept_Z;
  int kept_rows = -1;
  inverse_detail::KeptColumns kept{kept_Jt, kept_Z, kept_rows};
  Eigen::MatrixXd Z, G;

  // The step that factorised: everything solved, the three rows kept.
  EXPECT_EQ(inverse_detail::solve_with_kept_columns(*solver, GetParam(), true, k, kept, B, Z, G), 0);
  EXPECT_EQ(kept_rows, k);
  EXPECT_LE(relative(Z, solved(B)), 1e-14);
  const Eigen::MatrixXd Z_first = Z;

  // A chord step: a new residual, row 2's J^T moved (a cavity's volume gradient), rows 1 and 3
  // did not (an effector's fixed interpolation).
  for (Eigen::Index i = 0; i < n; ++i) {
    B(i, 0) = normal(rng);
    B(i, 2) += 0.1 * normal(rng);
    B(i, 4) = normal(rng);
  }
  EXPECT_EQ(inverse_detail::solve_with_kept_columns(*solver, GetParam(), false, k, kept, B, Z, G), 2);
  const Eigen::MatrixXd Z_all = solved(B);
  EXPECT_LE(relative(Z, Z_all), 1e-14);
  // Had row 2's column been kept from the first step, Z would be far from the solves.
  EXPECT_GT((Z_first.col(2) - Z_all.col(2)).norm(), 1e-3 * Z_all.col(2).norm());
  EXPECT_LE(relative(Eigen::Map<const Eigen::MatrixXd>(kept_Z.data(), n, k), Z_all.middleCols(1, k)), 1e-14);
  if (GetParam() == KeptSolve::Forward) {  // G = Z^T Z = B^T K^-1 B
    Eigen::MatrixXd X(n, B.cols());
    solver->solve(B.data(), X.data(), static_cast<int>(B.cols()));
    EXPECT_LE(relative(G, B.transpose() * X), 1e-10);
  }

  // With the count of rows changed (a contact appeared as a row), nothing is taken from `kept`.
  Eigen::MatrixXd B2(n, 1 + k + 1 + 1);
  B2 << B, B.col(1);
  EXPECT_EQ(inverse_detail::solve_with_kept_columns(*solver, GetParam(), false, k + 1, kept, B2, Z, G), 0);
  EXPECT_EQ(kept_rows, k + 1);
  EXPECT_LE(relative(Z, solved(B2)), 1e-14);
}

INSTANTIATE_TEST_SUITE_P(Paths, KeptColumnsTest, ::testing::Values(KeptSolve::Forward, KeptSolve::Full),
                         [](const ::testing::TestParamInfo<KeptSolve>& info) {
                           return info.param == KeptSolve::Forward ? "ForwardSolves" : "FullSolves";
                         });

}  // namespace
}  // namespace softik
