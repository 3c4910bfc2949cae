// Link and volume-cell forces gathered per node (include/softik/node_network.hpp, NetworkForces;
// the loop body is host/network/link_gather.hpp with host/network/volume_gather.hpp, dispatched by
// host/network/network_gather.hpp). Each node sums the forces of its own links and its own share
// of its cells, so every link is evaluated twice, once from each end, and every cell's volume once
// per node; in exchange no two iterations write the same node (no atomics, no colours) and the sum
// over a node's links and cells is formed in the same order for any number of threads.
#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <utility>

#include "host/exec/device_backend.hpp"
#include "host/network/device_network.hpp"
#include "host/network/network_gather.hpp"
#include "host/network/volume_cells.hpp"
#include "softik/error.hpp"
#include "softik/exec/forall.hpp"
#include "softik/fem/cell_volume.hpp"
#include "softik/node_network.hpp"

namespace softik {
namespace {

using fem::Vec3;

inline Vec3 load3(const Real* p, int n) { return Vec3(p[3 * n], p[3 * n + 1], p[3 * n + 2]); }

template <class T>
exec::HostView<const T> view(const std::vector<T>& values) {
  return {values.data(), values.size()};
}

// The node -> volume-cell table: node i's incidences [first[i], first[i+1]), each the slot n c + a
// of the cell c in which node i is node a, in increasing cell order.
void build_cell_incidences(const NodeNetwork& net, std::vector<int>& first, std::vector<int>& slot) {
  first.clear();
  slot.clear();
  if (net.num_volume_cells() == 0) return;
  const int N = net.num_nodes();
  first.assign(static_cast<size_t>(N) + 1, 0);
  for (int n : net.volume_cells) ++first[static_cast<size_t>(n) + 1];
  for (int n = 0; n < N; ++n) first[static_cast<size_t>(n) + 1] += first[static_cast<size_t>(n)];
  slot.resize(net.volume_cells.size());
  std::vector<int> next(first.begin(), first.end() - 1);
  for (size_t s = 0; s < net.volume_cells.size(); ++s)
    slot[static_cast<size_t>(next[static_cast<size_t>(net.volume_cells[s])]++)] = static_cast<int>(s);
}

}  // namespace

NetworkForces::NetworkForces(const NodeNetwork& network, int num_threads, Backend backend) : network_(network) {
  validate(network_);
  num_threads_ = num_threads > 0 ? num_threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int N = network_.num_nodes();
  first_.assign(static_cast<size_t>(N) + 1, 0);
  for (const auto& [a, b] : network_.links) {
    ++first_[static_cast<size_t>(a) + 1];
    ++first_[static_cast<size_t>(b) + 1];
  }
  for (int n = 0; n < N; ++n) first_[static_cast<size_t>(n) + 1] += first_[static_cast<size_t>(n)];
  const size_t incidences = static_cast<size_t>(first_.back());
  other_.resize(incidences);
  spring_.resize(2 * incidences);
  for (const fem::LinkParameters& p : network_.parameters) extras_ = extras_ || p.k3 != 0 || p.c != 0;
  if (extras_) extra_.resize(2 * incidences);
  std::vector<int> next(first_.begin(), first_.end() - 1);
  for (int l = 0; l < network_.num_links(); ++l) {
    const auto [a, b] = network_.links[static_cast<size_t>(l)];
    const fem::LinkParameters& p = network_.parameters[static_cast<size_t>(l)];
    const size_t ia = static_cast<size_t>(next[static_cast<size_t>(a)]++),
                 ib = static_cast<size_t>(next[static_cast<size_t>(b)]++);
    for (const auto& [at, to] : {std::pair<size_t, int>{ia, b}, std::pair<size_t, int>{ib, a}}) {
      other_[at] = to;
      spring_[2 * at] = p.k, spring_[2 * at + 1] = p.L;
      if (extras_) extra_[2 * at] = p.k3, extra_[2 * at + 1] = p.c;
    }
    dashpots_ = dashpots_ || p.c > 0;
  }
  build_cell_incidences(network_, cell_first_, cell_slot_);
  if (backend == Backend::Cuda) {
    require_backend(Backend::Cuda);
    VolumeCellTable cells;
    if (network_.num_volume_cells() > 0) {
      cells.nodes_per_cell = network_.volume_cell_nodes();
      cells.first = cell_first_;
      cells.slot = cell_slot_;
      cells.nodes = network_.volume_cells;
      cells.stiffness = network_.volume_stiffness;
      cells.rest_volume = network_.rest_volume;
    }
    device_ = device_backend()->make_network_forces(first_, other_, spring_, extra_, cells);
  }
}

NetworkForces::~NetworkForces() = default;
NetworkForces::NetworkForces(NetworkForces&&) noexcept = default;
NetworkForces& NetworkForces::operator=(NetworkForces&&) noexcept = default;

void NetworkForces::add_forces(const Real* x, const Real* v, Real* f) const {
  if (!dashpots_) v = nullptr;  // springs only: the velocities are not read
  if (device_) return device_->add_forces_from_host(x, v, f);
  const size_t n3 = 3 * static_cast<size_t>(network_.num_nodes());
  network::NetworkTables<exec::Space::Host> tables;
  tables.first = view(first_), tables.other = view(other_), tables.spring = view(spring_), tables.extra = view(extra_);
  tables.extras = extras_;
  if (network_.num_volume_cells() > 0) {
    tables.cell_nodes = network_.volume_cell_nodes();
    tables.cell_first = view(cell_first_), tables.cell_slot = view(cell_slot_),
    tables.cell_list = view(network_.volume_cells);
    tables.cell_stiffness = view(network_.volume_stiffness), tables.cell_rest_volume = view(network_.rest_volume);
  }
  // The cells' first pass writes p_c here; a buffer per call keeps add_forces safe to call from
  // several threads at once, as the const signature promises.
  std::vector<Real> cell_pressure(static_cast<size_t>(network_.num_volume_cells()));
  tables.num_cells = network_.num_volume_cells();
  tables.cell_pressure = exec::HostView<Real>{cell_pressure.data(), cell_pressure.size()};
  network::gather_network_forces(exec::HostCells{num_threads_}, network_.num_nodes(), tables,
                                 exec::HostView<const Real>{x, n3}, exec::HostView<const Real>{v, v ? n3 : 0},
                                 exec::HostView<Real>{f, n3});
}

Real NetworkForces::energy(const Real* x) const {
  Real E = 0;
  for (int l = 0; l < network_.num_links(); ++l) {
    const auto [a, b] = network_.links[static_cast<size_t>(l)];
    E += fem::link_energy(network_.parameters[static_cast<size_t>(l)], load3(x, a), load3(x, b));
  }
  // W = kappa/2 (V - V0)^2 / V0 per volume cell (fem/cell_volume.hpp).
  network::for_each_volume_cell(network_, x, [&](auto cell, int c, const Vec3* xc) {
    E += fem::volume_term_energy(network_.volume_stiffness[static_cast<size_t>(c)],
                                 network_.rest_volume[static_cast<size_t>(c)], decltype(cell)::volume(xc));
  });
  return E;
}

void NetworkForces::node_bounds(const Real* x, std::vector<Real>& stiffness, std::vector<Real>& dashpot) const {
  const int N = network_.num_nodes();
  stiffness.assign(static_cast<size_t>(N), 0);
  dashpot.assign(static_cast<size_t>(N), 0);
  for (int l = 0; l < network_.num_links(); ++l) {
    const auto [a, b] = network_.links[static_cast<size_t>(l)];
    const fem::LinkParameters& p = network_.parameters[static_cast<size_t>(l)];
    // The link's blocks [H -H; -H H]: ||H|| on the diagonal and once off it, in both rows.
    const Real k = 2 * fem::link_stiffness_norm(p, (load3(x, b) - load3(x, a)).norm());
    stiffness[static_cast<size_t>(a)] += k, stiffness[static_cast<size_t>(b)] += k;
    dashpot[static_cast<size_t>(a)] += p.c, dashpot[static_cast<size_t>(b)] += p.c;
  }
  // Each volume cell adds sum_e ||H_ae|| to the row of each of its nodes a.
  network::for_each_volume_cell(network_, x, [&](auto cell, int c, const Vec3* xc) {
    using Cell = decltype(cell);
    const int* nodes = network_.volume_cells.data() + static_cast<size_t>(c) * Cell::num_nodes;
    const Real kappa = network_.volume_stiffness[static_cast<size_t>(c)],
               V0 = network_.rest_volume[static_cast<size_t>(c)];
    for (int a = 0; a < Cell::num_nodes; ++a)
      stiffness[static_cast<size_t>(nodes[a])] += fem::volume_term_row_bound<Cell>(kappa, V0, xc, a);
  });
}

void NetworkForces::check_lengths(const Real* x) const {
  for (int l = 0; l < network_.num_links(); ++l) {
    const auto [a, b] = network_.links[static_cast<size_t>(l)];
    const Real length = (load3(x, b) - load3(x, a)).norm();
    SOFTIK_CHECK_NUMERICAL(std::isfinite(length) && length > 0,
                           "node network: link "
                               << l << " (nodes " << a << ", " << b << ") has length " << length
                               << ": the motion collapsed or blew up; reduce the time step or add damping");
  }
}

void NetworkForces::check_volumes(const Real* x) const {
  network::for_each_volume_cell(network_, x, [&](auto cell, int c, const Vec3* xc) {
    const Real V = decltype(cell)::volume(xc);
    if (std::isfinite(V) && V > 0) return;
    const int n = network_.volume_cell_nodes();
    const int* nodes = network_.volume_cells.data() + static_cast<size_t>(c) * static_cast<size_t>(n);
    std::string list;
    for (int a = 0; a < n; ++a) list += (a ? ", " : "") + std::to_string(nodes[a]);
    SOFTIK_CHECK_NUMERICAL(false, "node network: volume cell " << c << " (nodes " << list << ") has volume " << V
                                                               << " (rest volume "
                                                               << network_.rest_volume[static_cast<size_t>(c)]
                                                               << "): it inverted or blew up; reduce the time step or "
                                                                  "add damping");
  });
}

void NetworkForces::check_state(const Real* x) const {
  check_lengths(x);
  check_volumes(x);
}

}  // namespace softik
