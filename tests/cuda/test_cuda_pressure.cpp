// softik::cuda::DevicePressure must give the CPU's pressure numbers (loads.hpp: surface_volume,
// add_pressure_forces, pressure_jacobian) to a relative 1e-12 (max abs difference / max abs
// value), at deformed positions, on: the triangle cavity of a Tet4 finger, the quad cavity of
// the Hex8 finger of the inverse tests, and a cube surface (quads and triangles) embedded in
// Tet4 and Hex8 boxes. Without a GPU these skip with the reason, and constructing the class
// throws a softik::Error naming the missing device (checked here without a GPU).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../inverse_test_support.hpp"
#include "../mesh_helpers.hpp"
#include "cuda/loads/device_pressure.hpp"
#include "softik/actuator_generator.hpp"
#include "softik/backend.hpp"
#include "softik/error.hpp"
#include "softik/fem/pressure_load.hpp"
#include "softik/loads.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/point_location.hpp"

namespace softik {
namespace {

constexpr Real kTolerance = 1e-12;

/// A device buffer for the tests (cudaMalloc / cudaFree).
class Buffer {
 public:
  explicit Buffer(std::size_t count) : count_(count) {
    EXPECT_EQ(cudaMalloc(&ptr_, std::max<std::size_t>(count, 1) * sizeof(Real)), cudaSuccess);
  }
  explicit Buffer(const std::vector<Real>& host) : Buffer(host.size()) { upload(host); }
  ~Buffer() { cudaFree(ptr_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Real* get() const { return ptr_; }
  void upload(const std::vector<Real>& host) {
    ASSERT_EQ(host.size(), count_);
    EXPECT_EQ(cudaMemcpy(ptr_, host.data(), count_ * sizeof(Real), cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<Real> download() const {
    std::vector<Real> host(count_);
    EXPECT_EQ(cudaMemcpy(host.data(), ptr_, count_ * sizeof(Real), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }

 private:
  Real* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// max |gpu - cpu| / max |cpu|.
Real relative_difference(const std::vector<Real>& gpu, const std::vector<Real>& cpu) {
  EXPECT_EQ(gpu.size(), cpu.size());
  Real diff = 0, scale = 0;
  for (std::size_t k = 0; k < std::min(gpu.size(), cpu.size()); ++k) {
    diff = std::max(diff, std::abs(gpu[k] - cpu[k]));
    scale = std::max(scale, std::abs(cpu[k]));
  }
  return scale > 0 ? diff / scale : diff;
}

/// A rotation about the axis (1, 2, 3), a stretch along x and a random jitter of `amplitude`.
std::vector<Real> deformed(const Mesh& mesh, Real amplitude, unsigned seed) {
  const Eigen::Matrix3d R = Eigen::AngleAxisd(0.6, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> jitter(-amplitude, amplitude);
  std::vector<Real> x(mesh.X.size());
  for (int n = 0; n < mesh.num_nodes(); ++n) {
    const std::size_t o = 3 * static_cast<std::size_t>(n);
    const Eigen::Vector3d X(1.15 * mesh.X[o], mesh.X[o + 1], mesh.X[o + 2]);
    const Eigen::Vector3d p = R * X;
    for (int i = 0; i < 3; ++i) x[o + static_cast<std::size_t>(i)] = p[i] + jitter(rng);
  }
  return x;
}

std::vector<Real> random_vector(std::size_t size, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> u(-1, 1);
  std::vector<Real> v(size);
  for (Real& value : v) value = u(rng);
  return v;
}

/// The device volume, forces and Jacobian column of `load` against the CPU's, at x.
void expect_matches_cpu(const PressureLoad& load, const Mesh& mesh, const std::vector<Real>& x, Real P) {
  cuda::DevicePressure device(load, mesh);
  ASSERT_EQ(device.num_dofs(), mesh.num_dofs());
  ASSERT_EQ(static_cast<std::size_t>(device.num_triangles()),
            load.surface.triangles.size() + 4 * load.surface.quads.size());
  const std::size_t n = x.size();
  Buffer d_x(x);

  // Volume: device pointer (host result and device result) and host-vector versions.
  const Real V_cpu = surface_volume(load, mesh, x);
  ASSERT_GT(std::abs(V_cpu), 0);
  const Real V_gpu = device.volume(static_cast<const Real*>(d_x.get()));
  EXPECT_LE(std::abs(V_gpu - V_cpu), kTolerance * std::abs(V_cpu)) << "V_gpu " << V_gpu << " V_cpu " << V_cpu;
  EXPECT_EQ(device.volume(static_cast<const Real*>(d_x.get())), V_gpu) << "the reduction is deterministic";
  EXPECT_EQ(device.volume(x), V_gpu);
  Buffer d_V(1);
  device.volume(d_x.get(), d_V.get());
  EXPECT_EQ(d_V.download()[0], V_gpu);

  // Forces added to a non-zero vector.
  const std::vector<Real> f0 = random_vector(n, 11);
  std::vector<Real> f_cpu = f0;
  add_pressure_forces(load, P, mesh, x, f_cpu);
  Buffer d_f(f0);
  device.add_forces(P, d_x.get(), d_f.get());
  EXPECT_LE(relative_difference(d_f.download(), f_cpu), kTolerance);
  std::vector<Real> f_host = f0;
  device.add_forces(P, x, f_host);
  EXPECT_LE(relative_difference(f_host, f_cpu), kTolerance);

  // Jacobian column: the buffer is overwritten (zeroed first), not added to.
  const std::vector<Real> J_cpu = pressure_jacobian(load, mesh, x);
  Buffer d_J(std::vector<Real>(n, 1e30));
  device.jacobian(d_x.get(), d_J.get());
  EXPECT_LE(relative_difference(d_J.download(), J_cpu), kTolerance);
  EXPECT_LE(relative_difference(device.jacobian(x), J_cpu), kTolerance);
}

TEST(CudaPressure, TriangleCavityOfATet4Finger) {
  std::string reason;
  if (!cuda::device_available(&reason)) GTEST_SKIP() << reason;
  FingerSpec spec;
  spec.cell_size = 0.004;
  spec.cell_type = CellType::Tet4;
  const Mesh mesh = make_finger(spec);
  PressureLoad load = cavity_load(mesh);
  ASSERT_FALSE(load.surface.triangles.empty());
  ASSERT_TRUE(load.surface.quads.empty());
  for (unsigned seed : {1u, 2u}) {
    SCOPED_TRACE(seed);
    expect_matches_cpu(load, mesh, deformed(mesh, 5e-4, seed), 3e4);
  }
  expect_matches_cpu(load, mesh, mesh.rest_positions(), -1e3);  // rest state, suction
}

TEST(CudaPressure, QuadCavityOfAHex8Finger) {
  std::string reason;
  if (!cuda::device_available(&reason)) GTEST_SKIP() << reason;
  const inverse_test::Finger finger;
  ASSERT_FALSE(finger.cavity.surface.quads.empty());
  ASSERT_TRUE(finger.cavity.surface.triangles.empty());
  expect_matches_cpu(finger.cavity, finger.mesh, deformed(finger.mesh, 5e-4, 3), 2.5e4);
}

TEST(CudaPressure, EmbeddedCubeSurfaceOfQuadsAndTriangles) {
  std::string reason;
  if (!cuda::device_available(&reason)) GTEST_SKIP() << reason;
  // The surface of the cube [0.3, 0.7]^3: the boundary of a 3x3x3 grid, every other quad split
  // into two triangles (a mixed surface). Its vertices are the grid's nodes, embedded in a box.
  BoxSpec cube;
  cube.origin = {0.3, 0.3, 0.3};
  cube.size = {0.4, 0.4, 0.4};
  cube.cells = {3, 3, 3};
  const Mesh grid = make_box(3, CellType::Hex8, cube);
  const SurfaceGroup boundary = boundary_surface(grid);
  PressureLoad load;
  load.name = "embedded cube";
  for (std::size_t q = 0; q < boundary.quads.size(); ++q) {
    const auto& f = boundary.quads[q];
    if (q % 2 == 0) {
      load.surface.quads.push_back(f);
    } else {
      int t0[3], t1[3];
      fem::split_quad(f[0], f[1], f[2], f[3], t0, t1);
      load.surface.triangles.push_back({t0[0], t0[1], t0[2]});
      load.surface.triangles.push_back({t1[0], t1[1], t1[2]});
    }
  }
  BoxSpec body;
  body.cells = {4, 4, 4};
  for (CellType type : {CellType::Tet4, CellType::Hex8}) {
    SCOPED_TRACE(cell_type_name(type));
    const Mesh mesh = make_box(3, type, body);
    load.embedding = embed_surface(mesh, grid.X, 1e-9);
    ASSERT_EQ(load.embedding.nodes_per_vertex, type == CellType::Tet4 ? 4 : 8);
    EXPECT_NEAR(surface_volume(load, mesh, mesh.rest_positions()), 0.064, 1e-12);
    expect_matches_cpu(load, mesh, deformed(mesh, 0.02, 4), 7.0);
  }
}

TEST(CudaPressure, WithoutADeviceConstructionIsAnErrorNamingIt) {
  std::string reason;
  if (cuda::device_available(&reason)) GTEST_SKIP() << "a CUDA device is present";
  FingerSpec spec;
  spec.cell_size = 0.004;
  const Mesh mesh = make_finger(spec);
  PressureLoad load = cavity_load(mesh);
  auto message_of = [](auto&& make) -> std::string {
    try {
      make();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  const std::string pressure = message_of([&] { cuda::DevicePressure device(load, mesh); });
  EXPECT_NE(pressure.find("DevicePressure"), std::string::npos) << pressure;
  EXPECT_NE(pressure.find("needs a usable CUDA device"), std::string::npos) << pressure;
  EXPECT_NE(pressure.find(reason), std::string::npos) << pressure;
}

}  // namespace
}  // namespace softik
