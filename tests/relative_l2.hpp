// The 2-norm distance of two vectors relative to the second's: |a - b| / |b|.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "softik/config.hpp"

namespace softik {

/// |a - b| / |b| (2-norms) over the entries of b (a holds at least as many).
inline Real relative_l2(const std::vector<Real>& a, const std::vector<Real>& b) {
  Real d = 0, n = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    d += (a[k] - b[k]) * (a[k] - b[k]);
    n += b[k] * b[k];
  }
  return std::sqrt(d / n);
}

}  // namespace softik
