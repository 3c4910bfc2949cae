// A full static solve of the pneumatic finger (make_finger, Tet4, neo-Hookean silicone, base
// fixed, cavity inflated to 20 kPa in 4 load steps, follower-load stiffness on) at three
// resolutions, and its phases measured at the inflated equilibrium: assembly of f and K,
// numeric factorisation and one solve, CHOLMOD vs Eigen SimplicialLDLT on the same matrices.
// Counters: cells, free DOFs, Newton iterations (full solve), nnz(L).
//
// BM_FingerStaticSolveChord/<level>/<percent>: the same solve with chord steps
// (NewtonOptions::chord_contraction = percent / 100; 0: full Newton), Krylov steps off.
// BM_FingerStaticSolveKrylov/<level>/<iterations>: with Krylov steps
// (NewtonOptions::krylov_iterations; 0: full Newton, 15: the default).
// BM_FingerStaticSolvePredictor/<level>/<extrapolate>: the default solve (Krylov steps) with the
// second-order load-step predictor off (0) or on (1, the default; NewtonOptions::extrapolate).
// Paired: --benchmark_repetitions=8 --benchmark_enable_random_interleaving=true.
//
//   ./build/bench/bench_finger_static --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "analysed_solver.hpp"
#include "softik/actuator_generator.hpp"
#include "softik/loads.hpp"
#include "softik/static_solver.hpp"

namespace {

using softik::Real;

constexpr Real kPressure = 20e3;  // Pa

struct Finger {
  softik::Mesh mesh;
  std::unique_ptr<softik::Assembler> assembler;
  softik::Loads loads;
  std::vector<Real> x;  ///< inflated equilibrium
  std::vector<Real> K;  ///< tangent there (elastic + load stiffness)
  int iterations = 0;
};

softik::NewtonOptions newton_options() {
  softik::NewtonOptions o;
  o.load_steps = 4;
  return o;
}

/// The finger at resolution level 0, 1, 2: grid cells of 3, 2 and 1.4 mm.
const Finger& finger(int level) {
  static std::map<int, std::unique_ptr<Finger>> cache;
  auto& slot = cache[level];
  if (!slot) {
    slot = std::make_unique<Finger>();
    softik::FingerSpec spec;
    const Real cell[] = {0.003, 0.002, 0.0014};
    spec.cell_size = cell[level];
    slot->mesh = softik::make_finger(spec);
    softik::AssemblyOptions options;
    options.formulation = softik::Formulation::Hyperelastic;
    slot->assembler = std::make_unique<softik::Assembler>(
        slot->mesh, std::vector<softik::Material>{softik::fem::NeoHookean::from_young_poisson(2e5, 0.45)},
        softik::fix_nodes(slot->mesh, slot->mesh.node_groups.at("xmin")), options);
    softik::PressureLoad p;
    p.name = "cavity";
    p.surface = slot->mesh.surface_groups.at("cavity");
    p.pressure = kPressure;
    slot->loads.pressures.push_back(p);
    slot->x = slot->mesh.rest_positions();
    auto solver = softik::make_linear_solver();
    slot->iterations =
        softik::solve_static(*slot->assembler, *solver, slot->loads, slot->x, newton_options()).iterations;
    slot->assembler->assemble(slot->x, nullptr, nullptr, &slot->K);
    softik::add_pressure_stiffness(p, kPressure, *slot->assembler, slot->x, -1.0, slot->K);
  }
  return *slot;
}

void common_counters(benchmark::State& state, const Finger& f) {
  state.counters["cells"] = f.mesh.num_cells();
  state.counters["free_dofs"] = f.assembler->num_free_dofs();
}

void BM_FingerStaticSolve(benchmark::State& state) {
  const auto kind = static_cast<softik::LinearSolverKind>(state.range(0));
  const Finger& f = finger(static_cast<int>(state.range(1)));
  auto solver = softik::make_linear_solver(kind);
  softik::StaticResult result;
  for (auto _ : state) {
    std::vector<Real> x = f.mesh.rest_positions();
    result = softik::solve_static(*f.assembler, *solver, f.loads, x, newton_options());
  }
  state.SetLabel(solver->name());
  common_counters(state, f);
  state.counters["newton_iterations"] = result.iterations;
  state.counters["factorizations"] = result.factorizations;
}

/// The full solve of finger range(0) with `options`, CHOLMOD; counters: Newton iterations,
/// factorisations, conjugate-gradient iterations.
void solve_with(benchmark::State& state, const softik::NewtonOptions& options) {
  const Finger& f = finger(static_cast<int>(state.range(0)));
  auto solver = softik::make_linear_solver(softik::LinearSolverKind::Cholmod);
  softik::StaticResult result;
  for (auto _ : state) {
    std::vector<Real> x = f.mesh.rest_positions();
    result = softik::solve_static(*f.assembler, *solver, f.loads, x, options);
  }
  common_counters(state, f);
  state.counters["newton_iterations"] = result.iterations;
  state.counters["factorizations"] = result.factorizations;
  state.counters["krylov_iterations"] = result.krylov_iterations;
}

/// With Krylov steps of at most range(1) iterations (0: full Newton).
void BM_FingerStaticSolveKrylov(benchmark::State& state) {
  softik::NewtonOptions options = newton_options();
  options.krylov_iterations = static_cast<int>(state.range(1));
  solve_with(state, options);
}

/// The default solve with NewtonOptions::extrapolate = range(1).
void BM_FingerStaticSolvePredictor(benchmark::State& state) {
  softik::NewtonOptions options = newton_options();
  options.extrapolate = state.range(1) != 0;
  solve_with(state, options);
}

/// The full solve with chord steps (NewtonOptions::chord_contraction = range(1) / 100), CHOLMOD;
/// counters: Newton iterations and factorisations (the iterations that did not keep one).
void BM_FingerStaticSolveChord(benchmark::State& state) {
  const Finger& f = finger(static_cast<int>(state.range(0)));
  auto solver = softik::make_linear_solver(softik::LinearSolverKind::Cholmod);
  softik::NewtonOptions options = newton_options();
  options.chord_contraction = static_cast<Real>(state.range(1)) / 100;
  options.krylov_iterations = 0;
  softik::StaticResult result;
  for (auto _ : state) {
    std::vector<Real> x = f.mesh.rest_positions();
    result = softik::solve_static(*f.assembler, *solver, f.loads, x, options);
  }
  int factorizations = 0;
  for (const softik::NewtonIterationLog& entry : result.log)
    factorizations += entry.factorized && entry.step_length > 0 ? 1 : 0;
  common_counters(state, f);
  state.counters["newton_iterations"] = result.iterations;
  state.counters["factorizations"] = factorizations;
}

void BM_FingerAssembly(benchmark::State& state) {
  const Finger& f = finger(static_cast<int>(state.range(0)));
  std::vector<Real> force, K;
  for (auto _ : state) {
    f.assembler->assemble(f.x, nullptr, &force, &K);
    softik::add_pressure_forces(f.loads.pressures[0], kPressure, f.mesh, f.x, force);
    softik::add_pressure_stiffness(f.loads.pressures[0], kPressure, *f.assembler, f.x, -1.0, K);
  }
  common_counters(state, f);
}

void BM_FingerFactorize(benchmark::State& state) {
  const Finger& f = finger(static_cast<int>(state.range(1)));
  auto solver = softik::bench::analysed_solver(softik::bench::solver_kind(state), *f.assembler);
  for (auto _ : state) solver->factorize(f.K);
  state.SetLabel(solver->name());
  common_counters(state, f);
  state.counters["nnz_L"] = static_cast<double>(solver->info().factor_nnz);
  state.counters["gflop"] = solver->info().flops * 1e-9;
  state.counters["indefinite"] = solver->info().indefinite;
  state.counters["passes"] = solver->info().passes;  // of the last (steady-state) call
}

void BM_FingerSolve(benchmark::State& state) {
  const Finger& f = finger(static_cast<int>(state.range(1)));
  auto solver = softik::bench::analysed_solver(softik::bench::solver_kind(state), *f.assembler);
  solver->factorize(f.K);
  std::vector<Real> rhs(static_cast<size_t>(f.assembler->num_free_dofs()), 1.0), x(rhs.size());
  for (auto _ : state) solver->solve(rhs.data(), x.data(), 1);
  state.SetLabel(solver->name());
  common_counters(state, f);
}

/// CHOLMOD at every level; Eigen (30-40x slower to factor at 50k DOFs, see the linear-solver
/// table) up to `eigen_max_level`.
void levels(benchmark::internal::Benchmark* bm, int eigen_max_level) {
  for (int level : {0, 1, 2}) {
    if (level <= eigen_max_level) bm->Args({static_cast<int>(softik::LinearSolverKind::EigenLDLT), level});
    if (softik::have_cholmod()) bm->Args({static_cast<int>(softik::LinearSolverKind::Cholmod), level});
  }
}
void SolverLevels(benchmark::internal::Benchmark* bm) { levels(bm, 1); }
void StaticSolveLevels(benchmark::internal::Benchmark* bm) { levels(bm, 0); }

BENCHMARK(BM_FingerAssembly)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FingerFactorize)->Apply(SolverLevels)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FingerSolve)->Apply(SolverLevels)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FingerStaticSolve)->Apply(StaticSolveLevels)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
void ChordLevels(benchmark::internal::Benchmark* bm) {
  if (!softik::have_cholmod()) return;
  for (int level : {0, 1, 2})
    for (int percent : {0, 25, 50}) bm->Args({level, percent});
}
BENCHMARK(BM_FingerStaticSolveChord)->Apply(ChordLevels)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
void KrylovLevels(benchmark::internal::Benchmark* bm) {
  if (!softik::have_cholmod()) return;
  for (int level : {0, 1, 2})
    for (int iterations : {0, 15}) bm->Args({level, iterations});
}
BENCHMARK(BM_FingerStaticSolveKrylov)->Apply(KrylovLevels)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
void PredictorLevels(benchmark::internal::Benchmark* bm) {
  if (!softik::have_cholmod()) return;
  for (int level : {0, 1, 2})
    for (int extrapolate : {0, 1}) bm->Args({level, extrapolate});
}
BENCHMARK(BM_FingerStaticSolvePredictor)
    ->Apply(PredictorLevels)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
