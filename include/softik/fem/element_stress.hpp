// Per-element stress output (host and device).
//   hyperelastic: Cauchy sigma = J^{-1} P F^T at each quadrature point
//   linear small strain: sigma = P_lin(F) (no distinction between stress measures)
//   corotational: sigma^ = P_lin(R^T F) in the element frame; von Mises is rotation invariant,
//                 so it is evaluated there
// and the element's von Mises value is the mean over its quadrature points.
#pragma once

#include <type_traits>

#include "softik/fem/kinematics.hpp"
#include "softik/fem/materials/linear_elastic.hpp"
#include "softik/fem/rotation.hpp"
#include "softik/fem/stress_measures.hpp"

namespace softik::fem {

template <class E, class M>
SOFTIK_HD Real element_von_mises(const M& material, const RestData<E>& rest, const NodeMatrix<E>& x, bool corotational,
                                 RotationMethod method) {
  constexpr int d = E::dim;
  constexpr bool small_strain = std::is_same<M, LinearElastic>::value;
  NodeMatrix<E> x_frame = x;
  if (small_strain && corotational)
    x_frame = x * extract_rotation<d>(deformation_gradient<E>(x, rest.dN_dX_center), method).R;
  Real sum = 0;
  for (int q = 0; q < E::num_quad; ++q) {
    const Mat3 F = embed<d>(deformation_gradient<E>(x_frame, rest.dN_dX[q]));
    const Mat3 P = material.P(F);
    sum += von_mises(small_strain ? P : cauchy_from_pk1(F, P));
  }
  return sum / E::num_quad;
}

/// Row-sum lumped mass of one element: m_a = rho * sum_q w_q detJ_q N_a(xi_q).
template <class E>
SOFTIK_HD Eigen::Matrix<Real, E::num_nodes, 1> element_lumped_mass(const RestData<E>& rest, Real density) {
  Eigen::Matrix<Real, E::num_nodes, 1> m = Eigen::Matrix<Real, E::num_nodes, 1>::Zero();
  for (int q = 0; q < E::num_quad; ++q) m += (density * rest.w_detJ[q]) * E::N(E::quad_point(q));
  return m;
}

/// Consistent mass of one element, per node pair (the same for every component):
///   M_ab = rho * integral(N_a N_b dV) = rho * sum_q w_q detJ_q N_a(xi_q) N_b(xi_q)
/// over the trait's mass rule. det J is constant on an affine element (taken from the stiffness
/// rule's w detJ); a non-affine element's mass rule is its stiffness rule.
template <class E>
SOFTIK_HD Eigen::Matrix<Real, E::num_nodes, E::num_nodes> element_consistent_mass(const RestData<E>& rest, Real density) {
  static_assert(E::affine || E::num_mass_quad == E::num_quad, "a non-affine element's mass rule is its stiffness rule");
  Eigen::Matrix<Real, E::num_nodes, E::num_nodes> m = Eigen::Matrix<Real, E::num_nodes, E::num_nodes>::Zero();
  for (int q = 0; q < E::num_mass_quad; ++q) {
    const Real detJ = E::affine ? rest.w_detJ[0] / E::quad_weight(0) : rest.w_detJ[q] / E::quad_weight(q);
    const Eigen::Matrix<Real, E::num_nodes, 1> N = E::N(E::mass_quad_point(q));
    m += (density * E::mass_quad_weight(q) * detJ) * (N * N.transpose());
  }
  return m;
}

}  // namespace softik::fem
