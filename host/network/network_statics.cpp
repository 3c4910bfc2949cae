// The static problem of a node network (include/softik/network_statics.hpp): the free-DOF
// pattern from the links and pressure faces, and the links' forces and Hessians.
#include "softik/network_statics.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include <Eigen/Eigenvalues>

#include "softik/error.hpp"
#include "softik/fem/cell_volume.hpp"

namespace softik {
namespace {

using fem::Vec3;

inline Vec3 node_at(const std::vector<Real>& x, int n) {
  return Vec3(x[3 * static_cast<size_t>(n)], x[3 * static_cast<size_t>(n) + 1], x[3 * static_cast<size_t>(n) + 2]);
}

/// Links every pair of a face's vertices (the pressure stiffness couples them all).
template <size_t N>
void link_face(const std::array<int, N>& face, int num_nodes, const std::string& name,
               std::vector<std::vector<int>>& adjacent) {
  for (int a : face)
    SOFTIK_CHECK(a >= 0 && a < num_nodes, "node network statics: pressure surface '"
                                              << name << "' has vertex " << a << ", outside the network's " << num_nodes
                                              << " nodes");
  for (int a : face)
    for (int b : face) adjacent[static_cast<size_t>(a)].push_back(b);
}

}  // namespace

NetworkStatics::NetworkStatics(const NodeNetwork& network, std::vector<char> fixed_dofs,
                               const std::vector<PressureLoad>& pressures, int num_threads)
    : forces_(network, num_threads, Backend::Cpu) {
  const int N = network.num_nodes(), n = 3 * N;
  if (fixed_dofs.empty()) fixed_dofs.assign(static_cast<size_t>(n), 0);
  SOFTIK_CHECK(fixed_dofs.size() == static_cast<size_t>(n),
               "node network statics: " << fixed_dofs.size() << " fixed-DOF flags for " << n << " DOFs (3 per node)");
  nodes_ = node_mesh(network);
  free_index_.assign(static_cast<size_t>(n), -1);
  int rows = 0;
  for (int k = 0; k < n; ++k)
    if (!fixed_dofs[static_cast<size_t>(k)]) free_index_[static_cast<size_t>(k)] = rows++;
  // Node adjacency: itself, its links' other ends, the nodes of its volume cells and the vertices
  // of the pressure faces it lies on.
  std::vector<std::vector<int>> adjacent(static_cast<size_t>(N));
  for (int a = 0; a < N; ++a) adjacent[static_cast<size_t>(a)].push_back(a);
  for (const auto& [a, b] : network.links) {
    adjacent[static_cast<size_t>(a)].push_back(b);
    adjacent[static_cast<size_t>(b)].push_back(a);
  }
  const int per_cell = network.volume_cell_nodes();
  for (int c = 0; c < network.num_volume_cells(); ++c) {
    const int* cell = network.volume_cells.data() + static_cast<size_t>(c) * per_cell;
    for (int a = 0; a < per_cell; ++a) {
      std::vector<int>& list = adjacent[static_cast<size_t>(cell[a])];
      list.insert(list.end(), cell, cell + per_cell);
    }
  }
  for (const PressureLoad& p : pressures) {
    SOFTIK_CHECK(p.embedding.empty(), "node network statics: pressure surface '"
                                          << p.name << "' is embedded; give its faces over the network's nodes");
    for (const auto& t : p.surface.triangles) link_face(t, N, p.name, adjacent);
    for (const auto& q : p.surface.quads) link_face(q, N, p.name, adjacent);
    for (const auto& t : p.surface.triangles6) link_face(t, N, p.name, adjacent);
  }
  pattern_.rows = rows;
  pattern_.row_ptr.assign(static_cast<size_t>(rows) + 1, 0);
  for (int a = 0; a < N; ++a) {
    auto& list = adjacent[static_cast<size_t>(a)];
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    for (int i = 0; i < 3; ++i) {
      const int row = free_index_[3 * static_cast<size_t>(a) + i];
      if (row < 0) continue;
      for (int b : list)
        for (int j = 0; j < 3; ++j) {
          const int col = free_index_[3 * static_cast<size_t>(b) + j];
          if (col >= 0) pattern_.col.push_back(col);
        }
      SOFTIK_CHECK(pattern_.col.size() < static_cast<size_t>(std::numeric_limits<int>::max()),
                   "node network statics: the stiffness pattern exceeds 2^31 non-zeros");
      pattern_.row_ptr[static_cast<size_t>(row) + 1] = static_cast<int>(pattern_.col.size());
    }
  }
  // Rows come in DOF order and free indices grow with it, so row_ptr is cumulative already.
  link_slots_.assign(36 * static_cast<size_t>(network.num_links()), -1);
  for (int l = 0; l < network.num_links(); ++l) {
    const int ends[2] = {network.links[static_cast<size_t>(l)][0], network.links[static_cast<size_t>(l)][1]};
    for (int r = 0; r < 6; ++r)
      for (int s = 0; s < 6; ++s) {
        const int row = free_index_[3 * static_cast<size_t>(ends[r / 3]) + r % 3];
        const int col = free_index_[3 * static_cast<size_t>(ends[s / 3]) + s % 3];
        if (row >= 0 && col >= 0) link_slots_[36 * static_cast<size_t>(l) + 6 * r + s] = pattern_.slot(row, col);
      }
  }
}

namespace {

/// K += the Hessians d2W/dx2 of the volume cells of type Cell (fem/cell_volume.hpp), through
/// the pattern's slots.
template <class Cell>
void add_volume_stiffness(const NodeNetwork& net, const std::vector<int>& free, const CsrPattern& pattern,
                          const std::vector<Real>& x, std::vector<Real>& K) {
  constexpr int n = Cell::num_nodes;
  Eigen::Matrix<Real, 3 * n, 3 * n> H;
  for (int c = 0; c < net.num_volume_cells(); ++c) {
    const int* cell = net.volume_cells.data() + static_cast<size_t>(c) * n;
    Vec3 p[n];
    for (int a = 0; a < n; ++a) p[a] = node_at(x, cell[a]);
    fem::volume_term_hessian<Cell>(net.volume_stiffness[static_cast<size_t>(c)],
                                   net.rest_volume[static_cast<size_t>(c)], p, H);
    // The cell's free columns in increasing order: each row's slots are then found by one walk
    // along the row (its columns are sorted and hold all of them).
    int cols[3 * n], order[3 * n], m = 0;
    for (int s = 0; s < 3 * n; ++s) {
      cols[s] = free[3 * static_cast<size_t>(cell[s / 3]) + s % 3];
      if (cols[s] < 0) continue;
      int k = m++;
      for (; k > 0 && cols[order[k - 1]] > cols[s]; --k) order[k] = order[k - 1];
      order[k] = s;
    }
    for (int r = 0; r < 3 * n; ++r) {
      const int row = free[3 * static_cast<size_t>(cell[r / 3]) + r % 3];
      if (row < 0) continue;
      int slot = pattern.row_ptr[static_cast<size_t>(row)];
      for (int k = 0; k < m; ++k) {
        while (pattern.col[static_cast<size_t>(slot)] < cols[order[k]]) ++slot;
        K[static_cast<size_t>(slot)] += H(r, order[k]);
      }
    }
  }
}

}  // namespace

void NetworkStatics::assemble(const std::vector<Real>& x, Real* energy, std::vector<Real>* force,
                              std::vector<Real>* K_values) const {
  const NodeNetwork& net = forces_.network();
  SOFTIK_CHECK(x.size() == static_cast<size_t>(num_dofs()),
               "node network statics: x has " << x.size() << " entries, expected " << num_dofs());
  forces_.check_state(x.data());
  if (energy) *energy = forces_.energy(x.data());
  if (force) {
    force->assign(x.size(), 0.0);
    forces_.add_forces(x.data(), nullptr, force->data());  // springs only: no dashpot force at rest
  }
  if (!K_values) return;
  K_values->assign(static_cast<size_t>(pattern_.nnz()), 0.0);
  for (int l = 0; l < net.num_links(); ++l) {
    const auto [a, b] = net.links[static_cast<size_t>(l)];
    // [K_aa K_ab; K_ba K_bb] = [H -H; -H H]
    const fem::Mat3 H = fem::link_stiffness_block(net.parameters[static_cast<size_t>(l)], node_at(x, a), node_at(x, b));
    const int* slots = link_slots_.data() + 36 * static_cast<size_t>(l);
    for (int r = 0; r < 6; ++r)
      for (int s = 0; s < 6; ++s) {
        const int slot = slots[6 * r + s];
        if (slot >= 0) (*K_values)[static_cast<size_t>(slot)] += (r / 3 == s / 3 ? 1 : -1) * H(r % 3, s % 3);
      }
  }
  if (net.num_volume_cells() == 0) return;
  if (net.volume_cell_type == CellType::Hex8)
    add_volume_stiffness<fem::Hex8Volume>(net, free_index_, pattern_, x, *K_values);
  else
    add_volume_stiffness<fem::Tet4Volume>(net, free_index_, pattern_, x, *K_values);
}

void NetworkStatics::check_mechanisms(const std::vector<Real>& x) const {
  std::vector<Real> K;
  assemble(x, nullptr, nullptr, &K);
  Real scale = 0;
  for (int r = 0; r < pattern_.rows; ++r)
    scale = std::max(scale, std::abs(K[static_cast<size_t>(pattern_.slot(r, r))]));
  for (int n = 0; n < forces_.network().num_nodes(); ++n) {
    int rows[3], dirs[3], m = 0;
    for (int i = 0; i < 3; ++i) {
      const int row = free_index_[3 * static_cast<size_t>(n) + i];
      if (row >= 0) rows[m] = row, dirs[m++] = i;
    }
    if (m == 0) continue;
    Eigen::MatrixXd block(m, m);
    for (int a = 0; a < m; ++a)
      for (int b = 0; b < m; ++b) block(a, b) = K[static_cast<size_t>(pattern_.slot(rows[a], rows[b]))];
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(block);
    int weakest = 0;
    for (int a = 1; a < m; ++a)
      if (std::abs(eig.eigenvalues()[a]) < std::abs(eig.eigenvalues()[weakest])) weakest = a;
    if (std::abs(eig.eigenvalues()[weakest]) > 1e-12 * scale) continue;
    std::ostringstream dir;
    Vec3 d = Vec3::Zero();
    for (int a = 0; a < m; ++a) d[dirs[a]] = eig.eigenvectors()(a, weakest);
    dir << "(" << d[0] << ", " << d[1] << ", " << d[2] << ")";
    SOFTIK_CHECK(false, "node network statics: node "
                            << n << " has no stiffness along " << dir.str()
                            << ": no link or volume cell resists that motion of the node (a mechanism, e.g. a planar "
                               "truss's node moving out of its plane, or the middle of a straight chain moving "
                               "sideways), so the tangent is singular. Fix that DOF of the node (scene: fixed: with "
                               "components) or add links that brace it");
  }
}

}  // namespace softik
