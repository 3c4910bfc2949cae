// Fixed-size tensor types and the flattening convention shared by every material and
// formulation. Host and device (SOFTIK_HD): fixed-size Eigen only.
//
// Flattening of a 3x3 tensor A into a 9-vector follows Eigen's column-major storage:
//   vec(A)[i + 3*j] = A(i, j).
// A fourth-order tangent such as dP/dF is stored as a 9x9 matrix
//   dPdF(i + 3*j, k + 3*l) = d P(i,j) / d F(k,l).
#pragma once

#include <Eigen/Core>

#include "softik/config.hpp"

namespace softik::fem {

using Mat3 = Eigen::Matrix<Real, 3, 3>;
using Vec3 = Eigen::Matrix<Real, 3, 1>;
using Mat9 = Eigen::Matrix<Real, 9, 9>;
using Vec9 = Eigen::Matrix<Real, 9, 1>;

/// The d-vector and d x d matrix of a d-dimensional element (element_traits.hpp): reference
/// coordinates xi, the Jacobian dX/dxi, F and its rotation in d dimensions.
template <int d>
using VecD = Eigen::Matrix<Real, d, 1>;
template <int d>
using MatD = Eigen::Matrix<Real, d, d>;

/// Index of A(i,j) in vec(A).
SOFTIK_HD_INLINE constexpr int flat(int i, int j) { return i + 3 * j; }

/// Voigt component alpha's tensor indices (I, J) of a symmetric 3x3 tensor: the normal
/// components (0,0) (1,1) (2,2), then the shears (0,1) (1,2) (0,2).
SOFTIK_HD_INLINE constexpr int voigt_row(int alpha) { return alpha < 3 ? alpha : (alpha == 4 ? 1 : 0); }
SOFTIK_HD_INLINE constexpr int voigt_column(int alpha) { return alpha < 3 ? alpha : (alpha == 3 ? 1 : 2); }

SOFTIK_HD_INLINE Vec9 vec(const Mat3& A) {
  Vec9 v;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) v[flat(i, j)] = A(i, j);
  return v;
}

SOFTIK_HD_INLINE Mat3 unvec(const Vec9& v) {
  Mat3 A;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) A(i, j) = v[flat(i, j)];
  return A;
}

/// Cross-product matrix [a]_x: skew(a) * b = a x b.
SOFTIK_HD_INLINE Mat3 skew(const Vec3& a) {
  Mat3 S;
  S << 0, -a[2], a[1],  //
      a[2], 0, -a[0],   //
      -a[1], a[0], 0;
  return S;
}

}  // namespace softik::fem
