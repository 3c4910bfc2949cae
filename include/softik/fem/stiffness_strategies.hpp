// How the total-Lagrangian element (hyperelastic_element.hpp) builds its tangent stiffness from a
// law: three strategies, the same
//   K_(a i)(b k) = sum_q w_q detJ_q sum_{J,L} dN_a/dX_J dP_iJ/dF_kL dN_b/dX_L
// to round-off, each a policy chosen once per kernel (the test of tests/fem compares every
// strategy with every other for every element and law):
//   DPdFStiffness        the contraction of the law's dP/dF with the shape gradients. Any law and
//                        element; the fewest live values per thread, so the GPU takes it.
//   Pk2Stiffness         B^T CC B plus the geometric term from S and CC (pk2_stiffness.hpp): laws
//                        written in S(E) (has_pk2_tangent), 3D cells; fewer passes over fewer
//                        temporaries than dP/dF, and exactly symmetric.
//   ClosedFormStiffness  the law's closed-form terms of each point (has_closed_form_stiffness),
//                        each block of K summed over the points once they are all known, so
//                        every entry of K is written once per cell (not once per point); 3D cells.
// HostStiffness<M, d> is the CPU's choice: the closed form where the law has it, else S and CC,
// else dP/dF (bench_assembly measures the three).
//
// A strategy is a per-cell state, Strategy::Cell<E, M>:
//   void begin(K)                          before the first point
//   MatD<d> point(law, F, dN_dX, w, K)     adds point q's stiffness to K (or keeps its terms) and
//                                          returns the P its force takes (from the same evaluation)
//   void finish(K)                         after the last point
// and Strategy::applies<M, d>: whether it serves law M on cells of dimension d.
#pragma once

#include <type_traits>

#include "softik/fem/element_traits.hpp"
#include "softik/fem/kinematics.hpp"
#include "softik/fem/law_capabilities.hpp"
#include "softik/fem/pk2_stiffness.hpp"
#include "softik/fem/pk2_to_pk1.hpp"
#include "softik/fem/symmetric_blocks.hpp"

namespace softik::fem {

struct DPdFStiffness {
  template <class M, int d>
  static constexpr bool applies = true;

  template <class E, class M>
  struct Cell {
    static constexpr int d = E::dim, n = E::num_nodes;
    SOFTIK_HD_INLINE void begin(ElementMatrix<E>& K) { K.setZero(); }
    /// G_b(iJ, k) = sum_L dP_iJ/dF_kL dN_b/dX_L, then K_ab(i,k) += w sum_J dN_a/dX_J G_b(iJ, k).
    SOFTIK_HD_INLINE MatD<d> point(const M& law, const Mat3& F, const NodeMatrix<E>& dN_dX, Real w,
                                   ElementMatrix<E>& K) {
      const Mat9 dPdF = law.dPdF(F);
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
              K(a * d + i, b * d + k) += w * s;
            }
      }
      return restrict_stress<d>(law.P(F));
    }
    SOFTIK_HD_INLINE void finish(ElementMatrix<E>&) {}
  };
};

struct Pk2Stiffness {
  template <class M, int d>
  static constexpr bool applies = d == 3 && has_pk2_tangent<M>::value;

  template <class E, class M>
  struct Cell {
    SOFTIK_HD_INLINE void begin(ElementMatrix<E>& K) { K.setZero(); }
    /// S and CC from one evaluation; K += w (B^T CC B + geometric term); P = F S.
    SOFTIK_HD_INLINE Mat3 point(const M& law, const Mat3& F, const NodeMatrix<E>& dN_dX, Real w, ElementMatrix<E>& K) {
      Mat9 CC;
      const Mat3 S = law.pk2_and_tangent(F, CC);
      add_pk2_stiffness<E::num_nodes>(F, S, CC, dN_dX, w, K);
      return pk1_from_pk2(F, S);
    }
    SOFTIK_HD_INLINE void finish(ElementMatrix<E>&) {}
  };
};

struct ClosedFormStiffness {
  template <class M, int d>
  static constexpr bool applies = d == 3 && closed_form_stiffness<M>::value;

  template <class E, class M>
  struct Cell {
    typename M::template StiffnessTerms<E::num_nodes, E::num_quad> terms;
    int num_terms = 0;  ///< points evaluated (inverted points of a law that refuses them are not)
    /// Nothing: finish() writes every entry of K.
    SOFTIK_HD_INLINE void begin(ElementMatrix<E>&) {}
    /// P and the stiffness terms of the point from one evaluation (F inverted once).
    SOFTIK_HD_INLINE Mat3 point(const M& law, const Mat3& F, const NodeMatrix<E>& dN_dX, Real w, ElementMatrix<E>&) {
      return law.template pk1_and_block_terms<E::num_nodes>(F, dN_dX, w, terms, num_terms++);
    }
    /// Every block K_ab once, the sum of the points' terms; zero when every point was inverted.
    SOFTIK_HD_INLINE void finish(ElementMatrix<E>& K) {
      if (num_terms == 0) {
        K.setZero();
        return;
      }
      terms.clear_points_from(num_terms);
      emit_summed_blocks(terms, [&](int a, int b, const TMat<Real, 3, 3>& Kab) {
        for (int i = 0; i < 3; ++i)
          for (int k = 0; k < 3; ++k) K(a * 3 + i, b * 3 + k) = Kab(i, k);
      });
    }
  };
};

/// The CPU's strategy for law M on cells of dimension d (see the header comment).
template <class M, int d>
using HostStiffness = std::conditional_t<ClosedFormStiffness::applies<M, d>, ClosedFormStiffness,
                                         std::conditional_t<Pk2Stiffness::applies<M, d>, Pk2Stiffness, DPdFStiffness>>;

}  // namespace softik::fem
