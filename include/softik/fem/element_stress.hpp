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

/// Consistent mass of one element, per node pair (the same for every component):
///   M_ab = rho * integral(N_a N_b dV) = rho * sum_q w_q detJ_q N_a(xi_q) N_b(xi_q)
/// over the trait's mass rule. det J is constant on an affine element (taken from the stiffness
/// rule's w detJ); a non-affine element's mass rule is its stiffness rule unless it has its own
/// (E::own_mass_rule: det J kept per mass point in RestData::mass_detJ).
template <class E>
SOFTIK_HD Eigen::Matrix<Real, E::num_nodes, E::num_nodes> element_consistent_mass(const RestData<E>& rest,
                                                                                  Real density) {
  static_assert(E::affine || E::own_mass_rule || E::num_mass_quad == E::num_quad,
                "a non-affine element's mass rule is its stiffness rule or its own");
  Eigen::Matrix<Real, E::num_nodes, E::num_nodes> m = Eigen::Matrix<Real, E::num_nodes, E::num_nodes>::Zero();
  for (int q = 0; q < E::num_mass_quad; ++q) {
    Real detJ;
    if constexpr (E::own_mass_rule)
      detJ = rest.mass_detJ[q];
    else
      detJ = E::affine ? rest.w_detJ[0] / E::quad_weight(0) : rest.w_detJ[q] / E::quad_weight(q);
    const Eigen::Matrix<Real, E::num_nodes, 1> N = E::N(E::mass_quad_point(q));
    m += (density * E::mass_quad_weight(q) * detJ) * (N * N.transpose());
  }
  return m;
}

/// Consistent nodal integral rho * integral(N_a dV) (the nodal share of a uniform body force,
/// e.g. gravity): the row sums of the consistent mass. Negative at the corners of a quadratic
/// tetrahedron (-1/20 of the cell's mass each), which is right for a load, wrong for a mass.
template <class E>
SOFTIK_HD Eigen::Matrix<Real, E::num_nodes, 1> element_nodal_integral(const RestData<E>& rest, Real density) {
  if constexpr (E::own_mass_rule) {
    return element_consistent_mass<E>(rest, density).rowwise().sum();
  } else {
    Eigen::Matrix<Real, E::num_nodes, 1> m = Eigen::Matrix<Real, E::num_nodes, 1>::Zero();
    for (int q = 0; q < E::num_quad; ++q) m += (density * rest.w_detJ[q]) * E::N(E::quad_point(q));
    return m;
  }
}

/// Lumped mass of one element, positive on every node: for linear elements the row sum
/// rho * integral(N_a dV); for quadratic ones (E::order == 2, whose row sums are negative at the
/// corners) the HRZ lumping of Hinton, Rock and Zienkiewicz (1976): the consistent mass's
/// diagonal scaled to the element's total mass, m_a = M_aa * m / sum_b M_bb.
template <class E>
SOFTIK_HD Eigen::Matrix<Real, E::num_nodes, 1> element_lumped_mass(const RestData<E>& rest, Real density) {
  if constexpr (E::order == 2) {
    const Eigen::Matrix<Real, E::num_nodes, E::num_nodes> M = element_consistent_mass<E>(rest, density);
    const Eigen::Matrix<Real, E::num_nodes, 1> diag = M.diagonal();
    const Real trace = diag.sum();
    return trace > 0 ? Eigen::Matrix<Real, E::num_nodes, 1>(diag * (M.sum() / trace)) : diag;
  } else {
    return element_nodal_integral<E>(rest, density);
  }
}

}  // namespace softik::fem
