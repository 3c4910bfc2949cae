// The CUDA instantiation of the one cell kernel (host/assembly/cell_kernel.hpp) for element E:
// the same AssembleCell body as the CPU, run by exec::Cuda with atomic scatters, for the law and
// formulation the dispatch table picks. Included only by the generated cuda_cell_kernels_<E>.cu.
#pragma once

#include "cuda/assembly/device_cells.hpp"
#include "cuda/exec/forall_cuda.cuh"
#include "host/assembly/cell_dispatch.hpp"

namespace softik::cuda {

/// Threads per block: small elements keep more cells in flight; Hex8's 24x24 tangent lives in
/// local memory either way.
template <class E>
constexpr int cell_block_size() {
  return E::num_nodes * E::dim <= 12 ? 128 : 64;
}

template <class E>
void launch_cells(const DevicePass& pass, std::size_t law, Formulation formulation) {
  assembly::dispatch_kernel(law, formulation, pass.tangent, pass.project_spd, [&](auto law_tag, auto form_tag) {
    using M = typename decltype(law_tag)::type;
    using Form = typename decltype(form_tag)::type;
    assembly::assemble_cells<E, M, Form, assembly::Scatter::Atomic>(exec::Cuda{cell_block_size<E>()}, pass);
  });
}

/// The gathered stiffness (linear simplices): frames one thread per cell, then one thread per
/// node block of K.
template <class E>
void launch_gathered(const DevicePass& pass, const DeviceGather& gather) {
  if constexpr (assembly::block_gather_element<E>())
    assembly::assemble_gathered<E, assembly::Scatter::Atomic>(exec::Cuda{cell_block_size<E>()}, exec::Cuda{128}, pass,
                                                              gather);
}

template <class E>
std::size_t cells_local_bytes(std::size_t law, Formulation formulation, fem::CorotationalTangent tangent,
                              bool project_spd) {
  std::size_t bytes = 0;
  assembly::dispatch_kernel(law, formulation, tangent, project_spd, [&](auto law_tag, auto form_tag) {
    using M = typename decltype(law_tag)::type;
    using Form = typename decltype(form_tag)::type;
    bytes =
        exec::forall_local_bytes<assembly::AssembleCell<E, M, Form, assembly::Scatter::Atomic, exec::Space::Device>>();
  });
  return bytes;
}

template <class E>
void launch_cell_volumes(const DevicePass& pass, std::size_t law, Real* out) {
  if constexpr (assembly::nodal_mean_element<E>()) {
    assembly::dispatch_law(law, [&](auto law_tag) {
      using M = typename decltype(law_tag)::type;
      if constexpr (fem::BulkSplit<M>::available)
        forall(exec::Cuda{cell_block_size<E>()}, pass.num_cells,
               assembly::CellVolume<E, M, exec::Space::Device>{pass, {out, static_cast<std::size_t>(pass.num_cells)}});
    });
  }
}

template <class E>
void launch_nodal_bulk(const DevicePass& pass, std::size_t law,
                       const assembly::NodalBulkFields<exec::Space::Device>& fields) {
  if constexpr (assembly::nodal_mean_element<E>()) {
    assembly::dispatch_law(law, [&](auto law_tag) {
      using M = typename decltype(law_tag)::type;
      if constexpr (fem::BulkSplit<M>::available)
        forall(exec::Cuda{cell_block_size<E>()}, pass.num_cells,
               assembly::CellNodalBulk<E, M, assembly::Scatter::Atomic, exec::Space::Device>{pass, fields});
    });
  }
}

template <class E>
DeviceElement device_element() {
  DeviceElement element;
  element.rest_words = assembly::rest_words<E>();
  element.pack_rest = &assembly::pack_rest<E>;
  element.launch = &launch_cells<E>;
  element.launch_cell_volumes = &launch_cell_volumes<E>;
  element.launch_nodal_bulk = &launch_nodal_bulk<E>;
  element.local_bytes_per_thread = &cells_local_bytes<E>;
  if constexpr (assembly::block_gather_element<E>()) {
    element.launch_gathered = &launch_gathered<E>;
    element.frame_words = assembly::frame_words<E>();
  }
  return element;
}

}  // namespace softik::cuda
