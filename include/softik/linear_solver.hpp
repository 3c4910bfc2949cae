// Sparse symmetric linear solvers for the free-DOF stiffness K (DESIGN.md section 5), behind
// one interface: symbolic analysis once per pattern, numeric factorisation per Newton
// iteration / step, then solves with one or many right-hand sides.
//
//   auto solver = make_linear_solver();        // CHOLMOD when built with it, else Eigen
//   solver->analyze(assembler.pattern());      // once
//   solver->factorize(K_values);               // every time the values change
//   solver->solve(b, x, nrhs);                 // b, x: n x nrhs, column-major
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

  /// Factorisations whose pivot ratio falls below this are reported as singular.
  double singular_threshold = 1e-12;
};

std::unique_ptr<LinearSolver> make_linear_solver(LinearSolverKind kind = LinearSolverKind::Automatic);

/// Whether this build has CHOLMOD (SOFTIK_WITH_CHOLMOD=ON).
bool have_cholmod();

namespace detail {
/// The Error thrown for a singular stiffness (shared wording for every solver).
[[noreturn]] void throw_singular(const char* solver, double pivot_ratio, long row);
}  // namespace detail

}  // namespace softik
