// The QP with a Hessian that is only positive semi-definite (qp.hpp, "Semi-definite H"): in the
// inverse problem W_ea^T W_ea + eps W_aa with eps zero or tiny. Unbounded problems (a flat
// direction of decrease that no bound stops) are reported as such with the variables that need a
// bound and a finite x; bounded ones are solved and meet the KKT conditions.
#include "tests/qp_test_support.hpp"

namespace softik::qp_test {
namespace {

/// H = w w^T for one effector row w = (1, 1) and two actuators, epsilon = 0.
QpProblem one_row_two_actuators(Real g0, Real g1) {
  QpProblem p;
  p.H = Eigen::MatrixXd::Ones(2, 2);
  p.g = Eigen::Vector2d(g0, g1);
  p.lower = Eigen::Vector2d(-kInf, -kInf);
  p.upper = Eigen::Vector2d(kInf, kInf);
  p.A.resize(0, 2);
  p.variable_names = {"cavity0 force/pressure", "cavity1 force/pressure"};
  return p;
}

void expect_finite(const QpResult& r) {
  EXPECT_TRUE(r.x.allFinite());
  EXPECT_TRUE(r.mu_x.allFinite());
  EXPECT_TRUE(r.mu_a.allFinite());
  EXPECT_TRUE(r.direction.allFinite());
  EXPECT_TRUE(std::isfinite(r.kkt.max()));
}

TEST(QpSemidefinite, UnboundedAlongAnUnboundedVariableIsReported) {
  {  // no curvature at all, a negative slope, no upper bound
    QpProblem p = one_d(0, -1, 0, kInf);
    p.variable_names = {"cavity force/pressure"};
    const QpResult r = solve_qp(p);
    ASSERT_EQ(r.status, QpStatus::Unbounded) << r.message;
    expect_finite(r);
    EXPECT_EQ(r.unbounded_variables, std::vector<int>{0});
    EXPECT_EQ(r.direction(0), 1.0);
    EXPECT_EQ(r.x(0), 0.0);  // a feasible point (the one nearest 0), not a solution
    EXPECT_NE(r.message.find("cavity force/pressure up"), std::string::npos) << r.message;
    EXPECT_GT(r.kkt.stationarity, 0.5);  // and the residuals say so
    // The same with an upper bound: bounded, the bound is the optimum.
    p.upper(0) = 5;
    const QpResult b = solve_qp(p);
    ASSERT_EQ(b.status, QpStatus::Optimal) << b.message;
    EXPECT_EQ(b.x(0), 5.0);
    EXPECT_LE(kkt_of(p, b).max(), 1e-12);
  }
  // One effector row, two actuators, epsilon = 0; g = (-1, 0) has a component along the flat
  // direction (1, -1): the objective falls as x0 grows and x1 falls. x0 >= 0 and x1 <= 10 do not
  // stop that; the result is the same in any units of the variables.
  for (Real unit : {1.0, 1e6}) {
    QpProblem p = one_row_two_actuators(-1, 0);
    p.lower(0) = 0;
    p.upper(1) = 10;
    const Eigen::Vector2d s(1, unit);  // x1 in other units: x1 = s1 x1'
    p.H = s.asDiagonal() * p.H * s.asDiagonal();
    p.g = s.cwiseProduct(p.g);
    p.upper(1) /= unit;
    const QpResult r = solve_qp(p);
    ASSERT_EQ(r.status, QpStatus::Unbounded) << "unit " << unit << ": " << r.message;
    expect_finite(r);
    EXPECT_EQ(r.unbounded_variables, (std::vector<int>{0, 1}));
    EXPECT_NEAR(r.direction(0) * s(0) / (r.direction(1) * s(1)), -1.0, 1e-12);  // (1, -1) in the first units
    EXPECT_NE(r.message.find("cavity0 force/pressure up"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("cavity1 force/pressure down"), std::string::npos) << r.message;
    EXPECT_TRUE(feasible(p, r.x, 0));
    // A row that stops the direction (x0 - x1 <= 5) makes it bounded; with s = x0 + x1 and
    // u = x0 - x1 the objective is s^2/2 - (s + u)/2: u = 5, s = 1/2, x = (2.75, -2.25).
    add_row(p, Eigen::RowVector2d(1, -unit), -kInf, 5);
    const QpResult b = solve_qp(p);
    ASSERT_EQ(b.status, QpStatus::Optimal) << b.message;
    EXPECT_NEAR(b.x(0), 2.75, 1e-12);
    EXPECT_NEAR(b.x(1) * unit, -2.25, 1e-12);
    EXPECT_LE(kkt_of(p, b).max(), 1e-12) << describe(kkt_of(p, b));
    EXPECT_LE(b.kkt.max(), 1e-12);
  }
}

TEST(QpSemidefinite, NearlyFlatDirectionWithARealSlopeIsUnbounded) {
  // Curvature 2e-15 (relative) along (1, -1), a slope of order 1 along it: the minimiser lies
  // ~1e15 away, unbounded for any practical purpose. Along the range direction (g = (-1, -1)) the
  // same Hessian is an ordinary bounded problem.
  QpProblem p = one_row_two_actuators(-1, 1);
  p.H(0, 1) = p.H(1, 0) = 1 - 1e-15;
  const QpResult r = solve_qp(p);
  ASSERT_EQ(r.status, QpStatus::Unbounded) << r.message;
  expect_finite(r);
  EXPECT_EQ(r.unbounded_variables, (std::vector<int>{0, 1}));
  p.g = Eigen::Vector2d(-1, -1);
  const QpResult b = solve_qp(p);
  ASSERT_EQ(b.status, QpStatus::Optimal) << b.message;
  EXPECT_NEAR(b.x(0) + b.x(1), 1.0, 1e-12);
  EXPECT_LE(b.kkt.max(), 1e-12);
}

TEST(QpSemidefinite, BoundedProblemsAreOptimalAndMeetTheKktConditions) {
  {  // g in the range of H (g = W_ea^T delta): the optimum is the line x0 + x1 = 1; from 0 the
     // iterations reach its point nearest 0
    const QpProblem p = one_row_two_actuators(-1, -1);
    const QpResult r = solve_qp(p);
    ASSERT_EQ(r.status, QpStatus::Optimal) << r.message;
    EXPECT_NEAR(r.x(0), 0.5, 1e-12);
    EXPECT_NEAR(r.x(1), 0.5, 1e-12);
    EXPECT_LE(r.kkt.max(), 1e-12);
  }
  {  // a slope along the flat direction (1, -1) that the bounds x0 <= 3, x1 >= 0 stop:
     // the objective is s^2/2 - x0 (s = x0 + x1), smallest at x = (1, 0), unique
    QpProblem p = one_row_two_actuators(-1, 0);
    p.upper(0) = 3;
    p.lower(1) = 0;
    const QpResult r = solve_qp(p);
    ASSERT_EQ(r.status, QpStatus::Optimal) << r.message;
    EXPECT_NEAR(r.x(0), 1.0, 1e-12);
    EXPECT_EQ(r.x(1), 0.0);
    EXPECT_LE(kkt_of(p, r).max(), 1e-12) << describe(kkt_of(p, r));
    EXPECT_LE(r.kkt.max(), 1e-12);
    EXPECT_EQ(r.active_set.variables[1], QpActiveSet::kAtLower);
  }
  {  // no curvature at all (a linear program over a box): the optimum is a vertex
    QpProblem p = one_d(0, 0, 0, 1);
    p.H = Eigen::MatrixXd::Zero(2, 2);
    p.g = Eigen::Vector2d(1, -2);
    p.lower = Eigen::Vector2d(0, 0);
    p.upper = Eigen::Vector2d(1, 1);
    p.A.resize(0, 2);
    const QpResult r = solve_qp(p);
    ASSERT_EQ(r.status, QpStatus::Optimal) << r.message;
    EXPECT_EQ(r.x(0), 0.0);
    EXPECT_EQ(r.x(1), 1.0);
    EXPECT_LE(kkt_of(p, r).max(), 1e-12) << describe(kkt_of(p, r));
  }
  // Random semi-definite problems: H = M^T M of rank k < n, feasible bounds and rows; g in the
  // range of H (bounded whatever the constraints), or arbitrary with every variable boxed.
  std::mt19937 rng(17);
  std::uniform_real_distribution<Real> u(-1, 1);
  int solved = 0;
  Real worst = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 2 + trial % 9, m = trial % 5, k = 1 + trial % (n - 1);
    QpProblem p = random_problem(rng, n, m);
    const Eigen::MatrixXd M = Eigen::MatrixXd::NullaryExpr(k, n, [&] { return u(rng); });
    p.H = M.transpose() * M;
    if (trial % 2 == 0) {
      p.g = M.transpose() * Eigen::VectorXd::NullaryExpr(k, [&] { return u(rng); });
    } else {
      for (int i = 0; i < n; ++i) {
        if (!std::isfinite(p.lower(i))) p.lower(i) = -2;
        if (!std::isfinite(p.upper(i))) p.upper(i) = 2;
        if (p.lower(i) > p.upper(i)) std::swap(p.lower(i), p.upper(i));
      }
    }
    const QpResult r = solve_qp(p);
    ASSERT_EQ(r.status, QpStatus::Optimal) << "trial " << trial << ": " << r.message;
    const Kkt kkt = kkt_of(p, r);
    EXPECT_LE(kkt.max(), 1e-9) << "trial " << trial << ": " << describe(kkt);
    EXPECT_LE(r.kkt.max(), 1e-9) << "trial " << trial;
    // A warm start from the answer's own active set gives an answer as good.
    const QpResult w = solve_qp(p, {}, &r.active_set);
    ASSERT_EQ(w.status, QpStatus::Optimal) << "trial " << trial;
    EXPECT_NEAR(objective(p, w.x), objective(p, r.x), 1e-9 * (1 + std::abs(objective(p, r.x)))) << "trial " << trial;
    worst = std::max(worst, kkt.max());
    ++solved;
  }
  std::printf("QP: %d random semi-definite problems, largest KKT residual %.2e\n", solved, worst);
}

TEST(QpSemidefinite, InfeasibleConstraintsGiveTheLeastViolation) {
  // No curvature, rows x0 + x1 >= 2 and x0 + x1 <= 1 in the box [0, 5]^2: they meet half way.
  QpProblem p = one_d(0, 0, 0, 1);
  p.H = Eigen::MatrixXd::Zero(2, 2);
  p.g = Eigen::Vector2d(1, 2);
  p.lower = Eigen::Vector2d(0, 0);
  p.upper = Eigen::Vector2d(5, 5);
  p.A.resize(0, 2);
  add_row(p, Eigen::RowVector2d(1, 1), 2, kInf);
  add_row(p, Eigen::RowVector2d(1, 1), -kInf, 1);
  const QpResult r = solve_qp(p);
  ASSERT_EQ(r.status, QpStatus::Infeasible) << r.message;
  expect_finite(r);
  EXPECT_EQ(r.conflicting_rows, (std::vector<int>{0, 1}));
  EXPECT_NEAR(r.x(0) + r.x(1), 1.5, 1e-12);
  EXPECT_NEAR(r.x(1), 0.0, 1e-12);  // then the smaller objective: the cheaper variable carries the sum
  EXPECT_NEAR(r.row_violation(0), -0.5, 1e-12);
}

}  // namespace
}  // namespace softik::qp_test
