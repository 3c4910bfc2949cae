// The state of a DeviceAssembler (device_assembler.hpp), shared by its two halves:
// device_assembler.cu (the upload of one assembler, its passes and downloads) and
// device_assembler_designs.cu (set_designs and assemble_designs: many designs of one mesh
// topology in one launch). Private to those two files.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "cuda/assembly/device_assembler.hpp"
#include "cuda/assembly/device_cells.hpp"
#include "cuda/assembly/device_nodal_dilatation.hpp"
#include "cuda/exec/cuda_check.hpp"
#include "cuda/exec/device_array.hpp"
#include "cuda/exec/pinned_buffer.hpp"
#include "host/assembly/cell_status.hpp"
#include "softik/assembly.hpp"
#include "softik/material.hpp"

namespace softik::cuda {

/// Uploads num_cells records of `words` entries each (record of cell c filled by fill(c, T*))
/// into the structure-of-arrays layout dst[w * num_cells + c], in chunks of about 32 MB so
/// that the host never holds a second copy of a whole array.
template <class T, class Fill>
void upload_transposed(T* dst, int num_cells, int words, Fill&& fill) {
  const std::size_t chunk_cells =
      std::max<std::size_t>(1, (std::size_t{32} << 20) / (sizeof(T) * static_cast<std::size_t>(words)));
  std::vector<T> record(static_cast<std::size_t>(words));
  std::vector<T> columns;
  for (std::size_t first = 0; first < static_cast<std::size_t>(num_cells); first += chunk_cells) {
    const std::size_t count = std::min(chunk_cells, static_cast<std::size_t>(num_cells) - first);
    columns.resize(count * static_cast<std::size_t>(words));
    for (std::size_t j = 0; j < count; ++j) {
      fill(static_cast<int>(first + j), record.data());
      for (int w = 0; w < words; ++w)
        columns[static_cast<std::size_t>(w) * count + j] = record[static_cast<std::size_t>(w)];
    }
    SOFTIK_CUDA_CHECK(cudaMemcpy2D(dst + first, static_cast<std::size_t>(num_cells) * sizeof(T), columns.data(),
                                   count * sizeof(T), count * sizeof(T), static_cast<std::size_t>(words),
                                   cudaMemcpyHostToDevice));
  }
}

inline std::size_t material_bytes(const std::vector<Material>& materials) {
  return std::visit([](const auto& m) { return sizeof(m); }, materials.front()) * materials.size();
}

struct DeviceAssembler::Impl {
  int num_cells = 0, num_dofs = 0, num_free_dofs = 0, nnz = 0, dim = 3, nodes_per_cell_count = 0;
  DeviceElement element;
  std::size_t law = 0;
  std::string law_name;
  AssemblyOptions options;
  int material_stride = 0;
  DeviceArray<int> cells, block_slots, node_rows;
  DeviceArray<Real> rest, x, force, K, cell_energy;
  PinnedBuffer<Real> staging;  ///< x up and the force down (one caller at a time: the Assembler's mutex)
  DeviceArray<unsigned char> materials;
  DeviceArray<assembly::CellStatus> status;
  Real energy = 0;
  std::unique_ptr<DeviceNodalDilatation> nodal;  ///< Dilatation::NodalMean only
  // The gathered stiffness (gathered_stiffness_applies; set_block_gather turns it off).
  bool gather_available = false, gather_on = false;
  int num_blocks = 0;
  DeviceArray<int> gather_ptr, gather_pairs, gather_base, gather_row_a, gather_row_b;
  DeviceArray<Real> frames;
  // Designs (set_designs): materials[d * design_material_count + k], and the batch buffers.
  int num_designs = 0, design_material_count = 0;
  DeviceArray<unsigned char> design_materials;
  DeviceArray<Real> design_x, design_force, design_K, design_cell_energy;
  DeviceArray<Real> design_rest;  ///< per design rest words when set_designs got meshes (else empty)
  DeviceArray<assembly::CellStatus> design_status;
  std::vector<Real> design_energy;
  // Energy reduction: per-design sums of the cell energies (cub, no atomics: deterministic).
  DeviceArray<int> segment_offsets;  ///< d * num_cells, d = 0..designs
  DeviceArray<Real> energy_sums;
  DeviceArray<unsigned char> reduce_scratch;

  /// The mesh part of a pass and its state x (device views; outputs set by the caller).
  DevicePass pass_for(const Real* d_x) const;
  /// The gather tables as device views.
  DeviceGather gather_pass() const;
  /// Sums `designs` segments of num_cells cell energies into energy_sums; returns them.
  std::vector<Real> reduce_energies(const Real* d_cell_energy, int designs);
  // The constructor's phases (each commented at its definition):
  void check_device(const Assembler& host) const;
  void copy_sizes(const Assembler& host);
  void upload_mesh(const Assembler& host);
  void upload_materials(const std::vector<Material>& laws);
  void allocate_state();
  void upload_gather(const Assembler& host);
  void start_nodal_dilatation(const Assembler& host);
  // set_designs()'s phases (each commented at its definition):
  void check_designs(const std::vector<std::vector<Material>>& laws, const std::vector<const Mesh*>& meshes) const;
  void check_design_memory(const std::vector<std::vector<Material>>& laws, bool with_meshes) const;
  void release_designs();
  void upload_design_materials(const std::vector<std::vector<Material>>& laws);
  void allocate_designs(std::size_t D, const std::vector<const Mesh*>& meshes);
  /// The name check_cell_status gives an inverted cell's formulation.
  std::string formulation_name() const {
    return options.formulation == Formulation::Corotational ? std::string("QR corotational rotation") : law_name;
  }
};

}  // namespace softik::cuda
