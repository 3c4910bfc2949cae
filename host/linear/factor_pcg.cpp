// Conjugate gradients preconditioned by a kept factorisation (factor_pcg.hpp).
#include "host/linear/factor_pcg.hpp"

#include <cmath>

#include "softik/exec/forall.hpp"

namespace softik::detail {

void csr_multiply(const CsrPattern& pattern, const std::vector<Real>& values, const Real* x, Real* y, int threads) {
  const int* row_ptr = pattern.row_ptr.data();
  const int* col = pattern.col.data();
  const Real* v = values.data();
  exec::forall(exec::HostCells{threads}, pattern.rows, [&](int i) {
    Real sum = 0;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += v[k] * x[col[k]];
    y[i] = sum;
  });
}

namespace {

Real dot(const std::vector<Real>& a, const std::vector<Real>& b) {
  Real s = 0;
  for (size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}

}  // namespace

FactorPcgResult factor_pcg(const CsrPattern& pattern, const std::vector<Real>& values, const LinearSolver& solver,
                           const Real* b, Real* x, Real tolerance, int max_iterations, int threads) {
  const size_t n = static_cast<size_t>(pattern.rows);
  std::vector<Real> r(b, b + n), z(n), p(n), q(n);
  for (size_t k = 0; k < n; ++k) x[k] = 0;
  FactorPcgResult out;
  const Real b_norm = std::sqrt(dot(r, r));
  if (!(b_norm > 0)) {
    out.converged = b_norm == 0;
    return out;
  }
  solver.precondition(r.data(), z.data());
  p = z;
  Real rz = dot(r, z);
  while (out.iterations < max_iterations) {
    csr_multiply(pattern, values, p.data(), q.data(), threads);
    ++out.iterations;
    const Real pq = dot(p, q);
    if (!(pq > 0) || !(rz > 0)) {  // K or M not positive definite on this direction: CG is undefined
      out.indefinite = true;
      break;
    }
    const Real alpha = rz / pq;
    for (size_t k = 0; k < n; ++k) {
      x[k] += alpha * p[k];
      r[k] -= alpha * q[k];
    }
    out.relative_residual = std::sqrt(dot(r, r)) / b_norm;
    if (out.relative_residual <= tolerance) {
      out.converged = true;
      break;
    }
    solver.precondition(r.data(), z.data());
    const Real rz_next = dot(r, z);
    const Real beta = rz_next / rz;
    rz = rz_next;
    for (size_t k = 0; k < n; ++k) p[k] = z[k] + beta * p[k];
  }
  return out;
}

}  // namespace softik::detail
