// Building a node network from a volume mesh, and checking one (include/softik/node_network.hpp).
#include "softik/node_network.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "softik/assembly.hpp"
#include "softik/error.hpp"
#include "softik/fem/pressure_load.hpp"

namespace softik {
namespace {

using fem::Vec3;

Vec3 node_position(const std::vector<Real>& X, int n) {
  return Vec3(X[3 * static_cast<size_t>(n)], X[3 * static_cast<size_t>(n) + 1], X[3 * static_cast<size_t>(n) + 2]);
}

// One link share of a cell: the pair and its coefficient c in k = c E V_cell / l^2.
struct LinkShare {
  int a, b;
  Real c;
};

// VTK Hex8 numbering: 0-3 the bottom loop, 4-7 the top loop above them.
constexpr int kHexEdges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                  {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
constexpr int kHexFaces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                 {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};  // outward winding
constexpr int kHexBodyDiagonals[4][2] = {{0, 6}, {1, 7}, {2, 4}, {3, 5}};

// The exact volume of a trilinear hexahedron: the divergence theorem over its bilinear faces.
Real hex_volume(const std::vector<Real>& X, const int* n) {
  Real V = 0;
  for (const auto& f : kHexFaces)
    V += fem::quad_volume_contribution(node_position(X, n[f[0]]), node_position(X, n[f[1]]),
                                       node_position(X, n[f[2]]), node_position(X, n[f[3]]));
  return V;
}

Real tet_volume(const std::vector<Real>& X, const int* n) {
  const Vec3 p0 = node_position(X, n[0]);
  return (node_position(X, n[1]) - p0).dot((node_position(X, n[2]) - p0).cross(node_position(X, n[3]) - p0)) / 6;
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
    for (const auto& f : kHexFaces) {
      shares.push_back({n[f[0]], n[f[2]], c_face});
      shares.push_back({n[f[1]], n[f[3]], c_face});
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
  SOFTIK_CHECK(std::abs(spec.poissons_ratio - 0.25) <= 1e-12,
               "node network: poissons_ratio " << spec.poissons_ratio
                   << " cannot be matched: a network of central-force links obeys the Cauchy relation C12 = C44, "
                      "so an isotropic one has Poisson's ratio 1/4. Give 0.25 (or leave it out), or model the body "
                      "with finite elements for another ratio");
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

  std::map<std::pair<int, int>, Real> stiffness;  // (min node, max node) -> k
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const int* n = mesh.cell(c);
    const Real V = mesh.cell_type == CellType::Tet4 ? tet_volume(mesh.X, n) : hex_volume(mesh.X, n);
    for (const LinkShare& s : cell_shares(mesh.cell_type, n, spec)) {
      const Real l2 = (node_position(mesh.X, s.b) - node_position(mesh.X, s.a)).squaredNorm();
      stiffness[{std::min(s.a, s.b), std::max(s.a, s.b)}] += s.c * spec.youngs_modulus * V / l2;
    }
  }
  net.links.reserve(stiffness.size());
  net.parameters.reserve(stiffness.size());
  for (const auto& [pair, k] : stiffness) {
    const Real L = (node_position(mesh.X, pair.second) - node_position(mesh.X, pair.first)).norm();
    net.links.push_back({pair.first, pair.second});
    net.parameters.push_back({k, spec.cubic_hardening * k / (L * L), L, spec.dashpot_time * k});
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

void validate(const NodeNetwork& net) {
  const int N = net.num_nodes();
  SOFTIK_CHECK(net.X.size() == 3 * static_cast<size_t>(N),
               "node network: " << net.X.size() << " coordinates for " << N << " node masses; give 3 per node");
  SOFTIK_CHECK(net.parameters.size() == net.links.size(),
               "node network: " << net.parameters.size() << " link parameter sets for " << net.links.size() << " links");
  for (int n = 0; n < N; ++n) {
    const Real m = net.mass[static_cast<size_t>(n)];
    SOFTIK_CHECK(std::isfinite(m) && m > 0, "node network: node " << n << " has mass " << m
                                                 << "; every node needs a positive mass (an explicit step divides by it)");
    for (int i = 0; i < 3; ++i)
      SOFTIK_CHECK(std::isfinite(net.X[3 * static_cast<size_t>(n) + i]), "node network: node " << n << " has a NaN/inf coordinate");
  }
  const std::vector<Real> lengths = rest_lengths(net);
  std::vector<char> reached(static_cast<size_t>(N), 0);
  std::map<std::pair<int, int>, int> seen;
  for (size_t l = 0; l < net.links.size(); ++l) {
    const auto [a, b] = net.links[l];
    const fem::LinkParameters& p = net.parameters[l];
    SOFTIK_CHECK(a != b, "node network: link " << l << " joins node " << a << " to itself");
    const auto inserted = seen.emplace(std::make_pair(std::min(a, b), std::max(a, b)), static_cast<int>(l));
    SOFTIK_CHECK(inserted.second, "node network: links " << inserted.first->second << " and " << l << " both join nodes "
                                                         << a << " and " << b << "; merge them into one link");
    SOFTIK_CHECK(lengths[l] > 0, "node network: link " << l << " joins nodes " << a << " and " << b
                                                      << ", which are at the same place: a zero-length link has no direction");
    SOFTIK_CHECK(std::isfinite(p.L) && p.L > 0,
                 "node network: link " << l << " (nodes " << a << ", " << b << ") has rest length " << p.L << "; it must be > 0");
    SOFTIK_CHECK(std::isfinite(p.k) && p.k >= 0 && std::isfinite(p.k3) && p.k3 >= 0 && std::isfinite(p.c) && p.c >= 0,
                 "node network: link " << l << " (nodes " << a << ", " << b << ") has stiffness " << p.k << ", hardening "
                                       << p.k3 << ", dashpot " << p.c << "; each must be >= 0 and finite");
    reached[static_cast<size_t>(a)] = reached[static_cast<size_t>(b)] = 1;
  }
  for (int n = 0; n < N; ++n)
    SOFTIK_CHECK(reached[static_cast<size_t>(n)],
                 "node network: node " << n << " belongs to no link; link it or remove it (it would move on its own)");
}

}  // namespace softik
