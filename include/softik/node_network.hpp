// Node-network (mass-spring) models (docs/method.md section 12): point masses
// joined by links (springs with a rest length, cubic hardening and dashpots, fem/link.hpp) and,
// optionally, volume cells (fem/cell_volume.hpp), whose forces are summed per node. They are
// integrated in time by ExplicitSolver (explicit_dynamics.hpp), and pressure acts on their exposed
// faces by the per-triangle f_i = P/6 (p2 - p1) x (p3 - p1), quads split (fem/pressure_load.hpp).
//
// Built from a volume mesh (make_node_network) for Young's modulus E and Poisson's ratio nu, with
// mu = E / (2 (1 + nu)) and lambda = E nu / ((1 + nu)(1 - 2 nu)), the links' stiffnesses are sums
// of per-cell shares k = c E_L V_cell / l^2 (V_cell the cell's volume, l the link's rest length)
// with the link modulus E_L = 5 mu / 2 (E_L = E when nu = 1/4):
//   Tet4: every edge, c = 1. Under a uniform dilatation every tetrahedron then stores exactly
//         9 K_L e^2 / 2 V with K_L = 2 E_L / 3: the links' bulk modulus is exact on any tet mesh;
//         the shear response is an approximation that depends on the cells' shapes.
//   Hex8: edges c = 1/10 and face diagonals c = 2/5; with body diagonals edges 2/15, face
//         diagonals 4/15, body diagonals 3/10. On a grid of cubes both give, per cell, the
//         lattice's elastic constants C11 = 3 mu, C12 = C44 = mu = 2 E_L / 5: isotropic with
//         shear modulus mu (a uniform strain is an exact equilibrium: the patch test of
//         tests/network/test_node_network.cpp). On boxes that are not cubes the shares follow V / l^2 and
//         the response is orthotropic.
// A network of central-force links obeys the Cauchy relation C12 = C44 (lambda = mu, Poisson's
// ratio 1/4). For 1/4 < nu < 1/2 every cell also gets a volume term
//   W = kappa_v/2 (V - V0)^2 / V0,   kappa_v = lambda - mu,
// (V the cell's current volume, V0 its rest volume; exact trilinear volume for Hex8), which at small
// strain stores kappa_v (tr eps)^2 V0 / 2: it adds kappa_v to C11 and C12 and nothing to C44, so
// the lattice of cubes has C11 = lambda + 2 mu, C12 = lambda, C44 = mu (modulus E, ratio nu) and a
// tet network the exact bulk modulus 2 E_L / 3 + kappa_v = lambda + 2 mu / 3 on any mesh. nu < 1/4
// would need kappa_v < 0 (a cell that prefers to collapse) and is refused, as is nu >= 1/2. Nodal
// masses are the lumped masses rho integral(N_a dV).
#pragma once

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "softik/backend.hpp"
#include "softik/fem/link.hpp"
#include "softik/mesh.hpp"

namespace softik {

struct NodeNetwork {
  std::vector<Real> X;                          ///< rest positions, 3 per node
  std::vector<Real> mass;                       ///< per node (kg), > 0
  std::vector<std::array<int, 2>> links;        ///< node pairs, a != b, each pair once
  std::vector<fem::LinkParameters> parameters;  ///< one per link
  /// Named faces over the network's nodes (from the mesh: its surface groups; triangles and quads).
  std::map<std::string, SurfaceGroup> surface_groups;
  std::map<std::string, std::vector<int>> node_groups;
  /// Volume cells (empty: none; fem/cell_volume.hpp): each stores W = kappa/2 (V - V0)^2 / V0.
  CellType volume_cell_type = CellType::Tet4;  ///< Tet4 or Hex8 (VTK node order, positive volume)
  std::vector<int> volume_cells;               ///< 4 (Tet4) or 8 (Hex8) nodes per cell
  std::vector<Real> volume_stiffness;          ///< kappa per cell (Pa), >= 0
  std::vector<Real> rest_volume;               ///< V0 per cell (m^3), > 0

  int num_nodes() const { return static_cast<int>(mass.size()); }
  int num_links() const { return static_cast<int>(links.size()); }
  int num_volume_cells() const { return static_cast<int>(volume_stiffness.size()); }
  /// The nodes of one volume cell: 4 (Tet4) or 8 (Hex8).
  int volume_cell_nodes() const { return nodes_per_cell(volume_cell_type); }
};

struct NetworkFromMesh {
  Real youngs_modulus = 0;      ///< E (Pa), > 0
  Real poissons_ratio = 0.25;   ///< nu in [1/4, 1/2); above 1/4 the cells get volume terms (file comment)
  Real density = 0;             ///< rho (kg/m^3), > 0
  bool face_diagonals = true;   ///< Hex8: link the diagonals of every face (needed for shear stiffness)
  bool body_diagonals = false;  ///< Hex8: also link the four diagonals through every cell
  /// k3 = cubic_hardening * k / L^2 (dimensionless, >= 0): at a strain of 10% the tension is
  /// (1 + cubic_hardening / 100) times the linear spring's.
  Real cubic_hardening = 0;
  /// c = dashpot_time * k (seconds, >= 0): stiffness-proportional damping of every link.
  Real dashpot_time = 0;
};

/// The network of a Tet4 or Hex8 mesh (its node numbering, node and surface groups kept), with
/// one volume cell per mesh cell when poissons_ratio > 1/4. Throws softik::Error on another cell
/// type, a bad parameter (naming it; nu < 1/4 with the Cauchy relation), or a mesh that
/// validate(Mesh) refuses.
NodeNetwork make_node_network(const Mesh& mesh, const NetworkFromMesh& spec);

/// Throws softik::Error naming the node or link and the fix on: sizes that do not match, NaN or
/// infinite values, a node with zero or negative mass, a link with an out-of-range or repeated
/// node, a link joining two nodes at the same place or with a rest length <= 0, a negative
/// stiffness, hardening or dashpot, a link listed twice, a node no link reaches (it would
/// fly off on its own), and a volume cell with an out-of-range or repeated node, a stiffness
/// kappa < 0, a rest volume V0 <= 0, or a volume <= 0 at the rest positions.
void validate(const NodeNetwork& network);

/// The rest lengths |X_b - X_a| of the links (for networks built by hand: set
/// parameters[l].L from it).
std::vector<Real> rest_lengths(const NodeNetwork& network);

/// The network's nodes as a mesh without cells (dim 3, rest positions X, its node and surface
/// groups): what pressure loads, node selections and probes on a network refer to.
Mesh node_mesh(const NodeNetwork& network);

/// The current volumes V(x) of the network's volume cells (fem/cell_volume.hpp; x 3 per node).
std::vector<Real> cell_volumes(const NodeNetwork& network, const Real* x);

class DeviceNetworkForces;

/// Link and volume-cell forces summed per node (node-centric: every node gathers its own links
/// and its share of its cells, so the sum is formed in the same order for any number of threads
/// and no two threads write one node).
class NetworkForces {
 public:
  /// Builds the node -> link table; validates the network. num_threads 0: all hardware threads.
  /// Backend::Cuda gathers the forces on the GPU with the same loop body (host arrays in and out;
  /// needs a CUDA build and device, else softik::Error, ErrorKind::Unsupported).
  explicit NetworkForces(const NodeNetwork& network, int num_threads = 0, Backend backend = Backend::Cpu);
  ~NetworkForces();
  NetworkForces(NetworkForces&&) noexcept;
  NetworkForces& operator=(NetworkForces&&) noexcept;

  const NodeNetwork& network() const { return network_; }
  /// f += the link and volume-cell forces at positions x and velocities v (3 per node; v may be
  /// null: no dashpots).
  void add_forces(const Real* x, const Real* v, Real* f) const;
  /// The stored energy sum_l psi_l(x) + sum_c W_c(x).
  Real energy(const Real* x) const;
  /// Per node i at x: stiffness[i] >= sum_j ||K_ij||_2, the block row i of the Hessian K (links:
  /// 2 sum_l max(k_t, |s| / l); cells: fem::volume_term_row_bound), so that max_i stiffness[i] / m_i
  /// bounds the largest eigenvalue of M^-1 K (block Gershgorin); dashpot[i] = sum_l c_l over its
  /// links (half the damping matrix's row bound).
  void node_bounds(const Real* x, std::vector<Real>& stiffness, std::vector<Real>& dashpot) const;
  /// Throws softik::Error naming the link whose current length is zero or not finite.
  void check_lengths(const Real* x) const;
  /// Throws softik::Error naming the volume cell whose current volume is <= 0 or not finite.
  void check_volumes(const Real* x) const;
  /// check_lengths and check_volumes.
  void check_state(const Real* x) const;
  /// The node -> incidence table the gather streams: node i's incidences are
  /// [incidence_first()[i], incidence_first()[i+1]), each with the link's other node, its (k, L)
  /// and, when some link has hardening or a dashpot, its (k3, c) (empty otherwise); every link
  /// appears twice, once from each end.
  const std::vector<int>& incidence_first() const { return first_; }
  const std::vector<int>& incidence_other() const { return other_; }
  const std::vector<Real>& incidence_spring() const { return spring_; }
  const std::vector<Real>& incidence_extra() const { return extra_; }
  bool has_dashpots() const { return dashpots_; }
  /// The node -> volume-cell table (empty without volume cells): node i's incidences are
  /// [volume_incidence_first()[i], volume_incidence_first()[i+1]), each the slot n c + a of cell c
  /// (n nodes per cell) in which node i is node a, cells in increasing order.
  const std::vector<int>& volume_incidence_first() const { return cell_first_; }
  const std::vector<int>& volume_incidence_slot() const { return cell_slot_; }

 private:
  NodeNetwork network_;
  std::vector<int> first_;       ///< node i's incidences are [first_[i], first_[i+1])
  std::vector<int> other_;       ///< per incidence: the link's other node
  std::vector<Real> spring_;     ///< per incidence: k, L
  std::vector<Real> extra_;      ///< per incidence: k3, c (empty when every link has k3 = c = 0)
  bool extras_ = false;          ///< any link with k3 != 0 or c != 0
  bool dashpots_ = false;        ///< any link with c > 0
  std::vector<int> cell_first_;  ///< node i's volume-cell incidences are [cell_first_[i], cell_first_[i+1])
  std::vector<int> cell_slot_;   ///< per incidence: n c + a
  std::unique_ptr<DeviceNetworkForces> device_;  ///< Backend::Cuda
  int num_threads_ = 1;
};

}  // namespace softik
