// NVIDIA cuDSS behind LinearSolver (see cudss_solver.hpp): L L^T of the upper triangle of K
// (CUDSS_MTYPE_SPD, CUDSS_MVIEW_UPPER), L D L^T (CUDSS_MTYPE_SYMMETRIC) when K is not positive
// definite, singular K detected from the factor's diagonal (CUDSS_DATA_DIAG).
//
// Every cuDSS call goes through the table of function pointers of the library opened at run time
// (cudss_library.hpp) and is wrapped in SOFTIK_CUDSS_CHECK.
//
// Without cuDSS (SOFTIK_HAVE_CUDSS undefined) only make_cudss_solver() is here, and it throws
// an Error saying how to get it.
#include <memory>
#include <string>

#include "cuda/backend_entries.hpp"
#include "cuda/linear/cudss_solver.hpp"
#include "softik/error.hpp"

#ifdef SOFTIK_HAVE_CUDSS
#include <cudss.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "cuda/exec/cuda_check.hpp"
#include "cuda/exec/device_array.hpp"
#include "cuda/exec/pinned_buffer.hpp"
#include "cuda/linear/cudss_library.hpp"
#include "cuda/linear/gpu_solver_support.hpp"
#endif

namespace softik {

#ifndef SOFTIK_HAVE_CUDSS

bool have_cudss() { return false; }

std::unique_ptr<LinearSolver> make_cudss_solver() {
  SOFTIK_CHECK(false,
               "the GPU linear solver 'cudss' (LinearSolverKind::Cudss) was requested, but softik was built "
               "without cuDSS: run scripts/setup.sh (it installs the PyPI package nvidia-cudss-cu13, cuDSS's "
               "header and library) and rebuild (scripts/build.sh; CMake's SOFTIK_WITH_CUDSS=AUTO then finds "
               "it), or use 'cuda-dense' (LinearSolverKind::CudaDense, up to ~20k free DOFs) or 'cuda-pcg' "
               "(LinearSolverKind::CudaPcg)");
}

namespace cuda {
bool cudss_library_available(std::string* reason) {
  if (reason) *reason = "softik was built without cuDSS (run scripts/setup.sh, then rebuild)";
  return false;
}
}  // namespace cuda

#else  // SOFTIK_HAVE_CUDSS

namespace cuda {

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kStatsThreads = 512;  ///< one block; a power of two (tree reduction)
/// After one accepted factorisation of a data object, later ones run as
/// CUDSS_PHASE_REFACTORIZATION. cuDSS documents it as distinct from CUDSS_PHASE_FACTORIZATION
/// only for the (BTF_)COLAMD reorderings (it then keeps the pivot sequence); with the default
/// nested dissection both reuse the analysis and its memory. Switch off if a cuDSS version
/// rejects it.
constexpr bool kUseRefactorization = true;

/// upper[k] = full[slot[k]]: the upper-triangle values (CSR, j >= i) of K's full CSR values.
__global__ void gather_upper_triangle(int count, const int* slot, const Real* full, Real* upper) {
  const int k = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (k < count) upper[k] = full[slot[k]];
}

/// What the pivot check needs from the factor's diagonal d (n entries, original row order).
struct PivotStats {
  double min_abs;   ///< min |d_i| over finite entries
  double max_abs;   ///< max |d_i| over finite entries
  int argmin;       ///< i of min_abs (the smallest such i), -1 when none is finite
  int nonpositive;  ///< finite d_i <= 0
  int nonfinite;    ///< NaN or infinite d_i
};

/// One block of kStatsThreads threads reduces d to PivotStats.
__global__ void pivot_stats_kernel(int n, const Real* d, PivotStats* out) {
  __shared__ double s_min[kStatsThreads], s_max[kStatsThreads];
  __shared__ int s_arg[kStatsThreads], s_nonpositive[kStatsThreads], s_nonfinite[kStatsThreads];
  const unsigned t = threadIdx.x;
  double lo = __longlong_as_double(0x7ff0000000000000LL);  // +infinity
  double hi = 0;
  int arg = -1, nonpositive = 0, nonfinite = 0;
  for (int i = static_cast<int>(t); i < n; i += static_cast<int>(blockDim.x)) {
    const double v = d[i];
    if (!isfinite(v)) {
      ++nonfinite;
      continue;
    }
    if (!(v > 0)) ++nonpositive;
    const double a = fabs(v);
    if (a < lo) {  // i increases within a thread: the first minimum is kept
      lo = a;
      arg = i;
    }
    hi = fmax(hi, a);
  }
  s_min[t] = lo;
  s_max[t] = hi;
  s_arg[t] = arg;
  s_nonpositive[t] = nonpositive;
  s_nonfinite[t] = nonfinite;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      const unsigned u = t + stride;
      if (s_arg[u] >= 0 && (s_arg[t] < 0 || s_min[u] < s_min[t] || (s_min[u] == s_min[t] && s_arg[u] < s_arg[t]))) {
        s_min[t] = s_min[u];
        s_arg[t] = s_arg[u];
      }
      s_max[t] = fmax(s_max[t], s_max[u]);
      s_nonpositive[t] += s_nonpositive[u];
      s_nonfinite[t] += s_nonfinite[u];
    }
    __syncthreads();
  }
  if (t == 0) *out = PivotStats{s_min[0], s_max[0], s_arg[0], s_nonpositive[0], s_nonfinite[0]};
}

double gigabytes(double bytes) { return bytes / 1e9; }

/// One cuDSS factorisation of the analysed matrix: its data object (analysis, factor) and the
/// CSR descriptor with its matrix type.
struct Factorization {
  cudssData_t data = nullptr;
  cudssMatrix_t A = nullptr;
  bool analysed = false;
  bool factored_once = false;  ///< an accepted numeric factorisation: later ones may refactor
};

/// The outcome of one numeric factorisation call.
struct Attempt {
  cudssStatus_t status = CUDSS_STATUS_SUCCESS;
  /// CUDSS_DATA_INFO: 0, or (positive definite types) the 1-based reordered row of a
  /// non-positive minor.
  int info = 0;
};

}  // namespace

struct CudssSolver::Impl {
  const CudssApi* api = nullptr;
  int n = 0;
  int nnz = 0;        ///< the full pattern (both triangles)
  int nnz_upper = 0;  ///< its upper triangle, what cuDSS reads
  bool analysed = false;
  bool factored = false;    ///< the last factorisation was accepted
  bool indefinite = false;  ///< the last accepted factorisation is sym (L D L^T)
  FactorizationInfo info;
  void forget_factor() {
    factored = indefinite = false;
    info = FactorizationInfo{};
  }

  cudssHandle_t handle = nullptr;
  cudssConfig_t config = nullptr;
  Factorization spd, sym;
  // Dense descriptors of x and b (n x descriptor_columns), shared by both factorisations.
  cudssMatrix_t X = nullptr, B = nullptr;
  int descriptor_columns = 0;

  DeviceArray<int> row_ptr, col, slot;  ///< upper-triangle CSR and its slots in the full values
  DeviceArray<Real> full_values;        ///< staging for factorize(host values)
  DeviceArray<Real> upper_values;       ///< what the CSR descriptors point to
  DeviceArray<Real> diag;               ///< CUDSS_DATA_DIAG
  DeviceArray<PivotStats> stats;
  DeviceArray<Real> b_buffer, x_buffer;  ///< n x rhs_columns staging for host solves
  PinnedBuffer<Real> staging;            ///< host solves' right-hand sides up and solutions down
  int rhs_columns = 0;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    release();
    if (api != nullptr) {
      if (config != nullptr) (void)api->cudssConfigDestroy(config);
      if (handle != nullptr) (void)api->cudssDestroy(handle);
    }
  }

  void destroy(Factorization& f) noexcept {
    if (api == nullptr) return;
    if (f.A != nullptr) (void)api->cudssMatrixDestroy(f.A);
    if (f.data != nullptr) (void)api->cudssDataDestroy(handle, f.data);
    f = Factorization{};
  }
  void destroy_descriptors() noexcept {
    if (api != nullptr) {
      if (X != nullptr) (void)api->cudssMatrixDestroy(X);
      if (B != nullptr) (void)api->cudssMatrixDestroy(B);
    }
    X = B = nullptr;
    descriptor_columns = 0;
  }
  /// Frees everything that belongs to the analysed pattern (the handle and config stay).
  void release() noexcept {
    destroy(spd);
    destroy(sym);
    destroy_descriptors();
    row_ptr = {};
    col = {};
    slot = {};
    full_values = {};
    upper_values = {};
    diag = {};
    stats = {};
    b_buffer = {};
    x_buffer = {};
    rhs_columns = 0;
    analysed = factored = indefinite = false;
  }

  /// The checks a solve (`call`: "solve", "solve_device") starts with.
  void check_solve(const char* solver, const char* call, int nrhs) const {
    SOFTIK_CHECK(factored, solver << "::" << call
                                  << " needs a successful factorisation: call analyze(pattern) and "
                                     "factorize(values) first");
    SOFTIK_CHECK(nrhs >= 0, solver << "::" << call << " got " << nrhs << " right-hand sides");
  }

  /// Staging buffers of at least nrhs columns (grown, never shrunk) and x/b descriptors of
  /// exactly nrhs columns (recreated only when nrhs changes).
  void prepare_rhs(int nrhs) {
    if (nrhs > rhs_columns) {
      b_buffer = {};  // free the old ones first: the device may not hold both
      x_buffer = {};
      const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(nrhs);
      b_buffer = DeviceArray<Real>(count);
      x_buffer = DeviceArray<Real>(count);
      rhs_columns = nrhs;
    }
    if (nrhs != descriptor_columns) {
      destroy_descriptors();
      SOFTIK_CUDSS_CHECK(api->cudssMatrixCreateDn(&B, n, nrhs, n, b_buffer.get(), CUDA_R_64F, CUDSS_LAYOUT_COL_MAJOR));
      SOFTIK_CUDSS_CHECK(api->cudssMatrixCreateDn(&X, n, nrhs, n, x_buffer.get(), CUDA_R_64F, CUDSS_LAYOUT_COL_MAJOR));
      descriptor_columns = nrhs;
    }
  }
  /// Points the x/b descriptors at d_b and d_x (n x descriptor_columns each).
  void bind_rhs(const Real* d_b, Real* d_x) {
    SOFTIK_CUDSS_CHECK(api->cudssMatrixSetValues(B, const_cast<Real*>(d_b)));
    SOFTIK_CUDSS_CHECK(api->cudssMatrixSetValues(X, d_x));
  }

  /// Creates f's data object and CSR descriptor of type `mtype`, runs CUDSS_PHASE_ANALYSIS
  /// and checks cuDSS's peak memory estimate against the memory free before it.
  void analyse(Factorization& f, cudssMatrixType_t mtype, const char* solver) {
    destroy(f);  // what a failed analysis left
    std::size_t free_before = 0, total = 0;
    SOFTIK_CUDA_CHECK(cudaMemGetInfo(&free_before, &total));
    SOFTIK_CUDSS_CHECK(api->cudssDataCreate(handle, &f.data));
    SOFTIK_CUDSS_CHECK(api->cudssMatrixCreateCsr(&f.A, n, n, nnz_upper, row_ptr.get(), nullptr, col.get(),
                                                 upper_values.get(), CUDA_R_32I, CUDA_R_32I, CUDA_R_64F, mtype,
                                                 CUDSS_MVIEW_UPPER, CUDSS_BASE_ZERO));
    bind_rhs(b_buffer.get(), x_buffer.get());
    SOFTIK_CUDSS_CHECK(api->cudssExecute(handle, CUDSS_PHASE_ANALYSIS, config, f.data, f.A, X, B));
    const int status = read_info(f);
    SOFTIK_CHECK(status == 0, solver << ": the cuDSS analysis (reordering + symbolic factorisation) of the " << n
                                     << "-row pattern reported CUDSS_DATA_INFO = " << status
                                     << ": not a valid symmetric pattern (pass Assembler::pattern())");
    // Peak device memory of the factorisation (index 1 of 16 int64 estimates, in bytes).
    std::int64_t estimates[16] = {};
    std::size_t written = 0;
    const cudssStatus_t estimated =
        api->cudssDataGet(handle, f.data, CUDSS_DATA_MEMORY_ESTIMATES, estimates, sizeof(estimates), &written);
    if (estimated == CUDSS_STATUS_SUCCESS && written >= 2 * sizeof(std::int64_t)) {
      const double peak = static_cast<double>(estimates[1]);
      SOFTIK_CHECK(peak <= static_cast<double>(free_before),
                   solver << " cannot factor this model in GPU memory: cuDSS estimates " << gigabytes(peak)
                          << " GB of device memory at its peak for the "
                          << (mtype == CUDSS_MTYPE_SPD ? "L L^T" : "L D L^T") << " factorisation of " << n
                          << " free DOFs (" << nnz_upper << " non-zeros in the upper triangle), but only "
                          << gigabytes(static_cast<double>(free_before)) << " GB of "
                          << gigabytes(static_cast<double>(total))
                          << " GB are free: use LinearSolverKind::CudaPcg ('cuda-pcg', iterative, memory ~ nnz), a "
                             "coarser mesh, or a CPU solver");
    }
    f.analysed = true;
  }

  int read_info(const Factorization& f) const {
    int status = 0;
    std::size_t written = 0;
    SOFTIK_CUDSS_CHECK(api->cudssDataGet(handle, f.data, CUDSS_DATA_INFO, &status, sizeof(status), &written));
    return status;
  }

  /// One numeric factorisation of upper_values with f (its analysis done).
  Attempt factor(Factorization& f) {
    // CUDSS_DATA_INFO may keep the last failure until reset (cudss_data_types.h: "can be reset
    // via cudssDataSet"). Should a version refuse the reset, the factorisation still writes it.
    int zero = 0;
    (void)api->cudssDataSet(handle, f.data, CUDSS_DATA_INFO, &zero, sizeof(zero));
    bind_rhs(b_buffer.get(), x_buffer.get());  // a solve_device may have left caller pointers there
    const int phase = kUseRefactorization && f.factored_once ? CUDSS_PHASE_REFACTORIZATION : CUDSS_PHASE_FACTORIZATION;
    Attempt a;
    a.status = api->cudssExecute(handle, phase, config, f.data, f.A, X, B);
    SOFTIK_CHECK(a.status != CUDSS_STATUS_ALLOC_FAILED,
                 "cuDSS ran out of memory factoring " << n << " free DOFs (" << nnz_upper
                                                      << " non-zeros in the upper triangle): use "
                                                         "LinearSolverKind::CudaPcg ('cuda-pcg'), a coarser mesh, or a "
                                                         "CPU solver");
    a.info = read_info(f);  // synchronises with the factorisation
    return a;
  }

  /// PivotStats of f's factor diagonal (CUDSS_DATA_DIAG, original row order).
  PivotStats pivots(const Factorization& f, const char* solver) {
    std::size_t written = 0;
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(Real);
    const cudssStatus_t status = api->cudssDataGet(handle, f.data, CUDSS_DATA_DIAG, diag.get(), bytes, &written);
    SOFTIK_CHECK(status == CUDSS_STATUS_SUCCESS && written == bytes,
                 solver << ": cuDSS did not return the factor's diagonal (cudssDataGet(CUDSS_DATA_DIAG): "
                        << cudss_status_name(status) << ", " << written << " of " << bytes
                        << " bytes), which softik needs to detect a singular K; this cuDSS version is not supported "
                           "(use 'cuda-dense' or 'cuda-pcg')");
    pivot_stats_kernel<<<1, kStatsThreads, 0, cudaStreamPerThread>>>(n, diag.get(), stats.get());
    check_launch("pivot_stats_kernel");
    PivotStats s{};
    SOFTIK_CUDA_CHECK(cudaMemcpyAsync(&s, stats.get(), sizeof(s), cudaMemcpyDeviceToHost, cudaStreamPerThread));
    SOFTIK_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    return s;
  }

  /// The free DOF row of cuDSS's 1-based reordered row `reordered` (CUDSS_DATA_PERM_REORDER_ROW:
  /// row r of the reordered matrix is row perm[r] of K), or -1 when unknown.
  long original_row(const Factorization& f, int reordered) const {
    if (reordered < 1 || reordered > n) return -1;
    std::vector<int> perm(static_cast<std::size_t>(n));
    std::size_t written = 0;
    if (api->cudssDataGet(handle, f.data, CUDSS_DATA_PERM_REORDER_ROW, perm.data(), perm.size() * sizeof(int),
                          &written) != CUDSS_STATUS_SUCCESS ||
        written != perm.size() * sizeof(int))
      return -1;
    return perm[static_cast<std::size_t>(reordered - 1)];
  }

  long long factor_nnz(const Factorization& f) const {
    std::int64_t count = 0;
    std::size_t written = 0;
    SOFTIK_CUDSS_CHECK(api->cudssDataGet(handle, f.data, CUDSS_DATA_LU_NNZ, &count, sizeof(count), &written));
    return static_cast<long long>(count);
  }

  /// Runs CUDSS_PHASE_SOLVE with the last accepted factorisation: x = K^-1 b, n x
  /// descriptor_columns in device memory.
  void run_solve(const Real* d_b, Real* d_x) {
    bind_rhs(d_b, d_x);
    const Factorization& f = indefinite ? sym : spd;
    SOFTIK_CUDSS_CHECK(api->cudssExecute(handle, CUDSS_PHASE_SOLVE, config, f.data, f.A, X, B));
  }
};

CudssSolver::CudssSolver() : impl_(std::make_unique<Impl>()) {}
CudssSolver::~CudssSolver() = default;

int CudssSolver::size() const { return impl_->n; }
const FactorizationInfo& CudssSolver::info() const { return impl_->info; }

void CudssSolver::analyze(const CsrPattern& pattern) {
  Impl& p = *impl_;
  p.release();  // the previous pattern's memory is free for the checks below
  p.info = FactorizationInfo{};
  check_csr_pattern(pattern, name());
  require_device(name());
  p.api = &require_cudss();
  const CudssApi& api = *p.api;

  // The upper triangle (j >= i) and, for each of its entries, its slot in the full values.
  const std::size_t rows = static_cast<std::size_t>(pattern.rows);
  std::vector<int> upper_ptr(rows + 1, 0), upper_col, upper_slot;
  upper_col.reserve((static_cast<std::size_t>(pattern.nnz()) + rows) / 2);
  upper_slot.reserve(upper_col.capacity());
  for (std::size_t i = 0; i < rows; ++i) {
    bool diagonal = false;
    for (int k = pattern.row_ptr[i]; k < pattern.row_ptr[i + 1]; ++k) {
      const int j = pattern.col[static_cast<std::size_t>(k)];
      if (j < static_cast<int>(i)) continue;
      diagonal = diagonal || j == static_cast<int>(i);
      upper_col.push_back(j);
      upper_slot.push_back(k);
    }
    SOFTIK_CHECK(diagonal, name() << "::analyze: row " << i
                                  << " of the pattern has no diagonal entry (every stiffness row has one): pass "
                                     "Assembler::pattern()");
    upper_ptr[i + 1] = static_cast<int>(upper_col.size());
  }
  p.n = pattern.rows;
  p.nnz = pattern.nnz();
  p.nnz_upper = static_cast<int>(upper_col.size());
  if (p.n == 0) {
    p.analysed = true;
    return;
  }

  // Before anything is allocated: the inputs plus a floor for the factor (at least twice the
  // upper triangle's values; cuDSS's own estimate follows the analysis).
  const std::size_t n = rows, nnz = static_cast<std::size_t>(p.nnz), nnz_u = static_cast<std::size_t>(p.nnz_upper);
  const std::size_t input_bytes = (n + 1 + 2 * nnz_u) * sizeof(int) + (nnz + nnz_u + 3 * n) * sizeof(Real);
  const std::size_t floor_bytes = input_bytes + 2 * nnz_u * sizeof(Real);
  std::size_t free_bytes = 0, total_bytes = 0;
  SOFTIK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  SOFTIK_CHECK(floor_bytes <= free_bytes,
               name() << " of " << p.n << " free DOFs needs at least " << gigabytes(static_cast<double>(floor_bytes))
                      << " GB of device memory (the matrix and a lower bound of its factor), but only "
                      << gigabytes(static_cast<double>(free_bytes)) << " GB of "
                      << gigabytes(static_cast<double>(total_bytes))
                      << " GB are free: use LinearSolverKind::CudaPcg ('cuda-pcg'), a coarser mesh, or a CPU solver");

  p.row_ptr = DeviceArray<int>(n + 1);
  p.col = DeviceArray<int>(nnz_u);
  p.slot = DeviceArray<int>(nnz_u);
  p.full_values = DeviceArray<Real>(nnz);
  p.upper_values = DeviceArray<Real>(nnz_u);
  p.diag = DeviceArray<Real>(n);
  p.stats = DeviceArray<PivotStats>(1);
  upload(p.row_ptr.get(), upper_ptr.data(), n + 1);
  upload(p.col.get(), upper_col.data(), nnz_u);
  upload(p.slot.get(), upper_slot.data(), nnz_u);
  // Defined values for the analysis (it reads only the pattern; the factorisation overwrites them).
  SOFTIK_CUDA_CHECK(cudaMemset(p.upper_values.get(), 0, nnz_u * sizeof(Real)));

  if (p.handle == nullptr) {
    SOFTIK_CUDSS_CHECK(api.cudssCreate(&p.handle));
    // Ordered with this file's kernels and copies and with the caller's default stream (the
    // library's CUDA code is compiled with per-thread default streams).
    SOFTIK_CUDSS_CHECK(api.cudssSetStream(p.handle, cudaStreamPerThread));
    SOFTIK_CUDSS_CHECK(api.cudssConfigCreate(&p.config));
    // No matching (cuDSS 1.0 may otherwise permute and scale K): the factor's diagonal is then
    // K's own pivots, comparable with the CPU solvers' pivot ratio and singular_threshold.
    const cudssMatchingAlg_t no_matching = CUDSS_MATCHING_ALG_NONE;
    SOFTIK_CUDSS_CHECK(api.cudssConfigSet(p.config, CUDSS_CONFIG_MATCHING_ALG, &no_matching, sizeof(no_matching)));
  }
  p.prepare_rhs(1);
  p.analyse(p.spd, CUDSS_MTYPE_SPD, name());  // the L D L^T analysis is made when first needed
  p.analysed = true;
}

void CudssSolver::factorize(const std::vector<Real>& values) {
  factorize_from_host(*this, impl_->analysed, impl_->nnz, values, impl_->full_values.get());
}

void CudssSolver::factorize_device(exec::DeviceView<const Real> values) {
  Impl& p = *impl_;
  if (!start_factorization(p, values, name())) return;
  SOFTIK_CHECK(values.data != nullptr, name() << "::factorize_device got a null pointer");
  const std::size_t nnz_u = static_cast<std::size_t>(p.nnz_upper);
  gather_upper_triangle<<<grid_size(nnz_u, kBlock), kBlock, 0, cudaStreamPerThread>>>(
      p.nnz_upper, p.slot.get(), values.data, p.upper_values.get());
  check_launch("gather_upper_triangle");

  // L L^T first. Accepted when cuDSS reports no non-positive minor and diag(L) is positive,
  // finite and well conditioned; K's pivots are diag(L)^2.
  const Attempt spd = p.factor(p.spd);
  if (spd.status == CUDSS_STATUS_SUCCESS && spd.info == 0) {
    const PivotStats s = p.pivots(p.spd, name());
    const double ratio = s.max_abs > 0 ? (s.min_abs / s.max_abs) * (s.min_abs / s.max_abs) : 0.0;
    if (s.nonfinite == 0 && s.nonpositive == 0 && ratio >= singular_threshold) {
      p.spd.factored_once = true;
      p.info.pivot_ratio = ratio;
      p.info.factor_nnz = p.factor_nnz(p.spd);
      p.factored = true;
      return;
    }
  } else if (spd.status == CUDSS_STATUS_ALLOC_FAILED) {  // memory: L D L^T would not fit either
    SOFTIK_CHECK(false, "cuDSS call cudssExecute(CUDSS_PHASE_(RE)FACTORIZATION) of the L L^T factorisation failed: "
                            << cudss_status_name(spd.status) << " (status " << static_cast<int>(spd.status)
                            << "): the factor does not fit in device memory; use LinearSolverKind::CudaPcg");
  }
  // Any other failure of L L^T (with or without a reported minor) is treated as "not positive
  // definite": L D L^T below either factors K or reports why.

  // Not positive definite (indefinite, or singular): L D L^T, from its own analysis (kept).
  if (!p.sym.analysed) p.analyse(p.sym, CUDSS_MTYPE_SYMMETRIC, name());
  const Attempt sym = p.factor(p.sym);
  if (sym.info != 0) detail::throw_singular(name(), 0.0, p.original_row(p.sym, sym.info));
  SOFTIK_CHECK(sym.status == CUDSS_STATUS_SUCCESS,
               "cuDSS call cudssExecute(CUDSS_PHASE_(RE)FACTORIZATION) of the L D L^T factorisation failed: "
                   << cudss_status_name(sym.status) << " (status " << static_cast<int>(sym.status) << ")");
  const PivotStats s = p.pivots(p.sym, name());
  const double ratio = s.nonfinite == 0 && s.max_abs > 0 ? s.min_abs / s.max_abs : 0.0;
  if (!(ratio >= singular_threshold)) detail::throw_singular(name(), ratio, s.argmin);
  p.sym.factored_once = true;
  p.indefinite = true;
  p.info.indefinite = true;
  p.info.pivot_ratio = ratio;
  p.info.factor_nnz = p.factor_nnz(p.sym);
  p.factored = true;
}

void CudssSolver::solve(const Real* b, Real* x, int nrhs) const {
  Impl& p = *impl_;
  p.check_solve(name(), "solve", nrhs);
  if (p.n == 0 || nrhs == 0) return;
  p.prepare_rhs(nrhs);
  const std::size_t count = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(nrhs);
  p.staging.to_device(p.b_buffer.get(), b, count);
  p.run_solve(p.b_buffer.get(), p.x_buffer.get());
  p.staging.to_host(x, p.x_buffer.get(), count);  // synchronises with the solve
}

void CudssSolver::solve_device(const Real* d_b, Real* d_x, int nrhs) const {
  Impl& p = *impl_;
  p.check_solve(name(), "solve_device", nrhs);
  if (p.n == 0 || nrhs == 0) return;
  SOFTIK_CHECK(d_b != nullptr && d_x != nullptr, name() << "::solve_device got a null pointer");
  p.prepare_rhs(nrhs);
  const Real* rhs = d_b;
  if (d_b == d_x) {  // in place: cuDSS reads b while it writes x
    const std::size_t bytes = static_cast<std::size_t>(p.n) * static_cast<std::size_t>(nrhs) * sizeof(Real);
    SOFTIK_CUDA_CHECK(cudaMemcpyAsync(p.b_buffer.get(), d_b, bytes, cudaMemcpyDeviceToDevice, cudaStreamPerThread));
    rhs = p.b_buffer.get();
  }
  p.run_solve(rhs, d_x);
  SOFTIK_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

}  // namespace cuda

bool have_cudss() { return true; }

std::unique_ptr<LinearSolver> make_cudss_solver() { return std::make_unique<cuda::CudssSolver>(); }

#endif  // SOFTIK_HAVE_CUDSS

}  // namespace softik
