// The backend switch (backend.hpp), GPU solver names and the automatic solver choice
// (linear_solver.hpp), and what a build or machine without the CUDA backend says when asked for
// it: a clear error, never a crash. (The CUDA == CPU comparisons are in tests/cuda/.)
#include <gtest/gtest.h>

#include "softik/backend.hpp"
#include "softik/error.hpp"
#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/scene.hpp"
#include "tests/mesh_helpers.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

/// Whether the CUDA backend can run here; `reason` says why not.
bool cuda_usable(std::string& reason) { return cuda::device_available(&reason); }

TEST(Backend, NamesRoundTripAndUnknownNamesAreErrors) {
  for (Backend b : {Backend::Cpu, Backend::Cuda}) EXPECT_EQ(parse_backend(backend_name(b)), b);
  try {
    parse_backend("gpu");
    FAIL() << "'gpu' was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("use cpu or cuda"), std::string::npos) << e.what();
  }
  for (LinearSolverKind k : {LinearSolverKind::Automatic, LinearSolverKind::Cholmod, LinearSolverKind::EigenLDLT,
                             LinearSolverKind::CudaDense, LinearSolverKind::Cudss, LinearSolverKind::CudaPcg,
                             LinearSolverKind::CusolverSpCholesky})
    EXPECT_EQ(parse_linear_solver_kind(linear_solver_kind_name(k)), k);
  try {
    parse_linear_solver_kind("mumps");
    FAIL() << "'mumps' was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuda-dense"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(is_gpu_solver(LinearSolverKind::CudaPcg));
  EXPECT_FALSE(is_gpu_solver(LinearSolverKind::Cholmod));
  EXPECT_FALSE(is_gpu_solver(LinearSolverKind::Automatic));
}

TEST(Backend, AutomaticSolverChoiceBySize) {
  EXPECT_EQ(choose_linear_solver(Backend::Cpu, 100),
            have_cholmod() ? LinearSolverKind::Cholmod : LinearSolverKind::EigenLDLT);
  // Small models: the dense GPU Cholesky; mid-size: cuDSS where it loads, else dense; large:
  // cuDSS where built (its error then names a missing library), else block PCG.
  const bool sparse = cudss_solver_usable();
  EXPECT_TRUE(!sparse || have_cudss_solver());
  EXPECT_EQ(choose_linear_solver(Backend::Cuda, 100), LinearSolverKind::CudaDense);
  EXPECT_EQ(choose_linear_solver(Backend::Cuda, kGpuSparseMinDofs), LinearSolverKind::CudaDense);
  EXPECT_EQ(choose_linear_solver(Backend::Cuda, kGpuSparseMinDofs + 1),
            sparse ? LinearSolverKind::Cudss : LinearSolverKind::CudaDense);
  EXPECT_EQ(choose_linear_solver(Backend::Cuda, kGpuDenseMaxDofs),
            sparse ? LinearSolverKind::Cudss : LinearSolverKind::CudaDense);
  EXPECT_EQ(choose_linear_solver(Backend::Cuda, kGpuDenseMaxDofs + 1),
            have_cudss_solver() ? LinearSolverKind::Cudss : LinearSolverKind::CudaPcg);
  std::string reason;
  if (!cudss_solver_usable(&reason)) {
    EXPECT_FALSE(reason.empty());
  }
  // An explicit choice is the user's override, whatever the size.
  EXPECT_EQ(choose_linear_solver(Backend::Cuda, 10, LinearSolverKind::CudaPcg), LinearSolverKind::CudaPcg);
  EXPECT_EQ(choose_linear_solver(Backend::Cpu, 10, LinearSolverKind::EigenLDLT), LinearSolverKind::EigenLDLT);
}

TEST(Backend, CudaWithoutADeviceOrBuildIsAClearError) {
  std::string reason;
  if (cuda_usable(reason)) GTEST_SKIP() << "a CUDA device is present: the no-device errors cannot be seen here";
  EXPECT_NO_THROW(require_backend(Backend::Cpu));
  try {
    require_backend(Backend::Cuda);
    FAIL() << "the cuda backend was accepted without " << reason;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--backend cpu"), std::string::npos) << e.what();
  }
  const Mesh mesh = box_mesh(CellType::Tet4, {2, 2, 2});
  AssemblyOptions options;
  options.backend = Backend::Cuda;
  EXPECT_THROW(Assembler(mesh, {fem::LinearElastic::from_young_poisson(1e5, 0.3)}, {}, options), Error);
  // A GPU solver: an error at construction (no CUDA build) or at analysis (no device).
  const Assembler cpu(mesh, {fem::LinearElastic::from_young_poisson(1e5, 0.3)},
                      fix_nodes(mesh, mesh.node_groups.at("xmin")));
  for (LinearSolverKind k : {LinearSolverKind::CudaDense, LinearSolverKind::CudaPcg, LinearSolverKind::Cudss}) {
    try {
      make_linear_solver(k)->analyze(cpu.pattern());
      FAIL() << linear_solver_kind_name(k) << " analysed without a device";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_TRUE(m.find("CUDA") != std::string::npos || m.find("cuDSS") != std::string::npos) << m;
    }
  }
}

TEST(Backend, CliBackendAndSolverOptions) {
  const fs::path dir = fresh_dir("backend_cli");
  write_file(dir / "s.yaml", kBlock +
                                 "loads: {pressure: {surface: cavity0, value: 1000}}\nsolver: {load_steps: 1}\n"
                                 "outputs: {vtu: false}\n");
  const fs::path err = dir / "stderr.txt", out = dir / "out";
  const std::string scene = (dir / "s.yaml").string();
  EXPECT_EQ(run_cli("run " + scene + " --out " + out.string() + " --backend gpu", err), 1);
  EXPECT_NE(read_file(err).find("--backend must be cpu or cuda"), std::string::npos) << read_file(err);
  EXPECT_EQ(run_cli("run " + scene + " --out " + out.string() + " --linear-solver mumps", err), 1);
  EXPECT_NE(read_file(err).find("unknown linear solver 'mumps'"), std::string::npos) << read_file(err);
  EXPECT_EQ(run_cli("run " + scene + " --out " + out.string() + " --backend cpu --linear-solver eigen --quiet", err), 0)
      << read_file(err);
  std::string reason;
  if (!cuda_usable(reason)) {
    EXPECT_EQ(run_cli("run " + scene + " --out " + out.string() + " --backend cuda", err), 1);
    EXPECT_NE(read_file(err).find("softik: error: the cuda backend"), std::string::npos) << read_file(err);
  }
}

TEST(Backend, SceneSolverKeys) {
  const fs::path dir = fresh_dir("backend_scene");
  write_file(dir / "s.yaml", kBlock + "solver: {backend: cpu, linear_solver: eigen}\n");
  const Scene scene = parse_scene((dir / "s.yaml").string());
  EXPECT_EQ(scene.solver.backend, Backend::Cpu);
  EXPECT_EQ(scene.solver.linear_solver, LinearSolverKind::EigenLDLT);
  EXPECT_EQ(build_scene(scene).linear_solver, LinearSolverKind::EigenLDLT);
  write_file(dir / "auto.yaml", kBlock);
  EXPECT_EQ(build_scene(parse_scene((dir / "auto.yaml").string())).linear_solver,
            choose_linear_solver(Backend::Cpu, 1));
  const std::string bad = kBlock + "solver: {backend: gpu}\n";
  write_file(dir / "bad.yaml", bad);
  try {
    parse_scene((dir / "bad.yaml").string());
    FAIL() << "backend: gpu was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind((dir / "bad.yaml").string() + ":" + position_of(bad, "gpu"), 0), 0u)
        << e.what();
  }
  if (!cuda_backend_built()) {
    write_file(dir / "cuda.yaml", kBlock + "solver: {backend: cuda}\n");
    EXPECT_THROW(parse_scene((dir / "cuda.yaml").string()), Error);
  }
}

}  // namespace
}  // namespace softik
