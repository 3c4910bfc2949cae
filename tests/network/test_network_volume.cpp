// Volume terms of node networks (docs/method.md section 12.2; fem/cell_volume.hpp) against
// mathematics: the Hex8 volume is the trilinear cell's exact volume, the volume term's force is
// minus the gradient of its energy and its Hessian the gradient's derivative (central finite
// differences, distorted cells at V != V0), rigid motions store nothing, the stable-step row
// bound bounds the Hessian's block rows; a cube lattice with volume terms passes the patch test of
// an isotropic solid of modulus E and Poisson's ratio nu (0.45, 0.49), and any tet or hex network
// stores the exact bulk energy; nu = 1/4 networks are the links alone; bad input is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include <Eigen/Eigenvalues>

#include "softik/error.hpp"
#include "softik/fem/cell_volume.hpp"
#include "softik/fem/element_traits.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/node_network.hpp"
#include "tests/expect_refused.hpp"
#include "tests/mesh_helpers.hpp"
#include "tests/node_coordinates.hpp"

namespace softik {
namespace {

using fem::Mat3;
using fem::Vec3;

// A cell of edge ~h in VTK order, every node moved by up to `distortion` h (a Hex8's faces are
// then not planar).
template <class Cell>
std::vector<Vec3> distorted_cell(Real h, Real distortion, unsigned seed) {
  std::vector<Vec3> x;
  if (Cell::num_nodes == 4)
    x = {Vec3(0, 0, 0), Vec3(h, 0, 0), Vec3(0, h, 0), Vec3(0, 0, h)};
  else
    for (int a = 0; a < 8; ++a) {
      const fem::Hex8::Xi r = fem::Hex8::reference_node(a);
      x.push_back(h / 2 * Vec3(1 + r[0], 1 + r[1], 1 + r[2]));
    }
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> u(-distortion * h, distortion * h);
  for (Vec3& p : x) p += Vec3(u(rng), u(rng), u(rng)) + Vec3(0.02, -0.01, 0.03);  // away from the origin
  return x;
}

template <class Cell>
void check_derivatives() {
  const Real h = 0.01, kappa = 3e5;
  const std::vector<Vec3> X = distorted_cell<Cell>(h, 0.15, 3);
  const Real V0 = Cell::volume(X.data());
  std::vector<Vec3> x = distorted_cell<Cell>(h, 0.15, 3);
  std::mt19937 rng(11);
  std::uniform_real_distribution<Real> u(-0.05 * h, 0.05 * h);
  for (Vec3& p : x) p = 1.04 * p + Vec3(u(rng), u(rng), u(rng));
  const Real V = Cell::volume(x.data());
  ASSERT_GT(std::abs(V / V0 - 1), 0.05) << "a deformed state with V != V0, so that the Hessian's p d2V term counts";
  constexpr int n = Cell::num_nodes;
  const auto W = [&](const std::vector<Vec3>& y) { return fem::volume_term_energy(kappa, V0, Cell::volume(y.data())); };
  const auto gradient = [&](const std::vector<Vec3>& y) {
    Eigen::Matrix<Real, 3 * n, 1> g;
    for (int a = 0; a < n; ++a) g.template segment<3>(3 * a) = -fem::volume_term_force<Cell>(kappa, V0, y.data(), a);
    return g;
  };
  const Eigen::Matrix<Real, 3 * n, 1> g = gradient(x);
  Eigen::Matrix<Real, 3 * n, 3 * n> H;
  fem::volume_term_hessian<Cell>(kappa, V0, x.data(), H);
  const Real step = 1e-6 * h;
  Real g_error = 0, H_error = 0;
  for (int k = 0; k < 3 * n; ++k) {
    std::vector<Vec3> plus = x, minus = x;
    plus[k / 3][k % 3] += step;
    minus[k / 3][k % 3] -= step;
    g_error = std::max(g_error, std::abs((W(plus) - W(minus)) / (2 * step) - g[k]));
    H_error = std::max(H_error, ((gradient(plus) - gradient(minus)) / (2 * step) - H.col(k)).cwiseAbs().maxCoeff());
  }
  g_error /= g.cwiseAbs().maxCoeff();
  H_error /= H.cwiseAbs().maxCoeff();
  std::printf("%s: finite-difference error of dW/dx %.2e, of d2W/dx2 %.2e (relative)\n", n == 4 ? "Tet4" : "Hex8",
              g_error, H_error);
  EXPECT_LT(g_error, 1e-6);
  EXPECT_LT(H_error, 1e-6);
  EXPECT_LT((H - H.transpose()).cwiseAbs().maxCoeff(), 1e-12 * H.cwiseAbs().maxCoeff());
  // The gradient of V sums to zero (a translation keeps the volume): no net force.
  Vec3 sum = Vec3::Zero();
  for (int a = 0; a < n; ++a) sum += Cell::gradient(x.data(), a);
  EXPECT_LT(sum.norm(), 1e-14 * h * h);
  // The stable step's row bound bounds the block row sums of spectral norms.
  for (int a = 0; a < n; ++a) {
    Real row = 0;
    for (int e = 0; e < n; ++e) {
      const Mat3 B = H.template block<3, 3>(3 * a, 3 * e);
      row += std::sqrt(Eigen::SelfAdjointEigenSolver<Mat3>(B.transpose() * B).eigenvalues().maxCoeff());
    }
    const Real bound = fem::volume_term_row_bound<Cell>(kappa, V0, x.data(), a);
    EXPECT_GE(bound, row * (1 - 1e-12)) << "node " << a;
    EXPECT_LT(bound, 3 * row) << "node " << a << ": a loose bound would shrink the time step for nothing";
  }
}

TEST(NetworkVolume, TheVolumeTermsForceAndHessianMatchFiniteDifferences) {
  check_derivatives<fem::Tet4Volume>();
  check_derivatives<fem::Hex8Volume>();
}

TEST(NetworkVolume, TheHexVolumeIsTheTrilinearCellsExactVolume) {
  // det J of a trilinear map has degree 2 in each reference coordinate: 2x2x2 Gauss is exact.
  const std::vector<Vec3> x = distorted_cell<fem::Hex8Volume>(0.01, 0.2, 5);
  Real V = 0;
  for (int q = 0; q < fem::Hex8::num_quad; ++q) {
    const auto dN = fem::Hex8::dN(fem::Hex8::quad_point(q));
    Mat3 J = Mat3::Zero();
    for (int a = 0; a < 8; ++a) J += x[static_cast<size_t>(a)] * dN.row(a);
    V += J.determinant() * fem::Hex8::quad_weight(q);
  }
  EXPECT_NEAR(fem::Hex8Volume::volume(x.data()), V, 1e-14 * V);
  const std::vector<Vec3> t = distorted_cell<fem::Tet4Volume>(0.01, 0.2, 5);
  EXPECT_NEAR(fem::Tet4Volume::volume(t.data()), (t[1] - t[0]).dot((t[2] - t[0]).cross(t[3] - t[0])) / 6, 1e-20);
}

// x = R X + t for a rotation R about an oblique axis.
std::vector<Real> rigidly_moved(const std::vector<Real>& X, const Vec3& t) {
  const Mat3 R = Eigen::AngleAxis<Real>(0.7, Vec3(1, -2, 0.5).normalized()).toRotationMatrix();
  std::vector<Real> x(X.size());
  for (size_t n = 0; n < X.size() / 3; ++n) {
    const Vec3 p = R * node_at(X, static_cast<int>(n)) + t;
    for (int k = 0; k < 3; ++k) x[3 * n + k] = p[k];
  }
  return x;
}

TEST(NetworkVolume, ARigidMotionStoresNothingAndGivesNoForce) {
  const Real E = 2e5, h = 0.004;
  for (CellType type : {CellType::Tet4, CellType::Hex8}) {
    Mesh mesh = box_mesh(type, {3, 2, 2}, {3 * h, 2 * h, 2 * h});
    for (size_t i = 0; i < mesh.X.size(); ++i) mesh.X[i] += 0.1 * h * std::sin(37.0 * static_cast<Real>(i));
    const NodeNetwork net = make_node_network(mesh, {E, 0.45, 1000});
    ASSERT_EQ(net.num_volume_cells(), mesh.num_cells());
    const NetworkForces forces(net, 1);
    const std::vector<Real> x = rigidly_moved(net.X, Vec3(0.3, -0.2, 0.5));
    std::vector<Real> f(x.size(), 0.0);
    forces.add_forces(x.data(), nullptr, f.data());
    Real largest = 0, V = 0;
    for (int n = 0; n < net.num_nodes(); ++n) largest = std::max(largest, node_at(f, n).norm());
    for (Real V0 : net.rest_volume) V += V0;
    std::printf("%s rigid motion: largest force %.2e E h^2, energy %.2e E V\n", cell_type_name(type),
                largest / (E * h * h), forces.energy(x.data()) / (E * V));
    EXPECT_LT(largest, 1e-10 * E * h * h) << cell_type_name(type);
    EXPECT_LT(forces.energy(x.data()), 1e-20 * E * V) << cell_type_name(type);
  }
}

// The linear response of `net` to the uniform displacement gradient G: the mean of f(X + G X) and
// -f(X - G X), which cancels the quadratic terms of the finite strain (at nu = 0.49 tr eps is
// 0.02 eps under uniaxial stress, so the O(eps^2) part of det(I + G) would otherwise be ~40 eps of
// the volume term's pressure).
std::vector<Real> linear_forces(const NodeNetwork& net, const Mat3& G) {
  std::vector<Real> plus = net.X, minus = net.X;
  for (int i = 0; i < net.num_nodes(); ++i) {
    const Vec3 u = G * node_at(net.X, i);
    for (int k = 0; k < 3; ++k) plus[3 * i + k] += u[k], minus[3 * i + k] -= u[k];
  }
  std::vector<Real> f(plus.size(), 0.0), g(plus.size(), 0.0);
  const NetworkForces forces(net, 2);
  forces.add_forces(plus.data(), nullptr, f.data());
  forces.add_forces(minus.data(), nullptr, g.data());
  for (size_t i = 0; i < f.size(); ++i) f[i] = (f[i] - g[i]) / 2;
  return f;
}

TEST(NetworkVolume, ACubeLatticeWithVolumeTermsPassesThePatchTestOfAnIsotropicSolid) {
  const Real E = 2e5, h = 0.004, eps = 1e-6;
  const int cells = 3;
  const Real side = cells * h, A = side * side;
  const Mesh mesh = box_mesh(CellType::Hex8, {cells, cells, cells}, {side, side, side});
  for (Real nu : {0.45, 0.49})
    for (bool body : {false, true}) {
      NetworkFromMesh from{E, nu, 1200};
      from.body_diagonals = body;
      const NodeNetwork net = make_node_network(mesh, from);
      // Uniaxial stress: stretch eps along x, contraction nu eps across.
      Mat3 G = Mat3::Zero();
      G(0, 0) = eps, G(1, 1) = G(2, 2) = -nu * eps;
      std::vector<Real> f = linear_forces(net, G);
      Real pull = 0, lateral = 0, largest_elsewhere = 0;
      for (int i = 0; i < net.num_nodes(); ++i) {
        const Vec3 X = node_at(net.X, i);
        if (std::abs(X[0] - side) < 1e-12)
          pull += f[3 * i];
        else if (std::abs(X[0]) > 1e-12)
          largest_elsewhere = std::max(largest_elsewhere, node_at(f, i).norm());
        if (std::abs(X[1] - side) < 1e-12) lateral += f[3 * i + 1];
      }
      // The end carries -sigma A = -E eps A; the sides and the interior are free of force.
      const Real pull_error = std::abs(pull + E * eps * A) / (E * eps * A);
      const Real elsewhere = largest_elsewhere / (E * eps * h * h);
      // Simple shear gamma: tau = mu gamma on the y = side face.
      Mat3 S = Mat3::Zero();
      S(0, 1) = eps;
      const Real shear = x_resultant(net.X, linear_forces(net, S), 1, side);
      const Real mu = E / (2 * (1 + nu));
      const Real shear_error = std::abs(shear + mu * eps * A) / (mu * eps * A);
      std::printf(
          "patch test nu %.2f%s: pull error %.2e, largest force elsewhere %.2e E eps h^2, lateral resultant "
          "%.2e E eps A, shear error %.2e\n",
          nu, body ? " (body diagonals)" : "", pull_error, elsewhere, std::abs(lateral) / (E * eps * A), shear_error);
      EXPECT_LT(pull_error, 1e-6) << "nu " << nu << ", body diagonals " << body;
      EXPECT_LT(elsewhere, 1e-6) << "nu " << nu << ", body diagonals " << body;
      EXPECT_LT(std::abs(lateral), 1e-6 * E * eps * A) << "nu " << nu << ", body diagonals " << body;
      EXPECT_LT(shear_error, 1e-6) << "nu " << nu << ", body diagonals " << body;
    }
}

TEST(NetworkVolume, AnyNetworkStoresTheExactBulkEnergy) {
  // Under x = (1 + e) X the links store 9/2 (2 E_L / 3) e^2 V and the volume terms
  // 9/2 kappa_v e^2 V (to O(e)), together 9/2 K e^2 V with K = E / (3 (1 - 2 nu)), on any mesh.
  const Real E = 1e5, nu = 0.45, e = 1e-7, K = E / (3 * (1 - 2 * nu));
  for (CellType type : {CellType::Tet4, CellType::Hex8}) {
    BoxSpec spec;
    spec.size = {0.03, 0.02, 0.01};
    spec.cells = {5, 3, 4};  // cells that are not cubes
    Mesh mesh = make_box(3, type, spec);
    std::mt19937 rng(17);
    std::uniform_real_distribution<Real> u(-5e-4, 5e-4);
    for (Real& value : mesh.X) value += u(rng);  // every node moved by up to 0.2 of the smallest edge
    const NodeNetwork net = make_node_network(mesh, {E, nu, 1000});
    std::vector<Real> x = net.X;
    for (Real& value : x) value *= 1 + e;
    Real V = 0;
    for (Real V0 : net.rest_volume) V += V0;
    const Real stored = NetworkForces(net, 1).energy(x.data()), expected = 4.5 * K * e * e * V;
    std::printf("%s bulk energy: relative error %.2e\n", cell_type_name(type), std::abs(stored - expected) / expected);
    EXPECT_NEAR(stored, expected, 1e-6 * expected) << cell_type_name(type);
    Real mass = 0;
    for (Real m : net.mass) mass += m;
    EXPECT_NEAR(V, mass / 1000, 1e-12 * V) << "the rest volumes add up to the body's";
  }
}

TEST(NetworkVolume, AQuarterRatioNetworkIsTheLinksAloneAndHigherRatiosScaleThem) {
  const Mesh mesh = box_mesh(CellType::Hex8, {2, 2, 1});
  const Real E = 1e5, nu = 0.45;
  const NodeNetwork quarter = make_node_network(mesh, {E, 0.25, 1000});
  EXPECT_EQ(quarter.num_volume_cells(), 0);
  EXPECT_TRUE(quarter.volume_cells.empty() && quarter.rest_volume.empty());
  EXPECT_EQ(make_node_network(mesh, {E, 0.25 + 1e-13, 1000}).num_volume_cells(), 0) << "1/4 to round-off";
  const NodeNetwork net = make_node_network(mesh, {E, nu, 1000});
  ASSERT_EQ(net.num_links(), quarter.num_links());
  const Real mu = E / (2 * (1 + nu)), lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
  for (int l = 0; l < net.num_links(); ++l)
    EXPECT_NEAR(net.parameters[l].k, quarter.parameters[l].k * 2.5 * mu / E, 1e-14 * quarter.parameters[l].k);
  ASSERT_EQ(net.num_volume_cells(), mesh.num_cells());
  EXPECT_EQ(net.volume_cell_type, CellType::Hex8);
  EXPECT_EQ(net.volume_cells, mesh.cells);
  for (int c = 0; c < net.num_volume_cells(); ++c) EXPECT_DOUBLE_EQ(net.volume_stiffness[c], lambda - mu);
}

TEST(NetworkVolume, BadRatiosAndBadVolumeCellsAreRefusedWithTheReason) {
  const Mesh tet = box_mesh(CellType::Tet4, {1, 1, 1});
  expect_refused([&] { make_node_network(tet, {1e5, 0.2, 1000}); }, "Cauchy relation");
  expect_refused([&] { make_node_network(tet, {1e5, 0.2, 1000}); }, "negative volume stiffness");
  expect_refused([&] { make_node_network(tet, {1e5, 0.5, 1000}); }, "must be < 0.5");
  expect_refused([&] { make_node_network(tet, {1e5, std::nan(""), 1000}); }, "poissons_ratio");

  const NodeNetwork good = make_node_network(tet, {1e5, 0.45, 1000});
  ASSERT_GT(good.num_volume_cells(), 2);
  NodeNetwork bad = good;
  bad.volume_cells[4 * 2 + 1] = 99;
  expect_refused([&] { validate(bad); }, "volume cell 2 has node 99");
  bad = good;
  bad.volume_cells[4 * 1 + 3] = bad.volume_cells[4 * 1];
  expect_refused([&] { validate(bad); }, "volume cell 1 lists node");
  bad = good;
  bad.volume_stiffness[2] = -1;
  expect_refused([&] { validate(bad); }, "volume cell 2 has stiffness -1");
  bad = good;
  bad.rest_volume[1] = 0;
  expect_refused([&] { validate(bad); }, "volume cell 1 has rest volume 0");
  bad = good;
  std::swap(bad.volume_cells[4 * 2 + 1], bad.volume_cells[4 * 2 + 2]);
  expect_refused([&] { validate(bad); }, "volume cell 2 has volume");
  bad = good;
  bad.rest_volume.pop_back();
  expect_refused([&] { validate(bad); }, "one rest volume and one stiffness per cell");
  bad = good;
  bad.volume_cell_type = CellType::Tet10;
  expect_refused([&] { NetworkForces forces(bad, 1); }, "must be Tet4 or Hex8");

  // A cell turned inside out at some state is an error naming it.
  const NetworkForces forces(good, 1);
  std::vector<Real> x = good.X;
  const int* cell = good.volume_cells.data() + 4 * 3;
  const Vec3 centroid = (node_at(x, cell[1]) + node_at(x, cell[2]) + node_at(x, cell[3])) / 3;
  const Vec3 through = centroid + (centroid - node_at(x, cell[0]));  // node 0 mirrored through its opposite face
  for (int k = 0; k < 3; ++k) x[3 * cell[0] + k] = through[k];
  try {
    forces.check_state(x.data());
    ADD_FAILURE() << "an inverted cell was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Numerical);
    EXPECT_NE(std::string(e.what()).find("volume cell "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("inverted"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace softik
