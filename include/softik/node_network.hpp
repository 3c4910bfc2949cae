// Node-network (mass-spring) models (seed 001; issue 17; docs/method.md section 12): point masses
// joined by links (springs with a rest length, cubic hardening and dashpots, fem/link.hpp) whose
// forces are summed per node. They are integrated in time by ExplicitSolver
// (explicit_dynamics.hpp), and pressure acts on their exposed faces by seed 001's
// f_i = P/6 (p2 - p1) x (p3 - p1), quads split (fem/pressure_load.hpp).
//
// Built from a volume mesh (make_node_network), the links' stiffnesses are sums of per-cell
// shares k = c E V_cell / l^2 (V_cell the cell's volume, l the link's rest length):
//   Tet4: every edge, c = 1. Under a uniform dilatation every tetrahedron then stores exactly
//         the continuum's energy 9 K e^2 / 2 V with K = 2E/3 (nu = 1/4): the bulk modulus is exact
//         on any tet mesh; the shear response is an approximation that depends on the cells' shapes.
//   Hex8: edges c = 1/10 and face diagonals c = 2/5; with body diagonals edges 2/15, face
//         diagonals 4/15, body diagonals 3/10. On a grid of cubes both give, per cell, the
//         lattice's elastic constants C11 = 3 mu, C12 = C44 = mu = 2E/5: exactly isotropic, Young's
//         modulus E and Poisson's ratio 1/4 (a uniform strain is an exact equilibrium: the patch
//         test of tests/test_node_network.cpp). On boxes that are not cubes the shares follow
//         V / l^2 and the response is orthotropic.
// A network of central-force links obeys the Cauchy relation C12 = C44, which fixes Poisson's
// ratio at 1/4 for an isotropic lattice: make_node_network refuses any other poissons_ratio (use
// an FEM body for other ratios). Nodal masses are the lumped masses rho integral(N_a dV).
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

  int num_nodes() const { return static_cast<int>(mass.size()); }
  int num_links() const { return static_cast<int>(links.size()); }
};

struct NetworkFromMesh {
  Real youngs_modulus = 0;      ///< E (Pa), > 0
  Real poissons_ratio = 0.25;   ///< must be 1/4 (see the file comment)
  Real density = 0;             ///< rho (kg/m^3), > 0
  bool face_diagonals = true;   ///< Hex8: link the diagonals of every face (needed for shear stiffness)
  bool body_diagonals = false;  ///< Hex8: also link the four diagonals through every cell
  /// k3 = cubic_hardening * k / L^2 (dimensionless, >= 0): at a strain of 10% the tension is
  /// (1 + cubic_hardening / 100) times the linear spring's.
  Real cubic_hardening = 0;
  /// c = dashpot_time * k (seconds, >= 0): stiffness-proportional damping of every link.
  Real dashpot_time = 0;
};

/// The network of a Tet4 or Hex8 mesh (its node numbering, node and surface groups kept).
/// Throws softik::Error on another cell type, a bad parameter (naming it), or a mesh that
/// validate(Mesh) refuses.
NodeNetwork make_node_network(const Mesh& mesh, const NetworkFromMesh& spec);

/// Throws softik::Error naming the node or link and the fix on: sizes that do not match, NaN or
/// infinite values, a node with zero or negative mass, a link with an out-of-range or repeated
/// node, a link joining two nodes at the same place or with a rest length <= 0, a negative
/// stiffness, hardening or dashpot, a link listed twice, and a node no link reaches (it would
/// fly off on its own).
void validate(const NodeNetwork& network);

/// The rest lengths |X_b - X_a| of the links (for networks built by hand: set
/// parameters[l].L from it).
std::vector<Real> rest_lengths(const NodeNetwork& network);

class DeviceNetworkForces;

/// Link forces summed per node (node-centric: every node gathers its own links, so the sum is
/// formed in the same order for any number of threads and no two threads write one node).
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
  /// f += the link forces at positions x and velocities v (3 per node; v may be null: no dashpots).
  void add_forces(const Real* x, const Real* v, Real* f) const;
  /// The stored energy sum_l psi_l(x).
  Real energy(const Real* x) const;
  /// Per node, the sums over its links of the stiffness norm max(k_t, |s| / l) at x and of the
  /// dashpots c: the rows of the block Gershgorin bounds of K and of the damping matrix.
  void node_bounds(const Real* x, std::vector<Real>& stiffness, std::vector<Real>& dashpot) const;
  /// Throws softik::Error naming the link whose current length is zero or not finite.
  void check_lengths(const Real* x) const;
  /// The node -> incidence table the gather streams: node i's incidences are
  /// [incidence_first()[i], incidence_first()[i+1]), each with the link's other node, its (k, L)
  /// and, when some link has hardening or a dashpot, its (k3, c) (empty otherwise); every link
  /// appears twice, once from each end.
  const std::vector<int>& incidence_first() const { return first_; }
  const std::vector<int>& incidence_other() const { return other_; }
  const std::vector<Real>& incidence_spring() const { return spring_; }
  const std::vector<Real>& incidence_extra() const { return extra_; }
  bool has_dashpots() const { return dashpots_; }

 private:
  NodeNetwork network_;
  std::vector<int> first_;  ///< node i's incidences are [first_[i], first_[i+1])
  std::vector<int> other_;  ///< per incidence: the link's other node
  std::vector<Real> spring_;  ///< per incidence: k, L
  std::vector<Real> extra_;   ///< per incidence: k3, c (empty when every link has k3 = c = 0)
  bool extras_ = false;       ///< any link with k3 != 0 or c != 0
  bool dashpots_ = false;     ///< any link with c > 0
  std::unique_ptr<DeviceNetworkForces> device_;  ///< Backend::Cuda
  int num_threads_ = 1;
};

}  // namespace softik
