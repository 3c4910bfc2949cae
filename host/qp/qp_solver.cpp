// solve_qp (qp.hpp): input checks, the least-violation answer of infeasible problems, KKT
// residuals and messages. The active-set iteration itself is in qp_dual_active_set.cpp, the
// treatment of semi-definite Hessians (flat directions, unboundedness) in qp_semidefinite.cpp.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <sstream>

#include "host/qp/qp_detail.hpp"
#include "softik/error.hpp"
#include "softik/qp.hpp"

namespace softik {

namespace {

constexpr Real kInf = std::numeric_limits<Real>::infinity();
constexpr Real kTiny = std::numeric_limits<Real>::min();

Real lower_of(const QpProblem& p, Eigen::Index i) { return p.lower.size() ? p.lower(i) : -kInf; }
Real upper_of(const QpProblem& p, Eigen::Index i) { return p.upper.size() ? p.upper(i) : kInf; }

std::string variable_name(const QpProblem& p, Eigen::Index i) {
  return static_cast<size_t>(i) < p.variable_names.size() ? p.variable_names[static_cast<size_t>(i)]
                                                          : "x[" + std::to_string(i) + "]";
}
std::string row_name(const QpProblem& p, Eigen::Index r) {
  return static_cast<size_t>(r) < p.row_names.size() ? p.row_names[static_cast<size_t>(r)] : "row " + std::to_string(r);
}

/// Checks sizes and values (qp.hpp lists the errors) and returns the problem with H symmetrised.
QpProblem checked(const QpProblem& p) {
  const Eigen::Index n = p.H.rows(), m = p.A.rows();
  SOFTIK_CHECK(n >= 1 && p.H.cols() == n && p.g.size() == n, "QP: H must be n x n and g have n entries (n >= 1); got H "
                                                                 << p.H.rows() << " x " << p.H.cols() << " and g of "
                                                                 << p.g.size());
  SOFTIK_CHECK((p.lower.size() == 0 || p.lower.size() == n) && (p.upper.size() == 0 || p.upper.size() == n),
               "QP: lower and upper must have n = " << n << " entries or none; got " << p.lower.size() << " and "
                                                    << p.upper.size());
  SOFTIK_CHECK((m == 0 || p.A.cols() == n) && p.a_lower.size() == m && p.a_upper.size() == m,
               "QP: A must be m x n (n = " << n << ") with m entries in a_lower and a_upper; got A " << p.A.rows()
                                           << " x " << p.A.cols() << ", " << p.a_lower.size() << " and "
                                           << p.a_upper.size());
  SOFTIK_CHECK(p.variable_names.empty() || p.variable_names.size() == static_cast<size_t>(n),
               "QP: give no variable names or n = " << n << " of them, got " << p.variable_names.size());
  SOFTIK_CHECK(p.row_names.empty() || p.row_names.size() == static_cast<size_t>(m),
               "QP: give no row names or m = " << m << " of them, got " << p.row_names.size());
  SOFTIK_CHECK(p.H.allFinite(), "QP: the Hessian H holds NaN or infinity");
  SOFTIK_CHECK(p.g.allFinite(), "QP: the linear term g holds NaN or infinity");
  SOFTIK_CHECK(p.g_terms.size() == 0 || (p.g_terms.size() == n && p.g_terms.allFinite() && p.g_terms.minCoeff() >= 0),
               "QP: g_terms must be empty or have n = " << n << " finite entries >= 0");
  SOFTIK_CHECK(m == 0 || p.A.allFinite(), "QP: the constraint matrix A holds NaN or infinity");
  for (Eigen::Index i = 0; i < n; ++i) {
    const Real lo = lower_of(p, i), hi = upper_of(p, i);
    SOFTIK_CHECK(!std::isnan(lo) && !std::isnan(hi) && lo < kInf && hi > -kInf,
                 "QP: the bounds of " << variable_name(p, i) << " are [" << lo << ", " << hi
                                      << "]: NaN, a lower bound of +inf or an upper bound of -inf");
    SOFTIK_CHECK(lo <= hi, "QP: the bounds of " << variable_name(p, i) << " are empty: lower " << lo << " > upper "
                                                << hi << "; give lower <= upper");
  }
  for (Eigen::Index r = 0; r < m; ++r)
    SOFTIK_CHECK(!std::isnan(p.a_lower(r)) && !std::isnan(p.a_upper(r)) && p.a_lower(r) < kInf && p.a_upper(r) > -kInf,
                 "QP: the bounds of " << row_name(p, r) << " are [" << p.a_lower(r) << ", " << p.a_upper(r)
                                      << "]: NaN, a lower bound of +inf or an upper bound of -inf");
  const Real hmax = p.H.cwiseAbs().maxCoeff();
  SOFTIK_CHECK((p.H - p.H.transpose()).cwiseAbs().maxCoeff() <= 1e-8 * hmax,
               "QP: the Hessian H is not symmetric (|H - H^T| = " << (p.H - p.H.transpose()).cwiseAbs().maxCoeff()
                                                                  << ", |H| = " << hmax << ")");
  QpProblem out = p;
  out.H = 0.5 * (p.H + p.H.transpose());
  if (m == 0) out.A.resize(0, n);
  return out;
}

/// Signed violation of each row: a_r.x minus the nearest point of its range (qp.hpp).
Eigen::VectorXd row_violations(const QpProblem& p, const Eigen::VectorXd& x) {
  const Eigen::VectorXd Ax = p.A * x;
  Eigen::VectorXd v = Eigen::VectorXd::Zero(p.A.rows());
  for (Eigen::Index r = 0; r < Ax.size(); ++r) {
    const Real below = p.a_lower(r) - Ax(r), above = Ax(r) - p.a_upper(r);
    if (below > 0 && below >= above)
      v(r) = -below;
    else if (above > 0)
      v(r) = above;
  }
  return v;
}

/// KKT residuals of (x, mu_x, mu_a) for problem p (definitions in qp.hpp, QpKkt).
QpKkt kkt_residuals(const QpProblem& p, const QpResult& res) {
  const Eigen::Index n = p.H.rows(), m = p.A.rows();
  const Eigen::VectorXd& x = res.x;
  const Eigen::VectorXd Hx = p.H * x, Ax = p.A * x;
  const Eigen::VectorXd stat = Hx + p.g - res.mu_x - p.A.transpose() * res.mu_a;
  const Eigen::VectorXd scale = p.H.cwiseAbs() * x.cwiseAbs() + p.g.cwiseAbs() + res.mu_x.cwiseAbs() +
                                p.A.cwiseAbs().transpose() * res.mu_a.cwiseAbs();
  QpKkt k;
  k.stationarity = stat.cwiseAbs().maxCoeff() / std::max(scale.maxCoeff(), kTiny);
  const Eigen::VectorXd terms = p.A.cwiseAbs() * x.cwiseAbs();
  Real G = std::max({Hx.cwiseAbs().maxCoeff(), p.g.cwiseAbs().maxCoeff(), res.mu_x.cwiseAbs().maxCoeff(), kTiny});
  for (Eigen::Index r = 0; r < m; ++r) G = std::max(G, std::abs(res.mu_a(r)) * p.A.row(r).lpNorm<Eigen::Infinity>());
  auto check = [&](Real v, Real lo, Real hi, Real terms, Real mu, Real ainf) {
    k.primal = std::max(k.primal, qp_detail::relative_violation(v, lo, hi, terms));
    const Real nu = std::abs(mu) * ainf / G;
    if (mu == 0) return;
    const Real bound = mu > 0 ? lo : hi;
    if (!std::isfinite(bound))
      k.dual = std::max(k.dual, nu);
    else
      k.complementarity =
          std::max(k.complementarity, nu * std::abs(v - bound) / std::max(std::abs(bound) + terms, kTiny));
  };
  for (Eigen::Index i = 0; i < n; ++i) check(x(i), lower_of(p, i), upper_of(p, i), std::abs(x(i)), res.mu_x(i), 1.0);
  for (Eigen::Index r = 0; r < m; ++r)
    check(Ax(r), p.a_lower(r), p.a_upper(r), terms(r), res.mu_a(r), p.A.row(r).lpNorm<Eigen::Infinity>());
  return k;
}

std::string describe_range(Real lo, Real hi) {
  std::ostringstream s;
  s << "[" << lo << ", " << hi << "]";
  return s.str();
}

/// Optimality of x for stage 1 (min of the squared row violations phi over the variable bounds):
/// the largest component of the projected gradient A^T v of phi/2 (v: the signed violations, both
/// sides of an empty range), each relative to the size |A|^T |v| of its terms; 0 at a minimiser.
Real violation_optimality(const QpProblem& p, const Eigen::VectorXd& x) {
  const Eigen::VectorXd Ax = p.A * x;
  Eigen::VectorXd v = Eigen::VectorXd::Zero(Ax.size()), vabs = v;
  for (Eigen::Index r = 0; r < Ax.size(); ++r) {
    if (Ax(r) < p.a_lower(r)) v(r) += Ax(r) - p.a_lower(r), vabs(r) += p.a_lower(r) - Ax(r);
    if (Ax(r) > p.a_upper(r)) v(r) += Ax(r) - p.a_upper(r), vabs(r) += Ax(r) - p.a_upper(r);
  }
  const Eigen::VectorXd grad = p.A.transpose() * v, scale = p.A.cwiseAbs().transpose() * vabs;
  Real worst = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    Real gi = grad(i);
    if (x(i) <= lower_of(p, i)) gi = std::min<Real>(gi, 0);  // at the lower bound: only grad < 0 can move it
    if (x(i) >= upper_of(p, i)) gi = std::max<Real>(gi, 0);
    if (gi != 0) worst = std::max(worst, std::abs(gi) / scale(i));
  }
  return worst;
}

/// A row of the stage-1 problem: row `row` of A with the range [lo, hi] (one side of an empty range).
struct SlackRow {
  Eigen::Index row;
  Real lo, hi;
};

/// The slack rows of stage 1 (stage1_problem): one per row of A with a finite side, two for a row
/// with an empty range.
std::vector<SlackRow> slack_rows(const QpProblem& p) {
  const Eigen::Index m = p.A.rows();
  std::vector<SlackRow> srows;
  for (Eigen::Index r = 0; r < m; ++r) {
    const Real lo = p.a_lower(r), hi = p.a_upper(r);
    if (lo > hi) {
      srows.push_back({r, lo, kInf});
      srows.push_back({r, -kInf, hi});
    } else if (std::isfinite(lo) || std::isfinite(hi)) {
      srows.push_back({r, lo, hi});
    }
  }
  return srows;
}

// Stage 1 in y = (x, w): minimise 1/2 |w|^2 subject to the variable bounds and
// a_lower_r <= a_r.x - w_k <= a_upper_r, one free slack w_k per row with a finite side; a row
// with an empty range gets two slack rows, one per side. minimise_violation sets the proximal
// terms of H and g in each step.
QpProblem stage1_problem(const QpProblem& p, const std::vector<SlackRow>& srows) {
  const Eigen::Index n = p.H.rows();
  const Eigen::Index k = static_cast<Eigen::Index>(srows.size()), N = n + k;
  QpProblem s1;
  s1.H = Eigen::MatrixXd::Identity(N, N);
  s1.lower = Eigen::VectorXd::Constant(N, -kInf);
  s1.upper = Eigen::VectorXd::Constant(N, kInf);
  if (p.lower.size()) s1.lower.head(n) = p.lower;
  if (p.upper.size()) s1.upper.head(n) = p.upper;
  s1.A = Eigen::MatrixXd::Zero(k, N);
  s1.a_lower.resize(k);
  s1.a_upper.resize(k);
  for (Eigen::Index j = 0; j < k; ++j) {
    s1.A.row(j).head(n) = p.A.row(srows[static_cast<size_t>(j)].row);
    s1.A(j, n + j) = -1;
    s1.a_lower(j) = srows[static_cast<size_t>(j)].lo;
    s1.a_upper(j) = srows[static_cast<size_t>(j)].hi;
  }
  return s1;
}

/// The answer of stage 1.
struct Stage1 {
  QpResult r;         ///< the last proximal-point QP: status Optimal unless it hit the iteration limit
  Eigen::VectorXd x;  ///< x_k: the least-violation point (the last iterate when r is not Optimal)
};

// Stage 1's Hessian in x is 0, so it is solved by proximal-point iterations (Rockafellar 1976):
// the k-th QP adds delta/2 |x - x_k|_H^2 and is strictly convex; x_k converges to a minimiser
// (for a polyhedral problem, in few steps, each warm-started from the previous active set) and
// the violations to the unique optimum. They stop when the projected gradient of the violation
// vanishes (violation_optimality); delta shrinks by 100x (down to 1e-8 of its start) whenever
// that measure falls by less than 10x in a step, which happens when rows of very different
// weights meet. The proximal metric is H, or D = diag(H) when H is only semi-definite.
// `used`: iterations spent so far, increased by those of stage 1.
Stage1 minimise_violation(const QpProblem& p, const qp_detail::Curvature& c, QpProblem& s1, const QpOptions& o,
                          int& used) {
  const Eigen::Index n = p.H.rows(), m = p.A.rows(), N = s1.H.rows();
  Real amax = 0;
  for (Eigen::Index r = 0; r < m; ++r) amax = std::max(amax, p.A.row(r).squaredNorm());
  const Eigen::MatrixXd metric = c.strictly_convex() ? p.H : Eigen::MatrixXd(c.scale.asDiagonal());
  Real delta = 1e-3 * (amax > 0 ? amax : 1.0) / std::max(metric.diagonal().maxCoeff(), kTiny);
  Stage1 st;
  Eigen::VectorXd& xk = st.x;
  QpResult& r1 = st.r;
  xk = Eigen::VectorXd::Zero(n).cwiseMax(s1.lower.head(n)).cwiseMin(s1.upper.head(n));
  QpActiveSet warm1;
  Real opt_prev = kInf;
  const Real delta_min = 1e-8 * delta;
  for (int it = 0; it < 100; ++it) {
    s1.H.topLeftCorner(n, n) = delta * metric;
    s1.g = Eigen::VectorXd::Zero(N);
    s1.g.head(n) = -delta * (metric * xk);
    r1 = qp_detail::dual_active_set(s1, it ? &warm1 : nullptr, o.max_iterations - used, o.feasibility_tolerance);
    used += r1.iterations;
    if (r1.status != QpStatus::Optimal) break;  // IterationLimit (stage 1 is always feasible)
    xk = r1.x.head(n);
    warm1 = r1.active_set;
    const Real opt = violation_optimality(p, xk);
    if (opt <= 1e-13) break;                                              // x_k minimises the violation
    if (delta == delta_min && opt >= opt_prev) break;                     // no further progress (round-off)
    if (opt > 0.1 * opt_prev) delta = std::max(delta_min, 1e-2 * delta);  // slow: longer proximal steps
    opt_prev = opt;
  }
  return st;
}

/// The answer when stage 1 reached the iteration limit after `used` iterations in all.
QpResult stage1_iteration_limit(const QpProblem& p, const Stage1& st1, int used, const QpOptions& o) {
  const Eigen::Index n = p.H.rows(), m = p.A.rows();
  QpResult res;
  res.iterations = used;
  res.status = QpStatus::IterationLimit;
  res.x = st1.x;
  res.mu_x = Eigen::VectorXd::Zero(n);
  res.mu_a = Eigen::VectorXd::Zero(m);
  res.message =
      "QP: the constraints are infeasible and the search for the least-violation answer reached the "
      "iteration limit (" +
      std::to_string(o.max_iterations) + "); x is not that answer";
  return res;
}

/// The stage-2 problem and what stage 1 leaves to it.
struct Stage2 {
  QpProblem problem;           ///< p with the violated rows pinned at their least-violation value
  QpActiveSet warm;            ///< warm start from the stage-1 active set
  Eigen::VectorXd Ax;          ///< A x_k
  std::vector<int> rows;       ///< the rows left violated
  std::vector<int> variables;  ///< the variables whose bounds block them (candidates)
};

// Rows left violated (pinned at their least-violation value in stage 2) and the variable
// bounds that block them (non-zero stage-1 multipliers, relative to the row terms they balance).
Stage2 stage2_setup(const QpProblem& p, const std::vector<SlackRow>& srows, const QpProblem& s1, const Stage1& st1,
                    const QpOptions& o) {
  const Eigen::Index n = p.H.rows(), m = p.A.rows();
  const Eigen::Index k = static_cast<Eigen::Index>(srows.size());
  const QpResult& r1 = st1.r;
  Stage2 st2;
  st2.Ax = p.A * st1.x;
  const Eigen::VectorXd& Ax = st2.Ax;
  const Eigen::VectorXd terms = p.A.cwiseAbs() * st1.x.cwiseAbs();
  QpProblem& s2 = st2.problem;
  s2 = p;
  QpActiveSet& warm2 = st2.warm;
  warm2.variables = r1.active_set.variables;
  warm2.rows.assign(static_cast<size_t>(m), QpActiveSet::kInactive);
  for (Eigen::Index j = 0; j < k; ++j)
    if (r1.active_set.rows[static_cast<size_t>(j)] != QpActiveSet::kInactive)
      warm2.rows[static_cast<size_t>(srows[static_cast<size_t>(j)].row)] = r1.active_set.rows[static_cast<size_t>(j)];
  for (Eigen::Index r = 0; r < m; ++r) {
    if (qp_detail::relative_violation(Ax(r), p.a_lower(r), p.a_upper(r), terms(r)) <= o.feasibility_tolerance) continue;
    st2.rows.push_back(static_cast<int>(r));
    s2.a_lower(r) = s2.a_upper(r) = Ax(r);
    warm2.rows[static_cast<size_t>(r)] = QpActiveSet::kAtLower;
  }
  const Eigen::VectorXd push = s1.A.leftCols(n).cwiseAbs().transpose() * r1.mu_a.cwiseAbs();
  for (Eigen::Index i = 0; i < n; ++i)
    if (r1.mu_x(i) != 0 && std::abs(r1.mu_x(i)) > 1e-8 * push(i)) st2.variables.push_back(static_cast<int>(i));
  return st2;
}

// A blocking bound holds at every least-violation point: set it exactly (a bound whose
// stage-1 multiplier was round-off, left by stage 2, is not blocking and is not listed).
// `mu_x1`: the stage-1 variable multipliers; returns the blocking ones among `variables`.
std::vector<int> set_blocking_bounds(const QpProblem& p, const Eigen::VectorXd& mu_x1,
                                     const std::vector<int>& variables, QpResult& res) {
  std::vector<int> blocking;
  for (int i : variables) {
    const Real bound = mu_x1(i) > 0 ? lower_of(p, i) : upper_of(p, i);
    if (std::abs(res.x(i) - bound) > 1e-9 * (std::abs(bound) + std::abs(res.x(i)))) continue;
    res.x(i) = bound;
    blocking.push_back(i);
  }
  return blocking;
}

/// The message of a least-violation answer res (status Infeasible) of p; `mu_x1`: the stage-1
/// variable multipliers (their signs say which bound blocks), `stage2`: the status of stage 2.
std::string infeasible_message(const QpProblem& p, const QpResult& res, const Eigen::VectorXd& mu_x1, QpStatus stage2) {
  std::ostringstream msg;
  msg << "QP infeasible: the constraints cannot all be met. Returned the least-violation answer (smallest sum of "
         "squared row violations within the variable bounds, then the smallest objective).";
  if (!res.conflicting_rows.empty()) {
    msg << " Violated: ";
    for (size_t j = 0; j < res.conflicting_rows.size(); ++j) {
      const Eigen::Index r = res.conflicting_rows[j];
      msg << (j ? "; " : "") << row_name(p, r) << " = " << (p.A.row(r) * res.x) << " outside "
          << describe_range(p.a_lower(r), p.a_upper(r)) << (p.a_lower(r) > p.a_upper(r) ? " (an empty range)" : "");
    }
    msg << ".";
  } else {
    msg << " The violations are at round-off level: the constraints are degenerate (nearly dependent).";
  }
  if (!res.conflicting_variables.empty()) {
    msg << " Held back by the bounds: ";
    for (size_t j = 0; j < res.conflicting_variables.size(); ++j) {
      const Eigen::Index i = res.conflicting_variables[j];
      msg << (j ? "; " : "") << variable_name(p, i) << (mu_x1(i) > 0 ? " lower bound " : " upper bound ")
          << (mu_x1(i) > 0 ? lower_of(p, i) : upper_of(p, i));
    }
    msg << ".";
  }
  msg << " Relax these bounds or move the goals.";
  if (stage2 == QpStatus::Unbounded)
    msg << " (The objective is unbounded below among those points: it could not be minimised.)";
  else if (stage2 != QpStatus::Optimal)
    msg << " (The objective could not be minimised among those points.)";
  return msg.str();
}

/// Least-violation answer of an infeasible problem (qp.hpp). `used`: iterations spent so far;
/// `stage2`: set to the stage-2 problem that the answer solves.
QpResult least_violation(const QpProblem& p, const qp_detail::Curvature& c, const QpOptions& o, int used,
                         QpProblem& stage2) {
  const Eigen::Index n = p.H.rows(), m = p.A.rows();
  // Stage 1: the least violation over the variable bounds.
  const std::vector<SlackRow> srows = slack_rows(p);
  QpProblem s1 = stage1_problem(p, srows);
  const Stage1 st1 = minimise_violation(p, c, s1, o, used);
  if (st1.r.status != QpStatus::Optimal) return stage1_iteration_limit(p, st1, used, o);
  Stage2 st2 = stage2_setup(p, srows, s1, st1, o);
  // Stage 2: the objective over the least-violation points.
  const QpResult r2 =
      qp_detail::solve_convex(st2.problem, c, &st2.warm, o.max_iterations - used, o.feasibility_tolerance);
  used += r2.iterations;
  QpResult res;
  if (r2.status == QpStatus::Optimal) {
    res = r2;
    stage2 = st2.problem;
    for (int r : st2.rows)  // a pinned row reads the side it violates
      res.active_set.rows[static_cast<size_t>(r)] =
          st2.Ax(r) < p.a_lower(r) ? QpActiveSet::kAtLower : QpActiveSet::kAtUpper;
    st2.variables = set_blocking_bounds(p, st1.r.mu_x, st2.variables, res);
    if (st2.rows.empty()) {  // round-off had made a feasible problem look infeasible: it is optimal
      res.iterations = used;
      res.warm_started = false;
      return res;
    }
  } else {
    res.x = st1.x;
    res.mu_x = Eigen::VectorXd::Zero(n);
    res.mu_a = Eigen::VectorXd::Zero(m);
    res.active_set = st2.warm;
  }
  res.iterations = used;
  res.warm_started = false;
  res.conflicting_rows = st2.rows;
  res.conflicting_variables = st2.variables;
  if (r2.status == QpStatus::IterationLimit) {
    res.status = QpStatus::IterationLimit;
    std::ostringstream msg;
    msg << "QP: the constraints are infeasible; the least violation was found but minimising the objective among "
           "those points reached the iteration limit ("
        << o.max_iterations << ")";
    res.message = msg.str();
    return res;
  }
  res.status = QpStatus::Infeasible;
  res.message = infeasible_message(p, res, st1.r.mu_x, r2.status);
  return res;
}

}  // namespace

const char* qp_status_name(QpStatus s) {
  constexpr const char* kNames[] = {"optimal", "infeasible", "iteration limit", "unbounded"};  // in QpStatus's order
  const int k = static_cast<int>(s);
  return k >= 0 && k < int(std::size(kNames)) ? kNames[k] : "unknown";
}

Real QpKkt::max() const { return std::max({stationarity, primal, complementarity, dual}); }

QpResult solve_qp(const QpProblem& problem, const QpOptions& options, const QpActiveSet* warm) {
  SOFTIK_CHECK(options.max_iterations >= 0 && options.feasibility_tolerance >= 0,
               "QP: max_iterations and feasibility_tolerance must be >= 0");
  const QpProblem p = checked(problem);
  const qp_detail::Curvature c = qp_detail::analyse_curvature(p);
  QpResult res = qp_detail::solve_convex(p, c, warm, options.max_iterations, options.feasibility_tolerance);
  QpProblem kkt_problem = p;  // the problem x solves: p, or the stage-2 problem when infeasible
  if (res.status == QpStatus::Infeasible) {
    const bool warm_started = res.warm_started;
    res = least_violation(p, c, options, res.iterations, kkt_problem);
    res.warm_started = warm_started;
  } else if (res.status == QpStatus::IterationLimit) {
    res.message = "QP: iteration limit (" + std::to_string(options.max_iterations) +
                  " active-set changes) reached before the optimum; x is not optimal";
  } else if (res.status == QpStatus::Unbounded) {
    std::ostringstream msg;
    msg << "QP unbounded: the objective decreases without limit along a direction of (near-)zero curvature that no "
           "bound or row stops, moving ";
    for (size_t j = 0; j < res.unbounded_variables.size(); ++j) {
      const Eigen::Index i = res.unbounded_variables[j];
      msg << (j ? ", " : "") << variable_name(p, i) << (res.direction(i) > 0 ? " up" : " down");
    }
    msg << ". Bound these variables on that side (or give the objective curvature along it). Returned a feasible "
           "point, not a solution.";
    res.message = msg.str();
  }
  // x within the variable bounds exactly: this moves an optimal or least-violation x by no more
  // than the feasibility tolerance, and an iterate cut off by the iteration limit into the box.
  if (p.lower.size()) res.x = res.x.cwiseMax(p.lower);
  if (p.upper.size()) res.x = res.x.cwiseMin(p.upper);
  res.kkt = kkt_residuals(kkt_problem, res);
  res.row_violation = row_violations(p, res.x);
  // Never a NaN or infinity out (qp.hpp): the checks above make one impossible, so this is a
  // failure of the arithmetic, reported as such.
  SOFTIK_CHECK_NUMERICAL(res.x.allFinite() && res.mu_x.allFinite() && res.mu_a.allFinite() &&
                             std::isfinite(res.kkt.max()) && res.row_violation.allFinite(),
                         "QP: the solution is not finite (status " << qp_status_name(res.status)
                                                                   << "): the problem is too badly scaled for double "
                                                                      "precision; rescale its variables or rows");
  return res;
}

}  // namespace softik
