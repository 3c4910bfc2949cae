// Total-Lagrangian element for any element trait E and any material M (also the linear
// small-strain formulation, which is this element with M = LinearElastic).
//
// Energy  E_e = sum_q w_q detJ_q psi(F_q)
// Elastic nodal force (the force the element exerts on its nodes, = -dE_e/dx):
//   f_a,i = - sum_q w_q detJ_q sum_J P_iJ(F_q) dN_a/dX_J
// Tangent stiffness K = d^2 E_e / dx^2 = -df/dx:
//   K_(a i)(b k) = sum_q w_q detJ_q sum_{J,L} dN_a/dX_J dP_iJ/dF_kL dN_b/dX_L
// F is embedded in 3D as plane/uniaxial strain for 1D and 2D elements (kinematics.hpp).
// 3D elements of laws written in S(E) (has_pk2_tangent) take S and CC = dS/dE from one call
// and K from them directly (pk2_stiffness.hpp), or P and K in closed form where the law has it
// (closed_form_stiffness): the same K, faster on the CPU, and exactly symmetric (StiffnessForm).
#pragma once

#include <type_traits>
#include <utility>

#include "softik/fem/kinematics.hpp"
#include "softik/fem/materials/linear_elastic.hpp"
#include "softik/fem/materials/neo_hookean.hpp"
#include "softik/fem/materials/stable_neo_hookean.hpp"
#include "softik/fem/pk2_stiffness.hpp"
#include "softik/fem/pk2_to_pk1.hpp"
#include "softik/fem/symmetric_blocks.hpp"

namespace softik::fem {

/// Whether a law is defined for det F <= 0. Laws with log J or J^(-1/3) are not; the
/// small-strain law and the stable neo-Hookean law (Smith et al. 2018) are.
template <class M>
struct tolerates_inversion : std::false_type {};
template <>
struct tolerates_inversion<LinearElastic> : std::true_type {};
template <>
struct tolerates_inversion<StableNeoHookean> : std::true_type {};

/// Whether a law gives S and CC = dS/dE together: Mat3 pk2_and_tangent(const Mat3& F, Mat9& CC).
template <class M, class = void>
struct has_pk2_tangent : std::false_type {};
template <class M>
struct has_pk2_tangent<M, std::void_t<decltype(std::declval<const M&>().pk2_and_tangent(
                              std::declval<const Mat3&>(), std::declval<Mat9&>()))>> : std::true_type {};

/// Whether a law gives P and its element stiffness in closed form from one evaluation (the same K
/// as from S and CC; taken on the CPU, StiffnessForm::FromPk2, in its place): P and the stiffness
/// terms of point q of a cell of n nodes and Q points (BlockTerms, symmetric_blocks.hpp),
///   template <int n, int Q, class G>
///   Mat3 pk1_and_block_terms(F, dN_dX, w, StiffnessTerms<n, Q>& terms, int q) const,
/// declared by static constexpr bool has_closed_form_stiffness = true (NeoHookean; the decoupled
/// Ibar1 laws NeoHookeanD1, Yeoh and ArrudaBoyce, materials/decoupled_i1.hpp).
template <class M, class = void>
struct closed_form_stiffness : std::false_type {};
template <class M>
struct closed_form_stiffness<M, std::void_t<decltype(M::has_closed_form_stiffness)>>
    : std::integral_constant<bool, M::has_closed_form_stiffness> {};

/// How the element builds K for a law written in S(E) (has_pk2_tangent; other laws always take
/// dP/dF). The two give the same K to round-off; which is faster depends on the processor:
///   FromPk2:  B^T CC B plus the geometric term from S and CC (pk2_stiffness.hpp): fewer passes
///             over fewer temporaries; 1.13-1.24x faster assembly on the CPU (bench/RESULTS.md,
///             "The stiffness from S and CC ...");
///   FromDPdF: the contraction of dP/dF (pk2_to_pk1.hpp) with the shape gradients: fewer live
///             values per thread; on an H200 the FromPk2 form was 23-30 % slower (neo-Hookean
///             Tet4, Tet10, Hex8; "GPU on an H200: a shorter cell frame ..."), so the GPU takes this.
enum class StiffnessForm { FromPk2, FromDPdF };

/// The stiffness terms a cell of n nodes and Q points keeps: the law's StiffnessTerms<n, Q> where it
/// has a closed form, else nothing.
template <class M, int n, int Q, bool closed_form>
struct CellStiffnessTerms {
  using type = char;
};
template <class M, int n, int Q>
struct CellStiffnessTerms<M, n, Q, true> {
  using type = typename M::template StiffnessTerms<n, Q>;
};

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
/// caller decides whether the law tolerates that, see tolerates_inversion).
template <class E, class M, StiffnessForm form = StiffnessForm::FromPk2>
SOFTIK_HD Real hyperelastic_element(const M& material, const RestData<E>& rest, const NodeMatrix<E>& x,
                                    ElementOutputs<E> out) {
  constexpr int d = E::dim, n = E::num_nodes;
  if (out.force) out.force->setZero();
  Real min_detF = 1e300;
  // Laws with a closed-form stiffness on 3D cells: P and the stiffness terms of each point from one
  // evaluation, and each block of K summed over the points once they are all known (a Hex8 writes
  // each entry of K once instead of eight times: its assembly 1.38-1.58x faster, bench/RESULTS.md,
  // "The closed-form stiffness summed over a cell's points"). Other laws in S(E): S and CC from one
  // evaluation when K is wanted (P = F S from it).
  constexpr bool closed_form = form == StiffnessForm::FromPk2 && d == 3 && closed_form_stiffness<M>::value;
  constexpr bool from_pk2 = !closed_form && form == StiffnessForm::FromPk2 && d == 3 && has_pk2_tangent<M>::value;
  [[maybe_unused]] typename CellStiffnessTerms<M, n, E::num_quad, closed_form>::type terms;
  [[maybe_unused]] int num_terms = 0;
  if (out.stiffness && !closed_form) out.stiffness->setZero();  // a closed form writes every entry below
  for (int q = 0; q < E::num_quad; ++q) {
    const NodeMatrix<E>& dN_dX = rest.dN_dX[q];
    const Real w = rest.w_detJ[q];
    const Mat3 F = embed<d>(deformation_gradient<E>(x, dN_dX));
    const Real detF = F.determinant();
    if (detF < min_detF) min_detF = detF;
    if (!(detF > 0) && !tolerates_inversion<M>::value) continue;  // psi, P undefined (log J)
    if (out.energy) *out.energy += w * material.psi(F);
    if constexpr (closed_form) {
      if (out.stiffness) {
        const Mat3 P = material.template pk1_and_block_terms<n>(F, dN_dX, w, terms, num_terms++);
        if (out.force)
          add_point_force<n, d>(P, dN_dX, w, [&](int a, int i) -> Real& { return (*out.force)[a * d + i]; });
        continue;
      }
    }
    Mat3 S = Mat3::Zero();  // set below where used (zeroed: g++ cannot see that in flattened kernels)
    Mat9 CC;
    if constexpr (from_pk2)
      if (out.stiffness) S = material.pk2_and_tangent(F, CC);
    if (out.force) {
      const MatD<d> P = restrict_stress<d>(from_pk2 && out.stiffness ? pk1_from_pk2(F, S) : material.P(F));
      add_point_force<n, d>(P, dN_dX, w, [&](int a, int i) -> Real& { return (*out.force)[a * d + i]; });
    }
    if constexpr (from_pk2) {
      if (out.stiffness) {
        add_pk2_stiffness<n>(F, S, CC, dN_dX, w, *out.stiffness);
        continue;
      }
    }
    if (out.stiffness) {
      // G_b(iJ, k) = sum_L dP_iJ/dF_kL dN_b/dX_L, then K_ab(i,k) += w sum_J dN_a/dX_J G_b(iJ, k).
      const Mat9 dPdF = material.dPdF(F);
      for (int b = 0; b < n; ++b) {
        Real G[d][d][d];  // [i][J][k]
        for (int i = 0; i < d; ++i)
          for (int J = 0; J < d; ++J)
            for (int k = 0; k < d; ++k) {
              Real s = 0;
              for (int L = 0; L < d; ++L) s += tangent_entry(dPdF, i, J, k, L) * dN_dX(b, L);
              G[i][J][k] = s;
            }
        for (int a = 0; a < n; ++a)
          for (int i = 0; i < d; ++i)
            for (int k = 0; k < d; ++k) {
              Real s = 0;
              for (int J = 0; J < d; ++J) s += dN_dX(a, J) * G[i][J][k];
              (*out.stiffness)(a * d + i, b * d + k) += w * s;
            }
      }
    }
  }
  if constexpr (closed_form) {
    if (out.stiffness && num_terms == 0) out.stiffness->setZero();  // every point inverted
    if (out.stiffness && num_terms > 0) {                           // every block once: assigned
      terms.clear_points_from(num_terms);
      emit_summed_blocks(terms, [&](int a, int b, const TMat<Real, 3, 3>& Kab) {
        for (int i = 0; i < 3; ++i)
          for (int k = 0; k < 3; ++k) (*out.stiffness)(a * d + i, b * d + k) = Kab(i, k);
      });
    }
  }
  return min_detF;
}

}  // namespace softik::fem
