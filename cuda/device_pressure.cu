// DevicePressure: a PressureLoad's surface and embedding uploaded once; cavity volume, nodal
// pressure forces and the actuator Jacobian column on the GPU, by the per-triangle functions of
// include/softik/fem/pressure_load.hpp (the physics has one source). The surface is traversed as
// host/loads.cpp's for_each_triangle does: triangles with weight 1, then each quad as the four
// triangles of its two diagonal splits (fem::quad_split_vertex) with weight 1/2.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_array.hpp"
#include "softik/cuda_backend.hpp"
#include "softik/cuda_pressure.hpp"
#include "softik/fem/pressure_load.hpp"

namespace softik::cuda {

namespace {

constexpr int kBlock = 256;         // threads per block (a power of two: the tree reduction)
constexpr int kMaxPartials = 1024;  // blocks of the volume reduction's first pass, at most

/// The uploaded surface (device pointers), passed to the kernels by value.
struct SurfaceView {
  int num_triangles = 0;
  int num_vertices = 0;
  int nodes_per_vertex = 0;     ///< 0: identity (vertex v is mesh node v)
  const int* triangles = nullptr;       ///< [j * num_triangles + t]: vertex j (0..2) of triangle t
  const Real* triangle_weight = nullptr;  ///< 1 for a triangle, 1/2 for a quad's split triangle
  const int* nodes = nullptr;           ///< [k * num_vertices + v]: embedding node k of vertex v
  const Real* weights = nullptr;        ///< same layout
};

__device__ inline fem::Vec3 load_vec3(const Real* p, int v) {
  const std::size_t o = 3 * static_cast<std::size_t>(v);
  return fem::Vec3(p[o], p[o + 1], p[o + 2]);
}

/// Triangle t's vertex indices and positions (pos: 3 per vertex).
__device__ inline void gather_triangle(const SurfaceView& s, const Real* pos, int t, int v[3], fem::Vec3 p[3]) {
  const std::size_t nt = static_cast<std::size_t>(s.num_triangles);
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    v[j] = s.triangles[j * nt + t];
    p[j] = load_vec3(pos, v[j]);
  }
}

/// Embedded vertex positions x_v = sum_k w_k x[node_k] (the interpolation of
/// SurfaceEmbedding, as host/loads.cpp's VertexMap::position accumulates it).
__global__ void embedded_positions_kernel(SurfaceView s, const Real* x, Real* pos) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= s.num_vertices) return;
  const std::size_t nv = static_cast<std::size_t>(s.num_vertices);
  fem::Vec3 p = fem::Vec3::Zero();
  for (int k = 0; k < s.nodes_per_vertex; ++k) {
    const std::size_t e = k * nv + v;
    p += s.weights[e] * load_vec3(x, s.nodes[e]);
  }
  const std::size_t o = 3 * static_cast<std::size_t>(v);
  pos[o] = p[0];
  pos[o + 1] = p[1];
  pos[o + 2] = p[2];
}

/// Tree sum of one value per thread of the block (blockDim.x == kBlock); the result is valid in
/// thread 0. Fixed order: deterministic.
__device__ inline Real block_sum(Real value) {
  __shared__ Real sum[kBlock];
  sum[threadIdx.x] = value;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (static_cast<int>(threadIdx.x) < stride) sum[threadIdx.x] += sum[threadIdx.x + stride];
    __syncthreads();
  }
  return sum[0];
}

/// First pass of the volume: each block sums w_t * V_t over a grid-stride range of triangles
/// into partials[blockIdx.x].
__global__ void volume_partials_kernel(SurfaceView s, const Real* pos, Real* partials) {
  Real local = 0;
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < s.num_triangles; t += gridDim.x * blockDim.x) {
    int v[3];
    fem::Vec3 p[3];
    gather_triangle(s, pos, t, v, p);
    local += s.triangle_weight[t] * fem::triangle_volume_contribution(p[0], p[1], p[2]);
  }
  const Real total = block_sum(local);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

/// Second pass: one block sums `count` partials into *out.
__global__ void sum_partials_kernel(const Real* partials, int count, Real* out) {
  Real local = 0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) local += partials[i];
  const Real total = block_sum(local);
  if (threadIdx.x == 0) *out = total;
}

/// One thread per triangle: fem::triangle_pressure_forces with the triangle's share of P,
/// scattered to the vertices' nodes with their embedding weights (double atomics).
__global__ void pressure_forces_kernel(SurfaceView s, Real P, const Real* pos, Real* f) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= s.num_triangles) return;
  int v[3];
  fem::Vec3 p[3], fv[3];
  gather_triangle(s, pos, t, v, p);
  fem::triangle_pressure_forces(s.triangle_weight[t] * P, p[0], p[1], p[2], fv[0], fv[1], fv[2]);
  const std::size_t nv = static_cast<std::size_t>(s.num_vertices);
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    if (s.nodes_per_vertex == 0) {
      const std::size_t o = 3 * static_cast<std::size_t>(v[j]);
      for (int i = 0; i < 3; ++i) atomicAdd(&f[o + i], fv[j][i]);
    } else {
      for (int k = 0; k < s.nodes_per_vertex; ++k) {
        const std::size_t e = k * nv + v[j];
        const std::size_t o = 3 * static_cast<std::size_t>(s.nodes[e]);
        const Real w = s.weights[e];
        for (int i = 0; i < 3; ++i) atomicAdd(&f[o + i], w * fv[j][i]);
      }
    }
  }
}

int blocks_for(int count) { return (count + kBlock - 1) / kBlock; }

}  // namespace

struct DevicePressure::Impl {
  std::string name;
  int num_dofs = 0;
  SurfaceView view;
  int num_partials = 1;
  DeviceArray<int> triangles, nodes;
  DeviceArray<Real> triangle_weight, weights;
  DeviceArray<Real> positions;  ///< embedded vertex positions (3 per vertex), if embedded
  DeviceArray<Real> partials;   ///< num_partials + 1: the volume's first pass, then the total
  DeviceArray<Real> x, f;       ///< for the host-vector overloads

  /// The vertex positions at d_x: d_x itself, or the embedded positions computed into `positions`.
  const Real* vertex_positions(const Real* d_x) {
    if (view.nodes_per_vertex == 0) return d_x;
    if (view.num_vertices > 0) {
      embedded_positions_kernel<<<blocks_for(view.num_vertices), kBlock>>>(view, d_x, positions.get());
      SOFTIK_CUDA_CHECK(cudaGetLastError());
    }
    return positions.get();
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
  SOFTIK_CHECK(device_available(&reason),
               "DevicePressure (pressure load '" << load.name << "') needs a usable CUDA device: " << reason);
  // The CPU's checks of the load against the mesh (3D, vertex and embedding indices in range,
  // embedding sizes), with its messages: evaluating the host volume once runs them all.
  (void)surface_volume(load, mesh, mesh.rest_positions());

  Impl& p = *impl_;
  p.name = load.name;
  p.num_dofs = mesh.num_dofs();
  const SurfaceGroup& s = load.surface;
  const SurfaceEmbedding& e = load.embedding;
  const std::size_t nt = s.triangles.size() + 4 * s.quads.size();
  const std::size_t max_triangles = static_cast<std::size_t>(INT_MAX) - static_cast<std::size_t>(kBlock) * kMaxPartials;
  SOFTIK_CHECK(nt <= max_triangles, "pressure load '" << load.name << "': " << nt
                                                       << " triangles (quads count 4) exceed the GPU limit of "
                                                       << max_triangles << ": split the surface");
  SOFTIK_CHECK(mesh.num_dofs() < INT_MAX / 2,
               "pressure load '" << load.name << "': " << mesh.num_dofs() << " DOFs exceed the GPU index range");

  // Triangles in host/loads.cpp's order, structure of arrays.
  std::vector<int> tri(3 * nt);
  std::vector<Real> tw(nt);
  std::size_t t = 0;
  auto add = [&](int a, int b, int c, Real w) {
    tri[t] = a;
    tri[nt + t] = b;
    tri[2 * nt + t] = c;
    tw[t] = w;
    ++t;
  };
  for (const auto& tr : s.triangles) add(tr[0], tr[1], tr[2], 1.0);
  for (const auto& q : s.quads)
    for (int k = 0; k < 4; ++k)
      add(q[static_cast<std::size_t>(fem::quad_split_vertex(k, 0))], q[static_cast<std::size_t>(fem::quad_split_vertex(k, 1))],
          q[static_cast<std::size_t>(fem::quad_split_vertex(k, 2))], 0.5);

  p.triangles = DeviceArray<int>(tri.size());
  p.triangle_weight = DeviceArray<Real>(tw.size());
  SOFTIK_CUDA_CHECK(cudaMemcpy(p.triangles.get(), tri.data(), tri.size() * sizeof(int), cudaMemcpyHostToDevice));
  SOFTIK_CUDA_CHECK(cudaMemcpy(p.triangle_weight.get(), tw.data(), tw.size() * sizeof(Real), cudaMemcpyHostToDevice));

  SurfaceView& v = p.view;
  v.num_triangles = static_cast<int>(nt);
  v.triangles = p.triangles.get();
  v.triangle_weight = p.triangle_weight.get();
  if (e.empty()) {
    v.num_vertices = mesh.num_nodes();
    v.nodes_per_vertex = 0;
  } else {
    v.num_vertices = e.num_vertices();
    v.nodes_per_vertex = e.nodes_per_vertex;
    const std::size_t nv = static_cast<std::size_t>(v.num_vertices), npv = static_cast<std::size_t>(v.nodes_per_vertex);
    std::vector<int> nodes(e.nodes.size());
    std::vector<Real> weights(e.weights.size());
    for (std::size_t vi = 0; vi < nv; ++vi)
      for (std::size_t k = 0; k < npv; ++k) {
        nodes[k * nv + vi] = e.nodes[vi * npv + k];
        weights[k * nv + vi] = e.weights[vi * npv + k];
      }
    p.nodes = DeviceArray<int>(nodes.size());
    p.weights = DeviceArray<Real>(weights.size());
    p.positions = DeviceArray<Real>(3 * nv);
    SOFTIK_CUDA_CHECK(cudaMemcpy(p.nodes.get(), nodes.data(), nodes.size() * sizeof(int), cudaMemcpyHostToDevice));
    SOFTIK_CUDA_CHECK(cudaMemcpy(p.weights.get(), weights.data(), weights.size() * sizeof(Real), cudaMemcpyHostToDevice));
    v.nodes = p.nodes.get();
    v.weights = p.weights.get();
  }

  p.num_partials = std::max(1, std::min(blocks_for(v.num_triangles), kMaxPartials));
  p.partials = DeviceArray<Real>(static_cast<std::size_t>(p.num_partials) + 1);
  p.x = DeviceArray<Real>(static_cast<std::size_t>(p.num_dofs));
  p.f = DeviceArray<Real>(static_cast<std::size_t>(p.num_dofs));
}

DevicePressure::~DevicePressure() = default;
DevicePressure::DevicePressure(DevicePressure&&) noexcept = default;
DevicePressure& DevicePressure::operator=(DevicePressure&&) noexcept = default;

int DevicePressure::num_dofs() const { return impl_->num_dofs; }
int DevicePressure::num_triangles() const { return impl_->view.num_triangles; }
int DevicePressure::num_vertices() const { return impl_->view.num_vertices; }

void DevicePressure::volume(const Real* d_x, Real* d_volume) {
  Impl& p = *impl_;
  SOFTIK_CHECK(d_x != nullptr && d_volume != nullptr, "DevicePressure::volume: a device pointer is null");
  const Real* pos = p.vertex_positions(d_x);
  volume_partials_kernel<<<p.num_partials, kBlock>>>(p.view, pos, p.partials.get());
  SOFTIK_CUDA_CHECK(cudaGetLastError());
  sum_partials_kernel<<<1, kBlock>>>(p.partials.get(), p.num_partials, d_volume);
  SOFTIK_CUDA_CHECK(cudaGetLastError());
}

Real DevicePressure::volume(const Real* d_x) {
  Impl& p = *impl_;
  Real* total = p.partials.get() + p.num_partials;
  volume(d_x, total);
  Real V = 0;
  SOFTIK_CUDA_CHECK(cudaMemcpy(&V, total, sizeof(Real), cudaMemcpyDeviceToHost));  // waits
  return V;
}

void DevicePressure::add_forces(Real P, const Real* d_x, Real* d_f) {
  Impl& p = *impl_;
  SOFTIK_CHECK(std::isfinite(P), "pressure load '" << p.name << "': pressure " << P << " is not finite");
  SOFTIK_CHECK(d_x != nullptr && d_f != nullptr, "DevicePressure::add_forces: a device pointer is null");
  if (p.view.num_triangles == 0) return;
  const Real* pos = p.vertex_positions(d_x);
  pressure_forces_kernel<<<blocks_for(p.view.num_triangles), kBlock>>>(p.view, P, pos, d_f);
  SOFTIK_CUDA_CHECK(cudaGetLastError());
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
  SOFTIK_CHECK(f.size() == x.size(), "DevicePressure::add_forces: f has " << f.size() << " entries, expected " << x.size());
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
