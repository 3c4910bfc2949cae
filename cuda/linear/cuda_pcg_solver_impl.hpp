// The state of a CudaPcgSolver (cuda_pcg_solver.hpp), shared by its two halves:
// cuda_pcg_setup.cu (analyze: K's BSR structure; factorize: its values and the block-Jacobi
// preconditioner) and cuda_pcg_solver.cu (the PCG iteration of solve). Private to those two files.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cuda/exec/device_array.hpp"
#include "cuda/linear/cuda_library_check.hpp"
#include "cuda/linear/cuda_pcg_solver.hpp"
#include "softik/linear_solver.hpp"

namespace softik::cuda {

/// K's BSR structure (3 x 3 blocks) and where each CSR entry goes in it.
struct BsrStructure {
  std::vector<int> row_ptr, block_col;  ///< block rows' starts, block columns
  std::vector<int> slot;                ///< per CSR entry: its place in the block values
  std::vector<int> diag_block;          ///< per block row: its diagonal block
};

struct CudaPcgSolver::Impl {
  // Pattern
  int n = 0, nnz = 0;
  int mb = 0;     ///< block rows (n padded up to 3 mb)
  int n_pad = 0;  ///< 3 mb
  int nnzb = 0;   ///< stored 3 x 3 blocks
  bool analysed = false, factored = false;
  FactorizationInfo info;
  void forget_factor() {
    factored = false;
    info = FactorizationInfo{};
  }
  CusparseHandle sparse;
  CusparseSpMat K;  ///< BSR descriptor over bsr_row_ptr, bsr_col, bsr_val
  cusparseSpMMAlg_t spmm_alg = CUSPARSE_SPMM_BSR_ALG1;
  bool use_cusparse = true;  ///< false: bsr3_multiply, where cuSPARSE refused the operands
  std::string product;       ///< which product the solves use (CudaPcgSolver::product())
  DeviceArray<int> bsr_row_ptr, bsr_col, slot, diag_block, status;
  DeviceArray<Real> bsr_val, inv_diag, values, block_min, block_max, min_max;

  // Solve workspace for `columns` right-hand sides (n_pad x columns each, leading dimension n_pad)
  int capacity = 0;      ///< columns the vectors hold
  int columns = 0;       ///< columns the descriptors describe
  int warm_columns = 0;  ///< columns of the kept solution X (0: none)
  DeviceArray<Real> B, X, R, Z, P, Q;
  DeviceArray<Real> scalars;  ///< per column: pq | rr | rz_a | rz_b | bb (5 columns-long sections)
  DeviceArray<Real> partial;  ///< 2 x columns x dot_parts
  DeviceArray<int> active;
  DeviceArray<unsigned char> spmm_buffer;
  std::size_t spmm_buffer_bytes = 0;
  CusparseDnMat dn_X, dn_R, dn_P, dn_Q;
  int dot_parts = 1;

  // Results of the last solve
  int iterations = 0;
  std::vector<std::vector<double>> history;

  std::size_t vector_size(int nrhs) const { return static_cast<std::size_t>(n_pad) * static_cast<std::size_t>(nrhs); }

  void ensure_workspace(int nrhs);
  /// A dense n_pad x columns operand: its device array and its cuSPARSE descriptor.
  struct Operand {
    DeviceArray<Real>* values;
    CusparseDnMat* descriptor;
  };
  Operand operand(DeviceArray<Real>& v, CusparseDnMat& d) { return Operand{&v, &d}; }
  void choose_product(int nrhs);
  void spmm(int nrhs, Real alpha, Operand in, Real beta, Operand out);
  void dots(int nrhs, const Real* A, const Real* Bm, const Real* C, Real* out_ab, Real* out_ac);
  void block_jacobi(int nrhs, const Real* Rm, Real* Zm);
  void run(int nrhs, double tolerance, int max_iterations, bool warm_start);
  /// solve() and solve_device() (`call`): the nrhs columns b (leading dimension n) padded into B
  /// (copied as `in`: from the host or the device), run(), X copied out to x (as `out`); a failed
  /// run forgets the kept solution.
  void solve_columns(const char* solver, const char* call, const Real* b, Real* x, int nrhs, cudaMemcpyKind in,
                     cudaMemcpyKind out, double tolerance, int max_iterations, bool warm_start);
  /// A solve's per-column device scalars, sections of `scalars`: p.q, r.r, the current r.z, the
  /// r.z of the updated residual (the two swap each iteration), b.b.
  struct Scalars {
    Real *pq, *rr, *rz, *rz_next, *bb;
  };
  // run()'s phases (each commented at its definition):
  std::vector<Real> start_solve(int nrhs, Real* bb, bool warm_start);
  bool true_residual(int nrhs, int restart, const Scalars& s, const std::vector<Real>& b_norm, double tolerance,
                     std::vector<Real>& host_scalars, std::vector<int>& is_active);
  void fail_restarts(const std::vector<Real>& b_norm, const std::vector<Real>& host_scalars,
                     const std::vector<int>& is_active, double tolerance) const;
  void iterate(int nrhs, double tolerance, int max_iter, unsigned vector_grid, Scalars& s,
               const std::vector<Real>& b_norm, std::vector<Real>& host_scalars, std::vector<int>& is_active);
  void fail_iterations(const std::vector<int>& is_active, int max_iter, double tolerance) const;
  void pcg_iteration(int nrhs, unsigned vector_grid, Scalars& s);
  bool check_columns(int nrhs, double tolerance, const std::vector<Real>& b_norm, const std::vector<Real>& host_scalars,
                     std::vector<int>& is_active);
  // analyze()'s phases after the BSR structure:
  void check_bsr_memory(const char* name) const;
  void upload_bsr(const BsrStructure& bsr, const std::vector<Real>& initial);
};

}  // namespace softik::cuda
