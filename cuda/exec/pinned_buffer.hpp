// PinnedBuffer<T>: page-locked host memory (cudaMallocHost), grown on demand, through which the
// per-step host <-> device copies of vectors go (the Assembler's x and force, a solver's right-hand
// sides and solutions). A cudaMemcpy from or to pageable memory goes through the driver's own
// staging buffer piece by piece: on an H200's host that takes 0.16 ms for the 0.5 MB force vector
// of a 100.6k-tet model (bench_cuda_inverse_step).
// One caller at a time (the Assembler holds its device mutex; a solver is not shared between
// threads). Movable, not copyable. Private to cuda/.
#pragma once

#include <cstddef>
#include <cstring>

#include "cuda/exec/cuda_check.hpp"
#include "cuda/exec/unique_handle.hpp"

namespace softik::cuda {

inline cudaError_t pinned_free(void* ptr) { return cudaFreeHost(ptr); }

template <class T>
class PinnedBuffer : public CudaAllocation<T, pinned_free> {
 public:
  /// device[0, count) = host[0, count), through the page-locked buffer; returns when the copy is done.
  void to_device(T* device, const T* host, std::size_t count) {
    if (count == 0) return;
    T* stage = reserve(count);
    std::memcpy(stage, host, count * sizeof(T));
    SOFTIK_CUDA_CHECK(cudaMemcpy(device, stage, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  /// host[0, count) = device[0, count), through the page-locked buffer (waits for the stream's work).
  void to_host(T* host, const T* device, std::size_t count) {
    if (count == 0) return;
    T* stage = reserve(count);
    SOFTIK_CUDA_CHECK(cudaMemcpy(stage, device, count * sizeof(T), cudaMemcpyDeviceToHost));
    std::memcpy(host, stage, count * sizeof(T));
  }

 private:
  /// A page-locked buffer of at least `count` T (the capacity: CudaAllocation's count).
  T* reserve(std::size_t count) {
    if (count > this->count_) {
      this->release();
      SOFTIK_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(this->ptr_.replace()), count * sizeof(T)));
      this->count_ = count;
    }
    return this->ptr_.get();
  }
};

}  // namespace softik::cuda
