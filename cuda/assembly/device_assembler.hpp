// GPU assembly of the elastic energy, nodal forces and tangent stiffness (CUDA backend, private
// to cuda/ and its tests; the core reaches it through host/assembly/device_assembly.hpp).
// Produces the CPU Assembler's numbers to round-off: the same cell kernel
// (host/assembly/cell_kernel.hpp) runs under the exec::Cuda policy, one thread per cell, and
// scatters with double atomics (so sums are not bitwise reproducible from run to run; they
// agree to round-off). The rotated corotational stiffness of the linear simplices is gathered
// instead, one thread per node block of K, without atomics (host/assembly/block_gather.hpp; it
// is bitwise reproducible). Cell energies are written per cell and reduced without atomics.
//
// Conventions are Assembler's (assembly.hpp):
//   x          current nodal positions, num_dofs entries, x[n*dim + i].
//   force      f = -dE/dx on ALL DOFs (fixed ones included), num_dofs entries.
//   K values   d^2E/dx^2 over the free DOFs, nnz entries in the host Assembler's pattern()
//              (CSR, both triangles, sorted columns): K_values[k] is the entry (row, col[k]).
//   energy     sum of the cell energies.
// Supported: every element trait (Edge2, Tri3, Quad4, Tet4, Hex8); every formulation of AssemblyOptions (corotational
// with the polar or QR rotation and the rotated or consistent tangent, linear small strain, total Lagrangian
// hyperelastic) and every law of softik::Material, homogeneous or per cell; the optional element SPD projection
// (AssemblyOptions::project_spd); both averaged dilatations (CellMean in the cell kernel, NodalMean with the nodal
// passes of DeviceNodalDilatation around it). Other cell types throw.
//
// Device memory (uploaded once in the constructor; structure of arrays over the cells):
//   connectivity (npc ints/cell), rest data (fem::RestData<E> words/cell: 25 Tet4, 224 Hex8),
//   the element -> CSR slot map (npc^2 node-block bases/cell: 16 Tet4, 64 Hex8), the materials,
//   with the gathered stiffness its tables (npc^2 pair words/cell, 4 ints per node block) and the
//   cells' frames (npc*dim + 1 words/cell),
//   and the x, force, K-value and cell-energy buffers reused by every assemble() (no per-call
//   allocation). The cell tables are columns (structure of arrays) so that neighbouring threads
//   read neighbouring words; the frames are records, since a node block reads a cell's words
//   together.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <vector>

#include "host/assembly/device_assembly.hpp"
#include "softik/assembly.hpp"
#include "softik/material.hpp"

namespace softik::cuda {

/// Which outputs assemble() computes (the others keep their previous contents).
struct AssemblyRequest {
  bool energy = false;
  bool force = true;
  bool stiffness = true;
};

class DeviceAssembler final : public DeviceAssembly {
 public:
  /// Uploads the mesh, rest data, materials and slot map of `host` (which may be destroyed
  /// afterwards: everything needed is copied). Throws softik::Error for an unsupported cell type, when no
  /// CUDA device is usable, or when the device lacks the memory (required_device_bytes(), plus
  /// the local memory the driver reserves for the kernel's per-thread stack frames).
  explicit DeviceAssembler(const Assembler& host);
  ~DeviceAssembler() override;
  DeviceAssembler(DeviceAssembler&&) noexcept;
  DeviceAssembler& operator=(DeviceAssembler&&) noexcept;
  DeviceAssembler(const DeviceAssembler&) = delete;
  DeviceAssembler& operator=(const DeviceAssembler&) = delete;

  /// Device memory the buffers of a DeviceAssembler for `host` take, in bytes (host-side
  /// arithmetic; no device needed).
  static std::size_t required_device_bytes(const Assembler& host);

  int num_cells() const;
  int num_dofs() const;
  int num_free_dofs() const;
  int nnz() const;

  /// Copies x (num_dofs entries; checked finite as the CPU does) into device_positions() and
  /// assembles from there. Synchronous.
  void assemble(const std::vector<Real>& x, AssemblyRequest request = {});
  /// Assembles from positions already on the device: d_x points to num_dofs doubles in device
  /// memory (device_positions() or any other buffer), written before this call on the default
  /// stream or synchronised. Synchronous: on return the requested outputs are in
  /// device_force() / device_K_values() / energy(). Throws softik::Error naming the smallest
  /// DOF with a NaN/inf position, or, as the CPU does, the smallest cell inverted in x where the
  /// formulation is undefined (laws with log J, QR corotation).
  void assemble(const Real* d_x, AssemblyRequest request = {});

  /// Whether assemble() gathers the stiffness node block by node block, without atomics
  /// (host/assembly/block_gather.hpp): the rotated corotational tangent without the SPD
  /// projection on Tet4 and Tri3 cells, unless set_block_gather(false). The other passes, and
  /// assemble_designs(), scatter with atomics.
  bool gathers_stiffness() const;
  /// Turns the gathered stiffness off (the atomic scatter, kept for comparison:
  /// bench/cuda_assembly.cpp) or back on where it applies.
  void set_block_gather(bool on);

  /// Device buffer of num_dofs positions owned by this object (for assemble(const Real*)).
  Real* device_positions();
  const Real* device_force() const;  ///< num_dofs entries (device_K_values(): nnz entries)

  // ---- Designs: many parameter sets of this mesh in ONE launch over designs x cells ----------
  /// Sets the designs evaluated by assemble_designs(): materials[d] holds design d's materials
  /// (one, or one per cell; every design the same count and the host's law). `meshes` (empty:
  /// every design has the host's geometry) gives each design's mesh when their rest positions
  /// differ: the same cell type, cells and free DOFs as the host's (the same topology, so the same
  /// CSR pattern and slots: the caller's promise; the counts are checked), each design's rest
  /// data packed from its own nodes.
  /// Allocates the batch buffers (num_designs x (2 num_dofs + nnz) doubles, plus the rest words
  /// per design with `meshes`), checked against free device memory with a clear error first.
  /// Refused for Dilatation::NodalMean (its nodal passes run per design, not in one launch).
  void set_designs(const std::vector<std::vector<Material>>& materials, const std::vector<const Mesh*>& meshes = {});
  int num_designs() const;
  /// Device buffer of num_designs * num_dofs positions (design d at d * num_dofs).
  Real* device_design_positions();
  /// Assembles every design from d_x (num_designs * num_dofs device doubles) in one kernel
  /// launch (grid: cells x designs). Synchronous. Throws naming the design and the cell (or DOF)
  /// as assemble() does; with `failures`, records each failing design's error there instead
  /// (resized to num_designs; null for the designs that succeeded) and throws nothing for them.
  void assemble_designs(const Real* d_x, AssemblyRequest request = {},
                        std::vector<std::exception_ptr>* failures = nullptr);
  const Real* device_design_force() const;     ///< num_designs * num_dofs (design d at d * num_dofs)
  const Real* device_design_K_values() const;  ///< num_designs * nnz (design d at d * nnz)
  /// Per design, when the last assemble_designs() requested energy.
  std::vector<Real> design_energies() const;

  /// Results of the last assemble() that requested them.
  Real energy() const override;
  std::vector<Real> force() const;
  std::vector<Real> K_values() const;
  void download_force(std::vector<Real>& force) const override;        ///< resized to num_dofs
  void download_K_values(std::vector<Real>& K_values) const override;  ///< resized to nnz

  // DeviceAssembly (the core's view of this backend).
  void assemble_from_host(const std::vector<Real>& x, bool energy, bool force, bool stiffness) override {
    assemble(x, AssemblyRequest{energy, force, stiffness});
  }
  const Real* device_K_values() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace softik::cuda
