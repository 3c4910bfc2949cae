// softik::cuda::DeviceAssembler must produce the CPU Assembler's numbers to round-off (docs/gpu.md,
// "CPU = GPU": one test body per backend, the CUDA result compared to the CPU's): for boxes of
// every element (Edge2, Tri3, Quad4, Tet4, Hex8) in a rotated, stretched and jittered state,
// every formulation and every law of softik::Material (the list is checked to cover them all),
// force on all DOFs (reactions on the fixed ones included), K values in the CPU's CSR pattern
// and the energy agree to a relative 1e-12 (max abs difference / max abs value), with the
// gathered stiffness of the rotated corotational linear simplices and with the atomic scatter.
// Skips with the reason when no GPU is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "../assembly_cases.hpp"
#include "cuda/assembly/device_assembler.hpp"
#include "softik/assembly.hpp"
#include "softik/backend.hpp"
#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"

namespace softik {
namespace {

constexpr Real kTolerance = 1e-12;

struct Case {
  std::string name;
  CellType type = CellType::Tet4;
  std::vector<Material> materials;  ///< one, or one per cell
  AssemblyOptions options;
  bool compressed = false;  ///< a compressed state (indefinite hyperelastic tangents)
};

Mesh box(CellType type) {
  const int dim = cell_dimension(type);
  BoxSpec spec;
  spec.size = {1.2, 0.5, 0.4};
  if (dim < 3)
    spec.cells = {6, dim == 2 ? 3 : 1, 1};
  else
    spec.cells = type == CellType::Tet4 ? std::array<int, 3>{4, 2, 2} : std::array<int, 3>{5, 3, 2};
  return make_box(dim, type, spec);
}

/// A large rotation of a stretched (or compressed) box along x, plus a small random jitter, in
/// the mesh's dimension.
std::vector<Real> deformed(const Mesh& mesh, bool compressed, unsigned seed = 7) {
  std::vector<Real> x(static_cast<size_t>(mesh.num_dofs()));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> jitter(-0.01, 0.01);
  const Real stretch = compressed ? 0.75 : 1.08;
  const Eigen::Matrix3d Q = testing::test_rotation(mesh.dim, 0.7);
  for (int n = 0; n < mesh.num_nodes(); ++n) {
    const Eigen::Vector3d p(stretch * mesh.X[3 * n], mesh.X[3 * n + 1], mesh.X[3 * n + 2]);
    const Eigen::Vector3d y = Q * p;
    for (int i = 0; i < mesh.dim; ++i) x[static_cast<size_t>(mesh.dim * n + i)] = y[i] + jitter(rng);
  }
  return x;
}

/// The xmin face clamped, and the z component of every 5th node: cells with some fixed DOFs
/// (slot -1) inside the body, not only at the clamp.
std::vector<char> fixed_dofs(const Mesh& mesh) {
  std::vector<char> fixed = fix_nodes(mesh, mesh.node_groups.at("xmin"));
  for (int n = 0; n < mesh.num_nodes(); n += 5) fixed[static_cast<size_t>(mesh.dim * n + mesh.dim - 1)] = 1;
  return fixed;
}

/// max |gpu - cpu| / max |cpu| over the given indices (all when empty).
Real relative_difference(const std::vector<Real>& gpu, const std::vector<Real>& cpu,
                         const std::vector<int>& only = {}) {
  Real diff = 0, scale = 0;
  auto visit = [&](size_t k) {
    diff = std::max(diff, std::abs(gpu[k] - cpu[k]));
    scale = std::max(scale, std::abs(cpu[k]));
  };
  if (only.empty())
    for (size_t k = 0; k < cpu.size(); ++k) visit(k);
  else
    for (int k : only) visit(static_cast<size_t>(k));
  return scale > 0 ? diff / scale : diff;
}

std::vector<Case> all_cases() {
  const Real E = 1e5, nu = 0.4;
  const std::vector<std::pair<std::string, Material>> laws = {
      {"LinearElastic", fem::LinearElastic::from_young_poisson(E, nu)},
      {"SaintVenantKirchhoff", fem::SaintVenantKirchhoff::from_young_poisson(E, nu)},
      {"NeoHookean", fem::NeoHookean::from_young_poisson(E, nu)},
      {"NeoHookeanD1", fem::NeoHookeanD1::from_young_poisson(E, nu)},
      {"StableNeoHookean", fem::StableNeoHookean::from_young_poisson(E, nu)},
      {"MooneyRivlin", fem::MooneyRivlin::from_constants(1e4, 2e3, 1e-5)},
      {"Ogden", fem::Ogden<3>::from_constants({1e4, 5e3, -1e3}, {1.3, 5.0, -2.0}, 1e-5)},
      {"Yeoh", fem::Yeoh::from_constants(1e4, 1e3, 1e2, 1e-5)},
      {"ArrudaBoyce", fem::ArrudaBoyce::from_constants(1e4, 2.5, 1e-5)},
  };
  std::vector<Case> cases;
  for (CellType type : testing::all_cell_types()) {
    const std::string element = cell_type_name(type);
    const Material linear = fem::LinearElastic::from_young_poisson(E, nu);
    for (auto rotation : {fem::RotationMethod::Polar, fem::RotationMethod::QR})
      for (auto tangent : {fem::CorotationalTangent::Rotated, fem::CorotationalTangent::Consistent}) {
        Case c{element + "_Corotational" + (rotation == fem::RotationMethod::Polar ? "Polar" : "QR") +
                   (tangent == fem::CorotationalTangent::Rotated ? "Rotated" : "Consistent"),
               type,
               {linear},
               {},
               false};
        c.options.formulation = Formulation::Corotational;
        c.options.rotation = rotation;
        c.options.corotational_tangent = tangent;
        cases.push_back(c);
      }
    Case small{element + "_LinearSmallStrain", type, {linear}, {}, false};
    small.options.formulation = Formulation::LinearSmallStrain;
    cases.push_back(small);
    for (const auto& [name, law] : laws) {
      Case c{element + "_Hyperelastic" + name, type, {law}, {}, false};
      c.options.formulation = Formulation::Hyperelastic;
      cases.push_back(c);
    }
    // Mean dilatation (fem/dilatation.hpp) runs in the same cell kernel: a log J law, a
    // decoupled law and the linear measure, on the cells it is for (not one-point simplices).
    AssemblyOptions cell_mean;
    cell_mean.dilatation = fem::Dilatation::CellMean;
    const std::vector<std::tuple<std::string, Material, Formulation>> cell_mean_laws = {
        {"NeoHookeanCellMean", fem::NeoHookean::from_young_poisson(E, nu), Formulation::Hyperelastic},
        {"MooneyRivlinCellMean", fem::MooneyRivlin::from_constants(1e4, 2e3, 1e-5), Formulation::Hyperelastic},
        {"LinearSmallStrainCellMean", linear, Formulation::LinearSmallStrain}};
    for (const auto& [name, law, formulation] : cell_mean_laws) {
      if (!testing::dilatation_applies(type, cell_mean)) break;
      Case c{element + "_" + name, type, {law}, {}, false};
      c.options.formulation = formulation;
      c.options.dilatation = fem::Dilatation::CellMean;
      cases.push_back(c);
    }
    // The average nodal pressure (nodal passes, then the cell pass, then the second-ring term):
    // a log J law, a decoupled law, the inversion-tolerant law and the linear measure, per-cell
    // materials, and the projection in a compressed state, on the linear simplices it is for.
    AssemblyOptions nodal_mean;
    nodal_mean.dilatation = fem::Dilatation::NodalMean;
    if (testing::dilatation_applies(type, nodal_mean)) {
      const std::vector<std::tuple<std::string, Material, Formulation>> nodal_laws = {
          {"NeoHookeanNodalMean", fem::NeoHookean::from_young_poisson(E, 0.49), Formulation::Hyperelastic},
          {"MooneyRivlinNodalMean", fem::MooneyRivlin::from_constants(1e4, 2e3, 1e-5), Formulation::Hyperelastic},
          {"StableNeoHookeanNodalMean", fem::StableNeoHookean::from_young_poisson(E, 0.45), Formulation::Hyperelastic},
          {"LinearSmallStrainNodalMean", fem::LinearElastic::from_young_poisson(E, 0.49),
           Formulation::LinearSmallStrain}};
      for (const auto& [name, law, formulation] : nodal_laws) {
        Case c{element + "_" + name, type, {law}, {}, false};
        c.options.formulation = formulation;
        c.options.dilatation = fem::Dilatation::NodalMean;
        cases.push_back(c);
      }
      Case projected_nodal{
          element + "_NeoHookeanNodalMeanProjectSpd", type, {fem::NeoHookean::from_young_poisson(E, 0.45)}, {}, true};
      projected_nodal.options.formulation = Formulation::Hyperelastic;
      projected_nodal.options.dilatation = fem::Dilatation::NodalMean;
      projected_nodal.options.project_spd = true;
      cases.push_back(projected_nodal);
      Case per_cell_nodal{element + "_NeoHookeanNodalMeanPerCell", type, {}, {}, false};
      for (int k = 0; k < box(type).num_cells(); ++k)
        per_cell_nodal.materials.push_back(
            fem::NeoHookean::from_young_poisson(E * (1 + 0.1 * (k % 7)), 0.45 + 0.01 * (k % 4)));
      per_cell_nodal.options.formulation = Formulation::Hyperelastic;
      per_cell_nodal.options.dilatation = fem::Dilatation::NodalMean;
      cases.push_back(per_cell_nodal);
    }
    // SPD projection of indefinite element tangents (compressed state), as the CPU does it.
    Case projected{element + "_NeoHookeanProjectSpd", type, {fem::NeoHookean::from_young_poisson(E, nu)}, {}, true};
    projected.options.formulation = Formulation::Hyperelastic;
    projected.options.project_spd = true;
    cases.push_back(projected);
    // One material per cell (heterogeneous parameters), both formulations.
    const int num_cells = box(type).num_cells();
    Case per_cell_nh{element + "_NeoHookeanPerCell", type, {}, {}, false};
    Case per_cell_co{element + "_CorotationalPerCell", type, {}, {}, false};
    for (int k = 0; k < num_cells; ++k) {
      per_cell_nh.materials.push_back(
          fem::NeoHookean::from_young_poisson(E * (1 + 0.1 * (k % 7)), nu - 0.01 * (k % 3)));
      per_cell_co.materials.push_back(fem::LinearElastic::from_young_poisson(E * (1 + 0.1 * (k % 5)), nu));
    }
    per_cell_nh.options.formulation = Formulation::Hyperelastic;
    per_cell_co.options.formulation = Formulation::Corotational;
    cases.push_back(per_cell_nh);
    cases.push_back(per_cell_co);
  }
  return cases;
}

class DeviceAssemblerEqualsCpu : public ::testing::TestWithParam<Case> {};

TEST_P(DeviceAssemblerEqualsCpu, ForceStiffnessAndEnergy) {
  std::string reason;
  if (!cuda::device_available(&reason)) GTEST_SKIP() << "no usable CUDA device: " << reason;
  const Case& c = GetParam();
  const Mesh mesh = box(c.type);
  const std::vector<Real> x = deformed(mesh, c.compressed);
  const std::vector<char> fixed = fixed_dofs(mesh);
  const Assembler cpu(mesh, c.materials, fixed, c.options);
  Real energy_cpu = 0;
  std::vector<Real> force_cpu, K_cpu;
  cpu.assemble(x, &energy_cpu, &force_cpu, &K_cpu);

  cuda::DeviceAssembler gpu(cpu);
  EXPECT_EQ(gpu.num_cells(), mesh.num_cells());
  EXPECT_EQ(gpu.num_dofs(), cpu.num_dofs());
  EXPECT_EQ(gpu.num_free_dofs(), cpu.num_free_dofs());
  ASSERT_EQ(gpu.nnz(), cpu.pattern().nnz());
  // Twice: each call must start from zeroed buffers, not accumulate onto the previous result.
  for (int repeat = 0; repeat < 2; ++repeat) gpu.assemble(x, cuda::AssemblyRequest{true, true, true});
  const std::vector<Real> force_gpu = gpu.force(), K_gpu = gpu.K_values();
  ASSERT_EQ(force_gpu.size(), force_cpu.size());
  ASSERT_EQ(K_gpu.size(), K_cpu.size());
  EXPECT_LE(relative_difference(force_gpu, force_cpu), kTolerance);
  EXPECT_LE(relative_difference(K_gpu, K_cpu), kTolerance);
  EXPECT_LE(std::abs(gpu.energy() - energy_cpu), kTolerance * std::abs(energy_cpu));
  EXPECT_GT(std::abs(energy_cpu), 0.0);

  // Fixed DOFs: the force there is minus the reaction, present on both backends and equal.
  std::vector<int> fixed_list;
  for (int k = 0; k < cpu.num_dofs(); ++k)
    if (cpu.free_dof_index()[static_cast<size_t>(k)] < 0) fixed_list.push_back(k);
  ASSERT_FALSE(fixed_list.empty());
  EXPECT_LE(relative_difference(force_gpu, force_cpu, fixed_list), kTolerance);

  // From positions already on the device: the same numbers, with only what was requested.
  gpu.assemble(gpu.device_positions(), cuda::AssemblyRequest{false, true, false});
  EXPECT_LE(relative_difference(gpu.force(), force_cpu), kTolerance);
  EXPECT_LE(relative_difference(gpu.K_values(), K_cpu), kTolerance);  // left from the previous call

  // The rotated corotational stiffness of the linear simplices is gathered without atomics
  // (host/assembly/block_gather.hpp): bitwise the same from call to call, and what the atomic
  // scatter gives to round-off.
  const bool gathers = (c.type == CellType::Tet4 || c.type == CellType::Tri3) &&
                       c.options.formulation == Formulation::Corotational &&
                       c.options.corotational_tangent == fem::CorotationalTangent::Rotated && !c.options.project_spd;
  EXPECT_EQ(gpu.gathers_stiffness(), gathers);
  if (gathers) {
    gpu.assemble(x, cuda::AssemblyRequest{false, false, true});
    EXPECT_EQ(gpu.K_values(), K_gpu) << "the gathered K differs between two calls";
    gpu.set_block_gather(false);
    EXPECT_FALSE(gpu.gathers_stiffness());
    gpu.assemble(x, cuda::AssemblyRequest{true, true, true});
    EXPECT_LE(relative_difference(gpu.K_values(), K_cpu), kTolerance);
    EXPECT_LE(relative_difference(gpu.force(), force_cpu), kTolerance);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryFormulationAndLaw, DeviceAssemblerEqualsCpu, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(CudaDeviceAssembler, CasesCoverEveryElementLawAndFormulation) {
  // Adding an element or a law to softik must add it to the GPU comparison above: every
  // CellType, every alternative of softik::Material and every Formulation appears (checked on
  // the CPU, with or without a GPU).
  std::set<CellType> types;
  std::set<std::size_t> laws;
  std::set<Formulation> formulations;
  std::set<std::pair<CellType, fem::Dilatation>> averaged;
  for (const Case& c : all_cases()) {
    types.insert(c.type);
    for (const Material& m : c.materials) laws.insert(m.index());
    formulations.insert(c.options.formulation);
    averaged.insert({c.type, c.options.dilatation});
  }
  EXPECT_EQ(types.size(), testing::cell_type_count());
  EXPECT_EQ(laws.size(), std::variant_size<Material>::value);
  EXPECT_EQ(formulations.size(), 3u);
  // Every element with every dilatation that applies to it.
  for (CellType type : testing::all_cell_types())
    for (auto mode : {fem::Dilatation::CellMean, fem::Dilatation::NodalMean}) {
      AssemblyOptions o;
      o.dilatation = mode;
      EXPECT_EQ(averaged.count({type, mode}), testing::dilatation_applies(type, o) ? 1u : 0u)
          << cell_type_name(type) << " dilatation " << static_cast<int>(mode);
    }
}

/// The Tet4 box with the average nodal pressure (NeoHookean, nu = 0.49) on the given backend.
Assembler nodal_mean_box(Backend backend) {
  const Mesh mesh = box(CellType::Tet4);
  AssemblyOptions options;
  options.formulation = Formulation::Hyperelastic;
  options.dilatation = fem::Dilatation::NodalMean;
  options.backend = backend;
  return Assembler(mesh, {fem::NeoHookean::from_young_poisson(1e5, 0.49)}, fixed_dofs(mesh), options);
}

TEST(CudaDeviceAssembler, NodalMeanThroughTheAssemblerEqualsCpu) {
  // The public route: AssemblyOptions::backend = Cuda runs the nodal passes on the device (the
  // Assembler then downloads what is asked for).
  std::string reason;
  if (!cuda::device_available(&reason)) GTEST_SKIP() << "no usable CUDA device: " << reason;
  const Assembler cpu = nodal_mean_box(Backend::Cpu), gpu = nodal_mean_box(Backend::Cuda);
  const std::vector<Real> x = deformed(cpu.mesh(), false);
  Real e_cpu = 0, e_gpu = 0;
  std::vector<Real> f_cpu, f_gpu, K_cpu, K_gpu;
  cpu.assemble(x, &e_cpu, &f_cpu, &K_cpu);
  gpu.assemble(x, &e_gpu, &f_gpu, &K_gpu);
  EXPECT_LE(relative_difference(f_gpu, f_cpu), kTolerance);
  EXPECT_LE(relative_difference(K_gpu, K_cpu), kTolerance);
  EXPECT_LE(std::abs(e_gpu - e_cpu), kTolerance * std::abs(e_cpu));
  // Energy alone and force alone (the nodal passes run for every request).
  gpu.assemble(x, &e_gpu, nullptr, nullptr);
  EXPECT_LE(std::abs(e_gpu - e_cpu), kTolerance * std::abs(e_cpu));
  gpu.assemble(x, nullptr, &f_gpu, nullptr);
  EXPECT_LE(relative_difference(f_gpu, f_cpu), kTolerance);
  // The pattern compared above holds the second ring (more entries than the plain Tet4's).
  const Assembler plain(cpu.mesh(), {fem::NeoHookean::from_young_poisson(1e5, 0.49)}, fixed_dofs(cpu.mesh()), [] {
    AssemblyOptions o;
    o.formulation = Formulation::Hyperelastic;
    return o;
  }());
  EXPECT_GT(cpu.pattern().nnz(), plain.pattern().nnz());
}

TEST(CudaDeviceAssembler, NodalMeanInvertedNeighbourhoodNamesTheNodeAsOnTheCpu) {
  std::string reason;
  if (!cuda::device_available(&reason)) GTEST_SKIP() << "no usable CUDA device: " << reason;
  const Assembler cpu = nodal_mean_box(Backend::Cpu), gpu = nodal_mean_box(Backend::Cuda);
  std::vector<Real> x = cpu.mesh().rest_positions();
  for (size_t k = 2; k < x.size(); k += 3) x[k] = -x[k];  // mirrored in z: every cell inverted
  std::vector<Real> f;
  const std::string m_cpu = testing::error_of([&] { cpu.assemble(x, nullptr, &f, nullptr); });
  const std::string m_gpu = testing::error_of([&] { gpu.assemble(x, nullptr, &f, nullptr); });
  EXPECT_NE(m_cpu.find("inverted on average"), std::string::npos) << m_cpu;
  EXPECT_EQ(m_gpu, m_cpu);
}

TEST(CudaDeviceAssembler, NodalMeanDesignsInOneLaunchAreRefusedWithTheFix) {
  std::string reason;
  if (!cuda::device_available(&reason)) GTEST_SKIP() << "no usable CUDA device: " << reason;
  const Assembler cpu = nodal_mean_box(Backend::Cpu);
  cuda::DeviceAssembler gpu(cpu);
  const std::string m = testing::error_of([&] { gpu.set_designs({cpu.materials(), cpu.materials()}); });
  EXPECT_NE(m.find("not NodalMean"), std::string::npos) << m;
  EXPECT_NE(m.find("lockstep: off"), std::string::npos) << m;
}

TEST(CudaDeviceAssembler, ProjectionCasesHaveIndefiniteElementTangents) {
  // The projected cases above only test something if projecting changes K: checked on the CPU
  // for the 3D elements (a compressed 1D/2D strip need not have indefinite element tangents).
  for (CellType type : {CellType::Tet4, CellType::Hex8}) {
    const Mesh mesh = box(type);
    const std::vector<Real> x = deformed(mesh, true);
    AssemblyOptions options;
    options.formulation = Formulation::Hyperelastic;
    const Material law = fem::NeoHookean::from_young_poisson(1e5, 0.4);
    std::vector<Real> K_plain, K_projected;
    Assembler(mesh, {law}, fixed_dofs(mesh), options).assemble(x, nullptr, nullptr, &K_plain);
    options.project_spd = true;
    Assembler(mesh, {law}, fixed_dofs(mesh), options).assemble(x, nullptr, nullptr, &K_projected);
    EXPECT_GT(relative_difference(K_projected, K_plain), 1e-6) << cell_type_name(type);
  }
}

}  // namespace
}  // namespace softik
