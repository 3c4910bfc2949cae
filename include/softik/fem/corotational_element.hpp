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

#include "softik/fem/corotational_stiffness.hpp"
#include "softik/fem/hyperelastic_element.hpp"
#include "softik/fem/lane_ops.hpp"
#include "softik/fem/rotation.hpp"

namespace softik::fem {

enum class CorotationalTangent { Rotated = 0, Consistent = 1 };

/// The stresses of a one-point 3D cell (Tet4) in its rotated frame, for a scalar or lanes T:
/// F^ = R^T F, P^ = P_lin(F^) (LinearElastic::stress), the energy w psi_lin(F^) added to *energy
/// (when given) and, when `gradients`, g^_a = w P^ dN_a (row a of g_hat); the elastic force is
/// f_a = -R g^_a (rotated_force).
template <int n, class T, class DN, class MR, class MF, class GH>
SOFTIK_HD_INLINE void rotated_stress_simplex(const T& lambda, const T& mu, const T& w, const DN& dN, const MR& R,
                                             const MF& F, T* energy, bool gradients, GH& g_hat) {
  TMat<T, 3, 3> F_hat, P;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) F_hat(i, j) = R(0, i) * F(0, j) + R(1, i) * F(1, j) + R(2, i) * F(2, j);
  T psi;
  LinearElastic::stress(lambda, mu, F_hat, P, energy ? &psi : nullptr);
  if (energy) *energy = *energy + w * psi;
  if (!gradients) return;
  for (int a = 0; a < n; ++a)
    for (int i = 0; i < 3; ++i) {
      const T wdN0 = w * dN(a, 0), wdN1 = w * dN(a, 1), wdN2 = w * dN(a, 2);
      g_hat(a, i) = wdN0 * P(i, 0) + wdN1 * P(i, 1) + wdN2 * P(i, 2);
    }
}

/// f_a = -R g^_a for every node a (row a of force), for a scalar or lanes T.
template <int n, int d, class T, class MR, class GH, class MO>
SOFTIK_HD_INLINE void rotated_force(const MR& R, const GH& g_hat, MO& force) {
  for (int a = 0; a < n; ++a)
    for (int i = 0; i < d; ++i) {
      T s = R(i, 0) * g_hat(a, 0);
      for (int k = 1; k < d; ++k) s = s + R(i, k) * g_hat(a, k);
      force(a, i) = -s;
    }
}

/// F^_q = R^T F_q, the gradients at the points in the rotated frame: from the rotated nodes x R,
/// or for an affine element with one point (the linear simplices), whose F_q is the centre's F,
/// as R^T F_center (one 3x3 product instead of rotating the nodes and differentiating again).
template <class E>
SOFTIK_HD_INLINE void rotated_gradients(const NodeMatrix<E>& x, const RestData<E>& rest, const MatD<E::dim>& R,
                                        const MatD<E::dim>& F_center, MatD<E::dim>* F_hat) {
  if constexpr (E::affine && E::num_quad == 1) {
    F_hat[0] = R.transpose() * F_center;
  } else {
    const NodeMatrix<E> x_hat = x * R;  // row a = (R^T x_a)^T
    for (int q = 0; q < E::num_quad; ++q) F_hat[q] = deformation_gradient<E>(x_hat, rest.dN_dX[q]);
  }
}

/// The part of the element every tangent shares: the rotation of the centre frame, the energy
/// (added to *energy) and the elastic force f_a = -R g^_a (into *force); either may be null.
/// g_hat (row a = g^_a) is formed when `gradients` (the force needs it, and the consistent
/// tangent): an energy-only pass (a line search) skips the stresses. Returns det F at the centre.
template <class E>
SOFTIK_HD Real corotational_force(const LinearElastic& linear, const RestData<E>& rest, const NodeMatrix<E>& x,
                                  RotationMethod method, RotationFrame<E::dim>& frame,
                                  Eigen::Matrix<Real, E::num_nodes, E::dim>& g_hat, bool gradients, Real* energy,
                                  ElementVector<E>* force) {
  constexpr int d = E::dim, n = E::num_nodes;
  const MatD<d> F_center = deformation_gradient<E>(x, rest.dN_dX_center);
  const Real detF_center = F_center.determinant();
  frame = extract_rotation<d>(F_center, method);
  if constexpr (E::affine && E::num_quad == 1 && d == 3) {  // Tet4: the code the host's cell batches run
    rotated_stress_simplex<n>(linear.lambda, linear.mu, rest.w_detJ[0], rest.dN_dX[0], frame.R, F_center, energy,
                              gradients, g_hat);
  } else {
    MatD<d> F_hat[E::num_quad];
    rotated_gradients<E>(x, rest, frame.R, F_center, F_hat);
    g_hat.setZero();
    for (int q = 0; q < E::num_quad; ++q) {
      const Mat3 F3 = embed<d>(F_hat[q]);
      if (energy) *energy += rest.w_detJ[q] * linear.psi(F3);
      if (gradients) g_hat += rest.w_detJ[q] * rest.dN_dX[q] * restrict_stress<d>(linear.P(F3)).transpose();
    }
  }
  if (force) {
    TMat<Real, n, d> f;
    rotated_force<n, d, Real>(frame.R, g_hat, f);
    for (int a = 0; a < n; ++a)
      for (int i = 0; i < d; ++i) (*force)[a * d + i] = f(a, i);
  }
  return detF_center;
}

/// The consistent tangent's blocks, handed to emit(a, b, K_ab): the rotated block R K0_ab R^T
/// plus the rotation-derivative terms: for dx_b = e_k, dR = R Omega_bk and column k of K_ab gains
///   R ( Omega_bk g^_a - sum_q w_q detJ_q C:(Omega_bk F^_q) dN_a/dX ).
template <class E, class Emit>
SOFTIK_HD void consistent_blocks(const LinearElastic& linear, const RestData<E>& rest, const NodeMatrix<E>& x,
                                 RotationMethod method, const RotationFrame<E::dim>& frame,
                                 const Eigen::Matrix<Real, E::num_nodes, E::dim>& g_hat, Emit&& emit) {
  constexpr int d = E::dim, n = E::num_nodes;
  const MatD<d>& R = frame.R;
  MatD<d> F_hat[E::num_quad];
  rotated_gradients<E>(x, rest, R, deformation_gradient<E>(x, rest.dN_dX_center), F_hat);
  // One quadrature point (the linear simplices): g_a = R dN_a/dX once per node, not per block.
  Eigen::Matrix<Real, n, d> g;
  if constexpr (E::num_quad == 1) g = rest.dN_dX[0] * R.transpose();
  const RotationVariation<d> variation(frame, method);     // its factor formed once per cell
  [[maybe_unused]] constexpr int unroll = n <= 4 ? n : 1;  // the node loops of the linear simplices only
  SOFTIK_UNROLL_BY(unroll)
  for (int b = 0; b < n; ++b) {
    MatD<d> Omega[d];
    // The stress of the rotation variation, sigma_kq = P(I + Omega_k F^_q): independent of the row
    // node a, so formed once per column node b on one-point cells. Larger cells form it per block:
    // held for every point it would be d x num_quad matrices (216 doubles on Hex8) per thread.
    MatD<d> sigma_b[E::num_quad == 1 ? d : 1];
    for (int k = 0; k < d; ++k) {
      MatD<d> dF = MatD<d>::Zero();
      dF.row(k) = rest.dN_dX_center.row(b);
      Omega[k] = variation(dF);
      if constexpr (E::num_quad == 1)
        sigma_b[k] = restrict_stress<d>(linear.P(embed<d>(MatD<d>::Identity() + Omega[k] * F_hat[0])));
    }
    SOFTIK_UNROLL_BY(unroll)
    for (int a = 0; a < n; ++a) {
      MatD<d> block;
      if constexpr (E::num_quad == 1)
        block = rotated_stiffness_block<d>(linear, rest.w_detJ[0], g.row(a), g.row(b));
      else
        block = rotated_stiffness_block<E>(linear, rest, R, a, b);
      for (int k = 0; k < d; ++k) {
        VecD<d> dg = Omega[k] * g_hat.row(a).transpose();
        for (int q = 0; q < E::num_quad; ++q) {
          if constexpr (E::num_quad == 1) {
            dg -= rest.w_detJ[q] * sigma_b[k] * rest.dN_dX[q].row(a).transpose();
          } else {
            const MatD<d> sigma = restrict_stress<d>(linear.P(embed<d>(MatD<d>::Identity() + Omega[k] * F_hat[q])));
            dg -= rest.w_detJ[q] * sigma * rest.dN_dX[q].row(a).transpose();
          }
        }
        block.col(k) += R * dg;
      }
      emit(a, b, block);
    }
  }
}

/// The element with its stiffness handed out block by block: emit(a, b, K_ab) for every node
/// pair when `stiffness`, instead of an ElementMatrix, so that a kernel can scatter each block as
/// it is made and never hold the nd x nd matrix. K_ab is the rotated block R K0_ab R^T
/// (corotational_stiffness.hpp), or with `consistent` consistent_blocks'. Returns det F at the
/// centre.
template <class E, bool consistent, class Emit>
SOFTIK_HD Real corotational_blocks(const LinearElastic& linear, const RestData<E>& rest, const NodeMatrix<E>& x,
                                   RotationMethod method, Real* energy, ElementVector<E>* force, bool stiffness,
                                   Emit&& emit) {
  RotationFrame<E::dim> frame;
  Eigen::Matrix<Real, E::num_nodes, E::dim> g_hat;
  const bool gradients = force != nullptr || (stiffness && consistent);
  const Real detF_center = corotational_force<E>(linear, rest, x, method, frame, g_hat, gradients, energy, force);
  if (!stiffness) return detF_center;
  if constexpr (consistent)
    consistent_blocks<E>(linear, rest, x, method, frame, g_hat, emit);
  else if constexpr (E::num_quad == 1)
    rotated_blocks_one_point<E>(linear, rest, frame.R, emit);
  else
    rotated_blocks_points<E>(linear, rest, frame.R, emit);
  return detF_center;
}

/// Returns det F at the element centre. With the polar rotation an inverted cell (<= 0) still
/// gets a proper rotation (the polar decomposition falls back to the SVD) and forces that push
/// it back; the QR rotation turns into a reflection there, so callers must refuse such cells.
/// The element matrix is corotational_blocks' blocks.
template <class E, class M>
SOFTIK_HD Real corotational_element(const M& linear, const RestData<E>& rest, const NodeMatrix<E>& x,
                                    RotationMethod method, CorotationalTangent tangent, ElementOutputs<E> out) {
  static_assert(std::is_same<M, LinearElastic>::value, "the corotational element is isotropic linear elasticity");
  constexpr int d = E::dim;
  ElementMatrix<E>* K = out.stiffness;
  const auto store = [K](int a, int b, const auto& block) {
    for (int i = 0; i < d; ++i)
      for (int k = 0; k < d; ++k) (*K)(a * d + i, b * d + k) = block(i, k);
  };
  if (tangent == CorotationalTangent::Consistent)
    return corotational_blocks<E, true>(linear, rest, x, method, out.energy, out.force, K != nullptr, store);
  return corotational_blocks<E, false>(linear, rest, x, method, out.energy, out.force, K != nullptr, store);
}

}  // namespace softik::fem
