// Natural modes by shift-invert Lanczos (softik/modes.hpp).
#include "softik/modes.hpp"

#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymGEigsShiftSolver.h>
#include <Eigen/SparseCore>

#include <cmath>

#include "softik/error.hpp"

namespace softik {

namespace {

constexpr Real kTwoPi = 6.28318530717958647692;

/// y = (K - sigma M)^-1 x on the free DOFs, K and M values in one CSR pattern, through `solver`
/// (the operator Spectra's ShiftInvert mode asks for: Scalar, rows, set_shift, perform_op).
class ShiftInvert {
 public:
  using Scalar = Real;
  ShiftInvert(const std::vector<Real>& K, const std::vector<Real>& M, int n, LinearSolver& solver)
      : K_(K), M_(M), n_(n), solver_(solver) {}
  Eigen::Index rows() const { return n_; }
  Eigen::Index cols() const { return n_; }
  void set_shift(Real sigma) {
    std::vector<Real> A(K_.size());
    for (size_t e = 0; e < A.size(); ++e) A[e] = K_[e] - sigma * M_[e];
    try {
      solver_.factorize(A);
    } catch (const Error& e) {
      throw Error(std::string("modes: K - shift M, shift = ") + std::to_string(sigma) +
                      ", could not be factorised: " + e.what() +
                      ". With nothing fixed the body floats and lambda = 0 (its rigid motions) is an eigenvalue: "
                      "give a negative modes shift, e.g. -1; a shift on an eigenvalue is singular too: move it",
                  e.kind());
    }
  }
  void perform_op(const Real* x, Real* y) const { solver_.solve(x, y); }

 private:
  const std::vector<Real>& K_;
  const std::vector<Real>& M_;
  int n_;
  LinearSolver& solver_;
};

void check_options(const ModesOptions& o, int free) {
  SOFTIK_CHECK(o.count >= 1 && o.count < free,
               "modes: count = " << o.count << "; give 1 <= count < " << free << " (the free degrees of freedom)");
  SOFTIK_CHECK(std::isfinite(o.shift), "modes: shift = " << o.shift << "; give a finite number");
  SOFTIK_CHECK(std::isfinite(o.density) && o.density > 0,
               "modes: density = " << o.density << "; give a mass density > 0");
  SOFTIK_CHECK(o.tolerance > 0 && o.tolerance < 1, "modes: tolerance = " << o.tolerance << "; give one in (0, 1)");
  SOFTIK_CHECK(o.max_iterations >= 1, "modes: max_iterations = " << o.max_iterations << "; give at least 1");
}

}  // namespace

ModesResult natural_modes(const Assembler& assembler, LinearSolver& solver, const std::vector<Real>& x,
                          const ModesOptions& options) {
  const CsrPattern& pattern = assembler.pattern();
  const int n = pattern.rows;
  check_options(options, n);
  std::vector<Real> K;
  assembler.assemble(x, nullptr, nullptr, &K);
  const std::vector<Real> M = assembler.mass_matrix(options.density, options.lumped_mass);
  solver.analyze(pattern);
  ShiftInvert op(K, M, n, solver);
  // M in place: the CSR arrays as a row-major sparse matrix (both triangles stored; Spectra reads one).
  const Eigen::Map<const Eigen::SparseMatrix<Real, Eigen::RowMajor, int>> Mmap(
      n, n, pattern.nnz(), pattern.row_ptr.data(), pattern.col.data(), M.data());
  using MassProduct = Spectra::SparseSymMatProd<Real, Eigen::Lower, Eigen::RowMajor, int>;
  MassProduct mass(Mmap);
  const int ncv = std::min(n, std::max(2 * options.count + 1, options.count + 20));
  ModesResult r;
  {
    Spectra::SymGEigsShiftSolver<ShiftInvert, MassProduct, Spectra::GEigsMode::ShiftInvert> eigs(
        op, mass, options.count, ncv, options.shift);
    eigs.init();
    r.converged = static_cast<int>(eigs.compute(Spectra::SortRule::LargestMagn, options.max_iterations,
                                                options.tolerance, Spectra::SortRule::SmallestAlge));
    r.iterations = static_cast<int>(eigs.num_iterations());
    SOFTIK_CHECK_NUMERICAL(eigs.info() == Spectra::CompInfo::Successful,
                           "modes: Lanczos found " << r.converged << " of " << options.count << " modes within "
                                                   << options.max_iterations
                                                   << " restarts; raise max_iterations or ask for fewer modes");
    const Eigen::Matrix<Real, Eigen::Dynamic, 1> lambda = eigs.eigenvalues();
    const Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic> phi = eigs.eigenvectors();
    const std::vector<int>& free = assembler.free_dof_index();
    for (Eigen::Index k = 0; k < lambda.size(); ++k) {
      const Real l = lambda[k];
      r.eigenvalues.push_back(l);
      r.frequencies.push_back((l >= 0 ? 1.0 : -1.0) * std::sqrt(std::abs(l)) / kTwoPi);
      std::vector<Real> shape(free.size(), 0.0);
      for (size_t d = 0; d < free.size(); ++d)
        if (free[d] >= 0) shape[d] = phi(free[d], k);
      r.shapes.push_back(std::move(shape));
    }
  }
  return r;
}

}  // namespace softik
