// Node networks (issue 17) against mathematics: the link force is minus the energy gradient and
// its stiffness the force's derivative (finite differences), dashpots only dissipate, the cubic
// lattice's patch test (a uniform strain is an equilibrium with the stresses of an isotropic
// solid of modulus E and Poisson's ratio 1/4), the exact bulk energy of tet networks, the mass
// of the body, and the refusal of bad networks.
#include <gtest/gtest.h>

#include <cmath>

#include <Eigen/Eigenvalues>

#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/node_network.hpp"
#include "tests/expect_refused.hpp"
#include "tests/node_coordinates.hpp"

namespace softik {
namespace {

using fem::Mat3;
using fem::Vec3;

TEST(NodeNetwork, LinkForceIsMinusTheEnergyGradientAndItsStiffnessTheForceDerivative) {
  const fem::LinkParameters p{250.0, 4e6, 0.013, 0.0};
  const Vec3 xa(0.001, -0.002, 0.0005), xb(0.0121, 0.0043, -0.0031);  // stretched ~10%, any direction
  const Vec3 zero = Vec3::Zero();
  const Vec3 f = fem::link_force_on_b(p, xa, xb, zero, zero);
  const Real h = 1e-7;
  for (int i = 0; i < 3; ++i) {
    Vec3 dp = Vec3::Zero();
    dp[i] = h;
    const Real dE = (fem::link_energy(p, xa, xb + dp) - fem::link_energy(p, xa, xb - dp)) / (2 * h);
    EXPECT_NEAR(f[i], -dE, 1e-7 * f.norm()) << "component " << i;
    const Vec3 df =
        (fem::link_force_on_b(p, xa, xb + dp, zero, zero) - fem::link_force_on_b(p, xa, xb - dp, zero, zero)) / (2 * h);
    const Mat3 H = fem::link_stiffness_block(p, xa, xb);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(-df[k], H(k, i), 1e-6 * H.norm()) << "entry " << k << ", " << i;
  }
  // The norm used by the stable time step is the block's largest eigenvalue magnitude.
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(fem::link_stiffness_block(p, xa, xb));
  EXPECT_NEAR(fem::link_stiffness_norm(p, (xb - xa).norm()), eig.eigenvalues().cwiseAbs().maxCoeff(), 1e-9 * p.k);
  // The force on a is the opposite of the force on b: a link carries no net force.
  EXPECT_LT((fem::link_force_on_b(p, xb, xa, zero, zero) + f).norm(), 1e-12 * f.norm());
}

TEST(NodeNetwork, ADashpotOnlyDissipates) {
  const fem::LinkParameters p{0.0, 0.0, 1.0, 3.0};
  const Vec3 xa(0, 0, 0), xb(1.2, 0.3, -0.4);
  for (const Vec3& vb : {Vec3(1, 0, 0), Vec3(-2, 1, 0.5), Vec3(0, 0, 3)}) {
    const Vec3 va(0.1, -0.2, 0.3);
    const Vec3 fb = fem::link_force_on_b(p, xa, xb, va, vb);
    const Real power = fb.dot(vb) - fb.dot(va);  // f_a = -f_b
    const Real rate = (vb - va).dot((xb - xa).normalized());
    EXPECT_NEAR(power, -p.c * rate * rate, 1e-12);  // -c l'^2 <= 0
  }
}

// A box of n^3 cubes of edge h, its network with the given options.
NodeNetwork box_network(CellType type, int n, Real h, bool body_diagonals, Real E) {
  BoxSpec spec;
  spec.size = {n * h, n * h, n * h};
  spec.cells = {n, n, n};
  NetworkFromMesh from;
  from.youngs_modulus = E;
  from.density = 1200;
  from.body_diagonals = body_diagonals;
  return make_node_network(make_box(3, type, spec), from);
}

// The link forces at the affinely deformed positions x = X + G X.
std::vector<Real> forces_under(const NodeNetwork& net, const Mat3& G) {
  std::vector<Real> x = net.X;
  for (int i = 0; i < net.num_nodes(); ++i) {
    const Vec3 u = G * node_at(net.X, i);
    for (int k = 0; k < 3; ++k) x[3 * i + k] += u[k];
  }
  std::vector<Real> f(x.size(), 0.0);
  NetworkForces(net, 1).add_forces(x.data(), nullptr, f.data());
  return f;
}

TEST(NodeNetwork, CubicLatticePassesThePatchTestOfAnIsotropicSolidWithPoissonRatioOneQuarter) {
  const Real E = 2e5, h = 0.004, eps = 1e-7;
  const int n = 4;
  const Real side = n * h, A = side * side;
  for (bool body : {false, true}) {
    const NodeNetwork net = box_network(CellType::Hex8, n, h, body, E);
    // Uniaxial stress: stretch eps along x, contraction nu eps across with nu = 1/4.
    Mat3 G = Mat3::Zero();
    G(0, 0) = eps, G(1, 1) = G(2, 2) = -0.25 * eps;
    std::vector<Real> f = forces_under(net, G);
    Real pull = 0, largest_elsewhere = 0;
    for (int i = 0; i < net.num_nodes(); ++i) {
      const Real X = net.X[3 * i];
      if (std::abs(X - side) < 1e-12)
        pull += f[3 * i];
      else if (std::abs(X) > 1e-12)
        largest_elsewhere = std::max(largest_elsewhere, node_at(f, i).norm());
    }
    // Traction-free sides and a balanced interior; the end carries -sigma A = -E eps A.
    EXPECT_NEAR(pull, -E * eps * A, 1e-6 * E * eps * A) << "body diagonals " << body;
    EXPECT_LT(largest_elsewhere, 1e-6 * E * eps * h * h) << "body diagonals " << body;
    // Simple shear gamma: tau = mu gamma with mu = E / (2 (1 + nu)) = 2E/5 on the y = side face.
    Mat3 S = Mat3::Zero();
    S(0, 1) = eps;
    const Real shear = x_resultant(net.X, forces_under(net, S), 1, side);
    EXPECT_NEAR(shear, -0.4 * E * eps * A, 1e-6 * E * eps * A) << "body diagonals " << body;
  }
}

TEST(NodeNetwork, AnyTetNetworkStoresTheExactBulkEnergy) {
  // Under x = (1 + e) X every link stretches by e L: the stored energy is 9 K e^2 V / 2 with
  // K = 2E/3 (nu = 1/4), i.e. 3 E e^2 V, on any tet mesh (and on the hex lattice).
  const Real E = 1e5, e = 1e-3;
  for (CellType type : {CellType::Tet4, CellType::Hex8}) {
    BoxSpec spec;
    spec.size = {0.03, 0.02, 0.01};
    spec.cells = {5, 3, 4};  // cells that are not cubes
    Mesh mesh = make_box(3, type, spec);
    for (size_t i = 0; i < mesh.X.size(); ++i) mesh.X[i] += 1e-4 * std::sin(37.0 * static_cast<Real>(i)) * (i % 3 == 2);
    const NodeNetwork net = make_node_network(mesh, {E, 0.25, 1000});
    std::vector<Real> x = net.X;
    for (Real& value : x) value *= 1 + e;
    Real V = 0;
    for (Real m : net.mass) V += m / 1000;  // lumped masses sum to rho V
    EXPECT_NEAR(NetworkForces(net, 1).energy(x.data()), 3 * E * e * e * V, 1e-10 * E * e * e * V)
        << cell_type_name(type);
  }
}

TEST(NodeNetwork, TheMassesAreTheBodysMass) {
  const NodeNetwork net = box_network(CellType::Hex8, 3, 0.01, false, 1e5);
  Real m = 0;
  for (Real value : net.mass) m += value;
  EXPECT_NEAR(m, 1200 * 0.03 * 0.03 * 0.03, 1e-12);
  // Every node is reached; the links of a 3x3x3 lattice: 144 edges + 2 x 108 face diagonals.
  EXPECT_EQ(net.num_links(), 144 + 216);
}

TEST(NodeNetwork, BadNetworksAreRefusedWithTheReason) {
  BoxSpec spec;
  spec.cells = {1, 1, 1};
  const Mesh hex = make_box(3, CellType::Hex8, spec);
  expect_refused([&] { make_node_network(hex, {1e5, 0.2, 1000}); }, "Cauchy relation");  // 0.25 <= nu < 0.5 are matched
  expect_refused([&] { make_node_network(hex, {0, 0.25, 1000}); }, "youngs_modulus");
  expect_refused([&] { make_node_network(hex, {1e5, 0.25, 0}); }, "density");
  NetworkFromMesh no_shear{1e5, 0.25, 1000};
  no_shear.face_diagonals = false;
  expect_refused([&] { make_node_network(hex, no_shear); }, "no shear stiffness");
  expect_refused([&] { make_node_network(make_box(3, CellType::Tet10, spec), {1e5, 0.25, 1000}); }, "Tet4 or Hex8");

  const NodeNetwork good = make_node_network(hex, {1e5, 0.25, 1000});
  NodeNetwork bad = good;
  bad.mass[3] = 0;
  expect_refused([&] { validate(bad); }, "node 3 has mass 0");
  bad = good;
  bad.X[3 * bad.links[2][1] + 0] = bad.X[3 * bad.links[2][0] + 0];
  bad.X[3 * bad.links[2][1] + 1] = bad.X[3 * bad.links[2][0] + 1];
  bad.X[3 * bad.links[2][1] + 2] = bad.X[3 * bad.links[2][0] + 2];
  expect_refused([&] { validate(bad); }, "same place");
  bad = good;
  bad.links.push_back({bad.links[0][1], bad.links[0][0]});
  bad.parameters.push_back(bad.parameters[0]);
  expect_refused([&] { validate(bad); }, "both join");
  bad = good;
  bad.parameters[1].k = std::nan("");
  expect_refused([&] { validate(bad); }, "link 1");
  bad = good;
  bad.parameters[1].L = 0;
  expect_refused([&] { validate(bad); }, "rest length 0");
  bad = good;
  bad.X.insert(bad.X.end(), {5, 5, 5});
  bad.mass.push_back(1);
  expect_refused([&] { validate(bad); }, "belongs to no link");
  bad = good;
  bad.links[0][1] = 99;
  expect_refused([&] { validate(bad); }, "outside");
}

TEST(NodeNetwork, ARestLengthWhoseEnergyOverflowsIsRefusedAsSuch) {
  // A rest length of 1e300: (l - L)^2 overflows. It ran into a singular tangent ("no stiffness
  // along ...") in statics and a vanishing time step in explicit dynamics.
  BoxSpec spec;
  spec.cells = {1, 1, 1};
  const NodeNetwork good = make_node_network(make_box(3, CellType::Hex8, spec), {1e5, 0.25, 1000});
  NodeNetwork bad = good;
  bad.parameters[2].L = 1e300;
  expect_error_mentions([&] { validate(bad); }, {"link 2", "rest_length 1e+300", "overflows double precision"});
  bad = good;
  bad.parameters[2].L = 1e100;  // large, but its energy fits: a (stiff) valid network
  EXPECT_NO_THROW(validate(bad));
  bad.parameters[2].k3 = 1e10;  // ... until a hardening raises (l - L)^4 past the range
  expect_error_mentions([&] { validate(bad); }, {"link 2", "hardening 1e+10", "overflows double precision"});
}

}  // namespace
}  // namespace softik
