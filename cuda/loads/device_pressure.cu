// DevicePressure: a PressureLoad's surface and embedding uploaded once; cavity volume, nodal
// pressure forces and the actuator Jacobian column on the GPU, by the per-triangle bodies of
// host/loads/pressure_kernel.hpp that the CPU's loads.cpp runs (the same triangle list, the
// same vertex positions), here under the exec::Cuda policy with atomic scatters. The volume's
// per-triangle values are summed by cub (no atomics: deterministic).
#include <cub/device/device_reduce.cuh>

#include <climits>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cuda/backend_entries.hpp"
#include "cuda/exec/cuda_check.hpp"
#include "cuda/exec/device_array.hpp"
#include "cuda/exec/forall_cuda.cuh"
#include "cuda/loads/device_pressure.hpp"
#include "host/loads/pressure_evaluator.hpp"
#include "host/loads/pressure_kernel.hpp"
#include "softik/backend.hpp"

namespace softik::cuda {

namespace {

using Surface = assembly::PressureSurface<exec::Space::Device>;

}  // namespace

struct DevicePressure::Impl {
  std::string name;
  int num_dofs = 0, num_vertices = 0;
  Surface surface;  ///< x set per call
  DeviceArray<int> triangles, quadratic, nodes;
  DeviceArray<Real> triangle_weight, weights;
  DeviceArray<Real> triangle_volume;   ///< one per triangle
  DeviceArray<Real> total;             ///< the summed volume
  DeviceArray<unsigned char> scratch;  ///< cub's
  std::size_t scratch_bytes = 0;
  DeviceArray<Real> x, f;  ///< for the host-vector overloads

  Surface at(const Real* d_x) const {
    Surface s = surface;
    s.x = {d_x, static_cast<std::size_t>(num_dofs)};
    return s;
  }

  void check_host_positions(const std::vector<Real>& host_x) const {
    SOFTIK_CHECK(host_x.size() == static_cast<std::size_t>(num_dofs),
                 "pressure load '" << name << "': x has " << host_x.size() << " entries, expected " << num_dofs);
    for (std::size_t k = 0; k < host_x.size(); ++k)
      SOFTIK_CHECK(std::isfinite(host_x[k]), "pressure load '" << name << "': position of node " << k / 3
                                                               << " component " << k % 3 << " is " << host_x[k]
                                                               << ": the state diverged or was not initialised");
  }
};

DevicePressure::DevicePressure(const PressureLoad& load, const Mesh& mesh) : impl_(std::make_unique<Impl>()) {
  std::string reason;
  SOFTIK_CHECK_KIND(device_available(&reason), ErrorKind::Unsupported,
                    "DevicePressure (pressure load '" << load.name << "') needs a usable CUDA device: " << reason);
  // The CPU's checks of the load against the mesh (3D, vertex and embedding indices in range,
  // embedding sizes), with its messages: evaluating the host volume once runs them all.
  (void)surface_volume(load, mesh, mesh.rest_positions());

  Impl& p = *impl_;
  p.name = load.name;
  p.num_dofs = mesh.num_dofs();
  const assembly::TriangleList list = assembly::expand_triangles(load.surface);
  SOFTIK_CHECK(list.vertices.size() < static_cast<std::size_t>(INT_MAX) &&
                   list.quadratic.size() < static_cast<std::size_t>(INT_MAX),
               "pressure load '" << load.name << "': " << list.size()
                                 << " faces (quads count 4) exceed the GPU index range: split the surface");
  SOFTIK_CHECK(mesh.num_dofs() < INT_MAX / 2,
               "pressure load '" << load.name << "': " << mesh.num_dofs() << " DOFs exceed the GPU index range");
  p.triangles = upload(list.vertices);
  p.quadratic = upload(list.quadratic);
  p.triangle_weight = upload(list.weights);
  p.nodes = upload(load.embedding.nodes);
  p.weights = upload(load.embedding.weights);
  p.num_vertices = load.embedding.empty() ? mesh.num_nodes() : load.embedding.num_vertices();
  Surface& s = p.surface;
  s.num_triangles = list.num_flat();
  s.num_quadratic = list.size() - list.num_flat();
  s.triangles = {p.triangles.get(), p.triangles.size()};
  s.quadratic = {p.quadratic.get(), p.quadratic.size()};
  s.triangle_weight = {p.triangle_weight.get(), p.triangle_weight.size()};
  s.nodes_per_vertex = load.embedding.nodes_per_vertex;
  s.nodes = {p.nodes.get(), p.nodes.size()};
  s.weights = {p.weights.get(), p.weights.size()};
  p.triangle_volume = DeviceArray<Real>(std::max<std::size_t>(1, static_cast<std::size_t>(list.size())));
  p.total = DeviceArray<Real>(1);
  SOFTIK_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, p.scratch_bytes, p.triangle_volume.get(), p.total.get(),
                                           s.num_faces(), cudaStreamPerThread));
  p.scratch = DeviceArray<unsigned char>(std::max<std::size_t>(1, p.scratch_bytes));
  p.x = DeviceArray<Real>(static_cast<std::size_t>(p.num_dofs));
  p.f = DeviceArray<Real>(static_cast<std::size_t>(p.num_dofs));
}

DevicePressure::~DevicePressure() = default;
DevicePressure::DevicePressure(DevicePressure&&) noexcept = default;
DevicePressure& DevicePressure::operator=(DevicePressure&&) noexcept = default;

int DevicePressure::num_dofs() const { return impl_->num_dofs; }
int DevicePressure::num_triangles() const { return impl_->surface.num_faces(); }
int DevicePressure::num_vertices() const { return impl_->num_vertices; }

void DevicePressure::volume(const Real* d_x, Real* d_volume) {
  Impl& p = *impl_;
  SOFTIK_CHECK(d_x != nullptr && d_volume != nullptr, "DevicePressure::volume: a device pointer is null");
  const Surface s = p.at(d_x);
  forall(exec::Cuda{}, s.num_faces(),
         assembly::TriangleVolume<exec::Space::Device>{s, {p.triangle_volume.get(), p.triangle_volume.size()}});
  SOFTIK_CUDA_CHECK(cub::DeviceReduce::Sum(p.scratch.get(), p.scratch_bytes, p.triangle_volume.get(), d_volume,
                                           s.num_faces(), cudaStreamPerThread));
}

Real DevicePressure::volume(const Real* d_x) {
  Impl& p = *impl_;
  Real* total = p.total.get();
  volume(d_x, total);
  Real V = 0;
  SOFTIK_CUDA_CHECK(cudaMemcpy(&V, total, sizeof(Real), cudaMemcpyDeviceToHost));  // waits
  return V;
}

void DevicePressure::add_forces(Real P, const Real* d_x, Real* d_f) {
  Impl& p = *impl_;
  SOFTIK_CHECK(std::isfinite(P), "pressure load '" << p.name << "': pressure " << P << " is not finite");
  SOFTIK_CHECK(d_x != nullptr && d_f != nullptr, "DevicePressure::add_forces: a device pointer is null");
  forall(exec::Cuda{}, p.surface.num_faces(),
         assembly::TrianglePressureForces<assembly::Scatter::Atomic, exec::Space::Device>{
             p.at(d_x), P, {d_f, static_cast<std::size_t>(p.num_dofs)}});
}

void DevicePressure::jacobian(const Real* d_x, Real* d_column) {
  Impl& p = *impl_;
  SOFTIK_CHECK(d_x != nullptr && d_column != nullptr, "DevicePressure::jacobian: a device pointer is null");
  SOFTIK_CUDA_CHECK(cudaMemsetAsync(d_column, 0, static_cast<std::size_t>(p.num_dofs) * sizeof(Real)));
  add_forces(1.0, d_x, d_column);  // f = P J: the forces per unit pressure (as pressure_jacobian)
}

Real DevicePressure::volume(const std::vector<Real>& x) {
  Impl& p = *impl_;
  p.check_host_positions(x);
  SOFTIK_CUDA_CHECK(cudaMemcpy(p.x.get(), x.data(), x.size() * sizeof(Real), cudaMemcpyHostToDevice));
  return volume(static_cast<const Real*>(p.x.get()));
}

void DevicePressure::add_forces(Real P, const std::vector<Real>& x, std::vector<Real>& f) {
  Impl& p = *impl_;
  p.check_host_positions(x);
  SOFTIK_CHECK(f.size() == x.size(),
               "DevicePressure::add_forces: f has " << f.size() << " entries, expected " << x.size());
  SOFTIK_CUDA_CHECK(cudaMemcpy(p.x.get(), x.data(), x.size() * sizeof(Real), cudaMemcpyHostToDevice));
  SOFTIK_CUDA_CHECK(cudaMemcpy(p.f.get(), f.data(), f.size() * sizeof(Real), cudaMemcpyHostToDevice));
  add_forces(P, static_cast<const Real*>(p.x.get()), p.f.get());
  SOFTIK_CUDA_CHECK(cudaMemcpy(f.data(), p.f.get(), f.size() * sizeof(Real), cudaMemcpyDeviceToHost));
}

std::vector<Real> DevicePressure::jacobian(const std::vector<Real>& x) {
  Impl& p = *impl_;
  p.check_host_positions(x);
  SOFTIK_CUDA_CHECK(cudaMemcpy(p.x.get(), x.data(), x.size() * sizeof(Real), cudaMemcpyHostToDevice));
  jacobian(static_cast<const Real*>(p.x.get()), p.f.get());
  std::vector<Real> J(x.size());
  SOFTIK_CUDA_CHECK(cudaMemcpy(J.data(), p.f.get(), J.size() * sizeof(Real), cudaMemcpyDeviceToHost));
  return J;
}

}  // namespace softik::cuda

namespace softik {

namespace {

/// PressureEvaluator on the GPU: DevicePressure's host-vector calls (x uploaded once per call);
/// a dead load is evaluated at the rest positions, as add_pressure_forces does.
class DevicePressureEvaluator final : public PressureEvaluator {
 public:
  DevicePressureEvaluator(const PressureLoad& load, const Mesh& mesh)
      : device_(load, mesh), follower_(load.follower), X_(mesh.X) {}
  Real volume(const std::vector<Real>& x) override { return device_.volume(x); }
  void add_forces(Real P, const std::vector<Real>& x, std::vector<Real>& f) override {
    device_.add_forces(P, follower_ ? x : X_, f);
  }
  std::vector<Real> jacobian(const std::vector<Real>& x) override { return device_.jacobian(follower_ ? x : X_); }

 private:
  cuda::DevicePressure device_;
  bool follower_;
  std::vector<Real> X_;
};

}  // namespace

std::unique_ptr<PressureEvaluator> make_device_pressure_evaluator(const PressureLoad& load, const Mesh& mesh) {
  return std::make_unique<DevicePressureEvaluator>(load, mesh);
}

}  // namespace softik
