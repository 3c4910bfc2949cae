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
//
// This file is the iteration (solve); K's BSR structure and the preconditioner are set up in
// cuda_pcg_setup.cu, and the state both share is cuda_pcg_solver_impl.hpp's.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cuda/exec/device_array.hpp"
#include "cuda/linear/block_pcg_kernels.cuh"
#include "cuda/linear/cuda_library_check.hpp"
#include "cuda/linear/cuda_pcg_solver.hpp"
#include "cuda/linear/cuda_pcg_solver_impl.hpp"
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

}  // namespace

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

int CudaPcgSolver::iterations() const { return impl_->iterations; }
const std::string& CudaPcgSolver::product() const { return impl_->product; }
void CudaPcgSolver::reset_warm_start() { impl_->warm_columns = 0; }

const std::vector<double>& CudaPcgSolver::residual_history(int column) const {
  SOFTIK_CHECK(
      column >= 0 && static_cast<std::size_t>(column) < impl_->history.size(),
      "residual_history: column " << column << " of a last solve with " << impl_->history.size() << " columns");
  return impl_->history[static_cast<std::size_t>(column)];
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
