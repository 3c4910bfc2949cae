// SuiteSparse CHOLMOD behind LinearSolver (docs/method.md section 7): supernodal L L^T with CHOLMOD's
// default ordering strategy (AMD, and METIS when CHOLMOD was built with it), symbolic analysis
// once per pattern; an indefinite matrix is factored as a simplicial L D L^T (its own symbolic
// analysis, done once). One numeric pass per factorisation in a run of indefinite tangents: after
// an indefinite one the next goes to L D L^T directly, and an L D L^T whose pivots all come out
// positive is turned into L L^T in place (no refactoring) and sends the next back to the
// supernodal L L^T. Only the step into indefiniteness costs two passes (FactorizationInfo::passes).
// BLAS runs on one thread unless the factorisation is large (kParallelFlops, blas_threads.hpp).
// Half solves on the L L^T factor P K P^T = L L^T (cholmod_solve2 systems, no refactoring):
//   solve_forward   z = L^-1 P b     (CHOLMOD_P, then CHOLMOD_L)
//   solve_backward  x = P^T L^-T z   (CHOLMOD_Lt, then CHOLMOD_Pt)
// Every solve keeps its cholmod_solve2 result and workspace, so repeated solves with the same
// number of columns allocate nothing. With the supernodal L L^T of a solve that would run on one
// BLAS thread (threaded_solve), the sweeps over L run on two threads where its elimination tree
// splits into two halves of about equal work (supernodal_sweeps.hpp): the same solves, to
// round-off, in 0.6-0.8x the time (bench/RESULTS.md, BM_FingerSolve).
#ifdef SOFTIK_HAVE_CHOLMOD
#include <cholmod.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <thread>

#include "host/exec/blas_threads.hpp"
#include "host/exec/openmp_regions.hpp"
#include "host/linear/linear_solvers.hpp"
#include "host/linear/supernodal_sweeps.hpp"
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
    {
      const detail::ScopedSerialOpenMP serial_regions;
      super_ = cholmod_analyze(A_, &common_);
    }
    check("cholmod_analyze");
    L_ = super_;
    flops_ = common_.fl;
    prefer_ldlt_ = false;
  }

  void factorize(const std::vector<Real>& values) override {
    SOFTIK_CHECK(L_ != nullptr, "LinearSolver::factorize before analyze: call analyze(pattern) first");
    forget_gram();
    SOFTIK_CHECK(values.size() == static_cast<size_t>(nnz_),
                 "factorize got " << values.size() << " values for a pattern of " << nnz_);
    std::memcpy(A_->x, values.data(), sizeof(Real) * values.size());
    info_ = FactorizationInfo{};
    factored_ = false;
    single_factor_.clear();  // precondition() copies the new factor on first use
    const detail::ScopedBlasThreads blas(blas_threads_for(flops_));
    const detail::ScopedSerialOpenMP serial_regions;
    if (!prefer_ldlt_) {
      L_ = super_;
      ++info_.passes;
      cholmod_factorize(A_, super_, &common_);
      if (common_.status != CHOLMOD_NOT_POSDEF) {
        check("cholmod_factorize");
        info_.negative_pivots = 0;  // L L^T succeeded: positive definite
        return finish();
      }
      common_.status = CHOLMOD_OK;
    }
    factorize_ldlt();
    finish();
  }

  void solve(const Real* b, Real* x, int nrhs) const override {
    if (const detail::SupernodalSweeps* sweeps = split_sweeps(nrhs)) {  // x = P^T L^-T L^-1 P b
      const SweepScope scope;
      swept_.resize(static_cast<size_t>(n_) * static_cast<size_t>(nrhs));
      permute(b, swept_.data(), nrhs);
      sweeps->forward(factor_values(), swept_.data(), nrhs);
      sweeps->backward(factor_values(), swept_.data(), nrhs);
      return permute_back(swept_, x, nrhs);
    }
    cholmod_dense B = wrap(b, nrhs);
    copy_out(run(CHOLMOD_A, &B, &full_.X, full_), x);  // x = P^T L^-T D^-1 L^-1 P b
  }

  // The supernodal factorisation is always L L^T; the indefinite fallback leaves L D L^T.
  bool has_cholesky_factor() const override { return factored_ && L_ != nullptr && L_->is_ll; }

  /// Where the split sweeps run: both sweeps over a single-precision copy of L (made on the
  /// first call after each factorisation), half the memory traffic of solve(); else solve().
  void precondition(const Real* b, Real* x) const override {
    const detail::SupernodalSweeps* sweeps = split_sweeps(1);
    if (!sweeps) return solve(b, x, 1);
    const SweepScope scope;
    if (single_factor_.empty()) {
      const double* values = factor_values();
      single_factor_.resize(L_->xsize);
      for (size_t k = 0; k < L_->xsize; ++k) single_factor_[k] = static_cast<float>(values[k]);
    }
    single_rhs_.resize(static_cast<size_t>(n_));
    permute(b, single_rhs_.data(), 1);
    sweeps->forward(single_factor_.data(), single_rhs_.data(), 1);
    sweeps->backward(single_factor_.data(), single_rhs_.data(), 1);
    permute_back(single_rhs_, x, 1);
  }

  void solve_forward(const Real* b, Real* z, int nrhs) const override {
    require_cholesky_factor("solve_forward");
    if (const detail::SupernodalSweeps* sweeps = split_sweeps(nrhs)) {
      const SweepScope scope;
      permute(b, z, nrhs);
      return sweeps->forward(factor_values(), z, nrhs);
    }
    cholmod_dense B = wrap(b, nrhs);
    cholmod_dense* Pb = run(CHOLMOD_P, &B, &forward_.mid, forward_);  // P b
    copy_out(run(CHOLMOD_L, Pb, &forward_.X, forward_), z);           // z = L^-1 (P b)
  }

  void solve_backward(const Real* z, Real* x, int nrhs) const override {
    require_cholesky_factor("solve_backward");
    if (const detail::SupernodalSweeps* sweeps = split_sweeps(nrhs)) {
      const SweepScope scope;
      swept_.assign(z, z + static_cast<size_t>(n_) * static_cast<size_t>(nrhs));
      sweeps->backward(factor_values(), swept_.data(), nrhs);
      return permute_back(swept_, x, nrhs);
    }
    cholmod_dense Z = wrap(z, nrhs);
    cholmod_dense* LtZ = run(CHOLMOD_Lt, &Z, &backward_.mid, backward_);  // L^-T z
    copy_out(run(CHOLMOD_Pt, LtZ, &backward_.X, backward_), x);           // x = P^T (L^-T z)
  }

  const FactorizationInfo& info() const override { return info_; }

 private:
  /// Factorisations below this many flops (0.2 GFlop, CHOLMOD's count from the analysis) run BLAS
  /// on one thread: OpenBLAS's threads gain nothing on them and spin for ~0.1 s after each call.
  /// From 0.35 GFlop on, two threads make the finger's static solve, dynamic step and inverse step
  /// 35-47 % faster on 2 cores, spinning included; a bound of 2 GFlop would leave them on one thread.
  static constexpr double kParallelFlops = 2e8;
  /// Solves with a factor of this many entries on all threads: on 2 cores one column 15-20 %
  /// faster at nnz(L) = 5M and 18M, no change at 1.5M (bench/RESULTS.md, BM_FingerSolve). Below
  /// it, a real-time step's solves never pay for starting OpenBLAS's workers.
  static constexpr double kParallelSolveEntries = 2.5e6;
  static int blas_threads_for(double flops) {
    return flops >= kParallelFlops ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) : 1;
  }

  /// Simplicial L D L^T of A_ (no pivoting) in simplicial_, analysed on first use. All pivots
  /// positive: the matrix is positive definite; the factor becomes L L^T (half solves work) and
  /// the next factorisation tries the supernodal L L^T again. A negative pivot: indefinite, and
  /// the next factorisation starts here.
  void factorize_ldlt() {
    const int saved_supernodal = common_.supernodal, saved_final_ll = common_.final_ll;
    common_.supernodal = CHOLMOD_SIMPLICIAL;
    common_.final_ll = 0;
    if (simplicial_ == nullptr) {
      simplicial_ = cholmod_analyze(A_, &common_);
    } else if (simplicial_->is_ll) {  // turned into L L^T last time: back to an L D L^T factor
      cholmod_change_factor(CHOLMOD_REAL, /*to_ll=*/0, /*to_super=*/0, /*to_packed=*/0, /*to_monotonic=*/0, simplicial_,
                            &common_);
    }
    if (common_.status >= CHOLMOD_OK) {
      L_ = simplicial_;
      ++info_.passes;
      cholmod_factorize(A_, simplicial_, &common_);
    }
    common_.supernodal = saved_supernodal;
    common_.final_ll = saved_final_ll;
    if (common_.status == CHOLMOD_NOT_POSDEF) detail::throw_singular(name(), 0.0, permuted_row(simplicial_->minor));
    check("cholmod_factorize (L D L^T)");
    const int* p = static_cast<const int*>(simplicial_->p);
    const double* x = static_cast<const double*>(simplicial_->x);
    double smallest = INFINITY;
    int negative = 0;
    for (int j = 0; j < n_; ++j) {
      smallest = std::min(smallest, x[p[j]]);  // D_jj: the first entry of column j
      negative += x[p[j]] < 0;
    }
    info_.negative_pivots = negative;  // the inertia of K (Sylvester), P K P^T = L D L^T
    info_.indefinite = smallest < 0;
    prefer_ldlt_ = info_.indefinite;
    if (!info_.indefinite && smallest > 0) {
      cholmod_change_factor(CHOLMOD_REAL, /*to_ll=*/1, /*to_super=*/0, /*to_packed=*/1, /*to_monotonic=*/1, simplicial_,
                            &common_);
      check("cholmod_change_factor (L D L^T to L L^T)");
    }
  }

  void finish() {
    if (L_ == super_ && !sweeps_ && super_->itype == CHOLMOD_INT) {  // the layout's arrays are int
      detail::SupernodalLayout layout;
      layout.n = n_;
      layout.nsuper = static_cast<int>(super_->nsuper);
      layout.super = static_cast<const int*>(super_->super);
      layout.pi = static_cast<const int*>(super_->pi);
      layout.px = static_cast<const int*>(super_->px);
      layout.s = static_cast<const int*>(super_->s);
      sweeps_ = std::make_unique<detail::SupernodalSweeps>(layout);
    }
    info_.pivot_ratio = cholmod_rcond(L_, &common_);
    info_.flops = flops_;
    info_.factor_nnz = static_cast<long long>(L_->is_super ? common_.lnz : cholmod_nnz_factor());
    if (!(info_.pivot_ratio >= singular_threshold)) detail::throw_singular(name(), info_.pivot_ratio, -1);
    factored_ = true;
  }

  long long cholmod_nnz_factor() const {
    long long nnz = 0;
    const int* count = static_cast<const int*>(L_->nz);
    for (int j = 0; j < n_; ++j) nnz += count[j];
    return nnz;
  }

  void check(const char* what) {
    SOFTIK_CHECK(common_.status >= CHOLMOD_OK,
                 what << " failed with CHOLMOD status " << common_.status
                      << (common_.status == CHOLMOD_OUT_OF_MEMORY ? ": out of memory; use a coarser mesh"
                                                                  : ": the matrix pattern is invalid"));
  }
  /// cholmod_solve2's result and workspace for one kind of solve, reused between calls
  /// (reallocated by CHOLMOD only when the number of columns changes).
  struct SolveBuffers {
    cholmod_dense* mid = nullptr;  ///< first stage of a half solve (P b, or L^-T z)
    cholmod_dense* X = nullptr;    ///< result
    cholmod_dense* Y = nullptr;    ///< workspace
    cholmod_dense* E = nullptr;    ///< workspace
  };
  /// n x nrhs column-major caller memory seen as a cholmod_dense (read only by CHOLMOD).
  cholmod_dense wrap(const Real* b, int nrhs) const {
    cholmod_dense B;
    B.nrow = static_cast<size_t>(n_);
    B.ncol = static_cast<size_t>(nrhs);
    B.nzmax = B.nrow * B.ncol;
    B.d = B.nrow;
    B.x = const_cast<Real*>(b);
    B.z = nullptr;
    B.xtype = CHOLMOD_REAL;
    B.dtype = CHOLMOD_DOUBLE;
    return B;
  }
  /// *X = system `sys` applied to B (cholmod_solve2); returns *X, owned by `buffers`.
  cholmod_dense* run(int sys, cholmod_dense* B, cholmod_dense** X, SolveBuffers& buffers) const {
    SOFTIK_CHECK(L_ != nullptr, "LinearSolver::solve before analyze and factorize");
    // A triangular solve streams L (2 nnz(L) flops per column) and is bound by memory bandwidth,
    // which a second core raises from kParallelSolveEntries on; many columns are compute-bound.
    const double lnz = static_cast<double>(common_.lnz);
    const bool threaded = lnz >= kParallelSolveEntries || 2.0 * lnz * static_cast<double>(B->ncol) >= kParallelFlops;
    const detail::ScopedBlasThreads blas(threaded ? blas_threads_for(kParallelFlops) : 1);
    const detail::ScopedSerialOpenMP serial_regions;
    const int ok = cholmod_solve2(sys, L_, B, nullptr, X, nullptr, &buffers.Y, &buffers.E, &common_);
    SOFTIK_CHECK(ok && *X != nullptr && common_.status >= CHOLMOD_OK,
                 "cholmod_solve2 failed (system " << sys << ", status " << common_.status << ")");
    return *X;
  }
  /// The sweeps' BLAS calls run on one OpenBLAS thread each (the two groups side by side): a
  /// threaded dgemv may split its sums differently with the count, so the same solve would give
  /// other round-off in a batch worker (capped count) than alone; and OpenBLAS's threads are not
  /// for concurrent callers (blas_threads.hpp).
  struct SweepScope {
    detail::ScopedBlasThreads blas{1};
    detail::ScopedSerialOpenMP serial_regions;
  };
  /// Whether a solve with ncol columns runs BLAS on all threads: a large factor, or many columns.
  bool threaded_solve(int ncol) const {
    const double lnz = static_cast<double>(common_.lnz);
    return lnz >= kParallelSolveEntries || 2.0 * lnz * static_cast<double>(ncol) >= kParallelFlops;
  }
  /// The two-thread sweeps for the last factorisation: the supernodal L L^T whose tree splits
  /// well, for a solve that CHOLMOD would run on one BLAS thread; null otherwise (CHOLMOD's own
  /// solves, threaded BLAS included).
  const detail::SupernodalSweeps* split_sweeps(int ncol) const {
    const bool supernodal = factored_ && L_ == super_ && L_->is_super && L_->is_ll;
    return supernodal && sweeps_ && sweeps_->worthwhile() && !threaded_solve(ncol) ? sweeps_.get() : nullptr;
  }
  const double* factor_values() const { return static_cast<const double*>(L_->x); }
  /// out = P b (n x nrhs): row k of P b is row Perm[k] of b (T: Real, or float for precondition()).
  template <class T>
  void permute(const Real* b, T* out, int nrhs) const {
    const int* perm = static_cast<const int*>(L_->Perm);
    for (size_t j = 0, off = 0; j < static_cast<size_t>(nrhs); ++j, off += static_cast<size_t>(n_))
      for (int k = 0; k < n_; ++k)
        out[off + static_cast<size_t>(k)] = static_cast<T>(b[off + static_cast<size_t>(perm[k])]);
  }
  /// x = P^T y.
  template <class T>
  void permute_back(const std::vector<T>& y, Real* x, int nrhs) const {
    const int* perm = static_cast<const int*>(L_->Perm);
    for (size_t j = 0, off = 0; j < static_cast<size_t>(nrhs); ++j, off += static_cast<size_t>(n_))
      for (int k = 0; k < n_; ++k)
        x[off + static_cast<size_t>(perm[k])] = static_cast<Real>(y[off + static_cast<size_t>(k)]);
  }
  static void copy_out(const cholmod_dense* X, Real* out) { std::memcpy(out, X->x, sizeof(Real) * X->nrow * X->ncol); }
  void free_buffers(SolveBuffers& buffers) {
    for (cholmod_dense** d : {&buffers.mid, &buffers.X, &buffers.Y, &buffers.E})
      if (*d) cholmod_free_dense(d, &common_);
  }
  long permuted_row(size_t column) const {
    return column < static_cast<size_t>(n_) ? static_cast<const int*>(L_->Perm)[column] : -1;
  }
  void release() {
    factored_ = false;
    single_factor_ = {};
    for (SolveBuffers* b : {&full_, &forward_, &backward_}) free_buffers(*b);
    if (super_) cholmod_free_factor(&super_, &common_);
    if (simplicial_) cholmod_free_factor(&simplicial_, &common_);
    L_ = nullptr;
    sweeps_.reset();
    if (A_) cholmod_free_sparse(&A_, &common_);
  }

  mutable cholmod_common common_;
  cholmod_sparse* A_ = nullptr;
  cholmod_factor* super_ = nullptr;       ///< supernodal, analysed per pattern
  cholmod_factor* simplicial_ = nullptr;  ///< simplicial L D L^T (or L L^T), analysed on first need
  cholmod_factor* L_ = nullptr;           ///< the one holding the last factorisation
  double flops_ = 0;                      ///< of the supernodal factorisation (CHOLMOD's analysis)
  bool prefer_ldlt_ = false;              ///< the last matrix was indefinite
  int n_ = 0;
  int nnz_ = 0;
  bool factored_ = false;  ///< the last factorize() succeeded
  FactorizationInfo info_;
  mutable SolveBuffers full_, forward_, backward_;
  std::unique_ptr<detail::SupernodalSweeps> sweeps_;       ///< planned once per analysed pattern (finish())
  mutable std::vector<Real> swept_;                        ///< the permuted columns the sweeps work on
  mutable std::vector<float> single_factor_, single_rhs_;  ///< precondition()'s copy of L and its column
};

}  // namespace

std::unique_ptr<LinearSolver> make_cholmod_solver() { return std::make_unique<CholmodSolver>(); }

}  // namespace softik
#endif  // SOFTIK_HAVE_CHOLMOD
