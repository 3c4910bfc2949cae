// cuDSS behind LinearSolver (LinearSolverKind::Cudss) against the CPU's Eigen L D L^T on
// assembled stiffness matrices (docs/gpu.md, "CPU = GPU": the GPU result compared to the CPU's):
// 1 and 5 right-hand sides agree to a relative 1e-9, a refactorisation with K doubled halves x,
// factorize_device equals factorize and solve_device equals solve (1e-10: cuDSS's parallel
// factorisation is not bitwise deterministic by default), an indefinite K is factored
// as L D L^T (info().indefinite) and solved, the pivot ratio of diagonal matrices is exact
// (this pins down what CUDSS_DATA_DIAG holds for L L^T and L D L^T), and a K with nothing fixed
// is an Error naming the singular matrix. Without a GPU, or without cuDSS, these skip with the
// reason; asking for the solver then is an Error (checked here without a GPU).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <Eigen/Sparse>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../linear_solver_test_support.hpp"
#include "cuda/linear/cudss_solver.hpp"
#include "cuda_test_support.hpp"
#include "softik/assembly.hpp"
#include "softik/backend.hpp"
#include "softik/error.hpp"
#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"

namespace softik {
namespace {

using solver_test::beam;
using solver_test::random_columns;
using solver_test::System;

Real relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& reference) {
  return (a - reference).norm() / reference.norm();
}

/// x = K^-1 b by a solver of `kind` (analyze, factorize, solve).
Eigen::MatrixXd solve_with(LinearSolverKind kind, const CsrPattern& pattern, const std::vector<Real>& K,
                           const Eigen::MatrixXd& B) {
  auto solver = make_linear_solver(kind);
  solver->analyze(pattern);
  solver->factorize(K);
  Eigen::MatrixXd X(B.rows(), B.cols());
  solver->solve(B.data(), X.data(), static_cast<int>(B.cols()));
  return X;
}

/// A small symmetric matrix given as a CsrPattern (both triangles, every diagonal entry) and
/// its values.
struct SmallMatrix {
  CsrPattern pattern;
  std::vector<Real> values;
};

SmallMatrix from_dense(const Eigen::MatrixXd& A) {
  SmallMatrix m;
  m.pattern.rows = static_cast<int>(A.rows());
  m.pattern.row_ptr.push_back(0);
  for (int i = 0; i < A.rows(); ++i) {
    for (int j = 0; j < A.cols(); ++j) {
      if (A(i, j) == 0 && i != j) continue;
      m.pattern.col.push_back(j);
      m.values.push_back(A(i, j));
    }
    m.pattern.row_ptr.push_back(m.pattern.nnz());
  }
  return m;
}

/// A device copy of host values (cudaMalloc / cudaFree), for factorize_device and solve_device.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    EXPECT_EQ(cudaMalloc(&ptr_, std::max<std::size_t>(count, 1) * sizeof(Real)), cudaSuccess);
  }
  explicit DeviceBuffer(const Real* host, std::size_t count) : DeviceBuffer(count) {
    EXPECT_EQ(cudaMemcpy(ptr_, host, count * sizeof(Real), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  Real* get() const { return ptr_; }
  void download(Real* host) const {
    EXPECT_EQ(cudaMemcpy(host, ptr_, count_ * sizeof(Real), cudaMemcpyDeviceToHost), cudaSuccess);
  }

 private:
  Real* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Runs everywhere: where cuDSS cannot run, asking for it is an Error that says why.
TEST(CudssSolver, WithoutADeviceOrCudssItIsAnError) {
  std::string reason;
  if (cuda::device_available(&reason) && have_cudss_solver() && cuda::cudss_library_available(&reason))
    GTEST_SKIP() << "cuDSS runs here (" << reason << "): the other tests cover it";
  const System s = beam(true, Formulation::Corotational);
  try {
    auto solver = make_linear_solver(LinearSolverKind::Cudss);
    solver->analyze(s.assembler->pattern());
    ADD_FAILURE() << "the cuDSS solver analysed a pattern without a device or without cuDSS";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_TRUE(message.find("CUDA device") != std::string::npos ||
                message.find("without cuDSS") != std::string::npos || message.find("libcudss") != std::string::npos)
        << message;
  }
}

TEST(CudssSolver, LibraryFoundAtConfigureTimeLoadsWithoutADevice) {
  // dlopen, the function table and the version check need no GPU: a build with cuDSS must find
  // the library CMake found (or say what it tried).
  if (!have_cudss_solver()) GTEST_SKIP() << "softik was built without cuDSS";
  std::string reason;
  const bool loaded = cuda::cudss_library_available(&reason);
  EXPECT_TRUE(loaded) << reason;
  EXPECT_NE(reason.find(loaded ? "cuDSS loaded from" : "tried"), std::string::npos) << reason;
}

TEST(CudssSolver, MatchesEigenForOneAndFiveRightHandSides) {
  SKIP_UNLESS_CUDSS_RUNS();
  const System s = beam(true, Formulation::Corotational);
  const int n = s.assembler->num_free_dofs();
  auto solver = make_linear_solver(LinearSolverKind::Cudss);
  EXPECT_STREQ(solver->name(), "cuDSS");
  EXPECT_TRUE(solver->accepts_device_values());
  solver->analyze(s.assembler->pattern());
  solver->factorize(s.K);
  EXPECT_FALSE(solver->info().indefinite);
  EXPECT_GT(solver->info().pivot_ratio, 1e-8);
  EXPECT_LE(solver->info().pivot_ratio, 1.0);
  EXPECT_GE(solver->info().factor_nnz, n);
  for (int nrhs : {1, 5}) {
    const Eigen::MatrixXd B = random_columns(n, nrhs, 3 + static_cast<unsigned>(nrhs));
    const Eigen::MatrixXd reference = solve_with(LinearSolverKind::EigenLDLT, s.assembler->pattern(), s.K, B);
    Eigen::MatrixXd X(n, nrhs);
    solver->solve(B.data(), X.data(), nrhs);
    EXPECT_LE(relative(X, reference), 1e-9) << nrhs << " right-hand sides";
    EXPECT_LE((s.assembler->to_sparse(s.K) * X - B).norm() / B.norm(), 1e-10) << nrhs << " right-hand sides";
  }
  // 5 columns, then 1 again (the descriptors shrink back): column 0 of a 5-column solve.
  const Eigen::MatrixXd B5 = random_columns(n, 5, 21);
  Eigen::MatrixXd X5(n, 5);
  Eigen::VectorXd x1(n);
  solver->solve(B5.data(), X5.data(), 5);
  solver->solve(B5.col(3).data(), x1.data(), 1);
  EXPECT_LE(relative(x1, X5.col(3)), 1e-10);
}

TEST(CudssSolver, RefactorisationWithKDoubledHalvesTheSolution) {
  SKIP_UNLESS_CUDSS_RUNS();
  const System s = beam(true, Formulation::Corotational);
  const int n = s.assembler->num_free_dofs(), nrhs = 3;
  const Eigen::MatrixXd B = random_columns(n, nrhs, 5);
  auto solver = solver_test::factored(LinearSolverKind::Cudss, s);
  Eigen::MatrixXd X(n, nrhs), X2(n, nrhs), X3(n, nrhs);
  solver->solve(B.data(), X.data(), nrhs);
  std::vector<Real> doubled = s.K;
  for (Real& v : doubled) v *= 2;
  solver->factorize(doubled);
  EXPECT_FALSE(solver->info().indefinite);
  solver->solve(B.data(), X2.data(), nrhs);
  EXPECT_LE(relative(2 * X2, X), 1e-10);
  solver->factorize(s.K);  // and back
  solver->solve(B.data(), X3.data(), nrhs);
  EXPECT_LE(relative(X3, X), 1e-10);
}

TEST(CudssSolver, FactorizeDeviceEqualsFactorizeAndSolveDeviceEqualsSolve) {
  SKIP_UNLESS_CUDSS_RUNS();
  const System s = beam(true, Formulation::Corotational);
  const int n = s.assembler->num_free_dofs(), nrhs = 4;
  const Eigen::MatrixXd B = random_columns(n, nrhs, 9);
  auto host = solver_test::factored(LinearSolverKind::Cudss, s);
  Eigen::MatrixXd X_host(n, nrhs);
  host->solve(B.data(), X_host.data(), nrhs);

  auto device = make_linear_solver(LinearSolverKind::Cudss);
  device->analyze(s.assembler->pattern());
  const DeviceBuffer d_K(s.K.data(), s.K.size());
  device->factorize_device({d_K.get(), s.K.size()});
  EXPECT_EQ(device->info().factor_nnz, host->info().factor_nnz);
  EXPECT_LE(std::abs(device->info().pivot_ratio - host->info().pivot_ratio), 1e-8 * host->info().pivot_ratio);
  Eigen::MatrixXd X_device(n, nrhs);
  device->solve(B.data(), X_device.data(), nrhs);
  EXPECT_LE(relative(X_device, X_host), 1e-10);

#ifdef SOFTIK_HAVE_CUDSS
  auto* cudss = dynamic_cast<cuda::CudssSolver*>(device.get());
  ASSERT_NE(cudss, nullptr);
  EXPECT_EQ(cudss->size(), n);
  const std::size_t count = static_cast<std::size_t>(n) * nrhs;
  const DeviceBuffer d_B(B.data(), count);
  const DeviceBuffer d_X(count);
  cudss->solve_device(d_B.get(), d_X.get(), nrhs);
  Eigen::MatrixXd X_solve_device(n, nrhs);
  d_X.download(X_solve_device.data());
  EXPECT_LE(relative(X_solve_device, X_host), 1e-10);
  // In place: x overwrites b.
  const DeviceBuffer d_BX(B.data(), count);
  cudss->solve_device(d_BX.get(), d_BX.get(), nrhs);
  Eigen::MatrixXd X_in_place(n, nrhs);
  d_BX.download(X_in_place.data());
  EXPECT_LE(relative(X_in_place, X_host), 1e-10);
#endif
}

TEST(CudssSolver, SmallIndefiniteMatrixIsFactoredAsLdlt) {
  SKIP_UNLESS_CUDSS_RUNS();
  // Tridiagonal, strictly diagonally dominant with diagonal entries of both signs: regular and
  // indefinite, and every elimination order keeps its pivots away from zero.
  const Eigen::VectorXd d = (Eigen::VectorXd(6) << 4, -3, 5, -6, 3, -4).finished();
  Eigen::MatrixXd A = d.asDiagonal();
  for (int i = 0; i + 1 < 6; ++i) A(i, i + 1) = A(i + 1, i) = 1.0;
  const SmallMatrix m = from_dense(A);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(6, -1.0, 2.0);
  auto solver = make_linear_solver(LinearSolverKind::Cudss);
  solver->analyze(m.pattern);
  solver->factorize(m.values);
  EXPECT_TRUE(solver->info().indefinite);
  EXPECT_GT(solver->info().pivot_ratio, 1e-3);
  EXPECT_GE(solver->info().factor_nnz, 6);
  Eigen::VectorXd x(6);
  solver->solve(b.data(), x.data(), 1);
  EXPECT_LE(relative(x, A.ldlt().solve(b)), 1e-12);
  EXPECT_LE((A * x - b).norm() / b.norm(), 1e-12);
}

TEST(CudssSolver, IndefiniteTangentMatchesEigenAndDefiniteReturnsToLlt) {
  SKIP_UNLESS_CUDSS_RUNS();
  // 60% axial compression: the neo-Hookean tangent has negative eigenvalues but is regular.
  const System s = beam(true, Formulation::Hyperelastic, 0.4);
  const Eigen::MatrixXd Kd = Eigen::MatrixXd(s.assembler->to_sparse(s.K));
  ASSERT_LT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Kd).eigenvalues().minCoeff(), 0.0)
      << "the test state must be indefinite";
  const int n = s.assembler->num_free_dofs();
  const Eigen::MatrixXd B = random_columns(n, 2, 13);
  auto solver = solver_test::factored(LinearSolverKind::Cudss, s);
  EXPECT_TRUE(solver->info().indefinite);
  Eigen::MatrixXd X(n, 2);
  solver->solve(B.data(), X.data(), 2);
  EXPECT_LE(relative(X, solve_with(LinearSolverKind::EigenLDLT, s.assembler->pattern(), s.K, B)), 1e-9);
  // The same solver object with a definite tangent: L L^T again.
  const System definite = beam(true, Formulation::Hyperelastic, 1.0);
  solver->factorize(definite.K);
  EXPECT_FALSE(solver->info().indefinite);
  solver->solve(B.data(), X.data(), 2);
  EXPECT_LE(relative(X, solve_with(LinearSolverKind::EigenLDLT, definite.assembler->pattern(), definite.K, B)), 1e-9);
}

TEST(CudssSolver, PivotRatioOfDiagonalMatrices) {
  SKIP_UNLESS_CUDSS_RUNS();
  // diag(1, 4, 100): pivots 1, 4, 100 (L = diag(1, 2, 10)), ratio 0.01 whatever the ordering.
  const SmallMatrix spd = from_dense(Eigen::Vector3d(1, 4, 100).asDiagonal().toDenseMatrix());
  auto solver = make_linear_solver(LinearSolverKind::Cudss);
  solver->analyze(spd.pattern);
  solver->factorize(spd.values);
  EXPECT_FALSE(solver->info().indefinite);
  EXPECT_NEAR(solver->info().pivot_ratio, 0.01, 1e-14);
  // diag(1, -4, 100): L D L^T with D = the diagonal, ratio 0.01.
  const SmallMatrix indefinite = from_dense(Eigen::Vector3d(1, -4, 100).asDiagonal().toDenseMatrix());
  solver->factorize(indefinite.values);
  EXPECT_TRUE(solver->info().indefinite);
  EXPECT_NEAR(solver->info().pivot_ratio, 0.01, 1e-14);
  const Eigen::Vector3d b(1, 2, 3);
  Eigen::Vector3d x;
  solver->solve(b.data(), x.data(), 1);
  EXPECT_LE((x - Eigen::Vector3d(1, -0.5, 0.03)).norm(), 1e-14);
}

TEST(CudssSolver, NothingFixedIsReportedAsSingular) {
  SKIP_UNLESS_CUDSS_RUNS();
  const System s = beam(false, Formulation::Corotational);
  auto solver = make_linear_solver(LinearSolverKind::Cudss);
  solver->analyze(s.assembler->pattern());
  try {
    solver->factorize(s.K);
    ADD_FAILURE() << "cuDSS accepted a stiffness with six rigid-body modes (pivot ratio " << solver->info().pivot_ratio
                  << ")";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("singular"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Fix enough nodes"), std::string::npos) << e.what();
  }
  // A failed factorisation leaves nothing to solve with.
  Eigen::VectorXd b = Eigen::VectorXd::Ones(s.assembler->num_free_dofs()), x(b.size());
  EXPECT_THROW(solver->solve(b.data(), x.data(), 1), Error);
}

TEST(CudssSolver, MisuseIsAnError) {
  SKIP_UNLESS_CUDSS_RUNS();
  const System s = beam(true, Formulation::Corotational);
  auto solver = make_linear_solver(LinearSolverKind::Cudss);
  EXPECT_THROW(solver->factorize(s.K), Error);
  solver->analyze(s.assembler->pattern());
  EXPECT_THROW(solver->factorize(std::vector<Real>(3, 1.0)), Error);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(s.assembler->num_free_dofs()), x(b.size());
  EXPECT_THROW(solver->solve(b.data(), x.data(), 1), Error);
}

}  // namespace
}  // namespace softik
