// DeviceArray<T>: one cudaMalloc'd buffer of `count` T, freed by its destructor (RAII, so that an
// exception on the host frees device memory). Movable, not copyable. Private to cuda/.
#pragma once

#include <cstddef>

#include "cuda/exec/cuda_check.hpp"

namespace softik::cuda {

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  /// Allocates `count` elements (uninitialised); a zero count still gets a valid pointer.
  explicit DeviceArray(std::size_t count) : count_(count) {
    SOFTIK_CUDA_CHECK(cudaMalloc(&ptr_, count * sizeof(T) + 1));
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& other) noexcept : ptr_(other.ptr_), count_(other.count_) {
    other.ptr_ = nullptr;
    other.count_ = 0;
  }
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = other.ptr_;
      count_ = other.count_;
      other.ptr_ = nullptr;
      other.count_ = 0;
    }
    return *this;
  }
  ~DeviceArray() { release(); }

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  void release() noexcept {
    if (ptr_) cudaFree(ptr_);  // a destructor cannot throw; a failed free leaks at worst
    ptr_ = nullptr;
  }

  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace softik::cuda
