// What the CUDA tests share: skipping without a device (or cuDSS), and the CPU = GPU comparison
// measure.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cuda/linear/cudss_solver.hpp"
#include "softik/backend.hpp"
#include "softik/config.hpp"
#include "softik/linear_solver.hpp"

/// Skips the test, with the reason, when no CUDA device can be used.
#define SKIP_WITHOUT_DEVICE()                                                 \
  do {                                                                        \
    std::string reason_;                                                      \
    if (!::softik::cuda::device_available(&reason_)) GTEST_SKIP() << reason_; \
  } while (0)

/// Skips the test unless a CUDA device is usable and cuDSS is built in and loadable.
#define SKIP_UNLESS_CUDSS_RUNS()                                                                                     \
  do {                                                                                                               \
    std::string skip_reason_;                                                                                        \
    if (!::softik::cuda::device_available(&skip_reason_)) GTEST_SKIP() << "no usable CUDA device: " << skip_reason_; \
    if (!::softik::have_cudss_solver()) GTEST_SKIP() << "softik was built without cuDSS (scripts/setup.sh)";         \
    if (!::softik::cuda::cudss_library_available(&skip_reason_)) GTEST_SKIP() << skip_reason_;                       \
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
