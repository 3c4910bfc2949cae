// The node-network link gather on the GPU (cuda::DeviceNetwork; the project's target: >= 1 G link
// evaluations/s on an H100) on cubic lattices (make_box Hex8 -> make_node_network: 9 links per
// cell), x already on the device: wall clock of one launch and its synchronisation. Counters:
// links/s (each link is evaluated from both ends), nodes/s, and GB/s of what the gather streams
// (per incidence the other node's index and the link's k and L, per node its
// position, the neighbours' positions (cached) and the force).
//
//   ./build-gpu/bench/bench_cuda_node_network --benchmark_counters_tabular=true
//
// Results: bench/RESULTS.md (note the device).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <chrono>
#include <string>
#include <vector>

#include "cuda/network/device_network.hpp"
#include "softik/backend.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/node_network.hpp"

namespace {

using softik::Real;

void BM_GpuLinkForces(benchmark::State& state) {
  std::string reason;
  if (!softik::cuda::device_available(&reason)) {
    state.SkipWithError(("no CUDA device: " + reason).c_str());
    return;
  }
  const int n = static_cast<int>(state.range(0));
  softik::BoxSpec spec;
  spec.size = {n * 0.002, n * 0.002, n * 0.002};
  spec.cells = {n, n, n};
  const softik::NodeNetwork net =
      softik::make_node_network(softik::make_box(3, softik::CellType::Hex8, spec), {2e5, 0.25, 1070});
  const softik::NetworkForces host(net, 1);  // its incidence table, copied to the device
  softik::cuda::DeviceNetwork device(host.incidence_first(), host.incidence_other(), host.incidence_spring(),
                                     host.incidence_extra());
  std::vector<Real> x = net.X;
  for (Real& value : x) value *= 1.001;
  Real *d_x = nullptr, *d_f = nullptr;
  cudaMalloc(&d_x, x.size() * sizeof(Real));
  cudaMalloc(&d_f, x.size() * sizeof(Real));
  cudaMemcpy(d_x, x.data(), x.size() * sizeof(Real), cudaMemcpyHostToDevice);
  cudaMemset(d_f, 0, x.size() * sizeof(Real));
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    device.add_forces(d_x, nullptr, d_f);
    cudaDeviceSynchronize();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  cudaFree(d_x);
  cudaFree(d_f);
  const double calls = static_cast<double>(state.iterations());
  const double bytes = 2.0 * net.num_links() * (4 + 16) + net.num_nodes() * (4.0 + 48);
  state.counters["nodes"] = net.num_nodes();
  state.counters["links/s"] = benchmark::Counter(calls * 2.0 * net.num_links(), benchmark::Counter::kIsRate);
  state.counters["nodes/s"] = benchmark::Counter(calls * net.num_nodes(), benchmark::Counter::kIsRate);
  state.counters["GB/s"] = benchmark::Counter(calls * bytes * 1e-9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GpuLinkForces)->Arg(20)->Arg(60)->Arg(120)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
