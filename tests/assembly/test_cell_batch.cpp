// Host cell batches (host/assembly/cell_batch.hpp): the rotated corotational Tet4 and the neo-Hookean
// Tet4 (fem::NeoHookean, and the decoupled Ibar1 laws fem::NeoHookeanD1, fem::Yeoh and
// fem::ArrudaBoyce, each cell with its own constants and volumetric term), two cells per SSE2 register or four per AVX2
// register (where the CPU has it), must give the one-cell kernel's numbers (assemble_cell) to round-off on every
// output, including the lanes the polar iteration cannot take (inverted cells: the SVD route, lane by lane), lanes far
// from their rotation (the scaled Newton step beside plain ones), inverted neo-Hookean cells (recorded, adding nothing,
// next to upright ones), a different material per cell, blocks whose length is not a multiple of the lanes, and a
// non-finite position (recorded, as one cell at a time records it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "host/assembly/assembler_internals.hpp"
#include "host/assembly/cell_batch.hpp"
#include "softik/assembly.hpp"
#include "softik/fem/sym_eigen3.hpp"
#include "tests/assembly_cases.hpp"

namespace softik {

using Internals = assembly::AssemblerInternals;
namespace {

using assembly::CellPass;
using assembly::CellStatus;
using exec::Space;
using Law = fem::LinearElastic;
using NeoHookean = fem::NeoHookean;
using NeoHookeanD1 = fem::NeoHookeanD1;
using Yeoh = fem::Yeoh;
using ArrudaBoyce = fem::ArrudaBoyce;

using testing::relative_difference;

struct BatchCase {
  Mesh mesh;
  Assembler assembler;
  std::vector<Real> rest;
  std::vector<Law> laws;
  std::vector<NeoHookean> neo_hookean_laws;
  std::vector<NeoHookeanD1> d1_laws;
  std::vector<Yeoh> yeoh_laws;
  std::vector<ArrudaBoyce> arruda_boyce_laws;
  std::vector<int> color_ptr, color_blocks;
  exec::HostColours colours;

  explicit BatchCase(int block_size)
      : mesh(make_box(3, CellType::Tet4,
                      [] {
                        BoxSpec spec;
                        spec.size = {1.0, 0.8, 0.6};
                        spec.cells = {4, 3, 3};
                        return spec;
                      }())),
        assembler(mesh, {Material(Law::from_young_poisson(1e3, 0.3))}, fix_nodes(mesh, mesh.node_groups.at("xmin")),
                  [] {
                    AssemblyOptions o;
                    o.formulation = Formulation::Corotational;
                    return o;
                  }()) {
    const size_t words = static_cast<size_t>(assembly::rest_words<fem::Tet4>());
    rest.resize(static_cast<size_t>(mesh.num_cells()) * words);
    for (int c = 0; c < mesh.num_cells(); ++c) assembly::pack_rest<fem::Tet4>(mesh, c, rest.data() + c * words, 1);
    for (int c = 0; c < mesh.num_cells(); ++c)  // a law per cell: the lanes carry their own lambda and mu
    {
      laws.push_back(Law::from_young_poisson(1e3 * (1 + 0.1 * (c % 7)), 0.2 + 0.04 * (c % 5)));
      neo_hookean_laws.push_back(NeoHookean::from_young_poisson(1e3 * (1 + 0.1 * (c % 5)), 0.2 + 0.04 * (c % 7)));
      d1_laws.push_back(NeoHookeanD1::from_young_poisson(1e3 * (1 + 0.1 * (c % 3)), 0.2 + 0.04 * (c % 6)));
      const auto volumetric = static_cast<fem::Volumetric>(c % 3);  // a batch's lanes differ in U(J)
      yeoh_laws.push_back(Yeoh::from_constants(150 * (1 + 0.1 * (c % 4)), -10 + c % 3, 2, 1e-3, volumetric));
      arruda_boyce_laws.push_back(
          ArrudaBoyce::from_young_poisson(1e3 * (1 + 0.1 * (c % 5)), 0.3, 2 + 0.2 * (c % 3), volumetric));
    }
    // One block per colour, run on one thread: any block size, no two blocks at once.
    const int blocks = (mesh.num_cells() + block_size - 1) / block_size;
    color_blocks.resize(static_cast<size_t>(blocks));
    std::iota(color_blocks.begin(), color_blocks.end(), 0);
    color_ptr.resize(static_cast<size_t>(blocks) + 1);
    std::iota(color_ptr.begin(), color_ptr.end(), 0);
    colours = {color_ptr.data(), color_blocks.data(), blocks, block_size, 1};
  }

  /// The laws of type M, one per cell.
  template <class M>
  const std::vector<M>& laws_of() const {
    if constexpr (std::is_same<M, NeoHookean>::value)
      return neo_hookean_laws;
    else if constexpr (std::is_same<M, NeoHookeanD1>::value)
      return d1_laws;
    else if constexpr (std::is_same<M, Yeoh>::value)
      return yeoh_laws;
    else if constexpr (std::is_same<M, ArrudaBoyce>::value)
      return arruda_boyce_laws;
    else
      return laws;
  }

  /// The pass of law M (the slot map and pattern do not depend on the law).
  template <class M>
  CellPass<Space::Host> pass() const {
    CellPass<Space::Host> p;
    p.num_cells = mesh.num_cells();
    p.nodes = {{mesh.cells.data(), mesh.cells.size()}, exec::Layout::records(4)};
    p.rest = {{rest.data(), rest.size()},
              exec::Layout::records(static_cast<size_t>(assembly::rest_words<fem::Tet4>()))};
    p.block_slots = {{Internals::block_slots(assembler).data(), Internals::block_slots(assembler).size()},
                     exec::Layout::records(16)};
    p.node_rows = {Internals::node_rows(assembler).data(), Internals::node_rows(assembler).size()};
    const std::vector<M>& of_m = laws_of<M>();
    p.materials = {reinterpret_cast<const unsigned char*>(of_m.data()), of_m.size() * sizeof(M)};
    p.material_stride = 1;
    return p;
  }
};

bool cpu_avx2_fma() {
#if defined(__x86_64__) && defined(__GNUC__)
  return assembly::cpu_has_avx2_fma();
#else
  return false;
#endif
}

struct BatchOutputs {
  std::vector<Real> cell_energy, force, K;
  CellStatus status;
};

/// How run_tet4_pass goes through the cells: one at a time, in the assembler's batches (the
/// widest the CPU has first), or in batches of one width only (the leftover cells one at a time).
enum class BatchWidth { One, Dispatched, Two, FourAvx2 };

/// One pass of law M in formulation Form with the outputs `which` asks for ("e", "f", "K" in any
/// combination).
template <class M = Law, class Form = assembly::RotatedCorotational>
BatchOutputs run_tet4_pass(const BatchCase& bc, const std::vector<Real>& x, const std::string& which,
                           BatchWidth lanes) {
  BatchOutputs out;
  CellPass<Space::Host> p = bc.pass<M>();
  p.x = {x.data(), x.size()};
  p.status = {&out.status, 1};
  if (which.find('e') != std::string::npos) {
    out.cell_energy.assign(static_cast<size_t>(p.num_cells), 0.0);
    p.cell_energy = {out.cell_energy.data(), out.cell_energy.size()};
  }
  if (which.find('f') != std::string::npos) {
    out.force.assign(x.size(), 0.0);
    p.force = {out.force.data(), out.force.size()};
  }
  if (which.find('K') != std::string::npos) {
    out.K.assign(static_cast<size_t>(bc.assembler.pattern().nnz()), 0.0);
    p.K = {out.K.data(), out.K.size()};
  }
  constexpr auto coloured = assembly::Scatter::Coloured;
  int c = 0;
  switch (lanes) {
    case BatchWidth::One:
      break;
    case BatchWidth::Dispatched:
      assembly::assemble_cell_blocks<fem::Tet4, M, Form>(bc.colours, p);
      return out;
    case BatchWidth::Two:
      for (; c + 2 <= p.num_cells; c += 2) assembly::assemble_tet4_batch<2, M, Form, coloured>(p, c);
      break;
    case BatchWidth::FourAvx2:
#if defined(__x86_64__) && defined(__GNUC__)
      c = assembly::assemble_tet4_batches_avx2<M, Form, coloured>(p, 0, p.num_cells);
#endif
      break;
  }
  for (; c < p.num_cells; ++c) assembly::assemble_cell<fem::Tet4, M, Form, coloured>(p, c);
  return out;
}

/// The deformed box: rotated and strained, squeezed to 0.25 of its height beyond x = 0.6 (cells far
/// from their rotation: the scaled Newton step), with the first node of cell 20 and of cell 57
/// pushed through its opposite face (inverted cells and their neighbours: the SVD route).
std::vector<Real> hard_state(const Mesh& mesh) {
  std::vector<Real> x = testing::deformed_state(mesh, 0.1, 0.7, 11);
  for (int n = 0; n < mesh.num_nodes(); ++n)
    if (mesh.X[3 * static_cast<size_t>(n)] > 0.6) x[3 * static_cast<size_t>(n) + 2] *= 0.25;
  for (int c : {20, 57}) {
    const int* v = mesh.cell(c);
    Eigen::Vector3d p[4];
    for (int a = 0; a < 4; ++a) p[a] = Eigen::Map<const Eigen::Vector3d>(&x[3 * static_cast<size_t>(v[a])]);
    const Eigen::Vector3d normal = (p[2] - p[1]).cross(p[3] - p[1]).normalized();
    const Eigen::Vector3d mirrored = p[0] - 2 * normal.dot(p[0] - p[1]) * normal;
    for (int i = 0; i < 3; ++i) x[3 * static_cast<size_t>(v[0]) + i] = mirrored[i];
  }
  return x;
}

TEST(CellBatch, Tet4BatchesGiveTheOneCellNumbers) {
  for (int block_size : {2, 7, 64}) {
    SCOPED_TRACE("block size " + std::to_string(block_size));
    const BatchCase bc(block_size);
    const std::vector<Real> x = hard_state(bc.mesh);
    // The state holds what the lanes must handle: inverted cells next to upright ones in a
    // batch, and cells whose stretch sends the polar iteration to its scaled step.
    int inverted = 0, mixed_batches = 0, far = 0;
    for (int c = 0; c + 1 < bc.mesh.num_cells(); c += 2) {
      bool up[2];
      for (int l = 0; l < 2; ++l) {
        const int* v = bc.mesh.cell(c + l);
        Eigen::Matrix3d E, E0;  // edge matrices now and at rest: F = E E0^-1
        for (int a = 1; a < 4; ++a)
          for (int i = 0; i < 3; ++i) {
            E(i, a - 1) = x[3 * static_cast<size_t>(v[a]) + i] - x[3 * static_cast<size_t>(v[0]) + i];
            E0(i, a - 1) = bc.mesh.X[3 * static_cast<size_t>(v[a]) + i] - bc.mesh.X[3 * static_cast<size_t>(v[0]) + i];
          }
        const fem::Mat3 F = E * E0.inverse();
        up[l] = F.determinant() > 0;
        inverted += up[l] ? 0 : 1;
        fem::Vec3 w;  // squared singular values, ascending
        fem::Mat3 V;
        fem::sym_eigen3(F.transpose() * F, w, V);
        far += w[0] < 0.5 * 0.5 ? 1 : 0;  // a stretch below 0.5: |X - X^-T| > |X|, the scaled step
      }
      mixed_batches += up[0] != up[1] ? 1 : 0;
    }
    EXPECT_GT(inverted, 0);
    EXPECT_GT(mixed_batches, 0);
    EXPECT_GT(far, 0);

    const BatchOutputs one = run_tet4_pass(bc, x, "efK", BatchWidth::One);
    EXPECT_GT(*std::max_element(one.K.begin(), one.K.end()), 0.0);
    std::vector<BatchWidth> widths = {BatchWidth::Dispatched, BatchWidth::Two};
    if (cpu_avx2_fma()) widths.push_back(BatchWidth::FourAvx2);
    for (BatchWidth width : widths) {
      SCOPED_TRACE("lanes " + std::to_string(static_cast<int>(width)));
      const BatchOutputs lanes = run_tet4_pass(bc, x, "efK", width);
      EXPECT_LE(relative_difference(lanes.K, one.K), 1e-13);
      EXPECT_LE(relative_difference(lanes.force, one.force), 1e-13);
      EXPECT_LE(relative_difference(lanes.cell_energy, one.cell_energy), 1e-13);
      EXPECT_EQ(lanes.status.first_invalid_cell, assembly::kNoIndex);  // the polar rotation takes any cell
      EXPECT_EQ(lanes.status.first_nonfinite_dof, assembly::kNoIndex);
      // Each output alone is the same as with the others.
      EXPECT_EQ(run_tet4_pass(bc, x, "e", width).cell_energy, lanes.cell_energy);
      EXPECT_EQ(run_tet4_pass(bc, x, "f", width).force, lanes.force);
      EXPECT_EQ(run_tet4_pass(bc, x, "K", width).K, lanes.K);
    }
  }
}

/// The total-Lagrangian Tet4 of law M in batches against one cell at a time.
template <class M>
void expect_hyperelastic_batches_give_the_one_cell_numbers() {
  using Form = assembly::TotalLagrangian;
  for (int block_size : {2, 7, 64}) {
    SCOPED_TRACE("block size " + std::to_string(block_size));
    const BatchCase bc(block_size);
    const auto law = [&](const std::vector<Real>& x, const std::string& which, BatchWidth width) {
      return run_tet4_pass<M, Form>(bc, x, which, width);
    };
    const std::vector<Real> x = hard_state(bc.mesh);  // cells 20 and 57 inverted: log J undefined
    const BatchOutputs one = run_tet4_pass<M, Form>(bc, x, "efK", BatchWidth::One);
    ASSERT_NE(one.status.first_invalid_cell, assembly::kNoIndex);
    EXPECT_GT(*std::max_element(one.K.begin(), one.K.end()), 0.0);
    std::vector<BatchWidth> widths = {BatchWidth::Dispatched, BatchWidth::Two};
    if (cpu_avx2_fma()) widths.push_back(BatchWidth::FourAvx2);
    for (BatchWidth width : widths) {
      SCOPED_TRACE("lanes " + std::to_string(static_cast<int>(width)));
      const BatchOutputs lanes = run_tet4_pass<M, Form>(bc, x, "efK", width);
      EXPECT_LE(relative_difference(lanes.K, one.K), 1e-13);
      EXPECT_LE(relative_difference(lanes.force, one.force), 1e-13);
      EXPECT_LE(relative_difference(lanes.cell_energy, one.cell_energy), 1e-13);
      EXPECT_EQ(lanes.cell_energy[20], 0.0);  // the inverted cells add nothing
      EXPECT_EQ(lanes.cell_energy[57], 0.0);
      EXPECT_EQ(lanes.status.first_invalid_cell, one.status.first_invalid_cell);
      EXPECT_EQ(lanes.status.first_nonfinite_dof, assembly::kNoIndex);
      EXPECT_EQ(law(x, "e", width).cell_energy, lanes.cell_energy);
      EXPECT_EQ(law(x, "f", width).force, lanes.force);
      EXPECT_EQ(law(x, "K", width).K, lanes.K);
    }
    // Upright everywhere, the same numbers, nothing recorded.
    const std::vector<Real> upright = testing::deformed_state(bc.mesh, 0.1, 0.7, 5);
    const BatchOutputs one_upright = run_tet4_pass<M, Form>(bc, upright, "efK", BatchWidth::One);
    const BatchOutputs lanes_upright = run_tet4_pass<M, Form>(bc, upright, "efK", BatchWidth::Dispatched);
    EXPECT_EQ(lanes_upright.status.first_invalid_cell, assembly::kNoIndex);
    EXPECT_LE(relative_difference(lanes_upright.K, one_upright.K), 1e-13);
    EXPECT_LE(relative_difference(lanes_upright.force, one_upright.force), 1e-13);
  }
}

TEST(CellBatch, NeoHookeanTet4BatchesGiveTheOneCellNumbers) {
  expect_hyperelastic_batches_give_the_one_cell_numbers<NeoHookean>();
}

TEST(CellBatch, DecoupledNeoHookeanTet4BatchesGiveTheOneCellNumbers) {
  expect_hyperelastic_batches_give_the_one_cell_numbers<NeoHookeanD1>();
}

TEST(CellBatch, YeohTet4BatchesGiveTheOneCellNumbers) { expect_hyperelastic_batches_give_the_one_cell_numbers<Yeoh>(); }

TEST(CellBatch, ArrudaBoyceTet4BatchesGiveTheOneCellNumbers) {
  expect_hyperelastic_batches_give_the_one_cell_numbers<ArrudaBoyce>();
}

TEST(CellBatch, ANonFinitePositionIsRecordedAsOneCellRecordsIt) {
  const BatchCase bc(7);
  std::vector<Real> x = testing::deformed_state(bc.mesh, 0.1, 0.3, 4);
  x[3 * static_cast<size_t>(bc.mesh.cell(9)[2]) + 1] = std::nan("");
  x[3 * static_cast<size_t>(bc.mesh.cell(30)[0])] = INFINITY;
  const BatchOutputs one = run_tet4_pass(bc, x, "fK", BatchWidth::One);
  EXPECT_NE(one.status.first_nonfinite_dof, assembly::kNoIndex);
  const BatchOutputs nh_one = run_tet4_pass<NeoHookean, assembly::TotalLagrangian>(bc, x, "fK", BatchWidth::One);
  EXPECT_EQ(nh_one.status.first_nonfinite_dof, one.status.first_nonfinite_dof);
  EXPECT_EQ(nh_one.status.first_invalid_cell, assembly::kNoIndex);  // a NaN det F is no inversion
  std::vector<BatchWidth> widths = {BatchWidth::Dispatched, BatchWidth::Two};
  if (cpu_avx2_fma()) widths.push_back(BatchWidth::FourAvx2);
  for (BatchWidth width : widths) {
    EXPECT_EQ(run_tet4_pass(bc, x, "fK", width).status.first_nonfinite_dof, one.status.first_nonfinite_dof);
    const CellStatus nh = run_tet4_pass<NeoHookean, assembly::TotalLagrangian>(bc, x, "fK", width).status;
    EXPECT_EQ(nh.first_nonfinite_dof, nh_one.status.first_nonfinite_dof);
    EXPECT_EQ(nh.first_invalid_cell, nh_one.status.first_invalid_cell);
    const CellStatus d1 = run_tet4_pass<NeoHookeanD1, assembly::TotalLagrangian>(bc, x, "fK", width).status;
    EXPECT_EQ(d1.first_nonfinite_dof, nh_one.status.first_nonfinite_dof);
    EXPECT_EQ(d1.first_invalid_cell, assembly::kNoIndex);
  }
}

TEST(CellBatch, ThePolarIterationOnLanesIsTheOneCellIteration) {
  // Two lanes through fem::polar_rotation_newton give, lane by lane, the rotation that one cell
  // gets from fem::polar_decomposition: a mild stretch next to a severe one (the lanes stop
  // at different steps) and an upright cell next to an inverted one (the SVD's lane).
  const fem::Mat3 mild = (fem::Mat3() << 1.05, 0.02, 0.0, -0.01, 0.97, 0.03, 0.0, 0.01, 1.02).finished();
  const fem::Mat3 severe = (fem::Mat3() << 3.0, 0.5, 0.1, 0.0, 0.08, 0.2, 0.3, 0.0, 0.9).finished();
  const fem::Mat3 inverted = (fem::Mat3() << -1.0, 0.1, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0).finished();
  for (const auto& pair : {std::make_pair(mild, severe), std::make_pair(severe, inverted)}) {
    fem::TMat<assembly::Lanes<2>, 3, 3> X;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        X(i, j).set(0, pair.first(i, j));
        X(i, j).set(1, pair.second(i, j));
      }
    const auto newton = fem::polar_rotation_newton(X);
    const fem::Mat3 F[2] = {pair.first, pair.second};
    for (int l = 0; l < 2; ++l) {
      EXPECT_EQ(newton[l], F[l].determinant() > 0);
      if (!newton[l]) continue;
      fem::Mat3 R, S;
      fem::polar_decomposition(F[l], R, S);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) EXPECT_NEAR(X(i, j)[l], R(i, j), 1e-15) << "lane " << l;
      EXPECT_NEAR((R.transpose() * R - fem::Mat3::Identity()).norm(), 0.0, 1e-14);
    }
  }
}

}  // namespace
}  // namespace softik
