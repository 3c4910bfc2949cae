// The CUDA backend against the CPU backend on the same input (issue: "the CUDA backend produces
// the CPU backend's forces, stiffness values, W and lambda to round-off"): Assembler with
// Backend::Cuda vs Backend::Cpu, static solves through every GPU linear solver, and inverse
// steps / converged inverse solves. Every test skips with the reason when no device is present.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../inverse_test_support.hpp"
#include "../scene_test_support.hpp"
#include "cuda/assembly/device_assembler.hpp"
#include "cuda/linear/cudss_solver.hpp"
#include "cuda_test_support.hpp"
#include "host/assembly/assembler_internals.hpp"
#include "softik/backend.hpp"
#include "softik/batch.hpp"
#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/static_solver.hpp"

namespace softik {
namespace {

struct Model {
  const char* name;
  CellType cell;
  Formulation formulation;
};

Mesh finger_mesh(CellType cell) {
  FingerSpec spec;
  spec.cell_size = 0.004;
  spec.cell_type = cell;
  return make_finger(spec);
}

Material material_for(Formulation f) {
  return f == Formulation::Hyperelastic ? Material(fem::NeoHookean::from_young_poisson(2e5, 0.45))
                                        : Material(fem::LinearElastic::from_young_poisson(2e5, 0.45));
}

/// A bent, stretched state: every node displaced smoothly (no inverted cell).
std::vector<Real> deformed(const Mesh& mesh) {
  std::vector<Real> x = mesh.rest_positions();
  for (size_t n = 0; n < x.size() / 3; ++n) {
    const Real X = x[3 * n], Z = x[3 * n + 2];
    x[3 * n] += 0.02 * X * Z / 0.02;
    x[3 * n + 2] += 0.3 * X * X;
    x[3 * n + 1] *= 1.01;
  }
  return x;
}

TEST(CudaBackend, AssemblerOutputsEqualTheCpuBackend) {
  SKIP_WITHOUT_DEVICE();
  for (const Model& model : {Model{"tet4 corotational", CellType::Tet4, Formulation::Corotational},
                             Model{"hex8 neo-Hookean", CellType::Hex8, Formulation::Hyperelastic}}) {
    SCOPED_TRACE(model.name);
    const Mesh mesh = finger_mesh(model.cell);
    const std::vector<char> fixed = fix_nodes(mesh, mesh.node_groups.at("xmin"));
    AssemblyOptions options;
    options.formulation = model.formulation;
    const Assembler cpu(mesh, {material_for(model.formulation)}, fixed, options);
    options.backend = Backend::Cuda;
    const Assembler gpu(mesh, {material_for(model.formulation)}, fixed, options);
    ASSERT_NE(assembly::AssemblerInternals::device_assembly(gpu), nullptr);
    EXPECT_EQ(assembly::AssemblerInternals::device_assembly(cpu), nullptr);
    const std::vector<Real> x = deformed(mesh);
    Real e_cpu = 0, e_gpu = 0;
    std::vector<Real> f_cpu, f_gpu, K_cpu, K_gpu;
    cpu.assemble(x, &e_cpu, &f_cpu, &K_cpu);
    gpu.assemble(x, &e_gpu, &f_gpu, &K_gpu);
    EXPECT_NEAR(e_gpu, e_cpu, 1e-10 * std::abs(e_cpu));
    EXPECT_LE(relative_difference(f_gpu, f_cpu), 1e-10);
    EXPECT_LE(relative_difference(K_gpu, K_cpu), 1e-10);
    // Only the requested outputs: force alone leaves the energy at its last value.
    EXPECT_LE(relative_difference(gpu.force(x), f_cpu), 1e-10);
    // A NaN position is the CPU's error, not a device fault.
    std::vector<Real> bad = x;
    bad[7] = std::nan("");
    EXPECT_THROW(gpu.force(bad), Error);
  }
}

/// The finger inflated to P by Newton load steps with the given assembly backend and solver.
std::vector<Real> inflate(const inverse_test::Finger& f, Backend backend, LinearSolverKind kind, Real P) {
  AssemblyOptions options{Formulation::Hyperelastic};
  options.backend = backend;
  const Assembler assembler(f.mesh, {fem::NeoHookean::from_young_poisson(2e5, 0.45)},
                            fix_nodes(f.mesh, f.mesh.node_groups.at("xmin")), options);
  Loads loads;
  PressureLoad p = f.cavity;
  p.pressure = P;
  loads.pressures.push_back(p);
  auto solver = make_linear_solver(choose_linear_solver(backend, assembler.num_free_dofs(), kind));
  std::vector<Real> x = f.mesh.rest_positions();
  NewtonOptions o;
  o.load_steps = 4;
  o.residual_tolerance = 1e-10;
  const StaticResult r = solve_static(assembler, *solver, loads, x, o);
  EXPECT_GT(r.iterations, 0) << solver->name();  // solve_static throws when it does not converge
  return x;
}

TEST(CudaBackend, StaticSolvesThroughEveryGpuSolverEqualTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const inverse_test::Finger f;
  const std::vector<Real> X = f.mesh.rest_positions();
  const std::vector<Real> x_cpu = inflate(f, Backend::Cpu, LinearSolverKind::Automatic, 15e3);
  std::vector<Real> u_cpu(X.size());
  for (size_t k = 0; k < X.size(); ++k) u_cpu[k] = x_cpu[k] - X[k];
  std::vector<LinearSolverKind> kinds = {LinearSolverKind::Automatic, LinearSolverKind::CudaDense,
                                         LinearSolverKind::CudaPcg, LinearSolverKind::CusolverSpCholesky};
  if (have_cudss_solver() && cuda::cudss_library_available()) kinds.push_back(LinearSolverKind::Cudss);
  for (LinearSolverKind kind : kinds) {
    SCOPED_TRACE(linear_solver_kind_name(kind));
    // The inflation meets indefinite tangents (the follower load's stiffness): the dense solver and
    // cuDSS factor them as L D L^T like the CPU; PCG and csrchol are for positive definite K and
    // must then refuse with the reason, never return a wrong answer.
    const bool spd_only = kind == LinearSolverKind::CudaPcg || kind == LinearSolverKind::CusolverSpCholesky;
    std::vector<Real> x;
    try {
      x = inflate(f, Backend::Cuda, kind, 15e3);
    } catch (const Error& e) {
      EXPECT_TRUE(spd_only) << e.what();
      const std::string message = e.what();  // csrchol reports an indefinite K as singular
      EXPECT_TRUE(message.find("not positive definite") != std::string::npos ||
                  message.find("singular") != std::string::npos)
          << message;
      continue;
    }
    std::vector<Real> u(X.size());
    for (size_t k = 0; k < X.size(); ++k) u[k] = x[k] - X[k];
    // Both converged to 1e-10 of the force scale: the displacements agree to about that.
    EXPECT_LE(relative_difference(u, u_cpu), 1e-7);
  }
}

TEST(CudaBackend, DeviceResidentStiffnessGivesTheHostPathsAnswer) {
  SKIP_WITHOUT_DEVICE();
  // A nodal load (no pressure stiffness to add on the host): with the CUDA backend and a GPU
  // solver, K goes from the assembly to the factorisation in device memory.
  const Mesh mesh = finger_mesh(CellType::Tet4);
  const std::vector<char> fixed = fix_nodes(mesh, mesh.node_groups.at("xmin"));
  AssemblyOptions options;
  const Assembler cpu(mesh, {material_for(Formulation::Corotational)}, fixed, options);
  options.backend = Backend::Cuda;
  const Assembler gpu(mesh, {material_for(Formulation::Corotational)}, fixed, options);
  // 0.1 mN per node (~0.1 N in all): the tip sags a few mm, where the rotated corotational
  // tangent converges fast. (10 mN per node, 10 N, bent the 0.1 m silicone finger past its own
  // length: Newton with that tangent converged at a rate of 0.6 and ran out of iterations.)
  std::vector<Real> f_ext(static_cast<size_t>(mesh.num_dofs()), 0.0);
  for (size_t k = 2; k < f_ext.size(); k += 3) f_ext[k] = -1e-4;
  auto cpu_solver = make_linear_solver();
  auto gpu_solver = make_linear_solver(LinearSolverKind::CudaDense);
  ASSERT_TRUE(stiffness_stays_on_device(gpu, *gpu_solver));
  EXPECT_FALSE(stiffness_stays_on_device(gpu, *cpu_solver));
  EXPECT_FALSE(stiffness_stays_on_device(cpu, *gpu_solver));
  // The device values are the host values.
  const std::vector<Real> x0 = deformed(mesh);
  std::vector<Real> K_host, K_device(static_cast<size_t>(gpu.pattern().nnz()));
  gpu.assemble(x0, nullptr, nullptr, &K_host);
  const exec::DeviceView<const Real> d_K = gpu.assemble_on_device(x0, nullptr, nullptr);
  ASSERT_EQ(d_K.size, K_device.size());
  ASSERT_EQ(cudaMemcpy(K_device.data(), d_K.data, K_device.size() * sizeof(Real), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_LE(relative_difference(K_device, K_host), 1e-12);
  EXPECT_THROW(cpu.assemble_on_device(x0, nullptr, nullptr), Error);

  std::vector<Real> x_cpu = mesh.rest_positions(), x_gpu = x_cpu;
  NewtonOptions o;
  o.load_steps = 2;
  o.residual_tolerance = 1e-10;
  solve_static(cpu, *cpu_solver, f_ext, x_cpu, o);
  solve_static(gpu, *gpu_solver, f_ext, x_gpu, o);
  const std::vector<Real> X = mesh.rest_positions();
  std::vector<Real> u_cpu(X.size()), u_gpu(X.size());
  for (size_t k = 0; k < X.size(); ++k) {
    u_cpu[k] = x_cpu[k] - X[k];
    u_gpu[k] = x_gpu[k] - X[k];
  }
  EXPECT_GT(*std::max_element(u_cpu.begin(), u_cpu.end()), 0);
  EXPECT_LE(relative_difference(u_gpu, u_cpu), 1e-7);
}

/// The test finger's Assembler (inverse_test_support.hpp) on the GPU.
Assembler gpu_assembler(const inverse_test::Finger& f) {
  AssemblyOptions options{Formulation::Hyperelastic};
  options.backend = Backend::Cuda;
  return Assembler(f.mesh, {fem::NeoHookean::from_young_poisson(2e5, 0.45)},
                   fix_nodes(f.mesh, f.mesh.node_groups.at("xmin")), options);
}

TEST(CudaBackend, InverseStepWAndLambdaEqualTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const inverse_test::Finger f;
  const std::array<Real, 3> goal = f.tip().position(f.inflate(20e3));
  const Assembler gpu = gpu_assembler(f);
  auto cpu_solver = make_linear_solver();
  auto gpu_solver = make_linear_solver(LinearSolverKind::CudaDense);
  InverseSolver on_cpu(f.assembler, *cpu_solver);
  InverseSolver on_gpu(gpu, *gpu_solver);
  for (InverseSolver* s : {&on_cpu, &on_gpu}) {
    s->add(f.actuator({0, 50e3}));
    s->add(f.effector(goal));
  }
  std::vector<Real> x_cpu = f.mesh.rest_positions(), x_gpu = x_cpu;
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    const InverseStepReport a = on_cpu.step(x_cpu);
    const InverseStepReport b = on_gpu.step(x_gpu);
    // The dense Cholesky factor gives forward-only W; an indefinite tangent (L D L^T) full solves.
    EXPECT_EQ(b.half_solves, !gpu_solver->info().indefinite);
    EXPECT_LE(relative_difference(b.W, a.W), 1e-10);
    EXPECT_LE(relative_difference(b.lambda, a.lambda), 1e-9);
    EXPECT_LE(relative_difference(x_gpu, x_cpu), 1e-9);
  }
  // The converged answers agree within the solver tolerance.
  std::vector<Real> y_cpu = f.mesh.rest_positions(), y_gpu = y_cpu;
  InverseSolver c(f.assembler, *cpu_solver), g(gpu, *gpu_solver);
  for (InverseSolver* s : {&c, &g}) {
    s->add(f.actuator({0, 50e3}));
    s->add(f.effector(goal));
  }
  ASSERT_TRUE(c.solve(y_cpu).converged);
  ASSERT_TRUE(g.solve(y_gpu).converged);
  EXPECT_NEAR(g.lambda()[0], c.lambda()[0], 1e-6 * c.lambda()[0]);
  EXPECT_NEAR(g.lambda()[0], 20e3, 1e-6 * 20e3);
}

TEST(CudaBackend, DesignsInOneLaunchEqualEachDesignOnTheCpu) {
  SKIP_WITHOUT_DEVICE();
  // Same mesh, four parameter sets and four states: one launch over designs x cells gives each
  // design what the CPU Assembler gives it alone.
  const Mesh mesh = finger_mesh(CellType::Tet4);
  const std::vector<char> fixed = fix_nodes(mesh, mesh.node_groups.at("xmin"));
  AssemblyOptions options{Formulation::Hyperelastic};
  const Assembler base(mesh, {fem::NeoHookean::from_young_poisson(2e5, 0.45)}, fixed, options);
  cuda::DeviceAssembler device(base);
  const Real E[] = {1e5, 2e5, 5e5, 1e6};
  const Real nu[] = {0.3, 0.45, 0.4, 0.49};
  std::vector<std::vector<Material>> designs;
  for (int d = 0; d < 4; ++d) designs.push_back({fem::NeoHookean::from_young_poisson(E[d], nu[d])});
  device.set_designs(designs);
  ASSERT_EQ(device.num_designs(), 4);
  const size_t ndof = static_cast<size_t>(base.num_dofs()), nnz = static_cast<size_t>(base.pattern().nnz());
  std::vector<Real> x_all;
  std::vector<std::vector<Real>> x(4);
  for (int d = 0; d < 4; ++d) {
    x[static_cast<size_t>(d)] = deformed(mesh);
    for (size_t k = 0; k < ndof; ++k) x[static_cast<size_t>(d)][k] += 1e-4 * d * std::sin(0.37 * static_cast<Real>(k));
    x_all.insert(x_all.end(), x[static_cast<size_t>(d)].begin(), x[static_cast<size_t>(d)].end());
  }
  ASSERT_EQ(
      cudaMemcpy(device.device_design_positions(), x_all.data(), x_all.size() * sizeof(Real), cudaMemcpyHostToDevice),
      cudaSuccess);
  device.assemble_designs(device.device_design_positions(), {true, true, true});
  std::vector<Real> f_all(4 * ndof), K_all(4 * nnz);
  ASSERT_EQ(cudaMemcpy(f_all.data(), device.device_design_force(), f_all.size() * sizeof(Real), cudaMemcpyDeviceToHost),
            cudaSuccess);
  ASSERT_EQ(
      cudaMemcpy(K_all.data(), device.device_design_K_values(), K_all.size() * sizeof(Real), cudaMemcpyDeviceToHost),
      cudaSuccess);
  const std::vector<Real> energies = device.design_energies();
  for (size_t d = 0; d < 4; ++d) {
    SCOPED_TRACE("design " + std::to_string(d));
    const Assembler alone(mesh, designs[d], fixed, options);
    Real e = 0;
    std::vector<Real> f, K;
    alone.assemble(x[d], &e, &f, &K);
    EXPECT_NEAR(energies[d], e, 1e-10 * std::abs(e));
    EXPECT_LE(relative_difference(std::vector<Real>(f_all.begin() + d * ndof, f_all.begin() + (d + 1) * ndof), f),
              1e-10);
    EXPECT_LE(relative_difference(std::vector<Real>(K_all.begin() + d * nnz, K_all.begin() + (d + 1) * nnz), K), 1e-10);
  }
  // Errors name the design.
  EXPECT_THROW(device.set_designs(
                   {{fem::NeoHookean::from_young_poisson(1e5, 0.3)},
                    {fem::NeoHookean::from_young_poisson(1e5, 0.3), fem::NeoHookean::from_young_poisson(1e5, 0.3)}}),
               Error);
  EXPECT_THROW(device.set_designs({{fem::LinearElastic::from_young_poisson(1e5, 0.3)}}), Error);
  x_all[ndof + 5] = std::nan("");
  ASSERT_EQ(
      cudaMemcpy(device.device_design_positions(), x_all.data(), x_all.size() * sizeof(Real), cudaMemcpyHostToDevice),
      cudaSuccess);
  try {
    device.assemble_designs(device.device_design_positions());
    FAIL() << "a NaN position in design 1 was accepted";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("design 1"), std::string::npos) << err.what();
  }
}

TEST(CudaBackend, BatchOfDesignsOnConcurrentStreamsEqualsTheCpuBatch) {
  SKIP_WITHOUT_DEVICE();
  const fs::path dir = fresh_dir("cuda_batch");
  write_file(dir / "block.yaml", kBlock + R"(loads: {pressure: {name: cavity, surface: cavity0, value: 6000}}
solver: {load_steps: 2}
outputs: {vtu: false, probes: [{name: tip, point: [0.03, 0.006, 0.006]}]}
)");
  write_file(dir / "b.yaml",
             "scene: block.yaml\nworkers: 3\nsweep: {loads.pressure.value: [2000, 4000, 6000], "
             "materials.young: [1.0e5, 2.0e5]}\n");
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  BatchRunOptions options;
  options.has_backend = true;
  options.out_dir = (dir / "cpu").string();
  options.backend = Backend::Cpu;
  const BatchResult cpu = run_batch(spec, options);
  options.out_dir = (dir / "cuda").string();
  options.backend = Backend::Cuda;
  const BatchResult gpu = run_batch(spec, options);
  EXPECT_EQ(gpu.backend, Backend::Cuda);
  ASSERT_EQ(gpu.designs.size(), 6u);
  for (size_t k = 0; k < 6; ++k) {
    SCOPED_TRACE(spec.designs[k].name);
    ASSERT_TRUE(cpu.designs[k].ok) << cpu.designs[k].error;
    ASSERT_TRUE(gpu.designs[k].ok) << gpu.designs[k].error;
    const auto& a = cpu.designs[k].run.probes[0].displacement;
    const auto& b = gpu.designs[k].run.probes[0].displacement;
    const Real scale = std::max({std::abs(a[0]), std::abs(a[1]), std::abs(a[2])});
    for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(b[i], a[i], 1e-7 * scale);
  }
}

TEST(CudaBackend, CudssChordStepsKeepTheTipColumnsAndEqualTheCpu) {
  SKIP_UNLESS_CUDSS_RUNS();
  // cuDSS has no forward-only solves, so a kept factor's chord steps solve Z = K^-1 B in full;
  // the tip effector's two columns (J fixed) are kept from the last solve on that factor and
  // the cavity's column and the residual solved again (host/inverse/kept_columns.hpp). Tracking
  // a moving goal with the actuator's stiffness, GPU assembly + cuDSS must follow the CPU's
  // steps (CPU assembly and solver, half path with its own kept columns).
  const inverse_test::Finger f;
  const std::array<Real, 3> tip0 = f.tip().position(f.inflate(10e3));
  const Assembler gpu = gpu_assembler(f);
  auto cpu_solver = make_linear_solver();
  auto gpu_solver = make_linear_solver(LinearSolverKind::Cudss);
  InverseOptions io;
  io.reuse_factorization = 20;
  io.actuator_stiffness = true;
  InverseSolver on_cpu(f.assembler, *cpu_solver, {}, io);
  InverseSolver on_gpu(gpu, *gpu_solver, {}, io);
  std::shared_ptr<PositionEffector> tips[2] = {f.effector(tip0), f.effector(tip0)};
  on_cpu.add(f.actuator({0, 50e3}));
  on_gpu.add(f.actuator({0, 50e3}));
  on_cpu.add(tips[0]);
  on_gpu.add(tips[1]);
  std::vector<Real> x_cpu = f.mesh.rest_positions(), x_gpu = x_cpu;
  int chord = 0;
  for (int k = 0; k < 30; ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    if (k >= 10) {  // after 10 steps towards the goal, it moves on a 0.2 mm circle
      const Real angle = 0.2 * (k - 10);
      const std::array<Real, 3> goal{tip0[0] + 2e-4 * std::cos(angle), tip0[1], tip0[2] + 2e-4 * std::sin(angle)};
      for (auto& t : tips) t->set_goal(goal);
    }
    const InverseStepReport a = on_cpu.step(x_cpu);
    const InverseStepReport b = on_gpu.step(x_gpu);
    ASSERT_EQ(b.status, QpStatus::Optimal) << b.message;
    EXPECT_FALSE(b.half_solves);
    EXPECT_EQ(b.refactored, a.refactored);
    if (!b.refactored) {
      EXPECT_EQ(b.kept_columns, 2) << "the tip's x and z rows";
      ++chord;
    } else {
      EXPECT_EQ(b.kept_columns, 0);
    }
    EXPECT_LE(relative_difference(b.lambda, a.lambda), 1e-8);
    EXPECT_LE(relative_difference(x_gpu, x_cpu), 1e-8);
  }
  EXPECT_GE(chord, 15);
}

}  // namespace
}  // namespace softik
