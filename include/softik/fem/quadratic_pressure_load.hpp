// Uniform pressure on a curved 6-node triangle (Tri6, the face of a Tet10): consistent nodal
// follower forces, the face's share of the enclosed volume and the load stiffness.
// Host and device (SOFTIK_HD): fixed-size Eigen only, no allocation, no exceptions.
//
// Face nodes: corners p0, p1, p2, then the mid-nodes of the edges (0,1), (1,2), (2,0). On the
// reference triangle (xi, eta), with L0 = 1 - xi - eta, L1 = xi, L2 = eta:
//   corners   N_a = L_a (2 L_a - 1),     mid-nodes   N_3 = 4 L0 L1, N_4 = 4 L1 L2, N_5 = 4 L2 L0,
//   x(xi, eta) = sum_a N_a p_a,          a = x_xi x x_eta   (area vector per unit reference area).
// The winding convention is pressure_load.hpp's: a = (p1 - p0) x (p2 - p0) on a flat face, out of
// the cavity. Then, with P the pressure,
//   forces     f_a = P integral N_a a dxi deta                          (the consistent load),
//   volume     V_f = 1/3 integral x . a dxi deta                        (divergence theorem, x/3),
//   stiffness  d f_a / d p_b = P integral N_a (dN_b/deta skew(x_xi) - dN_b/dxi skew(x_eta)).
// x_xi and x_eta are linear, so a is quadratic: the integrands have degree 4 (forces, volume)
// and 3 (stiffness), and the 6-point rule of degree 4 below integrates them exactly. The volume
// of a closed surface of such faces is therefore the exact volume inside the quadratic surface,
// and f = P dV/dx, K = P d2V/dx2 once assembled over it (per face the two differ).
#pragma once

#include <Eigen/Geometry>  // cross(); must be visible to nvcc device code

#include "softik/fem/tensor.hpp"

namespace softik::fem {

using Mat18 = Eigen::Matrix<Real, 18, 18>;

/// The 6-point rule of degree 4 on the reference triangle (Dunavant 1985; Strang and Fix): the
/// permutations of (a, a, 1 - 2a) for two values of a; the weights sum to 1/2.
struct Tri6Rule {
  static constexpr int num_points = 6;
  SOFTIK_HD static void point(int q, Real& xi, Real& eta, Real& w) {
    const Real a = q < 3 ? 0.44594849091596488632 : 0.091576213509770743460;
    const Real weight = q < 3 ? 0.22338158967801146570 : 0.10995174365532186764;
    const int k = q % 3;  // which barycentric coordinate is 1 - 2a
    const Real b = 1 - 2 * a;
    xi = k == 1 ? b : a;
    eta = k == 2 ? b : a;
    w = weight / 2;
  }
};

/// Tri6 shape functions N_a(xi, eta) and their derivatives (see the file comment).
SOFTIK_HD_INLINE void tri6_shape(Real xi, Real eta, Real N[6], Real dxi[6], Real deta[6]) {
  const Real L0 = 1 - xi - eta, L1 = xi, L2 = eta;
  N[0] = L0 * (2 * L0 - 1);
  N[1] = L1 * (2 * L1 - 1);
  N[2] = L2 * (2 * L2 - 1);
  N[3] = 4 * L0 * L1;
  N[4] = 4 * L1 * L2;
  N[5] = 4 * L2 * L0;
  // dL0 = (-1, -1), dL1 = (1, 0), dL2 = (0, 1).
  dxi[0] = -(4 * L0 - 1);
  deta[0] = -(4 * L0 - 1);
  dxi[1] = 4 * L1 - 1;
  deta[1] = 0;
  dxi[2] = 0;
  deta[2] = 4 * L2 - 1;
  dxi[3] = 4 * (L0 - L1);
  deta[3] = -4 * L1;
  dxi[4] = 4 * L2;
  deta[4] = 4 * L1;
  dxi[5] = -4 * L2;
  deta[5] = 4 * (L0 - L2);
}

/// The face at quadrature point q of Tri6Rule: weight w, shape functions N and their
/// derivatives, the position x and its tangents x_xi, x_eta.
struct Tri6Point {
  Real w, N[6], dxi[6], deta[6];
  Vec3 x, x_xi, x_eta;
  SOFTIK_HD Tri6Point(const Vec3 p[6], int q) {
    Real xi, eta;
    Tri6Rule::point(q, xi, eta, w);
    tri6_shape(xi, eta, N, dxi, deta);
    x = x_xi = x_eta = Vec3::Zero();
    for (int a = 0; a < 6; ++a) {
      x += N[a] * p[a];
      x_xi += dxi[a] * p[a];
      x_eta += deta[a] * p[a];
    }
  }
};

/// Nodal pressure forces of Tri6 face p[0..5]: f_a = P integral N_a (x_xi x x_eta).
SOFTIK_HD_INLINE void tri6_pressure_forces(Real P, const Vec3 p[6], Vec3 f[6]) {
  for (int a = 0; a < 6; ++a) f[a].setZero();
  for (int q = 0; q < Tri6Rule::num_points; ++q) {
    const Tri6Point at(p, q);
    const Vec3 area = (P * at.w) * at.x_xi.cross(at.x_eta);
    for (int a = 0; a < 6; ++a) f[a] += at.N[a] * area;
  }
}

/// The face's share of the enclosed volume: V_f = 1/3 integral x . (x_xi x x_eta).
SOFTIK_HD_INLINE Real tri6_volume_contribution(const Vec3 p[6]) {
  Real V = 0;
  for (int q = 0; q < Tri6Rule::num_points; ++q) {
    const Tri6Point at(p, q);
    V += at.w * at.x.dot(at.x_xi.cross(at.x_eta));
  }
  return V / Real(3);
}

/// Load stiffness of one Tri6 face, K(3a+k, 3b+l) = d f_a[k] / d p_b[l] (unassembled, not
/// symmetric per face; symmetric once assembled over a closed surface):
///   d(x_xi x x_eta) / d p_b = dN_b/deta skew(x_xi) - dN_b/dxi skew(x_eta).
SOFTIK_HD_INLINE void tri6_pressure_stiffness(Real P, const Vec3 p[6], Mat18& K) {
  K.setZero();
  for (int q = 0; q < Tri6Rule::num_points; ++q) {
    const Tri6Point at(p, q);
    const Mat3 S_xi = skew(at.x_xi), S_eta = skew(at.x_eta);
    for (int b = 0; b < 6; ++b) {
      const Mat3 D = at.deta[b] * S_xi - at.dxi[b] * S_eta;
      for (int a = 0; a < 6; ++a) K.block<3, 3>(3 * a, 3 * b) += (P * at.w * at.N[a]) * D;
    }
  }
}

}  // namespace softik::fem
