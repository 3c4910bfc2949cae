// DeviceArray<T>: one cudaMalloc'd buffer of `count` T, freed by its destructor (RAII, so that an
// exception on the host frees device memory; unique_handle.hpp). Movable, not copyable. Private
// to cuda/. Also upload(): a host vector's device copy.
#pragma once

#include <cstddef>
#include <vector>

#include "cuda/exec/cuda_check.hpp"
#include "cuda/exec/unique_handle.hpp"

namespace softik::cuda {

inline cudaError_t device_free(void* ptr) { return cudaFree(ptr); }

template <class T>
class DeviceArray : public CudaAllocation<T, device_free> {
 public:
  DeviceArray() = default;
  /// Allocates `count` elements (uninitialised); a zero count still gets a valid pointer.
  explicit DeviceArray(std::size_t count) {
    T* ptr = nullptr;
    SOFTIK_CUDA_CHECK(cudaMalloc(&ptr, count * sizeof(T) + 1));
    this->adopt(ptr, count);
  }

  T* get() const { return this->ptr_.get(); }
  std::size_t size() const { return this->count_; }
  std::size_t bytes() const { return this->count_ * sizeof(T); }
};

/// A device copy of `host` (a DeviceArray of host.size() elements).
template <class T>
DeviceArray<T> upload(const std::vector<T>& host) {
  DeviceArray<T> device(host.size());
  if (!host.empty())
    SOFTIK_CUDA_CHECK(cudaMemcpy(device.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

}  // namespace softik::cuda
