// Nearly incompressible Mooney-Rivlin, decoupled (Abaqus/CalculiX polynomial form, N = 1):
//   psi = C10 (Ibar1 - 3) + C01 (Ibar2 - 3) + U(J),
//   Ibar1 = J^(-2/3) I1, Ibar2 = J^(-4/3) I2, U(J) selected by `volumetric` (volumetric.hpp;
//   D1Form (J - 1)^2 / D1 as Abaqus prints it, or LogSquared kappa/2 (log J)^2 with kappa = 2/D1).
//   W1 = C10, W2 = C01, W11 = W12 = W22 = 0, then
//   S  = 2 C10 J^(-2/3) (I - I1/3 C_inv) + 2 C01 (J^(-4/3) (I1 I - C) - 2/3 Ibar2 C_inv) + J U' C_inv
//   CC = 4 C10 H1 + 4 C01 H2 + volumetric part (formulas in volumetric.hpp);
//   P = F S and dP/dF via pk2_to_pk1.hpp.
//   Small strain: mu = 2 (C10 + C01), K = 2 / D1.
// Sources (docs/method.md section 4): Abaqus Theory Guide, "Hyperelastic material behavior",
// polynomial form; CalculiX CrunchiX User's Manual, *HYPERELASTIC, MOONEY-RIVLIN; SOFA Elasticity README.
#pragma once

#include "softik/fem/materials/volumetric.hpp"

namespace softik::fem {

struct MooneyRivlin {
  Real C10 = 0;
  Real C01 = 0;
  Real D1 = 0;  ///< = 2 / K (also for LogSquared, where kappa = 2 / D1)
  Volumetric volumetric = Volumetric::D1Form;
  static constexpr bool bulk_measure_linear = false;  ///< its bulk term sees m = J

  /// The bulk term U(J) of its volumetric form (volumetric.hpp).
  SOFTIK_HD VolumetricTerm bulk_term(Real J) const { return volumetric_term(volumetric, D1, J); }

  SOFTIK_HD Real psi(const Mat3& F) const {
    const IsochoricKinematics k = isochoric_kinematics(F);
    return C10 * (k.I1bar - 3) + C01 * (k.I2bar - 3) + volumetric_term(volumetric, D1, k.J).U;
  }

  SOFTIK_HD Mat3 S(const Mat3& F) const {
    const IsochoricKinematics k = isochoric_kinematics(F);
    return decoupled_pk2(k, derivatives(), volumetric_term(volumetric, D1, k.J));
  }

  SOFTIK_HD Mat3 P(const Mat3& F) const { return pk1_from_pk2(F, S(F)); }

  /// S and CC = dS/dE from one evaluation (hyperelastic_element's stiffness; dPdF).
  SOFTIK_HD Mat3 pk2_and_tangent(const Mat3& F, Mat9& CC) const {
    const IsochoricKinematics k = isochoric_kinematics(F);
    const IsochoricDerivatives w = derivatives();
    const VolumetricTerm u = volumetric_term(volumetric, D1, k.J);
    CC = decoupled_cc(k, w, u);
    return decoupled_pk2(k, w, u);
  }

  SOFTIK_HD Mat9 dPdF(const Mat3& F) const { return dPdF_from_pk2_law(*this, F); }

  SOFTIK_HD IsochoricDerivatives derivatives() const {
    IsochoricDerivatives w;
    w.W1 = C10;
    w.W2 = C01;
    return w;
  }

  /// Constants as Abaqus/CalculiX print them: C10 + C01 > 0 (shear modulus 2 (C10 + C01)), D1 > 0.
  static MooneyRivlin from_constants(Real C10, Real C01, Real D1, Volumetric volumetric = Volumetric::D1Form) {
    detail::check_finite("MooneyRivlin", "C10", C10);
    detail::check_finite("MooneyRivlin", "C01", C01);
    SOFTIK_CHECK(C10 + C01 > 0, "MooneyRivlin: C10 + C01 = "
                                    << C10 + C01
                                    << " is out of range; the initial shear modulus 2 (C10 + C01) must be > 0");
    detail::check_D1("MooneyRivlin", D1);
    detail::check_volumetric("MooneyRivlin", volumetric);
    return MooneyRivlin{C10, C01, D1, volumetric};
  }

  /// Small-strain consistent: 2 (C10 + C01) = mu = E / (2 (1 + nu)), D1 = 2 / K,
  /// K = E / (3 (1 - 2 nu)); C01 = c01_share * mu / 2, C10 = (1 - c01_share) * mu / 2.
  static MooneyRivlin from_young_poisson(Real E, Real nu, Volumetric volumetric = Volumetric::D1Form,
                                         Real c01_share = 0) {
    const detail::ShearBulk m = detail::shear_and_D1_from_young_poisson("MooneyRivlin", E, nu);
    SOFTIK_CHECK(c01_share >= 0 && c01_share < 1,
                 "MooneyRivlin: c01_share = " << c01_share << " is out of range; valid range is 0 <= c01_share < 1");
    return from_constants((1 - c01_share) * m.mu / 2, c01_share * m.mu / 2, m.D1, volumetric);
  }
};

}  // namespace softik::fem
