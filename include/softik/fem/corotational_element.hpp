// Corotational linear elasticity for any element trait E (docs/method.md section 3).
//
// One rotation per element, extracted from the deformation gradient at the element centre:
//   F_c = x^T dN_dX(center) = R U                       (rotation.hpp: polar or QR)
// In the rotated frame the element is linear elastic (material M, normally LinearElastic):
//   F^_q = R^T F_q,   P^_q = P_lin(F^_q) = C : sym(F^_q - I)
//   g^_a = sum_q w_q detJ_q P^_q dN_a/dX          (equivalently K0 u with u = R^T(x - t) - (X - t0))
//   energy E_e = sum_q w_q detJ_q psi_lin(F^_q)
//   elastic force f_a = -R g^_a                     (the classical f = -R K0 u)
// Stiffness, two choices:
//   Rotated    K = R K0 R^T (blockwise R K0_ab R^T): symmetric, positive semi-definite; what the
//              real-time method (and SOFA) uses. Not the exact derivative of f.
//   Consistent K = d(R g^)/dx exactly: with dR = R Omega (rotation_variation),
//              dg_a = R K0_ab R^T dx_b + R ( Omega g^_a - sum_q w C:(Omega F^_q) dN_a/dX ).
// M is the isotropic LinearElastic law (lambda, mu).
// For simplices with the polar rotation f = -dE/dx exactly and the consistent K is the
// symmetric Hessian of E. For Hex8/Quad4 (rotation from the centre only) and for the QR
// rotation, f is not the gradient of any energy (it differs from -dE/dx at second order in
// the strain), and the consistent K is not symmetric.
#pragma once

#include "softik/fem/hyperelastic_element.hpp"
#include "softik/fem/rotation.hpp"

namespace softik::fem {

enum class CorotationalTangent { Rotated = 0, Consistent = 1 };

/// Returns det F at the element centre. With the polar rotation an inverted cell (<= 0) still
/// gets a proper rotation (the polar decomposition falls back to the SVD) and forces that push
/// it back; the QR rotation turns into a reflection there, so callers must refuse such cells.
template <class E, class M>
SOFTIK_HD Real corotational_element(const M& linear, const RestData<E>& rest, const NodeMatrix<E>& x,
                                    RotationMethod method, CorotationalTangent tangent, ElementOutputs<E> out) {
  static_assert(std::is_same<M, LinearElastic>::value, "the corotational element is isotropic linear elasticity");
  constexpr int d = E::dim, n = E::num_nodes;
  using MatDd = MatD<d>;
  const MatDd F_center = deformation_gradient<E>(x, rest.dN_dX_center);
  const Real detF_center = F_center.determinant();
  const RotationFrame<d> frame = extract_rotation<d>(F_center, method);
  const MatDd& R = frame.R;
  const NodeMatrix<E> x_hat = x * R;  // row a = (R^T x_a)^T

  MatDd F_hat[E::num_quad];
  Eigen::Matrix<Real, n, d> g_hat = Eigen::Matrix<Real, n, d>::Zero();
  for (int q = 0; q < E::num_quad; ++q) {
    F_hat[q] = deformation_gradient<E>(x_hat, rest.dN_dX[q]);
    const Mat3 F3 = embed<d>(F_hat[q]);
    if (out.energy) *out.energy += rest.w_detJ[q] * linear.psi(F3);
    if (out.force || out.stiffness) g_hat += rest.w_detJ[q] * rest.dN_dX[q] * restrict_stress<d>(linear.P(F3)).transpose();
  }
  if (out.force) {
    for (int a = 0; a < n; ++a) out.force->template segment<d>(a * d) = -(R * g_hat.row(a).transpose());
  }
  if (!out.stiffness) return detF_center;

  // Rotated stiffness R K0_ab R^T. For the isotropic tensor C_iJkL = lambda d_iJ d_kL +
  // mu (d_ik d_JL + d_iL d_Jk) the block contracts to, with g_a = R dN_a/dX at each q,
  //   R K0_ab R^T = sum_q w_q detJ_q [ lambda g_a g_b^T + mu g_b g_a^T + mu (g_a . g_b) I ].
  // All three terms are read off O = sum_q w_q detJ_q G_q G_q^T, G_q = (g_1; ...; g_n) stacked
  // (one matrix product): K_ab(i,k) = lambda O_ab(i,k) + mu O_ab(k,i) + mu delta_ik tr(O_ab).
  Eigen::Matrix<Real, n * d, E::num_quad> G;
  for (int q = 0; q < E::num_quad; ++q) {
    const Eigen::Matrix<Real, n, d> g = rest.dN_dX[q] * R.transpose();  // row a = (R dN_a/dX)^T
    const Real sqrt_w = sqrt(rest.w_detJ[q]);                           // w_detJ > 0 for a valid cell
    for (int a = 0; a < n; ++a)
      for (int i = 0; i < d; ++i) G(a * d + i, q) = sqrt_w * g(a, i);
  }
  const ElementMatrix<E> O = G * G.transpose();
  ElementMatrix<E>& K = *out.stiffness;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const MatD<d> O_ab = O.template block<d, d>(a * d, b * d);
      MatD<d> block = linear.lambda * O_ab + linear.mu * O_ab.transpose();
      block.diagonal().array() += linear.mu * O_ab.trace();
      K.template block<d, d>(a * d, b * d) = block;
    }
  if (tangent == CorotationalTangent::Rotated) return detF_center;

  // Rotation-derivative terms: column (b,k) is the response to dx_b = e_k.
  for (int b = 0; b < n; ++b)
    for (int k = 0; k < d; ++k) {
      MatDd dF = MatDd::Zero();
      dF.row(k) = rest.dN_dX_center.row(b);
      const MatDd Omega = rotation_variation<d>(frame, dF, method);
      Eigen::Matrix<Real, n, d> dg = g_hat * Omega.transpose();  // row a = (Omega g^_a)^T
      for (int q = 0; q < E::num_quad; ++q) {
        const MatDd sigma = restrict_stress<d>(linear.P(embed<d>(MatDd::Identity() + Omega * F_hat[q])));
        dg -= rest.w_detJ[q] * rest.dN_dX[q] * sigma.transpose();
      }
      for (int a = 0; a < n; ++a) K.template block<d, 1>(a * d, b * d + k) += R * dg.row(a).transpose();
    }
  return detF_center;
}

}  // namespace softik::fem
