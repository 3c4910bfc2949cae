// The owners of CUDA resources, movable (the source is left empty), not copyable. Private to cuda/.
//
// UniqueHandle<Handle, Release>: one resource named by a handle (a pointer from a CUDA allocator,
// an opaque library object such as a cuBLAS handle), given back with Release(handle) when the
// owner is destroyed or replaced, so that an exception on the host releases it. Release's status
// is ignored (a destructor cannot throw; a failed release leaks at worst). The math libraries'
// objects are held by it (LibraryHandle, cuda/linear/cuda_library_check.hpp).
//
// CudaAllocation<T, Release>: the ownership that DeviceArray (cudaMalloc) and PinnedBuffer
// (cudaMallocHost) share: a pointer (a UniqueHandle) and its count of T.
#pragma once

#include <cstddef>
#include <utility>

namespace softik::cuda {

template <class Handle, auto Release>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  explicit UniqueHandle(Handle handle) noexcept : handle_(handle) {}
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  UniqueHandle(UniqueHandle&& other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
    }
    return *this;
  }
  ~UniqueHandle() { reset(); }

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != Handle{}; }
  /// Releases what is held and returns the address a Create function writes the new object to.
  Handle* replace() {
    reset();
    return &handle_;
  }
  void reset() noexcept {
    if (handle_ != Handle{}) (void)Release(handle_);
    handle_ = Handle{};
  }

 private:
  Handle handle_{};
};

template <class T, auto Release>
class CudaAllocation {
 public:
  CudaAllocation() = default;
  CudaAllocation(CudaAllocation&& other) noexcept
      : ptr_(std::move(other.ptr_)), count_(std::exchange(other.count_, 0)) {}
  CudaAllocation& operator=(CudaAllocation&& other) noexcept {
    ptr_ = std::move(other.ptr_);  // nothing when other is this
    count_ = std::exchange(other.count_, 0);
    return *this;
  }

 protected:
  /// Takes `count` T at `ptr` (nothing held before).
  void adopt(T* ptr, std::size_t count) noexcept {
    ptr_ = UniqueHandle<T*, Release>(ptr);
    count_ = count;
  }
  void release() noexcept {
    ptr_.reset();
    count_ = 0;
  }

  UniqueHandle<T*, Release> ptr_;
  std::size_t count_ = 0;
};

}  // namespace softik::cuda
