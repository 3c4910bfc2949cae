// The Coulomb cone and the exact single-contact solve (contact_solvers.hpp).
#include <cmath>
#include <limits>

#include <Eigen/Dense>

#include "host/contact/contact_solvers.hpp"

namespace softik {
namespace contact {

Vec3r project_on_cone(const Vec3r& z, Real mu) {
  const Real zn = z[0];
  const Real zt = z.tail<2>().norm();
  if (zn >= 0 && zt <= mu * zn) return z;  // zn >= 0: with mu = 0 and zt = 0, -0 would pass
  if (mu * zt <= -zn) return Vec3r::Zero();
  const Real s = (zn + mu * zt) / (1 + mu * mu);
  Vec3r r;
  r[0] = s;
  r.tail<2>() = zt > 0 ? Eigen::Matrix<Real, 2, 1>(mu * s * z.tail<2>() / zt) : Eigen::Matrix<Real, 2, 1>::Zero();
  return r;
}

// De Saxce's modified velocity u = delta + mu |delta_t| e_n; lambda solves the contact iff
// lambda = proj_K(lambda - rho u).
Real contact_residual(const Vec3r& lambda, const Vec3r& delta, Real mu, Real rho) {
  Vec3r u = delta;
  u[0] += mu * delta.tail<2>().norm();
  return (lambda - project_on_cone(lambda - rho * u, mu)).norm() / rho;
}

namespace {

// The slip state at angle phi: s = (cos phi, sin phi), delta_n = 0 gives
// lambda_n = -b_n / (A_nn - mu A_nt.s); lambda_t = -mu lambda_n s;
// delta_t = b_t + A_tn lambda_n + A_tt lambda_t. f = s_perp . delta_t vanishes where delta_t || s.
struct SlipState {
  bool valid = false;
  Vec3r lambda = Vec3r::Zero();
  Real f = 0;      ///< s_perp . delta_t
  Real along = 0;  ///< s . delta_t (> 0 for a true slip)
};

SlipState slip_state(const Mat3r& A, const Vec3r& b, Real mu, Real phi) {
  SlipState st;
  const Eigen::Matrix<Real, 2, 1> s(std::cos(phi), std::sin(phi));
  const Real denom = A(0, 0) - mu * A.block<1, 2>(0, 1).dot(s);
  if (!(denom > 0)) return st;
  const Real ln = -b[0] / denom;
  st.lambda << ln, -mu * ln * s;
  const Eigen::Matrix<Real, 2, 1> dt = b.tail<2>() + A.block<2, 3>(1, 0) * st.lambda;
  st.f = -s[1] * dt[0] + s[0] * dt[1];
  st.along = s.dot(dt);
  st.valid = ln >= 0;
  return st;
}

// Bisection of f on [lo, hi] where f changes sign (60 halvings: to round-off).
SlipState bisect(const Mat3r& A, const Vec3r& b, Real mu, Real lo, Real hi, Real f_lo) {
  for (int k = 0; k < 60; ++k) {
    const Real mid = (lo + hi) / 2;
    const SlipState m = slip_state(A, b, mu, mid);
    if (!m.valid) break;
    if ((m.f < 0) == (f_lo < 0)) {
      lo = mid;
      f_lo = m.f;
    } else {
      hi = mid;
    }
  }
  return slip_state(A, b, mu, (lo + hi) / 2);
}

Real angle_gap(Real a, Real b) {
  const Real d = std::remainder(a - b, 2 * M_PI);
  return std::abs(d);
}

// The slip solution nearest the preferred angle: scan 64 angles, bisect each sign change of f.
bool solve_slip(const Mat3r& A, const Vec3r& b, Real mu, Real preferred, Vec3r& lambda) {
  constexpr int kScan = 64;
  Real best_gap = std::numeric_limits<Real>::infinity();
  SlipState prev = slip_state(A, b, mu, preferred - M_PI);
  for (int k = 1; k <= kScan; ++k) {
    const Real lo = preferred - M_PI + 2 * M_PI * (k - 1) / kScan, hi = preferred - M_PI + 2 * M_PI * k / kScan;
    const SlipState cur = slip_state(A, b, mu, hi);
    if (prev.valid && cur.valid && ((prev.f <= 0) != (cur.f <= 0) || prev.f == 0)) {
      const SlipState root = prev.f == 0 ? prev : bisect(A, b, mu, lo, hi, prev.f);
      const Real phi = prev.f == 0 ? lo : (lo + hi) / 2;
      if (root.valid && root.along >= 0 && angle_gap(phi, preferred) < best_gap) {
        best_gap = angle_gap(phi, preferred);
        lambda = root.lambda;
      }
    }
    prev = cur;
  }
  return best_gap < std::numeric_limits<Real>::infinity();
}

}  // namespace

Vec3r solve_single_contact(const Mat3r& A, const Vec3r& b, Real mu, const Vec3r& current) {
  if (b[0] >= 0) return Vec3r::Zero();               // separation: lambda = 0, delta = b admissible
  if (mu == 0) return Vec3r(-b[0] / A(0, 0), 0, 0);  // frictionless: delta_n = 0
  const Eigen::LDLT<Mat3r> ldlt(A);
  if (ldlt.info() == Eigen::Success && ldlt.isPositive()) {
    const Vec3r stick = -ldlt.solve(b);  // delta = 0
    const Real lt = stick.tail<2>().norm();
    if (stick[0] >= 0 && lt <= mu * stick[0]) return stick;
    if (stick[0] >= 0 && lt <= mu * stick[0] * (1 + 1e-12)) return project_on_cone(stick, mu);
  }
  // Slip: prefer the direction opposite to the current friction force, else along b_t.
  const Eigen::Matrix<Real, 2, 1> hint = current.tail<2>().norm() > 0 ? Eigen::Matrix<Real, 2, 1>(-current.tail<2>())
                                                                      : Eigen::Matrix<Real, 2, 1>(b.tail<2>());
  const Real preferred = std::atan2(hint[1], hint[0]);
  Vec3r slip;
  if (solve_slip(A, b, mu, preferred, slip)) return slip;
  return current;
}

}  // namespace contact
}  // namespace softik
