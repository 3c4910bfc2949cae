// Arrays whose residency is in their type (docs/architecture.md, "The public API"): a
// View<T, Space::Host> points to host memory and a View<T, Space::Device> to device memory, so
// that a loop can only be handed arrays that live where its execution policy runs it
// (exec/forall.hpp). Views do not own; their owner (a std::vector on the host, a device buffer
// in the CUDA backend) outlives the loop.
//
// A Table is a view read as records of entries through a Layout: entry k of record c is at
//   records (array of structures):   c * entries + k      (the CPU's cache-friendly order)
//   columns (structure of arrays):   k * records + c      (the GPU's coalesced order)
// so that one gather reads either layout (host/assembly/cell_kernel.hpp).
#pragma once

#include <cstddef>

#include "softik/config.hpp"

namespace softik::exec {

/// Where an array lives.
enum class Space { Host, Device };

template <class T, Space S>
struct View {
  T* data = nullptr;
  std::size_t size = 0;
  SOFTIK_HD_INLINE T& operator[](std::size_t i) const { return data[i]; }
  SOFTIK_HD_INLINE explicit operator bool() const { return data != nullptr; }
};

template <class T>
using HostView = View<T, Space::Host>;
template <class T>
using DeviceView = View<T, Space::Device>;

/// Where entry k of record c sits in a flat array.
struct Layout {
  std::size_t record_stride = 0;  ///< distance between records
  std::size_t entry_stride = 0;   ///< distance between the entries of one record
  SOFTIK_HD_INLINE std::size_t operator()(std::size_t c, std::size_t k) const {
    return c * record_stride + k * entry_stride;
  }
  /// Array of structures: each record's `entries` values together.
  static Layout records(std::size_t entries) { return Layout{entries, 1}; }
  /// Structure of arrays: entry k of all `num_records` records together.
  static Layout columns(std::size_t num_records) { return Layout{1, num_records}; }
};

template <class T, Space S>
struct Table {
  View<T, S> values;
  Layout layout;
  SOFTIK_HD_INLINE T& operator()(std::size_t c, std::size_t k) const { return values.data[layout(c, k)]; }
};

}  // namespace softik::exec
