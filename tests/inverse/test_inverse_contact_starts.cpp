// Where the pivoting on contact states starts (issue 16; host/inverse/inverse_contact.cpp,
// docs/inverse_contact.md "Starts"): the forward answer on the QP's own friction pyramid
// (contact::solve_box_pyramid) meets every condition of its piece on random problems; an effector
// that only a contact can move (an object held by a finger) is reached from the start where the
// actuators at their upper bounds press that contact, where the states carried over (apart) see
// no slope; and the gripper of examples/gripper/gripper_control.yaml moves the ball to each goal
// with the contact laws, the pyramid and the pressure bounds holding at every time step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "host/contact/contact_solvers.hpp"
#include "host/inverse/contact_complementarity.hpp"
#include "host/inverse/inverse_contact.hpp"
#include "softik/dynamics.hpp"
#include "softik/error.hpp"
#include "softik/scene.hpp"
#include "tests/contact_space_fixture.hpp"

namespace softik {
namespace {

using inverse_detail::ContactState;

/// The compliance W = J K^-1 J^T of n contacts at the first n nodes of a body of 2n nodes with a
/// random SPD stiffness K, each contact's rows (normal, t1, t2) a random orthonormal frame at its
/// node: the structure of a contact problem (coupled blocks, each a node's compliance).
Eigen::MatrixXd random_contact_compliance(std::mt19937& rng, int n) {
  std::normal_distribution<Real> g(0, 1);
  const int dofs = 6 * n;
  Eigen::MatrixXd A(dofs, dofs), J = Eigen::MatrixXd::Zero(3 * n, dofs);
  for (int i = 0; i < dofs; ++i)
    for (int j = 0; j < dofs; ++j) A(i, j) = g(rng);
  const Eigen::MatrixXd K = A * A.transpose() + dofs * Eigen::MatrixXd::Identity(dofs, dofs);
  for (int i = 0; i < n; ++i) {
    Eigen::Matrix3d M;
    for (int r = 0; r < 9; ++r) M(r / 3, r % 3) = g(rng);
    const Eigen::Matrix3d frame = Eigen::HouseholderQR<Eigen::Matrix3d>(M).householderQ();
    J.block(3 * i, 3 * i, 3, 3) = frame.transpose();
  }
  return J * K.ldlt().solve(J.transpose());
}

TEST(BoxPyramid, RandomProblemsMeetThePyramidsContactLaws) {
  std::mt19937 rng(16);
  std::normal_distribution<Real> g(0, 1);
  int converged = 0, pressed = 0, stick = 0, slip = 0;
  const int trials = 40;
  for (int trial = 0; trial < trials; ++trial) {
    const int n = 6;
    const Eigen::MatrixXd W = random_contact_compliance(rng, n);
    Eigen::VectorXd q(3 * n);
    for (int i = 0; i < 3 * n; ++i) q(i) = g(rng);
    std::vector<Real> mu;
    for (int i = 0; i < n; ++i) mu.push_back(i % 3 == 0 ? 0.0 : 0.4 * (i % 3));
    Eigen::VectorXd lambda;
    const ContactSolverReport r = contact::solve_box_pyramid(W, q, mu, lambda, 5000);
    if (!r.converged) continue;
    ++converged;
    const Eigen::VectorXd d = q + W * lambda;
    const Real length = 1e-8 * q.cwiseAbs().maxCoeff(), force = 1e-8 * std::max(1.0, lambda.cwiseAbs().maxCoeff());
    EXPECT_LE(r.residual, length);
    for (int i = 0; i < n; ++i) {
      const std::string where = "trial " + std::to_string(trial) + " contact " + std::to_string(i);
      const Real ln = lambda(3 * i), m = contact::pyramid_half_width(mu[static_cast<size_t>(i)]);
      EXPECT_GE(ln, 0) << where;
      EXPECT_GE(d(3 * i), -length) << where << ": penetrates";
      if (ln <= force) {
        EXPECT_LE(lambda.segment<2>(3 * i + 1).cwiseAbs().maxCoeff(), force) << where << ": friction while apart";
        continue;
      }
      ++pressed;
      EXPECT_LE(std::abs(d(3 * i)), length) << where << ": pressed off the obstacle";
      for (int k = 1; k <= 2; ++k) {
        const Real lt = lambda(3 * i + k), dt = d(3 * i + k);
        EXPECT_LE(std::abs(lt), m * ln + force) << where << ": outside the pyramid";
        if (m == 0) continue;  // frictionless: the tangents are free to slide
        if (std::abs(lt) < m * ln - force) {
          ++stick;
          EXPECT_LE(std::abs(dt), length) << where << ": sticks inside the pyramid but slips";
        } else {
          ++slip;
          EXPECT_LE((lt > 0 ? 1 : -1) * dt, length) << where << ": the friction force does not oppose the slip";
        }
      }
    }
  }
  EXPECT_GE(converged, trials * 9 / 10);
  // No contact: nothing to solve.
  Eigen::VectorXd none(3);
  EXPECT_TRUE(contact::solve_box_pyramid(Eigen::MatrixXd(0, 0), Eigen::VectorXd(0), {}, none, 10).converged);
  EXPECT_EQ(none.size(), 0);
  EXPECT_GT(pressed, 50);
  EXPECT_GT(stick, 10);
  EXPECT_GT(slip, 10);
}

TEST(ContactQp, AnEffectorOnlyAContactMovesIsReachedByPressingIt) {
  // A finger DOF u_f and a ball DOF u_b on unit springs: the actuator pushes the finger (row a),
  // the effector is the ball (row e, goal +0.5), the contact's gap is 0.2 + u_b - u_f (row c).
  // With rows [a, e, c]: W = J K^-1 J^T. The ball moves only through the contact force, so the
  // piece where the contact is apart (the state carried over) has no slope in the actuation.
  // Pressing it: u_b = lambda_c = 0.5 and u_f = lambda_a - lambda_c with zero gap, lambda_a = 1.2.
  Eigen::MatrixXd W(3, 3);
  W << 1, 0, -1, 0, 1, 1, -1, 1, 2;
  Eigen::VectorXd delta_free(3);
  delta_free << 0, -0.5, 0.2;
  const inverse_test::OneContactSpace one(W, delta_free, {0}, {1}, {{0, 2}}, {{-kInf, kInf}}, {"finger"}, 3,
                                          "contact of node 3 with another part");
  const inverse_detail::ContactSpace space = one.space();
  InverseStepReport rep;
  const inverse_detail::ContactSolve r = inverse_detail::solve_step_contacts(space, InverseOptions{}, ContactOptions{},
                                                                             {}, 1e-12, Eigen::VectorXd::Zero(1), rep);
  ASSERT_EQ(r.status, QpStatus::Optimal) << r.message;
  EXPECT_NEAR(r.lambda_a(0), 1.2, 1e-8);
  EXPECT_NEAR(r.lambda_c(0), 0.5, 1e-8);
  EXPECT_LT(r.effector_error, 1e-8);
  ASSERT_EQ(r.states.size(), 1u);
  EXPECT_EQ(r.states[0].normal, ContactState::kPressed);
  // The start carried over alone (apart) leaves the ball where it is.
  const inverse_detail::ContactSolve apart = inverse_detail::solve_inverse_with_contacts(
      space, {}, {}, 1e-12, Eigen::VectorXd::Zero(1), one.contacts.start, 200, 500);
  EXPECT_NEAR(apart.effector_error, 0.5, 1e-8);
}

/// Per contact at the last step (3 entries each: normal, t1, t2): lambda_n >= 0, no penetration,
/// complementarity, and per tangent the pyramid's law: |lambda_tk| <= mu' lambda_n, sticking
/// inside it, slipping against the force on a facet.
void expect_pyramid_laws(const DynamicSolver& dyn, Real force_tol, Real length_tol, const std::string& where) {
  const std::vector<Real>& l = dyn.contact_forces();
  const std::vector<Real>& d = dyn.contact_deltas();
  for (size_t k = 0; k < dyn.contacts().size(); ++k) {
    const std::string who = where + ", contact of node " + std::to_string(dyn.contacts()[k].node);
    const Real m = contact::pyramid_half_width(dyn.contacts()[k].friction), ln = l[3 * k];
    EXPECT_GE(ln, -force_tol) << who;
    EXPECT_GE(d[3 * k], -length_tol) << who << ": penetrates";
    if (ln > force_tol) {
      EXPECT_LE(std::abs(d[3 * k]), length_tol) << who << ": pressed but apart";
    }
    for (size_t t = 1; t <= 2; ++t) {
      const Real lt = l[3 * k + t], dt = d[3 * k + t];
      EXPECT_LE(std::abs(lt), m * ln + force_tol) << who << ": outside the pyramid";
      if (ln <= force_tol || m == 0) continue;
      if (std::abs(lt) < m * ln - force_tol) {
        EXPECT_LE(std::abs(dt), length_tol) << who << ": sticks but slips";
      } else {
        EXPECT_LE((lt > 0 ? 1 : -1) * dt, length_tol) << who << ": slips along its friction force";
      }
    }
  }
}

TEST(GripperControl, TheBallReachesEachGoalWithTheContactLawsAndBoundsAtEveryStep) {
  const Scene scene = parse_scene(std::string(SOFTIK_SOURCE_DIR) + "/examples/gripper/gripper_control.yaml");
  const BuiltScene built = build_scene(scene);
  auto solver = make_linear_solver(built.linear_solver);
  DynamicSolver dyn(*built.assembler, *solver, scene_dynamic_loads(scene, built), scene_dynamics_options(scene, built));
  dyn.control_options().epsilon = scene.inverse.options.epsilon;
  for (const auto& a : built.actuators) dyn.add_control(a);
  ASSERT_EQ(built.effectors.size(), 1u);
  auto ball = std::dynamic_pointer_cast<PositionEffector>(built.effectors[0]);
  ASSERT_NE(ball, nullptr);
  dyn.add_control(ball);
  const auto& goals = scene.inverse.effectors[0].goals;
  ASSERT_EQ(goals.size(), 2u);
  const int per_goal = scene.inverse.steps_per_target;
  const Real tolerance = built.effector_tolerances[0];
  for (size_t goal = 0; goal < goals.size(); ++goal) {
    ball->set_goal(goals[goal]);
    for (int k = 0; k < per_goal; ++k) {
      const DynamicStepReport r = dyn.step();
      const std::string where = "goal " + std::to_string(goal) + ", step " + std::to_string(k);
      ASSERT_EQ(r.control.status, QpStatus::Optimal) << where << ": " << r.control.message;
      for (size_t a = 0; a < 3; ++a) {
        EXPECT_GE(dyn.actuation()[a], 1e4) << where;
        EXPECT_LE(dyn.actuation()[a], 3e4) << where;
      }
      EXPECT_LE(r.max_penetration, 1e-9) << where;
      expect_pyramid_laws(dyn, 1e-9, 1e-9, where);
    }
    const std::array<Real, 3> at = ball->position(dyn.positions());
    const Real error = std::hypot(at[0] - goals[goal][0], at[1] - goals[goal][1]);
    std::cout << "  [gripper] goal " << goal << ": ball at (" << at[0] << ", " << at[1] << ", " << at[2] << "), error "
              << error << " m, pressures " << dyn.actuation()[0] << ", " << dyn.actuation()[1] << ", "
              << dyn.actuation()[2] << " Pa\n";
    EXPECT_LE(error, tolerance) << "goal " << goal;
    // Held: fingers press on the ball at the end of each goal's window.
    int on_ball = 0;
    for (size_t c = 0; c < dyn.contacts().size(); ++c)
      if (dyn.contacts()[c].obstacle < 0 && dyn.contact_forces()[3 * c] > 0) ++on_ball;
    EXPECT_GE(on_ball, 2) << "goal " << goal;
  }
}

}  // namespace
}  // namespace softik
