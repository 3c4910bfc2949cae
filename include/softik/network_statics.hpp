// The static equilibrium problem of a node network (node_network.hpp; docs/method.md section
// 12.5): its stored energy psi(x), internal forces f = -d psi/dx and tangent stiffness
// K = d^2 psi/dx^2 on the free DOFs, the links' Hessians
//   K_aa = K_bb = H,  K_ab = K_ba = -H,   H = k_t e e^T + (s_el / l)(I - e e^T)   (fem/link.hpp)
// summed per link (dashpots carry no static force), and the volume cells' Hessians
//   d2W/dx_a dx_e = kappa/V0 g_a g_e^T + p skew(w_ae)                          (fem/cell_volume.hpp)
// summed per cell. It is what solve_arc_length
// (continuation.hpp) follows for a network under nodal loads and follower pressure, through
// limit points (snap-through) with their inertia from the factorisation.
#pragma once

#include <vector>

#include "softik/assembly.hpp"
#include "softik/loads.hpp"
#include "softik/node_network.hpp"

namespace softik {

class NetworkStatics {
 public:
  /// `fixed_dofs` is empty (nothing fixed: the solvers refuse it) or 3 entries per node,
  /// non-zero for a fixed DOF. The stiffness pattern couples the two nodes of every link, the
  /// nodes of every volume cell and the vertices of every face of `pressures` (their follower-load stiffness); pressure
  /// loads given to a solver later must be among them (or lie on linked nodes). Validates the network
  /// (validate(NodeNetwork)); num_threads 0: all hardware threads (the force gather).
  NetworkStatics(const NodeNetwork& network, std::vector<char> fixed_dofs,
                 const std::vector<PressureLoad>& pressures = {}, int num_threads = 0);

  int num_dofs() const { return 3 * forces_.network().num_nodes(); }
  int num_free_dofs() const { return pattern_.rows; }
  const CsrPattern& pattern() const { return pattern_; }
  /// DOF -> row of the free system, or -1 for a fixed DOF.
  const std::vector<int>& free_dof_index() const { return free_index_; }
  /// The network's nodes as a mesh without cells (rest positions X, node and surface groups):
  /// what pressure loads on the network refer to.
  const Mesh& nodes() const { return nodes_; }
  const NodeNetwork& network() const { return forces_.network(); }
  /// At least one DOF is fixed.
  bool fixes_something() const { return pattern_.rows < num_dofs(); }

  /// psi(x), f(x) = -d psi/dx (num_dofs entries) and the free-DOF values of K(x) in pattern();
  /// each null output is skipped. Throws softik::Error (ErrorKind::Numerical) naming a link of
  /// zero or non-finite length.
  void assemble(const std::vector<Real>& x, Real* energy, std::vector<Real>* force, std::vector<Real>* K_values) const;

  /// Throws softik::Error (ErrorKind::Input) naming the first node whose free DOFs have a
  /// direction that no link or volume cell resists at x: its free diagonal block of K has an
  /// eigenvalue below 1e-12 of the largest diagonal entry of K in absolute value (a local
  /// mechanism: a planar truss's node moving out of its plane, the middle node of a straight
  /// two-link chain moving sideways). The linear solver would only report a singular matrix.
  void check_mechanisms(const std::vector<Real>& x) const;

 private:
  NetworkForces forces_;
  Mesh nodes_;
  std::vector<int> free_index_;
  CsrPattern pattern_;
  std::vector<int> link_slots_;  ///< per link, 36 slots of [K_aa K_ab; K_ba K_bb] (row-major 6x6), -1 where not free
};

}  // namespace softik
