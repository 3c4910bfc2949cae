// What DeviceAssembler (cuda/device_assembler.cu) hands to the per-element assembly kernels
// (cuda/device_assembly_<trait>.cu), and what they report back. Private to cuda/.
//
// Device layouts, structure of arrays over the cells so that consecutive threads (cells) read
// consecutive words (coalesced):
//   cells  [a * num_cells + c]       node a of cell c
//   rest   [w * num_cells + c]       word w of cell c's fem::RestData<E> (device_rest_data.hpp)
//   slots  [k * num_cells + c]       entry k = r * nd + s of cell c's slot map (Assembler::slots())
//   materials                         one law M (the variant's alternative): num_cells entries when
//                                     material_stride == 1, one entry when it is 0
//   x, force                          num_dofs, DOF n*dim + i
//   K                                 nnz values in the host Assembler's CSR pattern
#pragma once

#include <cstddef>

#include "softik/config.hpp"
#include "softik/fem/corotational_element.hpp"
#include "softik/fem/rotation.hpp"
#include "softik/mesh.hpp"

namespace softik::cuda {

/// Sentinel of the status indices: cudaMemset's byte 0x7f repeated (larger than any index).
constexpr int kNoIndex = 0x7f7f7f7f;

/// Written by the kernels; reset before each launch (energy to 0, indices to kNoIndex).
struct DeviceStatus {
  Real energy;             ///< sum of the cell energies (when requested)
  int first_invalid_cell;  ///< smallest cell inverted where the formulation is undefined
  int first_nonfinite_dof; ///< smallest DOF gathered with a NaN/inf position
};

struct AssemblyLaunch {
  int num_cells = 0;
  int material_stride = 0;  ///< 0: one material for all cells; 1: one per cell
  /// Designs evaluated in the same launch (grid.y): design d reads x + d * x_stride and its
  /// materials from materials + d * material_design_stride (in materials), accumulates into
  /// force + d * force_stride, K + d * K_stride and status[d]. One design: all strides unused.
  int num_designs = 1;
  std::size_t x_stride = 0, force_stride = 0, K_stride = 0, material_design_stride = 0;
  const int* cells = nullptr;
  const Real* rest = nullptr;
  const void* materials = nullptr;
  const int* slots = nullptr;
  bool corotational = false;  ///< LinearElastic under Formulation::Corotational (else total Lagrangian)
  fem::RotationMethod rotation = fem::RotationMethod::Polar;
  fem::CorotationalTangent tangent = fem::CorotationalTangent::Rotated;
  bool project_spd = false;
  bool energy = false;       ///< accumulate status->energy
  const Real* x = nullptr;
  Real* force = nullptr;     ///< accumulated (atomics) when non-null
  Real* K = nullptr;         ///< accumulated (atomics) when non-null
  DeviceStatus* status = nullptr;  ///< num_designs entries
};

/// One element trait's entry points (compile-time sizes behind a host-side table, DESIGN.md
/// section 11, rule 8).
struct DeviceElement {
  int rest_words = 0;  ///< words per cell of the packed rest data
  /// Computes cell c's fem::RestData from mesh.X with fem::compute_rest_data (as the CPU
  /// Assembler does) and packs it into `words` (rest_words entries).
  void (*pack_rest)(const Mesh& mesh, int c, Real* words) = nullptr;
  /// Launches the assembly kernel for the law with index `law` in softik::Material, on the
  /// default stream (asynchronous).
  void (*launch)(const AssemblyLaunch& launch, std::size_t law) = nullptr;
  /// Local memory (stack frame) per thread of that law's kernel, in bytes: the driver reserves
  /// it for every thread the device can hold at once.
  std::size_t (*local_bytes_per_thread)(std::size_t law) = nullptr;
};

DeviceElement device_element_tet4();
DeviceElement device_element_hex8();

}  // namespace softik::cuda
