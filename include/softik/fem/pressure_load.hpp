// Uniform pressure on a cavity wall: nodal follower forces, cavity volume and its first and
// second derivatives, per triangle (docs/method.md section 6; [6], and [7] for the actuator
// Jacobian column). Host and device (SOFTIK_HD): fixed-size Eigen only, no allocation, no exceptions.
//
// Orientation convention (used by every function here)
// ----------------------------------------------------
// A cavity wall triangle (p1, p2, p3) must be wound so that its winding normal
//   n = (p2 - p1) x (p3 - p1)          (|n| = 2 * area)
// points OUT of the enclosed cavity volume, i.e. from the fluid into the surrounding material.
// Then
//   - a positive pressure P > 0 (inflation) gives nodal forces f_i = +P/6 n that push the wall
//     along n: away from the enclosed volume, into the material;
//   - the summed signed volumes sum_t p1 . (p2 x p3) / 6 are the (positive) cavity volume V;
//   - for a closed cavity the assembled forces are f = P dV/dx (the load is conservative and
//     positive pressure does positive work when the cavity grows).
// Caution: softik::boundary_surface() winds faces with normals pointing out of the BODY. The
// wall of an internal cavity, taken from the body's boundary, therefore points INTO the
// cavity: reverse those faces (swap p2 and p3) or, equivalently, negate P and V.
//
// Element vectors and matrices use the node-major layout of kinematics.hpp: index 3*a + k for
// component k of node a (a = 0, 1, 2 for p1, p2, p3).
//
// Quads (a, b, c, d) are split into triangles keeping the quad's winding ([6] section I),
// along BOTH diagonals with half the pressure each: (a, b, c) + (a, c, d) and (b, c, d) +
// (b, d, a). The average is the consistent load of the bilinear face, f_a = P integral N_a n dA
// (P A/4 per node on a flat parallelogram), and its volume contribution is the exact volume under
// the bilinear patch, also when the quad is not planar. A single split along a-c would lump
// P A/3 on a and c and P A/6 on b and d: the excess cancels between neighbouring quads but not at
// the rim of an open loaded patch, where it costs a first-order nodal error (measured on the
// thick-walled cylinder and sphere of tests/loads/test_lame.cpp: max error order ~1.0 instead of ~2).
#pragma once

#include <Eigen/Geometry>  // cross(); must be visible to nvcc device code

#include "softik/fem/tensor.hpp"

namespace softik::fem {

/// Nodal forces of a uniform pressure P on triangle (p1, p2, p3) (docs/method.md section 6; [6] eq. 5):
///   f1 = f2 = f3 = P/6 (p2 - p1) x (p3 - p1) = P * area / 3 * unit normal.
/// With the winding convention above (n out of the cavity), P > 0 pushes the wall outward,
/// away from the enclosed volume. Summed per node over the wall and divided by P, these are the
/// actuator Jacobian column J_i = sum_{t containing i} n_t a_t / 3 (docs/method.md section 6; [7]).
SOFTIK_HD_INLINE void triangle_pressure_forces(Real P, const Vec3& p1, const Vec3& p2, const Vec3& p3, Vec3& f1,
                                               Vec3& f2, Vec3& f3) {
  const Vec3 f = (P / Real(6)) * (p2 - p1).cross(p3 - p1);
  f1 = f;
  f2 = f;
  f3 = f;
}

/// Derivative of the nodal pressure forces of one triangle with respect to its node
/// positions (follower-load stiffness, unassembled): K(3a+k, 3b+l) = d f_a[k] / d p_b[l].
/// Since f_a = P/6 (p1 x p2 + p2 x p3 + p3 x p1) for every a,
///   d f_a / d p1 = P/6 skew(p3 - p2),  d f_a / d p2 = P/6 skew(p1 - p3),
///   d f_a / d p3 = P/6 skew(p2 - p1).
/// Not symmetric for a single triangle (its diagonal blocks are skew). Assembled over a
/// closed cavity it equals P d2V/dx2 (see triangle_volume_hessian) and is symmetric.
/// This is the matrix of d f / d x; the tangent stiffness of a residual r = f_int - f_ext
/// receives -K.
SOFTIK_HD_INLINE void triangle_pressure_stiffness(Real P, const Vec3& p1, const Vec3& p2, const Vec3& p3, Mat9& K) {
  const Real c = P / Real(6);
  const Mat3 B[3] = {c * skew(p3 - p2), c * skew(p1 - p3), c * skew(p2 - p1)};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) K.block<3, 3>(3 * a, 3 * b) = B[b];
}

/// Signed volume of the tetrahedron (origin, p1, p2, p3): V_t = p1 . (p2 x p3) / 6.
/// Summed over a closed surface wound outward from the enclosed region this is the enclosed
/// volume (divergence theorem with the field x/3), independent of the origin.
SOFTIK_HD_INLINE Real triangle_volume_contribution(const Vec3& p1, const Vec3& p2, const Vec3& p3) {
  return p1.dot(p2.cross(p3)) / Real(6);
}

/// Gradient of V_t: g1 = (p2 x p3)/6, g2 = (p3 x p1)/6, g3 = (p1 x p2)/6.
/// Individually these depend on the origin and differ from the pressure forces / P, but
/// summed per node over a CLOSED surface they equal the actuator Jacobian column
/// J_i = sum_t n_t a_t / 3, and P * (assembled gradient) equals the assembled nodal pressure
/// forces (f = P dV/dx).
SOFTIK_HD_INLINE void triangle_volume_gradient(const Vec3& p1, const Vec3& p2, const Vec3& p3, Vec3& g1, Vec3& g2,
                                               Vec3& g3) {
  g1 = p2.cross(p3) / Real(6);
  g2 = p3.cross(p1) / Real(6);
  g3 = p1.cross(p2) / Real(6);
}

/// Hessian of V_t, H(3a+k, 3b+l) = d2 V_t / d p_a[k] d p_b[l]. Diagonal blocks are zero, the
/// off-diagonal blocks are skew cross-product matrices:
///   H12 = -skew(p3)/6, H13 = +skew(p2)/6, H23 = -skew(p1)/6, H_ba = H_ab^T = -H_ab.
/// As the Hessian of a scalar it is symmetric per triangle; assembled and multiplied by P it is
/// the (symmetric) follower-load stiffness P d2V/dx2 of a closed cavity, which equals the
/// assembly of triangle_pressure_stiffness (per triangle the two differ; only the sums agree).
SOFTIK_HD_INLINE void triangle_volume_hessian(const Vec3& p1, const Vec3& p2, const Vec3& p3, Mat9& H) {
  const Real c = Real(1) / Real(6);
  const Mat3 H12 = -c * skew(p3);
  const Mat3 H13 = c * skew(p2);
  const Mat3 H23 = -c * skew(p1);
  H.setZero();
  H.block<3, 3>(0, 3) = H12;
  H.block<3, 3>(3, 0) = -H12;
  H.block<3, 3>(0, 6) = H13;
  H.block<3, 3>(6, 0) = -H13;
  H.block<3, 3>(3, 6) = H23;
  H.block<3, 3>(6, 3) = -H23;
}

// ---------------------------------------------------------------------------------------------
// Quads: the average of the two diagonal splits (see the header comment).

/// Local vertex indices (0..3 into a, b, c, d) of triangle `t` (0..3) of the quad's two splits:
/// t = 0 -> (0, 1, 2), t = 1 -> (0, 2, 3) (diagonal a-c); t = 2 -> (1, 2, 3), t = 3 -> (1, 3, 0)
/// (diagonal b-d). Each carries weight 1/2.
SOFTIK_HD_INLINE int quad_split_vertex(int t, int v) {
  const int first = t < 2 ? 0 : 1;  // the diagonal's first vertex
  const int offset = (t % 2 == 0) ? v : (v == 0 ? 0 : v + 1);
  return (first + offset) % 4;
}

/// Splits the node indices of a quad (a, b, c, d) along the diagonal a-c into t0 = (a, b, c) and
/// t1 = (a, c, d) (the topology: edges and winding; loads use both diagonals).
SOFTIK_HD_INLINE void split_quad(int a, int b, int c, int d, int t0[3], int t1[3]) {
  t0[0] = a;
  t0[1] = b;
  t0[2] = c;
  t1[0] = a;
  t1[1] = c;
  t1[2] = d;
}

/// Nodal pressure forces of quad (pa, pb, pc, pd): half of triangle_pressure_forces over each of
/// (a, b, c), (a, c, d), (b, c, d), (b, d, a): f_a = P integral N_a n dA of the bilinear face.
SOFTIK_HD_INLINE void quad_pressure_forces(Real P, const Vec3& pa, const Vec3& pb, const Vec3& pc, const Vec3& pd,
                                           Vec3& fa, Vec3& fb, Vec3& fc, Vec3& fd) {
  const Vec3* p[4] = {&pa, &pb, &pc, &pd};
  Vec3* f[4] = {&fa, &fb, &fc, &fd};
  for (int a = 0; a < 4; ++a) f[a]->setZero();
  for (int t = 0; t < 4; ++t) {
    const int i = quad_split_vertex(t, 0), j = quad_split_vertex(t, 1), k = quad_split_vertex(t, 2);
    Vec3 f1, f2, f3;
    triangle_pressure_forces(P / Real(2), *p[i], *p[j], *p[k], f1, f2, f3);
    *f[i] += f1;
    *f[j] += f2;
    *f[k] += f3;
  }
}

/// Signed volume contribution of quad (pa, pb, pc, pd): the mean of its two splits, the exact
/// volume of the cone from the origin to the bilinear patch.
SOFTIK_HD_INLINE Real quad_volume_contribution(const Vec3& pa, const Vec3& pb, const Vec3& pc, const Vec3& pd) {
  return (triangle_volume_contribution(pa, pb, pc) + triangle_volume_contribution(pa, pc, pd) +
          triangle_volume_contribution(pb, pc, pd) + triangle_volume_contribution(pb, pd, pa)) /
         Real(2);
}

/// Gradient of quad_volume_contribution with respect to (pa, pb, pc, pd).
SOFTIK_HD_INLINE void quad_volume_gradient(const Vec3& pa, const Vec3& pb, const Vec3& pc, const Vec3& pd, Vec3& ga,
                                           Vec3& gb, Vec3& gc, Vec3& gd) {
  const Vec3* p[4] = {&pa, &pb, &pc, &pd};
  Vec3* g[4] = {&ga, &gb, &gc, &gd};
  for (int a = 0; a < 4; ++a) g[a]->setZero();
  for (int t = 0; t < 4; ++t) {
    const int i = quad_split_vertex(t, 0), j = quad_split_vertex(t, 1), k = quad_split_vertex(t, 2);
    Vec3 g1, g2, g3;
    triangle_volume_gradient(*p[i], *p[j], *p[k], g1, g2, g3);
    *g[i] += g1 / Real(2);
    *g[j] += g2 / Real(2);
    *g[k] += g3 / Real(2);
  }
}

}  // namespace softik::fem
