// The GPU linear solvers (cuSOLVER dense Cholesky, block PCG on cuSPARSE BSR, cusolverSp
// csrchol) against the CPU's Eigen LDLT on the clamped beam of tests/linear/test_linear_solver.cpp
// (docs/gpu.md, "CPU = GPU": one test body per backend, the GPU result compared to the CPU's):
// solutions with 1 and 5 right-hand sides agree to 1e-9 relative (PCG: 1e-8, its relative
// residual tolerance 1e-10 times cond(K) ~ 3e4 with margin) and have small residuals, a
// refactorisation with new values is used, factorize_device() from device values gives
// factorize()'s solution, a K with nothing fixed is an Error naming it singular or not positive
// definite; the dense solver's half solves give Z^T Z = B^T K^-1 B and its memory check refuses
// a matrix larger than the device; the PCG warm start saves iterations, a zero right-hand side
// gives x = 0 and non-convergence names the column and the residual history.
// Every test skips with the reason when no GPU is present, but one: without a GPU, analyze()
// of each GPU solver throws an Error naming the missing device.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../linear_solver_test_support.hpp"
#include "cuda/exec/device_array.hpp"
#include "cuda/linear/cuda_dense_solver.hpp"
#include "cuda/linear/cuda_pcg_solver.hpp"
#include "cuda_test_support.hpp"
#include "softik/backend.hpp"
#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"

namespace softik {
namespace {

using solver_test::random_columns;
using solver_test::System;

/// The CPU tests' clamped Tet4 beam (corotational) with the z DOF of the last node fixed too:
/// 575 free DOFs, not a multiple of 3 (the PCG's BSR pads a row), and free-row triplets that
/// straddle nodes. `fixed` = false: nothing fixed (six rigid-body modes, K singular).
System cantilever(bool fixed = true) {
  const int last_z = 3 * ((12 + 1) * (3 + 1) * (3 + 1) - 1) + 2;  // the beam's last node
  System s =
      solver_test::beam(fixed, Formulation::Corotational, 1.0, fixed ? std::vector<int>{last_z} : std::vector<int>{});
  if (fixed && s.n() != 575) ADD_FAILURE() << "the cantilever has " << s.n() << " free DOFs, expected 575";
  return s;
}

/// K^-1 B by the CPU's Eigen SimplicialLDLT (the reference).
Eigen::MatrixXd cpu_solve(const System& s, const Eigen::MatrixXd& B) {
  auto solver = solver_test::factored(LinearSolverKind::EigenLDLT, s);
  Eigen::MatrixXd X(B.rows(), B.cols());
  solver->solve(B.data(), X.data(), static_cast<int>(B.cols()));
  return X;
}

Eigen::MatrixXd gpu_solve(const LinearSolver& solver, const Eigen::MatrixXd& B) {
  Eigen::MatrixXd X(B.rows(), B.cols());
  solver.solve(B.data(), X.data(), static_cast<int>(B.cols()));
  return X;
}

Real relative_difference(const Eigen::MatrixXd& A, const Eigen::MatrixXd& reference) {
  return (A - reference).norm() / reference.norm();
}

Real relative_residual(const System& s, const Eigen::MatrixXd& X, const Eigen::MatrixXd& B) {
  return (s.assembler->to_sparse(s.K) * X - B).norm() / B.norm();
}

/// Agreement with the CPU solution: direct solvers to round-off, PCG to its tolerance.
Real tolerance(LinearSolverKind kind) { return kind == LinearSolverKind::CudaPcg ? 1e-8 : 1e-9; }
Real residual_tolerance(LinearSolverKind kind) { return kind == LinearSolverKind::CudaPcg ? 2e-10 : 1e-12; }

/// The matrix in device memory, for factorize_device().
cuda::DeviceArray<Real> to_device(const std::vector<Real>& values) {
  cuda::DeviceArray<Real> d(values.size());
  SOFTIK_CUDA_CHECK(cudaMemcpy(d.get(), values.data(), values.size() * sizeof(Real), cudaMemcpyHostToDevice));
  return d;
}

Eigen::MatrixXd from_device(const cuda::DeviceArray<Real>& d, int rows, int cols) {
  Eigen::MatrixXd M(rows, cols);
  SOFTIK_CUDA_CHECK(
      cudaMemcpy(M.data(), d.get(), static_cast<std::size_t>(M.size()) * sizeof(Real), cudaMemcpyDeviceToHost));
  return M;
}

class GpuLinearSolver : public ::testing::TestWithParam<LinearSolverKind> {};

TEST_P(GpuLinearSolver, MatchesEigenLdltWithOneAndFiveRightHandSides) {
  SKIP_WITHOUT_DEVICE();
  const LinearSolverKind kind = GetParam();
  const System s = cantilever();
  const int n = s.n();
  auto solver = solver_test::factored(kind, s);
  EXPECT_GT(solver->info().pivot_ratio, 0.0) << solver->name();
  EXPECT_GE(solver->info().factor_nnz, n) << solver->name();
  EXPECT_FALSE(solver->info().indefinite) << solver->name();
  for (int nrhs : {1, 5}) {
    const Eigen::MatrixXd B = random_columns(n, nrhs, 3 + static_cast<unsigned>(nrhs));
    const Eigen::MatrixXd X = gpu_solve(*solver, B);
    EXPECT_LE(relative_difference(X, cpu_solve(s, B)), tolerance(kind)) << solver->name() << ", nrhs " << nrhs;
    EXPECT_LE(relative_residual(s, X, B), residual_tolerance(kind)) << solver->name() << ", nrhs " << nrhs;
  }
  // New values in the same pattern (K doubled): the solution halves.
  const Eigen::MatrixXd B = random_columns(n, 5, 11);
  const Eigen::MatrixXd X = gpu_solve(*solver, B);
  std::vector<Real> doubled = s.K;
  for (Real& v : doubled) v *= 2;
  solver->factorize(doubled);
  const Eigen::MatrixXd X2 = gpu_solve(*solver, B);
  EXPECT_LE(relative_difference(2 * X2, X), 2 * tolerance(kind)) << solver->name();
}

TEST_P(GpuLinearSolver, FactorizeDeviceGivesTheSolutionOfFactorize) {
  SKIP_WITHOUT_DEVICE();
  const System s = cantilever();
  const Eigen::MatrixXd B = random_columns(s.n(), 3, 5);
  auto from_host = make_linear_solver(GetParam());
  auto from_values_on_device = make_linear_solver(GetParam());
  ASSERT_TRUE(from_values_on_device->accepts_device_values()) << from_values_on_device->name();
  from_host->analyze(s.assembler->pattern());
  from_values_on_device->analyze(s.assembler->pattern());
  from_host->factorize(s.K);
  const cuda::DeviceArray<Real> d_K = to_device(s.K);
  from_values_on_device->factorize_device({d_K.get(), s.K.size()});
  // A view of the wrong length is refused, naming the counts.
  EXPECT_THROW(from_values_on_device->factorize_device({d_K.get(), s.K.size() - 1}), Error);
  // Same arithmetic on the same values (both solvers start cold): the same solution.
  EXPECT_LE(relative_difference(gpu_solve(*from_values_on_device, B), gpu_solve(*from_host, B)), 1e-12)
      << from_host->name();
  EXPECT_NEAR(from_values_on_device->info().pivot_ratio, from_host->info().pivot_ratio,
              1e-12 * from_host->info().pivot_ratio)
      << from_host->name();
}

TEST_P(GpuLinearSolver, NothingFixedIsAnErrorNamingASingularOrIndefiniteK) {
  SKIP_WITHOUT_DEVICE();
  const System s = cantilever(false);
  auto solver = make_linear_solver(GetParam());
  if (auto* pcg = dynamic_cast<cuda::CudaPcgSolver*>(solver.get())) pcg->max_iterations = 2000;
  solver->analyze(s.assembler->pattern());
  const Eigen::MatrixXd B = random_columns(s.n(), 1, 9);
  try {
    solver->factorize(s.K);
    gpu_solve(*solver, B);  // PCG: detected while iterating
    ADD_FAILURE() << solver->name() << " accepted a stiffness with six rigid-body modes";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_TRUE(message.find("singular") != std::string::npos || message.find("positive definite") != std::string::npos)
        << message;
  }
}

std::string kind_test_name(const ::testing::TestParamInfo<LinearSolverKind>& info) {
  std::string name = linear_solver_kind_name(info.param);
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllGpuSolvers, GpuLinearSolver,
                         ::testing::Values(LinearSolverKind::CudaDense, LinearSolverKind::CudaPcg,
                                           LinearSolverKind::CusolverSpCholesky),
                         kind_test_name);

TEST(CudaDenseSolver, ForwardGramKeepsZOnTheDeviceAndMatchesTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const System s = cantilever();
  const int n = s.n(), nb = 5;
  const Eigen::MatrixXd B = random_columns(n, nb, 11);
  auto gpu = solver_test::factored(LinearSolverKind::CudaDense, s);
  auto cpu = solver_test::factored(LinearSolverKind::EigenLDLT, s);
  Eigen::MatrixXd G_gpu(nb, nb), G_cpu(nb, nb);
  gpu->forward_gram(B.data(), n, nb, G_gpu.data());
  cpu->forward_gram(B.data(), n, nb, G_cpu.data());
  EXPECT_LE((G_gpu - G_cpu).norm() / G_cpu.norm(), 1e-10);
  EXPECT_EQ((G_gpu - G_gpu.transpose()).norm(), 0);
  // A solve between forward_gram and backward_combination leaves the kept Z alone.
  Eigen::VectorXd y(n);
  gpu->solve(B.col(0).data(), y.data(), 1);
  Eigen::VectorXd c = Eigen::VectorXd::LinSpaced(nb, -1.0, 2.0), x_gpu(n), x_cpu(n);
  gpu->backward_combination(c.data(), x_gpu.data());
  cpu->backward_combination(c.data(), x_cpu.data());
  EXPECT_LE((x_gpu - x_cpu).norm() / x_cpu.norm(), 1e-10);
  EXPECT_THROW(gpu->forward_gram(B.data(), n + 1, nb, G_gpu.data()), Error);
}

TEST(CudaDenseSolver, HalfSolvesGiveTheComplianceOnHostAndDevice) {
  SKIP_WITHOUT_DEVICE();
  const System s = cantilever();
  const int n = s.n(), nrhs = 4;
  const Eigen::MatrixXd B = random_columns(n, nrhs, 7);
  cuda::CudaDenseSolver solver;
  EXPECT_FALSE(solver.has_cholesky_factor());
  solver.analyze(s.assembler->pattern());
  EXPECT_EQ(solver.size(), n);
  solver.factorize(s.K);
  ASSERT_TRUE(solver.has_cholesky_factor());
  EXPECT_EQ(solver.info().factor_nnz, static_cast<long long>(n) * (n + 1) / 2);
  const Eigen::MatrixXd X = gpu_solve(solver, B);
  Eigen::MatrixXd Z(n, nrhs), X_half(n, nrhs);
  solver.solve_forward(B.data(), Z.data(), nrhs);        // Z = L^-1 B
  solver.solve_backward(Z.data(), X_half.data(), nrhs);  // L^-T Z = K^-1 B
  EXPECT_LE(relative_difference(X_half, X), 1e-12);
  // Z^T Z = B^T L^-T L^-1 B = B^T K^-1 B (the compliance W from forward solves only).
  const Eigen::MatrixXd BtKinvB = B.transpose() * cpu_solve(s, B);
  EXPECT_LE(relative_difference(Z.transpose() * Z, BtKinvB), 1e-10);

  // The device-pointer variants give the host variants' numbers (out of place and in place).
  const std::vector<Real> b(B.data(), B.data() + B.size());
  const cuda::DeviceArray<Real> d_b = to_device(b);
  cuda::DeviceArray<Real> d_z(b.size()), d_x(b.size());
  solver.solve_forward_device(d_b.get(), d_z.get(), nrhs);
  EXPECT_LE(relative_difference(from_device(d_z, n, nrhs), Z), 1e-14);
  solver.solve_backward_device(d_z.get(), d_z.get(), nrhs);  // in place
  EXPECT_LE(relative_difference(from_device(d_z, n, nrhs), X_half), 1e-14);
  solver.solve_device(d_b.get(), d_x.get(), nrhs);
  EXPECT_LE(relative_difference(from_device(d_x, n, nrhs), X), 1e-14);
}

TEST(CudaDenseSolver, IndefiniteTangentIsFactoredAsLdltAndDefiniteReturnsToLlt) {
  SKIP_WITHOUT_DEVICE();
  // 60% axial compression: the neo-Hookean tangent has negative eigenvalues but is regular.
  const System s = solver_test::beam(true, Formulation::Hyperelastic, 0.4);
  const Eigen::MatrixXd Kd = Eigen::MatrixXd(s.assembler->to_sparse(s.K));
  ASSERT_LT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Kd).eigenvalues().minCoeff(), 0.0)
      << "the test state must be indefinite";
  const Eigen::MatrixXd B = random_columns(s.n(), 3, 17);
  auto solver = solver_test::factored(LinearSolverKind::CudaDense, s);
  EXPECT_TRUE(solver->info().indefinite);
  EXPECT_EQ(solver->info().passes, 2);
  EXPECT_FALSE(solver->has_cholesky_factor());  // no half solves on L D L^T
  EXPECT_LE(relative_difference(gpu_solve(*solver, B), cpu_solve(s, B)), 1e-9);
  EXPECT_LE(relative_residual(s, gpu_solve(*solver, B), B), 1e-10);
  // The same solver object with a definite tangent: L L^T again, half solves available.
  const System definite = solver_test::beam(true, Formulation::Hyperelastic, 1.0);
  solver->factorize(definite.K);
  EXPECT_FALSE(solver->info().indefinite);
  EXPECT_TRUE(solver->has_cholesky_factor());
  EXPECT_LE(relative_difference(gpu_solve(*solver, B), cpu_solve(definite, B)), 1e-9);
}

TEST(CudaDenseSolver, MemoryCheckRefusesAMatrixLargerThanTheDevice) {
  SKIP_WITHOUT_DEVICE();
  std::size_t free_bytes = 0, total_bytes = 0;
  SOFTIK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // n^2 doubles of four times the device memory; only the diagonal in the pattern (cheap here).
  const int n = static_cast<int>(2 * std::sqrt(static_cast<double>(total_bytes) / sizeof(Real))) + 3;
  CsrPattern diagonal;
  diagonal.rows = n;
  diagonal.row_ptr.resize(static_cast<std::size_t>(n) + 1);
  diagonal.col.resize(static_cast<std::size_t>(n));
  for (int i = 0; i <= n; ++i) diagonal.row_ptr[static_cast<std::size_t>(i)] = i;
  for (int i = 0; i < n; ++i) diagonal.col[static_cast<std::size_t>(i)] = i;
  auto solver = make_linear_solver(LinearSolverKind::CudaDense);
  try {
    solver->analyze(diagonal);
    ADD_FAILURE() << "a dense " << n << " x " << n << " matrix fitted in " << total_bytes / 1e9 << " GB";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("GB"), std::string::npos) << message;
    EXPECT_NE(message.find("LinearSolverKind::Cudss"), std::string::npos) << message;
    EXPECT_NE(message.find("LinearSolverKind::CudaPcg"), std::string::npos) << message;
  }
  // The solver is usable again with a pattern that fits.
  const System s = cantilever();
  solver->analyze(s.assembler->pattern());
  solver->factorize(s.K);
  const Eigen::MatrixXd B = random_columns(s.n(), 1, 2);
  EXPECT_LE(relative_residual(s, gpu_solve(*solver, B), B), 1e-12);
}

TEST(CudaPcgSolver, WarmStartTakesFewerIterations) {
  std::string reason;
  if (!softik::cuda::device_available(&reason)) GTEST_SKIP() << reason;
  const System s = cantilever();
  const Eigen::MatrixXd B = random_columns(s.n(), 2, 13);
  cuda::CudaPcgSolver solver;
  EXPECT_EQ(solver.relative_tolerance, 1e-10);
  EXPECT_EQ(solver.max_iterations, 10000);
  solver.analyze(s.assembler->pattern());
  solver.factorize(s.K);
  EXPECT_FALSE(solver.has_cholesky_factor());
  const Eigen::MatrixXd X1 = gpu_solve(solver, B);
  // Which product ran (cusparseSpMM, or the fallback kernel and cuSPARSE's reason), for the log.
  RecordProperty("block_pcg_product", solver.product());
  std::cout << "[   INFO   ] block PCG product: " << solver.product() << "\n";
  EXPECT_FALSE(solver.product().empty());
  const int cold = solver.iterations();
  EXPECT_GT(cold, 0);
  ASSERT_FALSE(solver.residual_history(0).empty());
  EXPECT_NEAR(solver.residual_history(0).front(), 1.0, 1e-14);  // x = 0: r = b
  EXPECT_LE(solver.residual_history(0).back(), solver.relative_tolerance);
  const Eigen::MatrixXd X2 = gpu_solve(solver, B);  // starts from X1
  EXPECT_LT(solver.iterations(), cold);
  EXPECT_LE(relative_difference(X2, X1), 1e-8);
  // Without the kept solution it starts cold again: the iterations of the first time (to one
  // or two, should cuSPARSE's product not be bitwise reproducible).
  solver.reset_warm_start();
  gpu_solve(solver, B);
  EXPECT_NEAR(solver.iterations(), cold, 2);
}

TEST(CudaPcgSolver, ZeroRightHandSideGivesZeroEvenWhenWarmStarted) {
  SKIP_WITHOUT_DEVICE();
  const System s = cantilever();
  Eigen::MatrixXd B = random_columns(s.n(), 2, 17);
  cuda::CudaPcgSolver solver;
  solver.analyze(s.assembler->pattern());
  solver.factorize(s.K);
  gpu_solve(solver, B);  // keeps a non-zero solution in both columns
  B.col(0).setZero();
  const Eigen::MatrixXd X = gpu_solve(solver, B);
  EXPECT_EQ(X.col(0).norm(), 0.0);
  EXPECT_LE(relative_difference(X.col(1), cpu_solve(s, B.col(1))), tolerance(LinearSolverKind::CudaPcg));
}

TEST(CudaPcgSolver, NonConvergenceNamesTheColumnAndTheResidualHistory) {
  SKIP_WITHOUT_DEVICE();
  const System s = cantilever();
  Eigen::MatrixXd B = random_columns(s.n(), 2, 19);
  B.col(0).setZero();  // converged from the start: column 1 is the one that fails
  cuda::CudaPcgSolver solver;
  solver.max_iterations = 5;
  solver.analyze(s.assembler->pattern());
  solver.factorize(s.K);
  try {
    gpu_solve(solver, B);
    ADD_FAILURE() << "5 iterations reached a relative residual of 1e-10";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("did not converge"), std::string::npos) << message;
    EXPECT_NE(message.find("column 1"), std::string::npos) << message;
    EXPECT_NE(message.find("after 5 iterations"), std::string::npos) << message;
    EXPECT_NE(message.find("residual history"), std::string::npos) << message;
  }
  // A failed solve forgets its partial solution: with enough iterations it starts cold.
  solver.max_iterations = 10000;
  const Eigen::MatrixXd X = gpu_solve(solver, B);
  EXPECT_LE(relative_residual(s, X.col(1), B.col(1)), residual_tolerance(LinearSolverKind::CudaPcg));
  EXPECT_NEAR(solver.residual_history(1).front(), 1.0, 1e-14);
}

TEST(GpuLinearSolvers, WithoutADeviceAnalyzeThrowsNamingTheMissingDevice) {
  std::string reason;
  if (softik::cuda::device_available(&reason)) GTEST_SKIP() << "a CUDA device is present";
  const System s = cantilever();
  for (LinearSolverKind kind :
       {LinearSolverKind::CudaDense, LinearSolverKind::CudaPcg, LinearSolverKind::CusolverSpCholesky}) {
    auto solver = make_linear_solver(kind);
    try {
      solver->analyze(s.assembler->pattern());
      ADD_FAILURE() << solver->name() << " analysed a pattern without a CUDA device";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("needs a usable CUDA device"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace softik
