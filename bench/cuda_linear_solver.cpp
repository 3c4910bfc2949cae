// Numeric factorisation and solve times of the GPU linear solvers on the clamped-beam stiffness
// of bench/linear_solver.cpp (Tet4, corotational, E = 1e5, nu = 0.45, 4n x n x n cells with
// n = 4, 8, 12, 16: 1.2k to 55k free DOFs), with CHOLMOD (when built with it) as the CPU
// baseline in the same binary:
//   cuda-dense   cuSOLVER dense Cholesky (Xpotrf / Xpotrs; 8 n^2 bytes of device memory: a size
//                that does not fit is skipped with the solver's memory Error)
//   cuda-pcg     block-Jacobi PCG on cuSPARSE BSR 3x3, relative tolerance 1e-10; its
//                "factorisation" is the BSR scatter and the diagonal-block inverses; every timed
//                solve starts cold (warm_start = false), so it iterates to the tolerance
//   cusolversp   cusolverSp low-level csrchol (deprecated in CUDA 13; benchmark only)
//   cudss        NVIDIA cuDSS (when built with it; skipped with the reason where libcudss.so.1
//                cannot be loaded)
//   cholmod      CHOLMOD supernodal on the CPU (all hardware threads of OpenBLAS)
// Timing: wall clock of one synchronous call with host values and right-hand sides (the uploads
// and downloads are included, as LinearSolver::factorize(values) and solve(b, x) do them).
// Symbolic analysis is done once outside the timing. Solves with m = 1 and 16 right-hand sides.
// Counters: free_dofs, nnz_K, nnz_L (factor non-zeros: n(n+1)/2 for the dense solver, the
// stored 3x3 inverse blocks for PCG, an estimate from the internal storage for cusolverSp),
// nrhs and iterations (PCG).
// Without a CUDA device every GPU case is skipped with the reason.
//
//   ./build-gpu/bench/bench_cuda_linear_solver --benchmark_counters_tabular=true
//
// Results: bench/RESULTS.md (note the device: H100 or H200).
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_beam.hpp"
#include "cuda/linear/cuda_pcg_solver.hpp"
#include "softik/backend.hpp"
#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"

namespace {

using softik::LinearSolverKind;
using softik::Real;

using softik::bench::Beam;
using softik::bench::beam;

/// The solver of `kind`, analysed for `b` (and factored when `factor`), or null after
/// state.SkipWithError: no CUDA device, or the solver refused the model (memory).
std::unique_ptr<softik::LinearSolver> prepare(benchmark::State& state, LinearSolverKind kind, const Beam& b,
                                              bool factor) {
  std::string reason;
  if (softik::is_gpu_solver(kind) && !softik::cuda::device_available(&reason)) {
    state.SkipWithError(("no CUDA device: " + reason).c_str());
    return nullptr;
  }
  auto solver = softik::make_linear_solver(kind);
  if (auto* pcg = dynamic_cast<softik::cuda::CudaPcgSolver*>(solver.get())) pcg->warm_start = false;
  try {
    solver->analyze(b.assembler->pattern());
    if (factor) solver->factorize(b.K);
  } catch (const softik::Error& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
  state.SetLabel(solver->name());
  state.counters["free_dofs"] = b.assembler->num_free_dofs();
  state.counters["nnz_K"] = b.assembler->pattern().nnz();
  return solver;
}

void BM_Factorize(benchmark::State& state) {
  const auto kind = static_cast<LinearSolverKind>(state.range(0));
  const Beam& b = beam(static_cast<int>(state.range(1)));
  auto solver = prepare(state, kind, b, false);
  if (!solver) return;
  for (auto _ : state) solver->factorize(b.K);
  state.counters["nnz_L"] = static_cast<double>(solver->info().factor_nnz);
}

void BM_Solve(benchmark::State& state) {
  const auto kind = static_cast<LinearSolverKind>(state.range(0));
  const Beam& b = beam(static_cast<int>(state.range(1)));
  const int nrhs = static_cast<int>(state.range(2));
  auto solver = prepare(state, kind, b, true);
  if (!solver) return;
  const std::size_t n = static_cast<std::size_t>(b.assembler->num_free_dofs());
  std::vector<Real> rhs(n * static_cast<std::size_t>(nrhs)), x(rhs.size());
  for (std::size_t i = 0; i < rhs.size(); ++i) rhs[i] = 1.0 + static_cast<Real>(i % 7);  // distinct columns
  for (auto _ : state) solver->solve(rhs.data(), x.data(), nrhs);
  state.counters["nrhs"] = nrhs;
  if (const auto* pcg = dynamic_cast<const softik::cuda::CudaPcgSolver*>(solver.get())) {
    state.counters["iterations"] = pcg->iterations();
    state.SetLabel(std::string(pcg->name()) + ", " + pcg->product());
  }
}

std::vector<int> kinds() {
  std::vector<int> k{static_cast<int>(LinearSolverKind::CudaDense), static_cast<int>(LinearSolverKind::CudaPcg),
                     static_cast<int>(LinearSolverKind::CusolverSpCholesky)};
  if (softik::have_cudss_solver()) k.push_back(static_cast<int>(LinearSolverKind::Cudss));
  if (softik::have_cholmod()) k.push_back(static_cast<int>(LinearSolverKind::Cholmod));
  return k;
}

void FactorizeSizes(benchmark::internal::Benchmark* bm) {
  for (int n : {4, 8, 12, 16})
    for (int kind : kinds()) bm->Args({kind, n});
}

void SolveSizes(benchmark::internal::Benchmark* bm) {
  for (int n : {4, 8, 12, 16})
    for (int kind : kinds())
      for (int nrhs : {1, 16}) bm->Args({kind, n, nrhs});
}

BENCHMARK(BM_Factorize)->Apply(FactorizeSizes)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Solve)->Apply(SolveSizes)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
