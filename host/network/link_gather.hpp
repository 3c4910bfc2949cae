// The node-centric link-force gather, one body for every backend (exec/forall.hpp): iteration i
// sums the forces of node i's links (fem/link.hpp) and adds them to f[i]. The incidences of
// node i are [first[i], first[i+1]): the link's other node and the link's parameters, stored per
// incidence (each link twice, once for each end) so that the loop streams them in order instead
// of looking them up through a link index: (k, L) always, (k3, c) only when some link has
// hardening or a dashpot (Extras), so that linear springs stream 20 bytes per incidence. The
// same iteration then adds node i's share of its volume cells' forces (Cells: volume_gather.hpp;
// NoVolumeCells when the network has none), so links and cells are one pass over the nodes with
// one write per node. No two iterations write one node: no atomics, and the sum is formed in the
// same order for any number of threads or on the GPU.
#pragma once

#include <type_traits>

#include "host/network/volume_gather.hpp"
#include "softik/exec/view.hpp"
#include "softik/fem/link.hpp"

namespace softik::network {

template <exec::Space S, bool Extras, class Cells = NoVolumeCells>
struct GatherLinkForces {
  exec::View<const int, S> first;    ///< num_nodes + 1
  exec::View<const int, S> other;    ///< per incidence
  exec::View<const Real, S> spring;  ///< per incidence: k, L
  exec::View<const Real, S> extra;   ///< per incidence: k3, c (Extras only)
  exec::View<const Real, S> x;       ///< positions, 3 per node
  exec::View<const Real, S> v;       ///< velocities, or null (no dashpot forces)
  exec::View<Real, S> f;             ///< += the link and volume-cell forces, 3 per node
  Cells cells;                       ///< the volume cells' forces on a node

  SOFTIK_HD void operator()(int i) const {
    const fem::Vec3 xi(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
    fem::Vec3 sum = fem::Vec3::Zero();
    for (int k = first[i]; k < first[i + 1]; ++k) {
      const int j = other[k];
      const fem::Vec3 xj(x[3 * j], x[3 * j + 1], x[3 * j + 2]);
      // The force on the link's end b with (a, b) = (j, i): node i's force whichever end it is.
      fem::LinkParameters p{spring[2 * k], 0, spring[2 * k + 1], 0};
      if constexpr (Extras) {
        p.k3 = extra[2 * k];
        p.c = extra[2 * k + 1];
        if (v) {
          const fem::Vec3 vi(v[3 * i], v[3 * i + 1], v[3 * i + 2]), vj(v[3 * j], v[3 * j + 1], v[3 * j + 2]);
          sum += fem::link_force_on_b(p, xj, xi, vj, vi);
          continue;
        }
      }
      sum += fem::link_spring_force_on_b(p, xj, xi);
    }
    if constexpr (!std::is_same_v<Cells, NoVolumeCells>) sum += cells.force_on(i, x);
    f[3 * i] += sum[0];
    f[3 * i + 1] += sum[1];
    f[3 * i + 2] += sum[2];
  }
};

}  // namespace softik::network
