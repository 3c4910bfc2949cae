// The second-order predictor of a load step (NewtonOptions::extrapolate; docs/method.md section 7).
#pragma once

#include <cstddef>
#include <vector>

#include "softik/config.hpp"

namespace softik::detail {

/// The step from the converged state x_k at load factor lambda_k to the predicted x(lambda_k + h):
/// x(lambda) expanded to second order about lambda_k,
///   x(lambda_k + h) = x_k + h x' + h^2 x'' / 2,
/// with h x' = t, the tangent step (the first Newton step, the converged state's tangent solved
/// against the new load), and x'' from the last step d = x_k - x_{k-1} over h_p = rho^-1 h:
///   d = h_p x' - h_p^2 x'' / 2   =>   h^2 x'' / 2 = rho t - rho^2 d,
/// so the predictor is (1 + rho) t - rho^2 d: exact for a path quadratic in lambda, and t itself
/// (d = h_p x') where the path is straight. The tangent predictor t alone is first order.
inline void extrapolated_step(const std::vector<Real>& t, const std::vector<Real>& d, Real rho,
                              std::vector<Real>& out) {
  out.resize(t.size());
  for (size_t k = 0; k < t.size(); ++k) out[k] = (1 + rho) * t[k] - rho * rho * d[k];
}

}  // namespace softik::detail
