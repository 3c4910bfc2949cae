// The dense QP solver on infeasible problems: least violation against analytic and brute-force
// answers and a certificate, conflicting constraints named, empty row ranges.
#include "tests/qp_test_support.hpp"

namespace softik::qp_test {
namespace {

TEST(Qp, InfeasibleRowsAgainstBoundsGiveTheLeastViolationAndAreNamed) {
  // A cavity pressure in [0, 10] whose volume growth 1 * x must lie in [20, 30]: the least
  // violation is x = 10 (the upper bound blocks it), whatever the objective.
  QpProblem p = one_d(1, -1, 0, 10);
  add_row(p, Eigen::RowVectorXd::Constant(1, 1.0), 20, 30);
  p.variable_names = {"cavity0 pressure"};
  p.row_names = {"cavity0 volume growth"};
  const QpResult r = solve_qp(p);
  EXPECT_EQ(r.status, QpStatus::Infeasible);
  EXPECT_NEAR(r.x(0), 10.0, 1e-12);
  EXPECT_EQ(r.conflicting_rows, std::vector<int>{0});
  EXPECT_EQ(r.conflicting_variables, std::vector<int>{0});
  EXPECT_NEAR(r.row_violation(0), -10.0, 1e-12);
  EXPECT_EQ(r.active_set.rows[0], QpActiveSet::kAtLower);  // the side it violates
  EXPECT_NE(r.message.find("cavity0 volume growth"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("cavity0 pressure upper bound 10"), std::string::npos) << r.message;
  EXPECT_LE(r.kkt.max(), 1e-9);
}

TEST(Qp, ConflictingRowsMeetHalfWayThenMinimiseTheObjective) {
  // x1 + x2 >= 5 and x1 + x2 <= 3: the least squared violation puts x1 + x2 = 4 (1 from each);
  // among those points min 1/2 |x|^2 - 3 x1 gives x1 - 3 = x2, i.e. x = (3.5, 0.5).
  QpProblem q;
  q.H = Eigen::MatrixXd::Identity(2, 2);
  q.g = Eigen::Vector2d(-3, 0);
  q.A.resize(0, 2);
  add_row(q, Eigen::RowVector2d(1, 1), 5, kInf);
  add_row(q, Eigen::RowVector2d(1, 1), -kInf, 3);
  const QpResult s = solve_qp(q);
  EXPECT_EQ(s.status, QpStatus::Infeasible);
  EXPECT_NEAR(s.x(0), 3.5, 1e-12);
  EXPECT_NEAR(s.x(1), 0.5, 1e-12);
  EXPECT_EQ(s.conflicting_rows, (std::vector<int>{0, 1}));
  EXPECT_TRUE(s.conflicting_variables.empty());
  EXPECT_NEAR(s.row_violation(0), -1.0, 1e-12);
  EXPECT_NEAR(s.row_violation(1), 1.0, 1e-12);
  // With the bounds x1 <= 1, x2 <= 1.5 the sum cannot exceed 2.5: x = (1, 1.5), only the first
  // row is violated (by 2.5), and both upper bounds hold it back.
  q.lower = Eigen::Vector2d(-kInf, -kInf);
  q.upper = Eigen::Vector2d(1, 1.5);
  const QpResult b = solve_qp(q);
  EXPECT_EQ(b.status, QpStatus::Infeasible);
  EXPECT_NEAR(b.x(0), 1.0, 1e-12);
  EXPECT_NEAR(b.x(1), 1.5, 1e-12);
  EXPECT_EQ(b.conflicting_rows, std::vector<int>{0});
  EXPECT_EQ(b.conflicting_variables, (std::vector<int>{0, 1}));
  // Rows of different weight: 2 x1 >= 4 and x1 <= 0 (one variable). Squared violations
  // (4 - 2 x1)^2 + x1^2 are least at x1 = 8/5.
  QpProblem w = one_d(1, 0, -kInf, kInf);
  add_row(w, Eigen::RowVectorXd::Constant(1, 2.0), 4, kInf);
  add_row(w, Eigen::RowVectorXd::Constant(1, 1.0), -kInf, 0);
  const QpResult wr = solve_qp(w);
  EXPECT_EQ(wr.status, QpStatus::Infeasible);
  EXPECT_NEAR(wr.x(0), 1.6, 1e-12);
  // Two equalities that contradict each other (x1 + x2 = 1 and = 2): 1.5 halfway, x = (0.75, 0.75)
  // for min 1/2 |x|^2; the same rows scaled consistently (2 x1 + 2 x2 = 2) are merely redundant.
  QpProblem e;
  e.H = Eigen::MatrixXd::Identity(2, 2);
  e.g = Eigen::VectorXd::Zero(2);
  e.A.resize(0, 2);
  add_row(e, Eigen::RowVector2d(1, 1), 1, 1);
  add_row(e, Eigen::RowVector2d(1, 1), 2, 2);
  const QpResult er = solve_qp(e);
  EXPECT_EQ(er.status, QpStatus::Infeasible);
  EXPECT_NEAR(er.x(0), 0.75, 1e-12);
  EXPECT_NEAR(er.x(1), 0.75, 1e-12);
  EXPECT_EQ(er.conflicting_rows, (std::vector<int>{0, 1}));
  e.A.row(1) *= 2;
  e.a_lower(1) = e.a_upper(1) = 2;
  const QpResult ec = solve_qp(e);
  EXPECT_EQ(ec.status, QpStatus::Optimal);
  EXPECT_NEAR(ec.x(0), 0.5, 1e-14);
  EXPECT_NEAR(ec.x(1), 0.5, 1e-14);
  // A warm start does not change an infeasible answer.
  const QpResult bw = solve_qp(q, {}, &b.active_set);
  EXPECT_EQ(bw.status, QpStatus::Infeasible);
  EXPECT_TRUE(bw.warm_started);
  EXPECT_LE(max_abs(bw.x - b.x), 1e-12);
}

TEST(Qp, AnEmptyRowRangeIsInfeasibleNotAnError) {
  // A rate window that misses the absolute range: x1 - x2 in [3, 1]. The least violation puts
  // x1 - x2 = 2; min 1/2 |x|^2 + x2 among those gives x = (0.5, -1.5).
  QpProblem p;
  p.H = Eigen::MatrixXd::Identity(2, 2);
  p.g = Eigen::Vector2d(0, 1);
  p.A.resize(0, 2);
  add_row(p, Eigen::RowVector2d(1, -1), 3, 1);
  p.row_names = {"cable displacement"};
  const QpResult r = solve_qp(p);
  EXPECT_EQ(r.status, QpStatus::Infeasible);
  EXPECT_NEAR(r.x(0), 0.5, 1e-12);
  EXPECT_NEAR(r.x(1), -1.5, 1e-12);
  EXPECT_EQ(r.conflicting_rows, std::vector<int>{0});
  EXPECT_NE(r.message.find("cable displacement"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("empty range"), std::string::npos) << r.message;
}

/// phi(x) = sum of squared row violations (an empty range counts both sides).
Real squared_violation(const QpProblem& p, const Eigen::VectorXd& x) {
  const Eigen::VectorXd Ax = p.A * x;
  Real s = 0;
  for (Eigen::Index r = 0; r < Ax.size(); ++r) {
    if (Ax(r) < p.a_lower(r)) s += (p.a_lower(r) - Ax(r)) * (p.a_lower(r) - Ax(r));
    if (Ax(r) > p.a_upper(r)) s += (Ax(r) - p.a_upper(r)) * (Ax(r) - p.a_upper(r));
  }
  return s;
}

TEST(Qp, OneVariableLeastViolationEqualsBruteForce) {
  // One variable: phi is a convex piecewise quadratic on [lo, hi]; its minimiser is one of the
  // bounds, a breakpoint or the stationary point of one piece. Random infeasible instances.
  std::mt19937 rng(23);
  std::uniform_real_distribution<Real> u(-1, 1);
  int infeasible = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int m = 2 + trial % 4;
    QpProblem p = one_d(1 + std::abs(u(rng)), u(rng), -1 - std::abs(u(rng)), 1 + std::abs(u(rng)));
    for (int r = 0; r < m; ++r) {
      // Rows of very different weights on odd trials (slow proximal-point convergence).
      const Real scale = trial % 2 ? std::pow(10.0, -1.5 * (r % 3)) : 1.0;
      const Real a = scale * (u(rng) + (u(rng) > 0 ? 1 : -1)), c = 3 * scale * u(rng), w = scale * std::abs(u(rng));
      add_row(p, Eigen::RowVectorXd::Constant(1, a), trial % 3 == 0 ? c - w : c, trial % 3 == 1 ? kInf : c + w);
    }
    std::vector<Real> cand = {p.lower(0), p.upper(0)};
    for (int r = 0; r < m; ++r)
      for (Real b : {p.a_lower(r), p.a_upper(r)})
        if (std::isfinite(b)) cand.push_back(b / p.A(r, 0));
    const std::vector<Real> breaks = cand;
    for (Real b0 : breaks)  // stationary points of the pieces (each piece holds some midpoint)
      for (Real b1 : breaks) {
        const Real mid = 0.5 * (b0 + b1);
        Real num = 0, den = 0;
        for (int r = 0; r < m; ++r) {
          const Real v = p.A(r, 0) * mid, a = p.A(r, 0);
          if (v < p.a_lower(r)) num += a * p.a_lower(r), den += a * a;
          if (v > p.a_upper(r)) num += a * p.a_upper(r), den += a * a;
        }
        if (den > 0) cand.push_back(num / den);
      }
    Real best = kInf, xbest = 0;
    for (Real c : cand) {
      const Real x = std::clamp(c, p.lower(0), p.upper(0));
      const Real f = squared_violation(p, Eigen::VectorXd::Constant(1, x));
      if (f < best) best = f, xbest = x;
    }
    const QpResult r = solve_qp(p);
    if (best <= 1e-20) {
      EXPECT_EQ(r.status, QpStatus::Optimal) << "trial " << trial;
      continue;
    }
    ++infeasible;
    ASSERT_EQ(r.status, QpStatus::Infeasible) << "trial " << trial;
    EXPECT_NEAR(r.x(0), xbest, 1e-9 * std::max<Real>(1, std::abs(xbest))) << "trial " << trial;
    EXPECT_FALSE(r.conflicting_rows.empty());
    EXPECT_LE(r.kkt.max(), 1e-9) << "trial " << trial;
  }
  EXPECT_GT(infeasible, 100);
}

/// min phi over the variable bounds by accelerated projected gradient (FISTA): an independent,
/// slow algorithm whose value the least-violation answer must match.
Real fista_least_violation(const QpProblem& p) {
  const Eigen::Index n = p.H.rows();
  const Real L = 2 * p.A.squaredNorm() + 1e-300;  // Lipschitz bound of grad phi (Frobenius)
  auto grad = [&](const Eigen::VectorXd& x) {
    const Eigen::VectorXd Ax = p.A * x;
    Eigen::VectorXd e = Eigen::VectorXd::Zero(Ax.size());
    for (Eigen::Index r = 0; r < Ax.size(); ++r) {
      if (Ax(r) < p.a_lower(r)) e(r) += Ax(r) - p.a_lower(r);
      if (Ax(r) > p.a_upper(r)) e(r) += Ax(r) - p.a_upper(r);
    }
    return Eigen::VectorXd(2 * p.A.transpose() * e);
  };
  auto project = [&](Eigen::VectorXd x) {
    for (Eigen::Index i = 0; i < n; ++i) x(i) = std::clamp(x(i), lo_of(p, i), hi_of(p, i));
    return x;
  };
  Eigen::VectorXd x = project(Eigen::VectorXd::Zero(n)), y = x;
  Real t = 1;
  for (int it = 0; it < 40000; ++it) {
    const Eigen::VectorXd xn = project(y - grad(y) / L);
    const Real tn = 0.5 * (1 + std::sqrt(1 + 4 * t * t));
    y = xn + ((t - 1) / tn) * (xn - x);
    x = xn;
    t = tn;
  }
  return squared_violation(p, x);
}

/// Certificate that x is the least-violation answer (qp.hpp), independent of the solver:
/// (1) x minimises phi over the variable bounds: the gradient A^T v (v: signed row violations)
///     vanishes in every direction the bounds leave free (relative to |A|^T |v|);
/// (2) x minimises the objective over {bounds, rows violated at x pinned at a_r.x, other rows in
///     their ranges}, with the result's multipliers (KKT of that problem). Since the violation
///     vector of the least-violation points is unique, (1) and (2) characterise the answer.
/// Returns the largest relative residual of (1) and (2).
Real least_violation_certificate(const QpProblem& p, const QpResult& r) {
  const Eigen::VectorXd Ax = p.A * r.x;
  Eigen::VectorXd v = Eigen::VectorXd::Zero(Ax.size()), vabs = v;  // vabs: sizes of the terms of v
  QpProblem pinned = p;
  for (Eigen::Index j = 0; j < Ax.size(); ++j) {
    if (Ax(j) < p.a_lower(j)) v(j) += Ax(j) - p.a_lower(j), vabs(j) += p.a_lower(j) - Ax(j);
    if (Ax(j) > p.a_upper(j)) v(j) += Ax(j) - p.a_upper(j), vabs(j) += Ax(j) - p.a_upper(j);
    if (Ax(j) < p.a_lower(j) || Ax(j) > p.a_upper(j)) pinned.a_lower(j) = pinned.a_upper(j) = Ax(j);
  }
  const Eigen::VectorXd grad = p.A.transpose() * v, scale = p.A.cwiseAbs().transpose() * vabs;
  Real worst = 0;
  for (Eigen::Index i = 0; i < r.x.size(); ++i) {
    const Real rel = grad(i) / std::max(scale(i), 1e-300);
    const Real tol = 1e-12 * (1 + std::abs(r.x(i)));                // at a bound to round-off
    if (r.x(i) > lo_of(p, i) + tol) worst = std::max(worst, rel);   // could move down: grad <= 0 needed
    if (r.x(i) < hi_of(p, i) - tol) worst = std::max(worst, -rel);  // could move up: grad >= 0 needed
  }
  return std::max(worst, kkt_of(pinned, r).max());
}

TEST(Qp, RandomInfeasibleProblemsReachTheLeastViolation) {
  // Rows with narrow ranges around random points: infeasible within the bounds [-1, 1]. The
  // answer stays within the bounds, meets the least-violation certificate, and its squared
  // violation is no worse than an independent projected-gradient minimisation. Some trials
  // scale the rows by up to 1e-3 (weak rows).
  std::mt19937 rng(31);
  std::uniform_real_distribution<Real> u(-1, 1);
  int infeasible = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + trial % 4, m = n + 1 + trial % 3;
    QpProblem p = random_problem(rng, n, 0);
    p.lower = Eigen::VectorXd::Constant(n, -1);
    p.upper = Eigen::VectorXd::Constant(n, 1);
    for (int r = 0; r < m; ++r) {
      const Real scale = trial % 3 == 2 ? std::pow(10.0, -1.5 * (r % 3)) : 1.0;
      const Eigen::RowVectorXd a = scale * Eigen::RowVectorXd::NullaryExpr(n, [&] { return u(rng); });
      const Real c = a.dot(Eigen::VectorXd::NullaryExpr(n, [&] { return 2 * u(rng); }));
      add_row(p, a, r % 2 ? c : c - 0.1 * scale, r % 3 == 0 ? c : c + 0.1 * scale);
    }
    const QpResult r = solve_qp(p);
    if (r.status == QpStatus::Optimal) {
      EXPECT_LE(kkt_of(p, r).max(), 1e-9);
      continue;
    }
    ++infeasible;
    ASSERT_EQ(r.status, QpStatus::Infeasible) << "trial " << trial << ": " << r.message;
    EXPECT_TRUE(((r.x.array() >= -1) && (r.x.array() <= 1)).all()) << "trial " << trial;
    EXPECT_LE(least_violation_certificate(p, r), 1e-9) << "trial " << trial;
    const Real phi = squared_violation(p, r.x), phi_ref = fista_least_violation(p);
    EXPECT_LE(phi, phi_ref * (1 + 1e-9)) << "trial " << trial;
    EXPECT_LE(r.kkt.max(), 1e-9) << "trial " << trial;
    EXPECT_FALSE(r.conflicting_rows.empty());
    for (int row : r.conflicting_rows) EXPECT_NE(r.row_violation(row), 0.0);
  }
  EXPECT_GT(infeasible, 40);
}

TEST(Qp, LargeInfeasibleProblemMeetsTheCertificate) {
  // n = 100, m = 200: rows around two far-apart points, half of them each; the least-violation
  // certificate holds and every row that conflicts is listed.
  std::mt19937 rng(37);
  std::uniform_real_distribution<Real> u(-1, 1);
  const int n = 100, m = 200;
  QpProblem p = random_problem(rng, n, 0);
  p.lower = Eigen::VectorXd::Constant(n, -1);
  p.upper = Eigen::VectorXd::Constant(n, 1);
  const Eigen::VectorXd xa = Eigen::VectorXd::NullaryExpr(n, [&] { return 0.5 * u(rng); }), xb = -xa;
  for (int r = 0; r < m; ++r) {
    const Eigen::RowVectorXd a = Eigen::RowVectorXd::NullaryExpr(n, [&] { return u(rng); });
    const Real c = a.dot(r % 2 ? xa : xb);
    add_row(p, a, c - 0.01, r % 3 == 0 ? c - 0.01 : c + 0.01);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const QpResult r = solve_qp(p);
  const double ms = 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.status, QpStatus::Infeasible) << r.message;
  EXPECT_LE(least_violation_certificate(p, r), 1e-9);
  EXPECT_LE(r.kkt.max(), 1e-9);
  int violated = 0;
  for (int j = 0; j < m; ++j) violated += r.row_violation(j) != 0;
  EXPECT_EQ(static_cast<int>(r.conflicting_rows.size()), violated);
  std::printf("QP infeasible n %d m %d: %d rows violated, %d iterations, %.1f ms\n", n, m, violated, r.iterations, ms);
}

}  // namespace
}  // namespace softik::qp_test
