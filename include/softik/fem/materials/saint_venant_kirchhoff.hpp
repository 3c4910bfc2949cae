// Saint Venant-Kirchhoff: linear elasticity in the Green strain ("linear elastic" of
// engineering codes under geometric nonlinearity; docs/method.md section 4).
//
//   C = F^T F,  E = (C - I)/2
//   psi = lambda/2 tr(E)^2 + mu E:E
//   S   = lambda tr(E) I + 2 mu E
//   CC_IJKL = dS_IJ/dE_KL = lambda delta_IJ delta_KL + mu (delta_IK delta_JL + delta_IL delta_JK)
//   P = F S and dP/dF via pk2_to_pk1.hpp.
// Source: Bonet & Wood, "Nonlinear Continuum Mechanics for Finite Element Analysis", 2nd ed.,
// section 6.4.2 (docs/method.md section 4, [1]); SOFA Elasticity plugin README.
#pragma once

#include "softik/fem/materials/linear_elastic.hpp"
#include "softik/fem/pk2_to_pk1.hpp"

namespace softik::fem {

struct SaintVenantKirchhoff {
  Real lambda = 0;  ///< first Lame parameter
  Real mu = 0;      ///< shear modulus

  SOFTIK_HD Real psi(const Mat3& F) const {
    const Mat3 E = 0.5 * (F.transpose() * F - Mat3::Identity());
    const Real tr = E.trace();
    return 0.5 * lambda * tr * tr + mu * E.squaredNorm();
  }

  SOFTIK_HD Mat3 S(const Mat3& F) const {
    const Mat3 E = 0.5 * (F.transpose() * F - Mat3::Identity());
    return (lambda * E.trace()) * Mat3::Identity() + 2 * mu * E;
  }

  SOFTIK_HD Mat3 P(const Mat3& F) const { return pk1_from_pk2(F, S(F)); }

  /// S and CC = dS/dE from one evaluation (hyperelastic_element's stiffness; dPdF).
  SOFTIK_HD Mat3 pk2_and_tangent(const Mat3& F, Mat9& CC) const {
    const Mat3 I = Mat3::Identity();
    CC = lambda * outer9(I, I) + 2 * mu * odot9(I, I);
    return S(F);
  }

  SOFTIK_HD Mat9 dPdF(const Mat3& F) const { return dPdF_from_pk2_law(*this, F); }

  static SaintVenantKirchhoff from_lame(Real lambda, Real mu) {
    detail::check_lame("SaintVenantKirchhoff", lambda, mu);
    return SaintVenantKirchhoff{lambda, mu};
  }

  static SaintVenantKirchhoff from_young_poisson(Real E, Real nu) {
    const detail::Lame l = detail::lame_from_young_poisson("SaintVenantKirchhoff", E, nu);
    return SaintVenantKirchhoff{l.lambda, l.mu};
  }
};

}  // namespace softik::fem
