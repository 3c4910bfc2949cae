// One link of a node network (seed 001; docs/method.md section 12): a spring with a rest length
// and a dashpot between two point masses. Host and device (SOFTIK_HD): fixed-size Eigen only.
//
// With d = x_b - x_a, l = |d|, e = d / l, the stretch Delta = l - L (L the rest length) and the
// rate of extension l' = (v_b - v_a) . e, the link carries the tension
//   s = k Delta + k3 Delta^3 + c l'                (linear spring k, cubic hardening k3, dashpot c)
// and pulls its ends together: f_a = +s e, f_b = -s e. Its stored energy is
//   psi = k Delta^2 / 2 + k3 Delta^4 / 4           (the dashpot stores none; it dissipates c l'^2),
// so f = -d psi / dx. The spring's Hessian d^2 psi / dx_b^2 is
//   H = k_t e e^T + (s_el / l) (I - e e^T),   k_t = k + 3 k3 Delta^2,  s_el = k Delta + k3 Delta^3,
// whose spectral norm max(k_t, |s_el| / l) bounds the link's stiffness in the stable time step
// of explicit integration (explicit_dynamics.hpp).
#pragma once

#include "softik/fem/tensor.hpp"

namespace softik::fem {

struct LinkParameters {
  Real k = 0;   ///< linear stiffness (N/m)
  Real k3 = 0;  ///< cubic hardening (N/m^3), >= 0
  Real L = 0;   ///< rest length (m), > 0
  Real c = 0;   ///< dashpot (N s/m), >= 0
};

/// The tension s of the link (positive when stretched or extending); l is |x_b - x_a| > 0.
SOFTIK_HD_INLINE Real link_tension(const LinkParameters& p, Real l, Real extension_rate) {
  const Real Delta = l - p.L;
  return p.k * Delta + p.k3 * Delta * Delta * Delta + p.c * extension_rate;
}

/// The force on node b (the force on node a is its negative): -s e. A link of zero current
/// length has no direction; it gives no force (the caller checks lengths: NodeNetwork).
SOFTIK_HD_INLINE Vec3 link_force_on_b(const LinkParameters& p, const Vec3& xa, const Vec3& xb, const Vec3& va,
                                      const Vec3& vb) {
  const Vec3 d = xb - xa;
  const Real l = d.norm();
  if (!(l > 0)) return Vec3::Zero();
  const Vec3 e = d / l;
  return -link_tension(p, l, (vb - va).dot(e)) * e;
}

/// The spring's force on node b alone (no dashpot: the tension k Delta + k3 Delta^3).
SOFTIK_HD_INLINE Vec3 link_spring_force_on_b(const LinkParameters& p, const Vec3& xa, const Vec3& xb) {
  const Vec3 d = xb - xa;
  const Real l = d.norm();
  if (!(l > 0)) return Vec3::Zero();
  const Real Delta = l - p.L;
  return -((p.k + p.k3 * Delta * Delta) * Delta / l) * d;
}

/// The stored energy psi = k Delta^2 / 2 + k3 Delta^4 / 4.
SOFTIK_HD_INLINE Real link_energy(const LinkParameters& p, const Vec3& xa, const Vec3& xb) {
  const Real Delta = (xb - xa).norm() - p.L;
  const Real D2 = Delta * Delta;
  return Real(0.5) * p.k * D2 + Real(0.25) * p.k3 * D2 * D2;
}

/// The spring's tangent stiffness block H = d^2 psi / dx_b^2 (the 6x6 link matrix is
/// [H -H; -H H]).
SOFTIK_HD_INLINE Mat3 link_stiffness_block(const LinkParameters& p, const Vec3& xa, const Vec3& xb) {
  const Vec3 d = xb - xa;
  const Real l = d.norm();
  const Vec3 e = d / l;
  const Real Delta = l - p.L;
  const Real k_t = p.k + Real(3) * p.k3 * Delta * Delta;
  const Real s_el = p.k * Delta + p.k3 * Delta * Delta * Delta;
  const Mat3 eeT = e * e.transpose();
  return k_t * eeT + (s_el / l) * (Mat3::Identity() - eeT);
}

/// max(k_t, |s_el| / l): the spectral norm of link_stiffness_block, for the stable time step.
SOFTIK_HD_INLINE Real link_stiffness_norm(const LinkParameters& p, Real l) {
  const Real Delta = l - p.L;
  const Real k_t = p.k + Real(3) * p.k3 * Delta * Delta;
  const Real s_el = p.k * Delta + p.k3 * Delta * Delta * Delta;
  const Real geometric = s_el < 0 ? -s_el / l : s_el / l;
  return k_t > geometric ? k_t : geometric;
}

}  // namespace softik::fem
