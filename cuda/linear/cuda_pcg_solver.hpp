// Block-Jacobi preconditioned conjugate gradients on the GPU behind LinearSolverKind::CudaPcg
// (docs/gpu.md, "Choosing the GPU"): for models too large to factor in device memory.
//
// Storage: analyze() regroups the scalar CSR K (both triangles) into BSR with 3 x 3 blocks
// over consecutive triplets of free rows (block row I holds rows 3I, 3I+1, 3I+2; n is padded up
// to a multiple of 3 and the padded rows get an identity diagonal, so they stay zero in every
// vector). Blocks are stored row-major. A scalar -> BSR slot map is built once, so
// factorize()/factorize_device() only scatter the new values (a kernel) and invert the 3 x 3
// diagonal blocks: M^-1 = blockdiag(K_II)^-1, the block-Jacobi preconditioner.
//
// solve(b, x, nrhs): nrhs independent PCG recurrences advanced together. Each iteration does one
// cusparseSpMM (BSR times the n x nrhs block of search directions; see product()), column-wise
// dot products (a deterministic two-stage reduction kernel, so that iteration counts repeat),
// per-column updates and one block-Jacobi kernel; the host reads 2 nrhs scalars per iteration
// to test convergence. A column stops when ||r|| <= relative_tolerance ||b||; once every
// column has stopped the true residual b - K x is recomputed and columns whose recurrence
// drifted are restarted from it (within max_iterations in all).
//
// Warm start (warm_start = true): the solution of the previous solve with the same number of
// columns is kept on the device and is the initial guess of the next one (a Newton or inverse
// step solves with K and right-hand sides that change little). analyze() and a failed solve
// forget it; a zero right-hand-side column gives x = 0 whatever the initial guess.
//
// Errors: a diagonal block that is not positive definite (factorize, naming the block and its
// first free DOF row); p^T K p <= 0 (K is not positive definite: singular, or an indefinite
// hyperelastic tangent); no convergence within max_iterations (naming the column, the
// iterations and the residual history).
//
// info().pivot_ratio is min/max of diag(K): only an indicator of the scaling for an iterative
// solver (it is no bound on 1/cond(K) and is not compared with singular_threshold);
// info().factor_nnz counts the stored preconditioner (9 entries per inverse diagonal block).
// has_cholesky_factor() is false: there is no factor.
//
// Private to cuda/ (the host API reaches it through make_linear_solver).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "softik/linear_solver.hpp"

namespace softik::cuda {

class CudaPcgSolver final : public LinearSolver {
 public:
  CudaPcgSolver();
  ~CudaPcgSolver() override;
  CudaPcgSolver(const CudaPcgSolver&) = delete;
  CudaPcgSolver& operator=(const CudaPcgSolver&) = delete;

  /// Each column stops when ||b - K x|| <= relative_tolerance ||b|| (2-norms).
  double relative_tolerance = 1e-10;
  /// Iterations allowed per solve (shared by all columns, restarts included).
  int max_iterations = 10000;
  /// Start from the previous solution when the number of columns is the same.
  bool warm_start = true;

  const char* name() const override { return "block PCG (cuSPARSE BSR 3x3, block-Jacobi)"; }
  /// Builds the BSR structure and slot map, uploads them and allocates the buffers. Throws
  /// softik::Error when no CUDA device is usable.
  void analyze(const CsrPattern& pattern) override;
  void factorize(const std::vector<Real>& values) override;
  /// Scatters nnz device values into the BSR blocks and inverts the diagonal blocks.
  void factorize_device(exec::DeviceView<const Real> values) override;
  bool accepts_device_values() const override { return true; }
  /// x = K^-1 b for nrhs columns in host memory (n x nrhs, column-major).
  void solve(const Real* b, Real* x, int nrhs = 1) const override;
  const FactorizationInfo& info() const override;

  /// The same with b and x in device memory (n x nrhs column-major, leading dimension n; they
  /// may be the same array). Synchronous on the default stream.
  void solve_device(const Real* d_b, Real* d_x, int nrhs = 1) const;

  /// Iterations of the last solve (the most any column took); 0 before the first.
  int iterations() const;
  /// ||r|| / ||b|| of `column` after each iteration of the last solve (entry 0: the initial
  /// guess); empty for a zero column.
  const std::vector<double>& residual_history(int column) const;
  /// Forgets the kept solution: the next solve starts from x = 0.
  void reset_warm_start();
  /// Which sparse product the solves use (empty before the first solve): cusparseSpMM with
  /// CUSPARSE_SPMM_BSR_ALG1, else with CUSPARSE_SPMM_ALG_DEFAULT, else, where cuSPARSE refuses
  /// BSR times column-major dense operands, softik's own BSR 3x3 kernel (with cuSPARSE's status).
  const std::string& product() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace softik::cuda
