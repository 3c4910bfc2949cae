// CHOLMOD's OpenMP regions run serially while softik calls CHOLMOD (host/exec/openmp_regions.hpp):
// the scope sets the calling thread's max-active-levels to 0 and gives the caller's value back,
// and a supernodal factorisation large enough for CHOLMOD's parallel regions starts no OpenMP
// workers. Both skip, naming why, where the process has no OpenMP runtime (a CHOLMOD built
// without OpenMP, or none).
#include <gtest/gtest.h>

#include <vector>

#include "host/exec/blas_threads.hpp"
#include "host/exec/openmp_regions.hpp"
#include "softik/assembly.hpp"
#include "softik/exec/thread_pool.hpp"
#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"
#include "tests/mesh_helpers.hpp"
#include "tests/process_threads.hpp"

namespace softik {
namespace {

TEST(OpenMPRegions, TheScopeMakesRegionsSerialAndRestoresTheCallersLevels) {
  const int outside = detail::openmp_max_active_levels();
  if (outside < 0) GTEST_SKIP() << "no OpenMP runtime in this process (CHOLMOD without OpenMP)";
  ASSERT_GT(outside, 0);
  {
    const detail::ScopedSerialOpenMP serial;
    EXPECT_EQ(detail::openmp_max_active_levels(), 0);
    {
      const detail::ScopedSerialOpenMP nested;
      EXPECT_EQ(detail::openmp_max_active_levels(), 0);
    }
    EXPECT_EQ(detail::openmp_max_active_levels(), 0);  // the inner scope gives back the outer's 0
  }
  EXPECT_EQ(detail::openmp_max_active_levels(), outside);
}

TEST(OpenMPRegions, ACholmodFactorisationStartsNoOpenMPWorkers) {
  if (!have_cholmod()) GTEST_SKIP() << "softik was built without CHOLMOD";
  if (detail::openmp_max_active_levels() < 0)
    GTEST_SKIP() << "no OpenMP runtime in this process (CHOLMOD without OpenMP)";
  // K of a clamped 20x20x20 Hex8 block (27.8k free DOFs): supernodes far above the size from
  // which CHOLMOD opens parallel regions (num_threads(4) in Debian's build).
  const Mesh mesh = box_mesh(CellType::Hex8, {20, 20, 20});
  const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(1e5, 0.3)},
                            fix_nodes(mesh, mesh.node_groups.at("xmin")));
  std::vector<Real> K;
  assembler.assemble(mesh.rest_positions(), nullptr, nullptr, &K);
  auto solver = make_linear_solver(LinearSolverKind::Cholmod);
  const detail::ScopedBlasThreadCap one_blas_thread(1);  // OpenBLAS's own threads exist from its start
  exec::parallel(2, [](int, int) {});                    // softik's pool, started
  solver->analyze(assembler.pattern());
  const int before = process_threads();
  ASSERT_GT(before, 0);
  solver->factorize(K);
  std::vector<Real> b(static_cast<size_t>(assembler.num_free_dofs()), 1.0), x(b.size());
  solver->solve(b.data(), x.data(), 1);
  EXPECT_EQ(process_threads(), before) << "CHOLMOD started threads: its OpenMP regions ran in parallel";
}

}  // namespace
}  // namespace softik
