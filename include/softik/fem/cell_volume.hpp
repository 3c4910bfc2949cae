// The volume of a Tet4 or Hex8 cell as a function of its node positions, its derivatives, and
// the volume-preserving energy of node networks (docs/method.md section 12.2) built on it. Host
// and device (SOFTIK_HD): fixed-size Eigen only, no allocation, no exceptions.
//
// Positions are passed as an array x[0 .. num_nodes) of Vec3 in VTK order. Every function
// works on x_a - x_0, so results do not lose digits to the distance from the origin.
//
// Tet4: V = (x1 - x0) . ((x2 - x0) x (x3 - x0)) / 6. V is alternating in its nodes, so with
//   (b, a, c, d) an even permutation of (0, 1, 2, 3),
//     dV/dx_a = (x_c - x_b) x (x_d - x_b) / 6 = (x_b x x_c + x_c x x_d + x_d x x_b) / 6,
//   and the Hessian blocks d2V/dx_a dx_e are skew: for (b, c, d) as above
//     d2V/dx_a dx_b = skew(x_d - x_c)/6,  d2V/dx_a dx_c = skew(x_b - x_d)/6,
//     d2V/dx_a dx_d = skew(x_c - x_b)/6,  d2V/dx_a^2 = 0.
// Hex8 (trilinear): by the divergence theorem over its six bilinear faces (wound outward),
//   V = sum_faces Q(face),  Q(a, b, c, d) = [T(a,b,c) + T(a,c,d) + T(b,c,d) + T(b,d,a)] / 2,
//   T(p, q, r) = p . (q x r) / 6 (pressure_load.hpp's quad_volume_contribution: the exact volume
//   under a bilinear patch, also when it is not planar). Q is invariant under a cyclic shift of
//   its vertices, so at any vertex a of a face, with (a, b, c, d) the face read from a,
//     dQ/da = (b x c + c x d + b x d) / 12,
//     d2Q/da db = -skew(c + d)/12,  d2Q/da dc = skew(b - d)/12,  d2Q/da dd = skew(b + c)/12,
//   and dV/dx_a, d2V/dx_a dx_e are the sums over the faces that hold a (and e). Each node lies on
//   three faces; nodes on no common face (body diagonals) have a zero block.
// Both cells' Hessian blocks are skew, d2V/dx_a dx_e = skew(w_ae): cell_hessian_axial returns
// w_ae, whose length is the block's spectral norm.
//
// Volume term (per cell, stiffness kappa (Pa), rest volume V0 > 0):
//   W = kappa/2 (V - V0)^2 / V0,
//   dW/dx_a = p g_a with p = kappa (V - V0) / V0 and g_a = dV/dx_a  (the force on a is -p g_a),
//   d2W/dx_a dx_e = kappa/V0 g_a g_e^T + p skew(w_ae).
// Under a uniform small strain eps (V = V0 (1 + tr eps)) W = kappa (tr eps)^2 V0 / 2: the term
// adds kappa to the Lame constant lambda (to C11 and C12) and nothing to the shear modulus.
#pragma once

#include <Eigen/Geometry>  // cross(); must be visible to nvcc device code

#include "softik/fem/pressure_load.hpp"
#include "softik/fem/tensor.hpp"

namespace softik::fem {

/// The 4-node tetrahedron (VTK order, positive volume when (x1-x0, x2-x0, x3-x0) is right-handed).
struct Tet4Volume {
  static constexpr int num_nodes = 4;

  /// (b, c, d) with (b, a, c, d) an even permutation of (0, 1, 2, 3).
  SOFTIK_HD static int other(int a, int k) {
    const int t[4][3] = {{1, 3, 2}, {0, 2, 3}, {3, 1, 0}, {2, 0, 1}};
    return t[a][k];
  }

  /// V = (x1 - x0) . ((x2 - x0) x (x3 - x0)) / 6.
  SOFTIK_HD static Real volume(const Vec3* x) { return (x[1] - x[0]).dot((x[2] - x[0]).cross(x[3] - x[0])) / Real(6); }

  /// dV/dx_a = (x_c - x_b) x (x_d - x_b) / 6.
  SOFTIK_HD static Vec3 gradient(const Vec3* x, int a) {
    const Vec3& xb = x[other(a, 0)];
    return (x[other(a, 1)] - xb).cross(x[other(a, 2)] - xb) / Real(6);
  }

  /// w with d2V/dx_a dx_e = skew(w): for e the k-th of (b, c, d), w = (x_{k+2} - x_{k+1}) / 6
  /// (indices of (b, c, d) taken cyclically); zero for e = a.
  SOFTIK_HD static Vec3 hessian_axial(const Vec3* x, int a, int e) {
    for (int k = 0; k < 3; ++k)
      if (other(a, k) == e) return (x[other(a, (k + 2) % 3)] - x[other(a, (k + 1) % 3)]) / Real(6);
    return Vec3::Zero();
  }
};

/// The 8-node trilinear hexahedron (VTK order: 0-3 the bottom loop, 4-7 the top loop above them).
struct Hex8Volume {
  static constexpr int num_nodes = 8;

  /// Vertex v (0..3) of face f (0..5), wound so that the face normal points out of the cell.
  SOFTIK_HD static int face_vertex(int f, int v) {
    const int faces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
    return faces[f][v];
  }

  /// V = sum over the faces of Q(face) (positions relative to x0).
  SOFTIK_HD static Real volume(const Vec3* x) {
    Real V = 0;
    for (int f = 0; f < 6; ++f)
      V += quad_volume_contribution(x[face_vertex(f, 0)] - x[0], x[face_vertex(f, 1)] - x[0],
                                    x[face_vertex(f, 2)] - x[0], x[face_vertex(f, 3)] - x[0]);
    return V;
  }

  /// dV/dx_a = sum over the faces holding a of (b x c + c x d + b x d) / 12, (a, b, c, d) the face
  /// read from a.
  SOFTIK_HD static Vec3 gradient(const Vec3* x, int a) {
    Vec3 g = Vec3::Zero();
    for (int f = 0; f < 6; ++f)
      for (int j = 0; j < 4; ++j) {
        if (face_vertex(f, j) != a) continue;
        const Vec3 b = x[face_vertex(f, (j + 1) % 4)] - x[0], c = x[face_vertex(f, (j + 2) % 4)] - x[0],
                   d = x[face_vertex(f, (j + 3) % 4)] - x[0];
        g += (b.cross(c) + c.cross(d) + b.cross(d)) / Real(12);
      }
    return g;
  }

  /// w with d2V/dx_a dx_e = skew(w): the sum over the faces holding a and e of -(c + d)/12 (e = b),
  /// (b - d)/12 (e = c) or (b + c)/12 (e = d), (a, b, c, d) the face read from a.
  SOFTIK_HD static Vec3 hessian_axial(const Vec3* x, int a, int e) {
    Vec3 w = Vec3::Zero();
    if (a == e) return w;
    for (int f = 0; f < 6; ++f)
      for (int j = 0; j < 4; ++j) {
        if (face_vertex(f, j) != a) continue;
        const int nb = face_vertex(f, (j + 1) % 4), nc = face_vertex(f, (j + 2) % 4), nd = face_vertex(f, (j + 3) % 4);
        const Vec3 b = x[nb] - x[0], c = x[nc] - x[0], d = x[nd] - x[0];
        if (e == nb)
          w -= (c + d) / Real(12);
        else if (e == nc)
          w += (b - d) / Real(12);
        else if (e == nd)
          w += (b + c) / Real(12);
      }
    return w;
  }
};

/// W = kappa/2 (V - V0)^2 / V0 at the cell's current volume V.
SOFTIK_HD_INLINE Real volume_term_energy(Real kappa, Real V0, Real V) {
  const Real dV = V - V0;
  return Real(0.5) * kappa * dV * dV / V0;
}

/// p = dW/dV = kappa (V - V0) / V0 (a pressure, Pa; positive when the cell is dilated).
SOFTIK_HD_INLINE Real volume_term_pressure(Real kappa, Real V0, Real V) { return kappa * (V - V0) / V0; }

/// The force on node a of the cell, -dW/dx_a = -p dV/dx_a.
template <class Cell>
SOFTIK_HD Vec3 volume_term_force(Real kappa, Real V0, const Vec3* x, int a) {
  return -volume_term_pressure(kappa, V0, Cell::volume(x)) * Cell::gradient(x, a);
}

/// The full Hessian of W, H(3a + k, 3e + l) = d2W / dx_a[k] dx_e[l] (node-major, as kinematics.hpp):
///   H_ae = kappa/V0 g_a g_e^T + p skew(w_ae). Symmetric; indefinite when p != 0. This is the
/// stiffness of the cell's internal force (the tangent of a residual f_int - f_ext).
template <class Cell>
SOFTIK_HD void volume_term_hessian(Real kappa, Real V0, const Vec3* x,
                                   Eigen::Matrix<Real, 3 * Cell::num_nodes, 3 * Cell::num_nodes>& H) {
  constexpr int n = Cell::num_nodes;
  const Real p = volume_term_pressure(kappa, V0, Cell::volume(x));
  Vec3 g[n];
  for (int a = 0; a < n; ++a) g[a] = Cell::gradient(x, a);
  for (int a = 0; a < n; ++a)
    for (int e = 0; e < n; ++e)
      H.template block<3, 3>(3 * a, 3 * e) =
          (kappa / V0) * g[a] * g[e].transpose() + p * skew(Cell::hessian_axial(x, a, e));
}

/// A bound of the block row a of that Hessian for the stable time step (block Gershgorin):
///   sum_e ||H_ae||_2 <= kappa/V0 |g_a| sum_e |g_e| + |p| sum_e |w_ae|   (||skew(w)||_2 = |w|).
template <class Cell>
SOFTIK_HD Real volume_term_row_bound(Real kappa, Real V0, const Vec3* x, int a) {
  const Real p = volume_term_pressure(kappa, V0, Cell::volume(x));
  Real sum_g = 0, sum_w = 0;
  for (int e = 0; e < Cell::num_nodes; ++e) {
    sum_g += Cell::gradient(x, e).norm();
    sum_w += Cell::hessian_axial(x, a, e).norm();
  }
  return kappa / V0 * Cell::gradient(x, a).norm() * sum_g + (p < 0 ? -p : p) * sum_w;
}

}  // namespace softik::fem
