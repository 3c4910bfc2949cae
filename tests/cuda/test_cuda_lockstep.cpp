// Lockstep batches on the GPU (host/batch/design_batch.hpp, cuda/assembly/design_engine.cu): the
// CUDA design engine's one launch gives every design the CPU twin's forces, energies and
// stiffness values to round-off, a design's inverted cell fails that design only, and a lockstep
// batch on the cuda backend gives the table of the designs run one by one on the CPU. Every test
// skips with the reason when no device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "../batch_test_support.hpp"
#include "cuda_test_support.hpp"
#include "host/batch/batch_csv.hpp"
#include "host/batch/design_batch.hpp"
#include "softik/actuator_generator.hpp"
#include "softik/backend.hpp"
#include "softik/batch.hpp"
#include "softik/mesh_generator.hpp"

namespace softik {
namespace {

TEST(CudaLockstep, OneLaunchGivesEachDesignTheCpuTwinsNumbers) {
  SKIP_WITHOUT_DEVICE();
  FingerSpec spec;
  spec.cell_size = 0.004;
  const Mesh mesh = make_finger(spec);
  AssemblyOptions options;
  options.formulation = Formulation::Hyperelastic;
  const std::vector<char> fixed = fix_nodes(mesh, mesh.node_groups.at("xmin"));
  // Designs 0 and 1 on the finger, design 2 on the finger stretched 10% along y (the same
  // topology, its own rest data).
  Mesh wide = mesh;
  for (size_t k = 1; k < wide.X.size(); k += 3) wide.X[k] *= 1.1;
  std::vector<Assembler> designs;
  for (Real young : {1e5, 2e5, 4e5})
    designs.emplace_back(young == 4e5 ? wide : mesh,
                         std::vector<Material>{fem::NeoHookean::from_young_poisson(young, 0.45)}, fixed, options);
  std::vector<const Assembler*> pointers;
  for (const Assembler& a : designs) pointers.push_back(&a);
  auto gpu = batch_detail::make_design_engine(pointers, true);
  auto cpu = batch_detail::make_design_engine(pointers, false);
  ASSERT_TRUE(gpu->on_device());
  // Each design deformed its own way; design 1 is not assembled in the second pass.
  std::vector<std::vector<Real>> x = {mesh.rest_positions(), mesh.rest_positions(), wide.rest_positions()};
  for (size_t d = 0; d < 3; ++d)
    for (size_t k = 0; k < x[d].size(); ++k)
      x[d][k] += 1e-4 * std::sin(0.37 * static_cast<Real>(k) + static_cast<Real>(d));
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<const std::vector<Real>*> posted = {&x[0], pass == 0 ? &x[1] : nullptr, &x[2]};
    std::vector<std::exception_ptr> fg, fc;
    gpu->assemble(posted, true, true, true, fg);
    cpu->assemble(posted, true, true, true, fc);
    for (int d = 0; d < 3; ++d) {
      if (!posted[static_cast<size_t>(d)]) continue;
      EXPECT_FALSE(fg[static_cast<size_t>(d)]);
      std::vector<Real> f_gpu, f_cpu, K_gpu, K_cpu;
      gpu->download_force(d, f_gpu);
      cpu->download_force(d, f_cpu);
      gpu->download_K_values(d, K_gpu);
      cpu->download_K_values(d, K_cpu);
      EXPECT_LT(relative_difference(f_gpu, f_cpu), 1e-11) << "design " << d;
      EXPECT_LT(relative_difference(K_gpu, K_cpu), 1e-11) << "design " << d;
      EXPECT_NEAR(gpu->energy(d), cpu->energy(d), 1e-11 * std::abs(cpu->energy(d))) << "design " << d;
    }
    // The designs differ (each its own material and positions): no slice is another's.
    std::vector<Real> f0, f2;
    gpu->download_force(0, f0);
    gpu->download_force(2, f2);
    EXPECT_GT(relative_difference(f0, f2), 1e-3);
  }
  // An inverted cell in design 2 fails design 2 only, with the CPU's words.
  std::vector<Real> crushed = wide.rest_positions();
  const int* cell = mesh.cell(0);
  for (int i = 0; i < 3; ++i)
    crushed[static_cast<size_t>(3 * cell[1] + i)] = crushed[static_cast<size_t>(3 * cell[0] + i)];
  std::vector<std::exception_ptr> fg, fc;
  gpu->assemble({&x[0], &x[1], &crushed}, false, true, true, fg);
  cpu->assemble({&x[0], &x[1], &crushed}, false, true, true, fc);
  EXPECT_FALSE(fg[0]);
  EXPECT_FALSE(fg[1]);
  ASSERT_TRUE(fg[2]);
  ASSERT_TRUE(fc[2]);
  auto message = [](const std::exception_ptr& e) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& error) {
      return std::string(error.what());
    }
  };
  EXPECT_EQ(message(fg[2]), message(fc[2]));
}

TEST(CudaLockstep, ABatchOnTheGpuGivesTheCpuTableToRoundOff) {
  SKIP_WITHOUT_DEVICE();
  const fs::path dir = batch_dir("cuda_lockstep_table");
  const std::string yaml = "scene: block.yaml\n" + kLockstepSweep;
  auto run = [&](const std::string& name, Backend backend, const std::string& lockstep) {
    BatchRunOptions options;
    options.has_backend = true;
    options.backend = backend;
    return run_batch_text(dir, name, yaml + "lockstep: " + lockstep + "\n", options);
  };
  const BatchResult cpu = run("cpu", Backend::Cpu, "off");
  const BatchResult gpu = run("gpu", Backend::Cuda, "auto");  // auto: lockstep on the cuda backend
  EXPECT_EQ(gpu.lockstep.groups, 2u);                         // two cell counts, each group holding two geometries
  EXPECT_LT(2 * gpu.lockstep.passes, gpu.lockstep.design_passes);
  const Table a = cells(dir / "gpu" / "b.csv");
  const Table b = cells(dir / "cpu" / "b.csv");
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a[0], b[0]);
  for (size_t r = 1; r < a.size(); ++r)
    for (size_t c = 0; c < a[0].size(); ++c) {
      const std::string& column = a[0][c];
      if (column == "seconds") continue;
      char* end_a = nullptr;
      char* end_b = nullptr;
      const double va = std::strtod(a[r][c].c_str(), &end_a), vb = std::strtod(b[r][c].c_str(), &end_b);
      if (end_a == a[r][c].c_str() || *end_a != '\0' || column == "newton_iterations") {
        EXPECT_EQ(a[r][c], b[r][c]) << "row " << r << " column " << column;  // names, statuses, counts
      } else {
        EXPECT_NEAR(va, vb, 1e-8 * std::max(1.0, std::abs(vb))) << "row " << r << " column " << column;
      }
      (void)end_b;
    }
}

TEST(CudaLockstep, NodalMeanDesignsRunOneByOneOnTheGpu) {
  // The one launch over designs does not run the average nodal pressure: `auto` runs such
  // designs one by one on the GPU (each with its own nodal passes), `on` is refused with the fix.
  SKIP_WITHOUT_DEVICE();
  const fs::path dir = fresh_dir("cuda_lockstep_nodal_mean");
  std::string base = kBatchBase;
  base.replace(base.find("cell_type: hex8"), std::string("cell_type: hex8").size(), "cell_type: tet4");
  write_file(dir / "block.yaml", base + "formulation: hyperelastic\ndilatation: nodal_mean\n");
  const std::string yaml = "scene: block.yaml\nsweep:\n  loads.pressure.value: [3000, 6000]\n";
  BatchRunOptions options;
  options.has_backend = true;
  options.backend = Backend::Cuda;
  const BatchResult gpu = run_batch_text(dir, "gpu", yaml + "lockstep: auto\n", options);
  EXPECT_EQ(gpu.lockstep.passes, 0u);
  ASSERT_EQ(gpu.designs.size(), 2u);
  for (const DesignResult& d : gpu.designs) EXPECT_TRUE(d.ok) << d.name << ": " << d.error;
  const std::string m = batch_error_of([&] { run_batch_text(dir, "on", yaml + "lockstep: on\n", options); });
  EXPECT_NE(m.find("does not run dilatation: nodal_mean"), std::string::npos) << m;
  EXPECT_NE(m.find("lockstep: auto or off"), std::string::npos) << m;
  // The GPU's designs give the CPU's table to round-off (the tip probe moves).
  options.backend = Backend::Cpu;
  run_batch_text(dir, "cpu", yaml + "lockstep: off\n", options);
  const Table a = cells(dir / "gpu" / "b.csv"), b = cells(dir / "cpu" / "b.csv");
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a[0], b[0]);
  int compared = 0;
  for (size_t r = 1; r < a.size(); ++r)
    for (size_t c = 0; c < a[0].size(); ++c) {
      const std::string& column = a[0][c];
      if (column.size() < 4 || column.compare(column.size() - 4, 4, "_tip") != 0) continue;  // ux_tip, uy_tip, uz_tip
      const double va = std::stod(a[r][c]), vb = std::stod(b[r][c]);
      EXPECT_NEAR(va, vb, 1e-6 * std::max(std::abs(vb), 1e-9)) << "row " << r << " column " << column;
      ++compared;
    }
  EXPECT_EQ(compared, 6);
}

}  // namespace
}  // namespace softik
