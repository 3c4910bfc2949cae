// What the core asks of a device backend for node networks (docs/architecture.md, "The CUDA
// backend"): the core never includes a CUDA header; cuda/network/device_network.cu implements
// this interface and registers its make_device_network_forces in the device backend's table
// (host/exec/device_backend.hpp). NetworkForces holds one when built with Backend::Cuda.
#pragma once

#include <memory>
#include <vector>

#include "softik/config.hpp"

namespace softik {

class DeviceNetworkForces {
 public:
  virtual ~DeviceNetworkForces() = default;
  /// f += the link and volume-cell forces at x and v (host arrays, 3 per node; v null: no dashpot
  /// forces), through the device: x and v are uploaded, the gather runs there
  /// (host/network/network_gather.hpp, the CPU's body), and the forces come back. Synchronous.
  virtual void add_forces_from_host(const Real* x, const Real* v, Real* f) = 0;
};

/// The node -> volume-cell table of NetworkForces and the cells it points to
/// (host/network/volume_gather.hpp); nodes_per_cell 0 and empty arrays: no volume cells.
struct VolumeCellTable {
  int nodes_per_cell = 0;                    ///< 4 (Tet4), 8 (Hex8) or 0
  std::vector<int> first;                    ///< num_nodes + 1
  std::vector<int> slot;                     ///< per incidence: nodes_per_cell * cell + local index
  std::vector<int> nodes;                    ///< nodes_per_cell per cell
  std::vector<Real> stiffness, rest_volume;  ///< kappa (Pa), V0 (m^3) per cell
};

}  // namespace softik
