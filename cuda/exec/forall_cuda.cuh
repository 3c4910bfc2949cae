// The CUDA policy of the execution layer (include/softik/exec/forall.hpp): forall(Cuda{}, n,
// body) launches one thread per iteration on the calling host thread's default stream (the
// library is built with --default-stream per-thread) and returns without waiting, like a kernel
// launch. The body is the same SOFTIK_HD callable the host policies run; it must be copyable to
// the device (it captures Device views, never host pointers).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/exec/cuda_check.hpp"
#include "softik/exec/forall.hpp"

namespace softik::exec {

struct Cuda {
  static constexpr Space space = Space::Device;
  int block = 128;  ///< threads per block (a multiple of 32)
};

template <class Body>
__global__ void forall_kernel(int n, Body body) {
  const int i = static_cast<int>(blockIdx.x) * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x);
  if (i < n) body(i);
}

template <class Body>
void forall(const Cuda& policy, int n, const Body& body) {
  if (n <= 0) return;
  const int grid = (n + policy.block - 1) / policy.block;
  forall_kernel<Body><<<grid, policy.block>>>(n, body);
  SOFTIK_CUDA_CHECK(cudaGetLastError());
}

/// Local memory (stack frame) per thread of forall's kernel for this body type, in bytes: the
/// driver reserves it for every thread the device can hold at once.
template <class Body>
std::size_t forall_local_bytes() {
  cudaFuncAttributes attributes;
  SOFTIK_CUDA_CHECK(cudaFuncGetAttributes(&attributes, forall_kernel<Body>));
  return attributes.localSizeBytes;
}

}  // namespace softik::exec
