// Sparse solvers on assembled stiffness matrices: residuals, agreement between CHOLMOD and
// Eigen, many right-hand sides, the indefinite (L D L^T) path, and singular K reported.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Sparse>
#include <random>

#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"

namespace softik {
namespace {

std::vector<LinearSolverKind> kinds() {
  std::vector<LinearSolverKind> k{LinearSolverKind::EigenLDLT};
  if (have_cholmod()) k.push_back(LinearSolverKind::Cholmod);
  return k;
}

struct System {
  Mesh mesh;
  std::unique_ptr<Assembler> assembler;
  std::vector<Real> K;
};

System beam(bool fixed, Formulation formulation, Real compression = 1.0) {
  System s;
  BoxSpec spec;
  spec.size = {4.0, 1.0, 1.0};
  spec.cells = {12, 3, 3};
  s.mesh = make_box(3, CellType::Tet4, spec);
  AssemblyOptions options;
  options.formulation = formulation;
  const Material m = formulation == Formulation::Hyperelastic
                         ? Material(fem::NeoHookean::from_young_poisson(100.0, 0.3))
                         : Material(fem::LinearElastic::from_young_poisson(100.0, 0.3));
  s.assembler = std::make_unique<Assembler>(
      s.mesh, std::vector<Material>{m}, fixed ? fix_nodes(s.mesh, s.mesh.node_groups.at("xmin")) : std::vector<char>{},
      options);
  std::vector<Real> x = s.mesh.rest_positions();
  for (size_t k = 0; k < x.size(); k += 3) x[k] *= compression;
  s.assembler->assemble(x, nullptr, nullptr, &s.K);
  return s;
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
    auto solver = make_linear_solver(kind);
    solver->analyze(s.assembler->pattern());
    solver->factorize(s.K);
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
    auto solver = make_linear_solver(kind);
    solver->analyze(s.assembler->pattern());
    solver->factorize(s.K);
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

}  // namespace
}  // namespace softik
