// Dilatation::NodalMean's passes around the cell pass (the average nodal pressure element of
// include/softik/fem/dilatation.hpp):
//   1. v_a = sum_{c ∋ a} v_c / n from the cells' volumes, theta_a = v_a / V_a;
//   2. the nodal pressures pi_a, stiffnesses kappa_a and the bulk energy (ElementKernels::nodal_bulk);
//   3. the cell pass reads pi and writes each cell's volume gradient g_c;
//   4. K += sum_a kappa_a g_a g_a^T, g_a = sum_{c ∋ a} g_c / n, through per-node slot tables
//      over the node's ring (the nodes of the cells around it).
// The topology (node -> cells, rings, slots) is built once; the per-pass arrays are the
// caller's (NodalDilatation::Work), so that assemble() stays const and re-entrant. Memory: the
// slot tables hold (|ring| dim)^2 ints per node, about 8 KB per node of a Tet4 mesh (the order of
// the stiffness values themselves).
#pragma once

#include <cstddef>
#include <vector>

#include "softik/assembly.hpp"

namespace softik {

class ElementKernels;
struct CellLoop;

class NodalDilatation {
 public:
  /// `rings[a]`: the sorted nodes of the cells around node a (a included), as build_pattern
  /// makes them; the pattern must hold every pair of nodes of one ring.
  NodalDilatation(const Mesh& mesh, const ElementKernels& kernels, const CellLoop& loop,
                  const std::vector<std::vector<int>>& rings, const std::vector<int>& free_index,
                  const CsrPattern& pattern);

  struct Work {
    std::vector<Real> theta, pi, kappa;  ///< per node
    std::vector<Real> cell_bulk_energy;  ///< per cell: sum_{a in c} V_c/n U_c(theta_a)
    std::vector<Real> volume_gradient;   ///< per cell, n*dim words (when K is assembled)
  };

  /// Steps 1 and 2 at positions x; throws naming the node whose neighbourhood is inverted where
  /// the law is undefined. With `stiffness`, sizes the volume gradients for step 3.
  void prepare(const ElementKernels& kernels, const CellLoop& loop, const Real* x, bool stiffness, Work& work) const;
  /// Step 4 into the CSR values K (the mesh given to the constructor). With `project_spd`
  /// (AssemblyOptions::project_spd) a negative kappa_a (a log J bulk term beyond theta = e) is
  /// clamped to zero, so that the term stays positive semi-definite like the projected cells.
  void add_second_ring(const Mesh& mesh, const Work& work, bool project_spd, Real* K) const;
  /// Rest volume per node, V_a.
  const std::vector<Real>& rest_volumes() const { return V_node_; }

 private:
  int npc_ = 0, dim_ = 0, num_cells_ = 0;
  std::vector<int> cells_ptr_, cells_of_node_;  ///< node -> the cells around it
  std::vector<int> ring_ptr_, ring_;            ///< node -> sorted ring nodes
  std::vector<std::size_t> slot_ptr_;           ///< node -> start of its (|ring| dim)^2 slots
  std::vector<int> ring_slots_;                 ///< CSR slot or -1 (a fixed DOF)
  std::vector<Real> V_node_;
};

}  // namespace softik
