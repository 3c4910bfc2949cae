// The dense QP solver (qp.hpp): KKT conditions on many random strictly convex problems, equality
// with a brute-force enumeration of active sets on small ones, infeasible problems (least
// violation against analytic and brute-force answers, conflicting constraints named), degenerate
// constraints, warm starts (fewer iterations, same answer), the iteration limit and bad input.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include <Eigen/SVD>

#include "softik/error.hpp"
#include "softik/qp.hpp"

namespace softik {
namespace {

constexpr Real kInf = std::numeric_limits<Real>::infinity();

Real lo_of(const QpProblem& p, Eigen::Index i) { return p.lower.size() ? p.lower(i) : -kInf; }
Real hi_of(const QpProblem& p, Eigen::Index i) { return p.upper.size() ? p.upper(i) : kInf; }

/// Independent KKT check of a result (the definitions of qp.hpp, written out again): the largest
/// of the relative stationarity, primal, complementarity and dual-sign residuals.
struct Kkt {
  Real stationarity = 0, primal = 0, complementarity = 0, dual = 0;
  Real max() const { return std::max({stationarity, primal, complementarity, dual}); }
};
Kkt kkt_of(const QpProblem& p, const QpResult& r) {
  const Eigen::Index n = p.H.rows(), m = p.A.rows();
  Kkt k;
  const Eigen::VectorXd Hx = p.H * r.x, Ax = p.A * r.x;
  Eigen::VectorXd res = Hx + p.g - r.mu_x, scale = (p.H.cwiseAbs() * r.x.cwiseAbs()) + p.g.cwiseAbs() + r.mu_x.cwiseAbs();
  for (Eigen::Index j = 0; j < m; ++j) {
    res -= r.mu_a(j) * p.A.row(j).transpose();
    scale += std::abs(r.mu_a(j)) * p.A.row(j).transpose().cwiseAbs();
  }
  k.stationarity = res.cwiseAbs().maxCoeff() / std::max(scale.maxCoeff(), 1e-300);
  Real G = std::max({Hx.cwiseAbs().maxCoeff(), p.g.cwiseAbs().maxCoeff(), 1e-300});
  for (Eigen::Index i = 0; i < n; ++i) G = std::max(G, std::abs(r.mu_x(i)));
  for (Eigen::Index j = 0; j < m; ++j) G = std::max(G, std::abs(r.mu_a(j)) * p.A.row(j).cwiseAbs().maxCoeff());
  auto one = [&](Real v, Real lo, Real hi, Real terms, Real mu, Real ainf) {
    if (std::isfinite(lo)) k.primal = std::max(k.primal, (lo - v) / std::max(std::abs(lo) + terms, 1e-300));
    if (std::isfinite(hi)) k.primal = std::max(k.primal, (v - hi) / std::max(std::abs(hi) + terms, 1e-300));
    const Real nu = std::abs(mu) * ainf / G;
    if (mu > 0) {
      if (!std::isfinite(lo)) k.dual = std::max(k.dual, nu);
      else k.complementarity = std::max(k.complementarity, nu * std::abs(v - lo) / std::max(std::abs(lo) + terms, 1e-300));
    } else if (mu < 0) {
      if (!std::isfinite(hi)) k.dual = std::max(k.dual, nu);
      else k.complementarity = std::max(k.complementarity, nu * std::abs(v - hi) / std::max(std::abs(hi) + terms, 1e-300));
    }
  };
  for (Eigen::Index i = 0; i < n; ++i) one(r.x(i), lo_of(p, i), hi_of(p, i), std::abs(r.x(i)), r.mu_x(i), 1.0);
  for (Eigen::Index j = 0; j < m; ++j)
    one(Ax(j), p.a_lower(j), p.a_upper(j), p.A.row(j).cwiseAbs().dot(r.x.cwiseAbs()), r.mu_a(j),
        p.A.row(j).cwiseAbs().maxCoeff());
  return k;
}

std::string describe(const Kkt& k) {
  return "stationarity " + std::to_string(k.stationarity) + " primal " + std::to_string(k.primal) + " complementarity " +
         std::to_string(k.complementarity) + " dual " + std::to_string(k.dual);
}

/// Random strictly convex problem, feasible by construction: every bound and row range contains
/// A x0 for a random x0. Each bound/row is free, one-sided, two-sided or an equality (a fixed
/// variable: lower == upper).
/// `cond` > 0 makes H = M^T M + cond I (smaller: worse conditioned).
QpProblem random_problem(std::mt19937& rng, int n, int m, Real cond = 0.1, int equalities = -1) {
  std::uniform_real_distribution<Real> u(-1, 1);
  std::uniform_int_distribution<int> kind(0, 4);
  QpProblem p;
  const Eigen::MatrixXd M = Eigen::MatrixXd::NullaryExpr(n, n, [&] { return u(rng); });
  p.H = M.transpose() * M + cond * Eigen::MatrixXd::Identity(n, n);
  p.g = Eigen::VectorXd::NullaryExpr(n, [&] { return 3 * u(rng); });
  const Eigen::VectorXd x0 = Eigen::VectorXd::NullaryExpr(n, [&] { return u(rng); });
  auto range = [&](Real v, Real& lo, Real& hi, bool equality) {
    if (equality) {
      lo = hi = v;
      return;
    }
    switch (kind(rng)) {
      case 0: lo = -kInf; hi = kInf; break;
      case 1: lo = v - 0.3 * std::abs(u(rng)); hi = kInf; break;
      case 2: lo = -kInf; hi = v + 0.3 * std::abs(u(rng)); break;
      default: lo = v - 0.2 * std::abs(u(rng)); hi = v + 0.2 * std::abs(u(rng)); break;
    }
  };
  p.lower.resize(n);
  p.upper.resize(n);
  for (int i = 0; i < n; ++i) range(x0(i), p.lower(i), p.upper(i), kind(rng) == 0 && kind(rng) == 0);  // 1 in 25 fixed
  p.A = Eigen::MatrixXd::NullaryExpr(m, n, [&] { return u(rng); });
  p.a_lower.resize(m);
  p.a_upper.resize(m);
  const Eigen::VectorXd Ax0 = p.A * x0;
  const int neq = equalities >= 0 ? equalities : std::uniform_int_distribution<int>(0, std::max(0, n / 2))(rng);
  for (int r = 0; r < m; ++r) range(Ax0(r), p.a_lower(r), p.a_upper(r), r < std::min(neq, n - 1));
  return p;
}

Real objective(const QpProblem& p, const Eigen::VectorXd& x) { return 0.5 * x.dot(p.H * x) + p.g.dot(x); }

bool feasible(const QpProblem& p, const Eigen::VectorXd& x, Real tol) {
  for (Eigen::Index i = 0; i < x.size(); ++i)
    if (x(i) < lo_of(p, i) - tol || x(i) > hi_of(p, i) + tol) return false;
  const Eigen::VectorXd Ax = p.A * x;
  for (Eigen::Index r = 0; r < Ax.size(); ++r)
    if (Ax(r) < p.a_lower(r) - tol || Ax(r) > p.a_upper(r) + tol) return false;
  return true;
}

/// Brute force: for every choice of each bound/row as inactive, at its lower or at its upper side,
/// the equality-constrained minimiser (independent active sets only); the feasible one with the
/// lowest objective. Exact for a feasible strictly convex QP.
Eigen::VectorXd brute_force(const QpProblem& p) {
  const int n = static_cast<int>(p.H.rows()), m = static_cast<int>(p.A.rows()), k = n + m;
  Eigen::VectorXd best;
  Real best_f = kInf;
  int combos = 1;
  for (int j = 0; j < k; ++j) combos *= 3;
  for (int code = 0; code < combos; ++code) {
    std::vector<std::pair<Eigen::VectorXd, Real>> act;
    bool ok = true;
    for (int j = 0, c = code; j < k && ok; ++j, c /= 3) {
      if (c % 3 == 0) continue;
      const Real lo = j < n ? lo_of(p, j) : p.a_lower(j - n), hi = j < n ? hi_of(p, j) : p.a_upper(j - n);
      const Real v = c % 3 == 1 ? lo : hi;
      ok = std::isfinite(v) && !(c % 3 == 2 && lo == hi);
      act.emplace_back(j < n ? Eigen::VectorXd(Eigen::VectorXd::Unit(n, j)) : Eigen::VectorXd(p.A.row(j - n).transpose()), v);
    }
    if (!ok || static_cast<int>(act.size()) > n) continue;
    const int a = static_cast<int>(act.size());
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n + a, n + a);
    Eigen::VectorXd rhs(n + a);
    K.topLeftCorner(n, n) = p.H;
    rhs.head(n) = -p.g;
    for (int j = 0; j < a; ++j) {
      K.block(0, n + j, n, 1) = act[static_cast<size_t>(j)].first;
      K.block(n + j, 0, 1, n) = act[static_cast<size_t>(j)].first.transpose();
      rhs(n + j) = act[static_cast<size_t>(j)].second;
    }
    Eigen::FullPivLU<Eigen::MatrixXd> lu(K);
    lu.setThreshold(1e-10);
    if (lu.rank() < n + a) continue;
    const Eigen::VectorXd x = lu.solve(rhs).head(n);
    if (!feasible(p, x, 1e-11)) continue;
    const Real f = objective(p, x);
    if (f < best_f) {
      best_f = f;
      best = x;
    }
  }
  return best;
}

Real max_abs(const Eigen::VectorXd& v) { return v.size() ? v.cwiseAbs().maxCoeff() : 0.0; }

TEST(Qp, RandomProblemsMeetTheKktConditions) {
  std::mt19937 rng(7);
  struct Size {
    int n, m, count;
  };
  const std::vector<Size> sizes = {{1, 0, 20},  {1, 3, 40},   {2, 2, 60},   {3, 5, 60},   {5, 3, 60},  {8, 8, 60},
                                   {12, 4, 40}, {12, 24, 40}, {20, 40, 30}, {30, 10, 20}, {50, 100, 10}, {100, 200, 4}};
  int total = 0, active_total = 0;
  Real worst = 0;
  for (const Size& s : sizes)
    for (int trial = 0; trial < s.count; ++trial) {
      const Real cond = trial % 3 == 0 ? 1e-3 : 0.1;
      const QpProblem p = random_problem(rng, s.n, s.m, cond);
      const QpResult r = solve_qp(p);
      ASSERT_EQ(r.status, QpStatus::Optimal) << "n " << s.n << " m " << s.m << " trial " << trial << ": " << r.message;
      const Kkt k = kkt_of(p, r);
      EXPECT_LE(k.max(), 1e-9) << "n " << s.n << " m " << s.m << " trial " << trial << ": " << describe(k);
      EXPECT_LE(r.kkt.max(), 1e-9);
      EXPECT_NEAR(r.kkt.max(), k.max(), 1e-12 + 1e-6 * k.max());  // the solver reports what it achieved
      EXPECT_LE(max_abs(r.row_violation), 1e-9 * std::max<Real>(1, max_abs(p.A * r.x)));
      for (signed char a : r.active_set.rows) active_total += a != 0;
      worst = std::max(worst, k.max());
      ++total;
    }
  std::printf("QP: %d random problems, largest KKT residual %.2e, %d active rows in all\n", total, worst, active_total);
}

TEST(Qp, SmallProblemsEqualBruteForceEnumeration) {
  std::mt19937 rng(11);
  int trials = 0;
  for (int n = 1; n <= 4; ++n)
    for (int m = 0; m <= 4; ++m)
      for (int t = 0; t < 16; ++t) {
        const QpProblem p = random_problem(rng, n, m, t % 2 ? 0.1 : 0.01);
        const QpResult r = solve_qp(p);
        ASSERT_EQ(r.status, QpStatus::Optimal) << "n " << n << " m " << m << " trial " << t;
        const Eigen::VectorXd x = brute_force(p);
        ASSERT_EQ(x.size(), n) << "n " << n << " m " << m << " trial " << t;
        EXPECT_LE(max_abs(r.x - x), 1e-9 * std::max<Real>(1, max_abs(x))) << "n " << n << " m " << m << " trial " << t;
        ++trials;
      }
  EXPECT_EQ(trials, 4 * 5 * 16);
}

QpProblem one_d(Real h, Real g, Real lo, Real hi) {
  QpProblem p;
  p.H = Eigen::MatrixXd::Constant(1, 1, h);
  p.g = Eigen::VectorXd::Constant(1, g);
  p.lower = Eigen::VectorXd::Constant(1, lo);
  p.upper = Eigen::VectorXd::Constant(1, hi);
  p.A.resize(0, 1);
  return p;
}

void add_row(QpProblem& p, const Eigen::RowVectorXd& a, Real lo, Real hi) {
  const Eigen::Index m = p.A.rows(), n = p.H.rows();
  p.A.conservativeResize(m + 1, n);
  p.A.row(m) = a;
  p.a_lower.conservativeResize(m + 1);
  p.a_upper.conservativeResize(m + 1);
  p.a_lower(m) = lo;
  p.a_upper(m) = hi;
}

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
    const Real tol = 1e-12 * (1 + std::abs(r.x(i)));  // at a bound to round-off
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

TEST(Qp, DegenerateConstraintsAreHandled) {
  // min 1/2 |x - (2, 2)|^2 with the row x1 + x2 <= 1 twice, the row x1 <= 0.25 parallel to the
  // bound x1 <= 0.25, the equality x1 - x2 = -0.5 twice and a zero row in [-1, 1].
  // Optimum: x = (0.25, 0.75), the point of the equality line on x1 + x2 = 1.
  QpProblem p;
  p.H = Eigen::MatrixXd::Identity(2, 2);
  p.g = Eigen::Vector2d(-2, -2);
  p.lower = Eigen::Vector2d(-kInf, -kInf);
  p.upper = Eigen::Vector2d(0.25, kInf);
  p.A.resize(0, 2);
  add_row(p, Eigen::RowVector2d(1, 1), -kInf, 1);
  add_row(p, Eigen::RowVector2d(1, 1), -kInf, 1);
  add_row(p, Eigen::RowVector2d(1, 0), -kInf, 0.25);
  add_row(p, Eigen::RowVector2d(1, -1), -0.5, -0.5);
  add_row(p, Eigen::RowVector2d(1, -1), -0.5, -0.5);
  add_row(p, Eigen::RowVector2d(0, 0), -1, 1);
  const QpResult r = solve_qp(p);
  ASSERT_EQ(r.status, QpStatus::Optimal) << r.message;
  EXPECT_NEAR(r.x(0), 0.25, 1e-14);
  EXPECT_NEAR(r.x(1), 0.75, 1e-14);
  EXPECT_LE(kkt_of(p, r).max(), 1e-12) << describe(kkt_of(p, r));
  // A fixed variable (lower == upper) and a zero row with the range [0, 0].
  QpProblem f = one_d(2, -8, 1.5, 1.5);
  add_row(f, Eigen::RowVectorXd::Zero(1), 0, 0);
  const QpResult fr = solve_qp(f);
  ASSERT_EQ(fr.status, QpStatus::Optimal);
  EXPECT_EQ(fr.x(0), 1.5);
  EXPECT_NEAR(fr.mu_x(0), 2 * 1.5 - 8, 1e-14);  // H x + g = mu at the bound
  // No constraint active: the unconstrained minimiser, zero multipliers, no iteration.
  QpProblem in = one_d(4, -2, -10, 10);
  add_row(in, Eigen::RowVectorXd::Constant(1, 3.0), -100, 100);
  const QpResult ir = solve_qp(in);
  EXPECT_EQ(ir.status, QpStatus::Optimal);
  EXPECT_EQ(ir.iterations, 0);
  EXPECT_NEAR(ir.x(0), 0.5, 1e-15);
  EXPECT_EQ(ir.mu_x(0), 0.0);
  EXPECT_EQ(ir.mu_a(0), 0.0);
  // n = 1, m = 0, no bounds at all (empty lower/upper vectors and a 0 x 0 A).
  QpProblem bare;
  bare.H = Eigen::MatrixXd::Constant(1, 1, 4.0);
  bare.g = Eigen::VectorXd::Constant(1, -2.0);
  const QpResult br = solve_qp(bare);
  EXPECT_EQ(br.status, QpStatus::Optimal);
  EXPECT_NEAR(br.x(0), 0.5, 1e-15);
  EXPECT_EQ(br.mu_a.size(), 0);
  // n = 1 at a bound.
  const QpResult at = solve_qp(one_d(1, -5, -1, 2));
  EXPECT_EQ(at.x(0), 2.0);
  EXPECT_NEAR(at.mu_x(0), 2 - 5, 1e-15);
  EXPECT_EQ(at.active_set.variables[0], QpActiveSet::kAtUpper);
}

/// True when `a` and every choice of up to n - 1 of `normals` form a matrix whose smallest
/// singular value is at least 0.05 of its largest.
bool well_separated(const std::vector<Eigen::RowVectorXd>& normals, const Eigen::RowVectorXd& a) {
  const int k = static_cast<int>(normals.size()), n = static_cast<int>(a.size());
  for (int mask = 0; mask < (1 << k); ++mask) {
    std::vector<Eigen::RowVectorXd> rows{a};
    for (int j = 0; j < k; ++j)
      if (mask >> j & 1) rows.push_back(normals[static_cast<size_t>(j)]);
    if (static_cast<int>(rows.size()) > n) continue;
    Eigen::MatrixXd M(rows.size(), n);
    for (size_t j = 0; j < rows.size(); ++j) M.row(static_cast<Eigen::Index>(j)) = rows[j];
    const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(M).singularValues();
    if (sv.minCoeff() < 0.05 * sv.maxCoeff()) return false;
  }
  return true;
}

TEST(Qp, DegenerateVerticesEqualBruteForce) {
  // Every row and some bounds pass through one point x* (more constraints meet there than there
  // are variables: primal degeneracy), rows are one- or two-sided or equalities there, and the
  // unconstrained minimiser is random: the solution equals the brute-force one.
  std::mt19937 rng(43);
  std::uniform_real_distribution<Real> u(-1, 1);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + trial % 3, m = 1 + trial % 4;
    QpProblem p = random_problem(rng, n, 0);
    const Eigen::VectorXd xs = Eigen::VectorXd::NullaryExpr(n, [&] { return u(rng); });
    p.g = -p.H * (xs + Eigen::VectorXd::NullaryExpr(n, [&] { return u(rng); }));
    for (int i = 0; i < n; ++i) {
      p.lower(i) = trial % 2 ? xs(i) : -kInf;
      p.upper(i) = trial % 4 == 3 ? xs(i) + 1 : kInf;
    }
    std::vector<Eigen::RowVectorXd> normals;
    for (int i = 0; i < n; ++i) normals.push_back(Eigen::RowVectorXd::Unit(n, i));
    for (int r = 0; r < m; ++r) {
      // Degenerate, not ill-conditioned: every n of the normals (bounds included) stay well apart,
      // else both the solver and the brute force only agree to cond * round-off.
      Eigen::RowVectorXd a;
      do a = Eigen::RowVectorXd::NullaryExpr(n, [&] { return u(rng); });
      while (!well_separated(normals, a));
      normals.push_back(a);
      const Real v = a.dot(xs);
      const int kind = (trial + r) % 4;
      add_row(p, a, kind == 1 ? -kInf : v, kind == 0 ? kInf : kind == 3 ? v : v + 0.5);
    }
    const QpResult r = solve_qp(p);
    ASSERT_EQ(r.status, QpStatus::Optimal) << "trial " << trial << ": " << r.message;
    const Eigen::VectorXd x = brute_force(p);
    ASSERT_EQ(x.size(), n);
    EXPECT_LE(max_abs(r.x - x), 1e-9 * std::max<Real>(1, max_abs(x))) << "trial " << trial;
    EXPECT_LE(kkt_of(p, r).max(), 1e-9) << "trial " << trial << ": " << describe(kkt_of(p, r));
  }
}

TEST(Qp, DuplicatedConstraintsDoNotChangeTheAnswer) {
  // Random problems with every row repeated (once scaled by 2.5), and rows that repeat the
  // variable bounds: the solution is that of the original problem, the KKT conditions hold.
  std::mt19937 rng(41);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + trial % 7, m = 1 + trial % 5;
    const QpProblem p = random_problem(rng, n, m);
    QpProblem d = p;
    for (int r = 0; r < m; ++r) {
      const Real s = r % 2 ? 2.5 : 1.0;
      add_row(d, s * p.A.row(r), s * p.a_lower(r), s * p.a_upper(r));
    }
    for (int i = 0; i < n; ++i) add_row(d, Eigen::RowVectorXd::Unit(n, i), p.lower(i), p.upper(i));
    const QpResult a = solve_qp(p), b = solve_qp(d);
    ASSERT_EQ(b.status, QpStatus::Optimal) << "trial " << trial << ": " << b.message;
    EXPECT_LE(max_abs(a.x - b.x), 1e-9 * std::max<Real>(1, max_abs(a.x))) << "trial " << trial;
    EXPECT_LE(kkt_of(d, b).max(), 1e-9) << "trial " << trial << ": " << describe(kkt_of(d, b));
  }
}

TEST(Qp, SoftikShapedProblemsAreSolvedAndScaleFree) {
  // The shape of seed 002 eq. 5: H = W_ea^T W_ea + eps W_aa with more actuators than effector
  // rows (W_ea^T W_ea singular, eps = 1e-3 relative), rows A = W_aa with volume-growth ranges.
  // In SI units (pressures ~1e4 Pa, volumes ~1e-6 m^3) and in scaled units the same answer.
  std::mt19937 rng(53);
  std::uniform_real_distribution<Real> u(-1, 1);
  for (int trial = 0; trial < 30; ++trial) {
    const int na = 2 + trial % 6, ne = 1 + trial % 3;
    const Eigen::MatrixXd Wea = 1e-9 * Eigen::MatrixXd::NullaryExpr(ne, na, [&] { return u(rng); });
    const Eigen::MatrixXd B = Eigen::MatrixXd::NullaryExpr(na, na, [&] { return u(rng); });
    const Eigen::MatrixXd Waa = 1e-10 * (B * B.transpose() + 0.1 * Eigen::MatrixXd::Identity(na, na));
    const Eigen::VectorXd de = 1e-3 * Eigen::VectorXd::NullaryExpr(ne, [&] { return u(rng); });
    QpProblem p;
    const Eigen::MatrixXd EtE = Wea.transpose() * Wea;
    p.H = EtE + 1e-3 * EtE.norm() / Waa.norm() * Waa;
    p.g = Wea.transpose() * de;
    p.lower = Eigen::VectorXd::Constant(na, 0.0);
    p.upper = Eigen::VectorXd::Constant(na, 5e4);
    p.A = Waa;
    p.a_lower = Eigen::VectorXd::Constant(na, -kInf);
    p.a_upper = Eigen::VectorXd::Constant(na, 2e-6);
    const QpResult r = solve_qp(p);
    ASSERT_EQ(r.status, QpStatus::Optimal) << r.message;
    EXPECT_LE(kkt_of(p, r).max(), 1e-9) << "trial " << trial << ": " << describe(kkt_of(p, r));
    QpProblem s = p;  // kPa and cm^3: x' = x / 1e3, rows' = rows * 1e6
    s.H = p.H * 1e6;
    s.g = p.g * 1e3;
    s.lower /= 1e3;
    s.upper /= 1e3;
    s.A = p.A * 1e9;
    s.a_upper *= 1e6;
    const QpResult rs = solve_qp(s);
    ASSERT_EQ(rs.status, QpStatus::Optimal);
    EXPECT_LE(max_abs(rs.x * 1e3 - r.x), 1e-9 * max_abs(r.x) + 1e-12) << "trial " << trial;
    EXPECT_EQ(rs.active_set.rows, r.active_set.rows);
    // Mixed units (pressures next to cable forces): variable i measured in units 10^e_i,
    // x' = D^-1 x with D = diag(10^e_i). Each component is found to its own relative accuracy.
    const Eigen::VectorXd e = Eigen::VectorXd::NullaryExpr(na, [&] { return std::round(3 * u(rng)); });
    const Eigen::VectorXd D = e.unaryExpr([](Real v) { return std::pow(10.0, v); });
    QpProblem mixed = p;
    mixed.H = D.asDiagonal() * p.H * D.asDiagonal();
    mixed.g = D.asDiagonal() * p.g;
    mixed.A = p.A * D.asDiagonal();
    mixed.lower = p.lower.cwiseQuotient(D);
    mixed.upper = p.upper.cwiseQuotient(D);
    const QpResult rm = solve_qp(mixed);
    ASSERT_EQ(rm.status, QpStatus::Optimal);
    EXPECT_LE(kkt_of(mixed, rm).max(), 1e-9) << "trial " << trial << ": " << describe(kkt_of(mixed, rm));
    EXPECT_EQ(rm.active_set.rows, r.active_set.rows) << "trial " << trial;
    EXPECT_EQ(rm.active_set.variables, r.active_set.variables) << "trial " << trial;
    for (int i = 0; i < na; ++i) EXPECT_NEAR(rm.x(i) * D(i), r.x(i), 1e-9 * max_abs(r.x)) << "trial " << trial;
  }
}

TEST(Qp, WarmStartFromThePreviousActiveSetSavesIterations) {
  // Each "simulation step" perturbs g (relative size `change`) and widens some row ranges
  // slightly; the warm start from the previous active set gives the cold answer in fewer
  // iterations (active-set changes).
  std::mt19937 rng(5);
  std::uniform_real_distribution<Real> u(-1, 1);
  struct Case {
    int n, m, count;
    Real change;
  };
  for (const Case& c : std::vector<Case>{{10, 8, 40, 1e-3}, {10, 8, 40, 5e-2}, {30, 60, 15, 1e-3}, {30, 60, 15, 5e-2},
                                         {100, 200, 3, 1e-3}, {100, 200, 3, 5e-2}}) {
    long cold_total = 0, warm_total = 0;
    double cold_s = 0, warm_s = 0;
    const int steps = 5;
    for (int trial = 0; trial < c.count; ++trial) {
      QpProblem p = random_problem(rng, c.n, c.m);
      QpResult prev = solve_qp(p);
      ASSERT_EQ(prev.status, QpStatus::Optimal);
      for (int step = 0; step < steps; ++step) {
        p.g += c.change * max_abs(p.g) * Eigen::VectorXd::NullaryExpr(c.n, [&] { return u(rng); });
        for (Eigen::Index r = 0; r < p.A.rows(); ++r)
          if (p.a_lower(r) < p.a_upper(r) && std::isfinite(p.a_upper(r))) p.a_upper(r) += 0.1 * c.change * std::abs(u(rng));
        const auto t0 = std::chrono::steady_clock::now();
        const QpResult cold = solve_qp(p);
        const auto t1 = std::chrono::steady_clock::now();
        const QpResult warm = solve_qp(p, {}, &prev.active_set);
        const auto t2 = std::chrono::steady_clock::now();
        cold_s += std::chrono::duration<double>(t1 - t0).count();
        warm_s += std::chrono::duration<double>(t2 - t1).count();
        ASSERT_EQ(cold.status, QpStatus::Optimal);
        ASSERT_EQ(warm.status, QpStatus::Optimal);
        EXPECT_TRUE(warm.warm_started);
        EXPECT_FALSE(cold.warm_started);
        EXPECT_LE(max_abs(cold.x - warm.x), 1e-9 * std::max<Real>(1, max_abs(cold.x)));
        EXPECT_LE(kkt_of(p, warm).max(), 1e-9);
        cold_total += cold.iterations;
        warm_total += warm.iterations;
        prev = warm;
      }
    }
    const int solves = steps * c.count;
    std::printf("QP n %3d m %3d, g changed by %.0e per step, %3d solves: iterations per solve cold %.1f warm %.1f; "
                "time per solve cold %.3f ms warm %.3f ms\n",
                c.n, c.m, c.change, solves, double(cold_total) / solves, double(warm_total) / solves,
                1e3 * cold_s / solves, 1e3 * warm_s / solves);
    EXPECT_LT(warm_total * (c.change < 1e-2 ? 10 : 2), cold_total) << "n " << c.n << " change " << c.change;
  }
}

TEST(Qp, AnyWarmSetGivesTheColdAnswer) {
  // Wrong sizes: cold start. Every entry at its upper side (sides that are infinite ignored,
  // dependent ones skipped, negative multipliers dropped): the same answer as cold.
  std::mt19937 rng(61);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 3 + trial % 8, m = 2 + trial % 9;
    const QpProblem p = random_problem(rng, n, m);
    const QpResult cold = solve_qp(p);
    QpActiveSet all_upper, all_lower, wrong;
    all_upper.variables.assign(static_cast<size_t>(n), QpActiveSet::kAtUpper);
    all_upper.rows.assign(static_cast<size_t>(m), QpActiveSet::kAtUpper);
    all_lower.variables.assign(static_cast<size_t>(n), QpActiveSet::kAtLower);
    all_lower.rows.assign(static_cast<size_t>(m), QpActiveSet::kAtLower);
    wrong.variables.assign(static_cast<size_t>(n + 1), QpActiveSet::kAtUpper);
    for (const QpActiveSet* w : {&all_upper, &all_lower, &wrong}) {
      const QpResult r = solve_qp(p, {}, w);
      ASSERT_EQ(r.status, QpStatus::Optimal);
      EXPECT_EQ(r.warm_started, w != &wrong);
      EXPECT_LE(max_abs(r.x - cold.x), 1e-9 * std::max<Real>(1, max_abs(cold.x))) << "trial " << trial;
      EXPECT_LE(kkt_of(p, r).max(), 1e-9);
    }
  }
  QpProblem p = one_d(1, 0, 0, 1);
  QpActiveSet bad;
  bad.variables = {3};
  EXPECT_THROW(solve_qp(p, {}, &bad), Error);
}

TEST(Qp, IterationLimitIsReported) {
  std::mt19937 rng(71);
  const QpProblem p = random_problem(rng, 30, 60);
  const QpResult full = solve_qp(p);
  ASSERT_EQ(full.status, QpStatus::Optimal);
  ASSERT_GT(full.iterations, 3);
  QpOptions o;
  o.max_iterations = 3;
  const QpResult r = solve_qp(p, o);
  EXPECT_EQ(r.status, QpStatus::IterationLimit);
  EXPECT_LE(r.iterations, 3);
  EXPECT_NE(r.message.find("iteration limit"), std::string::npos);
  EXPECT_GT(r.kkt.primal, 1e-9);  // not a solution, and the residuals say so
  EXPECT_TRUE(((r.x.array() >= p.lower.array()) && (r.x.array() <= p.upper.array())).all());  // clamped
  o.max_iterations = 0;
  EXPECT_EQ(solve_qp(p, o).status, QpStatus::IterationLimit);
  o.max_iterations = full.iterations;
  EXPECT_EQ(solve_qp(p, o).status, QpStatus::Optimal);
}

TEST(Qp, BadInputIsAnError) {
  auto message = [](const QpProblem& p) -> std::string {
    try {
      solve_qp(p);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  QpProblem p;
  p.H = Eigen::MatrixXd::Identity(2, 2);
  p.g = Eigen::VectorXd::Zero(2);
  p.lower = Eigen::Vector2d(0, 1);
  p.upper = Eigen::Vector2d(1, 0);
  p.variable_names = {"cavity0 pressure", "cavity1 pressure"};
  EXPECT_NE(message(p).find("cavity1 pressure"), std::string::npos) << message(p);
  p.upper = Eigen::Vector2d(1, 2);
  EXPECT_EQ(message(p), "no error");
  QpProblem q = p;
  q.H(0, 1) = std::nan("");
  EXPECT_NE(message(q).find("NaN"), std::string::npos);
  q = p;
  q.g(1) = kInf;
  EXPECT_NE(message(q).find("NaN or infinity"), std::string::npos);
  q = p;
  q.A = Eigen::MatrixXd::Ones(1, 2);
  q.A(0, 0) = kInf;
  q.a_lower = Eigen::VectorXd::Zero(1);
  q.a_upper = Eigen::VectorXd::Ones(1);
  EXPECT_NE(message(q).find("constraint matrix A"), std::string::npos);
  q = p;
  q.H = Eigen::MatrixXd::Zero(2, 2);  // epsilon = 0 and no effector: singular
  EXPECT_NE(message(q).find("epsilon must be > 0"), std::string::npos) << message(q);
  q.H << 1, 2, 2, 1;  // indefinite
  EXPECT_NE(message(q).find("epsilon must be > 0"), std::string::npos);
  q.H << 1, 1, 1, 1;  // W_ea^T W_ea of one effector row with eps = 0: positive semi-definite
  EXPECT_NE(message(q).find("epsilon must be > 0"), std::string::npos);
  q.H << 1, 0.5, 0, 1;  // not symmetric
  EXPECT_NE(message(q).find("not symmetric"), std::string::npos);
  q = p;
  q.g = Eigen::VectorXd::Zero(3);
  EXPECT_NE(message(q).find("g have n entries"), std::string::npos);
  q = p;
  q.A = Eigen::MatrixXd::Ones(2, 2);
  q.a_lower = Eigen::VectorXd::Zero(1);
  q.a_upper = Eigen::VectorXd::Zero(2);
  EXPECT_NE(message(q).find("m entries"), std::string::npos);
  q = p;
  q.lower(0) = std::nan("");
  EXPECT_NE(message(q).find("cavity0 pressure"), std::string::npos);
  q = p;
  q.variable_names = {"only one"};
  EXPECT_NE(message(q).find("variable names"), std::string::npos);
  q = p;
  q.A = Eigen::MatrixXd::Ones(1, 2);
  q.a_lower = Eigen::VectorXd::Constant(1, kInf);  // a lower bound of +inf
  q.a_upper = Eigen::VectorXd::Constant(1, kInf);
  q.row_names = {"cavity0 volume growth"};
  EXPECT_NE(message(q).find("cavity0 volume growth"), std::string::npos);
}

}  // namespace
}  // namespace softik
