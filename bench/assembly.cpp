// Force + tangent stiffness assembly throughput (cells/s) on the CPU.
// Cases: {corotational, neo-Hookean} x {Tet4, Hex8, Tet10} x mesh sizes from ~1k to ~1M cells
// (Tet10 to ~100k: 1M quadratic cells need ~5 GB of CSR) x {1, 2} threads. Counters: cells/s,
// free DOFs/s (cells/s x free DOFs / cells: what the same time buys in unknowns), free DOFs,
// nnz.
//
//   ./build/bench/bench_assembly --benchmark_counters_tabular=true
//
// Results: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <cmath>
#include <map>
#include <memory>
#include <tuple>

#include "softik/assembly.hpp"
#include "softik/mesh_generator.hpp"

namespace {

using softik::Real;

enum Law { Corotational = 0, NeoHookean = 1 };

/// A box of about `target` cells (aspect 4:1:1), clamped at x = 0, and a bent-and-stretched
/// state. Built once per (type, size) and reused across benchmark repetitions.
struct Problem {
  softik::Mesh mesh;
  std::vector<Real> x;
};

const Problem& problem(softik::CellType type, int target) {
  static std::map<std::pair<int, int>, std::unique_ptr<Problem>> cache;
  auto& slot = cache[{static_cast<int>(type), target}];
  if (!slot) {
    const int per_cube = type == softik::CellType::Hex8 ? 1 : 6;
    const int n = std::max(1, static_cast<int>(std::lround(std::cbrt(target / (4.0 * per_cube)))));
    softik::BoxSpec spec;
    spec.size = {4.0, 1.0, 1.0};
    spec.cells = {4 * n, n, n};
    slot = std::make_unique<Problem>();
    slot->mesh = softik::make_box(3, type, spec);
    slot->x = slot->mesh.rest_positions();
    for (int k = 0; k < slot->mesh.num_nodes(); ++k) {
      const Real X = slot->mesh.X[3 * k];
      slot->x[3 * k + 0] *= 1.02;
      slot->x[3 * k + 2] += 0.05 * X * X;
    }
  }
  return *slot;
}

void BM_Assembly(benchmark::State& state) {
  const auto type = static_cast<softik::CellType>(state.range(0));
  const auto law = static_cast<Law>(state.range(1));
  const int target = static_cast<int>(state.range(2));
  const int threads = static_cast<int>(state.range(3));
  const Problem& p = problem(type, target);
  softik::AssemblyOptions options;
  options.num_threads = threads;
  options.formulation = law == Corotational ? softik::Formulation::Corotational : softik::Formulation::Hyperelastic;
  const softik::Material material = law == Corotational
                                        ? softik::Material(softik::fem::LinearElastic::from_young_poisson(1e5, 0.45))
                                        : softik::Material(softik::fem::NeoHookean::from_young_poisson(1e5, 0.45));
  const softik::Assembler assembler(p.mesh, {material}, softik::fix_nodes(p.mesh, p.mesh.node_groups.at("xmin")),
                                    options);
  std::vector<Real> force, K;
  assembler.assemble(p.x, nullptr, &force, &K);
  for (auto _ : state) {
    assembler.assemble(p.x, nullptr, &force, &K);
    benchmark::DoNotOptimize(K.data());
    benchmark::ClobberMemory();
  }
  const double cells = p.mesh.num_cells();
  state.SetLabel(std::string(softik::cell_type_name(type)) + (law == Corotational ? " corotational" : " neo-Hookean"));
  state.counters["cells"] = cells;
  state.counters["threads"] = threads;
  state.counters["free_dofs"] = assembler.num_free_dofs();
  state.counters["nnz"] = assembler.pattern().nnz();
  state.counters["cells_per_s"] = benchmark::Counter(cells, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["dofs_per_s"] =
      benchmark::Counter(assembler.num_free_dofs(), benchmark::Counter::kIsIterationInvariantRate);
}

void Arguments(benchmark::internal::Benchmark* b) {
  for (softik::CellType type : {softik::CellType::Tet4, softik::CellType::Hex8, softik::CellType::Tet10})
    for (int law : {Corotational, NeoHookean})
      for (int target : {1000, 10000, 100000, 1000000})
        for (int threads : {1, 2})
          if (type != softik::CellType::Tet10 || target <= 100000) b->Args({static_cast<int>(type), law, target, threads});
}

BENCHMARK(BM_Assembly)->Apply(Arguments)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);

}  // namespace

BENCHMARK_MAIN();
