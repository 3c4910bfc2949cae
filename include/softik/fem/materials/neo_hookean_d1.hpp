// NeoHookeanD1 (decoupled, Abaqus/CalculiX form):
//   psi = C10 (Ibar1 - 3) + (J - 1)^2 / D1,   Ibar1 = J^(-2/3) tr C
//   S and CC: volumetric.hpp with W1 = C10, U = (J - 1)^2 / D1; P and the element stiffness in
//   closed form: decoupled_i1.hpp.
//   Small strain: mu = 2 C10, K = 2 / D1.
// Source: Abaqus Theory Guide, "Hyperelastic material behavior" (polynomial form, N = 1,
// C01 = 0); CalculiX CrunchiX User's Manual, *HYPERELASTIC, NEO HOOKE.
#pragma once

#include <cmath>

#include "softik/fem/materials/decoupled_i1.hpp"

namespace softik::fem {

struct NeoHookeanD1 {
  Real C10 = 0;  ///< = mu / 2
  Real D1 = 0;   ///< = 2 / K
  static constexpr Volumetric volumetric = Volumetric::D1Form;
  static constexpr bool has_closed_form_stiffness = true;  ///< pk1_and_block_terms (decoupled_i1.hpp)
  static constexpr bool bulk_measure_linear = false;       ///< its bulk term sees m = J
  template <int n, int Q>
  using StiffnessTerms = DecoupledI1Terms<n, Real, Q>;

  /// The bulk term U = (J - 1)^2 / D1.
  SOFTIK_HD VolumetricTerm bulk_term(Real J) const { return volumetric_term(volumetric, D1, J); }

  SOFTIK_HD Real psi(const Mat3& F) const {
    const Real J = F.determinant();
    return isochoric_energy(pow(J, -2.0 / 3.0) * (F.transpose() * F).trace()) + volumetric_term(volumetric, D1, J).U;
  }

  /// W(Ibar1) = C10 (Ibar1 - 3).
  SOFTIK_HD Real isochoric_energy(Real I1bar) const { return C10 * (I1bar - 3); }

  SOFTIK_HD Mat3 S(const Mat3& F) const {
    const IsochoricKinematics k = isochoric_kinematics(F);
    return decoupled_pk2(k, derivatives(k.I1bar), volumetric_term(volumetric, D1, k.J));
  }

  SOFTIK_HD Mat3 P(const Mat3& F) const { return decoupled_i1_pk1(*this, F); }

  /// S and CC = dS/dE from one evaluation (dPdF; the GPU's stiffness).
  SOFTIK_HD Mat3 pk2_and_tangent(const Mat3& F, Mat9& CC) const {
    const IsochoricKinematics k = isochoric_kinematics(F);
    const IsochoricDerivatives w = derivatives(k.I1bar);
    const VolumetricTerm u = volumetric_term(volumetric, D1, k.J);
    CC = decoupled_cc(k, w, u);
    return decoupled_pk2(k, w, u);
  }

  /// P and the stiffness terms of point q in closed form (hyperelastic_element on the CPU).
  template <int n, int Q, class G>
  SOFTIK_HD Mat3 pk1_and_block_terms(const Mat3& F, const G& g, Real w, StiffnessTerms<n, Q>& terms, int q) const {
    return decoupled_i1_pk1_and_block_terms(*this, F, g, w, terms, q);
  }

  SOFTIK_HD Mat9 dPdF(const Mat3& F) const { return dPdF_from_pk2_law(*this, F); }

  /// W1 = C10, W11 = 0.
  SOFTIK_HD IsochoricDerivatives derivatives(Real /*I1bar*/) const {
    IsochoricDerivatives w;
    w.W1 = C10;
    return w;
  }

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
