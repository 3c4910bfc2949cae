// Generic kinematics over any element trait E (element_traits.hpp), in any dimension.
//
// Rest data per quadrature point q (precomputed once, docs/method.md section 1):
//   J_q     = X^T dN/dxi(xi_q)            (dim x dim Jacobian of the reference map)
//   dN_dX_q = dN/dxi(xi_q) J_q^{-1}       (row a = gradient of N_a in material coordinates)
//   w_detJ_q = w_q det J_q
// Deformation gradient at q for current nodal positions x (num_nodes x dim, row a = x_a):
//   F_q = x^T dN_dX_q = sum_a x_a (dN_a/dX)^T
// Materials are written in 3D; lower-dimensional elements embed F as plane strain (2D:
// F_33 = 1) or uniaxial strain (1D: F_22 = F_33 = 1). See embed()/restrict_*().
#pragma once

#include <Eigen/LU>  // fixed-size inverse() and determinant()

#include "softik/fem/element_traits.hpp"
#include "softik/fem/tensor.hpp"

namespace softik::fem {

template <class E>
using NodeMatrix = Eigen::Matrix<Real, E::num_nodes, E::dim>;  ///< row a = coordinates of node a
template <class E>
using ElementVector = Eigen::Matrix<Real, E::num_nodes * E::dim, 1>;  ///< index a*dim + i
template <class E>
using ElementMatrix = Eigen::Matrix<Real, E::num_nodes * E::dim, E::num_nodes * E::dim>;

/// Rest-state data of one element (structure of one element; host/device arrays hold many).
template <class E>
struct RestData {
  NodeMatrix<E> dN_dX[E::num_quad];  ///< material gradients of the shape functions at each q
  Real w_detJ[E::num_quad];          ///< quadrature weight times det J at each q
  NodeMatrix<E> dN_dX_center;        ///< material gradients at E::center() (corotational frame)
  /// det J at the mass rule's points when the element has its own mass rule (E::own_mass_rule),
  /// else unused.
  Real mass_detJ[E::own_mass_rule ? E::num_mass_quad : 1];
};

/// Fills `r` from the rest positions X. Returns the smallest det J over the quadrature points,
/// the centre and the nodes; a non-positive value means an inverted or degenerate element, which the
/// caller must report (device code never throws).
template <class E>
SOFTIK_HD Real compute_rest_data(const NodeMatrix<E>& X, RestData<E>& r) {
  constexpr int d = E::dim;
  Real min_detJ = 1e300;
  for (int q = 0; q <= E::num_quad; ++q) {
    const bool at_center = (q == E::num_quad);
    const typename E::Xi xi = at_center ? E::center() : E::quad_point(q);
    const Eigen::Matrix<Real, E::num_nodes, d> dN_dxi = E::dN(xi);
    const MatD<d> J = X.transpose() * dN_dxi;
    const Real detJ = J.determinant();
    if (detJ < min_detJ) min_detJ = detJ;
    if (!(detJ > 0)) {  // reported through the return value; leave defined zeros behind
      if (at_center) {
        r.dN_dX_center.setZero();
      } else {
        r.dN_dX[q].setZero();
        r.w_detJ[q] = 0;
      }
      continue;
    }
    const MatD<d> J_inv = J.inverse();
    if (at_center) {
      r.dN_dX_center = dN_dxi * J_inv;
    } else {
      r.dN_dX[q] = dN_dxi * J_inv;
      r.w_detJ[q] = E::quad_weight(q) * detJ;
    }
  }
  // Also at the nodes: a concave quadrilateral/hexahedron can have det J > 0 at every Gauss
  // point and still fold over near a corner (and a curved quadratic cell near a mid-node).
  for (int a = 0; a < E::num_nodes; ++a) {
    const Real detJ = (X.transpose() * E::dN(E::reference_node(a))).determinant();
    if (detJ < min_detJ) min_detJ = detJ;
  }
  if constexpr (E::own_mass_rule) {
    for (int q = 0; q < E::num_mass_quad; ++q) {
      const Real detJ = (X.transpose() * E::dN(E::mass_quad_point(q))).determinant();
      if (detJ < min_detJ) min_detJ = detJ;
      r.mass_detJ[q] = detJ > 0 ? detJ : Real(0);
    }
  } else {
    r.mass_detJ[0] = 0;
  }
  return min_detJ;
}

/// F = x^T dN_dX.
template <class E>
SOFTIK_HD MatD<E::dim> deformation_gradient(const NodeMatrix<E>& x, const NodeMatrix<E>& dN_dX) {
  return x.transpose() * dN_dX;
}

/// Embeds a dim x dim deformation gradient into 3x3 (plane strain / uniaxial strain: the
/// out-of-plane stretch is 1).
template <int d>
SOFTIK_HD Mat3 embed(const MatD<d>& F) {
  Mat3 F3 = Mat3::Identity();
  F3.template topLeftCorner<d, d>() = F;
  return F3;
}

/// In-plane block of a 3x3 stress.
template <int d>
SOFTIK_HD MatD<d> restrict_stress(const Mat3& P) {
  return P.template topLeftCorner<d, d>();
}

/// Component dP(i,J)/dF(k,L) of a 9x9 tangent (tensor.hpp layout).
SOFTIK_HD_INLINE Real tangent_entry(const Mat9& dPdF, int i, int J, int k, int L) {
  return dPdF(flat(i, J), flat(k, L));
}

}  // namespace softik::fem
