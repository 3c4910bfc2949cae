// Building a node network from a volume mesh, and checking one (include/softik/node_network.hpp).
#include "softik/node_network.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "host/network/volume_cells.hpp"
#include "softik/assembly.hpp"
#include "softik/error.hpp"
#include "softik/fem/cell_volume.hpp"
#include "softik/fem/pressure_load.hpp"

namespace softik {
namespace {

using fem::Vec3;

// Ratios within this of 1/4 are 1/4: links alone, no volume cells.
constexpr Real kQuarterTolerance = 1e-12;

Vec3 node_position(const std::vector<Real>& X, int n) {
  return Vec3(X[3 * static_cast<size_t>(n)], X[3 * static_cast<size_t>(n) + 1], X[3 * static_cast<size_t>(n) + 2]);
}

// One link share of a cell: the pair and its coefficient c in k = c E V_cell / l^2.
struct LinkShare {
  int a, b;
  Real c;
};

// VTK Hex8 numbering: 0-3 the bottom loop, 4-7 the top loop above them; faces
// fem::Hex8Volume::face_vertex (wound outward).
constexpr int kHexEdges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                  {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
constexpr int kHexBodyDiagonals[4][2] = {{0, 6}, {1, 7}, {2, 4}, {3, 5}};

// The volume that scales the links' shares: for Hex8 the exact trilinear volume by the divergence
// theorem over the bilinear faces, summed at the nodes' absolute positions (the volume the links are
// calibrated with, kept bit for bit; the volume cells' V0 is fem::Hex8Volume's, relative to node 0).
Real share_volume(CellType type, const std::vector<Real>& X, const int* n) {
  if (type == CellType::Tet4) {
    const Vec3 x[4] = {node_position(X, n[0]), node_position(X, n[1]), node_position(X, n[2]), node_position(X, n[3])};
    return fem::Tet4Volume::volume(x);
  }
  Real V = 0;
  for (int f = 0; f < 6; ++f) {
    const auto p = [&](int v) { return node_position(X, n[fem::Hex8Volume::face_vertex(f, v)]); };
    V += fem::quad_volume_contribution(p(0), p(1), p(2), p(3));
  }
  return V;
}

// The cell's link shares (file comment of node_network.hpp for the coefficients).
std::vector<LinkShare> cell_shares(CellType type, const int* n, const NetworkFromMesh& spec) {
  std::vector<LinkShare> shares;
  if (type == CellType::Tet4) {
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) shares.push_back({n[a], n[b], 1.0});
    return shares;
  }
  const Real c_edge = spec.body_diagonals ? 2.0 / 15 : 1.0 / 10;
  const Real c_face = spec.body_diagonals ? 4.0 / 15 : 2.0 / 5;
  for (const auto& e : kHexEdges) shares.push_back({n[e[0]], n[e[1]], c_edge});
  if (spec.face_diagonals)
    for (int f = 0; f < 6; ++f) {
      const auto v = [&](int k) { return n[fem::Hex8Volume::face_vertex(f, k)]; };
      shares.push_back({v(0), v(2), c_face});
      shares.push_back({v(1), v(3), c_face});
    }
  if (spec.body_diagonals)
    for (const auto& d : kHexBodyDiagonals) shares.push_back({n[d[0]], n[d[1]], 3.0 / 10});
  return shares;
}

void check_spec(const Mesh& mesh, const NetworkFromMesh& spec) {
  SOFTIK_CHECK(mesh.dim == 3 && (mesh.cell_type == CellType::Tet4 || mesh.cell_type == CellType::Hex8),
               "a node network is built from a 3D Tet4 or Hex8 mesh; this mesh has "
                   << cell_type_name(mesh.cell_type) << " cells in " << mesh.dim << "D");
  SOFTIK_CHECK(std::isfinite(spec.youngs_modulus) && spec.youngs_modulus > 0,
               "node network: youngs_modulus " << spec.youngs_modulus << " must be positive and finite");
  SOFTIK_CHECK(std::isfinite(spec.density) && spec.density > 0,
               "node network: density " << spec.density << " must be positive and finite (every node needs a mass)");
  SOFTIK_CHECK(std::isfinite(spec.poissons_ratio) && spec.poissons_ratio >= 0.25 - kQuarterTolerance,
               "node network: poissons_ratio "
                   << spec.poissons_ratio
                   << " cannot be matched: a network of central-force links obeys the Cauchy relation C12 = C44 "
                      "(Poisson's ratio 1/4), and the cells' volume terms that raise the ratio add to lambda only; "
                      "a ratio below 1/4 would need a negative volume stiffness lambda - mu. Give 0.25 <= "
                      "poissons_ratio < 0.5, or model the body with finite elements");
  SOFTIK_CHECK(spec.poissons_ratio < 0.5,
               "node network: poissons_ratio "
                   << spec.poissons_ratio
                   << " must be < 0.5 (at 1/2 the bulk modulus is infinite); give e.g. 0.49 for a nearly "
                      "incompressible silicone");
  SOFTIK_CHECK(std::isfinite(spec.cubic_hardening) && spec.cubic_hardening >= 0,
               "node network: cubic_hardening " << spec.cubic_hardening << " must be >= 0 and finite");
  SOFTIK_CHECK(std::isfinite(spec.dashpot_time) && spec.dashpot_time >= 0,
               "node network: dashpot_time " << spec.dashpot_time << " (s) must be >= 0 and finite");
  SOFTIK_CHECK(mesh.cell_type == CellType::Hex8 || !spec.body_diagonals,
               "node network: body_diagonals apply to Hex8 meshes only (a Tet4 mesh links its edges)");
  SOFTIK_CHECK(mesh.cell_type == CellType::Tet4 || spec.face_diagonals,
               "node network: a Hex8 network without face diagonals has no shear stiffness (a cube of edge springs "
               "shears freely); set face_diagonals true");
}

}  // namespace

NodeNetwork make_node_network(const Mesh& mesh, const NetworkFromMesh& spec) {
  check_spec(mesh, spec);
  validate(mesh);
  // Lumped masses rho integral(N_a dV): the assembler's, so the network and an FEM body of the
  // same mesh weigh the same at every node.
  const fem::LinearElastic any_law{1, 1};
  const Assembler assembler(mesh, {Material(any_law)}, {});
  const std::vector<Real> dof_mass = assembler.lumped_mass(spec.density);

  NodeNetwork net;
  net.X = mesh.X;
  net.mass.resize(static_cast<size_t>(mesh.num_nodes()));
  for (int n = 0; n < mesh.num_nodes(); ++n) net.mass[static_cast<size_t>(n)] = dof_mass[3 * static_cast<size_t>(n)];
  net.surface_groups = mesh.surface_groups;
  net.node_groups = mesh.node_groups;

  // Calibration (node_network.hpp): the links' modulus E_L = 5 mu / 2 gives the lattice the shear
  // modulus mu; the volume terms kappa_v = lambda - mu raise lambda from mu to its value.
  const Real E = spec.youngs_modulus, nu = spec.poissons_ratio;
  const bool quarter = std::abs(nu - 0.25) <= kQuarterTolerance;
  const Real mu = E / (2 * (1 + nu)), lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
  const Real E_L = quarter ? E : Real(2.5) * mu;
  std::map<std::pair<int, int>, Real> stiffness;  // (min node, max node) -> k
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const int* n = mesh.cell(c);
    const Real V = share_volume(mesh.cell_type, mesh.X, n);
    for (const LinkShare& s : cell_shares(mesh.cell_type, n, spec)) {
      const Real l2 = (node_position(mesh.X, s.b) - node_position(mesh.X, s.a)).squaredNorm();
      stiffness[{std::min(s.a, s.b), std::max(s.a, s.b)}] += s.c * E_L * V / l2;
    }
  }
  net.links.reserve(stiffness.size());
  net.parameters.reserve(stiffness.size());
  for (const auto& [pair, k] : stiffness) {
    const Real L = (node_position(mesh.X, pair.second) - node_position(mesh.X, pair.first)).norm();
    net.links.push_back({pair.first, pair.second});
    net.parameters.push_back({k, spec.cubic_hardening * k / (L * L), L, spec.dashpot_time * k});
  }
  if (!quarter) {
    net.volume_cell_type = mesh.cell_type;
    net.volume_cells = mesh.cells;
    net.volume_stiffness.assign(static_cast<size_t>(mesh.num_cells()), lambda - mu);
    net.rest_volume = cell_volumes(net, net.X.data());
  }
  validate(net);
  return net;
}

std::vector<Real> rest_lengths(const NodeNetwork& network) {
  std::vector<Real> L(network.links.size());
  for (size_t l = 0; l < network.links.size(); ++l) {
    const auto [a, b] = network.links[l];
    SOFTIK_CHECK(a >= 0 && b >= 0 && a < network.num_nodes() && b < network.num_nodes(),
                 "node network: link " << l << " joins nodes " << a << " and " << b << ", outside 0.."
                                       << network.num_nodes() - 1);
    L[l] = (node_position(network.X, b) - node_position(network.X, a)).norm();
  }
  return L;
}

std::vector<Real> cell_volumes(const NodeNetwork& network, const Real* x) {
  std::vector<Real> V(static_cast<size_t>(network.num_volume_cells()));
  network::for_each_volume_cell(
      network, x, [&](auto cell, int c, const Vec3* xc) { V[static_cast<size_t>(c)] = decltype(cell)::volume(xc); });
  return V;
}

namespace {

// The volume cells of validate(NodeNetwork); the nodes are checked already.
void validate_volume_cells(const NodeNetwork& net) {
  const size_t C = net.volume_stiffness.size();
  if (C == 0 && net.volume_cells.empty() && net.rest_volume.empty()) return;
  SOFTIK_CHECK(
      net.volume_cell_type == CellType::Tet4 || net.volume_cell_type == CellType::Hex8,
      "node network: volume cells of type " << cell_type_name(net.volume_cell_type) << "; they must be Tet4 or Hex8");
  const size_t n = static_cast<size_t>(net.volume_cell_nodes());
  SOFTIK_CHECK(net.volume_cells.size() == n * C && net.rest_volume.size() == C,
               "node network: " << net.volume_cells.size() << " volume-cell node indices and " << net.rest_volume.size()
                                << " rest volumes for " << C << " volume stiffnesses; give " << n << " nodes ("
                                << cell_type_name(net.volume_cell_type)
                                << "), one rest volume and one stiffness per cell");
  for (size_t c = 0; c < C; ++c) {
    const int* nodes = net.volume_cells.data() + n * c;
    for (size_t a = 0; a < n; ++a) {
      SOFTIK_CHECK(nodes[a] >= 0 && nodes[a] < net.num_nodes(), "node network: volume cell "
                                                                    << c << " has node " << nodes[a] << ", outside 0.."
                                                                    << net.num_nodes() - 1);
      for (size_t b = 0; b < a; ++b)
        SOFTIK_CHECK(nodes[a] != nodes[b], "node network: volume cell " << c << " lists node " << nodes[a]
                                                                        << " twice; a cell needs distinct nodes");
    }
    const Real kappa = net.volume_stiffness[c], V0 = net.rest_volume[c];
    SOFTIK_CHECK(std::isfinite(kappa) && kappa >= 0, "node network: volume cell "
                                                         << c << " has stiffness " << kappa
                                                         << "; it must be >= 0 and finite (Pa)");
    SOFTIK_CHECK(std::isfinite(V0) && V0 > 0,
                 "node network: volume cell " << c << " has rest volume " << V0 << "; it must be > 0 (m^3)");
  }
  const std::vector<Real> V = cell_volumes(net, net.X.data());
  for (size_t c = 0; c < C; ++c)
    SOFTIK_CHECK(V[c] > 0, "node network: volume cell "
                               << c << " has volume " << V[c]
                               << " at the rest positions: it is inverted or degenerate; order "
                                  "its nodes as VTK does (positive volume)");
}

}  // namespace

void validate(const NodeNetwork& net) {
  const int N = net.num_nodes();
  SOFTIK_CHECK(net.X.size() == 3 * static_cast<size_t>(N),
               "node network: " << net.X.size() << " coordinates for " << N << " node masses; give 3 per node");
  SOFTIK_CHECK(net.parameters.size() == net.links.size(), "node network: " << net.parameters.size()
                                                                           << " link parameter sets for "
                                                                           << net.links.size() << " links");
  for (int n = 0; n < N; ++n) {
    const Real m = net.mass[static_cast<size_t>(n)];
    SOFTIK_CHECK(std::isfinite(m) && m > 0,
                 "node network: node " << n << " has mass " << m
                                       << "; every node needs a positive mass (an explicit step divides by it)");
    for (int i = 0; i < 3; ++i)
      SOFTIK_CHECK(std::isfinite(net.X[3 * static_cast<size_t>(n) + i]),
                   "node network: node " << n << " has a NaN/inf coordinate");
  }
  const std::vector<Real> lengths = rest_lengths(net);
  std::vector<char> reached(static_cast<size_t>(N), 0);
  std::map<std::pair<int, int>, int> seen;
  for (size_t l = 0; l < net.links.size(); ++l) {
    const auto [a, b] = net.links[l];
    const fem::LinkParameters& p = net.parameters[l];
    SOFTIK_CHECK(a != b, "node network: link " << l << " joins node " << a << " to itself");
    const auto inserted = seen.emplace(std::make_pair(std::min(a, b), std::max(a, b)), static_cast<int>(l));
    SOFTIK_CHECK(inserted.second, "node network: links " << inserted.first->second << " and " << l
                                                         << " both join nodes " << a << " and " << b
                                                         << "; merge them into one link");
    SOFTIK_CHECK(lengths[l] > 0, "node network: link "
                                     << l << " joins nodes " << a << " and " << b
                                     << ", which are at the same place: a zero-length link has no direction");
    SOFTIK_CHECK(std::isfinite(p.L) && p.L > 0, "node network: link " << l << " (nodes " << a << ", " << b
                                                                      << ") has rest length " << p.L
                                                                      << "; it must be > 0");
    SOFTIK_CHECK(std::isfinite(p.k) && p.k >= 0 && std::isfinite(p.k3) && p.k3 >= 0 && std::isfinite(p.c) && p.c >= 0,
                 "node network: link " << l << " (nodes " << a << ", " << b << ") has stiffness " << p.k
                                       << ", hardening " << p.k3 << ", dashpot " << p.c
                                       << "; each must be >= 0 and finite");
    // Finite values whose products do not fit a double (a rest length of 1e300: (l - L)^2 is
    // inf) would surface later as a singular tangent or a vanishing time step: name them here.
    const Real Delta = lengths[l] - p.L;
    const Real tension = p.k * Delta + p.k3 * Delta * Delta * Delta;
    const Real energy = 0.5 * p.k * Delta * Delta + 0.25 * p.k3 * Delta * Delta * Delta * Delta;
    const Real stiffness = p.k + 3 * p.k3 * Delta * Delta;
    SOFTIK_CHECK(
        std::isfinite(tension) && std::isfinite(energy) && std::isfinite(stiffness),
        "node network: link " << l << " (nodes " << a << ", " << b << "): its rest_length " << p.L << " (the nodes are "
                              << lengths[l] << " apart at rest), with stiffness " << p.k << " and hardening " << p.k3
                              << ", overflows double precision: the link's energy 1/2 k (l - L)^2 + 1/4 k3 (l - "
                                 "L)^4 at rest is beyond 1.8e308. Give a rest length of the link's size (or "
                                 "none: the nodes' distance)");
    reached[static_cast<size_t>(a)] = reached[static_cast<size_t>(b)] = 1;
  }
  for (int n = 0; n < N; ++n)
    SOFTIK_CHECK(reached[static_cast<size_t>(n)],
                 "node network: node " << n << " belongs to no link; link it or remove it (it would move on its own)");
  validate_volume_cells(net);
}

Mesh node_mesh(const NodeNetwork& network) {
  Mesh nodes;
  nodes.dim = 3;
  nodes.X = network.X;
  nodes.node_groups = network.node_groups;
  nodes.surface_groups = network.surface_groups;
  return nodes;
}

}  // namespace softik
