// The execution layer (docs/architecture.md, "One kernel body for every backend"):
// forall(policy, n, body) runs body(i) for i in [0, n), where body is one SOFTIK_HD callable
// (a lambda or a functor) written once for every backend. The policy decides how:
//   Serial      a plain loop on the calling thread.
//   HostCells   a parallel loop on softik's host threads (exec/thread_pool.hpp), in one
//               contiguous range per thread, for iterations that write only their own outputs.
//   HostColours iterations are cells grouped in coloured blocks (no two blocks of one colour
//               share a node): colours in sequence, the blocks of a colour in parallel, the
//               cells of a block in order, so scattering needs no atomics and every sum is
//               formed in the same order for any number of threads (bitwise reproducible).
//   exec::Cuda  one GPU thread per iteration (cuda/exec/forall_cuda.cuh, CUDA backend only).
// Each policy names the Space its loop runs in; the arrays a body reads are Views of that
// Space (exec/view.hpp), so residency is stated, never guessed.
//
// atomic_add / atomic_min are the scatters for policies where iterations may collide
// (HostCells, Cuda): hardware atomics on the device, compare-and-swap loops on the host.
#pragma once

#include <algorithm>
#include <atomic>

#include "softik/config.hpp"
#include "softik/exec/thread_pool.hpp"
#include "softik/exec/view.hpp"

namespace softik::exec {

struct Serial {
  static constexpr Space space = Space::Host;
};

struct HostCells {
  static constexpr Space space = Space::Host;
  int num_threads = 1;
};

struct HostColours {
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

// The body appears once in each host loop below (small loops take the same path with one
// part): a second copy of an inlined cell kernel made the compiler stop inlining the helpers
// inside it (15% slower corotational assembly, measured).
template <class Body>
void forall(const HostCells& policy, int n, const Body& body) {
  const int threads = policy.num_threads > 1 && n > 1024 ? policy.num_threads : 1;
  parallel(threads, [&](int t, int p) {
    const int begin = static_cast<int>(static_cast<long long>(n) * t / p);
    const int end = static_cast<int>(static_cast<long long>(n) * (t + 1) / p);
    for (int i = begin; i < end; ++i) body(i);
  });
}

/// n is the number of cells the colouring covers. The blocks of a colour are handed out one at
/// a time (a shared counter), like a dynamic schedule; body(first, last) runs the cells
/// [first, last) of one block in order (a body may take several at once:
/// host/assembly/cell_batch.hpp).
template <class RangeBody>
void forall_blocks(const HostColours& policy, int n, const RangeBody& body) {
  for (int k = 0; k < policy.num_colors; ++k) {
    const int end = policy.color_ptr[k + 1];
    std::atomic<int> next{policy.color_ptr[k]};
    const int threads = std::max(1, std::min(policy.num_threads, end - policy.color_ptr[k]));
    parallel(threads, [&](int, int) {
      for (int idx = next.fetch_add(1, std::memory_order_relaxed); idx < end;
           idx = next.fetch_add(1, std::memory_order_relaxed)) {
        const int first = policy.color_blocks[idx] * policy.block_size;
        body(first, std::min(n, first + policy.block_size));
      }
    });
  }
}

template <class Body>
void forall(const HostColours& policy, int n, const Body& body) {
  forall_blocks(policy, n, [&](int first, int last) {
    for (int i = first; i < last; ++i) body(i);
  });
}

/// *target += value, safe against concurrent adds.
SOFTIK_HD_INLINE void atomic_add(Real* target, Real value) {
#if defined(__CUDA_ARCH__)
  atomicAdd(target, value);
#else
  Real seen, want;
  __atomic_load(target, &seen, __ATOMIC_RELAXED);
  do {
    want = seen + value;
  } while (!__atomic_compare_exchange(target, &seen, &want, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
#endif
}

/// *target = min(*target, value), safe against concurrent calls.
SOFTIK_HD_INLINE void atomic_min(int* target, int value) {
#if defined(__CUDA_ARCH__)
  atomicMin(target, value);
#else
  int seen = __atomic_load_n(target, __ATOMIC_RELAXED);
  while (value < seen && !__atomic_compare_exchange_n(target, &seen, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
#endif
}

/// A hint that *target will soon be written: the host asks its caches for the line (GCC and
/// Clang's __builtin_prefetch); the device ignores it (its scatters are atomics at L2).
SOFTIK_HD_INLINE void prefetch_for_write(const void* target) {
#if !defined(__CUDA_ARCH__) && defined(__GNUC__)
  __builtin_prefetch(target, 1);
#else
  (void)target;
#endif
}

}  // namespace softik::exec
