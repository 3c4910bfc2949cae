// Rotation extraction for the corotational formulation, in 1, 2 and 3 dimensions, and the
// derivative of the rotation with respect to F (needed by the consistent tangent).
//
// Both methods write F = R U. A variation dF gives dR = R Omega with Omega skew:
//  * Polar (default): U = S symmetric positive. R^T dF = Omega S + dS, so with A = R^T dF,
//      A - A^T = Omega S + S Omega.
//    3D: Omega = [w]_x with (tr(S) I - S) w = axial(A - A^T)   (identity [w]_x S + S [w]_x = [(trS I - S) w]_x)
//    2D: Omega = theta' [[0,-1],[1,0]] with theta' = (A_10 - A_01) / tr(S)
//  * QR (Gram-Schmidt of the columns of F, "triangle" method): U upper triangular.
//      Q^T dF U^{-1} = Omega + dU U^{-1}; the second term is upper triangular, so
//      Omega_ij = A'_ij (i > j), Omega_ij = -A'_ji (i < j), with A' = Q^T dF U^{-1}.
// 1D: R = 1 and Omega = 0.
#pragma once

#include "softik/fem/element_traits.hpp"
#include "softik/fem/sym_eigen3.hpp"
#include "softik/fem/tensor.hpp"

namespace softik::fem {

enum class RotationMethod { Polar = 0, QR = 1 };

/// Result of a rotation extraction: F = R U (U symmetric for Polar, upper triangular for QR).
template <int d>
struct RotationFrame {
  MatD<d> R;
  MatD<d> U;
};

template <int d>
SOFTIK_HD RotationFrame<d> gram_schmidt_frame(const MatD<d>& F) {
  RotationFrame<d> fr;
  fr.U.setZero();
  for (int j = 0; j < d; ++j) {
    VecD<d> v = F.col(j);
    for (int k = 0; k < j; ++k) {
      fr.U(k, j) = fr.R.col(k).dot(F.col(j));
      v -= fr.U(k, j) * fr.R.col(k);
    }
    fr.U(j, j) = v.norm();
    fr.R.col(j) = v / fr.U(j, j);
  }
  return fr;
}

template <int d>
SOFTIK_HD RotationFrame<d> extract_rotation(const MatD<d>& F, RotationMethod method) {
  RotationFrame<d> fr;
  if constexpr (d == 1) {
    fr.R(0, 0) = 1;
    fr.U = F;
    return fr;
  } else {
    if (method == RotationMethod::QR) return gram_schmidt_frame<d>(F);
    if constexpr (d == 2) {
      polar_decomposition2(F, fr.R, fr.U);
    } else {
      polar_decomposition(F, fr.R, fr.U);
    }
    return fr;
  }
}

/// Omega such that dR = R Omega for a variation dF of F (see the header comment), with the frame's
/// factor formed once: (tr(S) I - S)^-1 for the 3D polar rotation, U^-1 for QR. The consistent
/// tangent asks for d x n variations per cell, one inverse instead of one each.
template <int d>
class RotationVariation {
 public:
  SOFTIK_HD RotationVariation(const RotationFrame<d>& fr, RotationMethod method) : fr_(fr), method_(method) {
    if constexpr (d == 2) {
      trace_ = fr.U.trace();
      if (method == RotationMethod::QR) factor_ = fr.U.inverse();
    } else if constexpr (d == 3) {
      factor_ = method == RotationMethod::QR ? MatD<d>(fr.U.inverse())
                                             : MatD<d>((fr.U.trace() * Mat3::Identity() - fr.U).inverse());
    }
  }

  SOFTIK_HD MatD<d> operator()(const MatD<d>& dF) const {
    MatD<d> Omega = MatD<d>::Zero();
    if constexpr (d == 1) {
      return Omega;
    } else {
      if (method_ == RotationMethod::QR) {
        const MatD<d> A = fr_.R.transpose() * dF * factor_;
        for (int i = 0; i < d; ++i)
          for (int j = 0; j < i; ++j) {
            Omega(i, j) = A(i, j);
            Omega(j, i) = -A(i, j);
          }
        return Omega;
      }
      const MatD<d> A = fr_.R.transpose() * dF;
      if constexpr (d == 2) {
        const Real theta = (A(1, 0) - A(0, 1)) / trace_;
        Omega(1, 0) = theta;
        Omega(0, 1) = -theta;
      } else {
        const Vec3 b(A(2, 1) - A(1, 2), A(0, 2) - A(2, 0), A(1, 0) - A(0, 1));
        Omega = skew(factor_ * b);  // w = (tr(S) I - S)^-1 axial(A - A^T)
      }
      return Omega;
    }
  }

 private:
  const RotationFrame<d>& fr_;
  RotationMethod method_;
  MatD<d> factor_ = MatD<d>::Zero();  // set where used (QR; the 3D polar rotation)
  Real trace_ = 0;
};

/// One variation: RotationVariation for a single dF.
template <int d>
SOFTIK_HD MatD<d> rotation_variation(const RotationFrame<d>& fr, const MatD<d>& dF, RotationMethod method) {
  return RotationVariation<d>(fr, method)(dF);
}

}  // namespace softik::fem
