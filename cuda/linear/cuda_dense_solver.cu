// cuSOLVER dense Cholesky behind LinearSolver (see cuda_dense_solver.hpp): the CSR values are
// scattered into a dense column-major matrix, K = L L^T by cusolverDnXpotrf, solves by
// cusolverDnXpotrs (all right-hand sides in one call) and half solves by cublasDtrsm. A K that
// is not positive definite (a hyperelastic tangent under compression, a follower load's
// stiffness) is factored again as P K P^T = L D L^T (Bunch-Kaufman, cusolverDnDsytrf) and solved
// by cusolverDnXsytrs, as CHOLMOD and cuDSS do on the other backends: no half solves then.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "cuda/backend_entries.hpp"
#include "cuda/exec/device_array.hpp"
#include "cuda/linear/cuda_dense_solver.hpp"
#include "cuda/linear/cuda_library_check.hpp"
#include "cuda/linear/gpu_solver_support.hpp"

namespace softik::cuda {

namespace {

constexpr unsigned kBlock = 256;
constexpr Real kInfinity = std::numeric_limits<Real>::infinity();
/// Right-hand-side columns the host staging buffer holds from the start.
constexpr int kInitialRhsColumns = 64;

/// Thread i writes row i's upper-triangle entries K(i, j), j >= i, to A(j, i) = A[j + i n]:
/// the lower triangle of the symmetric K in column-major storage (the part Xpotrf reads).
__global__ void scatter_upper_csr_to_lower_dense(int n, const int* row_ptr, const int* col, const Real* values,
                                                 Real* A) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  Real* column = A + static_cast<std::size_t>(i) * static_cast<std::size_t>(n);
  for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    const int j = col[k];
    if (j >= i) column[j] = values[k];
  }
}

/// LAPACK's pivot indices (1-based, negative for a 2 x 2 block) from Dsytrf's int to Xsytrs's int64.
__global__ void widen_pivots(int n, const int* in, std::int64_t* out) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = in[i];
}

/// In place: B <- op(L)^-1 B for the n x nrhs column-major B (cublasDtrsm, left side, lower,
/// non-unit diagonal; op = N for the forward solve, T for the backward one).
void triangular_solve(cublasHandle_t blas, cublasOperation_t op, int n, const Real* L, Real* B, int nrhs) {
  const Real one = 1.0;
  SOFTIK_CUBLAS_CHECK(cublasDtrsm_64(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT,
                                     static_cast<int64_t>(n), static_cast<int64_t>(nrhs), &one, L,
                                     static_cast<int64_t>(n), B, static_cast<int64_t>(n)));
}

/// diag[i] = A(i, i) of an n x n column-major matrix.
__global__ void copy_diagonal(int n, const Real* A, Real* diag) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) diag[i] = A[static_cast<std::size_t>(i) * (static_cast<std::size_t>(n) + 1)];
}

}  // namespace

struct CudaDenseSolver::Impl {
  int n = 0;
  int nnz = 0;
  bool analysed = false;
  bool factored = false;    ///< the last factorisation succeeded
  bool indefinite = false;  ///< it is L D L^T (Dsytrf), not L L^T
  FactorizationInfo info;
  CusolverDnHandle solver;
  CusolverDnParams params;
  CublasHandle blas;
  DeviceArray<int> row_ptr, col;
  DeviceArray<Real> values;  ///< staging for factorize(host values)
  DeviceArray<Real> A;       ///< n x n column-major; L in the lower triangle after Xpotrf
  DeviceArray<unsigned char> workspace;
  std::vector<unsigned char> host_workspace;
  std::size_t workspace_bytes = 0, host_workspace_bytes = 0;
  DeviceArray<Real> diag;     ///< diag(L)
  DeviceArray<int> dev_info;  ///< Xpotrf / Xpotrs status
  DeviceArray<Real> rhs;      ///< staging for host right-hand sides: n x rhs_columns
  int rhs_columns = 0;
  // forward_gram: Z = L^-1 B (n x gram_columns) and one more column for Z c stay in gram_Z, apart
  // from the solve staging (a solve() between forward_gram and backward_combination keeps Z);
  // G and c are staged in gram.
  int gram_columns = 0;
  DeviceArray<Real> gram_Z;  ///< n x gram_Z_columns
  int gram_Z_columns = 0;
  DeviceArray<Real> gram;  ///< gram_capacity entries: G (nb x nb), then c (nb)
  std::size_t gram_capacity = 0;
  std::vector<Real> host_diag;
  // L D L^T (allocated on the first indefinite K): Dsytrf's pivots and workspace, Xsytrs's workspace.
  DeviceArray<int> pivots32;
  DeviceArray<std::int64_t> pivots;
  DeviceArray<Real> sytrf_work;
  int sytrf_lwork = 0;
  DeviceArray<unsigned char> sytrs_work;
  std::size_t sytrs_bytes = 0;
  std::vector<unsigned char> sytrs_host;

  void forget_factor() {
    factored = indefinite = false;
    gram_columns = 0;  // Z of an earlier forward_gram belongs to the old factor
    info = FactorizationInfo{};
  }

  void release_buffers() {
    row_ptr = {};
    col = {};
    values = {};
    A = {};
    workspace = {};
    diag = {};
    dev_info = {};
    rhs = {};
    rhs_columns = 0;
    gram = {};
    gram_capacity = 0;
    gram_columns = 0;
    gram_Z = {};
    gram_Z_columns = 0;
    host_workspace.clear();
    pivots32 = {};
    pivots = {};
    sytrf_work = {};
    sytrf_lwork = 0;
    sytrs_work = {};
    sytrs_bytes = 0;
    sytrs_host.clear();
  }

  /// Staging buffer of at least nrhs columns (grown, never shrunk).
  Real* rhs_buffer(int nrhs) {
    if (nrhs > rhs_columns) {
      rhs = {};  // free the old one first: the device may not hold both
      rhs = DeviceArray<Real>(static_cast<std::size_t>(n) * static_cast<std::size_t>(nrhs));
      rhs_columns = nrhs;
    }
    return rhs.get();
  }

  /// A host call of a device solve: `in` (n x nrhs) up to the staging buffer, `solve` on it in
  /// place, the result down to `out`.
  template <class Solve>
  void through_staging(const Real* in, Real* out, int nrhs, Solve solve) {
    const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(nrhs);
    Real* d = rhs_buffer(nrhs);
    upload(d, in, count);
    solve(d);
    download(out, d, count);
  }

  /// d_out = op(L)^-1 d_in (n x nrhs, device memory; d_out may be d_in), synchronised with this
  /// thread's stream.
  void triangular_device(cublasOperation_t op, const Real* d_in, Real* d_out, int nrhs) {
    if (n == 0 || nrhs <= 0) return;
    copy_columns(d_out, d_in, static_cast<std::size_t>(n), nrhs);
    triangular_solve(blas.get(), op, n, A.get(), d_out, nrhs);
    SOFTIK_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));  // this thread's stream only
  }

  int download_info() const {
    int status = 0;
    download(&status, dev_info.get(), 1);
    return status;
  }
};

CudaDenseSolver::CudaDenseSolver() : impl_(std::make_unique<Impl>()) {}
CudaDenseSolver::~CudaDenseSolver() = default;

int CudaDenseSolver::size() const { return impl_->n; }
const FactorizationInfo& CudaDenseSolver::info() const { return impl_->info; }
bool CudaDenseSolver::has_cholesky_factor() const { return impl_->factored && !impl_->indefinite; }
const Real* CudaDenseSolver::device_factor() const { return impl_->A.get(); }

void CudaDenseSolver::analyze(const CsrPattern& pattern) {
  Impl& p = *impl_;
  p.analysed = p.factored = false;
  p.info = FactorizationInfo{};
  check_csr_pattern(pattern, name());
  require_device(name());
  p.release_buffers();  // the previous pattern's memory is free for the check below
  if (!p.solver) {
    SOFTIK_CUSOLVER_CHECK(cusolverDnCreate(p.solver.replace()));
    SOFTIK_CUSOLVER_CHECK(cusolverDnSetStream(p.solver.get(), cudaStreamPerThread));  // the calling thread's stream
    SOFTIK_CUSOLVER_CHECK(cusolverDnCreateParams(p.params.replace()));
    SOFTIK_CUBLAS_CHECK(cublasCreate(p.blas.replace()));
    SOFTIK_CUBLAS_CHECK(cublasSetStream(p.blas.get(), cudaStreamPerThread));
  }
  p.n = pattern.rows;
  p.nnz = pattern.nnz();
  const std::size_t n = static_cast<std::size_t>(p.n), nnz = static_cast<std::size_t>(p.nnz);
  p.row_ptr = DeviceArray<int>(n + 1);
  p.col = DeviceArray<int>(nnz);
  upload(p.row_ptr.get(), pattern.row_ptr.data(), n + 1);
  upload(p.col.get(), pattern.col.data(), nnz);
  if (p.n == 0) {
    p.analysed = true;
    return;
  }

  // The memory check, once without cuSOLVER's workspace (so that a matrix far too large is
  // refused before cuSOLVER sees its size), then with it.
  const std::size_t matrix_bytes = n * n * sizeof(Real);
  const std::size_t rhs_bytes = n * static_cast<std::size_t>(kInitialRhsColumns) * sizeof(Real);
  auto check_fits = [&](std::size_t workspace_bytes) {
    const std::size_t needed = matrix_bytes + workspace_bytes + 2 * rhs_bytes + (nnz + n) * sizeof(Real);
    std::size_t free_bytes = 0, total_bytes = 0;
    SOFTIK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    SOFTIK_CHECK(needed <= free_bytes,
                 name() << " of " << p.n << " free DOFs needs " << needed / 1e9
                        << " GB of device memory (the dense n x n matrix alone is " << matrix_bytes / 1e9
                        << " GB), but only " << free_bytes / 1e9 << " GB of " << total_bytes / 1e9
                        << " GB are free: use LinearSolverKind::Cudss (sparse direct) or LinearSolverKind::CudaPcg "
                           "(iterative) for a model this size (the dense solver suits up to ~"
                        << kGpuDenseMaxDofs << " free DOFs)");
  };
  check_fits(0);
  // Workspace query before the matrix exists: the query reads only the sizes, so any valid
  // device address stands in for A.
  SOFTIK_CUSOLVER_CHECK(cusolverDnXpotrf_bufferSize(
      p.solver.get(), p.params.get(), CUBLAS_FILL_MODE_LOWER, static_cast<int64_t>(n), CUDA_R_64F, p.row_ptr.get(),
      static_cast<int64_t>(n), CUDA_R_64F, &p.workspace_bytes, &p.host_workspace_bytes));
  check_fits(p.workspace_bytes);

  p.A = DeviceArray<Real>(n * n);
  p.workspace = DeviceArray<unsigned char>(p.workspace_bytes);
  p.host_workspace.assign(p.host_workspace_bytes, 0);
  p.values = DeviceArray<Real>(nnz);
  p.diag = DeviceArray<Real>(n);
  p.dev_info = DeviceArray<int>(1);
  p.rhs_buffer(kInitialRhsColumns);
  p.host_diag.assign(n, 0.0);
  p.analysed = true;
}

void CudaDenseSolver::factorize(const std::vector<Real>& values) {
  factorize_from_host(*this, impl_->analysed, impl_->nnz, values, impl_->values.get());
}

void CudaDenseSolver::factorize_device(exec::DeviceView<const Real> values) {
  Impl& p = *impl_;
  if (!start_factorization(p, values, name())) return;
  const std::size_t n = static_cast<std::size_t>(p.n);
  SOFTIK_CUDA_CHECK(cudaMemset(p.A.get(), 0, n * n * sizeof(Real)));  // L's fill-in of the last factor
  scatter_upper_csr_to_lower_dense<<<grid_size(n, kBlock), kBlock>>>(p.n, p.row_ptr.get(), p.col.get(), values.data,
                                                                     p.A.get());
  check_launch("scatter_upper_csr_to_lower_dense");
  SOFTIK_CUSOLVER_CHECK(cusolverDnXpotrf(
      p.solver.get(), p.params.get(), CUBLAS_FILL_MODE_LOWER, static_cast<int64_t>(n), CUDA_R_64F, p.A.get(),
      static_cast<int64_t>(n), CUDA_R_64F, p.workspace.get(), p.workspace_bytes,
      p.host_workspace_bytes ? p.host_workspace.data() : nullptr, p.host_workspace_bytes, p.dev_info.get()));
  const int status = p.download_info();  // synchronises with the factorisation
  SOFTIK_CHECK(status >= 0, "cusolverDnXpotrf rejected its parameter " << -status << " (internal error)");
  p.info.factor_nnz = static_cast<long long>(n) * static_cast<long long>(n + 1) / 2;
  p.info.passes = 1;
  if (status > 0) {  // leading minor `status` not positive: L D L^T from the values again
    factorize_indefinite(values.data);
    return;
  }
  copy_diagonal<<<grid_size(n, kBlock), kBlock>>>(p.n, p.A.get(), p.diag.get());
  check_launch("copy_diagonal");
  download(p.host_diag.data(), p.diag.get(), n);
  long row = -1;
  p.info.pivot_ratio = cholesky_pivot_ratio(p.host_diag, &row);
  if (!(p.info.pivot_ratio >= singular_threshold)) detail::throw_singular(name(), p.info.pivot_ratio, row);
  p.factored = true;
}

void CudaDenseSolver::factorize_indefinite(const Real* d_values) {
  Impl& p = *impl_;
  const std::size_t n = static_cast<std::size_t>(p.n);
  if (!p.pivots32.get()) {
    SOFTIK_CUSOLVER_CHECK(cusolverDnDsytrf_bufferSize(p.solver.get(), p.n, p.A.get(), p.n, &p.sytrf_lwork));
    p.pivots32 = DeviceArray<int>(n);
    p.pivots = DeviceArray<std::int64_t>(n);
    p.sytrf_work = DeviceArray<Real>(static_cast<std::size_t>(std::max(p.sytrf_lwork, 1)));
  }
  SOFTIK_CUDA_CHECK(cudaMemset(p.A.get(), 0, n * n * sizeof(Real)));  // Xpotrf overwrote part of it
  scatter_upper_csr_to_lower_dense<<<grid_size(n, kBlock), kBlock>>>(p.n, p.row_ptr.get(), p.col.get(), d_values,
                                                                     p.A.get());
  check_launch("scatter_upper_csr_to_lower_dense");
  SOFTIK_CUSOLVER_CHECK(cusolverDnDsytrf(p.solver.get(), CUBLAS_FILL_MODE_LOWER, p.n, p.A.get(), p.n, p.pivots32.get(),
                                         p.sytrf_work.get(), p.sytrf_lwork, p.dev_info.get()));
  const int status = p.download_info();
  SOFTIK_CHECK(status >= 0, "cusolverDnDsytrf rejected its parameter " << -status << " (internal error)");
  p.info.passes = 2;
  p.info.indefinite = true;
  SOFTIK_CHECK_NUMERICAL(status == 0, "the stiffness matrix K is singular: "
                                          << name() << " (cusolverDnDsytrf, L D L^T) found "
                                          << "D(" << status << ", " << status << ") exactly zero, at free DOF row "
                                          << status - 1 << ". The body is not held against rigid motion: fix enough "
                                          << "nodes, at least one face of every separate part");
  widen_pivots<<<grid_size(n, kBlock), kBlock>>>(p.n, p.pivots32.get(), p.pivots.get());
  check_launch("widen_pivots");
  // Singular within round-off (the pivots of D do not vanish exactly in floating point): the
  // ratio of the smallest to the largest |eigenvalue| of D's 1 x 1 and 2 x 2 blocks, against
  // singular_threshold as for L L^T. D's diagonal and subdiagonal come from the factored matrix.
  std::vector<int> ipiv(n);
  std::vector<Real> sub(n, 0.0);
  download(ipiv.data(), p.pivots32.get(), n);
  copy_diagonal<<<grid_size(n, kBlock), kBlock>>>(p.n, p.A.get(), p.diag.get());
  check_launch("copy_diagonal");
  download(p.host_diag.data(), p.diag.get(), n);
  for (std::size_t i = 0; i + 1 < n; ++i)
    if (ipiv[i] < 0) download(&sub[i], p.A.get() + i * n + i + 1, 1);  // D(i+1, i) of a 2 x 2 block
  Real lo = kInfinity, hi = 0;
  long row = 0;
  for (std::size_t i = 0; i < n; ++i) {
    Real small = std::abs(p.host_diag[i]), large = small;
    if (ipiv[i] < 0 && i + 1 < n) {  // the 2 x 2 block [a b; b c]: its eigenvalues
      const Real a = p.host_diag[i], c = p.host_diag[i + 1], b = sub[i];
      const Real mean = 0.5 * (a + c), radius = std::hypot(0.5 * (a - c), b);
      small = std::min(std::abs(mean - radius), std::abs(mean + radius));
      large = std::max(std::abs(mean - radius), std::abs(mean + radius));
    }
    if (!(small >= lo)) {
      lo = small;
      row = static_cast<long>(i);
    }
    hi = std::max(hi, large);
    if (ipiv[i] < 0) ++i;
  }
  p.info.pivot_ratio = hi > 0 && std::isfinite(hi) ? lo / hi : 0.0;
  if (!(p.info.pivot_ratio >= singular_threshold)) detail::throw_singular(name(), p.info.pivot_ratio, row);
  p.indefinite = p.factored = true;
}

void CudaDenseSolver::solve(const Real* b, Real* x, int nrhs) const {
  Impl& p = *impl_;
  check_solve(p.factored, nrhs, name(), "solve");
  if (p.n == 0 || nrhs == 0) return;
  p.through_staging(b, x, nrhs, [&](Real* d_x) { solve_device(d_x, d_x, nrhs); });
}

void CudaDenseSolver::solve_device(const Real* d_b, Real* d_x, int nrhs) const {
  Impl& p = *impl_;
  check_solve(p.factored, nrhs, name(), "solve_device");
  if (p.n == 0 || nrhs == 0) return;
  const std::size_t n = static_cast<std::size_t>(p.n);
  copy_columns(d_x, d_b, n, nrhs);
  if (p.indefinite) {  // Xsytrs overwrites B with the solution
    std::size_t device_bytes = 0, host_bytes = 0;
    SOFTIK_CUSOLVER_CHECK(cusolverDnXsytrs_bufferSize(p.solver.get(), CUBLAS_FILL_MODE_LOWER, static_cast<int64_t>(n),
                                                      static_cast<int64_t>(nrhs), CUDA_R_64F, p.A.get(),
                                                      static_cast<int64_t>(n), p.pivots.get(), CUDA_R_64F, d_x,
                                                      static_cast<int64_t>(n), &device_bytes, &host_bytes));
    if (device_bytes > p.sytrs_bytes) {
      p.sytrs_work = DeviceArray<unsigned char>(device_bytes);
      p.sytrs_bytes = device_bytes;
    }
    if (host_bytes > p.sytrs_host.size()) p.sytrs_host.assign(host_bytes, 0);
    SOFTIK_CUSOLVER_CHECK(cusolverDnXsytrs(
        p.solver.get(), CUBLAS_FILL_MODE_LOWER, static_cast<int64_t>(n), static_cast<int64_t>(nrhs), CUDA_R_64F,
        p.A.get(), static_cast<int64_t>(n), p.pivots.get(), CUDA_R_64F, d_x, static_cast<int64_t>(n),
        p.sytrs_work.get(), p.sytrs_bytes, host_bytes ? p.sytrs_host.data() : nullptr, host_bytes, p.dev_info.get()));
    const int status = p.download_info();
    SOFTIK_CHECK(status == 0, "cusolverDnXsytrs rejected its parameter " << -status << " (internal error)");
    return;
  }
  // Xpotrs overwrites B with the solution.
  SOFTIK_CUSOLVER_CHECK(cusolverDnXpotrs(
      p.solver.get(), p.params.get(), CUBLAS_FILL_MODE_LOWER, static_cast<int64_t>(n), static_cast<int64_t>(nrhs),
      CUDA_R_64F, p.A.get(), static_cast<int64_t>(n), CUDA_R_64F, d_x, static_cast<int64_t>(n), p.dev_info.get()));
  const int status = p.download_info();
  SOFTIK_CHECK(status == 0, "cusolverDnXpotrs rejected its parameter " << -status << " (internal error)");
}

void CudaDenseSolver::solve_forward(const Real* b, Real* z, int nrhs) const {
  require_cholesky_factor("solve_forward");
  if (impl_->n == 0 || nrhs <= 0) return;
  impl_->through_staging(b, z, nrhs, [&](Real* d_z) { solve_forward_device(d_z, d_z, nrhs); });
}

void CudaDenseSolver::solve_backward(const Real* z, Real* x, int nrhs) const {
  require_cholesky_factor("solve_backward");
  if (impl_->n == 0 || nrhs <= 0) return;
  impl_->through_staging(z, x, nrhs, [&](Real* d_x) { solve_backward_device(d_x, d_x, nrhs); });
}

void CudaDenseSolver::solve_forward_device(const Real* d_b, Real* d_z, int nrhs) const {
  require_cholesky_factor("solve_forward_device");
  impl_->triangular_device(CUBLAS_OP_N, d_b, d_z, nrhs);  // z = L^-1 b
}

void CudaDenseSolver::solve_backward_device(const Real* d_z, Real* d_x, int nrhs) const {
  require_cholesky_factor("solve_backward_device");
  impl_->triangular_device(CUBLAS_OP_T, d_z, d_x, nrhs);  // x = L^-T z
}

void CudaDenseSolver::forward_gram(const Real* B, int n, int nb, Real* G) {
  require_cholesky_factor("forward_gram");
  Impl& p = *impl_;
  SOFTIK_CHECK(n == p.n, name() << "::forward_gram got columns of " << n << " rows for a factor of size " << p.n);
  SOFTIK_CHECK(nb >= 0, name() << "::forward_gram got " << nb << " columns");
  p.gram_columns = 0;
  if (nb == 0) return;
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(nb);
  const std::size_t g_count = static_cast<std::size_t>(nb) * static_cast<std::size_t>(nb + 1);  // G, then c
  if (g_count > p.gram_capacity) {
    p.gram = {};
    p.gram = DeviceArray<Real>(g_count);
    p.gram_capacity = g_count;
  }
  if (nb + 1 > p.gram_Z_columns) {  // Z and the column for Z c (grown, never shrunk)
    p.gram_Z = {};
    p.gram_Z = DeviceArray<Real>(static_cast<std::size_t>(n) * static_cast<std::size_t>(nb + 1));
    p.gram_Z_columns = nb + 1;
  }
  Real* d_Z = p.gram_Z.get();
  upload(d_Z, B, count);
  triangular_solve(p.blas.get(), CUBLAS_OP_N, p.n, p.A.get(), d_Z, nb);  // Z = L^-1 B, kept on the device
  // G = Z^T Z: lower triangle by Dsyrk (C = alpha op(A) op(A)^T + beta C with op = T: A is n x nb).
  const Real one = 1.0, zero = 0.0;
  SOFTIK_CUBLAS_CHECK(cublasDsyrk_64(p.blas.get(), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, static_cast<int64_t>(nb),
                                     static_cast<int64_t>(n), &one, d_Z, static_cast<int64_t>(n), &zero, p.gram.get(),
                                     static_cast<int64_t>(nb)));
  download(G, p.gram.get(), static_cast<std::size_t>(nb) * static_cast<std::size_t>(nb));  // waits for the stream
  for (int j = 0; j < nb; ++j)  // mirror the lower triangle (column-major G(i, j) = G[i + j nb])
    for (int i = 0; i < j; ++i)
      G[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * nb] =
          G[static_cast<std::size_t>(j) + static_cast<std::size_t>(i) * nb];
  p.gram_columns = nb;
}

void CudaDenseSolver::backward_combination(const Real* c, Real* x) {
  Impl& p = *impl_;
  SOFTIK_CHECK(p.gram_columns > 0 && p.factored,
               name() << "::backward_combination needs forward_gram() on the current factorisation first");
  const int nb = p.gram_columns;
  Real* d_c = p.gram.get() + static_cast<std::size_t>(nb) * static_cast<std::size_t>(nb);
  upload(d_c, c, static_cast<std::size_t>(nb));
  // z = Z c into the column after Z.
  Real* d_Z = p.gram_Z.get();
  Real* d_x = d_Z + static_cast<std::size_t>(p.n) * static_cast<std::size_t>(nb);
  const Real one = 1.0, zero = 0.0;
  SOFTIK_CUBLAS_CHECK(cublasDgemv_64(p.blas.get(), CUBLAS_OP_N, static_cast<int64_t>(p.n), static_cast<int64_t>(nb),
                                     &one, d_Z, static_cast<int64_t>(p.n), d_c, 1, &zero, d_x, 1));
  triangular_solve(p.blas.get(), CUBLAS_OP_T, p.n, p.A.get(), d_x, 1);  // x = L^-T z
  download(x, d_x, static_cast<std::size_t>(p.n));
}

}  // namespace softik::cuda

namespace softik {
std::unique_ptr<LinearSolver> make_cuda_dense_solver() { return std::make_unique<cuda::CudaDenseSolver>(); }
}  // namespace softik
