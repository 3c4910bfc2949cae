// Assembly beyond derivatives: patch tests, the free-DOF CSR pattern, determinism across thread
// counts, von Mises stress, lumped mass, heterogeneous parameters and clear errors on bad input.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>
#include <random>
#include <set>

#include "host/assembly/assembler_internals.hpp"
#include "tests/assembly_cases.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

/// Moves interior nodes randomly (by up to 20% of a cell) so that patch tests run on
/// distorted cells.
Mesh distorted_box(CellType type) {
  // Tet10: the distorted Tet4 box made quadratic, straight-sided (mid-nodes at the middle of the
  // distorted edges). Its 4-point rule has degree 2: exact for the stiffness of straight-sided
  // cells, where the patch test holds to round-off. On curved cells the integrand
  // adj(J)^T dN/dxi has degree 3 and the patch test holds only in the limit (measured: 4e-7
  // nodal error with mid-nodes moved by up to 0.0075 on this box); the curved Lame walls of
  // test_lame.cpp converge at order 2.6-3.0.
  if (type == CellType::Tet10) return to_tet10(distorted_box(CellType::Tet4));
  const int dim = cell_dimension(type);
  BoxSpec spec;
  spec.size = {1.0, 1.0, 1.0};
  spec.cells = {4, 4, 4};
  if (dim < 3) spec.cells = {6, 6, 1};
  Mesh mesh = make_box(dim, type, spec);
  std::vector<char> boundary(static_cast<size_t>(mesh.num_nodes()), 0);
  for (const auto& [name, nodes] : mesh.node_groups)
    for (int n : nodes) boundary[static_cast<size_t>(n)] = 1;
  std::mt19937 rng(3);
  std::uniform_real_distribution<Real> u(-0.2, 0.2);
  const Real h = 1.0 / spec.cells[0];
  for (int n = 0; n < mesh.num_nodes(); ++n)
    if (!boundary[static_cast<size_t>(n)])
      for (int i = 0; i < dim; ++i) mesh.X[3 * static_cast<size_t>(n) + i] += h * u(rng);
  return mesh;
}

std::vector<int> boundary_nodes(const Mesh& mesh) {
  std::vector<int> nodes;
  for (const auto& [name, group] : mesh.node_groups) nodes.insert(nodes.end(), group.begin(), group.end());
  return nodes;
}

// Patch test: boundary nodes follow the linear field x = (I + A) X + b; the interior, solved
// from K du = f, must reproduce the field exactly and every cell carries the same stress.
TEST(PatchTest, EveryCellTypeIsInTheListTheTestsLoopOver) {
  // A new element added to CellType but not to all_cell_types() would skip every test that
  // loops over the list (and the CPU = GPU comparison), silently.
  std::set<CellType> listed(testing::all_cell_types().begin(), testing::all_cell_types().end());
  EXPECT_EQ(listed.size(), testing::cell_type_count());
  EXPECT_EQ(testing::all_cell_types().size(), testing::cell_type_count());
}

TEST(PatchTest, LinearFieldReproducedExactly) {
  for (CellType type : testing::all_cell_types()) {
    const Mesh mesh = distorted_box(type);
    const int d = mesh.dim;
    Eigen::Matrix3d A;
    A << 0.010, 0.004, -0.002, 0.003, -0.006, 0.005, 0.001, 0.002, 0.008;
    const Eigen::Vector3d b(0.1, -0.2, 0.05);
    std::vector<Real> exact = mesh.rest_positions();
    for (int n = 0; n < mesh.num_nodes(); ++n) {
      const Eigen::Vector3d X(mesh.X[3 * n], mesh.X[3 * n + 1], mesh.X[3 * n + 2]);
      const Eigen::Vector3d y = X + A * X + b;
      for (int i = 0; i < d; ++i) exact[static_cast<size_t>(n) * d + i] = y[i];
    }
    AssemblyOptions options;
    options.formulation = Formulation::LinearSmallStrain;
    const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(200.0, 0.3)},
                              fix_nodes(mesh, boundary_nodes(mesh)), options);
    ASSERT_GT(assembler.num_free_dofs(), 0) << cell_type_name(type);
    // Start with the interior at rest, boundary on the field; one linear solve.
    std::vector<Real> x = mesh.rest_positions();
    for (size_t k = 0; k < x.size(); ++k)
      if (assembler.free_dof_index()[k] < 0) x[k] = exact[k];
    std::vector<Real> f, K;
    assembler.assemble(x, nullptr, &f, &K);
    Eigen::VectorXd rhs(assembler.num_free_dofs());
    for (size_t k = 0; k < x.size(); ++k)
      if (assembler.free_dof_index()[k] >= 0) rhs[assembler.free_dof_index()[k]] = f[k];
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<Real>> solver(Eigen::SparseMatrix<Real>(assembler.to_sparse(K)));
    ASSERT_EQ(solver.info(), Eigen::Success);
    const Eigen::VectorXd dx = solver.solve(rhs);
    Real err = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      const int row = assembler.free_dof_index()[k];
      if (row >= 0) x[k] += dx[row];
      err = std::max(err, std::abs(x[k] - exact[k]));
    }
    EXPECT_LE(err, 1e-12) << cell_type_name(type);
    // Uniform stress: every cell has the von Mises stress of the linear field.
    const std::vector<Real> vm = assembler.von_mises(x);
    for (Real v : vm) EXPECT_NEAR(v, vm[0], 1e-9 * vm[0]) << cell_type_name(type);
    // Equilibrium: no force on the interior nodes.
    const std::vector<Real> f_after = assembler.force(x);
    for (size_t k = 0; k < x.size(); ++k)
      if (assembler.free_dof_index()[k] >= 0) {
        EXPECT_LE(std::abs(f_after[k]), 1e-10) << cell_type_name(type);
      }
  }
}

// Hyperelastic patch test: a homogeneous finite deformation is an equilibrium of the interior
// (no force on interior nodes) for every law, on distorted cells.
TEST(PatchTest, HomogeneousFiniteDeformationIsEquilibrium) {
  for (CellType type : {CellType::Quad4, CellType::Tet4, CellType::Hex8})
    for (const auto& c : testing::formulation_cases()) {
      if (c.options.formulation != Formulation::Hyperelastic || !testing::dilatation_applies(type, c.options)) continue;
      const Mesh mesh = distorted_box(type);
      const int d = mesh.dim;
      Eigen::Matrix3d F;
      F << 1.3, 0.2, 0.0, -0.1, 0.9, 0.15, 0.05, 0.0, 1.1;
      std::vector<Real> x = mesh.rest_positions();
      for (int n = 0; n < mesh.num_nodes(); ++n) {
        const Eigen::Vector3d y = F * Eigen::Vector3d(mesh.X[3 * n], mesh.X[3 * n + 1], mesh.X[3 * n + 2]);
        for (int i = 0; i < d; ++i) x[static_cast<size_t>(n) * d + i] = y[i];
      }
      const Assembler assembler(mesh, {c.material}, fix_nodes(mesh, boundary_nodes(mesh)), c.options);
      const std::vector<Real> f = assembler.force(x);
      Real interior = 0, total = 0;
      for (size_t k = 0; k < x.size(); ++k) {
        total = std::max(total, std::abs(f[k]));
        if (assembler.free_dof_index()[k] >= 0) interior = std::max(interior, std::abs(f[k]));
      }
      ASSERT_GT(total, 0);
      EXPECT_LE(interior / total, 1e-11) << cell_type_name(type) << " " << c.name;
    }
}

TEST(Assembly, PatternIsSymmetricAndStiffnessSymmetric) {
  const Mesh mesh = testing::small_box(CellType::Hex8);
  const auto cases = testing::formulation_cases();
  const Assembler assembler(mesh, {cases[4].material}, {}, cases[4].options);  // neo-Hookean
  const auto K = Eigen::MatrixXd(assembler.stiffness(testing::deformed_state(mesh, 0.2, 0.4, 1)));
  EXPECT_LE((K - K.transpose()).norm() / K.norm(), 1e-14);
  const CsrPattern& p = assembler.pattern();
  for (int r = 0; r < p.rows; ++r)
    for (int k = p.row_ptr[r]; k < p.row_ptr[r + 1]; ++k) {
      const int c = p.col[static_cast<size_t>(k)];
      if (k > p.row_ptr[r]) {
        EXPECT_LT(p.col[static_cast<size_t>(k) - 1], c);  // sorted, unique
      }
      EXPECT_TRUE(std::binary_search(p.col.begin() + p.row_ptr[c], p.col.begin() + p.row_ptr[c + 1], r));
    }
}

TEST(Assembly, TheNodePairSlotMapFindsEveryEntryWithPartlyFixedNodes) {
  // Every element entry's slot (block base + row and column ranks, host/assembly/slot_map.hpp)
  // against a search of the CSR row, on every cell type, with whole nodes fixed and with single
  // components fixed (x only, y and z, z only) so that the ranks skip DOFs.
  for (const CellType type : testing::all_cell_types()) {
    SCOPED_TRACE(cell_type_name(type));
    const Mesh mesh = testing::small_box(type);
    std::vector<char> fixed = fix_nodes(mesh, mesh.node_groups.at("xmin"));
    for (int node = 0; node < mesh.num_nodes(); ++node) {
      const int pick = node % 4;  // 0: free, 1: x fixed, 2: y and z fixed (3D), 3: last component fixed
      if (pick == 1) fixed[static_cast<size_t>(node) * mesh.dim] = 1;
      if (pick == 2)
        for (int i = 1; i < mesh.dim; ++i) fixed[static_cast<size_t>(node) * mesh.dim + i] = 1;
      if (pick == 3) fixed[static_cast<size_t>(node) * mesh.dim + mesh.dim - 1] = 1;
    }
    const Assembler assembler(mesh, {Material(fem::LinearElastic::from_young_poisson(1e3, 0.3))}, fixed);
    const CsrPattern& p = assembler.pattern();
    const std::vector<int>& free = assembler.free_dof_index();
    const int d = mesh.dim, npc = nodes_per_cell(type);
    int found = 0, none = 0;
    for (int c = 0; c < mesh.num_cells(); ++c)
      for (int r = 0; r < npc * d; ++r)
        for (int s = 0; s < npc * d; ++s) {
          const int row = free[static_cast<size_t>(mesh.cell(c)[r / d]) * d + r % d];
          const int col = free[static_cast<size_t>(mesh.cell(c)[s / d]) * d + s % d];
          int expected = -1;
          if (row >= 0 && col >= 0) {
            const auto begin = p.col.begin() + p.row_ptr[static_cast<size_t>(row)];
            const auto end = p.col.begin() + p.row_ptr[static_cast<size_t>(row) + 1];
            const auto it = std::lower_bound(begin, end, col);
            ASSERT_TRUE(it != end && *it == col);
            expected = static_cast<int>(it - p.col.begin());
          }
          ASSERT_EQ(assembly::AssemblerInternals::slot(assembler, c, r, s), expected)
              << "cell " << c << " entry (" << r << ", " << s << ")";
          (expected >= 0 ? found : none) += 1;
        }
    EXPECT_GT(found, 0);
    EXPECT_GT(none, 0);
  }
}

TEST(Assembly, FixedDofsAreEliminatedNotPenalised) {
  const Mesh mesh = testing::small_box(CellType::Tet4);
  const auto material = fem::NeoHookean::from_young_poisson(50.0, 0.35);
  AssemblyOptions options;
  options.formulation = Formulation::Hyperelastic;
  const std::vector<char> fixed = fix_nodes(mesh, mesh.node_groups.at("xmin"));
  const Assembler full(mesh, {material}, {}, options), reduced(mesh, {material}, fixed, options);
  const std::vector<Real> x = testing::deformed_state(mesh, 0.1, 0.3, 8);
  const Eigen::MatrixXd Kf = Eigen::MatrixXd(full.stiffness(x)), Kr = Eigen::MatrixXd(reduced.stiffness(x));
  std::vector<int> free;
  for (size_t k = 0; k < fixed.size(); ++k)
    if (!fixed[k]) free.push_back(static_cast<int>(k));
  ASSERT_EQ(Kr.rows(), static_cast<Eigen::Index>(free.size()));
  for (size_t r = 0; r < free.size(); ++r)
    for (size_t c = 0; c < free.size(); ++c)
      EXPECT_EQ(Kr(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)), Kf(free[r], free[c]));
  EXPECT_EQ(full.force(x), reduced.force(x));  // forces are reported on all DOFs
}

TEST(Assembly, BitwiseIdenticalForAnyThreadCount) {
  const Mesh mesh = box_mesh(CellType::Tet4, {6, 5, 4});
  AssemblyOptions one, two;
  one.num_threads = 1;
  two.num_threads = 2;
  two.block_size = one.block_size = 7;  // many blocks per colour, run in parallel
  const auto m = fem::LinearElastic::from_young_poisson(10.0, 0.3);
  const Assembler a(mesh, {m}, {}, one), b(mesh, {m}, {}, two);
  const std::vector<Real> x = testing::deformed_state(mesh, 0.1, 0.5, 2);
  Real ea = 0, eb = 0;
  std::vector<Real> fa, fb, Ka, Kb;
  a.assemble(x, &ea, &fa, &Ka);
  b.assemble(x, &eb, &fb, &Kb);
  EXPECT_EQ(ea, eb);
  EXPECT_EQ(fa, fb);
  EXPECT_EQ(Ka, Kb);
  EXPECT_GT(assembly::AssemblerInternals::num_colors(a), 1);
}

TEST(Assembly, AutomaticBlockSizeDependsOnTheMeshAlone) {
  EXPECT_EQ(auto_block_size(1000000), kMaxAutoBlockSize);
  EXPECT_EQ(auto_block_size(70128), 1024);  // >= kAutoBlocks blocks of 1024 cells
  EXPECT_EQ(auto_block_size(9792), 256);    // 38 blocks of 256 (10 of 1024)
  EXPECT_EQ(auto_block_size(100), kMinAutoBlockSize);
  for (int cells : {3000, 5000, 20000, 40000}) {  // the largest power of two giving kAutoBlocks blocks
    const int size = auto_block_size(cells);
    EXPECT_TRUE(size == kMaxAutoBlockSize || cells < kAutoBlocks * 2 * size) << cells;
    EXPECT_TRUE(size == kMinAutoBlockSize || cells >= kAutoBlocks * size) << cells;
  }

  // The default (0) resolves to it whatever the thread count, so K's sums are formed in the same
  // order on 1 and 2 threads.
  BoxSpec spec;
  spec.cells = {12, 10, 8};  // 4800 Tet4 cells: blocks of 128
  const Mesh mesh = make_box(3, CellType::Tet4, spec);
  AssemblyOptions one, two;
  one.num_threads = 1;
  two.num_threads = 2;
  const auto m = fem::LinearElastic::from_young_poisson(10.0, 0.3);
  const Assembler a(mesh, {m}, {}, one), b(mesh, {m}, {}, two);
  EXPECT_EQ(a.options().block_size, auto_block_size(mesh.num_cells()));
  EXPECT_EQ(b.options().block_size, a.options().block_size);
  const std::vector<Real> x = testing::deformed_state(mesh, 0.1, 0.5, 2);
  std::vector<Real> fa, fb, Ka, Kb;
  a.assemble(x, nullptr, &fa, &Ka);
  b.assemble(x, nullptr, &fb, &Kb);
  EXPECT_EQ(fa, fb);
  EXPECT_EQ(Ka, Kb);

  AssemblyOptions bad;
  bad.block_size = -1;
  EXPECT_THROW(Assembler(mesh, {m}, {}, bad), Error);
}

// The energy is linear in each cell's Young's modulus (linear law, fixed nu): raising the
// modulus of one cell by dE adds dE/E times that cell's own energy, which differs from cell to
// cell under a non-uniform deformation. Checks that cell c really uses material c.
TEST(Assembly, HeterogeneousYoungsModulusIsPerCell) {
  const Mesh mesh = testing::small_box(CellType::Hex8);
  AssemblyOptions options;
  options.formulation = Formulation::LinearSmallStrain;
  const std::vector<Real> x = testing::deformed_state(mesh, 0.01, 0.0, 4);
  const auto energy_with = [&](int cell, Real E_cell) {
    std::vector<Material> m(static_cast<size_t>(mesh.num_cells()), fem::LinearElastic::from_young_poisson(10.0, 0.3));
    if (cell >= 0) m[static_cast<size_t>(cell)] = fem::LinearElastic::from_young_poisson(E_cell, 0.3);
    return Assembler(mesh, m, {}, options).energy(x);
  };
  const Real base = energy_with(-1, 0);
  const int last = mesh.num_cells() - 1;
  const Real cell_last = energy_with(last, 20.0) - base;  // energy of the last cell at E = 10
  const Real cell_one = energy_with(1, 20.0) - base;
  EXPECT_GT(cell_last, 0);
  EXPECT_NEAR(energy_with(last, 40.0) - base, 3 * cell_last, 1e-10 * base);
  EXPECT_GT(std::abs(cell_one - cell_last), 1e-3 * cell_last);  // different cells, different energies
  // The per-cell energies add up to the total.
  Real sum = 0;
  for (int c = 0; c < mesh.num_cells(); ++c) sum += energy_with(c, 20.0) - base;
  EXPECT_NEAR(sum, base, 1e-10 * base);
}

TEST(Assembly, LumpedMassSumsToTotalMass) {
  for (CellType type : testing::all_cell_types()) {
    const Mesh mesh = testing::small_box(type);
    const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(1.0, 0.3)}, {});
    const std::vector<Real> m = assembler.lumped_mass(1200.0);
    Real measure = 1.0;
    const Real size[3] = {1.0, 0.8, 0.6};
    for (int i = 0; i < mesh.dim; ++i) measure *= size[i];
    Real sum = 0;
    for (Real v : m) {
      EXPECT_GT(v, 0);
      sum += v;
    }
    EXPECT_NEAR(sum, 1200.0 * measure * mesh.dim, 1e-9) << cell_type_name(type);
  }
}

TEST(Assembly, ProjectedTangentIsPositiveSemiDefinite) {
  // Strong compression makes the neo-Hookean tangent indefinite; projection clamps each
  // element tangent, and leaves an already positive definite tangent (at rest) unchanged.
  const Mesh mesh = testing::small_box(CellType::Tet4);
  AssemblyOptions plain, projected;
  plain.formulation = projected.formulation = Formulation::Hyperelastic;
  projected.project_spd = true;
  const auto m = fem::NeoHookean::from_young_poisson(100.0, 0.3);
  const Assembler a(mesh, {m}, {}, plain), b(mesh, {m}, {}, projected);
  std::vector<Real> x = mesh.rest_positions();
  for (size_t k = 0; k < x.size(); k += 3) {
    x[k] *= 0.35;  // 65% axial compression with a shear
    x[k + 1] += 0.4 * x[k + 2];
  }
  const Eigen::MatrixXd Ka = Eigen::MatrixXd(a.stiffness(x)), Kb = Eigen::MatrixXd(b.stiffness(x));
  const Eigen::VectorXd ea = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Ka).eigenvalues();
  const Eigen::VectorXd eb = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Kb).eigenvalues();
  EXPECT_LT(ea.minCoeff(), -1e-6 * ea.maxCoeff()) << "the test state must make the tangent indefinite";
  EXPECT_GE(eb.minCoeff(), -1e-12 * eb.maxCoeff());
  const std::vector<Real> X = mesh.rest_positions();
  const Eigen::MatrixXd K0a = Eigen::MatrixXd(a.stiffness(X)), K0b = Eigen::MatrixXd(b.stiffness(X));
  EXPECT_LE((K0a - K0b).norm(), 1e-10 * K0a.norm());
}

TEST(Assembly, VonMisesIsRotationInvariantAndUsesCauchyStress) {
  const Mesh mesh = testing::small_box(CellType::Hex8);
  const Real l = 1.2;  // uniaxial stretch with fixed lateral dimensions
  std::vector<Real> x = mesh.rest_positions();
  for (size_t k = 0; k < x.size(); k += 3) x[k] *= l;
  std::vector<Real> rotated = x;
  const Eigen::Matrix3d Q = testing::test_rotation(3, 0.8);
  for (size_t k = 0; k < x.size(); k += 3) {
    const Eigen::Vector3d y = Q * Eigen::Vector3d(x[k], x[k + 1], x[k + 2]);
    for (int i = 0; i < 3; ++i) rotated[k + static_cast<size_t>(i)] = y[i];
  }
  // Neo-Hookean: sigma = mu/J (b - I) + lambda log(J)/J I with b = diag(l^2, 1, 1), J = l, so
  // von Mises = |sigma_xx - sigma_yy| = mu (l^2 - 1) / l.
  const Real E = 100.0, nu = 0.3, mu = E / (2 * (1 + nu));
  AssemblyOptions hyper;
  hyper.formulation = Formulation::Hyperelastic;
  const Assembler nh(mesh, {fem::NeoHookean::from_young_poisson(E, nu)}, {}, hyper);
  for (const auto& state : {x, rotated})
    for (Real v : nh.von_mises(state)) EXPECT_NEAR(v, mu * (l * l - 1) / l, 1e-10 * mu);
  // Corotational: the rotation is removed; linear: it is not (a rotation strains it).
  AssemblyOptions corot, linear;
  corot.formulation = Formulation::Corotational;
  linear.formulation = Formulation::LinearSmallStrain;
  const auto lin = fem::LinearElastic::from_young_poisson(E, nu);
  const Assembler co(mesh, {lin}, {}, corot), li(mesh, {lin}, {}, linear);
  const std::vector<Real> vx = co.von_mises(x), vr = co.von_mises(rotated);
  for (size_t c = 0; c < vx.size(); ++c) {
    EXPECT_NEAR(vx[c], 2 * mu * (l - 1), 1e-10 * mu);
    EXPECT_NEAR(vr[c], vx[c], 1e-10 * mu);
  }
  EXPECT_GT(std::abs(li.von_mises(rotated)[0] - vx[0]), 0.1 * vx[0]);
}

TEST(Assembly, VonMisesOfUniaxialStressState) {
  // Linear, uniaxial strain eps along x in 3D: sigma = diag(l+2m, l, l) eps, von Mises = 2 mu eps.
  const Mesh mesh = testing::small_box(CellType::Tet4);
  const Real E = 100.0, nu = 0.3, mu = E / (2 * (1 + nu)), eps = 1e-3;
  AssemblyOptions options;
  options.formulation = Formulation::LinearSmallStrain;
  const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(E, nu)}, {}, options);
  std::vector<Real> x = mesh.rest_positions();
  for (int n = 0; n < mesh.num_nodes(); ++n) x[3 * static_cast<size_t>(n)] *= 1 + eps;
  for (Real v : assembler.von_mises(x)) EXPECT_NEAR(v, 2 * mu * eps, 1e-12);
}

// ---- bad input ---------------------------------------------------------------------------------

using testing::error_of;

TEST(AssemblyErrors, InvertedCellNamesTheCell) {
  Mesh mesh = testing::small_box(CellType::Tet4);
  std::swap(mesh.cells[4 * 5 + 1], mesh.cells[4 * 5 + 2]);  // invert cell 5
  const std::string msg = error_of([&] { Assembler(mesh, {fem::LinearElastic::from_young_poisson(1, 0.3)}, {}); });
  EXPECT_NE(msg.find("cell 5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("inverted"), std::string::npos) << msg;
}

TEST(AssemblyErrors, DegenerateCellIsRefused) {
  Mesh mesh = testing::small_box(CellType::Hex8);
  for (int a = 4; a < 8; ++a) {  // collapse cell 0's top face onto its bottom face (same positions)
    const int top = mesh.cells[static_cast<size_t>(a)], bottom = mesh.cells[static_cast<size_t>(a - 4)];
    for (int i = 0; i < 3; ++i) mesh.X[3 * static_cast<size_t>(top) + i] = mesh.X[3 * static_cast<size_t>(bottom) + i];
  }
  const std::string msg = error_of([&] { validate(mesh); });
  EXPECT_NE(msg.find("cell 0"), std::string::npos) << msg;
}

TEST(AssemblyErrors, NanCoordinateNamesTheNode) {
  Mesh mesh = testing::small_box(CellType::Hex8);
  mesh.X[3 * 7 + 1] = std::numeric_limits<Real>::quiet_NaN();
  const std::string msg = error_of([&] { validate(mesh); });
  EXPECT_NE(msg.find("node 7"), std::string::npos) << msg;
}

TEST(AssemblyErrors, OutOfRangeIndexAndBadGroups) {
  Mesh mesh = testing::small_box(CellType::Tet4);
  mesh.cells[9] = mesh.num_nodes() + 3;
  std::string msg = error_of([&] { validate(mesh); });
  EXPECT_NE(msg.find("cell 2"), std::string::npos) << msg;
  mesh = testing::small_box(CellType::Tet4);
  mesh.node_groups["base"] = {0, -1};
  msg = error_of([&] { validate(mesh); });
  EXPECT_NE(msg.find("'base'"), std::string::npos) << msg;
}

TEST(AssemblyErrors, MaterialMismatches) {
  const Mesh mesh = testing::small_box(CellType::Tet4);
  AssemblyOptions corot;
  corot.formulation = Formulation::Corotational;
  EXPECT_NE(error_of([&] {
              Assembler(mesh, {fem::NeoHookean::from_young_poisson(1, 0.3)}, {}, corot);
            }).find("LinearElastic"),
            std::string::npos);
  AssemblyOptions hyper;
  hyper.formulation = Formulation::Hyperelastic;
  std::vector<Material> mixed(static_cast<size_t>(mesh.num_cells()), fem::NeoHookean::from_young_poisson(1, 0.3));
  mixed[3] = fem::SaintVenantKirchhoff::from_young_poisson(1, 0.3);
  EXPECT_NE(error_of([&] { Assembler(mesh, mixed, {}, hyper); }).find("material 3"), std::string::npos);
  EXPECT_NE(error_of([&] {
              Assembler(mesh, {mixed[0], mixed[0]}, {}, hyper);
            }).find("one per cell"),
            std::string::npos);
}

TEST(AssemblyErrors, InvertedInCurrentConfigurationNamesTheCell) {
  const Mesh mesh = testing::small_box(CellType::Tet4);
  std::vector<Real> x = mesh.rest_positions();
  const int* nodes = mesh.cell(4);
  // Push one node of cell 4 through its opposite face: cell 4 (the first such) inverts.
  for (int i = 0; i < 3; ++i) {
    const Real centroid = (x[3 * nodes[1] + i] + x[3 * nodes[2] + i] + x[3 * nodes[3] + i]) / 3;
    x[3 * static_cast<size_t>(nodes[0]) + i] = 2 * centroid - x[3 * static_cast<size_t>(nodes[0]) + i];
  }
  AssemblyOptions hyper;
  hyper.formulation = Formulation::Hyperelastic;
  const Assembler nh(mesh, {fem::NeoHookean::from_young_poisson(10, 0.3)}, {}, hyper);
  const std::string msg = error_of([&] { nh.force(x); });
  EXPECT_NE(msg.find("is inverted in the current configuration"), std::string::npos) << msg;
  EXPECT_NE(msg.find("NeoHookean"), std::string::npos) << msg;
  // Laws and rotations defined under inversion give finite forces.
  const Assembler snh(mesh, {fem::StableNeoHookean::from_young_poisson(10, 0.3)}, {}, hyper);
  for (Real f : snh.force(x)) EXPECT_TRUE(std::isfinite(f));
  AssemblyOptions polar, qr;
  polar.formulation = qr.formulation = Formulation::Corotational;
  qr.rotation = fem::RotationMethod::QR;
  const auto lin = fem::LinearElastic::from_young_poisson(10, 0.3);
  for (Real f : Assembler(mesh, {lin}, {}, polar).force(x)) EXPECT_TRUE(std::isfinite(f));
  EXPECT_NE(error_of([&] { Assembler(mesh, {lin}, {}, qr).force(x); }).find("QR"), std::string::npos);
}

TEST(AssemblyErrors, ConcaveQuadIsRefused) {
  // det J is positive at all four Gauss points but negative at node 2 (folded corner).
  Mesh mesh;
  mesh.dim = 2;
  mesh.cell_type = CellType::Quad4;
  mesh.X = {0, 0, 0, 1, 0, 0, 0.4, 0.4, 0, 0, 1, 0};  // Gauss-point det J >= 0.013, node 2: -0.05
  mesh.cells = {0, 1, 2, 3};
  const std::string msg = error_of([&] { validate(mesh); });
  EXPECT_NE(msg.find("cell 0"), std::string::npos) << msg;
}

TEST(AssemblyErrors, MaterialWithBadParametersNamesTheCell) {
  const Mesh mesh = testing::small_box(CellType::Tet4);
  AssemblyOptions hyper;
  hyper.formulation = Formulation::Hyperelastic;
  std::vector<Material> m(static_cast<size_t>(mesh.num_cells()), fem::NeoHookean::from_young_poisson(10, 0.3));
  fem::NeoHookean bad = fem::NeoHookean::from_young_poisson(10, 0.3);
  bad.mu = -1;  // set directly, bypassing the checked factory
  m[7] = bad;
  const std::string msg = error_of([&] { Assembler(mesh, m, {}, hyper); });
  EXPECT_NE(msg.find("cell 7"), std::string::npos) << msg;
  EXPECT_NE(msg.find("shear modulus"), std::string::npos) << msg;
  EXPECT_THROW(fem::NeoHookean::from_young_poisson(10, 0.5), Error);
  EXPECT_THROW(fem::LinearElastic::from_young_poisson(-1, 0.3), Error);
}

TEST(Assembly, UnreferencedNodesAreNotFree) {
  Mesh mesh = testing::small_box(CellType::Hex8);
  mesh.X.insert(mesh.X.end(), {5.0, 5.0, 5.0});  // a stray node no cell uses
  const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(1, 0.3)},
                            fix_nodes(mesh, mesh.node_groups.at("xmin")));
  const int stray = mesh.num_nodes() - 1;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(assembler.free_dof_index()[3 * static_cast<size_t>(stray) + i], -1);
  EXPECT_EQ(validate(mesh).unreferenced_nodes, 1);
  // Every free row has its diagonal entry: K is not structurally singular.
  const auto K = assembler.stiffness(mesh.rest_positions());
  for (int r = 0; r < K.rows(); ++r) EXPECT_GT(K.coeff(r, r), 0.0);
}

TEST(AssemblyErrors, NonFinitePositions) {
  const Mesh mesh = testing::small_box(CellType::Tet4);
  const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(1, 0.3)}, {});
  std::vector<Real> x = mesh.rest_positions();
  x[10] = std::numeric_limits<Real>::infinity();
  const std::string msg = error_of([&] { assembler.force(x); });
  EXPECT_NE(msg.find("node 3"), std::string::npos) << msg;
  EXPECT_THROW(assembler.force(std::vector<Real>(3)), Error);
}

TEST(AssemblyErrors, GeneratorRejectsBadSpecs) {
  BoxSpec spec;
  spec.cells = {0, 1, 1};
  EXPECT_THROW(make_box(3, CellType::Hex8, spec), Error);
  EXPECT_THROW(make_box(2, CellType::Hex8, BoxSpec{}), Error);
}

}  // namespace
}  // namespace softik
