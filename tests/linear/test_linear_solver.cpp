// Sparse solvers on assembled stiffness matrices: residuals, agreement between CHOLMOD and
// Eigen, many right-hand sides, the indefinite (L D L^T) path, singular K reported, and the
// half solves of a Cholesky factor K = P^T L L^T P (z = L^-1 P b, x = P^T L^-T z).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Sparse>
#include <random>

#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"
#include "tests/linear_solver_test_support.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

using solver_test::beam;
using solver_test::random_columns;
using solver_test::System;

std::vector<LinearSolverKind> kinds() {
  std::vector<LinearSolverKind> k{LinearSolverKind::EigenLDLT};
  if (have_cholmod()) k.push_back(LinearSolverKind::Cholmod);
  return k;
}

Real relative_residual(const System& s, const Eigen::MatrixXd& X, const Eigen::MatrixXd& B) {
  const auto K = s.assembler->to_sparse(s.K);
  return (K * X - B).norm() / B.norm();
}

TEST(LinearSolver, SolvesManyRightHandSidesAndSolversAgree) {
  const System s = beam(true, Formulation::Corotational);
  const int n = s.assembler->num_free_dofs(), nrhs = 5;
  std::mt19937 rng(3);
  std::normal_distribution<Real> g;
  Eigen::MatrixXd B(n, nrhs);
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) B(i, j) = g(rng);
  std::vector<Eigen::MatrixXd> solutions;
  for (LinearSolverKind kind : kinds()) {
    auto solver = solver_test::factored(kind, s);
    Eigen::MatrixXd X(n, nrhs);
    solver->solve(B.data(), X.data(), nrhs);
    EXPECT_LE(relative_residual(s, X, B), 1e-12) << solver->name();
    EXPECT_FALSE(solver->info().indefinite) << solver->name();
    EXPECT_GT(solver->info().pivot_ratio, 1e-8) << solver->name();
    EXPECT_GE(solver->info().factor_nnz, n) << solver->name();
    // Refactor with new values in the same pattern (scaled K): the solution scales back.
    std::vector<Real> doubled = s.K;
    for (Real& v : doubled) v *= 2;
    solver->factorize(doubled);
    Eigen::MatrixXd X2(n, nrhs);
    solver->solve(B.data(), X2.data(), nrhs);
    EXPECT_LE((2 * X2 - X).norm() / X.norm(), 1e-12) << solver->name();
    solutions.push_back(X);
  }
  for (size_t k = 1; k < solutions.size(); ++k)
    EXPECT_LE((solutions[k] - solutions[0]).norm() / solutions[0].norm(), 1e-10);
}

TEST(LinearSolver, IndefiniteTangentUsesLdlt) {
  // 60% axial compression: the neo-Hookean tangent has negative eigenvalues but is regular.
  const System s = beam(true, Formulation::Hyperelastic, 0.4);
  const Eigen::MatrixXd Kd = Eigen::MatrixXd(s.assembler->to_sparse(s.K));
  ASSERT_LT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Kd).eigenvalues().minCoeff(), 0.0)
      << "the test state must be indefinite";
  const int n = s.assembler->num_free_dofs();
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 1.0);
  for (LinearSolverKind kind : kinds()) {
    auto solver = solver_test::factored(kind, s);
    EXPECT_TRUE(solver->info().indefinite) << solver->name();
    Eigen::VectorXd x(n);
    solver->solve(b.data(), x.data(), 1);
    EXPECT_LE(relative_residual(s, x, b), 1e-9) << solver->name();
    // And back to a definite matrix with the same solver object.
    const System d = beam(true, Formulation::Hyperelastic, 1.0);
    solver->factorize(d.K);
    EXPECT_FALSE(solver->info().indefinite) << solver->name();
    solver->solve(b.data(), x.data(), 1);
    EXPECT_LE(relative_residual(d, x, b), 1e-12) << solver->name();
  }
}

/// The clamped beam's hyperelastic tangents compressed to 0.4 (indefinite) and at rest (definite),
/// and a right-hand side for them.
struct Tangents {
  System indefinite = beam(true, Formulation::Hyperelastic, 0.4);
  System definite = beam(true, Formulation::Hyperelastic, 1.0);
  Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(indefinite.n(), -1.0, 1.0);
  int n() const { return indefinite.n(); }
};

TEST(LinearSolver, ARunOfIndefiniteTangentsCostsOneFactorisationEach) {
  // Only the step into indefiniteness may take two numeric passes (L L^T fails, L D L^T
  // follows); the next indefinite matrix goes to L D L^T at once, the first definite one after
  // it too (its positive pivots turn the factor into L L^T in place), and the one after that is
  // back on L L^T. Every solve stays exact and the half solves follow the factor's kind.
  const Tangents t;
  const System* sequence[] = {&t.indefinite, &t.indefinite, &t.indefinite, &t.definite, &t.definite, &t.indefinite};
  Eigen::VectorXd x(t.n()), z(t.n());
  for (LinearSolverKind kind : kinds()) {
    auto solver = make_linear_solver(kind);
    solver->analyze(t.indefinite.assembler->pattern());
    for (size_t k = 0; k < 6; ++k) {
      const System& s = *sequence[k];
      solver->factorize(s.K);
      const bool is_indefinite = &s == &t.indefinite;
      EXPECT_EQ(solver->info().indefinite, is_indefinite) << solver->name() << ", matrix " << k;
      const bool into_indefinite = is_indefinite && (k == 0 || sequence[k - 1] == &t.definite);
      if (into_indefinite) {
        EXPECT_GE(solver->info().passes, 1) << solver->name() << ", matrix " << k;
        EXPECT_LE(solver->info().passes, 2) << solver->name() << ", matrix " << k;
      } else {
        EXPECT_EQ(solver->info().passes, 1) << solver->name() << ", matrix " << k;
      }
      EXPECT_EQ(solver->has_cholesky_factor(), !is_indefinite) << solver->name() << ", matrix " << k;
      solver->solve(t.b.data(), x.data(), 1);
      EXPECT_LE(relative_residual(s, x, t.b), 1e-9) << solver->name() << ", matrix " << k;
      if (!is_indefinite) {
        solver->solve_forward(t.b.data(), z.data(), 1);
        solver->solve_backward(z.data(), x.data(), 1);
        EXPECT_LE(relative_residual(s, x, t.b), 1e-12) << solver->name() << ", half solves, matrix " << k;
      }
    }
  }
}

TEST(LinearSolver, NothingFixedIsReportedAsSingular) {
  const System s = beam(false, Formulation::Corotational);
  for (LinearSolverKind kind : kinds()) {
    auto solver = make_linear_solver(kind);
    solver->analyze(s.assembler->pattern());
    try {
      solver->factorize(s.K);
      ADD_FAILURE() << solver->name() << " accepted a stiffness with six rigid-body modes";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("singular"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("Fix enough nodes"), std::string::npos) << e.what();
    }
  }
}

TEST(LinearSolver, MisuseIsAnError) {
  const System s = beam(true, Formulation::Corotational);
  for (LinearSolverKind kind : kinds()) {
    auto solver = make_linear_solver(kind);
    EXPECT_THROW(solver->factorize(s.K), Error);
    solver->analyze(s.assembler->pattern());
    EXPECT_THROW(solver->factorize(std::vector<Real>(3, 1.0)), Error);
  }
}

TEST(LinearSolver, HalfSolvesComposeToTheFullSolveAndGiveTheCompliance) {
  const System s = beam(true, Formulation::Corotational);
  const int n = s.assembler->num_free_dofs(), nrhs = 4;
  const Eigen::MatrixXd B = random_columns(n, nrhs, 7);
  for (LinearSolverKind kind : kinds()) {
    auto solver = make_linear_solver(kind);
    EXPECT_FALSE(solver->has_cholesky_factor()) << solver->name() << ": nothing factored yet";
    solver->analyze(s.assembler->pattern());
    solver->factorize(s.K);
    ASSERT_TRUE(solver->has_cholesky_factor()) << solver->name() << ": the clamped beam's K is SPD";
    Eigen::MatrixXd X(n, nrhs), Z(n, nrhs), X_half(n, nrhs);
    solver->solve(B.data(), X.data(), nrhs);
    solver->solve_forward(B.data(), Z.data(), nrhs);        // Z = L^-1 P B
    solver->solve_backward(Z.data(), X_half.data(), nrhs);  // P^T L^-T Z = K^-1 B
    EXPECT_LE((X_half - X).norm() / X.norm(), 1e-12) << solver->name();
    // Z^T Z = B^T P^T L^-T L^-1 P B = B^T K^-1 B (the compliance W from forward solves only).
    const Eigen::MatrixXd BtKinvB = B.transpose() * X;
    EXPECT_LE((Z.transpose() * Z - BtKinvB).norm() / BtKinvB.norm(), 1e-12) << solver->name();
    // One column at a time gives the same columns as the multi-RHS call.
    Eigen::VectorXd z1(n);
    solver->solve_forward(B.col(2).data(), z1.data(), 1);
    EXPECT_LE((z1 - Z.col(2)).norm() / Z.col(2).norm(), 1e-12) << solver->name();
    // The inverse step's form: G = Z^T Z in one call, then P^T L^-T (Z c) = K^-1 B c.
    Eigen::VectorXd c(nrhs), x(n);
    EXPECT_THROW(solver->backward_combination(c.data(), x.data()), Error) << solver->name() << ": no forward_gram yet";
    Eigen::MatrixXd G(nrhs, nrhs);
    solver->forward_gram(B.data(), n, nrhs, G.data());
    EXPECT_LE((G - BtKinvB).norm() / BtKinvB.norm(), 1e-12) << solver->name();
    EXPECT_EQ((G - G.transpose()).norm(), 0) << solver->name();
    c << 1.0, -2.0, 0.5, 3.0;
    solver->backward_combination(c.data(), x.data());
    EXPECT_LE((x - X * c).norm() / (X * c).norm(), 1e-12) << solver->name();
    solver->factorize(s.K);  // a new factorisation makes the kept Z stale
    EXPECT_THROW(solver->backward_combination(c.data(), x.data()), Error) << solver->name() << ": stale Z";
  }
}

TEST(LinearSolver, HalfSolvesAfterAnIndefiniteFactorisationThrow) {
  const Tangents t;
  Eigen::VectorXd z(t.n()), x(t.n());
  for (LinearSolverKind kind : kinds()) {
    auto solver = make_linear_solver(kind);
    solver->analyze(t.indefinite.assembler->pattern());
    EXPECT_THROW(solver->solve_forward(t.b.data(), z.data(), 1), Error) << solver->name() << ": before factorize";
    solver->factorize(t.indefinite.K);
    ASSERT_TRUE(solver->info().indefinite) << solver->name();
    EXPECT_FALSE(solver->has_cholesky_factor()) << solver->name();
    EXPECT_THROW(solver->solve_forward(t.b.data(), z.data(), 1), Error) << solver->name();
    try {
      solver->solve_backward(t.b.data(), x.data(), 1);
      ADD_FAILURE() << solver->name() << " ran a backward half solve on an L D L^T factor";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("has_cholesky_factor"), std::string::npos) << e.what();
    }
    // Back to a definite tangent: the capability returns with the L L^T factor.
    solver->factorize(t.definite.K);
    ASSERT_TRUE(solver->has_cholesky_factor()) << solver->name();
    solver->solve_forward(t.b.data(), z.data(), 1);
    solver->solve_backward(z.data(), x.data(), 1);
    EXPECT_LE(relative_residual(t.definite, x, t.b), 1e-12) << solver->name();
  }
}

/// A solver without half solves: forwards the full solve to Eigen and keeps the defaults.
class FullSolvesOnly final : public LinearSolver {
 public:
  const char* name() const override { return "full solves only"; }
  void analyze(const CsrPattern& pattern) override { inner_->analyze(pattern); }
  void factorize(const std::vector<Real>& values) override { inner_->factorize(values); }
  void solve(const Real* b, Real* x, int nrhs) const override { inner_->solve(b, x, nrhs); }
  const FactorizationInfo& info() const override { return inner_->info(); }

 private:
  std::unique_ptr<LinearSolver> inner_ = make_linear_solver(LinearSolverKind::EigenLDLT);
};

TEST(LinearSolver, HalfSolvesOfASolverWithoutThemThrow) {
  const System s = beam(true, Formulation::Corotational);
  const int n = s.assembler->num_free_dofs();
  FullSolvesOnly solver;
  solver.analyze(s.assembler->pattern());
  solver.factorize(s.K);
  EXPECT_FALSE(solver.has_cholesky_factor());
  const Eigen::VectorXd b = Eigen::VectorXd::Ones(n);
  Eigen::VectorXd z(n);
  EXPECT_THROW(solver.solve_forward(b.data(), z.data(), 1), Error);
  EXPECT_THROW(solver.solve_backward(b.data(), z.data(), 1), Error);
}

TEST(LinearSolver, CholmodHalfSolvesReuseTheirBuffersAcrossSizesAndRefactorisations) {
  if (!have_cholmod()) GTEST_SKIP() << "built without CHOLMOD (SOFTIK_WITH_CHOLMOD=OFF)";
  const System s = beam(true, Formulation::Corotational);
  const int n = s.assembler->num_free_dofs();
  const Eigen::MatrixXd B = random_columns(n, 3, 11);
  auto solver = solver_test::factored(LinearSolverKind::Cholmod, s);
  Eigen::MatrixXd Z3(n, 3), X3(n, 3), X(n, 3);
  solver->solve_forward(B.data(), Z3.data(), 3);
  solver->solve_backward(Z3.data(), X3.data(), 3);
  solver->solve(B.data(), X.data(), 3);
  // 3 columns, then 1 column, then 3 again: CHOLMOD resizes its kept buffers each time.
  Eigen::VectorXd z1(n), x1(n);
  solver->solve_forward(B.col(1).data(), z1.data(), 1);
  solver->solve_backward(z1.data(), x1.data(), 1);
  EXPECT_LE((x1 - X.col(1)).norm() / X.col(1).norm(), 1e-12);
  // K doubled: L scales by sqrt(2), so z scales by 1/sqrt(2) and x by 1/2.
  std::vector<Real> doubled = s.K;
  for (Real& v : doubled) v *= 2;
  solver->factorize(doubled);
  Eigen::MatrixXd Z3b(n, 3), X3b(n, 3);
  solver->solve_forward(B.data(), Z3b.data(), 3);
  solver->solve_backward(Z3b.data(), X3b.data(), 3);
  EXPECT_LE((std::sqrt(2.0) * Z3b - Z3).norm() / Z3.norm(), 1e-12);
  EXPECT_LE((2 * X3b - X3).norm() / X3.norm(), 1e-12);
  EXPECT_LE((X3 - X).norm() / X.norm(), 1e-12);
}

}  // namespace
}  // namespace softik

namespace softik {
namespace {

TEST(LinearSolver, HalfSolvesOfAnyWidthComposeToTheFullSolve) {
  // A larger box (many supernodes, rows below most blocks): the half solves of one to six
  // columns (the inverse step's widths: the kept-columns path solves 1 + the moving rows) compose
  // to the full solve and give |L^-1 P B|^2 = tr(B^T K^-1 B); one column alone gives the same
  // column as a wider call.
  System s;
  s.mesh = box_mesh(CellType::Tet4, {24, 6, 6}, {4.0, 1.0, 1.0});
  s.assembler =
      std::make_unique<Assembler>(s.mesh, std::vector<Material>{fem::LinearElastic::from_young_poisson(100.0, 0.3)},
                                  fix_nodes(s.mesh, s.mesh.node_groups.at("xmin")));
  s.assembler->assemble(s.mesh.rest_positions(), nullptr, nullptr, &s.K);
  const int n = s.assembler->num_free_dofs();
  for (LinearSolverKind kind : kinds()) {
    auto solver = solver_test::factored(kind, s);
    ASSERT_TRUE(solver->has_cholesky_factor()) << solver->name();
    for (int nrhs = 1; nrhs <= 6; ++nrhs) {
      const Eigen::MatrixXd B = random_columns(n, nrhs, 11 + static_cast<unsigned>(nrhs));
      Eigen::MatrixXd X(n, nrhs), Z(n, nrhs), X_half(n, nrhs);
      solver->solve(B.data(), X.data(), nrhs);
      solver->solve_forward(B.data(), Z.data(), nrhs);
      solver->solve_backward(Z.data(), X_half.data(), nrhs);
      EXPECT_LE((X_half - X).norm() / X.norm(), 1e-12) << solver->name() << ", " << nrhs << " columns";
      EXPECT_LE(std::abs((Z.transpose() * Z).trace() - (B.transpose() * X).trace()) / (B.transpose() * X).trace(),
                1e-12)
          << solver->name() << ", " << nrhs << " columns: |L^-1 P B|^2 = tr(B^T K^-1 B)";
      for (int c = 0; c < nrhs; ++c) {  // each column alone gives the same column
        Eigen::VectorXd z1(n);
        solver->solve_forward(B.col(c).data(), z1.data(), 1);
        EXPECT_LE((z1 - Z.col(c)).norm() / Z.col(c).norm(), 1e-13) << solver->name() << ", column " << c;
      }
    }
  }
}

}  // namespace
}  // namespace softik
