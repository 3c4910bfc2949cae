// Eigen SimplicialLDLT behind LinearSolver: the fallback when softik is built without CHOLMOD,
// and a baseline for benchmarks.
// K = P^T L D L^T P with unit lower L. When every pivot is positive, L D^1/2 is a Cholesky
// factor, K = P^T (L D^1/2)(L D^1/2)^T P, which gives the half solves
//   solve_forward   z = D^-1/2 L^-1 P b      solve_backward  x = P^T L^-T D^-1/2 z.
#include <Eigen/SparseCholesky>
#include <cmath>

#include "host/linear/linear_solvers.hpp"
#include "softik/error.hpp"

namespace softik {

namespace {

class EigenLdltSolver final : public LinearSolver {
 public:
  const char* name() const override { return "Eigen SimplicialLDLT"; }

  void analyze(const CsrPattern& pattern) override {
    pattern_ = pattern;
    factored_ = false;
    std::vector<Real> ones(static_cast<size_t>(pattern.nnz()), 1.0);
    ldlt_.analyzePattern(upper(ones));
    analysed_ = true;
  }

  void factorize(const std::vector<Real>& values) override {
    SOFTIK_CHECK(analysed_, "LinearSolver::factorize before analyze: call analyze(pattern) first");
    forget_gram();
    SOFTIK_CHECK(values.size() == static_cast<size_t>(pattern_.nnz()),
                 "factorize got " << values.size() << " values for a pattern of " << pattern_.nnz());
    ldlt_.factorize(upper(values));
    const Eigen::VectorXd D = ldlt_.vectorD();
    info_ = FactorizationInfo{};
    info_.passes = 1;
    factored_ = false;
    if (D.size() == 0) return;
    const double max_abs = D.cwiseAbs().maxCoeff();
    Eigen::Index row = 0;
    const double min_abs = D.cwiseAbs().minCoeff(&row);
    info_.pivot_ratio = max_abs > 0 ? min_abs / max_abs : 0.0;
    info_.indefinite = D.minCoeff() < 0;
    info_.negative_pivots = static_cast<int>((D.array() < 0).count());  // the inertia of K (Sylvester)
    info_.factor_nnz = static_cast<long long>(ldlt_.matrixL().nestedExpression().nonZeros()) + D.size();
    if (ldlt_.info() != Eigen::Success || !(info_.pivot_ratio >= singular_threshold))
      detail::throw_singular(name(), info_.pivot_ratio, static_cast<long>(ldlt_.permutationPinv().indices()[row]));
    factored_ = true;
    if (!info_.indefinite) inv_sqrt_D_ = D.cwiseSqrt().cwiseInverse();
  }

  void solve(const Real* b, Real* x, int nrhs) const override {
    const Eigen::Index n = pattern_.rows;
    Eigen::Map<const Eigen::MatrixXd> B(b, n, nrhs);
    Eigen::Map<Eigen::MatrixXd> X(x, n, nrhs);
    X = ldlt_.solve(B);
  }

  const FactorizationInfo& info() const override { return info_; }

  bool has_cholesky_factor() const override { return factored_ && !info_.indefinite; }

  void solve_forward(const Real* b, Real* z, int nrhs) const override {
    require_cholesky_factor("solve_forward");
    const Eigen::Index n = pattern_.rows;
    Eigen::Map<const Eigen::MatrixXd> B(b, n, nrhs);
    Eigen::Map<Eigen::MatrixXd> Z(z, n, nrhs);
    Z = ldlt_.permutationP() * B;      // P b
    ldlt_.matrixL().solveInPlace(Z);   // L^-1 P b
    Z = inv_sqrt_D_.asDiagonal() * Z;  // z = D^-1/2 L^-1 P b
  }

  void solve_backward(const Real* z, Real* x, int nrhs) const override {
    require_cholesky_factor("solve_backward");
    const Eigen::Index n = pattern_.rows;
    Eigen::Map<const Eigen::MatrixXd> Z(z, n, nrhs);
    Eigen::Map<Eigen::MatrixXd> X(x, n, nrhs);
    X = inv_sqrt_D_.asDiagonal() * Z;  // D^-1/2 z
    ldlt_.matrixU().solveInPlace(X);   // L^-T D^-1/2 z
    X = ldlt_.permutationPinv() * X;   // x = P^T L^-T D^-1/2 z
  }

 private:
  /// The upper triangle of the CSR matrix (row-major) as the lower triangle of a column-major
  /// matrix, which is what SimplicialLDLT<..., Lower> reads.
  Eigen::SparseMatrix<Real> upper(const std::vector<Real>& values) const {
    const Eigen::Map<const Eigen::SparseMatrix<Real, Eigen::RowMajor, int>> K(
        pattern_.rows, pattern_.rows, pattern_.nnz(), pattern_.row_ptr.data(), pattern_.col.data(), values.data());
    return Eigen::SparseMatrix<Real>(K.triangularView<Eigen::Upper>().transpose());
  }

  CsrPattern pattern_;
  bool analysed_ = false;
  bool factored_ = false;       ///< the last factorize() succeeded
  Eigen::VectorXd inv_sqrt_D_;  ///< D^-1/2 of a positive definite factorisation
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<Real>, Eigen::Lower> ldlt_;
  FactorizationInfo info_;
};

}  // namespace

std::unique_ptr<LinearSolver> make_eigen_ldlt_solver() { return std::make_unique<EigenLdltSolver>(); }

}  // namespace softik
