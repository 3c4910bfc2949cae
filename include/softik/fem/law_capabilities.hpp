// What a material law can do, declared by the law itself in one place (its static constexpr
// members and member functions), read here by the elements, the cell kernel and the stiffness
// strategies (stiffness_strategies.hpp):
//   static constexpr bool tolerates_inversion = true;        defined for det F <= 0 (the
//                                                            small-strain and stable neo-Hookean
//                                                            laws; log J and J^(-1/3) are not)
//   static constexpr bool has_closed_form_stiffness = true;  P and the element stiffness in closed
//                                                            form (pk1_and_block_terms)
//   Mat3 pk2_and_tangent(const Mat3& F, Mat9& CC) const;     S and CC = dS/dE from one call
//   VolumetricTerm bulk_term(Real m) const;                  its bulk part U(m), U', U'' for the
//                                                            averaged dilatation (dilatation.hpp)
//   static constexpr bool bulk_measure_linear;               with bulk_term: m = 1 + tr(F - I)
//                                                            (true) or m = det F (false)
#pragma once

#include <type_traits>
#include <utility>

#include "softik/fem/tensor.hpp"

namespace softik::fem {

/// A law's bulk part as a function of its volume measure m: U(m), dU/dm, d2U/dm2.
struct VolumetricTerm {
  Real U;
  Real dU;
  Real d2U;
};

/// Whether a law splits off a bulk term U(m) (VolumetricTerm bulk_term(Real m) const), and its
/// volume measure: m = 1 + tr(F - I) where the law declares bulk_measure_linear = true
/// (LinearElastic), else m = det F.
template <class M, class = void>
struct BulkSplit {
  static constexpr bool available = false;
  static constexpr bool linear = false;
  SOFTIK_HD static VolumetricTerm term(const M&, Real) { return {0, 0, 0}; }
};
template <class M>
struct BulkSplit<M, std::void_t<decltype(std::declval<const M&>().bulk_term(Real()))>> {
  static constexpr bool available = true;
  static constexpr bool linear = M::bulk_measure_linear;
  SOFTIK_HD static VolumetricTerm term(const M& law, Real m) { return law.bulk_term(m); }
};

/// Whether a law is defined for det F <= 0 (M::tolerates_inversion; false when not declared).
template <class M, class = void>
struct tolerates_inversion : std::false_type {};
template <class M>
struct tolerates_inversion<M, std::void_t<decltype(M::tolerates_inversion)>>
    : std::integral_constant<bool, M::tolerates_inversion> {};

/// Whether a law gives S and CC = dS/dE together: Mat3 pk2_and_tangent(const Mat3& F, Mat9& CC).
template <class M, class = void>
struct has_pk2_tangent : std::false_type {};
template <class M>
struct has_pk2_tangent<M, std::void_t<decltype(std::declval<const M&>().pk2_and_tangent(
                              std::declval<const Mat3&>(), std::declval<Mat9&>()))>> : std::true_type {};

/// Whether a law gives P and its element stiffness in closed form from one evaluation: P and the
/// stiffness terms of point q of a cell of n nodes and Q points (BlockTerms, symmetric_blocks.hpp),
///   template <int n, int Q, class G>
///   Mat3 pk1_and_block_terms(F, dN_dX, w, StiffnessTerms<n, Q>& terms, int q) const,
/// with the terms' type StiffnessTerms<n, Q> (NeoHookean; the decoupled Ibar1 laws NeoHookeanD1,
/// Yeoh and ArrudaBoyce, materials/decoupled_i1.hpp).
template <class M, class = void>
struct closed_form_stiffness : std::false_type {};
template <class M>
struct closed_form_stiffness<M, std::void_t<decltype(M::has_closed_form_stiffness)>>
    : std::integral_constant<bool, M::has_closed_form_stiffness> {};

}  // namespace softik::fem
