// Host assembly of the elastic energy, nodal forces and tangent stiffness of a mesh.
//
// Conventions (units are the user's; SI recommended):
//   x          current nodal positions as a DOF vector: x[n*dim + i] (Mesh::rest_positions()).
//   energy     E(x) = sum over cells of the stored elastic energy.
//   force      the elastic force the body exerts on its nodes, f = -dE/dx, for ALL DOFs (fixed
//              DOFs included: there it is minus the reaction). num_dofs entries.
//   stiffness  K = d^2E/dx^2 restricted to the free DOFs, in the CSR pattern pattern() (both
//              triangles stored, columns sorted). Fixed DOFs are eliminated, not penalised.
//              Static equilibrium is K dx = f + f_ext on the free DOFs.
// The CSR pattern and the element -> CSR slot map are built once in the constructor; values are
// refilled by every assemble() call. Contiguous blocks of cells are coloured so that no two blocks
// of one colour share a node; colours run one after another and the blocks of a colour in
// parallel, each block's cells in order, so every entry is summed in the same order and the
// result is bitwise identical for any number of threads.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <Eigen/SparseCore>

#include "softik/backend.hpp"
#include "softik/exec/view.hpp"
#include "softik/fem/corotational_element.hpp"
#include "softik/fem/dilatation.hpp"
#include "softik/material.hpp"
#include "softik/mesh.hpp"

namespace softik {

enum class Formulation {
  LinearSmallStrain,  ///< linear elasticity about the rest state (material must be LinearElastic)
  Corotational,       ///< element-rotated linear elasticity (material must be LinearElastic)
  Hyperelastic,       ///< total Lagrangian with any material law
};

struct AssemblyOptions {
  Formulation formulation = Formulation::Corotational;
  fem::RotationMethod rotation = fem::RotationMethod::Polar;
  /// Rotated (R K0 R^T, symmetric: the real-time default) or Consistent (exact derivative).
  fem::CorotationalTangent corotational_tangent = fem::CorotationalTangent::Rotated;
  /// Clamp each element tangent's negative eigenvalues to zero before scattering (for Cholesky
  /// solvers on indefinite hyperelastic tangents). The unprojected tangent is the default.
  bool project_spd = false;
  /// Which volume ratio the law's bulk term sees (fem/dilatation.hpp): Pointwise (the standard
  /// element), CellMean (mean dilatation: the locking-free Hex8) or NodalMean (average nodal
  /// pressure: the locking-free Tet4, whose stiffness then couples each node with the neighbours
  /// of its neighbours; CPU backend). Formulation::Hyperelastic or LinearSmallStrain, with a
  /// law that has a bulk term (not SaintVenantKirchhoff).
  fem::Dilatation dilatation = fem::Dilatation::Pointwise;
  /// Backend::Cuda computes energy, force and K values on the GPU (the same cell kernel as the
  /// CPU; results equal to round-off, summed with atomics so not bitwise reproducible) and
  /// copies them back into the host vectors of assemble(); von_mises and lumped_mass stay on
  /// the host. Needs a CUDA build and device (else the constructor throws).
  Backend backend = Backend::Cpu;
  int num_threads = 0;  ///< 0: all hardware threads
  /// Cells per block. Contiguous blocks of cells are coloured so that blocks of one colour
  /// share no node; colours run in sequence, the blocks of a colour in parallel, the cells of a
  /// block in order. Large blocks keep the scatter into K cache-local; small meshes (one block)
  /// run serially, which is cheaper than a parallel region there. 0 (the default): automatic,
  /// kMaxAutoBlockSize cells, or the largest power of two that makes at least kAutoBlocks
  /// blocks (at least kMinAutoBlockSize cells). It depends on the mesh alone, so that K's sums
  /// are formed in the same order for any number of threads. On 2 threads (bench/RESULTS.md,
  /// BM_AssemblyBlocks): at 8.2k Tet4 cells
  /// 1024-cell blocks (3 colours of a few blocks: one thread idles through part of each) are
  /// 14-17 % slower than 128-512; at 98k cells smaller blocks are 4-10 % slower than 1024.
  int block_size = 0;
};

/// AssemblyOptions::block_size = 0: the automatic block size's bounds and target.
constexpr int kMaxAutoBlockSize = 1024;
constexpr int kMinAutoBlockSize = 64;
constexpr int kAutoBlocks = 32;

/// The automatic block size for a mesh of num_cells cells (AssemblyOptions::block_size = 0).
int auto_block_size(int num_cells);

/// Free-DOF sparsity pattern in compressed sparse row form.
struct CsrPattern {
  int rows = 0;
  std::vector<int> row_ptr;  ///< rows + 1 entries
  std::vector<int> col;      ///< column indices, sorted within each row
  int nnz() const { return static_cast<int>(col.size()); }
  /// Index into the values of entry (row, col), or -1 when it is not in the pattern.
  int slot(int row, int column) const {
    const auto begin = col.begin() + row_ptr[static_cast<size_t>(row)];
    const auto end = col.begin() + row_ptr[static_cast<size_t>(row) + 1];
    const auto it = std::lower_bound(begin, end, column);
    return (it != end && *it == column) ? static_cast<int>(it - col.begin()) : -1;
  }
};

/// Per-cell element loops behind a type-erased boundary (one instantiation per element trait
/// and material law; the CPU backend's, and a device backend's behind DeviceAssembly).
class ElementKernels;
struct CellLoop;
class LinearSolver;
class DeviceAssembly;
class NodalDilatation;
namespace assembly {
struct CellStatus;
struct AssemblerWithDevice;
struct AssemblerInternals;
}  // namespace assembly

class Assembler {
 public:
  /// `materials` holds one entry (homogeneous) or one per cell (heterogeneous parameters; all of
  /// the same law). `fixed_dofs` is empty (nothing fixed) or has num_dofs entries, non-zero for a
  /// fixed DOF. Validates the mesh and the materials; throws softik::Error on bad input.
  Assembler(const Mesh& mesh, std::vector<Material> materials, std::vector<char> fixed_dofs,
            AssemblyOptions options = {});
  ~Assembler();
  Assembler(Assembler&&) noexcept;
  Assembler& operator=(Assembler&&) noexcept;

  int num_dofs() const { return num_dofs_; }
  int num_free_dofs() const { return pattern_.rows; }
  const CsrPattern& pattern() const { return pattern_; }
  /// DOF -> row of the free system, or -1 for a fixed DOF or a DOF of a node no cell uses.
  const std::vector<int>& free_dof_index() const { return free_index_; }
  const AssemblyOptions& options() const { return options_; }
  const Mesh& mesh() const { return mesh_; }
  /// The materials given to the constructor (one for all cells, or one per cell; one law).
  const std::vector<Material>& materials() const { return materials_; }

  /// One pass over the cells; each null output is skipped. force: num_dofs entries,
  /// K_values: pattern().nnz() entries. Throws if x holds NaN/inf, or names the first cell that
  /// is inverted in x where the formulation is undefined (laws with log J, QR corotation).
  void assemble(const std::vector<Real>& x, Real* energy, std::vector<Real>* force, std::vector<Real>* K_values) const;

  /// Backend::Cuda only: assemble() with the K values left in device memory (the returned view:
  /// pattern().nnz() values, valid until the next assemble call on this assembler) for a solver
  /// whose accepts_device_values() is true (stiffness_stays_on_device, linear_solver.hpp), so that
  /// they never cross to the host. energy and force (either may be null) are copied to the host as
  /// assemble() does. Throws on the CPU backend.
  exec::DeviceView<const Real> assemble_on_device(const std::vector<Real>& x, Real* energy,
                                                  std::vector<Real>* force) const;

  Real energy(const std::vector<Real>& x) const;
  std::vector<Real> force(const std::vector<Real>& x) const;
  /// K as a sparse matrix over the free DOFs (built from the CSR values).
  Eigen::SparseMatrix<Real, Eigen::RowMajor, int> stiffness(const std::vector<Real>& x) const;
  Eigen::SparseMatrix<Real, Eigen::RowMajor, int> to_sparse(const std::vector<Real>& K_values) const;

  /// Von Mises equivalent of the Cauchy stress per cell, averaged over its quadrature points.
  std::vector<Real> von_mises(const std::vector<Real>& x) const;
  /// Lumped mass per DOF, repeated for each component, positive on every node: the row sum
  /// m_a = rho * integral(N_a dV) on linear cells, the HRZ lumping (the consistent mass's
  /// diagonal scaled to the cell's mass) on quadratic ones (Tet10), whose row sums are negative
  /// at the corners.
  std::vector<Real> lumped_mass(Real density) const;
  /// The consistent nodal share of a uniform body force per unit acceleration,
  /// rho * integral(N_a dV) per DOF (equal to lumped_mass() on linear cells; negative at a
  /// Tet10's corners). gravity_load() uses it.
  std::vector<Real> body_force_share(Real density) const;
  /// The mass matrix over the free DOFs in the CSR pattern pattern() (nnz values), for one
  /// density rho: consistent, M_(a i)(b i) = rho * integral(N_a N_b dV) (the element's mass
  /// quadrature, exact on affine cells and parallelepipeds), or with `lumped` lumped_mass() on the diagonal.
  /// The mass of a fixed DOF is not in it.
  std::vector<Real> mass_matrix(Real density, bool lumped = false) const;

 private:
  friend struct assembly::AssemblerWithDevice;
  /// What the core's backends and white-box tests read of an assembler, which its users do not
  /// (host/assembly/assembler_internals.hpp).
  friend struct assembly::AssemblerInternals;
  int num_colors() const { return static_cast<int>(color_ptr_.size()) - 1; }
  /// Element -> CSR slot map, by node pair (host/assembly/slot_map.hpp): per cell c, npc^2 block
  /// bases at c*npc^2 (a*npc + b: the slot of the first free entry of the node block, -1 if
  /// either node has no free DOF), and per node its row word (entries per row, free-DOF mask).
  const std::vector<int>& block_slots() const { return block_slots_; }
  const std::vector<int>& node_rows() const { return node_rows_; }
  /// The index into K_values of cell c's local entry (r, s) = (a*dim + i, b*dim + k), or -1 where
  /// either DOF is not free.
  int slot(int c, int r, int s) const;
  /// The device backend's assembly behind AssemblyOptions::backend == Backend::Cuda (null on
  /// the CPU backend).
  DeviceAssembly* device_assembly() const { return device_.get(); }
  /// `device` (when not null) makes this assembler's DeviceAssembly in place of the backend's
  /// (host/assembly/device_assembly.hpp: a batch's designs assembled in one launch).
  Assembler(const Mesh& mesh, std::vector<Material> materials, std::vector<char> fixed_dofs, AssemblyOptions options,
            const std::function<std::unique_ptr<DeviceAssembly>(const Assembler&)>* device);

  CellLoop cell_loop() const;
  /// Throws unless options_.dilatation suits the formulation, the law and the backend.
  void check_dilatation(const Material& law) const;
  /// Throws the Error a pass's status records (the same words for every backend).
  void check_status(const assembly::CellStatus& status, const Real* x) const;
  /// Backend::Cuda: one GPU pass (the caller holds device_mutex_); energy and force copied back,
  /// K values left in the device assembler's buffer.
  void device_assemble(const std::vector<Real>& x, Real* energy, std::vector<Real>* force, bool stiffness) const;

  Mesh mesh_;
  AssemblyOptions options_;
  int num_dofs_ = 0;
  std::vector<int> free_index_;
  CsrPattern pattern_;
  std::vector<int> color_ptr_;  ///< blocks of colour k: color_blocks_[color_ptr_[k] .. color_ptr_[k+1])
  std::vector<int> color_blocks_;
  std::vector<int> block_slots_;  ///< per cell, npc^2 node-block bases (slot_map.hpp)
  std::vector<int> node_rows_;    ///< per node, its row word (slot_map.hpp)
  std::vector<Material> materials_;
  std::unique_ptr<ElementKernels> kernels_;
  std::unique_ptr<DeviceAssembly> device_;    ///< Backend::Cuda only
  std::unique_ptr<NodalDilatation> nodal_;    ///< Dilatation::NodalMean only
  std::unique_ptr<std::mutex> device_mutex_;  ///< one assemble() at a time on the device buffers
};

/// The DOFs of the given nodes (all components), as a fixed_dofs mask for Assembler.
std::vector<char> fix_nodes(const Mesh& mesh, const std::vector<int>& nodes);

}  // namespace softik
