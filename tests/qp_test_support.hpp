// Shared by the QP tests (test_qp.cpp, test_qp_infeasible.cpp): an independent KKT check, random
// strictly convex problems, feasibility, brute-force enumeration of active sets, small builders.
#pragma once

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

namespace softik::qp_test {

constexpr Real kInf = std::numeric_limits<Real>::infinity();

inline Real lo_of(const QpProblem& p, Eigen::Index i) { return p.lower.size() ? p.lower(i) : -kInf; }
inline Real hi_of(const QpProblem& p, Eigen::Index i) { return p.upper.size() ? p.upper(i) : kInf; }

/// Independent KKT check of a result (the definitions of qp.hpp, written out again): the largest
/// of the relative stationarity, primal, complementarity and dual-sign residuals.
struct Kkt {
  Real stationarity = 0, primal = 0, complementarity = 0, dual = 0;
  Real max() const { return std::max({stationarity, primal, complementarity, dual}); }
};
inline Kkt kkt_of(const QpProblem& p, const QpResult& r) {
  const Eigen::Index n = p.H.rows(), m = p.A.rows();
  Kkt k;
  const Eigen::VectorXd Hx = p.H * r.x, Ax = p.A * r.x;
  Eigen::VectorXd res = Hx + p.g - r.mu_x,
                  scale = (p.H.cwiseAbs() * r.x.cwiseAbs()) + p.g.cwiseAbs() + r.mu_x.cwiseAbs();
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
      if (!std::isfinite(lo))
        k.dual = std::max(k.dual, nu);
      else
        k.complementarity = std::max(k.complementarity, nu * std::abs(v - lo) / std::max(std::abs(lo) + terms, 1e-300));
    } else if (mu < 0) {
      if (!std::isfinite(hi))
        k.dual = std::max(k.dual, nu);
      else
        k.complementarity = std::max(k.complementarity, nu * std::abs(v - hi) / std::max(std::abs(hi) + terms, 1e-300));
    }
  };
  for (Eigen::Index i = 0; i < n; ++i) one(r.x(i), lo_of(p, i), hi_of(p, i), std::abs(r.x(i)), r.mu_x(i), 1.0);
  for (Eigen::Index j = 0; j < m; ++j)
    one(Ax(j), p.a_lower(j), p.a_upper(j), p.A.row(j).cwiseAbs().dot(r.x.cwiseAbs()), r.mu_a(j),
        p.A.row(j).cwiseAbs().maxCoeff());
  return k;
}

inline std::string describe(const Kkt& k) {
  return "stationarity " + std::to_string(k.stationarity) + " primal " + std::to_string(k.primal) +
         " complementarity " + std::to_string(k.complementarity) + " dual " + std::to_string(k.dual);
}

/// Random strictly convex problem, feasible by construction: every bound and row range contains
/// A x0 for a random x0. Each bound/row is free, one-sided, two-sided or an equality (a fixed
/// variable: lower == upper).
/// `cond` > 0 makes H = M^T M + cond I (smaller: worse conditioned).
inline QpProblem random_problem(std::mt19937& rng, int n, int m, Real cond = 0.1, int equalities = -1) {
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
      case 0:
        lo = -kInf;
        hi = kInf;
        break;
      case 1:
        lo = v - 0.3 * std::abs(u(rng));
        hi = kInf;
        break;
      case 2:
        lo = -kInf;
        hi = v + 0.3 * std::abs(u(rng));
        break;
      default:
        lo = v - 0.2 * std::abs(u(rng));
        hi = v + 0.2 * std::abs(u(rng));
        break;
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

inline Real objective(const QpProblem& p, const Eigen::VectorXd& x) { return 0.5 * x.dot(p.H * x) + p.g.dot(x); }

inline bool feasible(const QpProblem& p, const Eigen::VectorXd& x, Real tol) {
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
inline Eigen::VectorXd brute_force(const QpProblem& p) {
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
      act.emplace_back(
          j < n ? Eigen::VectorXd(Eigen::VectorXd::Unit(n, j)) : Eigen::VectorXd(p.A.row(j - n).transpose()), v);
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

inline Real max_abs(const Eigen::VectorXd& v) { return v.size() ? v.cwiseAbs().maxCoeff() : 0.0; }

inline QpProblem one_d(Real h, Real g, Real lo, Real hi) {
  QpProblem p;
  p.H = Eigen::MatrixXd::Constant(1, 1, h);
  p.g = Eigen::VectorXd::Constant(1, g);
  p.lower = Eigen::VectorXd::Constant(1, lo);
  p.upper = Eigen::VectorXd::Constant(1, hi);
  p.A.resize(0, 1);
  return p;
}

inline void add_row(QpProblem& p, const Eigen::RowVectorXd& a, Real lo, Real hi) {
  const Eigen::Index m = p.A.rows(), n = p.H.rows();
  p.A.conservativeResize(m + 1, n);
  p.A.row(m) = a;
  p.a_lower.conservativeResize(m + 1);
  p.a_upper.conservativeResize(m + 1);
  p.a_lower(m) = lo;
  p.a_upper(m) = hi;
}

}  // namespace softik::qp_test
