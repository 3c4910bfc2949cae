// The words of one fem::RestData<E>, in a fixed order, so that the host can pack them and the
// kernels unpack them from the structure-of-arrays layout rest[w * num_cells + c]
// (device_assembly_launch.hpp). Pure data movement: no arithmetic. Private to cuda/.
//
// Order: for each quadrature point q, dN_dX[q](a, i) (a-major), then w_detJ[q]; last the
// centre gradients dN_dX_center(a, i).
#pragma once

#include "softik/fem/kinematics.hpp"

// Unrolled in the device pass only (the host compiler does not know the pragma).
#if defined(__CUDA_ARCH__)
#define SOFTIK_DEVICE_UNROLL _Pragma("unroll")
#else
#define SOFTIK_DEVICE_UNROLL
#endif

namespace softik::cuda {

template <class E>
constexpr int rest_words() {
  return E::num_quad * (E::num_nodes * E::dim + 1) + E::num_nodes * E::dim;
}

/// Calls f(w, word) for every word of r (word is a Real&); the centre gradients only when
/// `with_center` (the corotational frame; the total Lagrangian element does not read them).
template <class E, class F>
SOFTIK_HD_INLINE void for_each_rest_word(fem::RestData<E>& r, bool with_center, F&& f) {
  constexpr int n = E::num_nodes, d = E::dim, per_q = n * d + 1;
  SOFTIK_DEVICE_UNROLL
  for (int q = 0; q < E::num_quad; ++q) {
    SOFTIK_DEVICE_UNROLL
    for (int a = 0; a < n; ++a)
      SOFTIK_DEVICE_UNROLL
      for (int i = 0; i < d; ++i) f(q * per_q + a * d + i, r.dN_dX[q](a, i));
    f(q * per_q + n * d, r.w_detJ[q]);
  }
  if (!with_center) return;
  SOFTIK_DEVICE_UNROLL
  for (int a = 0; a < n; ++a)
    SOFTIK_DEVICE_UNROLL
    for (int i = 0; i < d; ++i) f(E::num_quad * per_q + a * d + i, r.dN_dX_center(a, i));
}

}  // namespace softik::cuda
