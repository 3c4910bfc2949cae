// Control inside the dynamic loop (issue 16 item 2; dynamics.hpp, "Control"): the inverse step
// with the compliance of the time step. The pneumatic finger of the inverse tests, heavily damped
// so that it settles: the controller brings the tip to a reachable goal and the state settles on
// the static answer (the forward equilibrium at the pressure that put the goal there); a bound
// below the needed pressure is held at every step and the state settles at the bound; against a
// wall, a goal beyond it: complementarity and no penetration at every step, the tip held on the
// wall and the reason given; bad input is refused and a failed step changes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/inverse_test_support.hpp"
#include "softik/dynamics.hpp"
#include "softik/error.hpp"

namespace softik {
namespace {

using inverse_test::Finger;
using inverse_test::FingerAndWall;
using inverse_test::kSize;

/// Backward Euler, dt = 10 ms, silicone's density and mass-proportional damping near critical for
/// the finger's first bending mode (about 4 Hz): it settles within a few tenths of a second.
DynamicsOptions damped(ContactOptions contact = {}) {
  DynamicsOptions o;
  o.dt = 0.01;
  o.density = 1070;
  o.rayleigh_mass = 60;
  o.contact = std::move(contact);
  return o;
}

Real max_difference(const std::vector<Real>& a, const std::vector<Real>& b) {
  Real d = 0;
  for (size_t k = 0; k < a.size(); ++k) d = std::max(d, std::abs(a[k] - b[k]));
  return d;
}

TEST(DynamicControl, ReachesAGoalAndSettlesOnTheStaticAnswer) {
  const Finger f;
  const std::vector<Real> x10 = f.inflate(1e4);
  const std::array<Real, 3> goal = f.tip().position(x10);
  auto solver = make_linear_solver();
  DynamicSolver dyn(f.assembler, *solver, {}, damped());
  dyn.control_options().epsilon = 1e-10;  // the energy term biases the fixed point by about epsilon
  auto eff = f.effector(goal);
  dyn.add_control(f.actuator({0, 3e4}));
  dyn.add_control(eff);
  Real first_error = 0;
  for (int k = 0; k < 150; ++k) {
    const DynamicStepReport r = dyn.step();
    ASSERT_EQ(r.control.status, QpStatus::Optimal) << "step " << k << ": " << r.control.message;
    ASSERT_EQ(r.control.lambda.size(), 1u);
    EXPECT_GE(r.control.lambda[0], 0) << "step " << k;
    EXPECT_LE(r.control.lambda[0], 3e4) << "step " << k;
    EXPECT_EQ(dyn.actuation()[0], r.control.lambda[0]);
    if (k == 0) first_error = inverse_test::distance(eff->position(dyn.positions()), goal, {true, false, true});
  }
  const Real error = inverse_test::distance(eff->position(dyn.positions()), goal, {true, false, true});
  std::cout << "  [goal] pressure " << dyn.actuation()[0] << " Pa, tip error " << first_error << " after one step, "
            << error << " at the end, kinetic energy " << dyn.kinetic_energy() << " J\n";
  EXPECT_LT(error, 1e-6 * kSize);
  EXPECT_NEAR(dyn.actuation()[0], 1e4, 1e-4 * 1e4);
  EXPECT_LT(max_difference(dyn.positions(), x10), 1e-6 * kSize);
  EXPECT_LT(dyn.kinetic_energy(), 1e-12);
}

TEST(DynamicControl, APressureBoundIsHeldAtEveryStep) {
  const Finger f;
  const std::array<Real, 3> goal = f.tip().position(f.inflate(1e4));
  auto solver = make_linear_solver();
  DynamicSolver dyn(f.assembler, *solver, {}, damped());
  dyn.add_control(f.actuator({0, 6e3}));  // 10 kPa would be needed
  dyn.add_control(f.effector(goal));
  for (int k = 0; k < 120; ++k) {
    const DynamicStepReport r = dyn.step();
    ASSERT_NE(r.control.status, QpStatus::Infeasible) << r.control.message;
    EXPECT_GE(r.control.lambda[0], 0) << "step " << k;
    EXPECT_LE(r.control.lambda[0], 6e3) << "step " << k;
  }
  EXPECT_EQ(dyn.actuation()[0], 6e3);
  EXPECT_LT(max_difference(dyn.positions(), f.inflate(6e3)), 1e-6 * kSize);
}

TEST(DynamicControl, AGoalBeyondAWallIsHeldThereAndExplained) {
  const FingerAndWall f;
  auto solver = make_linear_solver();
  DynamicSolver dyn(f.assembler, *solver, {}, damped(f.contact(0)));
  dyn.add_control(f.actuator({0, 3e4}));
  auto eff = f.effector(f.tip10);
  dyn.add_control(eff);
  DynamicStepReport r;
  for (int k = 0; k < 100; ++k) {
    r = dyn.step();
    EXPECT_LE(r.max_penetration, 1e-6 * kSize) << "step " << k;
    ASSERT_TRUE(std::isfinite(r.control.effector_error));
    EXPECT_GE(dyn.actuation()[0], 0);
    EXPECT_LE(dyn.actuation()[0], 3e4);
    // Complementarity at every step: lambda_n >= 0, no penetration, a pressed node on the wall.
    inverse_test::expect_contact_conditions(dyn.contacts(), dyn.contact_forces(), dyn.positions(), f.wall(0), 0,
                                            "step " + std::to_string(k));
  }
  // It settles on the static inverse problem's answer with the same wall.
  InverseSolver still(f.assembler, *solver);
  still.add(f.actuator({0, 3e4}));
  still.add(f.effector(f.tip10));
  still.set_contact(f.contact(0));
  std::vector<Real> x_static = f.x0;
  ASSERT_TRUE(still.solve(x_static).converged);
  std::cout << "  [wall] dynamic control settles at " << dyn.actuation()[0] << " Pa, the static solve at "
            << still.lambda()[0] << " Pa\n";
  EXPECT_NEAR(dyn.actuation()[0], still.lambda()[0], 1e-3 * still.lambda()[0]);
  EXPECT_LT(max_difference(dyn.positions(), x_static), 1e-6 * kSize);
  const Real wall_z = f.wall(0).center(2);
  EXPECT_LE(f.side * (eff->position(dyn.positions())[2] - wall_z), 1e-6 * kSize);
  EXPECT_GT(inverse_test::distance(eff->position(dyn.positions()), f.tip10, {true, false, true}),
            0.3 * std::abs(f.tip10[2] - f.tip0[2]));
  // Touching: a contact at zero gap (pressing harder would bend the finger, not bring the tip closer,
  // so its force may be zero).
  Real closest = kInf;
  for (size_t i = 0; i < dyn.contacts().size(); ++i) closest = std::min(closest, std::abs(dyn.contact_deltas()[3 * i]));
  EXPECT_LT(closest, 1e-6 * kSize);
  EXPECT_NE(r.control.message.find("touching (contact of node"), std::string::npos) << r.control.message;
  EXPECT_NE(r.control.message.find("lies inside obstacle 'wall'"), std::string::npos) << r.control.message;
}

TEST(DynamicControl, AContactAnswerThatBreaksTheContactLawsIsCountedUnconverged) {
  // The cavity's pressure imposed (both bounds 10 kPa): each step's contact forces are the
  // forward contact solve's. With the sweeps cut to 1 it cannot converge once the tip presses the
  // wall, and the step must say so in contact_solve (not only in the control's status).
  const FingerAndWall f;
  auto solver = make_linear_solver();
  for (const int sweeps : {2000, 1}) {
    ContactOptions contact = f.contact(0.3);
    contact.solver.max_iterations = sweeps;
    DynamicSolver dyn(f.assembler, *solver, {}, damped(contact));
    dyn.add_control(f.actuator({1e4, 1e4}));
    int pressing = 0, unconverged = 0;
    for (int k = 0; k < 40; ++k) {
      const DynamicStepReport r = dyn.step();
      if (r.active_contacts == 0) continue;
      ++pressing;
      unconverged += r.contact_solve.converged ? 0 : 1;
    }
    EXPECT_GT(pressing, 10) << sweeps << " sweeps";
    if (sweeps == 1) {
      EXPECT_GT(unconverged, 0);
    } else {
      EXPECT_EQ(unconverged, 0);
    }
  }
}

TEST(DynamicControl, BadControlInputIsRefused) {
  const FingerAndWall f;
  auto solver = make_linear_solver();
  DynamicSolver dyn(f.assembler, *solver, {}, damped(f.contact(0)));
  EXPECT_THROW(dyn.add_control(nullptr), Error);
  dyn.add_control(f.actuator({0, 3e4}));
  EXPECT_THROW(dyn.add_control(f.actuator({0, 1e4})), Error);  // the same name twice
  // A driven actuator cannot also be solved for.
  DynamicLoads loads;
  auto cavity = f.actuator({0, 3e4});
  loads.actuators.push_back({cavity, {}});
  DynamicSolver driven(f.assembler, *solver, loads, damped());
  EXPECT_THROW(driven.add_control(cavity), Error);
  // A step that fails leaves the state where it was: an effector whose goal is NaN.
  DynamicSolver bad(f.assembler, *solver, {}, damped());
  bad.add_control(f.actuator({0, 3e4}));
  auto eff = f.effector(f.tip10);
  bad.add_control(eff);
  eff->set_goal({std::nan(""), 0, 0});
  EXPECT_THROW(bad.step(), Error);
  EXPECT_EQ(bad.time(), 0);
  EXPECT_EQ(bad.actuation()[0], 0);
  EXPECT_EQ(bad.positions(), f.x0);
}

}  // namespace
}  // namespace softik
