// Cables in the inverse problem: the Jacobian row and the geometric stiffness (kept out of the CSR
// pattern as U C U^T and applied by the Woodbury identity) against finite differences, quadratic
// convergence of the converged solve under a large tension, a cable-driven finger reaching
// the target a known tension produces, and an attached point spelled with repeated nodes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tests/inverse_test_support.hpp"

namespace softik {
namespace {

using namespace inverse_test;

TEST(Inverse, CableJacobianIsTheDerivativeOfItsShortening) {
  const Finger f;
  CableActuatorSpec s;
  s.name = "cable";
  s.pull_point = {-0.01, 0.01, 0.002};
  for (Real xi : {0.02, 0.05, 0.098}) s.points.push_back(AttachedPoint::at(f.mesh, {xi, 0.01, 0.002}, 1e-9));
  auto cable = make_cable_actuator(f.mesh, s);
  std::vector<Real> x = f.inflate(5e3);
  std::vector<ConstraintRow> rows;
  cable->rows(f.mesh, x, rows);
  ASSERT_EQ(rows.size(), 1u);
  std::vector<Real> J(x.size(), 0.0);
  for (const auto& [dof, v] : rows[0].J) J[static_cast<size_t>(dof)] += v;
  const Real h = 1e-7;
  Real err = 0, scale = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    std::vector<Real> xp = x, xm = x;
    xp[k] += h;
    xm[k] -= h;
    std::vector<ConstraintRow> rp, rm;
    cable->rows(f.mesh, xp, rp);
    cable->rows(f.mesh, xm, rm);
    err = std::max(err, std::abs((rp[0].delta - rm[0].delta) / (2 * h) - J[k]));
    scale = std::max(scale, std::abs(J[k]));
  }
  EXPECT_GT(scale, 0.1);
  EXPECT_LE(err, 1e-7 * scale);
}

TEST(Inverse, CableDrivenFingerReachesItsTarget) {
  // A cable along the bottom of the finger, anchored at the tip, pulled from behind the base:
  // pulling bends the finger down. The target is the tip under a known tension.
  const Finger f;
  CableActuatorSpec s;
  s.name = "cable";
  s.pull_point = {-0.01, 0.01, 0.002};
  for (Real xi : {0.0, 0.03, 0.06, 0.1}) s.points.push_back(AttachedPoint::at(f.mesh, {xi, 0.01, 0.002}, 1e-9));
  s.force = {0, 50};
  // The forward case: the cable with its tension imposed (equal bounds) and no effector.
  auto forward_solver = make_linear_solver();
  InverseSolver forward(f.assembler, *forward_solver);
  CableActuatorSpec imposed = s;
  imposed.force = {0.5, 0.5};
  forward.add(make_cable_actuator(f.mesh, imposed));
  std::vector<Real> x_fwd = f.mesh.rest_positions();
  ASSERT_TRUE(forward.solve(x_fwd).converged);
  const std::array<Real, 3> goal = f.tip().position(x_fwd);
  EXPECT_LT(goal[2], 0.02 - 0.001);  // it bends down by more than a millimetre
  auto solver = make_linear_solver();
  InverseSolver inverse(f.assembler, *solver);
  inverse.add(make_cable_actuator(f.mesh, s));
  auto tip = f.effector(goal);
  inverse.add(tip);
  std::vector<Real> x = f.mesh.rest_positions();
  ASSERT_TRUE(inverse.solve(x).converged);
  EXPECT_NEAR(inverse.lambda()[0], 0.5, 1e-6 * 0.5);
  EXPECT_LE(distance(tip->position(x), goal, {true, false, true}), 1e-6 * kSize);
}

/// out += (U C U^T) v for a low-rank stiffness (constraints.hpp LowRankStiffness).
void add_low_rank_product(const LowRankStiffness& lr, const std::vector<Real>& v, std::vector<Real>& out) {
  for (size_t b = 0; b < lr.blocks.size(); ++b) {
    Real Utv[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i)
      for (const auto& [dof, u] : lr.columns[3 * b + static_cast<size_t>(i)]) Utv[i] += u * v[static_cast<size_t>(dof)];
    for (int i = 0; i < 3; ++i) {
      Real CUtv = 0;
      for (int j = 0; j < 3; ++j) CUtv += lr.blocks[b][static_cast<size_t>(3 * i + j)] * Utv[j];
      for (const auto& [dof, u] : lr.columns[3 * b + static_cast<size_t>(i)]) out[static_cast<size_t>(dof)] += u * CUtv;
    }
  }
}

/// The cable of the tests: along the bottom of the finger, anchored at the tip, pulled from
/// behind the base (pulling bends the finger down).
CableActuatorSpec bottom_cable(const Finger& f, Interval force) {
  CableActuatorSpec s;
  s.name = "cable";
  s.pull_point = {-0.01, 0.01, 0.002};
  for (Real xi : {0.0, 0.03, 0.06, 0.1}) s.points.push_back(AttachedPoint::at(f.mesh, {xi, 0.01, 0.002}, 1e-9));
  s.force = force;
  return s;
}

TEST(InverseCable, LowRankStiffnessIsTheDerivativeOfTheCableForce) {
  // The cable's nodal force is f = J^T T = -T dL/dx; its stiffness -df/dx = T d2L/dx2 must be
  // U C U^T: compare (U C U^T) v with central differences of -f along random directions v.
  const Finger f;
  auto cable = make_cable_actuator(f.mesh, bottom_cable(f, {0, kInf}));
  const std::vector<Real> x = f.inflate(5e3);
  const Real T = 0.7;
  auto force = [&](const std::vector<Real>& xs) {
    std::vector<ConstraintRow> rows;
    cable->rows(f.mesh, xs, rows);
    std::vector<Real> out(xs.size(), 0.0);
    for (const auto& [dof, v] : rows.at(0).J) out[static_cast<size_t>(dof)] += v * T;
    return out;
  };
  LowRankStiffness lr;
  cable->add_low_rank_stiffness(x, &T, lr);
  ASSERT_EQ(lr.columns.size(), 12u);  // 4 segments x 3 columns
  ASSERT_EQ(lr.blocks.size(), 4u);
  std::mt19937 rng(7);
  std::uniform_real_distribution<Real> uniform(-1, 1);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<Real> v(x.size());
    for (Real& vi : v) vi = uniform(rng);
    std::vector<Real> Kv(x.size(), 0.0);
    add_low_rank_product(lr, v, Kv);
    const Real h = 1e-7;
    std::vector<Real> xp = x, xm = x;
    for (size_t k = 0; k < x.size(); ++k) xp[k] += h * v[k], xm[k] -= h * v[k];
    const std::vector<Real> fp = force(xp), fm = force(xm);
    Real err = 0, scale = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      err = std::max(err, std::abs(-(fp[k] - fm[k]) / (2 * h) - Kv[k]));
      scale = std::max(scale, std::abs(Kv[k]));
    }
    EXPECT_GT(scale, 1.0);
    EXPECT_LE(err, 1e-6 * scale) << "trial " << trial;
  }
}

TEST(InverseCable, ConvergedSolveUnderALargeTensionConvergesQuadratically) {
  // 2 N bends the finger strongly. With the cable's stiffness exact (low rank, Woodbury) the
  // converged solve is Newton's method: few iterations, and the residual at least squares (up to
  // a constant) from one iteration to the next near the solution. (Dropping the couplings outside
  // the pattern, as an earlier version did, converged linearly at a rate near 0.9.)
  const Finger f;
  auto solver = make_linear_solver();
  InverseSolver forward(f.assembler, *solver);
  forward.add(make_cable_actuator(f.mesh, bottom_cable(f, {2.0, 2.0})));
  std::vector<Real> x = f.mesh.rest_positions();
  const InverseSolveReport r = forward.solve(x);
  ASSERT_TRUE(r.converged);
  std::printf("%d iterations, %d increments, %d cuts; relative residuals:", r.iterations, r.increments, r.cuts);
  for (const InverseStepReport& s : r.steps) std::printf(" %.2e", s.relative_residual());
  std::printf("\n");
  EXPECT_LE(r.cuts, 1);                             // at most one failed try of the whole tension
  EXPECT_LT(f.tip().position(x)[2], 0.02 - 0.005);  // a strong bend: the tip drops by > 5 mm
  // The last increment (the last run of steps at continuation s = 1) is Newton's method: few
  // iterations, and its last step that starts above 1e-7 (relative; below it round-off takes
  // over) is quadratic: it ends at no more than 10 times the square of where it started (a
  // linear rate of 0.9, as without the couplings outside the pattern, would end near 0.9 times).
  size_t first = r.steps.size();
  while (first > 0 && r.steps[first - 1].continuation == 1) --first;
  std::vector<Real> rel;
  for (size_t i = first; i < r.steps.size(); ++i) rel.push_back(r.steps[i].relative_residual());
  EXPECT_LE(rel.size(), 12u);
  size_t k = rel.size();
  for (size_t i = 1; i + 1 < rel.size(); ++i)
    if (rel[i] > 1e-7) k = i;
  ASSERT_LT(k + 1, rel.size());
  EXPECT_LE(rel[k + 1], 10 * rel[k] * rel[k]) << "residual " << rel[k] << " -> " << rel[k + 1];
}

TEST(InverseCable, StepSolvesTheTangentWithTheLowRankStiffnessExactly) {
  // One real-time step with the actuators' stiffness, from a state with a cable tension and a
  // cavity pressure: its displacement dx must solve K_t dx = f + J_a^T lambda with the whole
  // tangent K_t = K + K_cavity + U C U^T (U C U^T applied by the Woodbury identity inside the step,
  // here by a direct product), on the half and on the full path alike.
  const Finger f;
  for (bool half : {true, false}) {
    auto solver = make_linear_solver();
    InverseOptions options;
    options.actuator_stiffness = true;
    options.half_solves = half;
    InverseSolver inverse(f.assembler, *solver, {}, options);
    auto cavity = f.actuator({8e3, 8e3});
    auto cable = make_cable_actuator(f.mesh, bottom_cable(f, {0.8, 0.8}));
    inverse.add(cavity);
    inverse.add(cable);
    std::vector<Real> x = f.mesh.rest_positions();
    inverse.step(x);  // sets lambda = (8 kPa, 0.8 N), the tangent of the next step carries them
    const std::vector<Real> x1 = x;
    const InverseStepReport rep = inverse.step(x);
    EXPECT_EQ(rep.half_solves, half);
    const std::vector<Real> lambda = inverse.lambda();
    ASSERT_EQ(lambda.size(), 2u);
    // K_t at x1, in the pattern (elastic + cavity) and as U C U^T (cable).
    std::vector<Real> force, K;
    f.assembler.assemble(x1, nullptr, &force, &K);
    cavity->add_stiffness(f.assembler, x1, &lambda[0], K);
    cable->add_stiffness(f.assembler, x1, &lambda[1], K);
    LowRankStiffness lr;
    cable->add_low_rank_stiffness(x1, &lambda[1], lr);
    ASSERT_FALSE(lr.columns.empty());
    // rhs = f + J_a^T lambda at x1
    std::vector<Real> rhs = force;
    std::vector<ConstraintRow> rows;
    cavity->rows(f.mesh, x1, rows);
    cable->rows(f.mesh, x1, rows);
    for (size_t a = 0; a < 2; ++a)
      for (const auto& [dof, v] : rows[a].J) rhs[static_cast<size_t>(dof)] += v * lambda[a];
    std::vector<Real> dx(x.size());
    for (size_t k = 0; k < x.size(); ++k) dx[k] = x[k] - x1[k];
    // K_t dx on the free DOFs
    const std::vector<int>& free = f.assembler.free_dof_index();
    const CsrPattern& p = f.assembler.pattern();
    std::vector<int> dof_of(static_cast<size_t>(p.rows));
    for (size_t k = 0; k < free.size(); ++k)
      if (free[k] >= 0) dof_of[static_cast<size_t>(free[k])] = static_cast<int>(k);
    std::vector<Real> Ktdx(x.size(), 0.0);
    for (int row = 0; row < p.rows; ++row)
      for (int e = p.row_ptr[static_cast<size_t>(row)]; e < p.row_ptr[static_cast<size_t>(row) + 1]; ++e)
        Ktdx[static_cast<size_t>(dof_of[static_cast<size_t>(row)])] +=
            K[static_cast<size_t>(e)] *
            dx[static_cast<size_t>(dof_of[static_cast<size_t>(p.col[static_cast<size_t>(e)])])];
    add_low_rank_product(lr, dx, Ktdx);
    Real err = 0, scale = 0, low_rank_part = 0;
    for (size_t k = 0; k < free.size(); ++k) {
      if (free[k] < 0) continue;
      err = std::max(err, std::abs(Ktdx[k] - rhs[k]));
      scale = std::max(scale, std::abs(rhs[k]));
    }
    for (const auto& column : lr.columns) {
      Real u_dx = 0;
      for (const auto& [dof, u] : column) u_dx += u * dx[static_cast<size_t>(dof)];
      low_rank_part = std::max(low_rank_part, std::abs(u_dx));
    }
    EXPECT_GT(low_rank_part, 0);
    EXPECT_LE(err, 1e-9 * scale) << (half ? "half" : "full") << " path";
  }
}

// An attached point that lists each of its nodes twice with half the weights is the same point:
// an actuator's Jacobian row then holds two entries per DOF, which the step must sum before it
// squares them (the applied-force scale of the equilibrium residual: an axial push on the tip
// makes it the largest of the scales) and add into one column of J^T. Three real-time steps with
// either spelling give the same actuation, residuals and positions, for a cable and a point force.
AttachedPoint doubled(AttachedPoint p) {
  const size_t n = p.nodes.size();
  for (size_t k = 0; k < n; ++k) {
    p.weights[k] *= 0.5;
    p.nodes.push_back(p.nodes[k]);
    p.weights.push_back(p.weights[k]);
  }
  return p;
}

TEST(Inverse, AnAttachedPointWithRepeatedNodesActsAsItsSingleSpelling) {
  const Finger f;
  auto cable = [&](bool repeated) {
    CableActuatorSpec s;
    s.name = "cable";
    s.pull_point = {-0.01, 0.01, 0.002};
    for (Real xi : {0.0, 0.03, 0.06, 0.1}) {
      const AttachedPoint p = AttachedPoint::at(f.mesh, {xi, 0.01, 0.002}, 1e-9);
      s.points.push_back(repeated ? doubled(p) : p);
    }
    s.force = {0, 50};
    return make_cable_actuator(f.mesh, s);
  };
  auto push = [&](bool repeated) {  // an axial push on the tip: the base's reaction spreads over its face
    ForcePointActuatorSpec s;
    s.name = "push";
    s.point = repeated ? doubled(f.tip()) : f.tip();
    s.direction = {-1, 0, 0};
    s.force = {0, 50};
    return make_force_point_actuator(f.mesh, s);
  };
  const std::array<Real, 3> tip = f.tip().position(f.mesh.rest_positions());
  for (int kind = 0; kind < 2; ++kind) {
    SCOPED_TRACE(kind == 0 ? "cable" : "point force");
    std::vector<InverseStepReport> reports[2];
    std::vector<Real> x[2];
    for (int repeated = 0; repeated < 2; ++repeated) {
      auto solver = make_linear_solver();
      InverseSolver inverse(f.assembler, *solver);
      inverse.add(kind == 0 ? cable(repeated == 1) : push(repeated == 1));
      // The cable bends the finger 2 mm down, the push shortens it by 0.2 mm.
      inverse.add(f.effector(kind == 0 ? std::array<Real, 3>{tip[0], tip[1], tip[2] - 0.002}
                                       : std::array<Real, 3>{tip[0] - 0.0002, tip[1], tip[2]}));
      x[repeated] = f.mesh.rest_positions();
      for (int step = 0; step < 3; ++step) reports[repeated].push_back(inverse.step(x[repeated]));
    }
    for (size_t step = 0; step < reports[0].size(); ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      const InverseStepReport &a = reports[0][step], &b = reports[1][step];
      ASSERT_EQ(a.lambda.size(), 1u);
      ASSERT_EQ(b.lambda.size(), 1u);
      EXPECT_NEAR(b.lambda[0], a.lambda[0], 1e-10 * std::abs(a.lambda[0]));
      EXPECT_NEAR(b.force_scale, a.force_scale, 1e-10 * a.force_scale);
      EXPECT_NEAR(b.equilibrium_residual, a.equilibrium_residual, 1e-10 * a.force_scale);
    }
    EXPECT_GT(reports[0].back().lambda[0], 0);  // the actuator acts: its row is in the scale
    Real dx = 0;
    for (size_t k = 0; k < x[0].size(); ++k) dx = std::max(dx, std::abs(x[1][k] - x[0][k]));
    EXPECT_LE(dx, 1e-12 * kSize);
  }
}

}  // namespace
}  // namespace softik
