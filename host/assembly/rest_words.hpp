// The words of one fem::RestData<E>, in a fixed order, so that every backend stores the rest
// data of its cells as one exec::Table of Reals (records on the CPU, columns on the GPU) and
// the one gather of cell_kernel.hpp unpacks them. Pure data movement: no arithmetic.
//
// Order: for each quadrature point q, dN_dX[q](a, i) (a-major), then w_detJ[q]; then the
// centre gradients dN_dX_center(a, i); last, for an element with its own mass rule
// (E::own_mass_rule), det J at each mass point.
#pragma once

#include <cstddef>

#include "host/mesh/element_dispatch.hpp"
#include "softik/error.hpp"
#include "softik/fem/kinematics.hpp"

// Unrolled in the device pass only (the host compiler does not know the pragma).
#if defined(__CUDA_ARCH__)
#define SOFTIK_DEVICE_UNROLL _Pragma("unroll")
#else
#define SOFTIK_DEVICE_UNROLL
#endif

namespace softik::assembly {

template <class E>
constexpr int rest_words() {
  return E::num_quad * (E::num_nodes * E::dim + 1) + E::num_nodes * E::dim + (E::own_mass_rule ? E::num_mass_quad : 0);
}

/// Calls f(w, word) for every word of r (word is a Real&); the centre gradients only when
/// `with_center` (the corotational frame; the total Lagrangian element does not read them), the
/// mass points' det J only when `with_mass` (the mass kernels).
template <class E, class F>
SOFTIK_HD_INLINE void for_each_rest_word(fem::RestData<E>& r, bool with_center, F&& f, bool with_mass = false) {
  constexpr int n = E::num_nodes, d = E::dim, per_q = n * d + 1;
  SOFTIK_DEVICE_UNROLL
  for (int q = 0; q < E::num_quad; ++q) {
    SOFTIK_DEVICE_UNROLL
    for (int a = 0; a < n; ++a) SOFTIK_DEVICE_UNROLL
    for (int i = 0; i < d; ++i) f(q * per_q + a * d + i, r.dN_dX[q](a, i));
    f(q * per_q + n * d, r.w_detJ[q]);
  }
  if (with_center) {
    SOFTIK_DEVICE_UNROLL
    for (int a = 0; a < n; ++a) SOFTIK_DEVICE_UNROLL
    for (int i = 0; i < d; ++i) f(E::num_quad * per_q + a * d + i, r.dN_dX_center(a, i));
  }
  if constexpr (E::own_mass_rule) {
    if (!with_mass) return;
    for (int q = 0; q < E::num_mass_quad; ++q) f(E::num_quad * per_q + n * d + q, r.mass_detJ[q]);
  }
}

/// Cell c's fem::RestData from the rest coordinates mesh.X (fem::compute_rest_data), written as
/// its rest_words<E>() words to words[w * stride] (centre gradients included). Host only: throws
/// naming the cell when it is inverted or degenerate at rest.
template <class E>
void pack_rest(const Mesh& mesh, int c, Real* words, std::size_t stride) {
  fem::RestData<E> rest;
  const Real min_detJ = fem::compute_rest_data<E>(softik::detail::cell_coordinates<E>(mesh, mesh.X.data(), 3, c), rest);
  SOFTIK_CHECK(min_detJ > 0, "cell " << c << " is inverted or degenerate at rest (det J = " << min_detJ
                                     << "): fix its node order or remesh");
  for_each_rest_word<E>(
      rest, true, [&](int w, Real& word) { words[static_cast<std::size_t>(w) * stride] = word; }, true);
}

}  // namespace softik::assembly
