// Sparse symmetric linear solvers for the free-DOF stiffness K (DESIGN.md section 5), behind
// one interface: symbolic analysis once per pattern, numeric factorisation per Newton
// iteration / step, then solves with one or many right-hand sides.
//
//   auto solver = make_linear_solver();        // CHOLMOD when built with it, else Eigen
//   solver->analyze(assembler.pattern());      // once
//   solver->factorize(K_values);               // every time the values change
//   solver->solve(b, x, nrhs);                 // b, x: n x nrhs, column-major
//
// Half solves (DESIGN.md section 5): when the last factorisation is a Cholesky factor
// K = P^T L L^T P (has_cholesky_factor()), K^-1 = P^T L^-T L^-1 P splits into
//   solve_forward:   z = L^-1 P b        solve_backward:  x = P^T L^-T z,
// so that Z = L^-1 P B gives B^T K^-1 B = Z^T Z from forward solves only (W = J K^-1 J^T).
//
// The pattern holds both triangles (Assembler's CSR); only the upper triangle is read.
// A positive definite K is factored as L L^T; an indefinite one (a hyperelastic tangent under
// compression) as L D L^T. A singular or numerically singular K (nothing fixed, a floating
// part: reciprocal pivot ratio below singular_threshold) is an Error, never a garbage solution.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "softik/assembly.hpp"

namespace softik {

enum class LinearSolverKind {
  Automatic,  ///< CHOLMOD supernodal when available, else Eigen
  Cholmod,    ///< SuiteSparse CHOLMOD, supernodal L L^T (METIS/AMD ordering), L D L^T fallback
  EigenLDLT,  ///< Eigen SimplicialLDLT (AMD ordering)
};

/// What the last factorisation did (for logs and benchmarks).
struct FactorizationInfo {
  bool indefinite = false;   ///< L L^T failed and L D L^T was used
  double pivot_ratio = 0;    ///< min |pivot| / max |pivot| (a lower bound of 1/cond(K) for SPD K)
  long long factor_nnz = 0;  ///< non-zeros of the factor
};

class LinearSolver {
 public:
  virtual ~LinearSolver() = default;
  virtual const char* name() const = 0;
  /// Symbolic analysis (ordering, elimination tree) of a square CSR pattern.
  virtual void analyze(const CsrPattern& pattern) = 0;
  /// Numeric factorisation of values laid out in the analysed pattern. Throws softik::Error
  /// when K is singular, naming the DOF row where it was detected when known.
  virtual void factorize(const std::vector<Real>& values) = 0;
  /// Solves K x = b for nrhs right-hand sides stored column-major (n x nrhs).
  virtual void solve(const Real* b, Real* x, int nrhs = 1) const = 0;
  virtual const FactorizationInfo& info() const = 0;

  /// Whether the last factorisation is K = P^T L L^T P with L lower triangular and a positive
  /// diagonal, so that solve_forward / solve_backward are available. False before a
  /// factorisation, after a failed one, after an indefinite K (L D L^T with negative pivots has
  /// no real L L^T form), and for solvers without half solves (the default).
  virtual bool has_cholesky_factor() const { return false; }
  /// z = L^-1 P b for nrhs columns (b, z: n x nrhs, column-major; they must not overlap).
  /// Throws softik::Error unless has_cholesky_factor().
  virtual void solve_forward(const Real* b, Real* z, int nrhs = 1) const;
  /// x = P^T L^-T z for nrhs columns (z, x: n x nrhs, column-major; they must not overlap).
  /// Throws softik::Error unless has_cholesky_factor().
  virtual void solve_backward(const Real* z, Real* x, int nrhs = 1) const;

  /// Factorisations whose pivot ratio falls below this are reported as singular.
  double singular_threshold = 1e-12;

 protected:
  /// Throws softik::Error naming `call` unless has_cholesky_factor().
  void require_cholesky_factor(const char* call) const;
};

std::unique_ptr<LinearSolver> make_linear_solver(LinearSolverKind kind = LinearSolverKind::Automatic);

/// Whether this build has CHOLMOD (SOFTIK_WITH_CHOLMOD=ON).
bool have_cholmod();

namespace detail {
/// The Error thrown for a singular stiffness (shared wording for every solver).
[[noreturn]] void throw_singular(const char* solver, double pivot_ratio, long row);
}  // namespace detail

}  // namespace softik
