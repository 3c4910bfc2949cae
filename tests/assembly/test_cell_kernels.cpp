// The execution layer (include/softik/exec/) and the one cell kernel (host/assembly/
// cell_kernel.hpp). Every policy must visit every iteration once, and the cell kernel must give
// the same numbers under every policy and scatter: the Assembler's pass (exec::HostColours,
// plain scatter) equals the same kernel run with exec::Serial and with exec::HostCells + atomic
// scatter (the scatter the CUDA backend uses) to round-off, and a design batch in one pass
// equals its designs one at a time. The GPU comparison of every element x law x formulation is
// tests/cuda/test_cuda_device_assembler.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "host/assembly/assembler_internals.hpp"
#include "host/assembly/cell_dispatch.hpp"
#include "host/assembly/cell_kernel.hpp"
#include "softik/assembly.hpp"
#include "softik/exec/forall.hpp"
#include "tests/assembly_cases.hpp"

namespace softik {

using Internals = assembly::AssemblerInternals;
namespace {

using assembly::CellPass;
using assembly::CellStatus;
using exec::Space;

using testing::relative_difference;

TEST(Forall, EveryPolicyVisitsEveryIterationOnce) {
  const int n = 5000;
  std::vector<int> count(n, 0);
  forall(exec::Serial{}, n, [&](int i) { ++count[static_cast<size_t>(i)]; });
  EXPECT_EQ(std::count(count.begin(), count.end(), 1), n);
  std::fill(count.begin(), count.end(), 0);
  forall(exec::HostCells{2}, n, [&](int i) { ++count[static_cast<size_t>(i)]; });
  EXPECT_EQ(std::count(count.begin(), count.end(), 1), n);
  // Colours: blocks of 7 iterations, in three colours listed out of order; the last block is short.
  const int block = 7, blocks = (n + block - 1) / block;
  std::vector<int> color_ptr{0}, color_blocks;
  for (int k = 0; k < 3; ++k) {
    for (int b = blocks - 1 - k; b >= 0; b -= 3) color_blocks.push_back(b);
    color_ptr.push_back(static_cast<int>(color_blocks.size()));
  }
  exec::HostColours colours{color_ptr.data(), color_blocks.data(), 3, block, 2};
  std::fill(count.begin(), count.end(), 0);
  forall(colours, n, [&](int i) { ++count[static_cast<size_t>(i)]; });
  EXPECT_EQ(std::count(count.begin(), count.end(), 1), n);
}

TEST(Forall, AtomicsOnTheHostAreExact) {
  Real sum = 0;
  int smallest = assembly::kNoIndex;
  forall(exec::HostCells{2}, 100000, [&](int i) {
    exec::atomic_add(&sum, 1.0);
    if (i % 1000 == 999) exec::atomic_min(&smallest, i);
  });
  EXPECT_EQ(sum, 100000.0);
  EXPECT_EQ(smallest, 999);
}

/// The host arrays of one mesh and law, as the CPU backend lays them out (records).
template <class E, class M>
struct HostCells {
  std::vector<Real> rest;
  std::vector<M> materials;
  CellPass<Space::Host> pass;

  HostCells(const Assembler& assembler, std::vector<M> laws) : materials(std::move(laws)) {
    const Mesh& mesh = assembler.mesh();
    const size_t words = static_cast<size_t>(assembly::rest_words<E>());
    rest.resize(static_cast<size_t>(mesh.num_cells()) * words);
    for (int c = 0; c < mesh.num_cells(); ++c) assembly::pack_rest<E>(mesh, c, rest.data() + c * words, 1);
    pass.num_cells = mesh.num_cells();
    pass.nodes = {{mesh.cells.data(), mesh.cells.size()}, exec::Layout::records(E::num_nodes)};
    pass.rest = {{rest.data(), rest.size()}, exec::Layout::records(words)};
    pass.block_slots = {{Internals::block_slots(assembler).data(), Internals::block_slots(assembler).size()},
                        exec::Layout::records(static_cast<size_t>(E::num_nodes * E::num_nodes))};
    pass.node_rows = {Internals::node_rows(assembler).data(), Internals::node_rows(assembler).size()};
    pass.materials = {reinterpret_cast<const unsigned char*>(materials.data()), materials.size() * sizeof(M)};
    pass.material_stride = materials.size() == 1 ? 0 : 1;
    pass.rotation = assembler.options().rotation;
    pass.tangent = assembler.options().corotational_tangent;
  }
};

struct Outputs {
  std::vector<Real> cell_energy, force, K;
  CellStatus status;
};

template <class E, class M, class Form, assembly::Scatter mode, class Policy>
Outputs run_pass(const Policy& policy, CellPass<Space::Host> pass, const Assembler& assembler,
                 const std::vector<Real>& x) {
  Outputs out;
  out.cell_energy.assign(static_cast<size_t>(pass.num_cells), 0.0);
  out.force.assign(x.size(), 0.0);
  out.K.assign(static_cast<size_t>(assembler.pattern().nnz()), 0.0);
  pass.x = {x.data(), x.size()};
  pass.cell_energy = {out.cell_energy.data(), out.cell_energy.size()};
  pass.force = {out.force.data(), out.force.size()};
  pass.K = {out.K.data(), out.K.size()};
  pass.status = {&out.status, 1};
  assembly::assemble_cells<E, M, Form, mode>(policy, pass);
  return out;
}

template <class E, class M, class Form>
void expect_policies_agree(CellType type, const M& law, AssemblyOptions options) {
  SCOPED_TRACE(std::string(cell_type_name(type)) + " " + material_name(Material(law)));
  const Mesh mesh = testing::small_box(type);
  const std::vector<Real> x = testing::deformed_state(mesh, 0.1, 0.6, 3);
  options.num_threads = 2;
  options.block_size = 2;  // several colours even on a small box
  const Assembler assembler(mesh, {Material(law)}, fix_nodes(mesh, mesh.node_groups.at("xmin")), options);
  ASSERT_GT(Internals::num_colors(assembler), 1);
  Real energy = 0;
  std::vector<Real> force, K;
  assembler.assemble(x, &energy, &force, &K);

  HostCells<E, M> cells(assembler, {law});
  const Outputs serial = run_pass<E, M, Form, assembly::Scatter::Coloured>(exec::Serial{}, cells.pass, assembler, x);
  const Outputs atomic = run_pass<E, M, Form, assembly::Scatter::Atomic>(exec::HostCells{2}, cells.pass, assembler, x);
  // Prefetching K's lines ahead (on for large K; these small meshes would not) only hints the
  // caches: the same numbers, bit for bit.
  CellPass<Space::Host> prefetching = cells.pass;
  prefetching.prefetch_cells = assembly::kPrefetchCells;
  const Outputs prefetched =
      run_pass<E, M, Form, assembly::Scatter::Coloured>(exec::Serial{}, prefetching, assembler, x);
  EXPECT_EQ(prefetched.force, serial.force);
  EXPECT_EQ(prefetched.K, serial.K);
  for (const Outputs* o : {&serial, &atomic}) {
    EXPECT_EQ(o->status.first_invalid_cell, assembly::kNoIndex);
    EXPECT_EQ(o->status.first_nonfinite_dof, assembly::kNoIndex);
    EXPECT_LE(relative_difference(o->force, force), 1e-13);
    EXPECT_LE(relative_difference(o->K, K), 1e-13);
    Real sum = 0;
    for (Real e : o->cell_energy) sum += e;
    EXPECT_NEAR(sum, energy, 1e-13 * std::abs(energy));
  }
  EXPECT_GT(*std::max_element(force.begin(), force.end()), 0.0);

  // Two designs in one pass (the batch layout: x, materials and outputs per design) equal each
  // design alone; the second design is stiffer and displaced further.
  const M stiffer = M::from_young_poisson(2e3, 0.35);
  std::vector<Real> x2 = testing::deformed_state(mesh, 0.15, -0.4, 5);
  HostCells<E, M> batch(assembler, {law, stiffer});
  std::vector<Real> x_all = x;
  x_all.insert(x_all.end(), x2.begin(), x2.end());
  CellPass<Space::Host> pass = batch.pass;
  pass.num_designs = 2;
  pass.material_stride = 0;
  pass.material_design_stride = 1;
  pass.x_stride = x.size();
  pass.force_stride = x.size();
  pass.K_stride = K.size();
  std::vector<Real> f_all(2 * x.size(), 0.0), K_all(2 * K.size(), 0.0),
      e_all(2 * static_cast<size_t>(mesh.num_cells()));
  CellStatus status[2];
  pass.x = {x_all.data(), x_all.size()};
  pass.force = {f_all.data(), f_all.size()};
  pass.K = {K_all.data(), K_all.size()};
  pass.cell_energy = {e_all.data(), e_all.size()};
  pass.status = {status, 2};
  assembly::assemble_cells<E, M, Form, assembly::Scatter::Atomic>(exec::HostCells{2}, pass);
  const Assembler second(mesh, {Material(stiffer)}, fix_nodes(mesh, mesh.node_groups.at("xmin")), options);
  std::vector<Real> force2, K2;
  second.assemble(x2, nullptr, &force2, &K2);
  EXPECT_LE(relative_difference(std::vector<Real>(f_all.begin(), f_all.begin() + static_cast<long>(x.size())), force),
            1e-13);
  EXPECT_LE(relative_difference(std::vector<Real>(f_all.begin() + static_cast<long>(x.size()), f_all.end()), force2),
            1e-13);
  EXPECT_LE(relative_difference(std::vector<Real>(K_all.begin() + static_cast<long>(K.size()), K_all.end()), K2),
            1e-13);
}

/// expect_policies_agree for the corotational cases' law: linear elastic, E = 1e3, nu = 0.3.
template <class E, class Form>
void expect_linear_policies_agree(CellType type, const AssemblyOptions& options) {
  expect_policies_agree<E, fem::LinearElastic, Form>(type, fem::LinearElastic::from_young_poisson(1e3, 0.3), options);
}

TEST(CellKernel, EveryPolicyAndScatterGiveTheAssemblersNumbers) {
  AssemblyOptions corotational;
  corotational.formulation = Formulation::Corotational;
  corotational.corotational_tangent = fem::CorotationalTangent::Rotated;
  // The Assembler streams the rotated tangent block by block (RotatedCorotational); the
  // element-matrix kernel (Corotational) must give the same numbers.
  expect_linear_policies_agree<fem::Tet4, assembly::RotatedCorotational>(CellType::Tet4, corotational);
  expect_linear_policies_agree<fem::Tet4, assembly::Corotational>(CellType::Tet4, corotational);
  expect_linear_policies_agree<fem::Hex8, assembly::RotatedCorotational>(CellType::Hex8, corotational);
  corotational.corotational_tangent = fem::CorotationalTangent::Consistent;
  expect_linear_policies_agree<fem::Tet4, assembly::ConsistentCorotational>(CellType::Tet4, corotational);
  expect_linear_policies_agree<fem::Tet4, assembly::Corotational>(CellType::Tet4, corotational);
  expect_linear_policies_agree<fem::Hex8, assembly::ConsistentCorotational>(CellType::Hex8, corotational);
  AssemblyOptions hyperelastic;
  hyperelastic.formulation = Formulation::Hyperelastic;
  expect_policies_agree<fem::Hex8, fem::NeoHookean, assembly::TotalLagrangian>(
      CellType::Hex8, fem::NeoHookean::from_young_poisson(1e3, 0.3), hyperelastic);
  expect_policies_agree<fem::Quad4, fem::NeoHookean, assembly::TotalLagrangian>(
      CellType::Quad4, fem::NeoHookean::from_young_poisson(1e3, 0.3), hyperelastic);
}

TEST(CellKernel, TheDispatchTableReachesEveryLawAndTheRightFormulation) {
  std::vector<size_t> reached;
  using fem::CorotationalTangent;
  for (size_t law = 0; law < std::variant_size<Material>::value; ++law)
    for (Formulation f : {Formulation::LinearSmallStrain, Formulation::Corotational, Formulation::Hyperelastic})
      for (CorotationalTangent tangent : {CorotationalTangent::Rotated, CorotationalTangent::Consistent})
        for (bool project_spd : {false, true})
          assembly::dispatch_kernel(law, f, tangent, project_spd, [&](auto law_tag, auto form_tag) {
            using M = typename decltype(law_tag)::type;
            using Form = typename decltype(form_tag)::type;
            EXPECT_EQ(Material(M{}).index(), law);
            const bool corotational = assembly::is_corotational<Form>;
            const bool rotated = std::is_same<Form, assembly::RotatedCorotational>::value;
            const bool consistent = std::is_same<Form, assembly::ConsistentCorotational>::value;
            EXPECT_EQ(corotational, f == Formulation::Corotational && law == 0) << law;
            EXPECT_EQ(rotated, corotational && tangent == CorotationalTangent::Rotated && !project_spd) << law;
            EXPECT_EQ(consistent, corotational && tangent == CorotationalTangent::Consistent && !project_spd) << law;
            reached.push_back(law);
          });
  EXPECT_EQ(reached.size(), 12 * std::variant_size<Material>::value);
  EXPECT_THROW(assembly::dispatch_law(std::variant_size<Material>::value, [](auto) {}), Error);
}

TEST(CellKernel, TheInvertedCellRuleIsTheFormulations) {
  using assembly::admissible;
  EXPECT_TRUE((admissible<fem::NeoHookean, assembly::TotalLagrangian>(0.5, fem::RotationMethod::Polar)));
  EXPECT_FALSE((admissible<fem::NeoHookean, assembly::TotalLagrangian>(-0.5, fem::RotationMethod::Polar)));
  EXPECT_FALSE((admissible<fem::NeoHookean, assembly::TotalLagrangian>(0.0, fem::RotationMethod::Polar)));
  EXPECT_TRUE((admissible<fem::StableNeoHookean, assembly::TotalLagrangian>(-0.5, fem::RotationMethod::Polar)));
  EXPECT_TRUE((admissible<fem::LinearElastic, assembly::TotalLagrangian>(-0.5, fem::RotationMethod::QR)));
  EXPECT_TRUE((admissible<fem::LinearElastic, assembly::Corotational>(-0.5, fem::RotationMethod::Polar)));
  EXPECT_FALSE((admissible<fem::LinearElastic, assembly::Corotational>(-0.5, fem::RotationMethod::QR)));
}

TEST(CellKernel, NonFiniteGatherIsRecordedNotThrown) {
  const Mesh mesh = testing::small_box(CellType::Tet4);
  const Assembler assembler(mesh, {Material(fem::NeoHookean::from_young_poisson(1e3, 0.3))}, {},
                            AssemblyOptions{Formulation::Hyperelastic});
  HostCells<fem::Tet4, fem::NeoHookean> cells(assembler, {fem::NeoHookean::from_young_poisson(1e3, 0.3)});
  std::vector<Real> x = mesh.rest_positions();
  x[7] = std::nan("");
  x[40] = INFINITY;
  const Outputs out = run_pass<fem::Tet4, fem::NeoHookean, assembly::TotalLagrangian, assembly::Scatter::Atomic>(
      exec::HostCells{2}, cells.pass, assembler, x);
  EXPECT_EQ(out.status.first_nonfinite_dof, 7);
}

}  // namespace
}  // namespace softik
