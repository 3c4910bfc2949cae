// The gathered corotational stiffness (host/assembly/block_gather.hpp), run on the host: the two
// passes give the scatter kernel's force, energy and K (the Assembler's) to round-off, on Tet4
// and Tri3, with one law and one law per cell, with fully and partly fixed nodes; every entry of
// K is written (K starts as NaN); the table holds each node block of the pattern once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "host/assembly/assembler_internals.hpp"
#include "host/assembly/block_gather.hpp"
#include "host/assembly/rest_words.hpp"
#include "softik/assembly.hpp"
#include "softik/mesh_generator.hpp"

namespace softik {

using Internals = assembly::AssemblerInternals;
namespace {

Real max_relative(const std::vector<Real>& a, const std::vector<Real>& b) {
  Real diff = 0, scale = 0;
  for (size_t k = 0; k < b.size(); ++k) {
    diff = std::max(diff, std::abs(a[k] - b[k]));
    scale = std::max(scale, std::abs(b[k]));
  }
  return std::isnan(diff) ? std::numeric_limits<Real>::infinity() : diff / scale;
}

/// Rest positions rotated by a finite rotation, stretched and perturbed node by node.
std::vector<Real> deformed(const Mesh& mesh) {
  std::vector<Real> x = mesh.rest_positions();
  const int d = mesh.dim;
  for (int v = 0; v < mesh.num_nodes(); ++v) {
    Real* p = x.data() + static_cast<size_t>(v) * d;
    const Real X = p[0], Y = p[1];
    p[0] = std::cos(0.7) * 1.1 * X - std::sin(0.7) * Y + 0.01 * std::sin(3.1 * v);
    p[1] = std::sin(0.7) * 1.1 * X + std::cos(0.7) * Y + 0.01 * std::cos(1.7 * v);
    if (d == 3) p[2] = 0.95 * p[2] + 0.01 * std::sin(0.9 * v);
  }
  return x;
}

template <class E>
void expect_gather_equals_scatter(const Mesh& mesh, bool per_cell_law) {
  constexpr int d = E::dim, n = E::num_nodes;
  std::vector<fem::LinearElastic> laws;
  std::vector<Material> materials;
  for (int c = 0; c < (per_cell_law ? mesh.num_cells() : 1); ++c) {
    laws.push_back(fem::LinearElastic::from_young_poisson(1e5 * (1 + 0.3 * std::sin(c)), 0.3 + 0.15 * std::cos(c)));
    materials.push_back(laws.back());
  }
  // Nodes at x = 0 fixed; node 1's second component only (a partly fixed node).
  std::vector<int> clamped;
  const std::vector<Real> X = mesh.rest_positions();
  for (int v = 0; v < mesh.num_nodes(); ++v)
    if (X[static_cast<size_t>(v) * d] == 0) clamped.push_back(v);
  std::vector<char> fixed = fix_nodes(mesh, clamped);
  int partial = -1;
  for (int v = 0; v < mesh.num_nodes() && partial < 0; ++v)
    if (!fixed[static_cast<size_t>(v) * d]) partial = v;
  fixed[static_cast<size_t>(partial) * d + 1] = 1;
  AssemblyOptions options;
  options.formulation = Formulation::Corotational;
  options.corotational_tangent = fem::CorotationalTangent::Rotated;
  const Assembler assembler(mesh, materials, fixed, options);
  const std::vector<Real> x = deformed(mesh);
  Real energy = 0;
  std::vector<Real> force, K;
  assembler.assemble(x, &energy, &force, &K);

  // The same inputs as host tables (records) for the two passes.
  const int num_cells = mesh.num_cells();
  const size_t N = static_cast<size_t>(num_cells);
  std::vector<int> nodes(N * n);
  for (int c = 0; c < num_cells; ++c)
    std::copy(mesh.cell(c), mesh.cell(c) + n, nodes.begin() + static_cast<long>(c) * n);
  constexpr int words = assembly::rest_words<E>();
  std::vector<Real> rest(N * words);
  for (int c = 0; c < num_cells; ++c) assembly::pack_rest<E>(mesh, c, rest.data() + static_cast<size_t>(c) * words, 1);
  assembly::CellStatus status;
  std::vector<Real> cell_energy(N), gathered_force(x.size(), 0.0);
  std::vector<Real> gathered_K(K.size(), std::numeric_limits<Real>::quiet_NaN());
  assembly::CellPass<exec::Space::Host> pass;
  pass.num_cells = num_cells;
  pass.nodes = {{nodes.data(), nodes.size()}, exec::Layout::records(n)};
  pass.rest = {{rest.data(), rest.size()}, exec::Layout::records(words)};
  pass.block_slots = {{Internals::block_slots(assembler).data(), Internals::block_slots(assembler).size()},
                      exec::Layout::records(n * n)};
  pass.node_rows = {Internals::node_rows(assembler).data(), Internals::node_rows(assembler).size()};
  pass.materials = {reinterpret_cast<const unsigned char*>(laws.data()), laws.size() * sizeof(fem::LinearElastic)};
  pass.material_stride = per_cell_law ? 1 : 0;
  pass.x = {x.data(), x.size()};
  pass.cell_energy = {cell_energy.data(), N};
  pass.force = {gathered_force.data(), gathered_force.size()};
  pass.K = {gathered_K.data(), gathered_K.size()};
  pass.status = {&status, 1};

  const assembly::BlockGatherTable table =
      assembly::build_block_gather(mesh, Internals::block_slots(assembler), Internals::node_rows(assembler));
  std::vector<Real> frames(N * assembly::frame_words<E>());
  assembly::BlockGatherPass<exec::Space::Host> gather;
  gather.num_blocks = table.num_blocks();
  gather.ptr = {table.ptr.data(), table.ptr.size()};
  gather.pairs = {table.pairs.data(), table.pairs.size()};
  gather.base = {table.base.data(), table.base.size()};
  gather.row_a = {table.row_a.data(), table.row_a.size()};
  gather.row_b = {table.row_b.data(), table.row_b.size()};
  gather.frames = {{frames.data(), frames.size()}, exec::Layout::records(assembly::frame_words<E>())};
  assembly::assemble_gathered<E, assembly::Scatter::Coloured>(exec::Serial{}, exec::Serial{}, pass, gather);

  EXPECT_EQ(status.first_invalid_cell, assembly::kNoIndex);
  EXPECT_LE(max_relative(gathered_K, K), 1e-13) << "K (NaN where an entry was not written)";
  EXPECT_LE(max_relative(gathered_force, force), 1e-13);
  Real gathered_energy = 0;
  for (Real e : cell_energy) gathered_energy += e;
  EXPECT_NEAR(gathered_energy, energy, 1e-13 * std::abs(energy));
  EXPECT_GT(energy, 0);

  // The table: one block per distinct base, each cell block (base >= 0) in exactly one block.
  std::set<int> bases;
  size_t cell_blocks = 0;
  for (int s : Internals::block_slots(assembler))
    if (s >= 0) {
      bases.insert(s);
      ++cell_blocks;
    }
  EXPECT_EQ(static_cast<size_t>(table.num_blocks()), bases.size());
  EXPECT_EQ(table.pairs.size(), cell_blocks);
  // Row nodes in chunks of kGatherChunkNodes; in a chunk the diagonal blocks first, then the
  // others, each group in the order of K's slots (bases ascending).
  auto is_diagonal = [](int word) { return word % (n * n) / n == word % n; };
  auto row_node = [&](int word) { return mesh.cell(word / (n * n))[word / n % n]; };
  ASSERT_GT(mesh.num_nodes(), assembly::kGatherChunkNodes) << "the mesh spans several chunks";
  int previous_chunk = -1, previous_base = -1, chunks = 0;
  bool previous_diagonal = false;
  for (int k = 0; k < table.num_blocks(); ++k) {
    const int first = table.pairs[static_cast<size_t>(table.ptr[static_cast<size_t>(k)])];
    const int chunk = row_node(first) / assembly::kGatherChunkNodes, base = table.base[static_cast<size_t>(k)];
    const bool diagonal = is_diagonal(first);
    for (int p = table.ptr[static_cast<size_t>(k)]; p < table.ptr[static_cast<size_t>(k) + 1]; ++p) {
      const int word = table.pairs[static_cast<size_t>(p)];
      EXPECT_EQ(is_diagonal(word), diagonal) << "block " << k << " pair " << p;
      EXPECT_EQ(row_node(word), row_node(first)) << "block " << k << " pair " << p << ": one row node per block";
    }
    if (chunk != previous_chunk) {
      EXPECT_GT(chunk, previous_chunk) << "block " << k << ": chunks in row order";
      EXPECT_TRUE(diagonal) << "block " << k << ": a chunk starts with its diagonal blocks";
      ++chunks;
    } else if (diagonal == previous_diagonal) {
      EXPECT_GT(base, previous_base) << "block " << k << ": a group in the order of K's slots";
    } else {
      EXPECT_FALSE(diagonal) << "block " << k << ": a chunk's diagonal blocks come before its others";
    }
    previous_chunk = chunk;
    previous_base = base;
    previous_diagonal = diagonal;
  }
  EXPECT_GE(chunks, 2);
}

TEST(BlockGather, Tet4GatherEqualsTheScatterWithOneLaw) {
  BoxSpec box;
  box.size = {0.04, 0.01, 0.01};
  box.cells = {8, 2, 3};
  expect_gather_equals_scatter<fem::Tet4>(make_box(3, CellType::Tet4, box), false);
}

TEST(BlockGather, Tet4GatherEqualsTheScatterWithALawPerCell) {
  BoxSpec box;
  box.size = {0.04, 0.01, 0.01};
  box.cells = {5, 3, 2};
  expect_gather_equals_scatter<fem::Tet4>(make_box(3, CellType::Tet4, box), true);
}

TEST(BlockGather, Tri3GatherEqualsTheScatter) {
  BoxSpec box;
  box.size = {0.04, 0.01, 1};
  box.cells = {9, 4, 1};
  expect_gather_equals_scatter<fem::Tri3>(make_box(2, CellType::Tri3, box), true);
}

}  // namespace
}  // namespace softik
