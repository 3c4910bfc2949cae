// The quadratic tetrahedron (Tet10) and its quadratic faces (Tri6) against mathematics: the
// quadrature rules integrate the monomials of their degree exactly, the enclosed volume of a
// closed Tri6 surface equals the volume integral of det J over the cells it bounds (both exact
// for curved cells), the Tri6 pressure forces are P dV/dx and their stiffness the derivative of
// the forces (finite differences on curved faces), a rigid motion leaves the Tri6 forces rotated
// and the volume unchanged, and to_tet10 places mid-nodes, groups and faces as documented.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "softik/assembly.hpp"
#include "softik/error.hpp"
#include "softik/fem/element_traits.hpp"
#include "softik/fem/kinematics.hpp"
#include "softik/fem/quadratic_pressure_load.hpp"
#include "softik/loads.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/mesh_io.hpp"
#include "softik/shell_generator.hpp"
#include "softik/surface.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

Real factorial(int n) { return n <= 1 ? 1.0 : n * factorial(n - 1); }

// integral over the unit tetrahedron of xi^a eta^b zeta^c = a! b! c! / (a + b + c + 3)!
Real tet_monomial(int a, int b, int c) { return factorial(a) * factorial(b) * factorial(c) / factorial(a + b + c + 3); }
// integral over the unit triangle of xi^a eta^b = a! b! / (a + b + 2)!
Real tri_monomial(int a, int b) { return factorial(a) * factorial(b) / factorial(a + b + 2); }

TEST(Tet10, MassRuleIsExactToDegreeFiveAndStiffnessRuleToDegreeTwo) {
  using E = fem::Tet10;
  for (int a = 0; a <= 5; ++a)
    for (int b = 0; a + b <= 5; ++b)
      for (int c = 0; a + b + c <= 5; ++c) {
        Real mass = 0, stiffness = 0;
        for (int q = 0; q < E::num_mass_quad; ++q) {
          const auto xi = E::mass_quad_point(q);
          mass += E::mass_quad_weight(q) * std::pow(xi[0], a) * std::pow(xi[1], b) * std::pow(xi[2], c);
        }
        EXPECT_NEAR(mass, tet_monomial(a, b, c), 1e-16) << a << " " << b << " " << c;
        if (a + b + c > 2) continue;
        for (int q = 0; q < E::num_quad; ++q) {
          const auto xi = E::quad_point(q);
          stiffness += E::quad_weight(q) * std::pow(xi[0], a) * std::pow(xi[1], b) * std::pow(xi[2], c);
        }
        EXPECT_NEAR(stiffness, tet_monomial(a, b, c), 1e-16) << a << " " << b << " " << c;
      }
  for (int q = 0; q < E::num_mass_quad; ++q) EXPECT_GT(E::mass_quad_weight(q), 0.0);
}

TEST(Tri6, RuleIsExactToDegreeFourAndShapeFunctionsInterpolate) {
  for (int a = 0; a <= 4; ++a)
    for (int b = 0; a + b <= 4; ++b) {
      Real sum = 0;
      for (int q = 0; q < fem::Tri6Rule::num_points; ++q) {
        Real xi, eta, w;
        fem::Tri6Rule::point(q, xi, eta, w);
        sum += w * std::pow(xi, a) * std::pow(eta, b);
      }
      EXPECT_NEAR(sum, tri_monomial(a, b), 1e-16) << a << " " << b;
    }
  const Real nodes[6][2] = {{0, 0}, {1, 0}, {0, 1}, {0.5, 0}, {0.5, 0.5}, {0, 0.5}};
  for (int b = 0; b < 6; ++b) {
    Real N[6], dxi[6], deta[6];
    fem::tri6_shape(nodes[b][0], nodes[b][1], N, dxi, deta);
    for (int a = 0; a < 6; ++a) EXPECT_NEAR(N[a], a == b ? 1.0 : 0.0, 1e-15);
  }
  // Derivatives against central differences at an interior point.
  const Real xi = 0.23, eta = 0.31, h = 1e-6;
  Real N[6], dxi[6], deta[6], Np[6], Nm[6], d1[6], d2[6];
  fem::tri6_shape(xi, eta, N, dxi, deta);
  fem::tri6_shape(xi + h, eta, Np, d1, d2);
  fem::tri6_shape(xi - h, eta, Nm, d1, d2);
  for (int a = 0; a < 6; ++a) EXPECT_NEAR((Np[a] - Nm[a]) / (2 * h), dxi[a], 1e-8);
  fem::tri6_shape(xi, eta + h, Np, d1, d2);
  fem::tri6_shape(xi, eta - h, Nm, d1, d2);
  for (int a = 0; a < 6; ++a) EXPECT_NEAR((Np[a] - Nm[a]) / (2 * h), deta[a], 1e-8);
}

/// A 2 x 2 x 2 Tet10 box whose mid-nodes are moved off their edges (curved cells and faces),
/// the boundary mid-nodes included.
Mesh curved_box() {
  const Mesh tet4 = box_mesh(CellType::Tet4, {2, 2, 2}, {1.0, 0.8, 0.6});
  Mesh m = to_tet10(tet4);
  std::mt19937 rng(7);
  std::uniform_real_distribution<Real> u(-0.04, 0.04);
  for (int n = tet4.num_nodes(); n < m.num_nodes(); ++n)
    for (int i = 0; i < 3; ++i) m.X[3 * static_cast<size_t>(n) + i] += u(rng);
  return m;
}

/// integral of det J over every cell with the 14-point rule (exact: det J has degree 3).
Real cell_volume(const Mesh& m) {
  using E = fem::Tet10;
  Real V = 0;
  for (int c = 0; c < m.num_cells(); ++c) {
    fem::NodeMatrix<E> X;
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i) X(a, i) = m.X[3 * static_cast<size_t>(m.cell(c)[a]) + i];
    for (int q = 0; q < E::num_mass_quad; ++q)
      V += E::mass_quad_weight(q) * (X.transpose() * E::dN(E::mass_quad_point(q))).determinant();
  }
  return V;
}

PressureLoad boundary_load(const Mesh& m, Real P) {
  PressureLoad load;
  load.name = "boundary";
  load.surface = boundary_surface(m);
  load.pressure = P;
  return load;
}

TEST(Tri6Pressure, ClosedSurfaceVolumeIsTheCellsVolumeOnCurvedCells) {
  const Mesh m = curved_box();
  const SurfaceGroup s = boundary_surface(m);
  ASSERT_EQ(s.triangles6.size(), 48u);  // 6 sides of 2 x 2 squares, 2 triangles each
  EXPECT_TRUE(s.triangles.empty());
  // The boundary of the body points out of the body: the body is the "cavity" of the surface.
  const Real from_surface = surface_volume(boundary_load(m, 1.0), m, m.rest_positions());
  const Real from_cells = cell_volume(m);
  std::printf("curved Tet10 box: volume from the Tri6 surface %.15f, from the cells %.15f\n", from_surface, from_cells);
  EXPECT_NEAR(from_surface, from_cells, 1e-14);
  EXPECT_GT(std::abs(from_cells - 0.48), 1e-4);  // the mid-nodes did change the volume
  SurfaceReport report;
  (void)check_surface(m, s, "boundary", true, false, &report);
  EXPECT_TRUE(report.closed);
  EXPECT_NEAR(report.volume, from_cells, 1e-14);
}

TEST(Tri6Pressure, ForcesArePTimesVolumeGradientAndStiffnessTheirDerivative) {
  const Mesh m = curved_box();
  const Real P = 1.7;
  const PressureLoad load = boundary_load(m, P);
  std::vector<Real> x = m.rest_positions();
  std::mt19937 rng(11);
  std::uniform_real_distribution<Real> u(-0.01, 0.01);
  for (Real& v : x) v += u(rng);
  std::vector<Real> f(x.size(), 0.0);
  add_pressure_forces(load, P, m, x, f);
  const Real h = 1e-6;
  Real err = 0, scale = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    std::vector<Real> xp = x, xm = x;
    xp[k] += h;
    xm[k] -= h;
    const Real fd = P * (surface_volume(load, m, xp) - surface_volume(load, m, xm)) / (2 * h);
    err = std::max(err, std::abs(fd - f[k]));
    scale = std::max(scale, std::abs(f[k]));
  }
  EXPECT_LE(err, 1e-8 * scale);
  // Load stiffness: the assembled (symmetrised) K against central differences of the forces.
  AssemblyOptions options;
  options.formulation = Formulation::LinearSmallStrain;
  const Assembler assembler(m, {fem::LinearElastic::from_young_poisson(1.0, 0.3)}, {}, options);
  std::vector<Real> K(static_cast<size_t>(assembler.pattern().nnz()), 0.0);
  EXPECT_EQ(add_pressure_stiffness(load, P, assembler, x, 1.0, K), 0);
  Real kerr = 0, kscale = 0;
  for (int col = 0; col < static_cast<int>(x.size()); col += 7) {
    std::vector<Real> xp = x, xm = x, fp(x.size(), 0.0), fm(x.size(), 0.0);
    xp[static_cast<size_t>(col)] += h;
    xm[static_cast<size_t>(col)] -= h;
    add_pressure_forces(load, P, m, xp, fp);
    add_pressure_forces(load, P, m, xm, fm);
    for (int row = 0; row < static_cast<int>(x.size()); ++row) {
      const Real fd = (fp[static_cast<size_t>(row)] - fm[static_cast<size_t>(row)]) / (2 * h);
      const int slot = assembler.pattern().slot(row, col);
      const Real k = slot < 0 ? 0.0 : K[static_cast<size_t>(slot)];
      kerr = std::max(kerr, std::abs(fd - k));
      kscale = std::max(kscale, std::abs(k));
    }
  }
  EXPECT_GT(kscale, 0.0);
  EXPECT_LE(kerr, 1e-7 * kscale);
}

TEST(Tri6Pressure, RigidMotionRotatesTheForcesAndKeepsTheVolume) {
  const Mesh m = curved_box();
  const PressureLoad load = boundary_load(m, 2.0);
  const Eigen::Matrix3d R = Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  const Eigen::Vector3d t(0.3, -1.1, 2.0);
  std::vector<Real> x = m.rest_positions(), y = x;
  for (int n = 0; n < m.num_nodes(); ++n) {
    const Eigen::Vector3d p(x[3 * n], x[3 * n + 1], x[3 * n + 2]);
    const Eigen::Vector3d q = R * p + t;
    for (int i = 0; i < 3; ++i) y[3 * static_cast<size_t>(n) + i] = q[i];
  }
  EXPECT_NEAR(surface_volume(load, m, y), surface_volume(load, m, x), 1e-14);
  std::vector<Real> fx(x.size(), 0.0), fy(x.size(), 0.0);
  add_pressure_forces(load, 2.0, m, x, fx);
  add_pressure_forces(load, 2.0, m, y, fy);
  Real err = 0;
  for (int n = 0; n < m.num_nodes(); ++n) {
    const Eigen::Vector3d a(fx[3 * n], fx[3 * n + 1], fx[3 * n + 2]), b(fy[3 * n], fy[3 * n + 1], fy[3 * n + 2]);
    err = std::max(err, (R * a - b).norm());
  }
  EXPECT_LE(err, 1e-14);
}

// On a flat Tri6 face (straight edges) the consistent load of a uniform pressure puts nothing on
// the corners and a third of P A on each mid-node (integral of N_a: 0 for corners, A/3 for
// mid-nodes).
TEST(Tri6Pressure, FlatFaceLoadIsAThirdOnEachMidNodeAndNothingOnTheCorners) {
  const fem::Vec3 c0(0, 0, 0), c1(2, 0, 0), c2(0.5, 1.5, 0);
  const fem::Vec3 p[6] = {c0, c1, c2, (c0 + c1) / 2, (c1 + c2) / 2, (c2 + c0) / 2};
  fem::Vec3 f[6];
  const Real P = 3.0, A = 0.5 * 2 * 1.5;
  fem::tri6_pressure_forces(P, p, f);
  for (int a = 0; a < 3; ++a) EXPECT_LE(f[a].norm(), 1e-15);
  for (int a = 3; a < 6; ++a) EXPECT_NEAR(f[a][2], P * A / 3, 1e-14);
}

TEST(ToTet10, MidNodesGroupsAndFacesAreWhereDocumented) {
  BoxSpec spec;
  spec.cells = {1, 1, 1};
  const Mesh tet4 = make_box(3, CellType::Tet4, spec);
  const Mesh m = to_tet10(tet4);
  EXPECT_EQ(m.cell_type, CellType::Tet10);
  EXPECT_EQ(m.num_cells(), tet4.num_cells());
  EXPECT_EQ(m.num_nodes(), 8 + 19);  // a Kuhn-split cube has 19 edges
  (void)validate(m);
  for (int c = 0; c < m.num_cells(); ++c)
    for (int e = 0; e < 6; ++e) {
      const int* v = m.cell(c);
      for (int i = 0; i < 3; ++i)
        EXPECT_DOUBLE_EQ(m.X[3 * static_cast<size_t>(v[4 + e]) + i],
                         (m.X[3 * static_cast<size_t>(v[fem::Tet10::edge_corner(e, 0)]) + i] +
                          m.X[3 * static_cast<size_t>(v[fem::Tet10::edge_corner(e, 1)]) + i]) /
                             2);
    }
  // A face group of 4 corners gains the mid-nodes of its 5 edges (4 sides and a diagonal).
  for (const auto& [name, nodes] : tet4.node_groups) {
    if (nodes.size() != 4) continue;
    EXPECT_EQ(m.node_groups.at(name).size(), 9u) << name;
  }
  EXPECT_THROW(to_tet10(m), Error);
  EXPECT_THROW(to_tet10(make_box(3, CellType::Hex8, spec)), Error);
}

TEST(ToTet10, CurvedGeneratorsPutTheWallMidNodesOnTheWalls) {
  const Mesh cyl = make_thick_cylinder_quarter(1.0, 2.0, 0.3, 2, 3, 1, CellType::Tet10);
  for (const auto& t : cyl.surface_groups.at("inner").triangles6)
    for (int n : t)
      EXPECT_NEAR(std::hypot(cyl.X[3 * static_cast<size_t>(n)], cyl.X[3 * static_cast<size_t>(n) + 1]), 1.0, 1e-14);
  const Mesh sph = make_thick_sphere_octant(1.0, 1.5, 2, 2, CellType::Tet10);
  for (const auto& t : sph.surface_groups.at("inner").triangles6)
    for (int n : t) {
      const Real* p = &sph.X[3 * static_cast<size_t>(n)];
      EXPECT_NEAR(std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), 1.0, 1e-14);
    }
  (void)validate(cyl);
  (void)validate(sph);
}

TEST(Tet10, AnInvertedOrFoldedCellIsNamed) {
  Mesh tet4;
  tet4.cell_type = CellType::Tet4;
  tet4.X = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  tet4.cells = {0, 1, 2, 3};
  Mesh m = to_tet10(tet4);
  // A mid-node pushed past the opposite side folds the cell (det J < 0 near it).
  m.X[3 * 4 + 1] = 0.8;  // mid-node of edge (0,1) moved deep inside
  try {
    (void)validate(m);
    FAIL() << "a folded Tet10 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cell 0 (Tet10)"), std::string::npos) << e.what();
  }
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "softik_test_tet10";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

// One straight-sided Tet10 on the unit corner and its face z = 0 as a 6-node triangle, in Gmsh's
// order: node 9 (tag 9) is the middle of edge (2,3) and node 10 of edge (1,3), the other way round
// from VTK. Read in VTK order, the cell is the reference cell (det J = 1 everywhere); with the two
// left unswapped it would fold (validate() throws).
TEST(Tet10, GmshAndVtkQuadraticCellsAreReadInVtkOrder) {
  const std::string msh = write_file("tet10.msh", R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
2
2 1 "base"
3 2 "body"
$EndPhysicalNames
$Nodes
10
1 0 0 0
2 1 0 0
3 0 1 0
4 0 0 1
5 0.5 0 0
6 0.5 0.5 0
7 0 0.5 0
8 0 0 0.5
9 0 0.5 0.5
10 0.5 0 0.5
$EndNodes
$Elements
2
1 11 2 2 1 1 2 3 4 5 6 7 8 9 10
2 9 2 1 1 1 3 2 7 6 5
$EndElements
)");
  const Mesh m = read_mesh(msh);
  ASSERT_EQ(m.cell_type, CellType::Tet10);
  EXPECT_EQ(m.cells, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 9, 8}));
  const MeshReport report = validate(m);
  EXPECT_NEAR(report.min_detJ, 1.0, 1e-14);
  ASSERT_EQ(m.surface_groups.at("base").triangles6.size(), 1u);
  EXPECT_EQ(m.surface_groups.at("base").triangles6[0], (std::array<int, 6>{0, 2, 1, 6, 5, 4}));
  // The same cell as VTK legacy type 24 (VTK order) with its face as type 22.
  const std::string vtk = write_file("tet10.vtk", R"(# vtk DataFile Version 4.2
tet10
ASCII
DATASET UNSTRUCTURED_GRID
POINTS 10 double
0 0 0 1 0 0 0 1 0 0 0 1 0.5 0 0 0.5 0.5 0 0 0.5 0 0 0 0.5 0.5 0 0.5 0 0.5 0.5
CELLS 2 18
10 0 1 2 3 4 5 6 7 8 9
6 0 2 1 6 5 4
CELL_TYPES 2
24
22
)");
  const Mesh v = read_mesh(vtk);
  ASSERT_EQ(v.cell_type, CellType::Tet10);
  EXPECT_EQ(v.cells, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_NEAR(validate(v).min_detJ, 1.0, 1e-14);
  EXPECT_EQ(v.surface_groups.at("vtk_faces").triangles6.size(), 1u);
}

}  // namespace
}  // namespace softik
