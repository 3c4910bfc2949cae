// The node-network link gather on the GPU (cuda/network/device_network.hpp) must give the CPU's
// forces (NetworkForces, the same loop body) to a relative 1e-13, with and without dashpots, on a
// stretched and sheared Hex8 lattice, and with volume terms (Poisson's ratio 0.45) on Tet4 and
// Hex8 networks; an explicit run of a network on the GPU backend follows the
// CPU run. Without a GPU these skip with the reason, and asking for the cuda backend throws a
// softik::Error naming the missing device (checked here without a GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cuda_test_support.hpp"
#include "softik/error.hpp"
#include "softik/explicit_dynamics.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/node_network.hpp"

namespace softik {
namespace {

NodeNetwork lattice(Real dashpot_time) {
  BoxSpec spec;
  spec.size = {0.02, 0.012, 0.01};
  spec.cells = {10, 6, 5};
  NetworkFromMesh from{2e5, 0.25, 1070};
  from.cubic_hardening = 30;
  from.dashpot_time = dashpot_time;
  return make_node_network(make_box(3, CellType::Hex8, spec), from);
}

TEST(CudaNetwork, TheGpuGatherGivesTheCpuForces) {
  SKIP_WITHOUT_DEVICE();
  for (Real dashpot : {0.0, 1e-4}) {
    const NodeNetwork net = lattice(dashpot);
    std::vector<Real> x = net.X, v(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] += 1e-3 * std::sin(13.0 * static_cast<Real>(i)) * (i % 3 == 0 ? 1 : 0.5);
      v[i] = 0.1 * std::cos(7.0 * static_cast<Real>(i));
    }
    std::vector<Real> f_cpu(x.size(), 0.0), f_gpu(x.size(), 0.0);
    NetworkForces(net, 1, Backend::Cpu).add_forces(x.data(), v.data(), f_cpu.data());
    NetworkForces(net, 1, Backend::Cuda).add_forces(x.data(), v.data(), f_gpu.data());
    EXPECT_LT(relative_difference(f_gpu, f_cpu), 1e-13) << "dashpot_time " << dashpot;
  }
}

TEST(CudaNetwork, TheGpuGatherGivesTheCpuForcesWithVolumeTerms) {
  SKIP_WITHOUT_DEVICE();
  for (CellType type : {CellType::Tet4, CellType::Hex8}) {
    BoxSpec spec;
    spec.size = {0.02, 0.012, 0.01};
    spec.cells = {10, 6, 5};
    const NodeNetwork net = make_node_network(make_box(3, type, spec), {2e5, 0.45, 1070});
    ASSERT_GT(net.num_volume_cells(), 0);
    std::vector<Real> x = net.X;
    for (size_t i = 0; i < x.size(); ++i) x[i] += 1e-4 * std::sin(13.0 * static_cast<Real>(i));
    std::vector<Real> f_cpu(x.size(), 0.0), f_gpu(x.size(), 0.0);
    NetworkForces(net, 1, Backend::Cpu).add_forces(x.data(), nullptr, f_cpu.data());
    NetworkForces(net, 1, Backend::Cuda).add_forces(x.data(), nullptr, f_gpu.data());
    EXPECT_LT(relative_difference(f_gpu, f_cpu), 1e-13) << cell_type_name(type);
  }
}

TEST(CudaNetwork, AnExplicitRunOnTheGpuFollowsTheCpuRun) {
  SKIP_WITHOUT_DEVICE();
  const NodeNetwork net = lattice(1e-5);
  ExplicitLoads loads;
  loads.gravity = {0, 0, -9.81};
  std::vector<char> fixed(net.X.size(), 0);
  for (int n = 0; n < net.num_nodes(); ++n)
    if (net.X[3 * n] == 0) fixed[3 * n] = fixed[3 * n + 1] = fixed[3 * n + 2] = 1;
  const NodeNetworkModel cpu(net, fixed, loads, 1, Backend::Cpu), gpu(net, fixed, loads, 1, Backend::Cuda);
  ExplicitSolver a(cpu), b(gpu);
  a.advance(0.01);
  b.advance(0.01);
  EXPECT_LT(relative_difference(b.x(), a.x()), 1e-12);
  EXPECT_LT(relative_difference(b.v(), a.v()), 1e-9);
}

TEST(CudaNetwork, TheCudaBackendWithoutADeviceIsAClearError) {
  std::string reason;
  if (cuda::device_available(&reason)) GTEST_SKIP() << "a device is present";
  try {
    NetworkForces forces(lattice(0), 1, Backend::Cuda);
    ADD_FAILURE() << "accepted without a device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuda backend"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace softik
