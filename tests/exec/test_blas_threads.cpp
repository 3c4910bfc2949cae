// OpenBLAS's worker threads around softik's threaded factorisations (host/exec/blas_threads.hpp):
// a scope that ran BLAS on several threads stops the workers when it ends, so none is left to
// spin through the assembly that follows, and the next threaded factorisation starts them again
// and factorises correctly. Skips, naming why, without OpenBLAS, with one core, or with an
// OpenBLAS that does not export its shutdown.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <cmath>
#include <thread>
#include <vector>

#include "host/exec/blas_threads.hpp"
#include "softik/assembly.hpp"
#include "softik/exec/thread_pool.hpp"
#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"
#include "tests/mesh_helpers.hpp"
#include "tests/process_threads.hpp"

namespace softik {
namespace {

TEST(BlasThreads, AThreadedFactorisationLeavesNoOpenBlasWorkerBehind) {
  if (!have_cholmod()) GTEST_SKIP() << "softik was built without CHOLMOD";
  if (detail::blas_threads() == 0) GTEST_SKIP() << "no OpenBLAS in this process";
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: BLAS runs on one thread";
  if (!dlsym(RTLD_DEFAULT, "blas_thread_shutdown_"))
    GTEST_SKIP() << "this OpenBLAS does not export blas_thread_shutdown_";
  // K of a clamped 16x16x16 Hex8 block (14.7k free DOFs): a factorisation far above the 0.2 GFlop
  // from which CholmodSolver runs BLAS on every core.
  const Mesh mesh = box_mesh(CellType::Hex8, {16, 16, 16});
  const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(1e5, 0.3)},
                            fix_nodes(mesh, mesh.node_groups.at("xmin")));
  std::vector<Real> K;
  assembler.assemble(mesh.rest_positions(), nullptr, nullptr, &K);
  exec::parallel(2, [](int, int) {});  // softik's pool, started
  auto solver = make_linear_solver(LinearSolverKind::Cholmod);
  solver->analyze(assembler.pattern());
  solver->factorize(K);                  // the first: OpenBLAS's workers from its start are stopped after it
  ASSERT_GT(solver->info().flops, 2e8);  // threaded (kParallelFlops), or the test proves nothing
  const int after_first = process_threads();
  ASSERT_GT(after_first, 0);
  int inside = 0;
  {
    const detail::ScopedBlasThreads all(static_cast<int>(std::thread::hardware_concurrency()));
    ASSERT_GT(detail::blas_threads(), 1);
    solver->factorize(K);  // nested: the outer scope keeps the workers
    inside = process_threads();
  }
  EXPECT_GT(inside, after_first) << "the threaded factorisation ran without OpenBLAS workers";
  EXPECT_EQ(process_threads(), after_first) << "OpenBLAS workers outlived the threaded scope";
  EXPECT_EQ(detail::blas_threads(), 1);
  // Started again by the next factorisation, which is right: K x = b to round-off.
  solver->factorize(K);
  EXPECT_EQ(process_threads(), after_first);
  const size_t n = static_cast<size_t>(assembler.num_free_dofs());
  std::vector<Real> b(n), x(n), Kx(n, 0.0);
  for (size_t k = 0; k < n; ++k) b[k] = std::sin(0.37 * static_cast<Real>(k));
  solver->solve(b.data(), x.data(), 1);
  const CsrPattern& p = assembler.pattern();
  Real r2 = 0, b2 = 0;
  for (int i = 0; i < p.rows; ++i) {
    for (int k = p.row_ptr[static_cast<size_t>(i)]; k < p.row_ptr[static_cast<size_t>(i) + 1]; ++k)
      Kx[static_cast<size_t>(i)] += K[static_cast<size_t>(k)] * x[static_cast<size_t>(p.col[static_cast<size_t>(k)])];
    r2 += (Kx[static_cast<size_t>(i)] - b[static_cast<size_t>(i)]) *
          (Kx[static_cast<size_t>(i)] - b[static_cast<size_t>(i)]);
    b2 += b[static_cast<size_t>(i)] * b[static_cast<size_t>(i)];
  }
  EXPECT_LT(std::sqrt(r2 / b2), 1e-10);
}

}  // namespace
}  // namespace softik
