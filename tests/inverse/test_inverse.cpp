// The inverse problem (issue 4): round trips through the forward solver, unreachable targets
// against a search over the input, Gauss-Seidel vs QP, the minimal-energy choice among redundant
// actuators, bounds and rate limits at every step, infeasible bounds, the forward-solve-only step
// (W = Z_J^T Z_J with Z_J = L^-1 P J^T) against the full solves, and the continuation path of
// the converged solve toward a far target. Cables: test_inverse_cable.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "softik/actuator_generator.hpp"
#include "softik/inverse.hpp"
#include "softik/static_solver.hpp"

#include "tests/inverse_test_support.hpp"

namespace softik {
namespace {

using namespace inverse_test;

TEST(Inverse, ReachableTargetRoundTripsThroughTheForwardSolver) {
  const Finger f;
  const Real P_true = 20e3;
  const std::array<Real, 3> goal = f.tip().position(f.inflate(P_true));
  // A real bend: the tip moves by several millimetres.
  EXPECT_GT(distance(goal, f.tip().position(f.mesh.rest_positions()), {true, true, true}), 0.002);
  for (InverseMethod method : {InverseMethod::QP, InverseMethod::GaussSeidel}) {
    auto solver = make_linear_solver();
    InverseOptions options;
    options.method = method;
    InverseSolver inverse(f.assembler, *solver, {}, options);
    inverse.add(f.actuator({0, 50e3}));
    auto tip = f.effector(goal);
    inverse.add(tip);
    std::vector<Real> x = f.mesh.rest_positions();
    const InverseSolveReport r = inverse.solve(x);
    ASSERT_TRUE(r.converged) << "iterations " << r.iterations;
    std::printf("method %d: %d iterations, pressure %.9g\n", static_cast<int>(method), r.iterations,
                inverse.lambda()[0]);
    EXPECT_NEAR(inverse.lambda()[0], P_true, 1e-6 * P_true);
    EXPECT_LE(distance(tip->position(x), goal, {true, false, true}), 1e-6 * kSize);
    // Forward re-simulation with the found pressure lands on the target.
    const std::vector<Real> x_fwd = f.inflate(inverse.lambda()[0]);
    EXPECT_LE(distance(f.tip().position(x_fwd), goal, {true, false, true}), 1e-6 * kSize);
  }
}

TEST(Inverse, UnreachableTargetSaturatesTheInputAndMinimisesTheError) {
  const Finger f;
  const Real P_max = 10e3;
  const std::array<Real, 3> goal = f.tip().position(f.inflate(25e3));
  auto solver = make_linear_solver();
  InverseSolver inverse(f.assembler, *solver);
  inverse.add(f.actuator({0, P_max}));
  auto tip = f.effector(goal);
  inverse.add(tip);
  std::vector<Real> x = f.mesh.rest_positions();
  ASSERT_TRUE(inverse.solve(x).converged);
  EXPECT_DOUBLE_EQ(inverse.lambda()[0], P_max);
  const Real error = distance(tip->position(x), goal, {true, false, true});
  // A search over the admissible pressures: none does better than the inverse answer.
  Real best = kInf;
  for (int k = 0; k <= 10; ++k)
    best = std::min(best, distance(f.tip().position(f.inflate(k * P_max / 10)), goal, {true, false, true}));
  // The best sample is the bound itself: equal up to the two solvers' tolerances.
  EXPECT_LE(error, best + 1e-9 * kSize);
}

TEST(Inverse, BoundsAndRateLimitsHoldAtEveryRealTimeStep) {
  const Finger f;
  const std::array<Real, 3> goal = f.tip().position(f.inflate(25e3));
  auto solver = make_linear_solver();
  InverseSolver inverse(f.assembler, *solver);
  const Real V0 = surface_volume(f.cavity, f.mesh, f.mesh.rest_positions());
  const Real max_growth = 0.3 * V0, rate = 0.04 * V0, P_max = 40e3;
  auto act = f.actuator({0, P_max}, {-kInf, max_growth}, rate);
  inverse.add(act);
  inverse.add(f.effector(goal));
  std::vector<Real> x = f.mesh.rest_positions();
  Real previous_growth = 0;
  bool limited_by_growth = false;
  for (int s = 0; s < 30; ++s) {
    const InverseStepReport rep = inverse.step(x);
    ASSERT_EQ(rep.status, QpStatus::Optimal) << rep.message;
    const Real P = inverse.lambda()[0];
    EXPECT_GE(P, 0.0);
    EXPECT_LE(P, P_max);
    // The constraint holds on the linearisation the step solved: the predicted growth change.
    EXPECT_LE(std::abs(rep.actuator_delta[0] - previous_growth), rate * (1 + 1e-9)) << "step " << s;
    EXPECT_LE(rep.actuator_delta[0], max_growth * (1 + 1e-9)) << "step " << s;
    // The nonlinear state after the step follows it to first order.
    const Real growth = surface_volume(f.cavity, f.mesh, x) - V0;
    EXPECT_NEAR(growth, rep.actuator_delta[0], 0.05 * rate) << "step " << s;
    previous_growth = growth;
    limited_by_growth = limited_by_growth || std::abs(rep.actuator_delta[0] - max_growth) < 1e-9 * V0;
  }
  EXPECT_TRUE(limited_by_growth) << "the goal needs more volume than allowed: the growth bound must become active";
}

TEST(Inverse, EnergyTermSplitsRedundantSymmetricActuatorsEvenly) {
  // Two identical cavities symmetric about y = 0.015, one effector row (z of a point on the
  // symmetry plane): infinitely many pressure pairs reach it; the minimal-energy one is even.
  MultiCavitySpec spec;
  spec.size = {0.06, 0.03, 0.03};
  spec.cavities = {{0.012, 0.004, 0.008, 0.036, 0.008, 0.008}, {0.012, 0.018, 0.008, 0.036, 0.008, 0.008}};
  spec.cell_size = 0.004;
  spec.cell_type = CellType::Hex8;
  const Mesh mesh = make_multi_cavity_block(spec);
  const Assembler assembler(mesh, {fem::NeoHookean::from_young_poisson(2e5, 0.45)},
                            fix_nodes(mesh, mesh.node_groups.at("zmin")), AssemblyOptions{Formulation::Hyperelastic});
  auto solver = make_linear_solver();
  InverseSolver inverse(assembler, *solver);
  // Only the energy term fixes the split along the redundant direction, so round-off in W moves
  // it by about u / epsilon_min relative (measured: 8e-9 at epsilon_min = 1e-8, 1.7e-6 at the
  // default 1e-10, 9e-5 at 1e-12; the mesh is symmetric, the node order is not). At 1e-8 the
  // split is even to well within the tolerance below, and the effector is still reached.
  inverse.options().epsilon_min = 1e-8;
  for (const char* name : {"cavity0", "cavity1"}) {
    SurfacePressureActuatorSpec s;
    s.name = name;
    s.cavity.name = name;
    s.cavity.surface = mesh.surface_groups.at(name);
    s.pressure = {0, 1e5};
    inverse.add(make_surface_pressure_actuator(mesh, s));
  }
  PositionEffectorSpec e;
  e.name = "top";
  e.point = AttachedPoint::at(mesh, {0.03, 0.015, 0.03}, 1e-9);
  e.goal = {0.03, 0.015, 0.0305};
  e.axes = {false, false, true};
  auto top = make_position_effector(mesh, e);
  inverse.add(top);
  std::vector<Real> x = mesh.rest_positions();
  ASSERT_TRUE(inverse.solve(x).converged);
  const Real p0 = inverse.lambda()[0], p1 = inverse.lambda()[1];
  EXPECT_GT(p0, 0.0);
  EXPECT_NEAR(p0, p1, 1e-6 * p0);
  EXPECT_NEAR(top->position(x)[2], 0.0305, 1e-6 * 0.06);
}

TEST(Inverse, InfeasibleBoundsAreReportedWithTheConflictingActuator) {
  // Minimum pressure 5 kPa, yet no volume growth allowed: no input satisfies both.
  const Finger f;
  auto solver = make_linear_solver();
  InverseSolver inverse(f.assembler, *solver);
  inverse.add(f.actuator({5e3, 20e3}, {-kInf, 0.0}));
  inverse.add(f.effector(f.tip().position(f.mesh.rest_positions())));
  std::vector<Real> x = f.mesh.rest_positions();
  const InverseStepReport rep = inverse.step(x);
  EXPECT_EQ(rep.status, QpStatus::Infeasible);
  EXPECT_NE(rep.message.find("cavity"), std::string::npos) << rep.message;
}

TEST(Inverse, ForwardSolvesOnlyGiveTheSameStepAsFullSolves) {
  // Two actuators (cavity, cable) and the tip: three real-time steps with the half path
  //   Z = L^-1 P [rhs, J^T], W = Z_J^T Z_J, delta_free = delta + Z_J^T Z0, dx = P^T L^-T (Z0 + Z_J,a lambda_a)
  // and with full solves Z = K^-1 [rhs, J^T], for every linear solver with a Cholesky factor.
  const Finger f;
  const std::array<Real, 3> goal = f.tip().position(f.inflate(20e3));
  CableActuatorSpec cable;
  cable.name = "cable";
  cable.pull_point = {-0.01, 0.01, 0.002};
  for (Real xi : {0.0, 0.03, 0.06, 0.1}) cable.points.push_back(AttachedPoint::at(f.mesh, {xi, 0.01, 0.002}, 1e-9));
  cable.force = {0, 50};
  std::vector<LinearSolverKind> kinds{LinearSolverKind::EigenLDLT};
  if (have_cholmod()) kinds.push_back(LinearSolverKind::Cholmod);
  const std::vector<Real> rest = f.mesh.rest_positions();
  constexpr int kSteps = 3;
  for (LinearSolverKind kind : kinds) {
    std::vector<std::vector<Real>> lambda[2], x_after[2];
    std::vector<Real> effector_error[2];
    for (int half = 0; half < 2; ++half) {
      auto solver = make_linear_solver(kind);
      InverseOptions options;
      options.half_solves = half == 1;
      InverseSolver inverse(f.assembler, *solver, {}, options);
      inverse.add(f.actuator({0, 50e3}));
      inverse.add(make_cable_actuator(f.mesh, cable));
      inverse.add(f.effector(goal));
      std::vector<Real> x = rest;
      for (int s = 0; s < kSteps; ++s) {
        const InverseStepReport rep = inverse.step(x);
        ASSERT_EQ(rep.status, QpStatus::Optimal) << rep.message;
        EXPECT_EQ(rep.half_solves, half == 1) << solver->name() << " step " << s;
        lambda[half].push_back(rep.lambda);
        x_after[half].push_back(x);
        effector_error[half].push_back(rep.effector_error);
      }
    }
    for (int s = 0; s < kSteps; ++s) {
      const Eigen::Map<const Eigen::VectorXd> l_half(lambda[1][s].data(), 2), l_full(lambda[0][s].data(), 2);
      EXPECT_LE((l_half - l_full).norm(), 1e-10 * l_full.norm())
          << "step " << s << ": " << l_half.transpose() << " vs " << l_full.transpose();
      Real dx = 0, u = 0;  // |x_half - x_full| relative to the displacement |x_full - X|
      for (size_t k = 0; k < rest.size(); ++k) {
        dx += std::pow(x_after[1][s][k] - x_after[0][s][k], 2);
        u += std::pow(x_after[0][s][k] - rest[k], 2);
      }
      EXPECT_LE(std::sqrt(dx), 1e-10 * std::sqrt(u)) << "step " << s;
      EXPECT_NEAR(effector_error[1][s], effector_error[0][s], 1e-10 * kSize) << "step " << s;
    }
    EXPECT_GT(lambda[0].back()[0], 0.0) << "the cavity must work for the comparison to mean something";
  }
}

TEST(Inverse, ConvergedSolveFollowsAContinuationPathToAFarTarget) {
  // A target (and an imposed pressure) far enough that Newton from rest does not converge in one
  // go: solve() halves the path until it does, then lands on the same answer as the forward
  // static solver with its load steps.
  const Finger f;
  const Real P_true = 30e3;
  const std::vector<Real> x_static = f.inflate(P_true);
  const std::array<Real, 3> goal = f.tip().position(x_static);
  auto solver = make_linear_solver();
  InverseSolver inverse(f.assembler, *solver);
  inverse.add(f.actuator({0, 60e3}));
  auto tip = f.effector(goal);
  inverse.add(tip);
  std::vector<Real> x = f.mesh.rest_positions();
  const InverseSolveReport r = inverse.solve(x);
  std::printf("inverse: %d iterations, %d increments, %d cuts\n", r.iterations, r.increments, r.cuts);
  ASSERT_TRUE(r.converged);
  EXPECT_GT(r.cuts, 0);  // the path was needed
  EXPECT_NEAR(inverse.lambda()[0], P_true, 1e-6 * P_true);
  EXPECT_LE(distance(tip->position(x), goal, {true, false, true}), 1e-6 * kSize);

  // Forward mode: the same pressure imposed (equal bounds) gives the static solver's state.
  auto solver2 = make_linear_solver();
  InverseSolver forward(f.assembler, *solver2);
  forward.add(f.actuator({P_true, P_true}));
  std::vector<Real> x_fwd = f.mesh.rest_positions();
  const InverseSolveReport rf = forward.solve(x_fwd);
  std::printf("forward: %d iterations, %d increments, %d cuts\n", rf.iterations, rf.increments, rf.cuts);
  ASSERT_TRUE(rf.converged);
  Real diff = 0, scale = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    diff = std::max(diff, std::abs(x_fwd[k] - x_static[k]));
    scale = std::max(scale, std::abs(x_static[k] - f.mesh.X[k]));
  }
  EXPECT_LE(diff, 1e-8 * scale);
}

TEST(Inverse, RealTimeStepsReusingTheFactorisationReachTheSameAnswer) {
  // Chord steps (an earlier factorisation of K reused) have the same fixed point as full steps:
  // after enough real-time steps both give the same pressure and tip position, the reused run
  // with far fewer factorisations.
  const Finger f;
  const std::array<Real, 3> goal = f.tip().position(f.inflate(15e3));
  std::vector<Real> lambda_end[2];
  std::array<Real, 3> tip_end[2];
  int factorisations[2] = {0, 0};
  for (int reuse : {0, 8}) {
    auto solver = make_linear_solver();
    InverseOptions options;
    options.reuse_factorization = reuse;
    options.actuator_stiffness = true;
    InverseSolver inverse(f.assembler, *solver, {}, options);
    inverse.add(f.actuator({0, 50e3}));
    PositionEffectorSpec spec;
    spec.name = "tip";
    spec.point = f.tip();
    spec.goal = goal;
    spec.axes = {true, false, true};
    spec.max_shift = 0.001;  // approach the goal by at most 1 mm per step, as a controller would
    auto tip = make_position_effector(f.mesh, spec);
    inverse.add(tip);
    std::vector<Real> x = f.mesh.rest_positions();
    const int k = reuse > 0 ? 1 : 0;
    for (int step = 0; step < 60; ++step) factorisations[k] += inverse.step(x).refactored ? 1 : 0;
    lambda_end[k] = inverse.lambda();
    tip_end[k] = tip->position(x);
  }
  std::printf("factorisations in 60 steps: %d (every step), %d (reuse up to 8)\n", factorisations[0],
              factorisations[1]);
  EXPECT_EQ(factorisations[0], 60);
  EXPECT_LE(factorisations[1], 20);
  EXPECT_NEAR(lambda_end[1][0], lambda_end[0][0], 1e-6 * lambda_end[0][0]);
  EXPECT_LE(distance(tip_end[1], tip_end[0], {true, true, true}), 1e-8 * kSize);
  // and the real-time answer is near the goal (up to the energy term's bias)
  EXPECT_LE(distance(tip_end[0], goal, {true, false, true}), 1e-4 * kSize);
}

}  // namespace
}  // namespace softik

namespace softik {
namespace {

TEST(Inverse, ChordStepsKeepTheSolvesOfRowsWhoseJacobianDidNotChange) {
  // While a factorisation is kept, the half path keeps Z_J = L^-1 P J^T of the constraint rows
  // whose J is unchanged (the tip: a fixed interpolation) and solves again those whose J moves
  // with the finger (cavity, cable); the full path (Z = K^-1 [r, J^T]) keeps K^-1 J^T of the
  // same rows. Kept columns are what a solve would give (test_kept_columns.cpp), so every step
  // of the two paths must be the same chord step to round-off: they differ by round-off that
  // the first, large steps amplify (up to 3e-9 measured), where a stale column (the cavity's J
  // of an earlier step) moves the state by more than 1e-6.
  const inverse_test::Finger f;
  const std::array<Real, 3> goal = f.tip().position(f.inflate(20e3));
  CableActuatorSpec cable;
  cable.name = "cable";
  cable.pull_point = {-0.01, 0.01, 0.002};
  for (Real xi : {0.0, 0.03, 0.06, 0.1}) cable.points.push_back(AttachedPoint::at(f.mesh, {xi, 0.01, 0.002}, 1e-9));
  cable.force = {0.5, 50};  // always pulling: its row moves and its low-rank stiffness is there
  const std::vector<Real> rest = f.mesh.rest_positions();
  constexpr int kSteps = 30;
  std::vector<std::vector<Real>> lambda[2], x_after[2];
  int chord = 0;
  for (int half = 0; half < 2; ++half) {
    auto solver = make_linear_solver();
    InverseOptions options;
    options.reuse_factorization = 20;
    options.actuator_stiffness = true;
    options.half_solves = half == 1;
    InverseSolver inverse(f.assembler, *solver, {}, options);
    inverse.add(f.actuator({0, 50e3}));
    inverse.add(make_cable_actuator(f.mesh, cable));
    PositionEffectorSpec spec;
    spec.name = "tip";
    spec.point = f.tip();
    spec.goal = goal;
    spec.axes = {true, false, true};
    spec.max_shift = 0.001;
    inverse.add(make_position_effector(f.mesh, spec));
    std::vector<Real> x = rest;
    for (int step = 0; step < kSteps; ++step) {
      const InverseStepReport r = inverse.step(x);
      ASSERT_EQ(r.status, QpStatus::Optimal) << r.message;
      if (half == 0) {
        EXPECT_FALSE(r.half_solves) << "step " << step;
      }
      if (!r.refactored) {
        EXPECT_EQ(r.kept_columns, 2) << "step " << step << ": the tip's x and z rows";
        chord += half == 1 && r.half_solves ? 1 : 0;
      } else {
        EXPECT_EQ(r.kept_columns, 0) << "step " << step;
      }
      lambda[half].push_back(r.lambda);
      x_after[half].push_back(x);
    }
  }
  std::printf("%d of %d steps kept the tip's columns; pressure %.9g Pa, tension %.9g N at the end\n", chord, kSteps,
              lambda[1].back()[0], lambda[1].back()[1]);
  EXPECT_GE(chord, kSteps / 2);
  EXPECT_GE(lambda[1].back()[1], 0.5) << "the cable must pull for its moving row to mean something";
  for (int s = 0; s < kSteps; ++s) {
    const Eigen::Map<const Eigen::VectorXd> l_kept(lambda[1][s].data(), 2), l_full(lambda[0][s].data(), 2);
    EXPECT_LE((l_kept - l_full).norm(), 1e-8 * l_full.norm()) << "step " << s;
    Real dx = 0, u = 0;
    for (size_t k = 0; k < rest.size(); ++k) {
      dx += std::pow(x_after[1][s][k] - x_after[0][s][k], 2);
      u += std::pow(x_after[0][s][k] - rest[k], 2);
    }
    EXPECT_LE(std::sqrt(dx), 1e-8 * std::sqrt(u)) << "step " << s;
  }
}

}  // namespace
}  // namespace softik
