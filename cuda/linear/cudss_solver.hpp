// NVIDIA cuDSS (sparse direct, GPU) behind LinearSolverKind::Cudss (docs/gpu.md, "Choosing the GPU").
//
//   analyze(pattern)      the upper triangle of K's CSR pattern goes to the device once (with a
//                         slot map from the full pattern), and cuDSS runs its analysis (nested
//                         dissection reordering + symbolic factorisation) as an SPD matrix.
//   factorize(values)     the upper-triangle values are gathered on the device (so the GPU
//   factorize_device(v)   assembly's values never cross to the host) and factored as L L^T.
//                         When cuDSS reports K not positive definite (CUDSS_DATA_INFO), or
//                         diag(L) is not positive and well conditioned, K is refactored as
//                         L D L^T (CUDSS_MTYPE_SYMMETRIC, its own analysis, made once and kept),
//                         like the CPU CHOLMOD solver: info().indefinite is then true. A pivot
//                         ratio min|d| / max|d| of D below singular_threshold (from
//                         CUDSS_DATA_DIAG) is detail::throw_singular's Error, with the free DOF
//                         row of the smallest pivot.
//   solve(b, x, nrhs)     all right-hand sides in one CUDSS_PHASE_SOLVE. The dense descriptors
//                         are recreated only when nrhs changes and the staging buffers grow only
//                         when nrhs exceeds what they hold: repeated solves allocate nothing.
//
// Memory: analyze() refuses a model whose inputs alone clearly cannot fit in the free device
// memory, and after the analysis compares cuDSS's own peak estimate
// (CUDSS_DATA_MEMORY_ESTIMATES) with the memory that was free before it: an Error names the GB
// needed and free and suggests LinearSolverKind::CudaPcg.
//
// The library is loaded at run time (dlopen of libcudss.so.1), not linked: binaries built with
// cuDSS run where it is missing (it is 160 MB, part of no CUDA toolkit), and only this solver
// then throws, saying where it looked. Search order: $SOFTIK_CUDSS_LIBRARY (a file), the
// dynamic loader's path (LD_LIBRARY_PATH, the executable's RUNPATH), lib/ and ../lib/ beside the
// executable, and the file CMake found at configure time.
//
// Private to cuda/ (the host API reaches it through make_linear_solver); solve_device is for a
// device-resident pipeline (GPU assembly -> factorisation -> solves).
#pragma once

#include <memory>
#include <string>

#include "softik/linear_solver.hpp"

namespace softik::cuda {

/// Whether libcudss.so.1 can be loaded and has a compatible version (loads it on the first
/// call). False, with the reason, when softik was built without cuDSS. Never throws.
bool cudss_library_available(std::string* reason = nullptr);

#ifdef SOFTIK_HAVE_CUDSS

class CudssSolver final : public LinearSolver {
 public:
  CudssSolver();
  ~CudssSolver() override;
  CudssSolver(const CudssSolver&) = delete;
  CudssSolver& operator=(const CudssSolver&) = delete;

  const char* name() const override { return "cuDSS"; }
  /// Throws softik::Error when no CUDA device is usable, libcudss.so.1 cannot be loaded, the
  /// pattern is malformed, or the factorisation will not fit in the free device memory.
  void analyze(const CsrPattern& pattern) override;
  /// Uploads the nnz values (laid out in the analysed pattern) and calls factorize_device.
  void factorize(const std::vector<Real>& values) override;
  /// Factors from nnz values in device memory, written on this thread's default stream or
  /// synchronised before the call (only the upper triangle, j >= i, is read).
  void factorize_device(exec::DeviceView<const Real> values) override;
  bool accepts_device_values() const override { return true; }
  /// x = K^-1 b for nrhs columns in host memory (n x nrhs, column-major).
  void solve(const Real* b, Real* x, int nrhs = 1) const override;
  /// x = K^-1 b for nrhs columns in device memory (n x nrhs, column-major, leading dimension n).
  /// d_x may equal d_b (in place, staged through an internal buffer); otherwise they must not
  /// overlap. Synchronous on this thread's default stream.
  void solve_device(const Real* d_b, Real* d_x, int nrhs = 1) const;
  const FactorizationInfo& info() const override;

  /// Number of free DOFs n of the analysed pattern.
  int size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

#endif  // SOFTIK_HAVE_CUDSS

}  // namespace softik::cuda
