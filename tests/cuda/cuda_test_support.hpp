// What the CUDA tests share: skipping without a device, and the CPU = GPU comparison measure.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "softik/backend.hpp"
#include "softik/config.hpp"

/// Skips the test, with the reason, when no CUDA device can be used.
#define SKIP_WITHOUT_DEVICE()                                                   \
  do {                                                                          \
    std::string reason_;                                                        \
    if (!::softik::cuda::device_available(&reason_)) GTEST_SKIP() << reason_;   \
  } while (0)

namespace softik {

/// max |a - b| / max |b| (relative to the vector's scale).
inline Real relative_difference(const std::vector<Real>& a, const std::vector<Real>& b) {
  EXPECT_EQ(a.size(), b.size());
  Real diff = 0, scale = 0;
  for (size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    diff = std::max(diff, std::abs(a[k] - b[k]));
    scale = std::max(scale, std::abs(b[k]));
  }
  return scale > 0 ? diff / scale : diff;
}

}  // namespace softik
