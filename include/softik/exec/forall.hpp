// The execution layer (docs/architecture.md, "One kernel body for every backend"):
// forall(policy, n, body) runs body(i) for i in [0, n), where body is one SOFTIK_HD callable
// (a lambda or a functor) written once for every backend. The policy decides how:
//   Serial      a plain loop on the calling thread.
//   OmpCells    an OpenMP parallel loop, for iterations that write only their own outputs.
//   OmpColours  iterations are cells grouped in coloured blocks (no two blocks of one colour
//               share a node): colours in sequence, the blocks of a colour in parallel, the
//               cells of a block in order, so scattering needs no atomics and every sum is
//               formed in the same order for any number of threads (bitwise reproducible).
//   exec::Cuda  one GPU thread per iteration (cuda/exec/forall_cuda.cuh, CUDA backend only).
// Each policy names the Space its loop runs in; the arrays a body reads are Views of that
// Space (exec/view.hpp), so residency is stated, never guessed.
//
// atomic_add / atomic_min are the scatters for policies where iterations may collide
// (OmpCells, Cuda): hardware atomics on the device, OpenMP atomics on the host.
#pragma once

#include <algorithm>

#include "softik/config.hpp"
#include "softik/exec/view.hpp"

// OpenMP pragmas only where the translation unit is compiled with OpenMP (a CUDA translation
// unit's host pass is not): elsewhere the host policies run serially, which is always correct.
#if defined(_OPENMP)
#define SOFTIK_OMP(...) _Pragma(#__VA_ARGS__)
#else
#define SOFTIK_OMP(...)
#endif

namespace softik::exec {

struct Serial {
  static constexpr Space space = Space::Host;
};

struct OmpCells {
  static constexpr Space space = Space::Host;
  int num_threads = 1;
};

struct OmpColours {
  static constexpr Space space = Space::Host;
  const int* color_ptr = nullptr;     ///< blocks of colour k: color_blocks[color_ptr[k] .. color_ptr[k+1])
  const int* color_blocks = nullptr;  ///< block b holds cells [b * block_size, (b + 1) * block_size)
  int num_colors = 0;
  int block_size = 1;
  int num_threads = 1;
};

template <class Body>
void forall(const Serial&, int n, const Body& body) {
  for (int i = 0; i < n; ++i) body(i);
}

template <class Body>
void forall(const OmpCells& policy, int n, const Body& body) {
  SOFTIK_OMP(omp parallel for num_threads(policy.num_threads) schedule(static) if (policy.num_threads > 1 && n > 1024))
  for (int i = 0; i < n; ++i) body(i);
}

/// n is the number of cells the colouring covers.
template <class Body>
void forall(const OmpColours& policy, int n, const Body& body) {
  for (int k = 0; k < policy.num_colors; ++k) {
    const int begin = policy.color_ptr[k], end = policy.color_ptr[k + 1];
    SOFTIK_OMP(omp parallel for num_threads(policy.num_threads) schedule(dynamic, 1) if (end - begin > 1))
    for (int idx = begin; idx < end; ++idx) {
      const int first = policy.color_blocks[idx] * policy.block_size;
      const int last = std::min(n, first + policy.block_size);
      for (int i = first; i < last; ++i) body(i);
    }
  }
}

/// *target += value, safe against concurrent adds.
SOFTIK_HD_INLINE void atomic_add(Real* target, Real value) {
#if defined(__CUDA_ARCH__)
  atomicAdd(target, value);
#else
  SOFTIK_OMP(omp atomic)
  *target += value;
#endif
}

/// *target = min(*target, value), safe against concurrent calls.
SOFTIK_HD_INLINE void atomic_min(int* target, int value) {
#if defined(__CUDA_ARCH__)
  atomicMin(target, value);
#else
  SOFTIK_OMP(omp critical(softik_exec_atomic_min))
  *target = std::min(*target, value);
#endif
}

}  // namespace softik::exec
