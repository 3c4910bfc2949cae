// The dense GPU Cholesky behind LinearSolverKind::CudaDense (docs/gpu.md, "Choosing the GPU"): K is
// scattered from its CSR values into a dense n x n column-major matrix on the device and
// factored as K = L L^T by cuSOLVER (cusolverDnXpotrf, 64-bit API, lower triangle); solves use
// cusolverDnXpotrs on all right-hand sides at once, the half solves cublasDtrsm.
// No permutation: P = identity, so solve_forward is z = L^-1 b and solve_backward x = L^-T z.
//
// Device memory, allocated once by analyze() (nothing is allocated per factorisation or solve,
// except when a host solve has more right-hand sides than the staging buffer holds; it then
// grows to that count):
//   the dense matrix (8 n^2 bytes: 3.2 GB at 20k free DOFs), cuSOLVER's Xpotrf workspace, the
//   CSR pattern (row_ptr, col) and a staging buffer for host values (nnz doubles), diag(L)
//   (n doubles), and a staging buffer for host right-hand sides (n x 64 doubles to start).
// analyze() checks that this fits in the free device memory (with room for a second n x 64
// buffer) before it allocates, and otherwise throws an Error naming the GB needed and free.
//
// A K that is not positive definite (Xpotrf stops at a non-positive leading minor) is factored
// again as P K P^T = L D L^T by Bunch-Kaufman (cusolverDnDsytrf, lower triangle; its pivots and
// workspace allocated on the first such K) and solved by cusolverDnXsytrs: info().indefinite and
// passes = 2, no half solves (has_cholesky_factor() is false). A singular K (an exactly zero
// pivot of D) is an Error of kind Numerical naming the DOF row.
//
// Private to cuda/ (the host API reaches it through make_linear_solver); the device-pointer
// members are for a device-resident pipeline (GPU assembly -> factorisation -> solves).
#pragma once

#include <memory>

#include "softik/linear_solver.hpp"

namespace softik::cuda {

class CudaDenseSolver final : public LinearSolver {
 public:
  CudaDenseSolver();
  ~CudaDenseSolver() override;
  CudaDenseSolver(const CudaDenseSolver&) = delete;
  CudaDenseSolver& operator=(const CudaDenseSolver&) = delete;

  const char* name() const override { return "cuSOLVER dense Cholesky"; }
  /// Uploads the pattern and allocates every buffer. Throws softik::Error when no CUDA device
  /// is usable, or when the dense matrix and workspace do not fit in the free device memory.
  void analyze(const CsrPattern& pattern) override;
  /// Uploads the values (nnz, laid out in the analysed pattern) and calls factorize_device.
  void factorize(const std::vector<Real>& values) override;
  /// Factors from nnz values in device memory (only the upper triangle of the CSR, j >= i, is
  /// read, as the CPU solvers do). Throws softik::Error naming the free DOF row where K stops
  /// being positive definite, or throw_singular's Error when (min diag L / max diag L)^2 falls
  /// below singular_threshold.
  void factorize_device(exec::DeviceView<const Real> values) override;
  bool accepts_device_values() const override { return true; }
  /// x = K^-1 b for nrhs columns in host memory (n x nrhs, column-major).
  void solve(const Real* b, Real* x, int nrhs = 1) const override;
  const FactorizationInfo& info() const override;

  /// True after a successful factorisation (K = L L^T, P = identity).
  bool has_cholesky_factor() const override;
  /// z = L^-1 b (host memory, n x nrhs column-major).
  void solve_forward(const Real* b, Real* z, int nrhs = 1) const override;
  /// x = L^-T z (host memory, n x nrhs column-major).
  void solve_backward(const Real* z, Real* x, int nrhs = 1) const override;
  /// Z = L^-1 B by one cublasDtrsm on all nb columns, G = Z^T Z by cublasDsyrk; Z stays on the
  /// device, only G (nb x nb) is downloaded.
  void forward_gram(const Real* B, int n, int nb, Real* G) override;
  /// x = L^-T (Z c) on the device (cublasDgemv, cublasDtrsm); c up, x down.
  void backward_combination(const Real* c, Real* x) override;

  // Device-pointer variants: n x nrhs column-major arrays (leading dimension n) in device
  // memory. The output may be the input (in place); otherwise they must not overlap.
  // Synchronous on the default stream.
  void solve_device(const Real* d_b, Real* d_x, int nrhs = 1) const;           ///< x = K^-1 b
  void solve_forward_device(const Real* d_b, Real* d_z, int nrhs = 1) const;   ///< z = L^-1 b
  void solve_backward_device(const Real* d_z, Real* d_x, int nrhs = 1) const;  ///< x = L^-T z

  /// Number of free DOFs n of the analysed pattern.
  int size() const;
  /// The factor in device memory: n x n column-major (leading dimension n), L in the lower
  /// triangle (the strict upper triangle is not part of it). Valid while has_cholesky_factor().
  const Real* device_factor() const;

 private:
  /// The L D L^T of the values after Xpotrf found K not positive definite (see the top).
  void factorize_indefinite(const Real* d_values);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace softik::cuda
