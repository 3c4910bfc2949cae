// Block-Jacobi preconditioned CG on the GPU behind LinearSolver (see cuda_pcg_solver.hpp):
// K in cuSPARSE BSR (3 x 3 blocks, generic API cusparseSpMM for all columns at once), nrhs
// PCG recurrences advanced together by the kernels of block_pcg_kernels.cuh.
//
// Per column j, with M^-1 the inverse of K's 3 x 3 diagonal blocks (Saad, Iterative Methods for
// Sparse Linear Systems, 2nd ed., Algorithm 9.1):
//   r = b - K x,  z = M^-1 r,  p = z,  rz = r.z
//   repeat:  q = K p;  alpha = rz / p.q;  x += alpha p;  r -= alpha q
//            z = M^-1 r;  rz' = r.z;  beta = rz' / rz;  p = z + beta p;  rz = rz'
//   until ||r|| <= relative_tolerance ||b||.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cuda/backend_entries.hpp"
#include "cuda/exec/device_array.hpp"
#include "cuda/linear/block_pcg_kernels.cuh"
#include "cuda/linear/cuda_library_check.hpp"
#include "cuda/linear/cuda_pcg_solver.hpp"
#include "cuda/linear/gpu_solver_support.hpp"

namespace softik::cuda {

namespace {

constexpr unsigned kMaxDotParts = 128;  ///< partial sums per column (first reduction stage)
/// Times the true residual may send converged columns back to the recurrence.
constexpr int kMaxRestarts = 5;

/// "0: 1, 100: 2.3e-4, ..., 812: 9.1e-11": entry 0, every 100th and the last of a history.
std::string format_history(const std::vector<double>& history) {
  std::ostringstream s;
  for (std::size_t k = 0; k < history.size(); ++k)
    if (k % 100 == 0 || k + 1 == history.size()) s << (k ? ", " : "") << k << ": " << history[k];
  return s.str();
}

/// K's BSR structure (3 x 3 blocks) and where each CSR entry goes in it.
struct BsrStructure {
  std::vector<int> row_ptr, block_col;  ///< block rows' starts, block columns
  std::vector<int> slot;                ///< per CSR entry: its place in the block values
  std::vector<int> diag_block;          ///< per block row: its diagonal block
};

/// BSR structure: block row I gathers the block columns col/3 of rows 3I..3I+2, sorted, plus
/// the diagonal block (always stored: it carries the padded rows' identity).
BsrStructure bsr_structure(const CsrPattern& pattern, int n, int block_rows, const char* name) {
  const std::size_t mb = static_cast<std::size_t>(block_rows);
  BsrStructure bsr;
  std::vector<int>& row_ptr = bsr.row_ptr;
  std::vector<int>& block_col = bsr.block_col;
  std::vector<int>& slot = bsr.slot;
  std::vector<int>& diag_block = bsr.diag_block;
  row_ptr.assign(mb + 1, 0);
  slot.resize(static_cast<std::size_t>(pattern.nnz()));
  diag_block.resize(mb);
  std::vector<int> seen(mb, -1), position(mb, -1), row_blocks;
  for (int I = 0; I < block_rows; ++I) {
    row_blocks.clear();
    const int first_row = 3 * I, last_row = std::min(3 * I + 3, n);
    for (int r = first_row; r < last_row; ++r)
      for (int k = pattern.row_ptr[static_cast<std::size_t>(r)]; k < pattern.row_ptr[static_cast<std::size_t>(r) + 1];
           ++k) {
        const int J = pattern.col[static_cast<std::size_t>(k)] / 3;
        if (seen[static_cast<std::size_t>(J)] != I) {
          seen[static_cast<std::size_t>(J)] = I;
          row_blocks.push_back(J);
        }
      }
    if (seen[static_cast<std::size_t>(I)] != I) row_blocks.push_back(I);
    std::sort(row_blocks.begin(), row_blocks.end());
    for (int J : row_blocks) {
      position[static_cast<std::size_t>(J)] = static_cast<int>(block_col.size());
      block_col.push_back(J);
    }
    SOFTIK_CHECK(block_col.size() <= static_cast<std::size_t>(INT_MAX / 9),
                 name << ": K has too many 3 x 3 blocks for 32-bit BSR indices: split the model");
    diag_block[static_cast<std::size_t>(I)] = position[static_cast<std::size_t>(I)];
    for (int r = first_row; r < last_row; ++r)
      for (int k = pattern.row_ptr[static_cast<std::size_t>(r)]; k < pattern.row_ptr[static_cast<std::size_t>(r) + 1];
           ++k) {
        const int c = pattern.col[static_cast<std::size_t>(k)];
        slot[static_cast<std::size_t>(k)] = 9 * position[static_cast<std::size_t>(c / 3)] + 3 * (r % 3) + c % 3;
      }
    row_ptr[static_cast<std::size_t>(I) + 1] = static_cast<int>(block_col.size());
  }
  return bsr;
}

/// Initial block values: zero, with the identity on the padded rows' diagonal (scatters never
/// write either, so they stay).
std::vector<Real> initial_blocks(const std::vector<int>& diag_block, std::size_t nnzb, int n, int n_pad) {
  std::vector<Real> initial(9 * nnzb, 0.0);
  for (int r = n; r < n_pad; ++r)
    initial[9 * static_cast<std::size_t>(diag_block[static_cast<std::size_t>(r / 3)]) +
            4 * static_cast<std::size_t>(r % 3)] = 1.0;
  return initial;
}

}  // namespace

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

void CudaPcgSolver::Impl::ensure_workspace(int nrhs) {
  if (nrhs > capacity) {
    for (DeviceArray<Real>* v : {&B, &X, &R, &Z, &P, &Q}) *v = {};  // free before allocating anew
    warm_columns = 0;
    capacity = columns = 0;  // until the new vectors exist (a failed check below leaves none)
    const std::size_t size = vector_size(nrhs);
    // The six block vectors of the recurrences (analyze() checked K's own buffers).
    const std::size_t needed = 6 * size * sizeof(Real);
    std::size_t free_bytes = 0, total_bytes = 0;
    SOFTIK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    SOFTIK_CHECK(needed <= free_bytes, "block PCG with "
                                           << nrhs << " right-hand sides of " << n << " free DOFs needs "
                                           << needed / 1e9 << " GB of device memory for its vectors, but only "
                                           << free_bytes / 1e9 << " GB of " << total_bytes / 1e9
                                           << " GB are free: solve fewer right-hand sides at once, or use a "
                                              "smaller mesh");
    for (DeviceArray<Real>* v : {&B, &X, &R, &Z, &P, &Q}) {
      *v = DeviceArray<Real>(size);
      // Padded rows must stay zero in every vector (the copies in and out skip them).
      SOFTIK_CUDA_CHECK(cudaMemset(v->get(), 0, size * sizeof(Real)));
    }
    scalars = DeviceArray<Real>(5 * static_cast<std::size_t>(nrhs));
    dot_parts =
        static_cast<int>(std::min<unsigned>(kMaxDotParts, grid_size(static_cast<std::size_t>(n_pad), kDotBlock)));
    partial = DeviceArray<Real>(2 * static_cast<std::size_t>(nrhs) * static_cast<std::size_t>(dot_parts));
    active = DeviceArray<int>(static_cast<std::size_t>(nrhs));
    capacity = nrhs;
    columns = 0;
  }
  if (nrhs == columns) return;
  if (nrhs != warm_columns) warm_columns = 0;
  const int64_t rows = n_pad, ld = n_pad;
  SOFTIK_CUSPARSE_CHECK(cusparseCreateDnMat(dn_X.replace(), rows, nrhs, ld, X.get(), CUDA_R_64F, CUSPARSE_ORDER_COL));
  SOFTIK_CUSPARSE_CHECK(cusparseCreateDnMat(dn_R.replace(), rows, nrhs, ld, R.get(), CUDA_R_64F, CUSPARSE_ORDER_COL));
  SOFTIK_CUSPARSE_CHECK(cusparseCreateDnMat(dn_P.replace(), rows, nrhs, ld, P.get(), CUDA_R_64F, CUSPARSE_ORDER_COL));
  SOFTIK_CUSPARSE_CHECK(cusparseCreateDnMat(dn_Q.replace(), rows, nrhs, ld, Q.get(), CUDA_R_64F, CUSPARSE_ORDER_COL));
  choose_product(nrhs);
  columns = nrhs;
}

/// The product the solves use and its workspace: cusparseSpMM with the BSR algorithm, else
/// with the default algorithm, else (cuSPARSE refusing BSR times column-major dense operands)
/// the bsr3_multiply kernel; product says which and why.
void CudaPcgSolver::Impl::choose_product(int nrhs) {
  // The two products a solve runs: R = -K X + R and Q = K P.
  struct Product {
    const CusparseDnMat* in;
    const CusparseDnMat* out;
    Real alpha, beta;
  };
  const Product products[] = {{&dn_X, &dn_R, -1.0, 1.0}, {&dn_P, &dn_Q, 1.0, 0.0}};
  std::ostringstream refused;
  for (cusparseSpMMAlg_t alg : {CUSPARSE_SPMM_BSR_ALG1, CUSPARSE_SPMM_ALG_DEFAULT}) {
    std::size_t bytes = 0;
    cusparseStatus_t query = CUSPARSE_STATUS_SUCCESS;
    for (const Product& op : products) {
      std::size_t size = 0;
      query = cuda_math().cusparseSpMM_bufferSize(sparse.get(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                  CUSPARSE_OPERATION_NON_TRANSPOSE, &op.alpha, K.get(), op.in->get(),
                                                  &op.beta, op.out->get(), CUDA_R_64F, alg, &size);
      if (query != CUSPARSE_STATUS_SUCCESS) break;
      bytes = std::max(bytes, size);
    }
    if (query != CUSPARSE_STATUS_SUCCESS) {
      refused << (refused.tellp() > 0 ? ", " : "") << (alg == CUSPARSE_SPMM_BSR_ALG1 ? "BSR_ALG1: " : "ALG_DEFAULT: ")
              << cuda_math().cusparseGetErrorName(query);
      continue;
    }
    if (bytes > spmm_buffer_bytes || !spmm_buffer.get()) {
      spmm_buffer = {};
      spmm_buffer = DeviceArray<unsigned char>(bytes);
      spmm_buffer_bytes = bytes;
    }
    spmm_alg = alg;
    use_cusparse = true;
    product = alg == CUSPARSE_SPMM_BSR_ALG1 ? "cusparseSpMM (CUSPARSE_SPMM_BSR_ALG1)"
                                            : "cusparseSpMM (CUSPARSE_SPMM_ALG_DEFAULT)";
    return;
  }
  use_cusparse = false;
  product = "softik's bsr3_multiply kernel (cusparseSpMM_bufferSize refused BSR 3x3 times " + std::to_string(nrhs) +
            " column-major columns: " + refused.str() + ")";
}

/// out = alpha K in + beta out (all nrhs columns).
void CudaPcgSolver::Impl::spmm(int nrhs, Real alpha, Operand in, Real beta, Operand out) {
  if (use_cusparse) {
    SOFTIK_CUSPARSE_CHECK(cusparseSpMM(sparse.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                       &alpha, K.get(), in.descriptor->get(), &beta, out.descriptor->get(), CUDA_R_64F,
                                       spmm_alg, spmm_buffer.get()));
    return;
  }
  bsr3_multiply<<<grid_size(static_cast<std::size_t>(mb) * static_cast<std::size_t>(nrhs), kBlock), kBlock>>>(
      mb, nrhs, n_pad, bsr_row_ptr.get(), bsr_col.get(), bsr_val.get(), alpha, in.values->get(), beta,
      out.values->get());
  check_launch("bsr3_multiply");
}

/// out_ab[j] = A_j.B_j and, when C is given, out_ac[j] = A_j.C_j (device arrays).
void CudaPcgSolver::Impl::dots(int nrhs, const Real* A, const Real* Bm, const Real* C, Real* out_ab, Real* out_ac) {
  column_dots_partial<<<dim3(static_cast<unsigned>(dot_parts), static_cast<unsigned>(nrhs)), kDotBlock>>>(
      n_pad, n_pad, A, Bm, C, partial.get());
  check_launch("column_dots_partial");
  column_dots_finish<<<static_cast<unsigned>(nrhs), kDotBlock>>>(dot_parts, partial.get(), out_ab,
                                                                 C ? out_ac : nullptr);
  check_launch("column_dots_finish");
}

void CudaPcgSolver::Impl::block_jacobi(int nrhs, const Real* Rm, Real* Zm) {
  apply_block_jacobi<<<grid_size(static_cast<std::size_t>(mb) * static_cast<std::size_t>(nrhs), kBlock), kBlock>>>(
      mb, nrhs, n_pad, inv_diag.get(), Rm, Zm);
  check_launch("apply_block_jacobi");
}

/// Solves K X = B for the nrhs columns in this->B, from X (warm) or from zero.
void CudaPcgSolver::Impl::run(int nrhs, double tolerance, int max_iter, bool warm_start) {
  const std::size_t size = vector_size(nrhs), n_rhs = static_cast<std::size_t>(nrhs);
  Scalars s;
  s.pq = scalars.get();
  s.rr = s.pq + n_rhs;
  s.rz = s.rr + n_rhs;       // current r.z
  s.rz_next = s.rz + n_rhs;  // r.z of the updated residual
  s.bb = s.rz_next + n_rhs;
  iterations = 0;
  history.assign(n_rhs, {});

  std::vector<Real> host_scalars(2 * n_rhs);
  const std::vector<Real> b_norm = start_solve(nrhs, s.bb, warm_start);
  std::vector<int> is_active(n_rhs, 0);
  const unsigned vector_grid = grid_size(size, kBlock);
  for (int restart = 0;; ++restart) {
    if (!true_residual(nrhs, restart, s, b_norm, tolerance, host_scalars, is_active)) break;
    if (restart == kMaxRestarts) fail_restarts(b_norm, host_scalars, is_active, tolerance);
    upload(active.get(), is_active.data(), n_rhs);
    iterate(nrhs, tolerance, max_iter, vector_grid, s, b_norm, host_scalars, is_active);
  }
  warm_columns = nrhs;
}

/// The start of a solve: ||b|| per column (returned; a column of NaN or inf is refused), X from
/// zero unless warm, and zero in every column whose b is zero.
std::vector<Real> CudaPcgSolver::Impl::start_solve(int nrhs, Real* bb, bool warm_start) {
  const std::size_t size = vector_size(nrhs), n_rhs = static_cast<std::size_t>(nrhs);
  dots(nrhs, B.get(), B.get(), nullptr, bb, nullptr);
  std::vector<Real> b_norm(n_rhs);
  download(b_norm.data(), bb, n_rhs);
  for (Real& v : b_norm) v = std::sqrt(v);
  if (!(warm_start && warm_columns == nrhs)) SOFTIK_CUDA_CHECK(cudaMemset(X.get(), 0, size * sizeof(Real)));
  warm_columns = 0;  // X is in flux until this solve succeeds
  for (std::size_t j = 0; j < n_rhs; ++j)
    if (b_norm[j] == 0)  // x = 0, whatever the initial guess
      SOFTIK_CUDA_CHECK(
          cudaMemset(X.get() + j * static_cast<std::size_t>(n_pad), 0, static_cast<std::size_t>(n_pad) * sizeof(Real)));
  for (std::size_t j = 0; j < n_rhs; ++j)
    SOFTIK_CHECK(std::isfinite(b_norm[j]), "block PCG: right-hand side column " << j << " holds NaN or inf");
  return b_norm;
}

/// A (re)start of the recurrences: r = b - K x (the true residual), z = M^-1 r, p = z. The columns
/// whose residual is above the tolerance become active (is_active; the first start records each
/// column's initial residual); returns whether any is.
bool CudaPcgSolver::Impl::true_residual(int nrhs, int restart, const Scalars& s, const std::vector<Real>& b_norm,
                                        double tolerance, std::vector<Real>& host_scalars,
                                        std::vector<int>& is_active) {
  const std::size_t size = vector_size(nrhs), n_rhs = static_cast<std::size_t>(nrhs);
  SOFTIK_CUDA_CHECK(cudaMemcpy(R.get(), B.get(), size * sizeof(Real), cudaMemcpyDeviceToDevice));
  spmm(nrhs, -1.0, operand(X, dn_X), 1.0, operand(R, dn_R));
  block_jacobi(nrhs, R.get(), Z.get());
  dots(nrhs, R.get(), R.get(), Z.get(), s.rr, s.rz);
  SOFTIK_CUDA_CHECK(cudaMemcpy(P.get(), Z.get(), size * sizeof(Real), cudaMemcpyDeviceToDevice));
  download(host_scalars.data() + n_rhs, s.rr, n_rhs);
  bool any = false;
  for (std::size_t j = 0; j < n_rhs; ++j) {
    const double residual = b_norm[j] > 0 ? std::sqrt(host_scalars[n_rhs + j]) / b_norm[j] : 0.0;
    if (b_norm[j] > 0 && restart == 0) history[j].push_back(residual);
    is_active[j] = b_norm[j] > 0 && !(residual <= tolerance);
    any = any || is_active[j];
  }
  return any;
}

/// Throws when a column's recurrence converged kMaxRestarts times but its true residual did not:
/// round-off bounds what double precision reaches with this K.
void CudaPcgSolver::Impl::fail_restarts(const std::vector<Real>& b_norm, const std::vector<Real>& host_scalars,
                                        const std::vector<int>& is_active, double tolerance) const {
  const std::size_t n_rhs = is_active.size();
  const std::size_t j = static_cast<std::size_t>(std::find(is_active.begin(), is_active.end(), 1) - is_active.begin());
  SOFTIK_CHECK(false, "block PCG: the recurrence of column "
                          << j << " converged " << kMaxRestarts << " times but its true residual ||b - K x|| / ||b|| = "
                          << std::sqrt(host_scalars[n_rhs + j]) / b_norm[j]
                          << " stays above relative_tolerance = " << tolerance << " after " << iterations
                          << " iterations: K is too badly conditioned for this tolerance in double precision "
                             "(raise relative_tolerance, or use a direct solver: LinearSolverKind::Cudss, CudaDense, "
                             "or a CPU solver)");
}

/// The recurrences of the active columns, one iteration at a time, until none is active (each
/// synchronises once, to read p.q and r.r); throws after max_iter iterations of the solve.
void CudaPcgSolver::Impl::iterate(int nrhs, double tolerance, int max_iter, unsigned vector_grid, Scalars& s,
                                  const std::vector<Real>& b_norm, std::vector<Real>& host_scalars,
                                  std::vector<int>& is_active) {
  const std::size_t n_rhs = static_cast<std::size_t>(nrhs);
  bool any = true;  // true_residual found an active column
  while (any) {
    if (iterations >= max_iter) fail_iterations(is_active, max_iter, tolerance);
    pcg_iteration(nrhs, vector_grid, s);
    download(host_scalars.data(), s.pq, 2 * n_rhs);  // pq | rr; synchronises
    ++iterations;
    any = check_columns(nrhs, tolerance, b_norm, host_scalars, is_active);
  }
}

/// Throws for the first active column when the solve ran out of iterations, with its residual
/// history and the likely reasons.
void CudaPcgSolver::Impl::fail_iterations(const std::vector<int>& is_active, int max_iter, double tolerance) const {
  const std::size_t j = static_cast<std::size_t>(std::find(is_active.begin(), is_active.end(), 1) - is_active.begin());
  SOFTIK_CHECK(false, "block PCG did not converge: right-hand-side column "
                          << j << " still has ||r|| / ||b|| = " << history[j].back() << " after " << iterations
                          << " iterations (max_iterations = " << max_iter << ", relative_tolerance = " << tolerance
                          << "); residual history (iteration: ||r|| / ||b||): " << format_history(history[j])
                          << ". K may be singular (nothing fixed, or a part floating free: fix enough nodes), "
                             "indefinite (a hyperelastic tangent under compression: set "
                             "AssemblyOptions::project_spd = true) or too badly conditioned for block-Jacobi CG: "
                             "raise max_iterations, or use a direct solver (LinearSolverKind::Cudss, CudaDense, or "
                             "a CPU solver)");
}

/// One iteration of the active columns on the device: q = K p; alpha = rz / p.q; x += alpha p;
/// r -= alpha q; z = M^-1 r; rz' = r.z; beta = rz' / rz; p = z + beta p; rz = rz' (a swap).
void CudaPcgSolver::Impl::pcg_iteration(int nrhs, unsigned vector_grid, Scalars& s) {
  spmm(nrhs, 1.0, operand(P, dn_P), 0.0, operand(Q, dn_Q));  // q = K p
  dots(nrhs, P.get(), Q.get(), nullptr, s.pq, nullptr);
  update_x_r<<<vector_grid, kBlock>>>(n_pad, nrhs, active.get(), s.rz, s.pq, P.get(), Q.get(), X.get(), R.get());
  check_launch("update_x_r");
  block_jacobi(nrhs, R.get(), Z.get());
  dots(nrhs, R.get(), R.get(), Z.get(), s.rr, s.rz_next);
  update_p<<<vector_grid, kBlock>>>(n_pad, nrhs, active.get(), s.rz_next, s.rz, Z.get(), P.get());
  check_launch("update_p");
  std::swap(s.rz, s.rz_next);
}

/// After an iteration (host_scalars: p.q | r.r per column): each active column's p^T K p must be
/// positive and its residual finite; a column whose residual meets the tolerance stops (the
/// device's flags follow when some column goes on). Returns whether any column is still active.
bool CudaPcgSolver::Impl::check_columns(int nrhs, double tolerance, const std::vector<Real>& b_norm,
                                        const std::vector<Real>& host_scalars, std::vector<int>& is_active) {
  const std::size_t n_rhs = static_cast<std::size_t>(nrhs);
  bool changed = false, any = false;
  for (std::size_t j = 0; j < n_rhs; ++j) {
    if (!is_active[j]) continue;
    const double pKp = host_scalars[j];
    SOFTIK_CHECK(pKp > 0, "block PCG: p^T K p = " << pKp << " <= 0 in right-hand-side column " << j << " at iteration "
                                                  << iterations
                                                  << ": the stiffness matrix K is not positive definite (singular: "
                                                     "nothing fixed, or a part floating free, so fix enough nodes; "
                                                     "or an indefinite hyperelastic tangent: set "
                                                     "AssemblyOptions::project_spd = true, or use a CPU solver "
                                                     "(LinearSolverKind::Cholmod), which factors indefinite K)");
    const double residual = std::sqrt(host_scalars[n_rhs + j]) / b_norm[j];
    history[j].push_back(residual);
    SOFTIK_CHECK(std::isfinite(residual),
                 "block PCG diverged in right-hand-side column "
                     << j << " at iteration " << iterations << " (residual history: " << format_history(history[j])
                     << "): K is probably singular (nothing fixed, or a part floating free) or not positive definite");
    if (residual <= tolerance) {
      is_active[j] = 0;
      changed = true;
    }
    any = any || is_active[j];
  }
  if (changed && any) upload(active.get(), is_active.data(), n_rhs);
  return any;
}

CudaPcgSolver::CudaPcgSolver() : impl_(std::make_unique<Impl>()) {}
CudaPcgSolver::~CudaPcgSolver() = default;

const FactorizationInfo& CudaPcgSolver::info() const { return impl_->info; }
int CudaPcgSolver::iterations() const { return impl_->iterations; }
const std::string& CudaPcgSolver::product() const { return impl_->product; }
void CudaPcgSolver::reset_warm_start() { impl_->warm_columns = 0; }

const std::vector<double>& CudaPcgSolver::residual_history(int column) const {
  SOFTIK_CHECK(
      column >= 0 && static_cast<std::size_t>(column) < impl_->history.size(),
      "residual_history: column " << column << " of a last solve with " << impl_->history.size() << " columns");
  return impl_->history[static_cast<std::size_t>(column)];
}

void CudaPcgSolver::analyze(const CsrPattern& pattern) {
  check_csr_pattern(pattern, name());
  require_device(name());
  Impl& p = *impl_;
  p = Impl{};  // releases the previous pattern's buffers, handles and kept solution
  SOFTIK_CUSPARSE_CHECK(cusparseCreate(p.sparse.replace()));
  SOFTIK_CUSPARSE_CHECK(cusparseSetStream(p.sparse.get(), cudaStreamPerThread));  // the calling thread's stream
  p.n = pattern.rows;
  p.nnz = pattern.nnz();
  p.mb = (p.n + 2) / 3;
  p.n_pad = 3 * p.mb;
  if (p.n == 0) {
    p.analysed = true;
    return;
  }

  const BsrStructure bsr = bsr_structure(pattern, p.n, p.mb, name());
  p.nnzb = static_cast<int>(bsr.block_col.size());
  const std::vector<Real> initial = initial_blocks(bsr.diag_block, bsr.block_col.size(), p.n, p.n_pad);
  p.check_bsr_memory(name());
  p.upload_bsr(bsr, initial);
  p.analysed = true;
}

/// K in BSR needs its blocks, the inverted diagonal blocks, the CSR values and scatter slots and
/// the block extremes on the device: refuse a K that does not fit in the free memory.
void CudaPcgSolver::Impl::check_bsr_memory(const char* name) const {
  const std::size_t block_rows = static_cast<std::size_t>(mb), blocks = static_cast<std::size_t>(nnzb);
  const std::size_t needed =
      (9 * blocks + 9 * block_rows + static_cast<std::size_t>(nnz) + 2 * block_rows) * sizeof(Real) +
      (block_rows + 1 + blocks + static_cast<std::size_t>(nnz) + block_rows) * sizeof(int);
  std::size_t free_bytes = 0, total_bytes = 0;
  SOFTIK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  SOFTIK_CHECK(needed <= free_bytes, name << " of " << n << " free DOFs needs " << needed / 1e9
                                          << " GB of device memory for K in BSR, but only " << free_bytes / 1e9
                                          << " GB of " << total_bytes / 1e9
                                          << " GB are free: use a smaller mesh or free device memory");
}

/// The device buffers of K in BSR and of the values' scatter, the BSR structure and the initial
/// blocks uploaded, and cuSPARSE's descriptor of K.
void CudaPcgSolver::Impl::upload_bsr(const BsrStructure& bsr, const std::vector<Real>& initial) {
  const std::size_t block_rows = static_cast<std::size_t>(mb), blocks = bsr.block_col.size();
  bsr_row_ptr = DeviceArray<int>(block_rows + 1);
  bsr_col = DeviceArray<int>(blocks);
  slot = DeviceArray<int>(static_cast<std::size_t>(nnz));
  diag_block = DeviceArray<int>(block_rows);
  status = DeviceArray<int>(1);
  bsr_val = DeviceArray<Real>(9 * blocks);
  inv_diag = DeviceArray<Real>(9 * block_rows);
  values = DeviceArray<Real>(static_cast<std::size_t>(nnz));
  block_min = DeviceArray<Real>(block_rows);
  block_max = DeviceArray<Real>(block_rows);
  min_max = DeviceArray<Real>(2);
  upload(bsr_row_ptr.get(), bsr.row_ptr.data(), block_rows + 1);
  upload(bsr_col.get(), bsr.block_col.data(), blocks);
  upload(slot.get(), bsr.slot.data(), bsr.slot.size());
  upload(diag_block.get(), bsr.diag_block.data(), block_rows);
  upload(bsr_val.get(), initial.data(), initial.size());
  SOFTIK_CUSPARSE_CHECK(cusparseCreateBsr(K.replace(), static_cast<int64_t>(mb), static_cast<int64_t>(mb),
                                          static_cast<int64_t>(nnzb), 3, 3, bsr_row_ptr.get(), bsr_col.get(),
                                          bsr_val.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, CUSPARSE_ORDER_ROW));
}

void CudaPcgSolver::factorize(const std::vector<Real>& values) {
  factorize_from_host(*this, impl_->analysed, impl_->nnz, values, impl_->values.get());
}

void CudaPcgSolver::factorize_device(exec::DeviceView<const Real> values) {
  Impl& p = *impl_;
  if (!start_factorization(p, values, name())) return;
  if (p.nnz > 0) {
    scatter_to_bsr<<<grid_size(static_cast<std::size_t>(p.nnz), kBlock), kBlock>>>(p.nnz, p.slot.get(), values.data,
                                                                                   p.bsr_val.get());
    check_launch("scatter_to_bsr");
  }
  upload(p.status.get(), &p.mb, 1);
  invert_diagonal_blocks<<<grid_size(static_cast<std::size_t>(p.mb), kBlock), kBlock>>>(
      p.mb, p.n, p.diag_block.get(), p.bsr_val.get(), p.inv_diag.get(), p.block_min.get(), p.block_max.get(),
      p.status.get());
  check_launch("invert_diagonal_blocks");
  reduce_min_max<<<1, kBlock>>>(p.mb, p.block_min.get(), p.block_max.get(), p.min_max.get());
  check_launch("reduce_min_max");
  int first_bad = p.mb;
  Real min_max[2] = {0, 0};
  download(&first_bad, p.status.get(), 1);
  download(min_max, p.min_max.get(), 2);
  SOFTIK_CHECK(first_bad >= p.mb,
               "the stiffness matrix K is not positive definite: its 3 x 3 diagonal block "
                   << first_bad << " (free DOF rows " << 3 * first_bad << " to " << std::min(3 * first_bad + 2, p.n - 1)
                   << ") is not (a DOF without stiffness, or an indefinite hyperelastic tangent): " << name()
                   << " needs a positive definite K; set AssemblyOptions::project_spd = true, or use a CPU "
                   << "solver (LinearSolverKind::Cholmod), which also factors indefinite K");
  // For an iterative solver this is only an indicator of the scaling, not a pivot ratio.
  p.info.pivot_ratio = min_max[1] > 0 ? min_max[0] / min_max[1] : 0.0;
  p.info.factor_nnz = 9LL * p.mb;  // the stored preconditioner (inverse diagonal blocks)
  p.factored = true;
}

void CudaPcgSolver::Impl::solve_columns(const char* solver, const char* call, const Real* b, Real* x, int nrhs,
                                        cudaMemcpyKind in, cudaMemcpyKind out, double tolerance, int max_iterations,
                                        bool warm_start) {
  SOFTIK_CHECK(factored, solver << "::" << call << " needs a successful factorize() first");
  SOFTIK_CHECK(nrhs >= 0 && nrhs <= 65535,
               solver << "::" << call << " takes 0 to 65535 right-hand sides, got " << nrhs);
  if (n == 0 || nrhs == 0) return;
  ensure_workspace(nrhs);
  const std::size_t row_bytes = static_cast<std::size_t>(n) * sizeof(Real);
  const std::size_t pitch = static_cast<std::size_t>(n_pad) * sizeof(Real);
  SOFTIK_CUDA_CHECK(cudaMemcpy2D(B.get(), pitch, b, row_bytes, row_bytes, static_cast<std::size_t>(nrhs), in));
  try {
    run(nrhs, tolerance, max_iterations, warm_start);
  } catch (...) {
    warm_columns = 0;
    throw;
  }
  SOFTIK_CUDA_CHECK(cudaMemcpy2D(x, row_bytes, X.get(), pitch, row_bytes, static_cast<std::size_t>(nrhs), out));
}

void CudaPcgSolver::solve(const Real* b, Real* x, int nrhs) const {
  impl_->solve_columns(name(), "solve", b, x, nrhs, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, relative_tolerance,
                       max_iterations, warm_start);
}

void CudaPcgSolver::solve_device(const Real* d_b, Real* d_x, int nrhs) const {
  impl_->solve_columns(name(), "solve_device", d_b, d_x, nrhs, cudaMemcpyDeviceToDevice, cudaMemcpyDeviceToDevice,
                       relative_tolerance, max_iterations, warm_start);
}

}  // namespace softik::cuda

namespace softik {
std::unique_ptr<LinearSolver> make_cuda_pcg_solver() { return std::make_unique<cuda::CudaPcgSolver>(); }
}  // namespace softik
