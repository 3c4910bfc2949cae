// What the core's assembly backends (the CUDA DeviceAssembler, the batch's lockstep, the device
// stiffness path of the linear solvers) and the white-box tests read of an Assembler, which its
// users do not: its colouring, its element-to-CSR slot map (slot_map.hpp) and its device assembly.
#pragma once

#include <vector>

#include "softik/assembly.hpp"

namespace softik::assembly {

struct AssemblerInternals {
  static int num_colors(const Assembler& a) { return a.num_colors(); }
  /// Per cell, npc^2 node-block bases of the CSR slot map; per node, its row word (slot_map.hpp).
  static const std::vector<int>& block_slots(const Assembler& a) { return a.block_slots(); }
  static const std::vector<int>& node_rows(const Assembler& a) { return a.node_rows(); }
  /// The index into K_values of cell c's local entry (r, s), or -1 where either DOF is not free.
  static int slot(const Assembler& a, int c, int r, int s) { return a.slot(c, r, s); }
  /// The DeviceAssembly behind Backend::Cuda or a batch's lockstep slot (null on the CPU backend).
  static DeviceAssembly* device_assembly(const Assembler& a) { return a.device_assembly(); }
};

}  // namespace softik::assembly
