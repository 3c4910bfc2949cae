// Small helpers shared by the GPU linear solvers (cuda/linear/cuda_dense_solver.cu,
// cuda/linear/cuda_pcg_solver.cu, cuda/linear/cudss_solver.cu, cuda/linear/cusolversp_solver.cu): the
// device check every analyze() starts with, the validation of the CSR pattern it is given, the
// checks and the upload factorize() and factorize_device() start with, the checks of a solve,
// checked host <-> device copies, the launch size of one-thread-per-item kernels and the pivot
// ratio of a Cholesky factor's diagonal. Private to cuda/.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "cuda/exec/cuda_check.hpp"
#include "softik/assembly.hpp"
#include "softik/backend.hpp"
#include "softik/linear_solver.hpp"

namespace softik::cuda {

/// Throws softik::Error naming `solver` and why no CUDA device is usable, unless one is.
inline void require_device(const char* solver) {
  std::string reason;
  SOFTIK_CHECK(device_available(&reason),
               "the GPU linear solver '" << solver << "' needs a usable CUDA device, but there is none (" << reason
                                         << "): use a CPU solver (LinearSolverKind::Cholmod or EigenLDLT), or run on "
                                            "a machine with an NVIDIA GPU");
}

/// Throws softik::Error unless `pattern` is a well-formed square CSR matrix (row_ptr of rows + 1
/// non-decreasing offsets from 0 to nnz, column indices in [0, rows)).
inline void check_csr_pattern(const CsrPattern& pattern, const char* solver) {
  const std::size_t rows = static_cast<std::size_t>(pattern.rows < 0 ? 0 : pattern.rows);
  SOFTIK_CHECK(pattern.rows >= 0 && pattern.row_ptr.size() == rows + 1 && pattern.row_ptr.front() == 0 &&
                   pattern.row_ptr.back() == pattern.nnz(),
               solver << "::analyze got a malformed CSR pattern (" << pattern.rows << " rows, "
                      << pattern.row_ptr.size() << " row offsets, " << pattern.nnz()
                      << " column indices): pass Assembler::pattern(), rows + 1 offsets from 0 to nnz");
  for (std::size_t i = 0; i < rows; ++i) {
    const int begin = pattern.row_ptr[i], end = pattern.row_ptr[i + 1];
    SOFTIK_CHECK(begin <= end, solver << "::analyze: row offsets decrease at row " << i);
    for (int k = begin; k < end; ++k)
      SOFTIK_CHECK(
          pattern.col[static_cast<std::size_t>(k)] >= 0 && pattern.col[static_cast<std::size_t>(k)] < pattern.rows,
          solver << "::analyze: column index " << pattern.col[static_cast<std::size_t>(k)] << " of row " << i
                 << " is outside [0, " << pattern.rows << ")");
  }
}

/// Copies `count` T from host to device memory.
template <class T>
void upload(T* d_dst, const T* src, std::size_t count) {
  if (count > 0) SOFTIK_CUDA_CHECK(cudaMemcpy(d_dst, src, count * sizeof(T), cudaMemcpyHostToDevice));
}

/// Copies `count` T from device to host memory (synchronous).
template <class T>
void download(T* dst, const T* d_src, std::size_t count) {
  if (count > 0) SOFTIK_CUDA_CHECK(cudaMemcpy(dst, d_src, count * sizeof(T), cudaMemcpyDeviceToHost));
}

/// The checks factorize_device(values) starts with: analyze() came first (`analysed`) and `values`
/// holds the `nnz` entries of its pattern.
inline void check_device_values(bool analysed, int nnz, exec::DeviceView<const Real> values, const char* solver) {
  SOFTIK_CHECK(analysed, "LinearSolver::factorize_device before analyze: call analyze(pattern) first");
  SOFTIK_CHECK(values.size == static_cast<std::size_t>(nnz),
               solver << "::factorize_device got " << values.size << " values for a pattern of " << nnz);
}

/// The start of factorize_device(values) on a solver's state `p` (its analysed, nnz, n, factored):
/// check_device_values, then p.forget_factor() (factored false, the info reset, and the solver's
/// own record of its last factor). False when K is empty (n = 0): factored at once, nothing more
/// to do.
template <class State>
bool start_factorization(State& p, exec::DeviceView<const Real> values, const char* solver) {
  check_device_values(p.analysed, p.nnz, values, solver);
  p.forget_factor();
  if (p.n > 0) return true;
  p.factored = true;
  return false;
}

/// factorize(values) of a solver that factors from device values: the checks (analyze() came
/// first, `values` holds the pattern's `nnz` entries), the upload of the values to the solver's
/// staging buffer `d_staging` (nnz entries) and solver.factorize_device on them.
inline void factorize_from_host(LinearSolver& solver, bool analysed, int nnz, const std::vector<Real>& values,
                                Real* d_staging) {
  SOFTIK_CHECK(analysed, "LinearSolver::factorize before analyze: call analyze(pattern) first");
  SOFTIK_CHECK(values.size() == static_cast<std::size_t>(nnz),
               "factorize got " << values.size() << " values for a pattern of " << nnz);
  upload(d_staging, values.data(), values.size());
  solver.factorize_device({d_staging, values.size()});
}

/// The checks a solve (`call`: "solve", "solve_device") starts with: a factorisation succeeded
/// and `nrhs` is not negative.
inline void check_solve(bool factored, int nrhs, const char* solver, const char* call) {
  SOFTIK_CHECK(factored, solver << "::" << call << " needs a successful factorize() first");
  SOFTIK_CHECK(nrhs >= 0, call << " got " << nrhs << " right-hand sides");
}

/// Copies the n x nrhs column-major array d_src to d_dst (device memory) unless they are the same
/// array (a call in place).
inline void copy_columns(Real* d_dst, const Real* d_src, std::size_t n, int nrhs) {
  if (d_dst != d_src)
    SOFTIK_CUDA_CHECK(
        cudaMemcpy(d_dst, d_src, n * static_cast<std::size_t>(nrhs) * sizeof(Real), cudaMemcpyDeviceToDevice));
}

/// Blocks of `block` threads covering `count` items (at least one block).
inline unsigned grid_size(std::size_t count, unsigned block) {
  const std::size_t blocks = (count + block - 1) / block;
  return static_cast<unsigned>(blocks > 0 ? blocks : 1);
}

/// Throws softik::Error naming `kernel` when its launch failed (bad configuration, no kernel
/// image for this device's architecture).
inline void check_launch(const char* kernel) {
  const cudaError_t status = cudaGetLastError();
  SOFTIK_CHECK(status == cudaSuccess, "launching the CUDA kernel " << kernel << " failed: " << cudaGetErrorName(status)
                                                                   << " (" << cudaGetErrorString(status) << ")");
}

/// (min d / max d)^2 over the diagonal d of a Cholesky factor L: the pivots of K = L L^T are
/// d^2. 0 when an entry is not a positive finite number (a failed or NaN factorisation), 1 for
/// an empty d. *row receives the index of the smallest entry (or of the first invalid one).
inline double cholesky_pivot_ratio(const std::vector<Real>& d, long* row) {
  *row = -1;
  if (d.empty()) return 1.0;
  Real lo = d[0], hi = d[0];
  *row = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (!(std::isfinite(d[i]) && d[i] > 0)) {
      *row = static_cast<long>(i);
      return 0.0;
    }
    if (d[i] < lo) {
      lo = d[i];
      *row = static_cast<long>(i);
    }
    hi = d[i] > hi ? d[i] : hi;
  }
  return (lo / hi) * (lo / hi);
}

}  // namespace softik::cuda
