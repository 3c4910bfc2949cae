// Arruda-Boyce (eight-chain), decoupled, the five-term series of Abaqus/CalculiX:
//   psi = mu sum_{i=1..5} C_i / lambda_m^(2i-2) (Ibar1^i - 3^i) + U(J),
//   C_1 = 1/2, C_2 = 1/20, C_3 = 11/1050, C_4 = 19/7000, C_5 = 519/673750,
//   U(J) selected by `volumetric` (volumetric.hpp). Abaqus and CalculiX use
//   JSquaredLog, U = ((J^2 - 1)/2 - log J) / D1 -- the default here.
//   W1  = mu sum_i i C_i lambda_m^(2-2i) Ibar1^(i-1),
//   W11 = mu sum_i i (i-1) C_i lambda_m^(2-2i) Ibar1^(i-2), then
//   S  = 2 W1 J^(-2/3) (I - I1/3 C_inv) + J U' C_inv
//   CC = 4 (W11 G1 x G1 + W1 H1) + volumetric part (formulas in volumetric.hpp);
//   P and the element stiffness in closed form: decoupled_i1.hpp; dP/dF via pk2_to_pk1.hpp.
//   Small strain: K = 2 / D1 and shear modulus
//   mu0 = mu (1 + 3/(5 lm^2) + 99/(175 lm^4) + 513/(875 lm^6) + 42039/(67375 lm^8)).
// Sources: E. M. Arruda, M. C. Boyce, J. Mech. Phys. Solids 41 (1993) 389-412; Abaqus Theory
// Guide, "Hyperelastic material behavior" (Arruda-Boyce form); CalculiX CrunchiX User's
// Manual, *HYPERELASTIC, ARRUDA-BOYCE.
#pragma once

#include "softik/fem/materials/decoupled_i1.hpp"

namespace softik::fem {

struct ArrudaBoyce {
  Real mu = 0;        ///< Abaqus' mu (not the initial shear modulus mu0, see initial_shear_modulus)
  Real lambda_m = 0;  ///< locking stretch
  Real D1 = 0;        ///< = 2 / K
  Volumetric volumetric = Volumetric::JSquaredLog;
  static constexpr bool bulk_measure_linear = false;  ///< its bulk term sees m = J

  /// The bulk term U(J) of its volumetric form (volumetric.hpp).
  SOFTIK_HD VolumetricTerm bulk_term(Real J) const { return volumetric_term(volumetric, D1, J); }
  static constexpr bool has_closed_form_stiffness = true;  ///< pk1_and_block_terms (decoupled_i1.hpp)
  template <int n, int Q>
  using StiffnessTerms = DecoupledI1Terms<n, Real, Q>;

  SOFTIK_HD Real psi(const Mat3& F) const {
    const IsochoricKinematics k = isochoric_kinematics(F);
    return isochoric_energy(k.I1bar) + volumetric_term(volumetric, D1, k.J).U;
  }

  /// W(Ibar1) = mu sum_i C_i lambda_m^(2-2i) (Ibar1^i - 3^i).
  SOFTIK_HD Real isochoric_energy(Real I1bar) const {
    const Real b = 1 / (lambda_m * lambda_m);
    Real w = 0, bi = 1, x = 1, three = 1;  // bi = b^(i-1), x = Ibar1^i, three = 3^i
    for (int i = 0; i < 5; ++i) {
      x *= I1bar;
      three *= 3;
      w += coefficient(i) * bi * (x - three);
      bi *= b;
    }
    return mu * w;
  }

  SOFTIK_HD Mat3 S(const Mat3& F) const {
    const IsochoricKinematics k = isochoric_kinematics(F);
    return decoupled_pk2(k, derivatives(k.I1bar), volumetric_term(volumetric, D1, k.J));
  }

  SOFTIK_HD Mat3 P(const Mat3& F) const { return decoupled_i1_pk1(*this, F); }

  /// P and the stiffness terms of point q in closed form (hyperelastic_element on the CPU).
  template <int n, int Q, class G>
  SOFTIK_HD Mat3 pk1_and_block_terms(const Mat3& F, const G& g, Real w, StiffnessTerms<n, Q>& terms, int q) const {
    return decoupled_i1_pk1_and_block_terms(*this, F, g, w, terms, q);
  }

  /// S and CC = dS/dE from one evaluation (dPdF; the GPU's stiffness).
  SOFTIK_HD Mat3 pk2_and_tangent(const Mat3& F, Mat9& CC) const {
    const IsochoricKinematics k = isochoric_kinematics(F);
    const IsochoricDerivatives w = derivatives(k.I1bar);
    const VolumetricTerm u = volumetric_term(volumetric, D1, k.J);
    CC = decoupled_cc(k, w, u);
    return decoupled_pk2(k, w, u);
  }

  SOFTIK_HD Mat9 dPdF(const Mat3& F) const { return dPdF_from_pk2_law(*this, F); }

  /// C_1..C_5 of the series (index 0..4).
  SOFTIK_HD static Real coefficient(int i) {
    constexpr Real c[5] = {1.0 / 2.0, 1.0 / 20.0, 11.0 / 1050.0, 19.0 / 7000.0, 519.0 / 673750.0};
    return c[i];
  }

  SOFTIK_HD IsochoricDerivatives derivatives(Real I1bar) const {
    const Real b = 1 / (lambda_m * lambda_m);
    IsochoricDerivatives w;
    Real bi = 1, x1 = 1, x2 = 0;  // x1 = Ibar1^(i-1), x2 = Ibar1^(i-2) (i counted from 1)
    for (int i = 1; i <= 5; ++i) {
      w.W1 += i * coefficient(i - 1) * bi * x1;
      w.W11 += i * (i - 1) * coefficient(i - 1) * bi * x2;
      x2 = x1;
      x1 *= I1bar;
      bi *= b;
    }
    w.W1 *= mu;
    w.W11 *= mu;
    return w;
  }

  /// mu0 = 2 dW/dIbar1 at Ibar1 = 3.
  static Real initial_shear_modulus(Real mu, Real lambda_m) {
    const Real b = 1 / (lambda_m * lambda_m);
    return mu * (1 + b * (3.0 / 5.0 + b * (99.0 / 175.0 + b * (513.0 / 875.0 + b * 42039.0 / 67375.0))));
  }

  /// Constants as Abaqus/CalculiX print them: mu > 0, lambda_m > 0, D1 > 0.
  static ArrudaBoyce from_constants(Real mu, Real lambda_m, Real D1, Volumetric volumetric = Volumetric::JSquaredLog) {
    detail::check_positive("ArrudaBoyce", "mu", mu);
    detail::check_positive("ArrudaBoyce", "lambda_m (locking stretch)", lambda_m);
    detail::check_D1("ArrudaBoyce", D1);
    detail::check_volumetric("ArrudaBoyce", volumetric);
    return ArrudaBoyce{mu, lambda_m, D1, volumetric};
  }

  /// Small-strain consistent: initial shear modulus mu0 = E / (2 (1 + nu)) (mu chosen so),
  /// D1 = 2 / K, K = E / (3 (1 - 2 nu)).
  static ArrudaBoyce from_young_poisson(Real E, Real nu, Real lambda_m,
                                        Volumetric volumetric = Volumetric::JSquaredLog) {
    const detail::ShearBulk m = detail::shear_and_D1_from_young_poisson("ArrudaBoyce", E, nu);
    detail::check_positive("ArrudaBoyce", "lambda_m (locking stretch)", lambda_m);
    return from_constants(m.mu / initial_shear_modulus(1, lambda_m), lambda_m, m.D1, volumetric);
  }
};

}  // namespace softik::fem
