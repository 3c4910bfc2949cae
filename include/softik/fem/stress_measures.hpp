// Stress measures for output (host and device).
//   Cauchy stress   sigma = J^{-1} P F^T,  J = det F
//   von Mises       sigma_vm = sqrt(3/2 s:s),  s = sigma - tr(sigma)/3 I
#pragma once

#include <cmath>

#include "softik/fem/tensor.hpp"

namespace softik::fem {

SOFTIK_HD_INLINE Mat3 cauchy_from_pk1(const Mat3& F, const Mat3& P) { return P * F.transpose() / F.determinant(); }

SOFTIK_HD_INLINE Real von_mises(const Mat3& sigma) {
  const Mat3 s = sigma - (sigma.trace() / 3.0) * Mat3::Identity();
  return sqrt(1.5 * s.squaredNorm());
}

}  // namespace softik::fem
