// cusolverSp's low-level sparse Cholesky (cusolverSp_LOWLEVEL_PREVIEW.h: csrcholInfo) behind
// LinearSolver, as LinearSolverKind::CusolverSpCholesky. cusolverSp is deprecated in CUDA 13
// (its declarations point to cuDSS); softik keeps this solver only as a benchmarked
// alternative to cuDSS, CHOLMOD and the dense GPU Cholesky (bench/cuda_linear_solver.cpp).
//
//   analyze:    cusolverSpXcsrcholAnalysis (ordering and symbolic factor, once per pattern),
//               cusolverSpDcsrcholBufferInfo (workspace; allocated once)
//   factorize:  cusolverSpDcsrcholFactor, then the zero-pivot check (cusolverSpDcsrcholZeroPivot)
//               and the pivot ratio from diag(L) (cusolverSpDcsrcholDiag)
//   solve:      cusolverSpDcsrcholSolve, one call per right-hand-side column (the API has no
//               multi-column solve)
//
// The matrix is given with BOTH triangles (the Assembler's pattern as is). The header carries no
// comment on which triangle the factorisation reads; NVIDIA's low-level Cholesky sample
// (cuSolverSp_LowlevelCholesky) passes the full symmetric matrix, so the full pattern is what it
// is known to work with, whichever triangle it reads.
// A(P,P) = L L^T with an internal ordering P that the API does not expose: a zero pivot's
// position is in that ordering, so singular-K errors name no DOF row. info().factor_nnz is an
// estimate: the factor's internal storage (csrcholBufferInfo's internalDataInBytes) in doubles.
// No half solves (has_cholesky_factor() is false: L and P cannot be applied separately).

// cusolverSp's functions are declared [[deprecated]] in CUDA 13: this translation unit uses them
// on purpose, so their deprecation is switched off here, before any CUDA header is included (the
// macro empties CUSOLVER_DEPRECATED in cusolver_common.h; it reaches no other file).
#define DISABLE_CUSOLVER_DEPRECATED
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "cuda/backend_entries.hpp"
#include "cuda/exec/device_array.hpp"
#include "cuda/linear/cuda_library_check.hpp"
#include "cuda/linear/gpu_solver_support.hpp"

namespace softik::cuda {

namespace {

class CusolverSpSolver final : public LinearSolver {
 public:
  const char* name() const override { return "cusolverSp csrchol (deprecated, benchmark only)"; }

  void analyze(const CsrPattern& pattern) override {
    check_csr_pattern(pattern, name());
    require_device(name());
    release();
    if (!handle_) {
      SOFTIK_CUSOLVER_CHECK(cusolverSpCreate(handle_.replace()));
      SOFTIK_CUSOLVER_CHECK(cusolverSpSetStream(handle_.get(), cudaStreamPerThread));
    }
    SOFTIK_CUSPARSE_CHECK(cusparseCreateMatDescr(descr_.replace()));
    SOFTIK_CUSPARSE_CHECK(cusparseSetMatType(descr_.get(), CUSPARSE_MATRIX_TYPE_GENERAL));
    SOFTIK_CUSPARSE_CHECK(cusparseSetMatIndexBase(descr_.get(), CUSPARSE_INDEX_BASE_ZERO));
    SOFTIK_CUSOLVER_CHECK(cusolverSpCreateCsrcholInfo(chol_.replace()));
    n_ = pattern.rows;
    nnz_ = pattern.nnz();
    const std::size_t n = static_cast<std::size_t>(n_), nnz = static_cast<std::size_t>(nnz_);
    row_ptr_ = DeviceArray<int>(n + 1);
    col_ = DeviceArray<int>(nnz);
    values_ = DeviceArray<Real>(nnz);
    upload(row_ptr_.get(), pattern.row_ptr.data(), n + 1);
    upload(col_.get(), pattern.col.data(), nnz);
    SOFTIK_CUDA_CHECK(cudaMemset(values_.get(), 0, nnz * sizeof(Real)));  // BufferInfo gets defined values
    if (n_ > 0) {
      SOFTIK_CUSOLVER_CHECK(
          cusolverSpXcsrcholAnalysis(handle_.get(), n_, nnz_, descr_.get(), row_ptr_.get(), col_.get(), chol_.get()));
      std::size_t internal_bytes = 0, workspace_bytes = 0;
      SOFTIK_CUSOLVER_CHECK(cusolverSpDcsrcholBufferInfo(handle_.get(), n_, nnz_, descr_.get(), values_.get(),
                                                         row_ptr_.get(), col_.get(), chol_.get(), &internal_bytes,
                                                         &workspace_bytes));
      factor_nnz_ = static_cast<long long>(internal_bytes / sizeof(Real));
      workspace_ = DeviceArray<unsigned char>(workspace_bytes);
    }
    diag_ = DeviceArray<Real>(n);
    host_diag_.assign(n, 0.0);
    analysed_ = true;
  }

  void factorize(const std::vector<Real>& values) override {
    factorize_from_host(*this, analysed_, nnz_, values, values_.get());
  }

  bool accepts_device_values() const override { return true; }

  void factorize_device(exec::DeviceView<const Real> values) override {
    check_device_values(analysed_, nnz_, values, name());
    const Real* d_values = values.data;
    factored_ = false;
    info_ = FactorizationInfo{};
    if (n_ == 0) {
      factored_ = true;
      return;
    }
    const cusolverStatus_t status = cuda_math().cusolverSpDcsrcholFactor(
        handle_.get(), n_, nnz_, descr_.get(), d_values, row_ptr_.get(), col_.get(), chol_.get(), workspace_.get());
    SOFTIK_CHECK(status == CUSOLVER_STATUS_SUCCESS,
                 "cusolverSpDcsrcholFactor failed: " << cusolver_status_name(status)
                                                     << ". The stiffness matrix K may be singular or not positive "
                                                        "definite (fix enough nodes; for a hyperelastic tangent set "
                                                        "AssemblyOptions::project_spd = true), or use another solver");
    SOFTIK_CUSOLVER_CHECK(cusolverSpDcsrcholDiag(handle_.get(), chol_.get(), diag_.get()));
    download(host_diag_.data(), diag_.get(), host_diag_.size());
    long row = -1;
    info_.pivot_ratio = cholesky_pivot_ratio(host_diag_, &row);
    info_.factor_nnz = factor_nnz_;
    // A pivot (diagonal entry of L) at or below sqrt(singular_threshold) times the largest one
    // is a zero pivot: the same test as pivot_ratio >= singular_threshold, done by cusolverSp.
    Real largest = 0;
    for (Real d : host_diag_) largest = d > largest ? d : largest;
    int position = -1;
    const cusolverStatus_t pivot_status = cuda_math().cusolverSpDcsrcholZeroPivot(
        handle_.get(), chol_.get(), std::sqrt(singular_threshold) * largest, &position);
    SOFTIK_CHECK(pivot_status == CUSOLVER_STATUS_SUCCESS || pivot_status == CUSOLVER_STATUS_ZERO_PIVOT,
                 "cusolverSpDcsrcholZeroPivot failed: " << cusolver_status_name(pivot_status));
    // The position is in cusolverSp's internal ordering, not a free DOF row (see the top).
    if (position >= 0 || !(info_.pivot_ratio >= singular_threshold))
      detail::throw_singular(name(), info_.pivot_ratio, -1);
    factored_ = true;
  }

  void solve(const Real* b, Real* x, int nrhs) const override {
    check_solve(factored_, nrhs, name(), "solve");
    if (n_ == 0 || nrhs == 0) return;
    const std::size_t n = static_cast<std::size_t>(n_), count = n * static_cast<std::size_t>(nrhs);
    if (nrhs > rhs_columns_) {
      rhs_b_ = {};
      rhs_x_ = {};
      rhs_b_ = DeviceArray<Real>(count);
      rhs_x_ = DeviceArray<Real>(count);
      rhs_columns_ = nrhs;
    }
    upload(rhs_b_.get(), b, count);
    for (std::size_t j = 0; j < static_cast<std::size_t>(nrhs); ++j)
      SOFTIK_CUSOLVER_CHECK(cusolverSpDcsrcholSolve(handle_.get(), n_, rhs_b_.get() + j * n, rhs_x_.get() + j * n,
                                                    chol_.get(), workspace_.get()));
    download(x, rhs_x_.get(), count);
  }

  const FactorizationInfo& info() const override { return info_; }

 private:
  void release() {
    analysed_ = factored_ = false;
    info_ = FactorizationInfo{};
    chol_.reset();
    descr_.reset();
    row_ptr_ = {};
    col_ = {};
    values_ = {};
    workspace_ = {};
    diag_ = {};
    rhs_b_ = {};
    rhs_x_ = {};
    rhs_columns_ = 0;
    factor_nnz_ = 0;
  }

  CusolverSpHandle handle_;
  CusparseMatDescr descr_;
  CsrcholInfo chol_;
  int n_ = 0, nnz_ = 0;
  bool analysed_ = false, factored_ = false;
  long long factor_nnz_ = 0;
  FactorizationInfo info_;
  DeviceArray<int> row_ptr_, col_;
  DeviceArray<Real> values_, diag_;
  DeviceArray<unsigned char> workspace_;
  std::vector<Real> host_diag_;
  // Staging for host right-hand sides and solutions (n x rhs_columns_ each; grown on demand).
  mutable DeviceArray<Real> rhs_b_, rhs_x_;
  mutable int rhs_columns_ = 0;
};

}  // namespace

}  // namespace softik::cuda

namespace softik {
std::unique_ptr<LinearSolver> make_cusolversp_solver() { return std::make_unique<cuda::CusolverSpSolver>(); }
}  // namespace softik
