// Small helpers shared by the GPU linear solvers (cuda/solvers/cuda_dense_solver.cu,
// cuda/solvers/cuda_pcg_solver.cu, cuda/solvers/cusolversp_solver.cu): the device check every analyze() starts
// with, the validation of the CSR pattern it is given, checked host <-> device copies, the
// launch size of one-thread-per-item kernels and the pivot ratio of a Cholesky factor's
// diagonal. Private to cuda/.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "cuda/exec/cuda_check.hpp"
#include "softik/assembly.hpp"
#include "softik/backend.hpp"

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
