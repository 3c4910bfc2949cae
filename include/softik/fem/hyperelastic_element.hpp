// Total-Lagrangian element for any element trait E and any material M (also the linear
// small-strain formulation, which is this element with M = LinearElastic).
//
// Energy  E_e = sum_q w_q detJ_q psi(F_q)
// Elastic nodal force (the force the element exerts on its nodes, = -dE_e/dx):
//   f_a,i = - sum_q w_q detJ_q sum_J P_iJ(F_q) dN_a/dX_J
// Tangent stiffness K = d^2 E_e / dx^2 = -df/dx:
//   K_(a i)(b k) = sum_q w_q detJ_q sum_{J,L} dN_a/dX_J dP_iJ/dF_kL dN_b/dX_L
// built by a stiffness strategy (stiffness_strategies.hpp: dP/dF, S and CC, or the law's closed
// form), the same K to round-off. F is embedded in 3D as plane/uniaxial strain for 1D and 2D
// elements (kinematics.hpp). A point with det F <= 0 adds nothing unless the law tolerates
// inversion (law_capabilities.hpp).
#pragma once

#include "softik/fem/kinematics.hpp"
#include "softik/fem/law_capabilities.hpp"
#include "softik/fem/materials/linear_elastic.hpp"
#include "softik/fem/stiffness_strategies.hpp"

namespace softik::fem {

/// Outputs of one element evaluation; a null pointer skips that output.
template <class E>
struct ElementOutputs {
  Real* energy = nullptr;                 ///< accumulated (+=)
  ElementVector<E>* force = nullptr;      ///< overwritten: elastic force on the nodes, -dE/dx
  ElementMatrix<E>* stiffness = nullptr;  ///< overwritten: d^2E/dx^2
};

/// The elastic force of one point added to the nodes' forces, f_a,i -= w sum_J P_iJ dN_a/dX_J
/// (force(a, i): component i of node a), for a scalar or lanes T (lane_ops.hpp).
template <int n, int d, class T, class MP, class DN, class Force>
SOFTIK_HD_INLINE void add_point_force(const MP& P, const DN& dN_dX, const T& w, Force&& force) {
  for (int a = 0; a < n; ++a)
    for (int i = 0; i < d; ++i) {
      T g = dN_dX(a, 0) * P(i, 0);
      for (int J = 1; J < d; ++J) g = g + dN_dX(a, J) * P(i, J);
      force(a, i) = force(a, i) - w * g;
    }
}

/// Returns the smallest det F over the quadrature points (<= 0: the cell is inverted in x; the
/// caller decides whether the law tolerates that, see tolerates_inversion). `Stiffness`: how K is
/// built (stiffness_strategies.hpp; the CPU's choice by default).
template <class E, class M, class Stiffness = HostStiffness<M, E::dim>>
SOFTIK_HD Real hyperelastic_element(const M& material, const RestData<E>& rest, const NodeMatrix<E>& x,
                                    ElementOutputs<E> out) {
  static_assert(Stiffness::template applies<M, E::dim>, "this stiffness strategy does not serve this law and element");
  constexpr int d = E::dim, n = E::num_nodes;
  if (out.force) out.force->setZero();
  typename Stiffness::template Cell<E, M> stiffness;
  if (out.stiffness) stiffness.begin(*out.stiffness);
  Real min_detF = 1e300;
  for (int q = 0; q < E::num_quad; ++q) {
    const NodeMatrix<E>& dN_dX = rest.dN_dX[q];
    const Real w = rest.w_detJ[q];
    const Mat3 F = embed<d>(deformation_gradient<E>(x, dN_dX));
    const Real detF = F.determinant();
    if (detF < min_detF) min_detF = detF;
    if (!(detF > 0) && !tolerates_inversion<M>::value) continue;  // psi, P undefined (log J)
    if (out.energy) *out.energy += w * material.psi(F);
    if (!out.force && !out.stiffness) continue;
    // P from the strategy's evaluation when K is wanted (one evaluation of the law per point).
    const MatD<d> P =
        out.stiffness ? stiffness.point(material, F, dN_dX, w, *out.stiffness) : restrict_stress<d>(material.P(F));
    if (out.force) add_point_force<n, d>(P, dN_dX, w, [&](int a, int i) -> Real& { return (*out.force)[a * d + i]; });
  }
  if (out.stiffness) stiffness.finish(*out.stiffness);
  return min_detF;
}

}  // namespace softik::fem
