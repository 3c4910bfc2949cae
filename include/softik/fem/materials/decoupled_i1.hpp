// The decoupled laws whose isochoric energy depends on Ibar1 alone, psi = W(Ibar1) + U(J)
// (NeoHookeanD1, Yeoh, ArrudaBoyce; volumetric.hpp), written in F instead of C (docs/method.md
// section 2, "The decoupled Ibar1 laws in closed form"). With H = F^-T, I1 = F : F, beta = J^(-2/3),
// Ibar1 = beta I1, W1 = dW/dIbar1, W11 = d2W/dIbar1^2 and U' = dU/dJ:
//   dIbar1/dF = beta (2 F - 2/3 I1 H),  dJ/dF = J H,  dH_iJ/dF_kL = -H_iL H_kJ,
//   P = 2 W1 beta F + (J U' - 2/3 W1 beta I1) H,
// and, with g_a = dN_a/dX, h_a = H g_a, f_a = F g_a and q_a = beta (2 f_a - 2/3 I1 h_a), the
// stiffness K_ab = sum_JL g_aJ dP_iJ/dF_kL g_bL of one point of weight w is
//   K_ab = w [2 W1 beta (g_a . g_b) I + alpha h_a h_b^T + gamma h_b h_a^T
//             - 4/3 W1 beta (f_a h_b^T + h_a f_b^T) + W11 q_a q_b^T],
//   alpha = 4/9 W1 beta I1 + J (U' + J U''),   gamma = 2/3 W1 beta I1 - J U',
// the same K as B^T CC B + (g_a . S g_b) I from volumetric.hpp's S and CC
// (tests/test_pk2_stiffness.cpp), with neither C^-1 nor CC formed: three outer products per block
// (decoupled_i1_block_terms gathers the terms) instead of about 110 multiply-adds.
#pragma once

#include <cmath>
#include <type_traits>
#include <utility>

#include "softik/fem/materials/volumetric.hpp"
#include "softik/fem/sym_eigen3.hpp"
#include "softik/fem/symmetric_blocks.hpp"

namespace softik::fem {

/// Whether a law is written as W(Ibar1) + U(J): Real isochoric_energy(Real Ibar1) (W) and
/// IsochoricDerivatives derivatives(Real Ibar1) (W1, W11), with members volumetric and D1 (U).
template <class M, class = void>
struct is_decoupled_i1 : std::false_type {};
template <class M>
struct is_decoupled_i1<M, std::void_t<decltype(std::declval<const M&>().isochoric_energy(Real())),
                                      decltype(std::declval<const M&>().derivatives(Real()))>> : std::true_type {};

/// The kinematics of the Ibar1 laws in F, for a scalar or lanes T (lane_ops.hpp).
template <class T>
struct I1Kinematics {
  TMat<T, 3, 3> H;  ///< F^-T
  T J;              ///< det F
  T I1;             ///< tr C = F : F
  T beta;           ///< J^(-2/3)
  T I1bar;          ///< beta I1
};

/// From F, its cofactor G = J F^-T and J = det F (det F > 0: the laws are undefined elsewhere).
template <class T, class MF, class MG>
SOFTIK_HD_INLINE I1Kinematics<T> i1_kinematics(const MF& F, const MG& G, const T& J) {
  I1Kinematics<T> k;
  k.J = J;
  const T inv_J = 1.0 / J;
  k.I1 = T(0.0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      k.H(i, j) = G(i, j) * inv_J;
      k.I1 = k.I1 + F(i, j) * F(i, j);
    }
  k.beta = pow(J, -2.0 / 3.0);
  k.I1bar = k.beta * k.I1;
  return k;
}

/// One cell's kinematics from F.
SOFTIK_HD_INLINE I1Kinematics<Real> i1_kinematics(const Mat3& F) {
  const Mat3 G = cofactor(F);
  return i1_kinematics(F, G, Real(F(0, 0) * G(0, 0) + F(1, 0) * G(1, 0) + F(2, 0) * G(2, 0)));
}

/// P = 2 W1 beta F + (J U' - 2/3 W1 beta I1) H, for a scalar or lanes T.
template <class T, class MF, class MP>
SOFTIK_HD_INLINE void decoupled_i1_pk1(const MF& F, const I1Kinematics<T>& k, const T& W1, const T& dU, MP& P) {
  const T wb = W1 * k.beta;
  const T a = 2.0 * wb, b = k.J * dU - (2.0 / 3.0) * (wb * k.I1);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) P(i, j) = a * F(i, j) + b * k.H(i, j);
}

/// The closed-form stiffness of a decoupled Ibar1 law at Q points, as BlockTerms (symmetric_blocks.hpp).
template <int n, class T = Real, int Q = 1>
using DecoupledI1Terms = BlockTerms<n, T, true, Q>;

/// The stiffness terms of point q, of weight w (see the header comment); g(a, J) = dN_a/dX_J; W1,
/// W11, dU = U', d2U = U'' at the point; a scalar or lanes T.
template <int n, class T, int Q, class MF, class G>
SOFTIK_HD_INLINE void decoupled_i1_block_terms(const MF& F, const I1Kinematics<T>& k, const T& W1, const T& W11,
                                               const T& dU, const T& d2U, const G& g, const T& w,
                                               DecoupledI1Terms<n, T, Q>& t, int q) {
  const T wb = W1 * k.beta, c = (2.0 / 3.0) * k.I1;
  const T s = (4.0 / 3.0) * (wb * w), w11 = W11 * k.beta * k.beta * w;
  const T alpha = ((2.0 / 3.0) * (c * wb) + k.J * (dU + k.J * d2U)) * w;
  const T gamma = (c * wb - k.J * dU) * w;
  // Gathered by the vector each term's column index takes (q_a q_b^T expanded):
  //   K_ab = u_a h_b^T + v_a f_b^T + c_b h_a^T + shear (g_a . g_b) I,   c_b = gamma h_b,
  //   u_a = (alpha + c^2 w11) h_a - (s + 2 c w11) f_a,   v_a = 4 w11 f_a - (s + 2 c w11) h_a,
  // with w11 = W11 beta^2 w, s = 4/3 W1 beta w and shear = 2 W1 beta w: three outer products per block.
  const T hu = alpha + c * c * w11, fu = s + 2.0 * (c * w11), fv = 4.0 * w11;
  t.s[q] = 2.0 * (wb * w);
  for (int a = 0; a < n; ++a)
    for (int i = 0; i < 3; ++i) {
      const T h = k.H(i, 0) * g(a, 0) + k.H(i, 1) * g(a, 1) + k.H(i, 2) * g(a, 2);
      const T f = F(i, 0) * g(a, 0) + F(i, 1) * g(a, 1) + F(i, 2) * g(a, 2);
      t.g[a][i][q] = g(a, i);
      t.h[a][i][q] = h;
      t.f[a][i][q] = f;
      t.u[a][i][q] = hu * h - fu * f;
      t.v[a][i][q] = fv * f - fu * h;
      t.c[a][i][q] = gamma * h;
    }
}

/// The stiffness blocks of one point (decoupled_i1_block_terms), handed to emit(a, b, K_ab) as
/// emit_symmetric_blocks does (the host's Tet4 batches).
template <int n, class T, class MF, class G, class Emit>
SOFTIK_HD_INLINE void decoupled_i1_stiffness_blocks(const MF& F, const I1Kinematics<T>& k, const T& W1, const T& W11,
                                                    const T& dU, const T& d2U, const G& g, const T& w, Emit&& emit) {
  DecoupledI1Terms<n, T> t;
  decoupled_i1_block_terms(F, k, W1, W11, dU, d2U, g, w, t, 0);
  emit_summed_blocks(t, emit);
}

/// P and the stiffness terms of point q from one evaluation, for a law with D1, volumetric and
/// derivatives(Ibar1) (the laws' pk1_and_block_terms).
template <int n, int Q, class Law, class G>
SOFTIK_HD_INLINE Mat3 decoupled_i1_pk1_and_block_terms(const Law& law, const Mat3& F, const G& g, Real w,
                                                       DecoupledI1Terms<n, Real, Q>& terms, int q) {
  const I1Kinematics<Real> k = i1_kinematics(F);
  const IsochoricDerivatives W = law.derivatives(k.I1bar);
  const VolumetricTerm u = volumetric_term(law.volumetric, law.D1, k.J);
  decoupled_i1_block_terms(F, k, W.W1, W.W11, u.dU, u.d2U, g, w, terms, q);
  Mat3 P;
  decoupled_i1_pk1(F, k, W.W1, u.dU, P);
  return P;
}

/// P alone (the laws' P).
template <class Law>
SOFTIK_HD_INLINE Mat3 decoupled_i1_pk1(const Law& law, const Mat3& F) {
  const I1Kinematics<Real> k = i1_kinematics(F);
  Mat3 P;
  decoupled_i1_pk1(F, k, law.derivatives(k.I1bar).W1, volumetric_term(law.volumetric, law.D1, k.J).dU, P);
  return P;
}

}  // namespace softik::fem
