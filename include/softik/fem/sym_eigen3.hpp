// Symmetric eigen-decomposition (cyclic Jacobi), SPD projection and polar decomposition.
// Host and device (SOFTIK_HD): fixed-size Eigen only, no allocation, no exceptions.
//
// sym_eigen<N>(A, w, V): A = V diag(w) V^T for symmetric A (only the upper triangle is
//   read), w ascending, V orthonormal. Cyclic Jacobi (Golub & Van Loan, "Matrix
//   Computations", 4th ed., section 8.5; rotation formulas as in Numerical Recipes' jacobi,
//   with the Rutishauser tau update). An off-diagonal entry that is negligible next to both
//   diagonal entries is set to zero, so the sweeps stop when the matrix is diagonal to
//   round-off; at most kJacobiMaxSweeps sweeps (quadratic convergence needs < 10 for N <= 30).
// sym_eigen3(A, w, V): the N = 3 case (used by the spectral laws and the polar decomposition).
// project_spd<N>(A, eps): A <- V diag(max(w, eps)) V^T; A is left untouched when every
//   eigenvalue of sym(A) is already >= eps.
// polar_decomposition(F, R, S): F = R S, R proper rotation, S symmetric (positive when
//   det F > 0). det F > 0: Higham's scaled Newton iteration X <- (g X + X^{-T}/g)/2
//   (N. J. Higham, "Computing the polar decomposition", SIAM J. Sci. Stat. Comput. 7, 1986),
//   quadratically convergent to round-off for any condition number. det F <= 0 (inverted
//   element): rotation-variant SVD F = U diag(s) V^T with U, V proper, R = U V^T, the sign
//   carried by the smallest singular value (Irving, Teran, Fedkiw 2004), which is the rotation
//   closest to F. S = sym(R^T F) in both cases.
// polar_decomposition2(F, R, S): closed form in 2D, R = rotation by theta with
//   (cos, sin) ~ (F00 + F11, F10 - F01), which makes R^T F symmetric with positive trace.
#pragma once

#include <cmath>
#include <type_traits>

#include <Eigen/Core>
#include <Eigen/Geometry>  // cross()
#include <Eigen/LU>        // fixed-size determinant()

#include "softik/fem/lane_ops.hpp"
#include "softik/fem/tensor.hpp"

namespace softik::fem {

constexpr int kJacobiMaxSweeps = 60;

/// Eigen-decomposition of the symmetric N x N matrix A: A = V diag(w) V^T, w ascending.
template <int N>
SOFTIK_HD_INLINE void sym_eigen(const Eigen::Matrix<Real, N, N>& A_in, Eigen::Matrix<Real, N, 1>& w,
                                Eigen::Matrix<Real, N, N>& V) {
  Eigen::Matrix<Real, N, N> A;
  for (int j = 0; j < N; ++j)
    for (int i = 0; i <= j; ++i) {
      A(i, j) = A_in(i, j);
      A(j, i) = A_in(i, j);
    }
  V.setIdentity();
  for (int sweep = 0; sweep < kJacobiMaxSweeps; ++sweep) {
    Real off = 0;
    for (int p = 0; p < N; ++p)
      for (int q = p + 1; q < N; ++q) off += fabs(A(p, q));
    if (off == 0) break;
    for (int p = 0; p < N; ++p) {
      for (int q = p + 1; q < N; ++q) {
        const Real apq = A(p, q);
        if (apq == 0) continue;
        const Real g = 100 * fabs(apq);
        const Real app = A(p, p), aqq = A(q, q);
        // Negligible next to both diagonal entries: drop it (this is what makes the loop end).
        if (fabs(app) + g == fabs(app) && fabs(aqq) + g == fabs(aqq)) {
          A(p, q) = 0;
          A(q, p) = 0;
          continue;
        }
        const Real h = aqq - app;
        Real t;  // tan of the rotation angle, the smaller root of t^2 + 2 theta t - 1 = 0
        if (fabs(h) + g == fabs(h)) {
          t = apq / h;
        } else {
          const Real theta = 0.5 * h / apq;
          t = 1 / (fabs(theta) + sqrt(1 + theta * theta));
          if (theta < 0) t = -t;
        }
        const Real c = 1 / sqrt(1 + t * t), s = t * c, tau = s / (1 + c);
        A(p, p) = app - t * apq;
        A(q, q) = aqq + t * apq;
        A(p, q) = 0;
        A(q, p) = 0;
        for (int r = 0; r < N; ++r) {
          if (r != p && r != q) {
            const Real arp = A(r, p), arq = A(r, q);
            A(r, p) = arp - s * (arq + tau * arp);
            A(r, q) = arq + s * (arp - tau * arq);
            A(p, r) = A(r, p);
            A(q, r) = A(r, q);
          }
          const Real vrp = V(r, p), vrq = V(r, q);
          V(r, p) = vrp - s * (vrq + tau * vrp);
          V(r, q) = vrq + s * (vrp - tau * vrq);
        }
      }
    }
  }
  for (int i = 0; i < N; ++i) w[i] = A(i, i);
  // Selection sort, ascending (manual swaps: std::swap is not device code in C++17).
  for (int i = 0; i < N - 1; ++i) {
    int k = i;
    for (int j = i + 1; j < N; ++j)
      if (w[j] < w[k]) k = j;
    if (k != i) {
      const Real tw = w[i];
      w[i] = w[k];
      w[k] = tw;
      for (int r = 0; r < N; ++r) {
        const Real tv = V(r, i);
        V(r, i) = V(r, k);
        V(r, k) = tv;
      }
    }
  }
}

/// Symmetric 3x3: A = V diag(w) V^T, w ascending, V orthonormal.
SOFTIK_HD_INLINE void sym_eigen3(const Mat3& A, Vec3& w, Mat3& V) { sym_eigen<3>(A, w, V); }

/// Clamps the eigenvalues of sym(A) below eps to eps. A is unchanged when sym(A) has no
/// eigenvalue below eps.
template <int N>
SOFTIK_HD_INLINE void project_spd(Eigen::Matrix<Real, N, N>& A, Real eps = 0) {
  const Eigen::Matrix<Real, N, N> As = 0.5 * (A + A.transpose());
  Eigen::Matrix<Real, N, 1> w;
  Eigen::Matrix<Real, N, N> V;
  sym_eigen<N>(As, w, V);
  if (w[0] >= eps) return;  // ascending: the smallest is w[0]
  for (int i = 0; i < N; ++i)
    if (w[i] < eps) w[i] = eps;
  A = V * w.asDiagonal() * V.transpose();
  A = 0.5 * (A + A.transpose()).eval();
}

/// Cofactor matrix cof(F) = det(F) F^{-T} (columns are cross products of F's columns), for a
/// matrix of Reals or of lanes (lane_ops.hpp). Written entry by entry: Eigen's cross() on column
/// blocks was left out of line by g++ inside the polar iteration (a call per column, 2-3 % of a
/// corotational force pass).
template <class M>
SOFTIK_HD_INLINE M cofactor(const M& F) {
  M G;
  G(0, 0) = F(1, 1) * F(2, 2) - F(2, 1) * F(1, 2);
  G(1, 0) = F(2, 1) * F(0, 2) - F(0, 1) * F(2, 2);
  G(2, 0) = F(0, 1) * F(1, 2) - F(1, 1) * F(0, 2);
  G(0, 1) = F(1, 2) * F(2, 0) - F(2, 2) * F(1, 0);
  G(1, 1) = F(2, 2) * F(0, 0) - F(0, 2) * F(2, 0);
  G(2, 1) = F(0, 2) * F(1, 0) - F(1, 2) * F(0, 0);
  G(0, 2) = F(1, 0) * F(2, 1) - F(2, 0) * F(1, 1);
  G(1, 2) = F(2, 0) * F(0, 1) - F(0, 0) * F(2, 1);
  G(2, 2) = F(0, 0) * F(1, 1) - F(1, 0) * F(0, 1);
  return G;
}

namespace detail {
/// Rotation-variant SVD route: R = U V^T with U, V proper (any det F, rank >= 1). Cold: taken
/// for inverted and degenerate cells only.
SOFTIK_HD_COLD Mat3 rotation_from_svd(const Mat3& F) {
  Vec3 w;
  Mat3 V;
  sym_eigen3(F.transpose() * F, w, V);  // ascending: v2 has the largest singular value
  if (V.determinant() < 0) V.col(0) = -V.col(0);
  Mat3 U;
  Vec3 u2 = F * V.col(2);
  Real n2 = u2.norm();
  if (!(n2 > 0)) return Mat3::Identity();  // F = 0: any rotation will do
  U.col(2) = u2 / n2;
  Vec3 u1 = F * V.col(1);
  u1 -= U.col(2).dot(u1) * U.col(2);
  Real n1 = u1.norm();
  if (!(n1 > 1e-300 + 1e-15 * n2)) {  // rank 1: any unit vector orthogonal to u2
    const Vec3 e = fabs(U(0, 2)) < 0.9 ? Vec3(1, 0, 0) : Vec3(0, 1, 0);
    u1 = e - U.col(2).dot(e) * U.col(2);
    n1 = u1.norm();
  }
  U.col(1) = u1 / n1;
  U.col(0) = U.col(1).cross(U.col(2));  // det U = +1 (right-handed: 0 = 1 x 2)
  return U * V.transpose();
}
}  // namespace detail

/// The rotation of F = R S by Newton's iteration, in place (X: F in, R out), for a matrix of
/// Reals or of lanes (lane_ops.hpp; each lane iterates as it would alone and stops changing when
/// it has converged). Returns the mask of the lanes it applies to, det F > 1e-12 |F|^3; the
/// others hold the identity and need polar_decomposition's SVD route.
///
/// Newton's iteration X <- (X + X^-T)/2 from X = F keeps the polar factor (X_k = R S_k,
/// S_{k+1} = (S_k + S_k^-1)/2), so each stretch s of S_k goes to (s + 1/s)/2: with s = 1 + e the
/// error becomes e^2 / (2 (1 + e)). The step's size |X_{k+1} - X_k| = |X_k - X_k^-T| / 2 bounds the
/// error e of X_k, so a step smaller than 1e-8 leaves X_{k+1} within 5e-17 of R: the iteration
/// stops there, without another step. Far from R (|X - X^-T| > |X|, which a stretch below about
/// 0.5-0.7 reaches: the plain step would take it to about 1/(2s) and then halve it step by step)
/// the step is scaled by g = (|X^-T| / |X|)^(1/2) (Higham's Frobenius scaling); nearer, the plain
/// step converges as fast without the scaling's square roots (15-30% faster for strains of
/// 2-25%, bench/RESULTS.md). A large stretch s alone is not scaled (about log2(s) more steps). X^-T = cof(X) / det X,
/// with det X = X_0 . cof(X)_0 from the same cofactors.
template <class M>
SOFTIK_HD_INLINE auto polar_rotation_newton(M& X) {
  using T = typename std::decay<decltype(X(0, 0))>::type;
  M C = cofactor(X);
  T detX = X(0, 0) * C(0, 0) + X(1, 0) * C(1, 0) + X(2, 0) * C(2, 0);
  T nf2 = X(0, 0) * X(0, 0);
  for (int k = 1; k < 9; ++k) nf2 = nf2 + X(k % 3, k / 3) * X(k % 3, k / 3);
  const T scale = sqrt(nf2);
  const auto ok = detX > 1e-12 * scale * scale * scale;
  if (!lanes_any(ok)) return ok;
  if (!lanes_all(ok)) {  // the lanes left to the SVD start (and stay) at the identity
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        X(i, j) = lane_select(ok, X(i, j), T(i == j ? 1.0 : 0.0));
        C(i, j) = lane_select(ok, C(i, j), T(i == j ? 1.0 : 0.0));
      }
    detX = lane_select(ok, detX, T(1.0));
  }
  auto done = lanes_and(ok, !ok);  // false in every lane
  for (int it = 0; it < 40; ++it) {
    const T inv = 1.0 / detX;
    M Y;  // X^-T
    T nx2 = T(0.0), d2 = T(0.0);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        Y(i, j) = C(i, j) * inv;
        const T e = X(i, j) - Y(i, j);
        nx2 = nx2 + X(i, j) * X(i, j);
        d2 = d2 + e * e;
      }
    const auto far = d2 > nx2;  // far from R: the scaled step
    if (lanes_any(far)) {
      T ny2 = T(0.0);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) ny2 = ny2 + Y(i, j) * Y(i, j);
      const T g = lane_select(far, sqrt(sqrt(ny2 / nx2)), T(1.0));  // 1: the plain step, exactly
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) X(i, j) = lane_select(done, X(i, j), 0.5 * (g * X(i, j) + Y(i, j) / g));
    } else {
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) X(i, j) = lane_select(done, X(i, j), 0.5 * (X(i, j) + Y(i, j)));
    }
    // A plain step of <= 1e-8 leaves X at R to round-off (d2 <= nx2 is !far, NaN aside).
    done = lanes_or(done, lanes_and(d2 <= nx2, d2 <= 4e-16));
    if (lanes_all(done)) break;
    C = cofactor(X);
    detX = X(0, 0) * C(0, 0) + X(1, 0) * C(1, 0) + X(2, 0) * C(2, 0);
  }
  return ok;
}

/// Polar decomposition F = R S, R a proper rotation, S symmetric (positive for det F > 0):
/// polar_rotation_newton for det F > 0, the SVD route otherwise.
SOFTIK_HD_INLINE void polar_decomposition(const Mat3& F, Mat3& R, Mat3& S) {
  Mat3 X = F;
  if (polar_rotation_newton(X))
    R = X;
  else
    R = detail::rotation_from_svd(F);
  const Mat3 RtF = R.transpose() * F;
  S = 0.5 * (RtF + RtF.transpose());
}

/// 2D polar decomposition F = R S, R a proper rotation, S symmetric with tr S >= 0.
SOFTIK_HD_INLINE void polar_decomposition2(const Eigen::Matrix2d& F, Eigen::Matrix2d& R, Eigen::Matrix2d& S) {
  const Real a = F(0, 0) + F(1, 1), b = F(1, 0) - F(0, 1);
  const Real r = sqrt(a * a + b * b);
  Real c = 1, s = 0;
  if (r > 0) {
    c = a / r;
    s = b / r;
  }
  R << c, -s, s, c;
  const Eigen::Matrix2d RtF = R.transpose() * F;
  S = 0.5 * (RtF + RtF.transpose());
}

}  // namespace softik::fem
