// Force + tangent stiffness assembly throughput (cells/s) on the CPU, and the force alone
// (BM_ForceAssembly: what a real-time step with a kept factorisation assembles).
// Cases: {corotational, neo-Hookean} x {Tet4, Hex8, Tet10} x mesh sizes from ~1k to ~1M cells
// (Tet10 to ~100k: 1M quadratic cells need ~5 GB of CSR) x {1, 2} threads, and the corotational
// element with its consistent tangent (law 2) on Tet4 and Hex8 at ~10k and ~100k cells, and the decoupled
// neo-Hookean law of CalculiX and Abaqus (fem::NeoHookeanD1, law 3), and the silicone laws Yeoh (law 4)
// and Arruda-Boyce (law 5) on every 3D cell at ~10k and ~100k cells. Counters: cells/s,
// free DOFs/s (cells/s x free DOFs / cells: what the same time buys in unknowns), free DOFs,
// nnz, and the least memory traffic an assembly must move (min_bytes_per_cell: K's values written
// once, x read and f written once, and per cell its nodes, its node-pair slots and its rest shape
// derivatives and weights read once) as a rate, GB_per_s, to set against BM_StreamTriad's bound
// on the same threads (how near the pass comes to memory-bound); and the bytes the pass touches
// per cell when the caches keep nothing (touched_bytes_per_cell: every value it reads, and each K
// and force entry read and written, as its scatter does), as touched_GB_per_s. BM_AssemblyBlocks:
// the Tet4 neo-Hookean box on 2 threads with colour blocks of 128-1024 cells and the automatic
// size (AssemblyOptions::block_size = 0).
// BM_Tet4ElementOnly: the element's force and stiffness alone (no gather, no scatter), one thread.
//
//   ./build/bench/bench_assembly --benchmark_counters_tabular=true
//
// Results: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <tuple>

#include "bench_box.hpp"
#include "host/assembly/assembler_internals.hpp"
#include "softik/assembly.hpp"
#include "softik/fem/corotational_element.hpp"
#include "softik/fem/element_traits.hpp"
#include "softik/fem/hyperelastic_element.hpp"
#include "stream_triad.hpp"

namespace {

using softik::Real;

enum Law {
  Corotational = 0,
  NeoHookean = 1,
  ConsistentCorotational = 2,
  DecoupledNeoHookean = 3,
  Yeoh = 4,
  ArrudaBoyce = 5
};

/// Whether a law is hyperelastic (total Lagrangian) rather than corotational.
bool hyperelastic(Law law) { return law != Corotational && law != ConsistentCorotational; }

/// The benchmark's label of a law, indexed by Law.
constexpr const char* kLawLabels[] = {" corotational",          " neo-Hookean", " corotational, consistent tangent",
                                      " neo-Hookean (C10, D1)", " Yeoh",        " Arruda-Boyce"};

const char* law_label(Law law) { return kLawLabels[law]; }

/// The box of bench_box.hpp, clamped at x = 0 below; built once per (type, size) and reused
/// across benchmark repetitions.
const softik::bench::Box& problem(softik::CellType type, int target) {
  static std::map<std::pair<int, int>, std::unique_ptr<softik::bench::Box>> cache;
  auto& slot = cache[{static_cast<int>(type), target}];
  if (!slot) slot = std::make_unique<softik::bench::Box>(softik::bench::bent_box(type, target));
  return *slot;
}

/// The box's assembler for a law and a thread count (clamped at x = 0).
std::unique_ptr<softik::Assembler> box_assembler(const softik::bench::Box& p, Law law, int threads,
                                                 int block_size = 0) {
  softik::AssemblyOptions options;
  options.num_threads = threads;
  options.block_size = block_size;
  options.formulation = hyperelastic(law) ? softik::Formulation::Hyperelastic : softik::Formulation::Corotational;
  if (law == ConsistentCorotational) options.corotational_tangent = softik::fem::CorotationalTangent::Consistent;
  const softik::Material material =
      law == NeoHookean            ? softik::Material(softik::fem::NeoHookean::from_young_poisson(1e5, 0.45))
      : law == DecoupledNeoHookean ? softik::Material(softik::fem::NeoHookeanD1::from_young_poisson(1e5, 0.45))
      // A cubic Yeoh with every term non-zero (C10, C20, C30 = 17, -1.7, 0.17 kPa; the pass does the same
      // arithmetic for any values).
      : law == Yeoh        ? softik::Material(softik::fem::Yeoh::from_constants(1.7e4, -1.7e3, 1.7e2, 2.0 / 1.0e6))
      : law == ArrudaBoyce ? softik::Material(softik::fem::ArrudaBoyce::from_young_poisson(1e5, 0.45, 3.0))
                           : softik::Material(softik::fem::LinearElastic::from_young_poisson(1e5, 0.45));
  return std::make_unique<softik::Assembler>(p.mesh, std::vector<softik::Material>{material},
                                             softik::fix_nodes(p.mesh, p.mesh.node_groups.at("xmin")), options);
}

/// Quadrature points of a cell type's stiffness rule (element_traits.hpp).
int quadrature_points(softik::CellType type) {
  switch (type) {
    case softik::CellType::Tet4:
      return softik::fem::Tet4::num_quad;
    case softik::CellType::Hex8:
      return softik::fem::Hex8::num_quad;
    case softik::CellType::Tet10:
      return softik::fem::Tet10::num_quad;
    default:
      return 1;
  }
}

/// The least bytes one force + stiffness assembly moves per cell (see the header comment).
double min_bytes_per_cell(const softik::Assembler& assembler, softik::CellType type) {
  const softik::Mesh& mesh = assembler.mesh();
  const double cells = mesh.num_cells(), npc = softik::nodes_per_cell(type), dim = mesh.dim;
  const double per_cell = npc * 4 + npc * npc * 4 + quadrature_points(type) * (npc * dim + 1) * 8;
  const double global = 8.0 * assembler.pattern().nnz() + 2 * 8.0 * assembler.num_dofs();
  return per_cell + global / cells;
}

/// The bytes one force + stiffness assembly reads and writes per cell when the caches keep nothing
/// between cells: the cell's nodes, positions, rest words (the points' gradients and weights, and
/// the centre gradients of the corotational frame), its law's constants (two; Yeoh four, Arruda-Boyce
/// three), node-pair slots and row
/// words read; each of its element stiffness and force entries read and written once (the scatter's
/// read-modify-write into K and f).
double touched_bytes_per_cell(const softik::Assembler& assembler, softik::CellType type, Law law) {
  const double n = softik::nodes_per_cell(type), d = assembler.mesh().dim, q = quadrature_points(type);
  const double rest_words = q * (n * d + 1) + (hyperelastic(law) ? 0 : n * d);
  const double nd = n * d, law_words = law == Yeoh ? 4 : law == ArrudaBoyce ? 3 : 2;
  return n * 4 + nd * 8 + rest_words * 8 + law_words * 8 + n * n * 4 + n * 4 + nd * nd * 16 + nd * 16;
}

/// The timed loop: force + stiffness assemblies at x (one before, to size the outputs).
void time_assemblies(benchmark::State& state, const softik::Assembler& assembler, const std::vector<Real>& x) {
  std::vector<Real> force, K;
  assembler.assemble(x, nullptr, &force, &K);
  for (auto _ : state) {
    assembler.assemble(x, nullptr, &force, &K);
    benchmark::DoNotOptimize(K.data());
    benchmark::ClobberMemory();
  }
}

void BM_Assembly(benchmark::State& state) {
  const auto type = static_cast<softik::CellType>(state.range(0));
  const auto law = static_cast<Law>(state.range(1));
  const int target = static_cast<int>(state.range(2));
  const int threads = static_cast<int>(state.range(3));
  const softik::bench::Box& p = problem(type, target);
  const auto owned = box_assembler(p, law, threads);
  const softik::Assembler& assembler = *owned;
  time_assemblies(state, assembler, p.x);
  const double cells = p.mesh.num_cells();
  state.SetLabel(std::string(softik::cell_type_name(type)) + law_label(law));
  state.counters["cells"] = cells;
  state.counters["threads"] = threads;
  state.counters["free_dofs"] = assembler.num_free_dofs();
  state.counters["nnz"] = assembler.pattern().nnz();
  state.counters["cells_per_s"] = benchmark::Counter(cells, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["dofs_per_s"] =
      benchmark::Counter(assembler.num_free_dofs(), benchmark::Counter::kIsIterationInvariantRate);
  const double bytes = min_bytes_per_cell(assembler, type);
  state.counters["min_bytes_per_cell"] = bytes;
  state.counters["GB_per_s"] = benchmark::Counter(cells * bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  const double touched = touched_bytes_per_cell(assembler, type, law);
  state.counters["touched_bytes_per_cell"] = touched;
  state.counters["touched_GB_per_s"] =
      benchmark::Counter(cells * touched * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

/// The force alone (no K), as a real-time step with a kept factorisation assembles it: Tet4,
/// both laws, 1k to 100k cells, 1 and 2 threads.
void BM_ForceAssembly(benchmark::State& state) {
  const auto law = static_cast<Law>(state.range(0));
  const int target = static_cast<int>(state.range(1));
  const int threads = static_cast<int>(state.range(2));
  const softik::bench::Box& p = problem(softik::CellType::Tet4, target);
  const auto owned = box_assembler(p, law, threads);
  const softik::Assembler& assembler = *owned;
  std::vector<Real> force;
  assembler.assemble(p.x, nullptr, &force, nullptr);
  for (auto _ : state) {
    assembler.assemble(p.x, nullptr, &force, nullptr);
    benchmark::DoNotOptimize(force.data());
    benchmark::ClobberMemory();
  }
  const double cells = p.mesh.num_cells();
  state.SetLabel(law == Corotational ? "Tet4 corotational, force only" : "Tet4 neo-Hookean, force only");
  state.counters["cells"] = cells;
  state.counters["threads"] = threads;
  state.counters["cells_per_s"] = benchmark::Counter(cells, benchmark::Counter::kIsIterationInvariantRate);
}

/// Force + stiffness of the Tet4 neo-Hookean box on 2 threads with colour blocks of a given size
/// (0: automatic, AssemblyOptions::block_size): few blocks per colour leave a thread idle, small
/// blocks scatter K less locally.
void BM_AssemblyBlocks(benchmark::State& state) {
  const int target = static_cast<int>(state.range(0));
  const softik::bench::Box& p = problem(softik::CellType::Tet4, target);
  const auto owned = box_assembler(p, NeoHookean, 2, static_cast<int>(state.range(1)));
  const softik::Assembler& assembler = *owned;
  time_assemblies(state, assembler, p.x);
  state.SetLabel("Tet4 neo-Hookean, 2 threads");
  state.counters["cells"] = p.mesh.num_cells();
  state.counters["block_size"] = assembler.options().block_size;
  state.counters["colours"] = softik::assembly::AssemblerInternals::num_colors(assembler);
  state.counters["cells_per_s"] = benchmark::Counter(p.mesh.num_cells(), benchmark::Counter::kIsIterationInvariantRate);
}

/// The Tet4 element's force and stiffness alone, one thread, no gather or scatter: 1024 cells of
/// the 8.2k-cell box's bent state (its rest data and positions, in cache), evaluated in turn. The
/// rate BM_Assembly's per-cell work cannot exceed (the compute bound, beside the memory bound).
void BM_Tet4ElementOnly(benchmark::State& state) {
  namespace fem = softik::fem;
  const auto law = static_cast<Law>(state.range(0));
  const softik::bench::Box& p = problem(softik::CellType::Tet4, 10000);
  const int cells = std::min(1024, p.mesh.num_cells());
  std::vector<fem::RestData<fem::Tet4>> rest(static_cast<size_t>(cells));
  std::vector<fem::NodeMatrix<fem::Tet4>> x(static_cast<size_t>(cells));
  for (int c = 0; c < cells; ++c) {
    fem::NodeMatrix<fem::Tet4> X;
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i) {
        const size_t dof = 3 * static_cast<size_t>(p.mesh.cell(c)[a]) + static_cast<size_t>(i);
        X(a, i) = p.mesh.X[dof];
        x[static_cast<size_t>(c)](a, i) = p.x[dof];
      }
    fem::compute_rest_data<fem::Tet4>(X, rest[static_cast<size_t>(c)]);
  }
  const auto linear = fem::LinearElastic::from_young_poisson(1e5, 0.45);
  const auto neo_hookean = fem::NeoHookean::from_young_poisson(1e5, 0.45);
  fem::ElementVector<fem::Tet4> f;
  fem::ElementMatrix<fem::Tet4> K;
  for (auto _ : state)
    for (int c = 0; c < cells; ++c) {
      const fem::ElementOutputs<fem::Tet4> out{nullptr, &f, &K};
      if (law == Corotational)
        fem::corotational_element<fem::Tet4>(linear, rest[static_cast<size_t>(c)], x[static_cast<size_t>(c)],
                                             fem::RotationMethod::Polar, fem::CorotationalTangent::Rotated, out);
      else
        fem::hyperelastic_element<fem::Tet4>(neo_hookean, rest[static_cast<size_t>(c)], x[static_cast<size_t>(c)], out);
      benchmark::DoNotOptimize(K.data());
    }
  state.SetLabel(law == Corotational ? "Tet4 corotational element, 1 thread" : "Tet4 neo-Hookean element, 1 thread");
  state.counters["cells_per_s"] = benchmark::Counter(cells, benchmark::Counter::kIsIterationInvariantRate);
}

void Arguments(benchmark::internal::Benchmark* b) {
  for (softik::CellType type : {softik::CellType::Tet4, softik::CellType::Hex8, softik::CellType::Tet10})
    for (int law : {Corotational, NeoHookean})
      for (int target : {1000, 10000, 100000, 1000000})
        for (int threads : {1, 2})
          if (type != softik::CellType::Tet10 || target <= 100000)
            b->Args({static_cast<int>(type), law, target, threads});
  for (softik::CellType type : {softik::CellType::Tet4, softik::CellType::Hex8})
    for (int target : {10000, 100000})
      for (int threads : {1, 2}) b->Args({static_cast<int>(type), ConsistentCorotational, target, threads});
  for (softik::CellType type : {softik::CellType::Tet4, softik::CellType::Hex8, softik::CellType::Tet10})
    for (int target : {10000, 100000})
      for (int threads : {1, 2})
        for (int law : {DecoupledNeoHookean, Yeoh, ArrudaBoyce})
          b->Args({static_cast<int>(type), law, target, threads});
}

BENCHMARK(softik::bench::stream_triad)->Apply(softik::bench::stream_triad_runs);
BENCHMARK(BM_Assembly)->Apply(Arguments)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(BM_Tet4ElementOnly)->Arg(Corotational)->Arg(NeoHookean)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AssemblyBlocks)
    ->ArgsProduct({{10000, 100000}, {0, 128, 256, 512, 1024}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5);
BENCHMARK(BM_ForceAssembly)
    ->ArgsProduct({{Corotational, NeoHookean}, {1000, 10000, 100000}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5);

}  // namespace

BENCHMARK_MAIN();
