// A node network for ParaView (network_io.hpp): its links as VTK_LINE cells of a .vtu written by
// write_vtu (mesh_io_write.cpp), with the nodes' displacement, mass and the caller's point fields
// and the links' tension and strain.
#include <cmath>

#include "softik/error.hpp"
#include "softik/fem/link.hpp"
#include "softik/network_io.hpp"

namespace softik {

void write_network_vtu(const std::string& path, const NodeNetwork& network, const std::vector<Real>& x,
                       const std::vector<VtuField>& point_fields, const VtuOptions& options) {
  // What this writer reads, checked in one pass (validate(NodeNetwork) also looks for repeated
  // links and unreached nodes: half the time of a frame at 2M links, and harmless to a picture).
  const size_t N = static_cast<size_t>(network.num_nodes()), L = network.links.size();
  SOFTIK_CHECK(network.X.size() == 3 * N && network.parameters.size() == L,
               path << ": cannot write this network: " << network.X.size() << " coordinates and "
                    << network.parameters.size() << " link parameters for " << N << " nodes and " << L
                    << " links (3 per node, 1 per link)");
  for (size_t l = 0; l < L; ++l) {
    const auto [a, b] = network.links[l];
    SOFTIK_CHECK(a >= 0 && b >= 0 && static_cast<size_t>(a) < N && static_cast<size_t>(b) < N,
                 path << ": cannot write this network: link " << l << " joins nodes " << a << " and " << b
                      << ", outside the " << N << " nodes");
    SOFTIK_CHECK(std::isfinite(network.parameters[l].L) && network.parameters[l].L > 0,
                 path << ": cannot write this network: link " << l << " has rest length " << network.parameters[l].L
                      << " (its strain divides by it); give a positive rest length");
  }
  SOFTIK_CHECK(x.size() == 3 * N, path << ": the positions x have " << x.size() << " entries; the network's " << N
                                       << " nodes need 3 each (" << 3 * N << ")");
  for (size_t i = 0; i < x.size(); ++i)
    SOFTIK_CHECK(std::isfinite(x[i]), path << ": node " << i / 3 << " has a NaN/inf position (component " << i % 3
                                           << "); nothing is written");
  Mesh lines;
  lines.dim = 3;
  lines.cell_type = CellType::Edge2;
  lines.X = network.X;
  lines.cells.reserve(2 * L);
  for (const auto& [a, b] : network.links) {
    lines.cells.push_back(a);
    lines.cells.push_back(b);
  }
  VtuField displacement{"displacement", 3, std::vector<Real>(3 * N)};
  for (size_t i = 0; i < 3 * N; ++i) displacement.values[i] = x[i] - network.X[i];
  VtuField mass{"mass", 1, network.mass};
  VtuField tension{"tension", 1, std::vector<Real>(L)};
  VtuField strain{"strain", 1, std::vector<Real>(L)};
  for (size_t l = 0; l < L; ++l) {
    const auto [a, b] = network.links[l];
    const fem::Vec3 xa(x[3 * static_cast<size_t>(a)], x[3 * static_cast<size_t>(a) + 1],
                       x[3 * static_cast<size_t>(a) + 2]);
    const fem::Vec3 xb(x[3 * static_cast<size_t>(b)], x[3 * static_cast<size_t>(b) + 1],
                       x[3 * static_cast<size_t>(b) + 2]);
    const Real length = (xb - xa).norm();
    const fem::LinkParameters& p = network.parameters[l];
    tension.values[l] = fem::link_tension(p, length, 0);
    strain.values[l] = (length - p.L) / p.L;
    SOFTIK_CHECK_NUMERICAL(std::isfinite(tension.values[l]),
                           path << ": link " << l << " (nodes " << a << ", " << b << ") has tension "
                                << tension.values[l] << " at length " << length
                                << ": it overflows; the positions x are far from the rest shape");
  }
  // The caller's fields, each replacing the built-in array of its name (displacement, mass).
  std::vector<VtuField> points{displacement, mass};
  for (size_t k = 0; k < point_fields.size(); ++k) {
    const VtuField& f = point_fields[k];
    for (size_t j = 0; j < k; ++j)
      SOFTIK_CHECK(f.name != point_fields[j].name,
                   path << ": point fields " << j << " and " << k << " are both named '" << f.name << "'; rename one");
    bool replaced = false;
    for (VtuField& g : points)
      if (g.name == f.name) {
        g = f;
        replaced = true;
      }
    if (!replaced) points.push_back(f);
  }
  write_vtu(path, lines, x, points, {tension, strain}, options);
}

}  // namespace softik
