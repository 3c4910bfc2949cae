// The CPU backend of the cell kernels: one instantiation per element trait and law behind a
// type-erased boundary. The loop body is cell_kernel.hpp's (the same the CUDA backend runs);
// this backend only chooses the policies: exec::HostColours for passes that scatter (bitwise
// reproducible for any thread count) and exec::HostCells for per-cell outputs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "host/assembly/cell_kernel.hpp"
#include "softik/assembly.hpp"

namespace softik {

/// The cells and their colouring as the CPU policies need them.
struct CellLoop {
  const Mesh* mesh = nullptr;
  exec::HostColours colours;         ///< its num_threads also serves the per-cell loops
  const int* block_slots = nullptr;  ///< per cell, npc^2 node-block bases (records layout; slot_map.hpp)
  const int* node_rows = nullptr;    ///< per node, its row word (slot_map.hpp)
  int prefetch_cells = 0;            ///< assembly::CellPass::prefetch_cells
};

/// What Dilatation::NodalMean adds to a pass (host/assembly/nodal_dilatation.hpp).
struct NodalDilatationFields {
  const Real* nodal_pressure = nullptr;  ///< pi_a per node (read)
  Real* volume_gradient = nullptr;       ///< g_c per cell, n*dim words (written; null: not needed)
};

class ElementKernels {
 public:
  virtual ~ElementKernels() = default;
  /// cell_energy: num_cells (or null); force: num_dofs, accumulated; K: nnz, accumulated.
  /// Non-finite positions and inverted cells are recorded in `status`. `nodal` is used under
  /// Dilatation::NodalMean only.
  virtual void assemble(const CellLoop& loop, const Real* x, Real* cell_energy, Real* force, Real* K,
                        assembly::CellStatus& status, const NodalDilatationFields& nodal = {}) const = 0;
  /// Dilatation::NodalMean, first pass: each cell's volume v_c under its law's volume measure
  /// (fem::cell_volume) into out[c] (at the rest positions: its rest volume).
  virtual void cell_volumes(const CellLoop& loop, const Real* x, Real* out) const = 0;
  /// Dilatation::NodalMean, second pass: with the nodal volume ratios theta and rest volumes
  /// V_node, accumulates pi_a += V_c/n U_c'(theta_a) / V_a and kappa_a += V_c/n U_c''(theta_a) / V_a^2
  /// over every cell c and node a of c, and writes cell_energy[c] = sum_a V_c/n U_c(theta_a).
  /// Returns the first node whose theta <= 0 where the law is undefined there, else -1.
  virtual int nodal_bulk(const CellLoop& loop, const Real* theta, const Real* V_node, Real* pi, Real* kappa,
                         Real* cell_energy) const = 0;
  virtual void von_mises(const CellLoop& loop, const Real* x, Real* out, assembly::CellStatus& status) const = 0;
  /// Lumped mass per DOF, or with load_share the consistent nodal integral rho * integral(N_a dV)
  /// (assembly::CellLumpedMass), accumulated into out (num_dofs).
  virtual void lumped_mass(const CellLoop& loop, Real density, bool load_share, Real* out) const = 0;
  /// Mass matrix values (consistent, or lumped on the diagonal) accumulated into the
  /// free-DOF CSR values `out` (nnz).
  virtual void mass_matrix(const CellLoop& loop, Real density, bool lumped, Real* out) const = 0;
  /// What check_cell_status names for an inverted cell: the law or the QR corotational rotation.
  virtual std::string formulation_name() const = 0;
};

/// Builds the kernels for `mesh.cell_type`, the law held by `materials` and the options.
std::unique_ptr<ElementKernels> make_element_kernels(const Mesh& mesh, const std::vector<Material>& materials,
                                                     const AssemblyOptions& options);

/// Per element trait (instantiated in the generated element_kernels_<trait>.cpp, CMakeLists.txt).
template <class E>
std::unique_ptr<ElementKernels> make_element_kernels_for(const Mesh& mesh, const std::vector<Material>& materials,
                                                         const AssemblyOptions& options);

}  // namespace softik
