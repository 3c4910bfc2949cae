// The node-network link gather on the GPU (cuda/network/device_network.hpp).
#include "cuda/network/device_network.hpp"

#include <cuda_runtime.h>

#include <string>

#include "cuda/exec/cuda_check.hpp"
#include "cuda/exec/forall_cuda.cuh"
#include "host/network/link_gather.hpp"
#include "softik/backend.hpp"

namespace softik::cuda {

namespace {

template <class T>
DeviceArray<T> upload(const std::vector<T>& host) {
  DeviceArray<T> d(host.size());
  if (!host.empty()) SOFTIK_CUDA_CHECK(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

DeviceNetwork::DeviceNetwork(const std::vector<int>& first, const std::vector<int>& other,
                             const std::vector<Real>& spring, const std::vector<Real>& extra)
    : num_nodes_(static_cast<int>(first.size()) - 1), extras_(!extra.empty()) {
  require_backend(Backend::Cuda);
  first_ = upload(first);
  other_ = upload(other);
  spring_ = upload(spring);
  extra_ = upload(extra);
  const size_t n3 = 3 * static_cast<size_t>(num_nodes_);
  x_ = DeviceArray<Real>(n3);
  v_ = DeviceArray<Real>(n3);
  f_ = DeviceArray<Real>(n3);
  f_host_.resize(n3);
}

void DeviceNetwork::add_forces(const Real* d_x, const Real* d_v, Real* d_f) const {
  using exec::Space;
  const size_t n3 = 3 * static_cast<size_t>(num_nodes_);
  const exec::DeviceView<const int> first{first_.get(), first_.size()}, other{other_.get(), other_.size()};
  const exec::DeviceView<const Real> spring{spring_.get(), spring_.size()}, extra{extra_.get(), extra_.size()};
  const exec::DeviceView<const Real> x{d_x, n3}, v{d_v, d_v ? n3 : 0};
  const exec::DeviceView<Real> f{d_f, n3};
  if (extras_)
    exec::forall(exec::Cuda{}, num_nodes_, network::GatherLinkForces<Space::Device, true>{first, other, spring, extra, x, v, f});
  else
    exec::forall(exec::Cuda{}, num_nodes_, network::GatherLinkForces<Space::Device, false>{first, other, spring, extra, x, v, f});
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

std::unique_ptr<DeviceNetworkForces> make_device_network_forces(const std::vector<int>& first, const std::vector<int>& other,
                                                                const std::vector<Real>& spring,
                                                                const std::vector<Real>& extra) {
  return std::make_unique<cuda::DeviceNetwork>(first, other, spring, extra);
}

}  // namespace softik
