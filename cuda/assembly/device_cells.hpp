// The CUDA backend's per-element entry points: the cell kernel of host/assembly/cell_kernel.hpp
// launched with the exec::Cuda policy for every law and formulation of the dispatch table
// (host/assembly/cell_dispatch.hpp). Defined in cell_kernels.cuh and instantiated once per
// element trait in the generated cuda_cell_kernels_<trait>.cu (SOFTIK_ELEMENTS in
// CMakeLists.txt). Private to cuda/.
#pragma once

#include <cstddef>

#include "host/assembly/block_gather.hpp"
#include "host/assembly/cell_kernel.hpp"
#include "host/assembly/nodal_kernel.hpp"
#include "softik/assembly.hpp"
#include "softik/mesh.hpp"

namespace softik::cuda {

using DevicePass = assembly::CellPass<exec::Space::Device>;
using DeviceGather = assembly::BlockGatherPass<exec::Space::Device>;

struct DeviceElement {
  int rest_words = 0;  ///< words per cell of the packed rest data
  /// assembly::pack_rest<E>: cell c's rest words to words[w * stride].
  void (*pack_rest)(const Mesh& mesh, int c, Real* words, std::size_t stride) = nullptr;
  /// Launches the pass on the calling thread's default stream (asynchronous).
  void (*launch)(const DevicePass& pass, std::size_t law, Formulation formulation) = nullptr;
  /// Dilatation::NodalMean's per-cell passes (host/assembly/nodal_kernel.hpp; linear simplices
  /// and laws with a bulk term only, else nothing is launched), asynchronous as launch():
  /// each cell's volume at pass.x into out (num_cells), and the nodal pressures, stiffnesses and
  /// cell bulk energies (pass.materials, pass.rest, pass.nodes read).
  void (*launch_cell_volumes)(const DevicePass& pass, std::size_t law, Real* out) = nullptr;
  void (*launch_nodal_bulk)(const DevicePass& pass, std::size_t law,
                            const assembly::NodalBulkFields<exec::Space::Device>& fields) = nullptr;
  /// The rotated corotational pass with the stiffness gathered node block by node block
  /// (host/assembly/block_gather.hpp: the cells' frames, then the blocks), asynchronous as
  /// launch(); null for elements other than the linear simplices (block_gather_element).
  void (*launch_gathered)(const DevicePass& pass, const DeviceGather& gather) = nullptr;
  int frame_words = 0;  ///< assembly::frame_words<E>() where launch_gathered is set
  /// Local memory (stack frame) per thread of that kernel, in bytes: the driver reserves it for
  /// every thread the device can hold at once.
  std::size_t (*local_bytes_per_thread)(std::size_t law, Formulation formulation, fem::CorotationalTangent tangent,
                                        bool project_spd) = nullptr;
};

template <class E>
DeviceElement device_element();

/// The entry points of the mesh's element (every trait of host/mesh/element_dispatch.hpp).
DeviceElement device_element(CellType type);

}  // namespace softik::cuda
