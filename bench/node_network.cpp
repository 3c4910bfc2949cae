// Node networks: the link-force gather (with volume terms too), the static
// tangent, and whole explicit steps on cubic lattices (make_box Hex8 -> make_node_network: edges and face diagonals, 9
// links per cell), vs size and threads, next to the memory bandwidth of this machine (a STREAM-like triad in the same
// program, the bound the gather is measured against). Counters: nodes/s (node updates: one node's force gathered, or
// one node integrated), links/s (link evaluations: each link is evaluated from both of its ends), and GB/s of the
// arrays the gather streams (per incidence the other node's index and the link's k and L (linear springs); per node its
// position, the neighbours' positions (cached), and the force written).
//
//   ./build/bench/bench_node_network --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <vector>

#include "softik/exec/thread_pool.hpp"
#include "softik/explicit_dynamics.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/network_statics.hpp"
#include "softik/node_network.hpp"
#include "stream_triad.hpp"

namespace {

using softik::Real;

/// The cube of n x n x n Hex8 cells of 2 mm.
softik::Mesh lattice_mesh(int n) {
  softik::BoxSpec spec;
  spec.size = {n * 0.002, n * 0.002, n * 0.002};
  spec.cells = {n, n, n};
  return softik::make_box(3, softik::CellType::Hex8, spec);
}

softik::NodeNetwork lattice(int n, Real poissons_ratio = 0.25) {
  return softik::make_node_network(lattice_mesh(n), {2e5, poissons_ratio, 1070});
}

// Bytes the gather moves per call, counting each array once per pass (neighbour positions are
// assumed cached: the lattice's numbering keeps them close).
double gather_bytes(const softik::NodeNetwork& net) {
  const double incidences = 2.0 * net.num_links();
  return incidences * (4 + 16.0) + net.num_nodes() * (4.0 + 3 * 8 + 3 * 8);
}

/// The counters of `count` passes over `net` (force gathers or steps): its nodes, and the node
/// updates and link evaluations (each link from both of its ends) per second.
void node_and_link_rates(benchmark::State& state, const softik::NodeNetwork& net, double count) {
  state.counters["nodes"] = net.num_nodes();
  state.counters["nodes/s"] = benchmark::Counter(count * net.num_nodes(), benchmark::Counter::kIsRate);
  state.counters["links/s"] = benchmark::Counter(count * 2.0 * net.num_links(), benchmark::Counter::kIsRate);
}

/// Times the force gather of `net` on range(1) threads, every link stretched so that it carries
/// a force; returns the number of gathers, with node_and_link_rates' counters set.
double time_gather(benchmark::State& state, const softik::NodeNetwork& net) {
  const softik::NetworkForces forces(net, static_cast<int>(state.range(1)));
  std::vector<Real> x = net.X, f(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] *= 1.001;
  for (auto _ : state) {
    forces.add_forces(x.data(), nullptr, f.data());
    benchmark::DoNotOptimize(f.data());
  }
  const double calls = static_cast<double>(state.iterations());
  node_and_link_rates(state, net, calls);
  return calls;
}

void BM_LinkForces(benchmark::State& state) {
  const softik::NodeNetwork net = lattice(static_cast<int>(state.range(0)));
  const double calls = time_gather(state, net);
  state.counters["links"] = net.num_links();
  state.counters["GB/s"] = benchmark::Counter(calls * gather_bytes(net) * 1e-9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LinkForces)->ArgsProduct({{20, 60}, {1, 2}})->UseRealTime()->Unit(benchmark::kMillisecond);

// The same gather at nu = 0.45: every cell also has a volume term (fem/cell_volume.hpp), whose
// force each of its 8 nodes gathers (the cell's volume and the node's volume gradient).
void BM_LinkAndVolumeForces(benchmark::State& state) {
  const softik::NodeNetwork net = lattice(static_cast<int>(state.range(0)), 0.45);
  const double calls = time_gather(state, net);
  state.counters["cells"] = net.num_volume_cells();
  state.counters["cells/s"] = benchmark::Counter(calls * net.num_volume_cells(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LinkAndVolumeForces)->ArgsProduct({{20, 60}, {1, 2}})->UseRealTime()->Unit(benchmark::kMillisecond);

// The static tangent of a network (NetworkStatics::assemble with K: forces, then every link's
// and volume cell's Hessian scattered through precomputed slots), what each arc-length corrector
// iteration assembles before its factorisation; lattice clamped at x = 0, nu = 0.25 and 0.45.
void BM_NetworkTangent(benchmark::State& state) {
  const softik::Mesh mesh = lattice_mesh(static_cast<int>(state.range(0)));
  const softik::NodeNetwork net = softik::make_node_network(mesh, {2e5, state.range(1) / 100.0, 1070});
  const softik::NetworkStatics statics(net, softik::fix_nodes(mesh, mesh.node_groups.at("xmin")), {}, 1);
  std::vector<Real> x = net.X, f, K;
  for (size_t i = 0; i < x.size(); ++i) x[i] *= 1.001;
  for (auto _ : state) {
    statics.assemble(x, nullptr, &f, &K);
    benchmark::DoNotOptimize(K.data());
  }
  const double calls = static_cast<double>(state.iterations());
  state.counters["nodes"] = net.num_nodes();
  state.counters["nnz"] = statics.pattern().nnz();
  state.counters["links/s"] = benchmark::Counter(calls * net.num_links(), benchmark::Counter::kIsRate);
  state.counters["cells/s"] = benchmark::Counter(calls * net.num_volume_cells(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_NetworkTangent)->ArgsProduct({{20}, {25, 45}})->UseRealTime()->Unit(benchmark::kMillisecond);

// One velocity-Verlet step of the lattice clamped at one face, with dashpots (the model's force
// evaluation with velocities, the damping and the update of x and v).
void BM_ExplicitStep(benchmark::State& state) {
  const softik::Mesh mesh = lattice_mesh(static_cast<int>(state.range(0)));
  softik::NetworkFromMesh from{2e5, 0.25, 1070};
  from.dashpot_time = 1e-6;
  const softik::NodeNetwork net = softik::make_node_network(mesh, from);
  softik::ExplicitLoads loads;
  loads.gravity = {0, 0, -9.81};
  const softik::NodeNetworkModel model(net, softik::fix_nodes(mesh, mesh.node_groups.at("xmin")), loads,
                                       static_cast<int>(state.range(1)));
  softik::ExplicitSolver solver(model);
  for (auto _ : state) solver.step();
  node_and_link_rates(state, net, static_cast<double>(state.iterations()));
}
BENCHMARK(BM_ExplicitStep)->ArgsProduct({{20, 60}, {1, 2}})->UseRealTime()->Unit(benchmark::kMillisecond);

// The memory bound (bench/stream_triad.hpp).
BENCHMARK(softik::bench::stream_triad)->Apply(softik::bench::stream_triad_runs);

}  // namespace

BENCHMARK_MAIN();
