// The node-network force gather on the GPU (host/network/device_network.hpp's interface): the
// node -> link and node -> volume-cell tables in device memory and forall(exec::Cuda) over the
// nodes with the CPU's loop body (host/network/network_gather.hpp: link_gather.hpp with
// volume_gather.hpp), so both backends compute the same sums in the same order. Private to cuda/
// and its tests and benchmarks.
#pragma once

#include <vector>

#include "cuda/exec/device_array.hpp"
#include "host/network/device_network.hpp"

namespace softik::cuda {

class DeviceNetwork final : public DeviceNetworkForces {
 public:
  /// Throws softik::Error (Unsupported) without a usable device.
  DeviceNetwork(const std::vector<int>& first, const std::vector<int>& other, const std::vector<Real>& spring,
                const std::vector<Real>& extra, const VolumeCellTable& cells = {});
  int num_nodes() const { return num_nodes_; }
  /// d_f += the link and volume-cell forces at d_x, d_v (device arrays, 3 per node; d_v null: no
  /// dashpot forces). Launches on the calling thread's default stream, returns without waiting.
  void add_forces(const Real* d_x, const Real* d_v, Real* d_f) const;
  void add_forces_from_host(const Real* x, const Real* v, Real* f) override;

 private:
  int num_nodes_ = 0;
  bool extras_ = false;
  DeviceArray<int> first_, other_;
  DeviceArray<Real> spring_, extra_;
  int cell_nodes_ = 0;  ///< 4 (Tet4), 8 (Hex8), 0: no volume cells
  DeviceArray<int> cell_first_, cell_slot_, cell_list_;
  DeviceArray<Real> cell_stiffness_, cell_rest_volume_;
  int num_cells_ = 0;
  mutable DeviceArray<Real> cell_pressure_;  ///< the cells' first pass (p_c per cell); add_forces runs in stream order
  DeviceArray<Real> x_, v_, f_;              ///< staging for add_forces_from_host
  std::vector<Real> f_host_;
};

}  // namespace softik::cuda
