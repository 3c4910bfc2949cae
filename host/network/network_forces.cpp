// Link forces gathered per node (include/softik/node_network.hpp, NetworkForces; the loop body
// is host/network/link_gather.hpp). Each node sums the forces of its own links, so every link is
// evaluated twice, once from each end; in exchange no two iterations write the same node (no
// atomics, no colours) and the sum over a node's links is formed in the same order for any
// number of threads.
#include <algorithm>
#include <cmath>
#include <thread>
#include <utility>

#include "softik/error.hpp"
#include "softik/exec/forall.hpp"
#include "host/network/device_network.hpp"
#include "host/network/link_gather.hpp"
#include "softik/node_network.hpp"

namespace softik {
namespace {

using fem::Vec3;

inline Vec3 load3(const Real* p, int n) { return Vec3(p[3 * n], p[3 * n + 1], p[3 * n + 2]); }

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
    const size_t ia = static_cast<size_t>(next[static_cast<size_t>(a)]++), ib = static_cast<size_t>(next[static_cast<size_t>(b)]++);
    for (const auto& [at, to] : {std::pair<size_t, int>{ia, b}, std::pair<size_t, int>{ib, a}}) {
      other_[at] = to;
      spring_[2 * at] = p.k, spring_[2 * at + 1] = p.L;
      if (extras_) extra_[2 * at] = p.k3, extra_[2 * at + 1] = p.c;
    }
    dashpots_ = dashpots_ || p.c > 0;
  }
  if (backend == Backend::Cuda) {
    require_backend(Backend::Cuda);
#ifdef SOFTIK_HAVE_CUDA
    device_ = make_device_network_forces(first_, other_, spring_, extra_);
#endif
  }
}

NetworkForces::~NetworkForces() = default;
NetworkForces::NetworkForces(NetworkForces&&) noexcept = default;
NetworkForces& NetworkForces::operator=(NetworkForces&&) noexcept = default;

void NetworkForces::add_forces(const Real* x, const Real* v, Real* f) const {
  if (!dashpots_) v = nullptr;  // springs only: the velocities are not read
  if (device_) return device_->add_forces_from_host(x, v, f);
  using exec::Space;
  const size_t n3 = 3 * static_cast<size_t>(network_.num_nodes());
  const exec::HostView<const int> first{first_.data(), first_.size()}, other{other_.data(), other_.size()};
  const exec::HostView<const Real> spring{spring_.data(), spring_.size()}, extra{extra_.data(), extra_.size()};
  const exec::HostView<const Real> xs{x, n3}, vs{v, v ? n3 : 0};
  const exec::HostView<Real> fs{f, n3};
  if (extras_)
    exec::forall(exec::OmpCells{num_threads_}, network_.num_nodes(),
                 network::GatherLinkForces<Space::Host, true>{first, other, spring, extra, xs, vs, fs});
  else
    exec::forall(exec::OmpCells{num_threads_}, network_.num_nodes(),
                 network::GatherLinkForces<Space::Host, false>{first, other, spring, extra, xs, vs, fs});
}

Real NetworkForces::energy(const Real* x) const {
  Real E = 0;
  for (int l = 0; l < network_.num_links(); ++l) {
    const auto [a, b] = network_.links[static_cast<size_t>(l)];
    E += fem::link_energy(network_.parameters[static_cast<size_t>(l)], load3(x, a), load3(x, b));
  }
  return E;
}

void NetworkForces::node_bounds(const Real* x, std::vector<Real>& stiffness, std::vector<Real>& dashpot) const {
  const int N = network_.num_nodes();
  stiffness.assign(static_cast<size_t>(N), 0);
  dashpot.assign(static_cast<size_t>(N), 0);
  for (int l = 0; l < network_.num_links(); ++l) {
    const auto [a, b] = network_.links[static_cast<size_t>(l)];
    const fem::LinkParameters& p = network_.parameters[static_cast<size_t>(l)];
    const Real k = fem::link_stiffness_norm(p, (load3(x, b) - load3(x, a)).norm());
    stiffness[static_cast<size_t>(a)] += k, stiffness[static_cast<size_t>(b)] += k;
    dashpot[static_cast<size_t>(a)] += p.c, dashpot[static_cast<size_t>(b)] += p.c;
  }
}

void NetworkForces::check_lengths(const Real* x) const {
  for (int l = 0; l < network_.num_links(); ++l) {
    const auto [a, b] = network_.links[static_cast<size_t>(l)];
    const Real length = (load3(x, b) - load3(x, a)).norm();
    SOFTIK_CHECK_NUMERICAL(std::isfinite(length) && length > 0,
                           "node network: link " << l << " (nodes " << a << ", " << b << ") has length " << length
                                                 << ": the motion collapsed or blew up; reduce the time step or add damping");
  }
}

}  // namespace softik
