// Mass matrices from the element's shape functions (issue 15): the consistent mass
// M_ab = rho * integral(N_a N_b dV) against the closed forms of single elements, its total, and
// the kinetic energy of a rigid rotation (linear fields are exact in every element, so
// v^T M v / 2 = omega^2 I / 2 exactly with the consistent mass); the lumped mass as its row sums
// on linear cells, the HRZ lumping on Tet10 (positive, the consistent diagonal scaled to the
// cell's mass), and the body-force share as the consistent row sums on every cell.
#include <gtest/gtest.h>

#include <cmath>

#include "softik/assembly.hpp"
#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

constexpr Real kRho = 1250.0;

Assembler make_assembler(const Mesh& mesh) {
  AssemblyOptions options;
  options.formulation = Formulation::LinearSmallStrain;
  return Assembler(mesh, {fem::LinearElastic::from_young_poisson(1e5, 0.3)}, {}, options);
}

/// Entry (dof_i, dof_j) of the free-DOF CSR values (nothing fixed: DOF = row).
Real entry(const Assembler& a, const std::vector<Real>& values, int i, int j) {
  const int slot = a.pattern().slot(i, j);
  return slot < 0 ? 0.0 : values[static_cast<size_t>(slot)];
}

TEST(Mass, Tet4ConsistentIsRhoVOver20TimesOnePlusDelta) {
  Mesh mesh;
  mesh.X = {0, 0, 0, 2, 0, 0, 0, 1.5, 0, 0.2, 0.3, 1.1};
  mesh.cells = {0, 1, 2, 3};
  const Assembler a = make_assembler(mesh);
  const Real V = 2 * 1.5 * 1.1 / 6;
  const std::vector<Real> M = a.mass_matrix(kRho);
  for (int p = 0; p < 4; ++p)
    for (int q = 0; q < 4; ++q)
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) {
          const Real expected = (i == k) ? kRho * V / 20 * (p == q ? 2 : 1) : 0.0;
          EXPECT_NEAR(entry(a, M, 3 * p + i, 3 * q + k), expected, 1e-12 * kRho * V) << p << " " << q << " " << i << k;
        }
}

TEST(Mass, Hex8ConsistentIsTheTensorProductOfLineMasses) {
  BoxSpec spec;
  spec.size = {1.0, 2.0, 0.5};
  const Mesh mesh = make_box(3, CellType::Hex8, spec);
  const Assembler a = make_assembler(mesh);
  const std::vector<Real> M = a.mass_matrix(kRho);
  // The 1D mass of a unit-length linear element: [1/3 1/6; 1/6 1/3]; scaled by the edge lengths.
  auto line = [](Real xa, Real xb) { return xa == xb ? 1.0 / 3.0 : 1.0 / 6.0; };
  for (int p = 0; p < 8; ++p)
    for (int q = 0; q < 8; ++q) {
      Real expected = kRho;
      for (int k = 0; k < 3; ++k)
        expected *= spec.size[static_cast<size_t>(k)] *
                    line(mesh.X[3 * static_cast<size_t>(p) + k], mesh.X[3 * static_cast<size_t>(q) + k]);
      EXPECT_NEAR(entry(a, M, 3 * p + 1, 3 * q + 1), expected, 1e-12 * kRho);
      EXPECT_EQ(entry(a, M, 3 * p + 1, 3 * q + 2), 0.0);
    }
}

TEST(Mass, TrianglesAndLinesHaveTheirClosedForms) {
  // Tri3: rho A / 12 (1 + delta_ab); Edge2: rho L / 6 (1 + delta_ab).
  Mesh tri;
  tri.dim = 2;
  tri.cell_type = CellType::Tri3;
  tri.X = {0, 0, 0, 3, 0, 0, 1, 2, 0};
  tri.cells = {0, 1, 2};
  const Assembler at = make_assembler(tri);
  const std::vector<Real> Mt = at.mass_matrix(kRho);
  for (int p = 0; p < 3; ++p)
    for (int q = 0; q < 3; ++q) EXPECT_NEAR(entry(at, Mt, 2 * p, 2 * q), kRho * 3.0 / 12 * (p == q ? 2 : 1), 1e-9);
  Mesh line;
  line.dim = 1;
  line.cell_type = CellType::Edge2;
  line.X = {0, 0, 0, 0.8, 0, 0};
  line.cells = {0, 1};
  const Assembler al = make_assembler(line);
  const std::vector<Real> Ml = al.mass_matrix(kRho);
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 2; ++q) EXPECT_NEAR(entry(al, Ml, p, q), kRho * 0.8 / 6 * (p == q ? 2 : 1), 1e-9);
}

class MassOfEveryMesh : public ::testing::TestWithParam<CellType> {};

TEST_P(MassOfEveryMesh, RigidRotationEnergyIsExactAndLumpedMassIsTheRowSumOrHrz) {
  const Mesh mesh = box_mesh(GetParam(), {3, 2, 2}, {0.6, 0.4, 0.3});
  const Assembler a = make_assembler(mesh);
  const std::vector<Real> M = a.mass_matrix(kRho);
  const std::vector<Real> L = a.mass_matrix(kRho, true);
  const std::vector<Real> lumped = a.lumped_mass(kRho);
  const std::vector<Real> share = a.body_force_share(kRho);
  const bool quadratic = GetParam() == CellType::Tet10;
  const CsrPattern& p = a.pattern();
  // Rigid rotation about z with omega = 1.7: v = omega (-y, x, 0).
  const Real omega = 1.7;
  std::vector<Real> v(static_cast<size_t>(a.num_dofs()));
  for (int n = 0; n < mesh.num_nodes(); ++n) {
    v[3 * static_cast<size_t>(n)] = -omega * mesh.X[3 * static_cast<size_t>(n) + 1];
    v[3 * static_cast<size_t>(n) + 1] = omega * mesh.X[3 * static_cast<size_t>(n)];
  }
  Real kinetic = 0, total = 0;
  for (int r = 0; r < p.rows; ++r)
    for (int e = p.row_ptr[static_cast<size_t>(r)]; e < p.row_ptr[static_cast<size_t>(r) + 1]; ++e) {
      kinetic += 0.5 * v[static_cast<size_t>(r)] * M[static_cast<size_t>(e)] *
                 v[static_cast<size_t>(p.col[static_cast<size_t>(e)])];
      total += M[static_cast<size_t>(e)];
      // The lumped matrix is diagonal and holds the consistent row sums.
      if (p.col[static_cast<size_t>(e)] != r)
        EXPECT_EQ(L[static_cast<size_t>(e)], 0.0);
      else
        EXPECT_NEAR(L[static_cast<size_t>(e)], lumped[static_cast<size_t>(r)], 1e-12 * kRho);
    }
  const Real sx = 0.6, sy = 0.4, sz = 0.3, mass = kRho * sx * sy * sz;
  const Real inertia = mass * (sx * sx + sy * sy) / 3;  // about the z axis through the corner
  EXPECT_NEAR(kinetic, 0.5 * omega * omega * inertia, 1e-12 * kinetic);
  EXPECT_NEAR(total, 3 * mass, 1e-12 * mass);
  Real lumped_total = 0;
  for (int r = 0; r < p.rows; ++r) {
    Real row = 0;
    for (int e = p.row_ptr[static_cast<size_t>(r)]; e < p.row_ptr[static_cast<size_t>(r) + 1]; ++e)
      row += M[static_cast<size_t>(e)];
    EXPECT_NEAR(row, share[static_cast<size_t>(r)], 1e-12 * mass);  // integral(rho N_a) on every cell
    if (!quadratic) {
      EXPECT_NEAR(row, lumped[static_cast<size_t>(r)], 1e-12 * mass);
    }
    EXPECT_GT(lumped[static_cast<size_t>(r)], 0.0) << "DOF " << r;  // HRZ: positive where row sums are not
    lumped_total += lumped[static_cast<size_t>(r)];
  }
  EXPECT_NEAR(lumped_total, 3 * mass, 1e-12 * mass);
}

// A straight-sided Tet10's consistent mass rows sum to -rho V/20 at the corners and rho V/5 at
// the mid-nodes (integral of N_a); HRZ gives the corners 6/216 rho V = rho V/36 and the mid-nodes
// 32/216 rho V = 4 rho V/27 (the diagonal rho V (6, 32)/420 scaled to the mass, 4 * 6 + 6 * 32 = 216).
TEST(Mass, Tet10RowSumsAndHrzLumpingHaveTheirClosedForms) {
  Mesh m;
  m.cell_type = CellType::Tet4;
  m.X = {0, 0, 0, 0.9, 0, 0, 0.1, 0.7, 0, 0.2, 0.1, 0.5};
  m.cells = {0, 1, 2, 3};
  const Mesh tet10 = to_tet10(m);
  const Assembler a = make_assembler(tet10);
  const Real V = 0.9 * 0.7 * 0.5 / 6, mass = kRho * V;
  const std::vector<Real> share = a.body_force_share(kRho), lumped = a.lumped_mass(kRho);
  for (int n = 0; n < 10; ++n) {
    EXPECT_NEAR(share[3 * static_cast<size_t>(n)], n < 4 ? -mass / 20 : mass / 5, 1e-13 * mass) << "node " << n;
    EXPECT_NEAR(lumped[3 * static_cast<size_t>(n)], mass * (n < 4 ? 6.0 : 32.0) / 216.0, 1e-13 * mass) << "node " << n;
  }
  // The consistent mass of the cell: rho V/420 (6 on the corner diagonal, 32 on the mid-node diagonal).
  const std::vector<Real> M = a.mass_matrix(kRho);
  EXPECT_NEAR(entry(a, M, 0, 0), mass * 6 / 420, 1e-13 * mass);
  EXPECT_NEAR(entry(a, M, 3 * 4, 3 * 4), mass * 32 / 420, 1e-13 * mass);
}

INSTANTIATE_TEST_SUITE_P(Solids, MassOfEveryMesh, ::testing::Values(CellType::Tet4, CellType::Hex8, CellType::Tet10),
                         [](const auto& info) { return std::string(cell_type_name(info.param)); });

TEST(Mass, RefusesANonPositiveDensity) {
  const Mesh mesh = make_box(3, CellType::Tet4, BoxSpec{});
  const Assembler a = make_assembler(mesh);
  EXPECT_THROW(a.mass_matrix(0.0), Error);
  EXPECT_THROW(a.mass_matrix(-1.0, true), Error);
  EXPECT_THROW(a.mass_matrix(std::nan("")), Error);
}

}  // namespace
}  // namespace softik
