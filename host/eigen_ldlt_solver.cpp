// Eigen SimplicialLDLT behind LinearSolver: the fallback when softik is built without CHOLMOD,
// and a baseline for benchmarks.
#include <Eigen/SparseCholesky>
#include <cmath>

#include "linear_solvers.hpp"
#include "softik/error.hpp"

namespace softik {

namespace {

class EigenLdltSolver final : public LinearSolver {
 public:
  const char* name() const override { return "Eigen SimplicialLDLT"; }

  void analyze(const CsrPattern& pattern) override {
    pattern_ = pattern;
    std::vector<Real> ones(static_cast<size_t>(pattern.nnz()), 1.0);
    ldlt_.analyzePattern(upper(ones));
    analysed_ = true;
  }

  void factorize(const std::vector<Real>& values) override {
    SOFTIK_CHECK(analysed_, "LinearSolver::factorize before analyze: call analyze(pattern) first");
    SOFTIK_CHECK(values.size() == static_cast<size_t>(pattern_.nnz()),
                 "factorize got " << values.size() << " values for a pattern of " << pattern_.nnz());
    ldlt_.factorize(upper(values));
    const Eigen::VectorXd D = ldlt_.vectorD();
    info_ = FactorizationInfo{};
    if (D.size() == 0) return;
    const double max_abs = D.cwiseAbs().maxCoeff();
    Eigen::Index row = 0;
    const double min_abs = D.cwiseAbs().minCoeff(&row);
    info_.pivot_ratio = max_abs > 0 ? min_abs / max_abs : 0.0;
    info_.indefinite = D.minCoeff() < 0;
    info_.factor_nnz = static_cast<long long>(ldlt_.matrixL().nestedExpression().nonZeros()) + D.size();
    if (ldlt_.info() != Eigen::Success || !(info_.pivot_ratio >= singular_threshold))
      detail::throw_singular(name(), info_.pivot_ratio, static_cast<long>(ldlt_.permutationPinv().indices()[row]));
  }

  void solve(const Real* b, Real* x, int nrhs) const override {
    const Eigen::Index n = pattern_.rows;
    Eigen::Map<const Eigen::MatrixXd> B(b, n, nrhs);
    Eigen::Map<Eigen::MatrixXd> X(x, n, nrhs);
    X = ldlt_.solve(B);
  }

  const FactorizationInfo& info() const override { return info_; }

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
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<Real>, Eigen::Lower> ldlt_;
  FactorizationInfo info_;
};

}  // namespace

std::unique_ptr<LinearSolver> make_eigen_ldlt_solver() { return std::make_unique<EigenLdltSolver>(); }

}  // namespace softik
