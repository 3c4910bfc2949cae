// The node-network force gather on the GPU (cuda/network/device_network.hpp).
#include "cuda/backend_entries.hpp"
#include "cuda/network/device_network.hpp"

#include <cuda_runtime.h>

#include <string>

#include "cuda/exec/cuda_check.hpp"
#include "cuda/exec/forall_cuda.cuh"
#include "host/network/network_gather.hpp"
#include "softik/backend.hpp"

namespace softik::cuda {

namespace {

template <class T>
exec::DeviceView<const T> view(const DeviceArray<T>& array) {
  return {array.get(), array.size()};
}

}  // namespace

DeviceNetwork::DeviceNetwork(const std::vector<int>& first, const std::vector<int>& other,
                             const std::vector<Real>& spring, const std::vector<Real>& extra,
                             const VolumeCellTable& cells)
    : num_nodes_(static_cast<int>(first.size()) - 1), extras_(!extra.empty()), cell_nodes_(cells.nodes_per_cell) {
  require_backend(Backend::Cuda);
  first_ = upload(first);
  other_ = upload(other);
  spring_ = upload(spring);
  extra_ = upload(extra);
  cell_first_ = upload(cells.first);
  cell_slot_ = upload(cells.slot);
  cell_list_ = upload(cells.nodes);
  cell_stiffness_ = upload(cells.stiffness);
  cell_rest_volume_ = upload(cells.rest_volume);
  num_cells_ = static_cast<int>(cells.stiffness.size());
  cell_pressure_ = DeviceArray<Real>(cells.stiffness.size());
  const size_t n3 = 3 * static_cast<size_t>(num_nodes_);
  x_ = DeviceArray<Real>(n3);
  v_ = DeviceArray<Real>(n3);
  f_ = DeviceArray<Real>(n3);
  f_host_.resize(n3);
}

void DeviceNetwork::add_forces(const Real* d_x, const Real* d_v, Real* d_f) const {
  const size_t n3 = 3 * static_cast<size_t>(num_nodes_);
  network::NetworkTables<exec::Space::Device> tables;
  tables.first = view(first_), tables.other = view(other_), tables.spring = view(spring_), tables.extra = view(extra_);
  tables.extras = extras_;
  tables.cell_nodes = cell_nodes_;
  tables.cell_first = view(cell_first_), tables.cell_slot = view(cell_slot_), tables.cell_list = view(cell_list_);
  tables.cell_stiffness = view(cell_stiffness_), tables.cell_rest_volume = view(cell_rest_volume_);
  tables.num_cells = num_cells_;
  tables.cell_pressure = exec::DeviceView<Real>{cell_pressure_.get(), cell_pressure_.size()};
  network::gather_network_forces(exec::Cuda{}, num_nodes_, tables, exec::DeviceView<const Real>{d_x, n3},
                                 exec::DeviceView<const Real>{d_v, d_v ? n3 : 0}, exec::DeviceView<Real>{d_f, n3});
}

void DeviceNetwork::add_forces_from_host(const Real* x, const Real* v, Real* f) {
  const size_t bytes = 3 * static_cast<size_t>(num_nodes_) * sizeof(Real);
  SOFTIK_CUDA_CHECK(cudaMemcpy(x_.get(), x, bytes, cudaMemcpyHostToDevice));
  if (v) SOFTIK_CUDA_CHECK(cudaMemcpy(v_.get(), v, bytes, cudaMemcpyHostToDevice));
  SOFTIK_CUDA_CHECK(cudaMemset(f_.get(), 0, bytes));
  add_forces(x_.get(), v ? v_.get() : nullptr, f_.get());
  SOFTIK_CUDA_CHECK(cudaMemcpy(f_host_.data(), f_.get(), bytes, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < f_host_.size(); ++i) f[i] += f_host_[i];
}

}  // namespace softik::cuda

namespace softik {

std::unique_ptr<DeviceNetworkForces> make_device_network_forces(const std::vector<int>& first,
                                                                const std::vector<int>& other,
                                                                const std::vector<Real>& spring,
                                                                const std::vector<Real>& extra,
                                                                const VolumeCellTable& cells) {
  return std::make_unique<cuda::DeviceNetwork>(first, other, spring, extra, cells);
}

}  // namespace softik
