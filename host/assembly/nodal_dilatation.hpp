// Dilatation::NodalMean's passes around the cell pass (the average nodal pressure element of
// include/softik/fem/dilatation.hpp):
//   1. v_a = sum_{c ∋ a} v_c / n from the cells' volumes, theta_a = v_a / V_a;
//   2. the nodal pressures pi_a, stiffnesses kappa_a and the bulk energy (ElementKernels::nodal_bulk);
//   3. the cell pass reads pi and writes each cell's volume gradient g_c;
//   4. K += sum_a kappa_a g_a g_a^T, g_a = sum_{c ∋ a} g_c / n, through per-node slot tables
//      over the node's ring (the nodes of the cells around it).
// The passes' bodies are nodal_kernel.hpp's (the CUDA backend runs the same on the GPU). The
// topology (node -> cells, rings, slots) is built once; the per-pass arrays are the caller's
// (NodalDilatation::Work), so that assemble() stays const and re-entrant. Memory: the
// slot tables hold (|ring| dim)^2 ints per node, about 8 KB per node of a Tet4 mesh (the order of
// the stiffness values themselves).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "host/assembly/nodal_kernel.hpp"
#include "softik/assembly.hpp"

namespace softik {

class ElementKernels;
struct CellLoop;

class NodalDilatation {
 public:
  /// The tables of `mesh` for its free-DOF numbering `free_index` and stiffness `pattern`, which
  /// must hold every pair of nodes of one ring (Assembler builds it so); `rest_cell_volumes`: each
  /// cell's rest volume under the law's measure (ElementKernels::cell_volumes at the rest
  /// positions).
  NodalDilatation(const Mesh& mesh, const std::vector<Real>& rest_cell_volumes, const std::vector<int>& free_index,
                  const CsrPattern& pattern);

  struct Work {
    std::vector<Real> theta, pi, kappa;  ///< per node
    std::vector<Real> cell_bulk_energy;  ///< per cell: sum_{a in c} V_c/n U_c(theta_a)
    std::vector<Real> volume_gradient;   ///< per cell, n*dim words (when K is assembled)
  };

  /// Steps 1 and 2 at positions x; throws naming the node whose neighbourhood is inverted where
  /// the law is undefined. With `stiffness`, sizes the volume gradients for step 3.
  void prepare(const ElementKernels& kernels, const CellLoop& loop, const Real* x, bool stiffness, Work& work) const;
  /// Step 4 into the CSR values K (loop: the constructor's mesh). With `project_spd`
  /// (AssemblyOptions::project_spd) a negative kappa_a (a log J bulk term beyond theta = e) is
  /// clamped to zero, so that the term stays positive semi-definite like the projected cells.
  void add_second_ring(const CellLoop& loop, const Work& work, bool project_spd, Real* K) const;

  /// The tables (assembly::NodalTopology's arrays), for a device backend to upload.
  struct Tables {
    std::vector<int> cells_ptr, cells_of_node;  ///< node -> the cells around it, ascending
    std::vector<int> ring_ptr, ring;            ///< node -> sorted ring nodes
    std::vector<int> ring_owner;                ///< ring entry -> its centre node
    std::vector<std::size_t> slot_ptr;          ///< node -> start of its (|ring| dim)^2 slots
    std::vector<int> ring_slots;                ///< CSR slot or -1 (a fixed DOF)
    std::vector<Real> rest_volume;              ///< V_a per node
  };
  const Tables& tables() const { return t_; }
  /// The tables as host views, with the cells of `mesh` (the constructor's).
  assembly::NodalTopology<exec::Space::Host> topology(const Mesh& mesh) const;

 private:
  int npc_ = 0, dim_ = 0, num_cells_ = 0;
  Tables t_;
};

/// The error of a NodalMean pass whose node `bad` has a nodal volume ratio theta <= 0 where the
/// law `law_name` is undefined (every backend throws these words). Does nothing for bad < 0.
void check_nodal_volume_ratio(int bad, Real theta, const std::string& law_name);

}  // namespace softik
