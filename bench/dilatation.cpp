// What the locking-free dilatations cost (include/softik/fem/dilatation.hpp), next to the plain
// element on the same mesh: the Tet4 (or Hex8) box of bench_box.hpp with about `target` cells,
// clamped at one end, nearly incompressible neo-Hookean (nu = 0.49), its bent-and-stretched state.
//   BM_DilatationAssembly  force + tangent assembly (the nodal mean's extra passes included)
//   BM_DilatationFactorize CHOLMOD numeric factorisation of that tangent (analysis outside the
//                          timing); counters nnz(K), nnz(L), flops of the analysis
// Modes: 0 pointwise, 1 cell_mean, 2 nodal_mean (Tet4: pointwise and nodal_mean; Hex8: pointwise
// and cell_mean).
//
//   ./build/bench/bench_dilatation --benchmark_counters_tabular=true
//
// Results: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <cmath>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

#include "bench_box.hpp"
#include "softik/assembly.hpp"
#include "softik/linear_solver.hpp"

namespace {

using softik::Real;

struct Problem {
  softik::Mesh mesh;
  std::vector<Real> x;
  std::unique_ptr<softik::Assembler> assembler;
  std::vector<Real> K;
};

const Problem& problem(softik::CellType type, int target, int mode) {
  static std::map<std::tuple<int, int, int>, std::unique_ptr<Problem>> cache;
  auto& slot = cache[{static_cast<int>(type), target, mode}];
  if (!slot) {
    slot = std::make_unique<Problem>();
    softik::bench::Box box = softik::bench::bent_box(type, target);
    slot->mesh = std::move(box.mesh);
    slot->x = std::move(box.x);
    softik::AssemblyOptions options;
    options.formulation = softik::Formulation::Hyperelastic;
    options.dilatation = static_cast<softik::fem::Dilatation>(mode);
    slot->assembler = std::make_unique<softik::Assembler>(
        slot->mesh, std::vector<softik::Material>{softik::fem::NeoHookean::from_young_poisson(1e5, 0.49)},
        softik::fix_nodes(slot->mesh, slot->mesh.node_groups.at("xmin")), options);
    slot->assembler->assemble(slot->x, nullptr, nullptr, &slot->K);
  }
  return *slot;
}

const char* mode_name(int mode) {
  static const char* names[] = {"pointwise", "cell_mean", "nodal_mean"};
  return names[mode];
}

void BM_DilatationAssembly(benchmark::State& state) {
  const auto type = static_cast<softik::CellType>(state.range(0));
  const int mode = static_cast<int>(state.range(2));
  const Problem& p = problem(type, static_cast<int>(state.range(1)), mode);
  std::vector<Real> force, K;
  for (auto _ : state) {
    p.assembler->assemble(p.x, nullptr, &force, &K);
    benchmark::DoNotOptimize(K.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(std::string(softik::cell_type_name(type)) + " " + mode_name(mode));
  state.counters["cells"] = p.mesh.num_cells();
  state.counters["free_dofs"] = p.assembler->num_free_dofs();
  state.counters["nnz"] = p.assembler->pattern().nnz();
  state.counters["cells_per_s"] = benchmark::Counter(p.mesh.num_cells(), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_DilatationFactorize(benchmark::State& state) {
  const auto type = static_cast<softik::CellType>(state.range(0));
  const int mode = static_cast<int>(state.range(2));
  const Problem& p = problem(type, static_cast<int>(state.range(1)), mode);
  auto solver = softik::make_linear_solver();
  solver->analyze(p.assembler->pattern());
  for (auto _ : state) solver->factorize(p.K);
  state.SetLabel(std::string(softik::cell_type_name(type)) + " " + mode_name(mode) + " " + solver->name());
  state.counters["free_dofs"] = p.assembler->num_free_dofs();
  state.counters["nnz"] = p.assembler->pattern().nnz();
  state.counters["factor_nnz"] = static_cast<double>(solver->info().factor_nnz);
  state.counters["flops"] = solver->info().flops;
}

void Arguments(benchmark::internal::Benchmark* b) {
  for (int target : {10000, 100000}) {
    for (int mode : {0, 2}) b->Args({static_cast<int>(softik::CellType::Tet4), target, mode});
    for (int mode : {0, 1}) b->Args({static_cast<int>(softik::CellType::Hex8), target, mode});
  }
}

BENCHMARK(BM_DilatationAssembly)->Apply(Arguments)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(BM_DilatationFactorize)->Apply(Arguments)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
