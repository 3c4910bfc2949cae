// Assembly beyond derivatives: patch tests, the free-DOF CSR pattern, determinism across thread
// counts, von Mises stress, lumped mass, heterogeneous parameters and clear errors on bad input.
#include <gtest/gtest.h>

#include <Eigen/SparseCholesky>
#include <random>

#include "assembly_cases.hpp"

namespace softik {
namespace {

/// Moves interior nodes randomly (by up to 20% of a cell) so that patch tests run on
/// distorted cells.
Mesh distorted_box(CellType type) {
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
      if (c.options.formulation != Formulation::Hyperelastic) continue;
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
  BoxSpec spec;
  spec.cells = {6, 5, 4};
  const Mesh mesh = make_box(3, CellType::Tet4, spec);
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
  EXPECT_GT(a.num_colors(), 1);
}

TEST(Assembly, HeterogeneousYoungsModulusScalesCellContributions) {
  const Mesh mesh = testing::small_box(CellType::Hex8);
  AssemblyOptions options;
  options.formulation = Formulation::LinearSmallStrain;
  std::vector<Material> per_cell, doubled;
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const Real E = 10.0 * (1 + c);
    per_cell.push_back(fem::LinearElastic::from_young_poisson(E, 0.3));
    doubled.push_back(fem::LinearElastic::from_young_poisson(2 * E, 0.3));
  }
  const Assembler a(mesh, per_cell, {}, options), b(mesh, doubled, {}, options);
  const std::vector<Real> x = testing::deformed_state(mesh, 0.01, 0.0, 4);
  EXPECT_NEAR(b.energy(x), 2 * a.energy(x), 1e-12 * a.energy(x));
  // Energy is the sum of independent cell energies: a single stiff cell changes it.
  std::vector<Material> one_stiff(per_cell);
  one_stiff[0] = fem::LinearElastic::from_young_poisson(1000.0, 0.3);
  const Assembler c(mesh, one_stiff, {}, options);
  EXPECT_GT(c.energy(x), a.energy(x));
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

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

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
  EXPECT_NE(error_of([&] { Assembler(mesh, {fem::NeoHookean::from_young_poisson(1, 0.3)}, {}, corot); }).find("LinearElastic"),
            std::string::npos);
  AssemblyOptions hyper;
  hyper.formulation = Formulation::Hyperelastic;
  std::vector<Material> mixed(static_cast<size_t>(mesh.num_cells()), fem::NeoHookean::from_young_poisson(1, 0.3));
  mixed[3] = fem::SaintVenantKirchhoff::from_young_poisson(1, 0.3);
  EXPECT_NE(error_of([&] { Assembler(mesh, mixed, {}, hyper); }).find("material 3"), std::string::npos);
  EXPECT_NE(error_of([&] { Assembler(mesh, {mixed[0], mixed[0]}, {}, hyper); }).find("one per cell"), std::string::npos);
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
