// Dilatation::NodalMean on the GPU: the CUDA side of host/assembly/nodal_dilatation.hpp. The node
// tables (node -> cells, rings, second-ring slots, rest volumes) are built on the host as the CPU
// builds them and uploaded once; the passes are host/assembly/nodal_kernel.hpp's bodies under
// exec::Cuda, around DeviceAssembler's cell pass:
//   prepare()          cell volumes, nodal volume ratios, nodal pressures pi_a and stiffnesses
//                      kappa_a, each cell's bulk energy (then checked: non-finite position,
//                      inverted neighbourhood, in the CPU's words);
//   cell_pass_fields() the cell pass reads pi and writes each cell's volume gradient g_c;
//   add_second_ring()  K += kappa_a g_a g_a^T: g_a per node, then one thread per row of the term.
// Private to cuda/.
#pragma once

#include <cstddef>
#include <string>

#include "cuda/assembly/device_cells.hpp"
#include "cuda/exec/device_array.hpp"
#include "softik/assembly.hpp"

namespace softik::cuda {

class DeviceNodalDilatation {
 public:
  /// The tables of `host`'s mesh. `rest_pass` is the mesh part of a pass whose x holds the rest
  /// positions and whose status is reset (each cell's rest volume is its volume pass there);
  /// throws naming the memory it needs when the device lacks it.
  DeviceNodalDilatation(const Assembler& host, const DeviceElement& element, std::size_t law,
                        const DevicePass& rest_pass);

  /// Before the cell pass, at pass.x (pass.status reset): throws as the CPU does. Synchronous.
  void prepare(const DeviceElement& element, std::size_t law, const DevicePass& pass, const std::string& law_name,
               bool stiffness);
  /// The nodal pressures (and, with stiffness, the volume-gradient output) of the cell pass.
  void cell_pass_fields(DevicePass& pass, bool stiffness) const;
  /// K (nnz device values) += the second-ring term, after the cell pass wrote the gradients.
  /// Asynchronous (the default stream).
  void add_second_ring(bool project_spd, Real* K, std::size_t nnz) const;
  /// Each cell's bulk energy of the last prepare() (num_cells device values).
  const Real* device_bulk_energy() const { return bulk_energy_.get(); }

 private:
  assembly::NodalTopology<exec::Space::Device> topology() const;

  int num_nodes_ = 0, nodes_per_cell_ = 0, dim_ = 0;
  exec::Table<const int, exec::Space::Device> cells_;  ///< the assembler's connectivity (columns)
  DeviceArray<int> cells_ptr_, cells_of_node_, ring_ptr_, ring_, ring_owner_, ring_slots_, first_bad_;
  DeviceArray<std::size_t> slot_ptr_;
  DeviceArray<Real> rest_volume_, cell_volume_, theta_, pi_, kappa_, bulk_energy_, volume_gradient_, ring_gradient_;
};

}  // namespace softik::cuda
