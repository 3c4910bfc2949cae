// Neo-Hookean laws.
//
// NeoHookean (compressible, Lame form; docs/method.md section 4):
//   C = F^T F, J = det F, C_inv = C^{-1}
//   psi = mu/2 (tr C - 3) - mu log J + lambda/2 (log J)^2
//   S   = mu (I - C_inv) + lambda log J C_inv
//   CC_IJKL = lambda C_inv_IJ C_inv_KL + (mu - lambda log J)(C_inv_IK C_inv_JL + C_inv_IL C_inv_JK)
//   P = F S and dP/dF via pk2_to_pk1.hpp.
//   Small-strain limit: linear elasticity with the same (lambda, mu).
// Source: Bonet & Wood, "Nonlinear Continuum Mechanics for Finite Element Analysis", 2nd ed.,
// section 6.4.3 (docs/method.md section 4, [1]); SOFA Elasticity plugin README.
//
// NeoHookeanD1 (decoupled, Abaqus/CalculiX form):
//   psi = C10 (Ibar1 - 3) + (J - 1)^2 / D1,   Ibar1 = J^(-2/3) tr C
//   S and CC: volumetric.hpp with W1 = C10, U = (J - 1)^2 / D1.
//   Small strain: mu = 2 C10, K = 2 / D1.
// Source: Abaqus Theory Guide, "Hyperelastic material behavior" (polynomial form, N = 1,
// C01 = 0); CalculiX CrunchiX User's Manual, *HYPERELASTIC, NEO HOOKE.
#pragma once

#include <cmath>

#include <Eigen/LU>  // fixed-size inverse() and determinant()

#include "softik/fem/materials/linear_elastic.hpp"
#include "softik/fem/materials/volumetric.hpp"
#include "softik/fem/pk2_to_pk1.hpp"

namespace softik::fem {

struct NeoHookean {
  Real mu = 0;      ///< shear modulus
  Real lambda = 0;  ///< first Lame parameter

  SOFTIK_HD Real psi(const Mat3& F) const {
    const Real logJ = log(F.determinant());
    return 0.5 * mu * ((F.transpose() * F).trace() - 3) - mu * logJ + 0.5 * lambda * logJ * logJ;
  }

  SOFTIK_HD Mat3 S(const Mat3& F) const {
    const Mat3 C_inv = (F.transpose() * F).inverse();
    return mu * (Mat3::Identity() - C_inv) + (lambda * log(F.determinant())) * C_inv;
  }

  SOFTIK_HD Mat3 P(const Mat3& F) const { return pk1_from_pk2(F, S(F)); }

  /// S and CC = dS/dE from one evaluation (hyperelastic_element's stiffness; dPdF).
  SOFTIK_HD Mat3 pk2_and_tangent(const Mat3& F, Mat9& CC) const {
    const Mat3 C_inv = (F.transpose() * F).inverse();
    const Real logJ = log(F.determinant());
    CC = lambda * outer9(C_inv, C_inv) + (2 * (mu - lambda * logJ)) * odot9(C_inv, C_inv);
    return mu * (Mat3::Identity() - C_inv) + (lambda * logJ) * C_inv;
  }

  SOFTIK_HD Mat9 dPdF(const Mat3& F) const { return dPdF_from_pk2_law(*this, F); }

  static NeoHookean from_lame(Real lambda, Real mu) {
    detail::check_lame("NeoHookean", lambda, mu);
    return NeoHookean{mu, lambda};
  }

  static NeoHookean from_young_poisson(Real E, Real nu) {
    const detail::Lame l = detail::lame_from_young_poisson("NeoHookean", E, nu);
    return NeoHookean{l.mu, l.lambda};
  }
};

struct NeoHookeanD1 {
  Real C10 = 0;  ///< = mu / 2
  Real D1 = 0;   ///< = 2 / K

  SOFTIK_HD Real psi(const Mat3& F) const {
    const Real J = F.determinant();
    return C10 * (pow(J, -2.0 / 3.0) * (F.transpose() * F).trace() - 3) + (J - 1) * (J - 1) / D1;
  }

  SOFTIK_HD Mat3 S(const Mat3& F) const {
    const IsochoricKinematics k = isochoric_kinematics(F);
    IsochoricDerivatives w;
    w.W1 = C10;
    return decoupled_pk2(k, w, volumetric_term(Volumetric::D1Form, D1, k.J));
  }

  SOFTIK_HD Mat3 P(const Mat3& F) const { return pk1_from_pk2(F, S(F)); }

  /// S and CC = dS/dE from one evaluation (hyperelastic_element's stiffness; dPdF).
  SOFTIK_HD Mat3 pk2_and_tangent(const Mat3& F, Mat9& CC) const {
    const IsochoricKinematics k = isochoric_kinematics(F);
    IsochoricDerivatives w;
    w.W1 = C10;
    const VolumetricTerm u = volumetric_term(Volumetric::D1Form, D1, k.J);
    CC = decoupled_cc(k, w, u);
    return decoupled_pk2(k, w, u);
  }

  SOFTIK_HD Mat9 dPdF(const Mat3& F) const { return dPdF_from_pk2_law(*this, F); }

  /// C10 > 0 (shear modulus 2 C10), D1 > 0 (bulk modulus 2 / D1).
  static NeoHookeanD1 from_constants(Real C10, Real D1) {
    detail::check_positive("NeoHookeanD1", "C10", C10);
    detail::check_D1("NeoHookeanD1", D1);
    return NeoHookeanD1{C10, D1};
  }

  /// C10 = mu / 2, D1 = 2 / K with mu = E / (2 (1 + nu)), K = E / (3 (1 - 2 nu)).
  static NeoHookeanD1 from_young_poisson(Real E, Real nu) {
    const detail::ShearBulk m = detail::shear_and_D1_from_young_poisson("NeoHookeanD1", E, nu);
    return NeoHookeanD1{m.mu / 2, m.D1};
  }
};

}  // namespace softik::fem
