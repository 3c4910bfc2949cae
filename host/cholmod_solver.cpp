// SuiteSparse CHOLMOD behind LinearSolver (DESIGN.md section 5): supernodal L L^T with CHOLMOD's
// default ordering strategy (AMD, and METIS when CHOLMOD was built with it), symbolic analysis
// once per pattern; an indefinite matrix is refactored as a simplicial L D L^T.
#ifdef SOFTIK_HAVE_CHOLMOD
#include <cholmod.h>

#include <cmath>
#include <cstring>

#include "linear_solvers.hpp"
#include "softik/error.hpp"

namespace softik {

namespace {

class CholmodSolver final : public LinearSolver {
 public:
  CholmodSolver() {
    cholmod_start(&common_);
    common_.print = 0;  // errors are reported through softik::Error, not stdout
    common_.error_handler = nullptr;
  }
  ~CholmodSolver() override {
    release();
    cholmod_finish(&common_);
  }
  CholmodSolver(const CholmodSolver&) = delete;
  CholmodSolver& operator=(const CholmodSolver&) = delete;

  const char* name() const override { return "CHOLMOD"; }

  void analyze(const CsrPattern& pattern) override {
    release();
    n_ = pattern.rows;
    // CSR rows of the symmetric K read as CSC columns: the same matrix. stype = 1: CHOLMOD
    // reads the upper triangle and ignores the rest.
    A_ = cholmod_allocate_sparse(static_cast<size_t>(n_), static_cast<size_t>(n_), static_cast<size_t>(pattern.nnz()),
                                 /*sorted=*/1, /*packed=*/1, /*stype=*/1, CHOLMOD_REAL, &common_);
    check("cholmod_allocate_sparse");
    std::memcpy(A_->p, pattern.row_ptr.data(), sizeof(int) * (static_cast<size_t>(n_) + 1));
    std::memcpy(A_->i, pattern.col.data(), sizeof(int) * static_cast<size_t>(pattern.nnz()));
    nnz_ = pattern.nnz();
    common_.supernodal = CHOLMOD_SUPERNODAL;
    L_ = cholmod_analyze(A_, &common_);
    check("cholmod_analyze");
  }

  void factorize(const std::vector<Real>& values) override {
    SOFTIK_CHECK(L_ != nullptr, "LinearSolver::factorize before analyze: call analyze(pattern) first");
    SOFTIK_CHECK(values.size() == static_cast<size_t>(nnz_),
                 "factorize got " << values.size() << " values for a pattern of " << nnz_);
    std::memcpy(A_->x, values.data(), sizeof(Real) * values.size());
    info_ = FactorizationInfo{};
    if (!L_->is_super) {  // an indefinite matrix last time left a simplicial factor: back to supernodal
      cholmod_free_factor(&L_, &common_);
      L_ = cholmod_analyze(A_, &common_);
      check("cholmod_analyze");
    }
    cholmod_factorize(A_, L_, &common_);
    if (common_.status == CHOLMOD_NOT_POSDEF) {
      // Indefinite: L D L^T without pivoting (simplicial), from the same ordering.
      info_.indefinite = true;
      cholmod_change_factor(CHOLMOD_REAL, /*to_ll=*/0, /*to_super=*/0, /*to_packed=*/0, /*to_monotonic=*/0, L_,
                            &common_);
      common_.status = CHOLMOD_OK;
      const int saved_final_ll = common_.final_ll;
      const int saved_supernodal = common_.supernodal;
      common_.final_ll = 0;
      common_.supernodal = CHOLMOD_SIMPLICIAL;
      cholmod_factorize(A_, L_, &common_);
      common_.final_ll = saved_final_ll;
      common_.supernodal = saved_supernodal;
      if (common_.status == CHOLMOD_NOT_POSDEF) detail::throw_singular(name(), 0.0, permuted_row(L_->minor));
    }
    check("cholmod_factorize");
    info_.pivot_ratio = cholmod_rcond(L_, &common_);
    info_.factor_nnz = static_cast<long long>(common_.lnz);
    if (!(info_.pivot_ratio >= singular_threshold)) detail::throw_singular(name(), info_.pivot_ratio, -1);
  }

  void solve(const Real* b, Real* x, int nrhs) const override {
    cholmod_dense B;
    B.nrow = static_cast<size_t>(n_);
    B.ncol = static_cast<size_t>(nrhs);
    B.nzmax = B.nrow * B.ncol;
    B.d = B.nrow;
    B.x = const_cast<Real*>(b);
    B.z = nullptr;
    B.xtype = CHOLMOD_REAL;
    B.dtype = CHOLMOD_DOUBLE;
    cholmod_dense* X = cholmod_solve(CHOLMOD_A, L_, &B, &common_);
    SOFTIK_CHECK(X != nullptr && common_.status >= CHOLMOD_OK, "cholmod_solve failed (status " << common_.status << ")");
    std::memcpy(x, X->x, sizeof(Real) * B.nzmax);
    cholmod_free_dense(&X, &common_);
  }

  const FactorizationInfo& info() const override { return info_; }

 private:
  void check(const char* what) {
    SOFTIK_CHECK(common_.status >= CHOLMOD_OK, what << " failed with CHOLMOD status " << common_.status
                                                    << (common_.status == CHOLMOD_OUT_OF_MEMORY
                                                            ? ": out of memory; use a coarser mesh"
                                                            : ": the matrix pattern is invalid"));
  }
  long permuted_row(size_t column) const {
    return column < static_cast<size_t>(n_) ? static_cast<const int*>(L_->Perm)[column] : -1;
  }
  void release() {
    if (L_) cholmod_free_factor(&L_, &common_);
    if (A_) cholmod_free_sparse(&A_, &common_);
  }

  mutable cholmod_common common_;
  cholmod_sparse* A_ = nullptr;
  cholmod_factor* L_ = nullptr;
  int n_ = 0;
  int nnz_ = 0;
  FactorizationInfo info_;
};

}  // namespace

std::unique_ptr<LinearSolver> make_cholmod_solver() { return std::make_unique<CholmodSolver>(); }

}  // namespace softik
#endif  // SOFTIK_HAVE_CHOLMOD
