// Node networks with volume terms (docs/method.md sections 12.2-12.3) in motion: the gathered
// forces' derivative is the assembled Hessian (links + fem::volume_term_hessian) and the stable
// step's Gershgorin bound lies above its largest eigenvalue of M^-1 K (nu = 0.49, deformed);
// velocity Verlet on a free network keeps its linear and angular momentum and a bounded energy
// error, also at the stable limit of a nearly incompressible one; a cell that inverts during a run
// stops it with an error naming the cell.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include <Eigen/Eigenvalues>

#include "softik/error.hpp"
#include "softik/explicit_dynamics.hpp"
#include "softik/fem/cell_volume.hpp"
#include "softik/mesh_generator.hpp"
#include "tests/mesh_helpers.hpp"
#include "tests/node_coordinates.hpp"

namespace softik {
namespace {

using fem::Vec3;

NodeNetwork block(CellType type, int cells, Real nu) {
  BoxSpec spec;
  spec.size = {0.01 * cells, 0.01 * cells, 0.01 * cells};
  spec.cells = {cells, cells, cells};
  return make_node_network(make_box(3, type, spec), {1e5, nu, 1000});
}

// x = X + a small random displacement (strains of a few %).
std::vector<Real> deformed(const NodeNetwork& net, Real amplitude, unsigned seed) {
  return with_noise(net.X, amplitude, seed);
}

// The Hessian of the network's energy (linear springs): [H -H; -H H] per link, and
// fem::volume_term_hessian per cell.
template <class Cell>
Eigen::MatrixXd assembled_hessian(const NodeNetwork& net, const std::vector<Real>& x) {
  const int n = 3 * net.num_nodes();
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n);
  for (int l = 0; l < net.num_links(); ++l) {
    const auto [a, b] = net.links[l];
    const fem::Mat3 H = fem::link_stiffness_block(net.parameters[l], node_at(x, a), node_at(x, b));
    K.block<3, 3>(3 * a, 3 * a) += H, K.block<3, 3>(3 * b, 3 * b) += H;
    K.block<3, 3>(3 * a, 3 * b) -= H, K.block<3, 3>(3 * b, 3 * a) -= H;
  }
  constexpr int m = Cell::num_nodes;
  for (int c = 0; c < net.num_volume_cells(); ++c) {
    const int* nodes = net.volume_cells.data() + m * c;
    Vec3 xc[m];
    for (int a = 0; a < m; ++a) xc[a] = node_at(x, nodes[a]);
    Eigen::Matrix<Real, 3 * m, 3 * m> H;
    fem::volume_term_hessian<Cell>(net.volume_stiffness[c], net.rest_volume[c], xc, H);
    for (int a = 0; a < m; ++a)
      for (int b = 0; b < m; ++b) K.block<3, 3>(3 * nodes[a], 3 * nodes[b]) += H.template block<3, 3>(3 * a, 3 * b);
  }
  return K;
}

template <class Cell>
void check_hessian_and_bound(CellType type) {
  const NodeNetwork net = block(type, 2, 0.49);
  const std::vector<Real> x = deformed(net, 5e-4, 2);
  const Eigen::MatrixXd K = assembled_hessian<Cell>(net, x);
  // -df/dx of the gather, by central differences.
  const NetworkForces forces(net, 1);
  const Real h = 1e-9;
  Real error = 0;
  for (int k = 0; k < static_cast<int>(x.size()); ++k) {
    std::vector<Real> plus = x, minus = x, fp(x.size(), 0.0), fm(x.size(), 0.0);
    plus[k] += h, minus[k] -= h;
    forces.add_forces(plus.data(), nullptr, fp.data());
    forces.add_forces(minus.data(), nullptr, fm.data());
    for (size_t i = 0; i < x.size(); ++i) error = std::max(error, std::abs(-(fp[i] - fm[i]) / (2 * h) - K(i, k)));
  }
  error /= K.cwiseAbs().maxCoeff();
  // The largest eigenvalue of M^-1 K (M^-1/2 K M^-1/2: symmetric) against the model's bound.
  Eigen::VectorXd inv_sqrt_m(x.size());
  for (size_t i = 0; i < x.size(); ++i) inv_sqrt_m[i] = 1 / std::sqrt(net.mass[i / 3]);
  const Eigen::MatrixXd A = inv_sqrt_m.asDiagonal() * K * inv_sqrt_m.asDiagonal();
  const Real largest = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A).eigenvalues().cwiseAbs().maxCoeff();
  const Real bound = NodeNetworkModel(net, {}, {}, 1).frequency_bounds(x).omega_squared;
  std::printf("%s, nu 0.49: gather vs assembled Hessian %.2e; omega_max^2 %.4e, its bound %.4e (x%.2f)\n",
              cell_type_name(type), error, largest, bound, bound / largest);
  EXPECT_LT(error, 1e-6) << cell_type_name(type);
  EXPECT_GE(bound, largest) << cell_type_name(type) << ": the stable step would not be safe";
  EXPECT_LT(bound, 4 * largest) << cell_type_name(type);
}

TEST(NetworkVolumeDynamics, TheGatherIsTheHessiansForceAndTheStableStepBoundsItsSpectrum) {
  check_hessian_and_bound<fem::Tet4Volume>(CellType::Tet4);
  check_hessian_and_bound<fem::Hex8Volume>(CellType::Hex8);
}

struct Momenta {
  Vec3 linear = Vec3::Zero(), angular = Vec3::Zero();
  Real scale = 0;  ///< sum m |v|
};

Momenta momenta(const ExplicitModel& model, const std::vector<Real>& x, const std::vector<Real>& v) {
  Momenta p;
  for (int n = 0; n < model.num_dofs() / 3; ++n) {
    const Real m = model.mass()[3 * n];
    p.linear += m * node_at(v, n);
    p.angular += m * node_at(x, n).cross(node_at(v, n));
    p.scale += m * node_at(v, n).norm();
  }
  return p;
}

TEST(NetworkVolumeDynamics, AFreeNetworkKeepsItsMomentaAndItsEnergy) {
  for (CellType type : {CellType::Tet4, CellType::Hex8}) {
    const NodeNetwork net = block(type, 3, 0.45);
    // A spin about the block's centre, a breathing motion that works the volume terms, and noise.
    std::mt19937 rng(5);
    std::uniform_real_distribution<Real> u(-0.2, 0.2);
    std::vector<Real> v(net.X.size());
    for (int n = 0; n < net.num_nodes(); ++n) {
      const Vec3 r = node_at(net.X, n) - Vec3(0.015, 0.015, 0.015);
      const Vec3 vn = Vec3(3, -1, 2).cross(r) + 20 * r + Vec3(u(rng), u(rng), u(rng));
      for (int k = 0; k < 3; ++k) v[3 * n + k] = vn[k];
    }
    Vec3 mean = Vec3::Zero();
    Real M = 0;
    for (int n = 0; n < net.num_nodes(); ++n) mean += net.mass[n] * node_at(v, n), M += net.mass[n];
    for (int n = 0; n < net.num_nodes(); ++n)
      for (int k = 0; k < 3; ++k) v[3 * n + k] -= mean[k] / M;
    const NodeNetworkModel model(net, {}, {}, 1);
    ExplicitOptions o;
    o.safety = 0.1;  // the error of the energy at whole steps is O((omega dt)^2)
    ExplicitSolver solver(model, o);
    solver.set_state(net.X, v);
    const Momenta p0 = momenta(model, solver.x(), solver.v());
    const Real E0 = solver.kinetic_energy() + solver.potential_energy();
    const int steps = 4000;
    Real first = 0, last = 0, largest_potential = 0;
    for (int s = 1; s <= steps; ++s) {
      solver.step();
      if (s % 10 != 0) continue;
      largest_potential = std::max(largest_potential, solver.potential_energy());
      const Real drift = std::abs(solver.kinetic_energy() + solver.potential_energy() - E0) / E0;
      if (s <= steps / 10) first = std::max(first, drift);
      if (s > steps - steps / 10) last = std::max(last, drift);
    }
    const Momenta p = momenta(model, solver.x(), solver.v());
    std::printf(
        "%s free network, nu 0.45, %d steps: energy error %.2e (first tenth) %.2e (last tenth); momentum "
        "%.1e, angular momentum change %.1e (relative)\n",
        cell_type_name(type), steps, first, last, p.linear.norm() / p0.scale,
        (p.angular - p0.angular).norm() / p0.angular.norm());
    EXPECT_GT(largest_potential, 0.05 * E0) << "the motion strains the network";
    EXPECT_LT(p.linear.norm(), 1e-12 * p0.scale) << cell_type_name(type);
    EXPECT_LT((p.angular - p0.angular).norm(), 1e-10 * p0.angular.norm()) << cell_type_name(type);
    EXPECT_LT(first, 3e-3) << cell_type_name(type);
    EXPECT_LT(last, 2 * first + 1e-6) << cell_type_name(type) << ": the energy error grows";
  }
}

TEST(NetworkVolumeDynamics, ANearlyIncompressibleNetworkRunsAtItsSmallerStableStep) {
  // The bulk wave is faster than the bar wave by sqrt((1 - nu) / ((1 + nu)(1 - 2 nu))) (1.95 at
  // nu = 0.45, 4.1 at 0.49): the stable step shrinks with it. At 0.9 of it, from a rough initial
  // state that rings the highest modes, the energy error is large (omega dt is O(1)) but does not grow.
  const NodeNetwork quarter = block(CellType::Hex8, 3, 0.25), net = block(CellType::Hex8, 3, 0.49);
  const NodeNetworkModel quarter_model(quarter, {}, {}, 1), model(net, {}, {}, 1);
  ExplicitSolver quarter_solver(quarter_model), solver(model);
  const Real ratio = quarter_solver.stable_time_step() / solver.stable_time_step();
  std::printf("stable step nu 0.25 / nu 0.49: %.3f\n", ratio);
  EXPECT_GT(ratio, 3.0);
  EXPECT_LT(ratio, 8.0);
  solver.set_state(deformed(net, 2e-4, 9), std::vector<Real>(net.X.size(), 0.0));
  const Real E0 = solver.potential_energy();
  const int steps = 3000;
  Real first = 0, last = 0;
  for (int s = 1; s <= steps; ++s) {
    solver.step();
    const Real error = std::abs(solver.kinetic_energy() + solver.potential_energy() - E0) / E0;
    if (s <= steps / 3) first = std::max(first, error);
    if (s > steps - steps / 3) last = std::max(last, error);
  }
  std::printf("nu 0.49 at 0.9 dt_c, %d steps: energy error %.2e (first third) %.2e (last third)\n", steps, first, last);
  EXPECT_LT(first, 0.5);
  EXPECT_LT(last, 1.5 * first) << "the energy error grows: the step is not stable";
}

TEST(NetworkVolumeDynamics, ACellThatInvertsDuringARunIsAnErrorNamingIt) {
  const NodeNetwork net = block(CellType::Tet4, 1, 0.45);
  const NodeNetworkModel model(net, {}, {}, 1);
  ExplicitOptions o;
  o.steps_per_frame = 1;
  ExplicitSolver solver(model, o);
  // Node 0 of cell 2 mirrored through its opposite face, at rest.
  std::vector<Real> x = net.X;
  const int* cell = net.volume_cells.data() + 4 * 2;
  const Vec3 centroid = (node_at(x, cell[1]) + node_at(x, cell[2]) + node_at(x, cell[3])) / 3;
  const Vec3 through = 2 * centroid - node_at(x, cell[0]);
  for (int k = 0; k < 3; ++k) x[3 * cell[0] + k] = through[k];
  solver.set_state(x, std::vector<Real>(x.size(), 0.0));
  try {
    solver.advance(solver.time_step());
    ADD_FAILURE() << "the run went on with an inverted cell";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Numerical);
    EXPECT_NE(std::string(e.what()).find("volume cell"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("inverted"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace softik
