// The inverse problem with contact (issue 16; docs/inverse_contact.md): the complementarity QP
// on its own (random problems with and without friction: the conditions hold exactly, the
// objective only decreases from piece to piece, frictionless answers are the best piece's) and
// the pneumatic finger against a wall (held short of a goal beyond it and told why, a contact
// force target met from a forward re-simulation's force, friction on the exact cone with the
// Gauss-Seidel variant, bad input).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/contact_space_fixture.hpp"
#include "host/inverse/contact_complementarity.hpp"
#include "host/inverse/inverse_contact.hpp"
#include "tests/inverse_test_support.hpp"
#include "softik/error.hpp"

namespace softik {
namespace {

using inverse_detail::ContactQp;
using inverse_detail::ContactRows;
using inverse_detail::ContactState;
using inverse_test::Finger;
using inverse_test::FingerAndWall;
using inverse_test::kSize;

// ---- the complementarity QP on random problems ------------------------------------------------

/// W = B K^-1 B^T for random B (rows x 3 dofs) and a random SPD K: a compliance as the step builds.
Eigen::MatrixXd random_compliance(std::mt19937& rng, int rows) {
  std::normal_distribution<Real> g(0, 1);
  const int n = 3 * rows;
  Eigen::MatrixXd A(n, n), B(rows, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) A(i, j) = g(rng);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < n; ++j) B(i, j) = g(rng);
  const Eigen::MatrixXd K = A * A.transpose() + n * Eigen::MatrixXd::Identity(n, n);
  return B * K.ldlt().solve(B.transpose());
}

struct RandomContactProblem {
  ContactQp qp;
  int na = 0;
};

/// na actuators (force bounds [0, 1]), ne effector rows, contacts with mu from `mus` (0: one row).
RandomContactProblem random_problem(std::mt19937& rng, int na, int ne, const std::vector<Real>& mus) {
  RandomContactProblem out;
  out.na = na;
  int nc = 0;
  for (Real mu : mus) {
    ContactRows c;
    c.row = nc;
    c.rows = mu > 0 ? 3 : 1;
    c.mu = mu;
    nc += c.rows;
    out.qp.contacts.push_back(c);
    out.qp.contact_names.push_back("contact " + std::to_string(out.qp.contact_names.size()));
  }
  const int n = na + nc;
  const Eigen::MatrixXd W = random_compliance(rng, na + ne + nc);
  std::normal_distribution<Real> g(0, 1);
  const Eigen::MatrixXd E = W.block(na, 0, ne, na + ne + nc);  // effector rows over all rows
  Eigen::MatrixXd Ez(ne, n);
  Ez << E.leftCols(na), E.rightCols(nc);
  Eigen::MatrixXd Wz(n, n);  // compliance over (actuators, contacts)
  Wz << W.topLeftCorner(na, na), W.topRightCorner(na, nc), W.bottomLeftCorner(nc, na), W.bottomRightCorner(nc, nc);
  Eigen::VectorXd e0(ne);
  for (int i = 0; i < ne; ++i) e0(i) = 3 * g(rng);
  out.qp.base.H = Ez.transpose() * Ez + 1e-3 * Wz;
  out.qp.base.g = Ez.transpose() * e0;
  out.qp.base.lower = Eigen::VectorXd::Zero(na);
  out.qp.base.upper = Eigen::VectorXd::Constant(na, 2.0);
  out.qp.base.A.resize(0, n);
  out.qp.Wc = Wz.bottomRows(nc);
  out.qp.delta_c_free.resize(nc);
  for (int i = 0; i < nc; ++i) out.qp.delta_c_free(i) = 0.2 * g(rng);
  for (const ContactRows& c : out.qp.contacts) out.qp.delta_c_free(c.row) = std::abs(out.qp.delta_c_free(c.row)) * 0.5;
  return out;
}

Real objective(const ContactQp& p, const Eigen::VectorXd& z) { return 0.5 * z.dot(p.base.H * z) + p.base.g.dot(z); }

TEST(ContactQp, RandomProblemsMeetComplementarityAndThePyramidExactly) {
  std::mt19937 rng(2026);
  int settled = 0, frictional = 0, pressed_total = 0, slipping = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<Real> mus;
    for (int c = 0; c < 4; ++c) mus.push_back(trial % 2 ? 0.0 : 0.3 + 0.2 * c);
    const RandomContactProblem rp = random_problem(rng, 2, 3, mus);
    const ContactQp& p = rp.qp;
    const auto r = inverse_detail::solve_contact_qp(p, {}, 200, {});
    ASSERT_NE(r.qp.status, QpStatus::Infeasible) << r.message;
    settled += r.settled ? 1 : 0;
    if (!r.settled)
      std::cout << "trial " << trial << ": " << r.pivots << " pivots, " << r.pieces << " pieces: " << r.message << "\n";
    const Eigen::VectorXd& z = r.qp.x;
    const Eigen::VectorXd lc = z.tail(p.Wc.rows());
    const Eigen::VectorXd delta = p.delta_c_free + p.Wc * z;
    const Real scale = p.delta_c_free.cwiseAbs().maxCoeff() + (p.Wc.cwiseAbs() * z.cwiseAbs()).maxCoeff();
    const Real fscale = std::max(1.0, z.cwiseAbs().maxCoeff());  // forces of order 1 (actuators in [0, 2])
    for (size_t i = 0; i < p.contacts.size(); ++i) {
      const ContactRows& c = p.contacts[i];
      const Real ln = lc(c.row), dn = delta(c.row);
      EXPECT_GE(ln, 0) << "trial " << trial << " contact " << i;
      EXPECT_GE(dn, -1e-10 * scale) << "trial " << trial << " contact " << i << ": penetrates";
      EXPECT_LE(std::abs(ln * dn), 1e-10 * scale * fscale)
          << "trial " << trial << " contact " << i << ": complementarity";
      if (r.states[i].normal == ContactState::kPressed) ++pressed_total;
      if (c.rows != 3) continue;
      ++frictional;
      const Real mu = contact::pyramid_half_width(c.mu);
      for (int k = 0; k < 2; ++k) {
        const Real lt = lc(c.row + 1 + k), dt = delta(c.row + 1 + k);
        EXPECT_LE(std::abs(lt), mu * ln + 1e-10 * fscale) << "trial " << trial << ": outside the pyramid";
        const signed char t = r.states[i].tangent[k];
        if (r.states[i].normal != ContactState::kPressed) continue;
        if (t == ContactState::kStick) {
          EXPECT_NEAR(dt, 0, 1e-10 * scale) << "trial " << trial << ": a sticking contact slips";
        } else {
          ++slipping;
          EXPECT_NEAR(lt, t * mu * ln, 1e-10 * fscale) << "trial " << trial << ": slip off the pyramid's facet";
          EXPECT_LE(t * dt, 1e-10 * scale) << "trial " << trial << ": friction does not oppose the slip";
        }
      }
    }
    // Monotone: the answer is no worse than the first piece's (all separated) answer.
    const auto first = inverse_detail::solve_contact_qp(p, {}, 0, {});
    EXPECT_LE(objective(p, z), objective(p, first.qp.x) + 1e-12 * std::abs(objective(p, first.qp.x)));
  }
  EXPECT_EQ(settled, 60) << "problems whose pivoting stopped unsettled";
  EXPECT_GT(pressed_total, 20) << "the random problems should press contacts";
  EXPECT_GT(slipping, 0) << "the random problems should make some contacts slip";
  EXPECT_GT(frictional, 0);
}

TEST(ContactQp, FrictionlessAnswersAreTheGlobalOptimumOfEveryPiece) {
  // Without friction and with one actuator, the set of answers of each piece is small enough to
  // enumerate: the pivoting's answer must be the best of all pieces (the MPCC's global optimum)
  // in these problems, where the objective is convex along the actuation.
  std::mt19937 rng(7);
  int matched = 0;
  const int trials = 40;
  for (int trial = 0; trial < trials; ++trial) {
    const RandomContactProblem rp = random_problem(rng, 1, 2, {0, 0, 0});
    const ContactQp& p = rp.qp;
    const auto r = inverse_detail::solve_contact_qp(p, {}, 100, {});
    Real best = kInf;
    for (int mask = 0; mask < 8; ++mask) {
      std::vector<ContactState> s(3);
      for (int i = 0; i < 3; ++i)
        s[static_cast<size_t>(i)].normal = (mask >> i) & 1 ? ContactState::kPressed : ContactState::kSeparated;
      const auto one = inverse_detail::solve_contact_qp(p, s, 0, {});
      if (one.qp.status == QpStatus::Optimal) best = std::min(best, objective(p, one.qp.x));
    }
    if (objective(p, r.qp.x) <= best + 1e-9 * std::max(1.0, std::abs(best))) ++matched;
  }
  EXPECT_GE(matched, trials - 2) << matched << " of " << trials << " reached the best piece";
}

TEST(ContactQp, AContactIsNeverGivenUpForAnActuatorsDisplacementWindow) {
  // One actuator (row 0) and one frictionless contact (row 1) whose free motion penetrates by 1.
  // Holding the contact (lambda_c >= 1 - 0.9 lambda_a) moves the actuator by at least 0.9, outside
  // its window [-0.1, 0.1]: the problem is infeasible. The window gives way, not the contact.
  Eigen::MatrixXd W(2, 2);
  W << 1, 0.9, 0.9, 1;
  Eigen::VectorXd delta_free(2);
  delta_free << 0, -1;
  const inverse_test::OneContactSpace one(W, delta_free, {0}, {}, {{0, 1}}, {{-0.1, 0.1}}, {"cavity"}, 7,
                                          "contact of node 7 with 'wall'");
  const inverse_detail::ContactSpace space = one.space();
  InverseStepReport rep;
  const inverse_detail::ContactSolve r = inverse_detail::solve_step_contacts(space, InverseOptions{}, ContactOptions{},
                                                                             {}, 1e-3, Eigen::VectorXd::Zero(1), rep);
  EXPECT_EQ(r.status, QpStatus::Infeasible);
  EXPECT_NE(r.message.find("of 'cavity' were set aside for this step so that no contact is violated"),
            std::string::npos)
      << r.message;
  const Real gap = delta_free(1) + W(1, 0) * r.lambda_a(0) + W(1, 1) * r.lambda_c(0);
  EXPECT_GE(r.lambda_c(0), 0);
  EXPECT_GE(gap, -1e-12);
  EXPECT_LE(std::abs(gap * r.lambda_c(0)), 1e-12);
  EXPECT_GE(r.lambda_a(0), 0);
  EXPECT_LE(r.lambda_a(0), 1);
}

// ---- the finger against a wall -----------------------------------------------------------------

/// lambda_n >= 0, and a pressed contact sits on the wall, the friction within mu's cone
/// (inverse_test::expect_contact_conditions) at the solver's last step.
void expect_contact_conditions(const InverseSolver& s, const std::vector<Real>& x, const Obstacle& wall, Real mu_bound,
                               const std::string& where) {
  inverse_test::expect_contact_conditions(s.contacts(), s.contact_forces(), x, wall, mu_bound, where);
}

TEST(InverseContact, AWallHoldsTheTipShortOfAGoalBeyondItAndTheReportSaysWhy) {
  const FingerAndWall f;
  auto solver = make_linear_solver();
  // Without the wall the goal (the tip at 10 kPa) is reached.
  {
    InverseSolver free(f.assembler, *solver);
    free.add(f.actuator({0, 3e4}));
    auto eff = f.effector(f.tip10);
    free.add(eff);
    std::vector<Real> x = f.x0;
    ASSERT_TRUE(free.solve(x).converged);
    EXPECT_LT(inverse_test::distance(eff->position(x), f.tip10, {true, false, true}), 1e-6 * kSize);
  }
  InverseSolver s(f.assembler, *solver);
  s.add(f.actuator({0, 3e4}));
  auto eff = f.effector(f.tip10);
  s.add(eff);
  s.set_contact(f.contact(0));
  std::vector<Real> x = f.x0;
  const InverseSolveReport rep = s.solve(x);
  ASSERT_TRUE(rep.converged) << rep.message;
  const InverseStepReport& last = rep.steps.back();
  EXPECT_LE(last.max_penetration, 1e-6 * kSize);
  expect_contact_conditions(s, x, f.wall(0), 0, "converged");
  // The tip stops at the wall, short of the goal: pressing harder would bend the finger without
  // bringing the tip closer, so the wall is touched and the pressure stays below its bound.
  const Real wall_z = f.wall(0).center(2);
  const Real travel = std::abs(f.tip10[2] - f.tip0[2]);
  EXPECT_LE(f.side * (eff->position(x)[2] - wall_z), 1e-6 * kSize);
  EXPECT_GT(inverse_test::distance(eff->position(x), f.tip10, {true, false, true}), 0.3 * travel);
  EXPECT_GT(s.lambda()[0], 0);
  EXPECT_LT(s.lambda()[0], 3e4);
  // The report says what holds it: the wall's touching contacts, and the goal inside the wall.
  EXPECT_NE(last.message.find("touching (contact of node"), std::string::npos) << last.message;
  EXPECT_NE(last.message.find("lies inside obstacle 'wall'"), std::string::npos) << last.message;
  for (const InverseStepReport& st : rep.steps) EXPECT_TRUE(std::isfinite(st.effector_error));
  std::cout << "  [wall] pressure " << s.lambda()[0] << " Pa; " << last.message << "\n";
}

TEST(InverseContact, AForceTargetOnTheWallIsMetWithinItsBounds) {
  const FingerAndWall f;
  auto solver = make_linear_solver();
  // The force with which 20 kPa presses the tip on the wall (forward, imposed pressure).
  InverseSolver forward(f.assembler, *solver);
  forward.add(f.actuator({2e4, 2e4}));
  forward.set_contact(f.contact(0));
  std::vector<Real> x20 = f.x0;
  const InverseSolveReport fr = forward.solve(x20);
  ASSERT_TRUE(fr.converged) << fr.message;
  const Real F20 = fr.steps.back().normal_force;
  ASSERT_GT(F20, 0) << "20 kPa must press the finger on the wall";
  expect_contact_conditions(forward, x20, f.wall(0), 0, "forward 20 kPa");
  // Inverse: half that force, pressure free in [0, 30 kPa].
  InverseSolver s(f.assembler, *solver);
  s.add(f.actuator({0, 3e4}));
  s.set_contact(f.contact(0));
  s.add_contact_force_target({"push", "wall", 0.5 * F20, 0});
  std::vector<Real> x = f.x0;
  const InverseSolveReport rep = s.solve(x);
  ASSERT_TRUE(rep.converged) << rep.message;
  const InverseStepReport& last = rep.steps.back();
  ASSERT_EQ(last.target_forces.size(), 1u);
  EXPECT_NEAR(last.target_forces[0], 0.5 * F20, 1e-6 * F20);
  EXPECT_NEAR(last.normal_force, 0.5 * F20, 1e-6 * F20);
  EXPECT_GT(s.lambda()[0], 0);
  EXPECT_LT(s.lambda()[0], 2e4);
  EXPECT_LE(last.max_penetration, 1e-6 * kSize);
  expect_contact_conditions(s, x, f.wall(0), 0, "force target");
}

TEST(InverseContact, GaussSeidelAnswersOnTheExactCone) {
  const FingerAndWall f;
  auto solver = make_linear_solver();
  InverseOptions o;
  o.method = InverseMethod::GaussSeidel;
  InverseSolver s(f.assembler, *solver, {}, o);
  s.add(f.actuator({0, 3e4}));
  auto eff = f.effector(f.tip10);
  s.add(eff);
  s.set_contact(f.contact(0.6));
  std::vector<Real> x = f.x0;
  for (int k = 0; k < 40; ++k) {
    const InverseStepReport r = s.step(x);
    ASSERT_TRUE(std::isfinite(s.lambda()[0])) << r.message;
    // The exact Coulomb cone, not the pyramid: |lambda_t| <= mu lambda_n.
    const auto& fc = s.contact_forces();
    for (size_t i = 0; i < s.contacts().size(); ++i)
      EXPECT_LE(std::hypot(fc[3 * i + 1], fc[3 * i + 2]), 0.6 * fc[3 * i] * (1 + 1e-9) + 1e-15) << "step " << k;
  }
  expect_contact_conditions(s, x, f.wall(0.6), 0.6, "Gauss-Seidel");
  EXPECT_LE(f.side * (eff->position(x)[2] - f.wall(0).center(2)), 1e-5 * kSize);
}

TEST(InverseContact, BadContactInputIsNamed) {
  const FingerAndWall f;
  auto solver = make_linear_solver();
  InverseSolver s(f.assembler, *solver);
  s.add(f.actuator({0, 3e4}));
  ContactOptions parts = f.contact(0);
  parts.between_parts = true;
  EXPECT_THROW(s.set_contact(parts), Error);
  s.set_contact(f.contact(0));
  EXPECT_THROW(s.add_contact_force_target({"push", "floor", 1, 0}), Error);  // no such obstacle
  EXPECT_THROW(s.add_contact_force_target({"push", "wall", -1, 0}), Error);  // a contact cannot pull
  EXPECT_THROW(s.add_contact_force_target({"push", "wall", std::nan(""), 0}), Error);
  EXPECT_THROW(s.add_contact_force_target({"push", "wall", 1, -2}), Error);
  ContactOptions bad = f.contact(0);
  bad.obstacles[0].friction = -0.1;
  EXPECT_THROW(s.set_contact(bad), Error);
  // Force targets need the QP.
  InverseOptions o;
  o.method = InverseMethod::GaussSeidel;
  InverseSolver gs(f.assembler, *solver, {}, o);
  gs.add(f.actuator({0, 3e4}));
  gs.set_contact(f.contact(0));
  gs.add_contact_force_target({"push", "wall", 0.01, 0});
  std::vector<Real> x = f.x0;
  try {
    gs.step(x);
    ADD_FAILURE() << "Gauss-Seidel with a force target must be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("QP"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace softik
