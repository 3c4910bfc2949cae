// Locking-free volumetric treatment of nearly incompressible laws (docs/method.md, section 4,
// "Nearly incompressible materials: averaged dilatation").
//
// Every law with a bulk term is split  psi(F) = psi_rest(F) + U(m(F)),  where U carries the bulk
// modulus (the stiff part, which locks on linear tetrahedra) and m is the law's volume measure:
//   m = J = det F for the finite-strain laws,
//   m = 1 + tr(F - I) for LinearElastic (the linearised J; U = lambda/2 (m - 1)^2 is exactly its
//   lambda term).
// Bulk terms (each law's bulk_term, read through BulkSplit, law_capabilities.hpp): NeoHookean lambda/2 (log J)^2;
// StableNeoHookean lambda_/2 (J - alpha)^2; the decoupled laws (NeoHookeanD1, MooneyRivlin, Yeoh, Ogden, ArrudaBoyce)
// their U(J) (volumetric.hpp). SaintVenantKirchhoff has none (its lambda/2 (tr E)^2 is not a function of the volume).
//
// Per cell c with quadrature weights w_q (w_detJ): rest volume V_c = sum_q w_q, volume
// v_c = sum_q w_q m(F_q) (the current volume for m = J), g_c = dv_c/dx, H_c = d2v_c/dx2, with
//   dm/dF = cof F (= J F^-T) or I,   d2J/dF_iJ dF_kL = e_ikm e_JLN F_mN (e: permutation symbol).
//
// Dilatation::CellMean (mean dilatation: Nagtegaal, Parks & Rice 1974; Simo, Taylor & Pister
// 1985): the bulk term sees the cell's mean volume ratio theta_c = v_c / V_c,
//   E_c = sum_q w_q [psi(F_q) - U(m_q)] + V_c U(theta_c)
//   f_c = f_c(psi) + sum_q w_q U'(m_q) dm_q/dx - U'(theta_c) g_c                (f = -dE/dx)
//   K_c = K_c(psi) - sum_q w_q [U''(m_q) dm_q dm_q^T + U'(m_q) d2m_q] + U''(theta_c)/V_c g_c g_c^T
//         + U'(theta_c) H_c
// Local to the cell: Hex8 (where it is the classic selective/mean-dilatation element), Tet10.
//
// Dilatation::NodalMean (average nodal pressure: Bonet & Burton 1998): the bulk term sees nodal
// volume ratios theta_a = v_a / V_a, v_a = sum_{c ∋ a} v_c / n, V_a = sum_{c ∋ a} V_c / n (n nodes
// per cell), each cell lending its law to its share of the node:
//   E = sum_c sum_q w_q [psi(F_q) - U_c(m_q)] + sum_c sum_{a in c} V_c/n U_c(theta_a)
//   f_c = f_c(psi) + sum_q w_q U_c'(m_q) dm_q/dx - pbar_c g_c,   pbar_c = 1/n sum_{a in c} pi_a,
//         pi_a = sum_{c ∋ a} V_c/n U_c'(theta_a) / V_a        (the nodal pressure)
//   K = sum_c [K_c(psi) - sum_q w_q (U_c'' dm dm^T + U_c' d2m) + pbar_c H_c]
//       + sum_a kappa_a g_a g_a^T,   g_a = sum_{c ∋ a} g_c / n,
//         kappa_a = sum_{c ∋ a} V_c/n U_c''(theta_a) / V_a^2
// The last term couples every pair of nodes that share a neighbour (the stiffness pattern's
// second ring); it and the nodal sums are host/assembly/nodal_dilatation.cpp's. With one node
// constraint per node instead of one per cell, a linear tetrahedral mesh no longer locks.
#pragma once

#include <type_traits>

#include "softik/fem/hyperelastic_element.hpp"
#include "softik/fem/materials/materials.hpp"

namespace softik::fem {

/// Which volume ratio the bulk term of a law sees (see the header comment).
enum class Dilatation {
  Pointwise = 0,  ///< the standard element: U(m) at every quadrature point
  CellMean = 1,   ///< mean dilatation: U(theta_c) of the cell's volume ratio
  NodalMean = 2,  ///< average nodal pressure: U(theta_a) of the nodal volume ratios
};

/// Permutation symbol e_ijk of distinct indices (0 when two are equal).
SOFTIK_HD_INLINE Real permutation_sign(int i, int j, int k) {
  if (i == j || j == k || i == k) return 0;
  return ((j - i + 3) % 3 == 1) ? 1.0 : -1.0;
}

/// d2J / dF_iJ dF_kL = e_ikm e_JLN F_mN (m, N the third indices).
SOFTIK_HD_INLINE Real second_derivative_of_det(const Mat3& F, int i, int J, int k, int L) {
  if (i == k || J == L) return 0;
  const int m = 3 - i - k, N = 3 - J - L;
  return permutation_sign(i, k, m) * permutation_sign(J, L, N) * F(m, N);
}

/// dm/dx at quadrature point q (row a*dim + i): sum_J dm/dF_iJ dN_a/dX_J.
template <class E>
SOFTIK_HD ElementVector<E> measure_gradient(const Mat3& dmdF, const NodeMatrix<E>& dN_dX) {
  constexpr int d = E::dim;
  ElementVector<E> out;
  for (int a = 0; a < E::num_nodes; ++a)
    for (int i = 0; i < d; ++i) {
      Real s = 0;
      for (int J = 0; J < d; ++J) s += dmdF(i, J) * dN_dX(a, J);
      out[a * d + i] = s;
    }
  return out;
}

/// Adds scale * d2J/dx2 at F (zero for the linear measure, which the caller skips).
template <class E>
SOFTIK_HD void add_det_hessian(const Mat3& F, const NodeMatrix<E>& dN_dX, Real scale, ElementMatrix<E>& K) {
  constexpr int d = E::dim, n = E::num_nodes;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      for (int i = 0; i < d; ++i)
        for (int k = 0; k < d; ++k) {
          if (i == k) continue;
          Real s = 0;
          for (int J = 0; J < d; ++J)
            for (int L = 0; L < d; ++L)
              if (J != L) s += second_derivative_of_det(F, i, J, k, L) * dN_dX(a, J) * dN_dX(b, L);
          K(a * d + i, b * d + k) += scale * s;
        }
}

/// The volume measure m(F) of law M and dm/dF.
template <class M>
SOFTIK_HD_INLINE Real volume_measure(const Mat3& F, Mat3& dmdF) {
  if constexpr (BulkSplit<M>::linear) {
    dmdF.setIdentity();
    return F.trace() - 2;
  } else {
    dmdF.col(0) = F.col(1).cross(F.col(2));
    dmdF.col(1) = F.col(2).cross(F.col(0));
    dmdF.col(2) = F.col(0).cross(F.col(1));
    return F.determinant();
  }
}

/// Replaces the pointwise bulk term of a cell's outputs (those of hyperelastic_element) by the
/// averaged one: CellMean completes the cell here; NodalMean subtracts the pointwise term and
/// adds -pbar g to the force and pbar H to the stiffness, where pbar is the mean nodal pressure
/// of the cell's nodes (the nodal energy and the second-ring term are the caller's). Writes the
/// cell's volume gradient into *g_out when given (NodalMean's second-ring term needs it).
/// Quadrature points with m <= 0 under a law undefined there are skipped, as
/// hyperelastic_element skips them (the caller reports the cell).
template <class E, class M>
SOFTIK_HD void average_dilatation(const M& law, const RestData<E>& rest, const NodeMatrix<E>& x, Dilatation mode,
                                  Real pbar, ElementOutputs<E> out, ElementVector<E>* g_out) {
  static_assert(BulkSplit<M>::available, "average_dilatation needs a law with a bulk term");
  constexpr int d = E::dim;
  constexpr bool log_law = !tolerates_inversion<M>::value;  // U undefined for m <= 0
  const bool want_K = out.stiffness != nullptr;
  Real V = 0, v = 0;   // rest volume sum_q w_q, volume sum_q w_q m_q
  ElementVector<E> g;  // dv/dx
  g.setZero();
  ElementMatrix<E> H;  // sum_q w_q (U'(m_q) or the mean pressure) d2m_q, added to K at the end
  if (want_K) H.setZero();
  for (int q = 0; q < E::num_quad; ++q) {
    const Real w = rest.w_detJ[q];
    const Mat3 F = embed<d>(deformation_gradient<E>(x, rest.dN_dX[q]));
    Mat3 dmdF;
    const Real m = volume_measure<M>(F, dmdF);
    const ElementVector<E> dm = measure_gradient<E>(dmdF, rest.dN_dX[q]);
    V += w;
    v += w * m;
    g += w * dm;
    if (log_law && !(m > 0)) continue;
    const VolumetricTerm u = BulkSplit<M>::term(law, m);
    if (out.energy) *out.energy -= w * u.U;
    if (out.force) *out.force += (w * u.dU) * dm;
    if (want_K) {
      *out.stiffness -= (w * u.d2U) * (dm * dm.transpose());
      if (!BulkSplit<M>::linear) add_det_hessian<E>(F, rest.dN_dX[q], -w * u.dU, H);
    }
  }
  Real p = pbar;
  if (mode == Dilatation::CellMean) {
    // A cell inverted on average (theta <= 0) under a law undefined there is reported by the
    // caller (some point of it has det F <= 0); its outputs are completed without the mean term.
    const Real theta = v / V;
    p = 0;
    if (!log_law || theta > 0) {
      const VolumetricTerm u = BulkSplit<M>::term(law, theta);
      if (out.energy) *out.energy += V * u.U;
      if (want_K) *out.stiffness += (u.d2U / V) * (g * g.transpose());
      p = u.dU;
    }
  }
  if (out.force) *out.force -= p * g;
  if (want_K) {
    if (!BulkSplit<M>::linear)
      for (int q = 0; q < E::num_quad; ++q)
        add_det_hessian<E>(embed<d>(deformation_gradient<E>(x, rest.dN_dX[q])), rest.dN_dX[q], p * rest.w_detJ[q], H);
    *out.stiffness += H;
  }
  if (g_out) *g_out = g;
}

/// A cell's volume v = sum_q w_q m(F_q) under law M's measure (NodalMean's first pass; at the
/// rest positions it is the rest volume).
template <class E, class M>
SOFTIK_HD Real cell_volume(const RestData<E>& rest, const NodeMatrix<E>& x) {
  constexpr int d = E::dim;
  Real v = 0;
  for (int q = 0; q < E::num_quad; ++q) {
    Mat3 dmdF;
    v += rest.w_detJ[q] * volume_measure<M>(embed<d>(deformation_gradient<E>(x, rest.dN_dX[q])), dmdF);
  }
  return v;
}

}  // namespace softik::fem
