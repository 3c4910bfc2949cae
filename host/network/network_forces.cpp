// Link forces gathered per node (include/softik/node_network.hpp, NetworkForces).
//
// Each node sums the forces of its own links (fem/link.hpp), so every link is evaluated twice,
// once from each end; in exchange no two iterations write the same node (no atomics, no colours)
// and the sum over a node's links is formed in the same order for any number of threads.
#include <algorithm>
#include <cmath>
#include <thread>

#include "softik/error.hpp"
#include "softik/exec/forall.hpp"
#include "softik/node_network.hpp"

namespace softik {
namespace {

using fem::Vec3;

inline Vec3 load3(const Real* p, int n) { return Vec3(p[3 * n], p[3 * n + 1], p[3 * n + 2]); }

}  // namespace

NetworkForces::NetworkForces(const NodeNetwork& network, int num_threads) : network_(network) {
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
  link_.resize(incidences);
  other_.resize(incidences);
  std::vector<int> next(first_.begin(), first_.end() - 1);
  for (int l = 0; l < network_.num_links(); ++l) {
    const auto [a, b] = network_.links[static_cast<size_t>(l)];
    const int ia = next[static_cast<size_t>(a)]++, ib = next[static_cast<size_t>(b)]++;
    link_[static_cast<size_t>(ia)] = l, other_[static_cast<size_t>(ia)] = b;
    link_[static_cast<size_t>(ib)] = l, other_[static_cast<size_t>(ib)] = a;
  }
}

void NetworkForces::add_forces(const Real* x, const Real* v, Real* f) const {
  const int* first = first_.data();
  const int* link = link_.data();
  const int* other = other_.data();
  const fem::LinkParameters* params = network_.parameters.data();
  exec::forall(exec::OmpCells{num_threads_}, network_.num_nodes(), [=](int i) {
    const Vec3 xi = load3(x, i);
    const Vec3 vi = v ? load3(v, i) : Vec3::Zero();
    Vec3 sum = Vec3::Zero();
    for (int k = first[i]; k < first[i + 1]; ++k) {
      const int j = other[k];
      const Vec3 vj = v ? load3(v, j) : Vec3::Zero();
      // The force on the link's node b, with (a, b) = (j, i): it is i's force whichever end i is.
      sum += fem::link_force_on_b(params[link[k]], load3(x, j), xi, vj, vi);
    }
    f[3 * i] += sum[0];
    f[3 * i + 1] += sum[1];
    f[3 * i + 2] += sum[2];
  });
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
