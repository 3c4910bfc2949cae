// Yeoh (reduced polynomial, N = 3), decoupled (Abaqus/CalculiX form):
//   psi = C10 (Ibar1 - 3) + C20 (Ibar1 - 3)^2 + C30 (Ibar1 - 3)^3 + U(J),  Ibar1 = J^(-2/3) I1,
//   U(J) selected by `volumetric` (volumetric.hpp; Abaqus uses D1Form, (J - 1)^2 / D1).
//   With x = Ibar1 - 3:  W1 = C10 + 2 C20 x + 3 C30 x^2,  W11 = 2 C20 + 6 C30 x, then
//   S  = 2 W1 J^(-2/3) (I - I1/3 C_inv) + J U' C_inv
//   CC = 4 (W11 G1 x G1 + W1 H1) + volumetric part (formulas in volumetric.hpp);
//   P and the element stiffness in closed form: decoupled_i1.hpp; dP/dF via pk2_to_pk1.hpp.
//   Small strain: mu = 2 C10, K = 2 / D1.
// Sources: O. H. Yeoh, "Some forms of the strain energy function for rubber", Rubber Chem.
// Technol. 66 (1993); Abaqus Theory Guide, "Hyperelastic material behavior" (reduced
// polynomial); CalculiX CrunchiX User's Manual, *HYPERELASTIC, YEOH.
#pragma once

#include "softik/fem/materials/decoupled_i1.hpp"

namespace softik::fem {

struct Yeoh {
  Real C10 = 0;
  Real C20 = 0;
  Real C30 = 0;
  Real D1 = 0;  ///< = 2 / K
  Volumetric volumetric = Volumetric::D1Form;
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

  /// W(Ibar1) = C10 x + C20 x^2 + C30 x^3, x = Ibar1 - 3.
  SOFTIK_HD Real isochoric_energy(Real I1bar) const {
    const Real x = I1bar - 3;
    return x * (C10 + x * (C20 + x * C30));
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

  SOFTIK_HD IsochoricDerivatives derivatives(Real I1bar) const {
    const Real x = I1bar - 3;
    IsochoricDerivatives w;
    w.W1 = C10 + x * (2 * C20 + 3 * C30 * x);
    w.W11 = 2 * C20 + 6 * C30 * x;
    return w;
  }

  /// Constants as Abaqus/CalculiX print them: C10 > 0, C20 and C30 any sign, D1 > 0.
  static Yeoh from_constants(Real C10, Real C20, Real C30, Real D1, Volumetric volumetric = Volumetric::D1Form) {
    detail::check_positive("Yeoh", "C10", C10);
    detail::check_finite("Yeoh", "C20", C20);
    detail::check_finite("Yeoh", "C30", C30);
    detail::check_D1("Yeoh", D1);
    detail::check_volumetric("Yeoh", volumetric);
    return Yeoh{C10, C20, C30, D1, volumetric};
  }

  /// Small-strain consistent: C10 = mu / 2, C20 = C30 = 0, D1 = 2 / K.
  static Yeoh from_young_poisson(Real E, Real nu, Volumetric volumetric = Volumetric::D1Form) {
    const detail::ShearBulk m = detail::shear_and_D1_from_young_poisson("Yeoh", E, nu);
    return from_constants(m.mu / 2, 0, 0, m.D1, volumetric);
  }
};

}  // namespace softik::fem
