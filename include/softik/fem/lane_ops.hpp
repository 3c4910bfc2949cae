// Element math written once for one cell or several at a time.
//
// A function templated on its scalar type T computes one cell with T = Real (the device, and the
// host's single cells) and W cells at once with T = assembly::Lanes<W> (host/assembly/lanes.hpp:
// one SIMD register per value, lane l for cell l). Such code indexes its matrices as A(i, j),
// which Eigen's fixed-size matrices and TMat below both provide, and replaces each branch on a
// value by a mask: a comparison of T gives a mask (bool for Real), and
//   lane_select(m, a, b)   a where m holds, b elsewhere
//   lanes_any(m), lanes_all(m), lanes_and(m, n), lanes_or(m, n)
// are found by overload (Real, here) or by argument-dependent lookup (Lanes).
#pragma once

#include "softik/config.hpp"

namespace softik::fem {

SOFTIK_HD_INLINE Real lane_select(bool m, Real a, Real b) { return m ? a : b; }
SOFTIK_HD_INLINE bool lanes_any(bool m) { return m; }
SOFTIK_HD_INLINE bool lanes_all(bool m) { return m; }
SOFTIK_HD_INLINE bool lanes_and(bool m, bool n) { return m && n; }
SOFTIK_HD_INLINE bool lanes_or(bool m, bool n) { return m || n; }

/// A small R x C matrix of a scalar or lanes type T, indexed A(i, j) like Eigen's.
template <class T, int R, int C>
struct TMat {
  T v[R][C];
  SOFTIK_HD_INLINE T& operator()(int i, int j) { return v[i][j]; }
  SOFTIK_HD_INLINE const T& operator()(int i, int j) const { return v[i][j]; }
};

}  // namespace softik::fem
