// Conjugate gradients preconditioned by a kept factorisation: solves K x = b
// for a symmetric K given as values in a CSR pattern that holds both triangles, with M^-1 = the
// LinearSolver's current factorisation (of an earlier, nearby tangent), applied through
// LinearSolver::precondition (CHOLMOD's split sweeps apply it in single precision: half the memory
// traffic; the iterates, residuals and products with K stay double). Where M is close to K,
// M^-1 K is close to I and a few iterations (each one solve with the factor and one product
// with K) replace a numeric factorisation. The Newton iteration of a static solve takes it for
// its step to within the tolerance (NewtonOptions::krylov_iterations; docs/method.md,
// "Krylov steps").
#pragma once

#include <vector>

#include "softik/assembly.hpp"
#include "softik/linear_solver.hpp"

namespace softik::detail {

struct FactorPcgResult {
  bool converged = false;  ///< |b - K x| <= tolerance |b| (the recurrence's residual)
  int iterations = 0;      ///< products with K (and solves with the factor) done
  Real relative_residual = 0;
  bool indefinite = false;  ///< a search direction had p^T K p <= 0: K (or M) is not positive definite
};

/// y = K x over the free DOFs; K's pattern holds both triangles. `threads` as AssemblyOptions.
void csr_multiply(const CsrPattern& pattern, const std::vector<Real>& values, const Real* x, Real* y, int threads);

/// Solves K x = b from x = 0 by conjugate gradients preconditioned with solver.precondition (its
/// current factorisation, which must be positive definite) until the residual is at most
/// `tolerance` |b| or `max_iterations` products were spent; x holds the last iterate.
FactorPcgResult factor_pcg(const CsrPattern& pattern, const std::vector<Real>& values, const LinearSolver& solver,
                           const Real* b, Real* x, Real tolerance, int max_iterations, int threads);

}  // namespace softik::detail
