// Numeric factorisation and solve time of the clamped-beam stiffness (Tet4, corotational, the
// matrix an inverse step factors), CHOLMOD vs Eigen SimplicialLDLT on the same matrices.
// Counters: free DOFs, nnz(K), nnz(L). Symbolic analysis is done once outside the timing, as
// in a simulation.
//
//   ./build/bench/bench_linear_solver --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "analysed_solver.hpp"
#include "bench_beam.hpp"
#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"

namespace {

using softik::Real;

using softik::bench::analysed_solver;
using softik::bench::Beam;
using softik::bench::beam;
using softik::bench::solver_kind;

void BM_Factorize(benchmark::State& state) {
  const Beam& b = beam(static_cast<int>(state.range(1)));
  auto solver = analysed_solver(solver_kind(state), *b.assembler);
  for (auto _ : state) solver->factorize(b.K);
  state.SetLabel(solver->name());
  state.counters["free_dofs"] = b.assembler->num_free_dofs();
  state.counters["nnz_K"] = b.assembler->pattern().nnz();
  state.counters["nnz_L"] = static_cast<double>(solver->info().factor_nnz);
}

void BM_Solve(benchmark::State& state) {
  const Beam& b = beam(static_cast<int>(state.range(1)));
  const int nrhs = static_cast<int>(state.range(2));
  auto solver = analysed_solver(solver_kind(state), *b.assembler);
  solver->factorize(b.K);
  const size_t n = static_cast<size_t>(b.assembler->num_free_dofs());
  std::vector<Real> rhs(n * static_cast<size_t>(nrhs), 1.0), x(rhs.size());
  for (auto _ : state) solver->solve(rhs.data(), x.data(), nrhs);
  state.SetLabel(solver->name());
  state.counters["free_dofs"] = static_cast<double>(n);
  state.counters["nrhs"] = nrhs;
}

/// The half solves of a real-time inverse step: z = L^-1 P b then x = P^T L^-T z, nrhs columns.
void BM_HalfSolves(benchmark::State& state) {
  const Beam& b = beam(static_cast<int>(state.range(0)));
  const int nrhs = static_cast<int>(state.range(1));
  auto solver = analysed_solver(softik::LinearSolverKind::Cholmod, *b.assembler);
  solver->factorize(b.K);
  const size_t n = static_cast<size_t>(b.assembler->num_free_dofs());
  std::vector<Real> rhs(n * static_cast<size_t>(nrhs), 1.0), z(rhs.size()), x(rhs.size());
  for (auto _ : state) {
    solver->solve_forward(rhs.data(), z.data(), nrhs);
    solver->solve_backward(z.data(), x.data(), nrhs);
  }
  state.SetLabel(solver->name());
  state.counters["free_dofs"] = static_cast<double>(n);
  state.counters["nnz_L"] = static_cast<double>(solver->info().factor_nnz);
  state.counters["nrhs"] = nrhs;
}

void Sizes(benchmark::internal::Benchmark* bm) {
  std::vector<int> kinds{static_cast<int>(softik::LinearSolverKind::EigenLDLT)};
  if (softik::have_cholmod()) kinds.push_back(static_cast<int>(softik::LinearSolverKind::Cholmod));
  for (int n : {4, 8, 12, 16})
    for (int kind : kinds) bm->Args({kind, n});
}

void SolveSizes(benchmark::internal::Benchmark* bm) {
  std::vector<int> kinds{static_cast<int>(softik::LinearSolverKind::EigenLDLT)};
  if (softik::have_cholmod()) kinds.push_back(static_cast<int>(softik::LinearSolverKind::Cholmod));
  for (int n : {8, 16})
    for (int kind : kinds)
      for (int nrhs : {1, 8}) bm->Args({kind, n, nrhs});
}

BENCHMARK(BM_Factorize)->Apply(Sizes)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Solve)->Apply(SolveSizes)->Unit(benchmark::kMillisecond)->UseRealTime();
void HalfSolveSizes(benchmark::internal::Benchmark* bm) {
  if (!softik::have_cholmod()) return;
  for (int n : {8, 16})
    for (int nrhs : {1, 2, 4}) bm->Args({n, nrhs});
}
BENCHMARK(BM_HalfSolves)->Apply(HalfSolveSizes)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
