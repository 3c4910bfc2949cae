// The Goldfarb-Idnani dual active-set iteration (qp.hpp) on a validated problem.
//
// Reference: D. Goldfarb, A. Idnani, "A numerically stable dual method for solving strictly
// convex quadratic programs", Math. Programming 27:1-33 (1983), sections 3-4. Every finite side
// of a bound or row is one inequality n_j . x >= b_j with n_j = +a (lower side, b = lower) or
// n_j = -a (upper side, b = -upper); an equality (lower == upper) is oriented towards the side
// it is violated on when it is added, and is never dropped.
//
// Invariant (an "S-pair"): x minimises the objective subject to the active constraints taken as
// equalities, with multipliers u >= 0 on the active inequalities: H x + g = N u.
// Factorisation: H = L L^T; J = L^-T Q and R with Q^T L^-1 N = [R; 0] (R upper triangular, q x q),
// so that for a new normal n_p and d = J^T n_p:
//   primal step direction z = J2 d2 (J2: the last n - q columns of J),
//   dual step direction   r = R^-1 d1 (the multipliers of the active set decrease by t r).
// Adding a constraint rotates d2 onto its first entry (Givens on the columns of J) and appends d1
// to R; dropping one deletes its column of R and restores the triangle by Givens on rows of R and
// the same columns of J. Each is O(n^2).
//
// Numerical safeguards: after each completed addition x and u are recomputed from the factors
// (x = x0 + J1 R^-T (b - N^T x0), u = R^-1 R^-T (b - N^T x0), x0 = -H^-1 g) plus one step of
// iterative refinement, and active bounds are set exactly, so no drift builds up over many
// iterations and |x0| >> |x| costs no accuracy; inequality multipliers that come out slightly
// negative are clamped, clearly negative ones dropped (the S-pair is kept). A constraint is
// violated when its slack is below -tol (|bound| + sum_k |a_k x_k|). A normal counts as
// dependent on the active set when |d2| <= 1e-12 |d|, and an entry of r counts as positive when
// r_j |n_j| exceeds 1e-11 of the largest such term.
// Anti-cycling: ties in the choice of the constraint to add (most violated, relative to |n_j|)
// and to drop (smallest ratio u_j / r_j) go to the lowest index, and the iteration budget bounds
// the work; the dual objective increases strictly on every non-degenerate step (paper, Thm 2).
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Jacobi>

#include "host/qp/qp_detail.hpp"
#include "softik/error.hpp"
#include "softik/qp.hpp"

namespace softik {
namespace qp_detail {

Real relative_violation(Real v, Real lo, Real hi, Real terms) {
  Real out = 0;
  if (v < lo) out = std::max(out, (lo - v) / std::max(std::abs(lo) + terms, std::numeric_limits<Real>::min()));
  if (v > hi) out = std::max(out, (v - hi) / std::max(std::abs(hi) + terms, std::numeric_limits<Real>::min()));
  return out;
}

namespace {

constexpr Real kInf = std::numeric_limits<Real>::infinity();
constexpr Real kDependent = 1e-12;  ///< |d2| <= kDependent |d|: n_p in the span of the active normals
constexpr Real kPositiveR = 1e-11;  ///< r_j |n_j| above this fraction of the largest term: r_j > 0
constexpr Real kNegativeU = 1e-11;  ///< u_j |n_j| below -kNegativeU * gradient scale: dropped

struct Active {
  int id;         ///< < n: variable id; else row id - n
  int side;       ///< -1: lower side (n = +a), +1: upper side (n = -a)
  bool equality;  ///< lower == upper: never dropped, multiplier of either sign
  Real u;         ///< multiplier of n . x >= b
};

class DualActiveSet {
 public:
  DualActiveSet(const QpProblem& p, Real tol, int budget)
      : p_(p), n_(p.H.rows()), m_(p.A.rows()), tol_(tol), budget_(budget) {
    llt_.compute(p.H);
    // solve_convex() sends only strictly convex problems here (its semi-definite sub-problems
    // are made so): a failure is round-off in a matrix at the edge of that test.
    SOFTIK_CHECK_NUMERICAL(llt_.info() == Eigen::Success,
                           "QP: the Cholesky factorisation of a Hessian that passed the positive-definiteness test "
                           "failed (round-off); rescale the problem's variables");
    J_ = llt_.matrixU().solve(Eigen::MatrixXd::Identity(n_, n_));  // L^-T
    R_ = Eigen::MatrixXd::Zero(n_, n_);
    x0_ = llt_.solve(-p.g);
    x_ = x0_;
    side_of_.assign(static_cast<size_t>(n_ + m_), 0);
    absA_ = p.A.cwiseAbs();
    norm2_.resize(static_cast<size_t>(n_ + m_), 1.0);
    norminf_ = norm2_;
    for (Eigen::Index r = 0; r < m_; ++r) {
      const size_t k = static_cast<size_t>(n_ + r);
      norm2_[k] = p.A.row(r).norm();
      norminf_[k] = p.A.row(r).lpNorm<Eigen::Infinity>();
    }
    gscale_ = std::max(p.g.cwiseAbs().maxCoeff(), std::numeric_limits<Real>::min());
  }

  /// Starts from the warm active set (qp.hpp: solve_qp documents the rules).
  void warm_start(const QpActiveSet& warm) {
    for (int id = 0; id < static_cast<int>(n_ + m_); ++id) {
      const signed char s = id < n_ ? warm.variables[static_cast<size_t>(id)] : warm.rows[static_cast<size_t>(id - n_)];
      SOFTIK_CHECK(s >= -1 && s <= 1, "QP warm start: active-set entries must be -1, 0 or 1, got " << int(s));
      if (s == 0 || !std::isfinite(s < 0 ? lower(id) : upper(id))) continue;
      const Eigen::VectorXd np = normal(id, s);
      Eigen::VectorXd d = J_.transpose() * np;
      if (d.tail(n_ - q()).norm() <= kDependent * d.norm()) continue;  // dependent (or zero): skipped
      factor_add(d);
      push_active({id, s, lower(id) == upper(id), 0.0});
    }
    refresh();
  }

  QpStatus run() {
    for (;;) {
      if (!dual_feasible_) return QpStatus::IterationLimit;  // budget ran out while dropping
      // The most violated constraint (equalities first), relative violation above tolerance.
      const Eigen::VectorXd Ax = p_.A * x_;
      int p = -1, pside = 0;
      bool peq = false;
      Real worst = 0;
      for (int id = 0; id < static_cast<int>(n_ + m_); ++id) {
        const Real v = id < n_ ? x_(id) : Ax(id - n_), lo = lower(id), hi = upper(id);
        const bool eq = lo == hi;
        for (int side : {-1, 1}) {
          if (is_active(id, side)) continue;
          const Real bound = side < 0 ? lo : hi;
          if (!std::isfinite(bound)) continue;
          const Real slack = side < 0 ? v - lo : hi - v;
          if (slack >= 0) continue;
          // |a||x|: the round-off scale of a.x
          const Real terms = id < n_ ? std::abs(x_(id)) : absA_.row(id - n_).dot(x_.cwiseAbs());
          if (slack >= -tol_ * (std::abs(bound) + terms)) continue;
          const Real score = -slack / std::max(norm2_[static_cast<size_t>(id)], std::numeric_limits<Real>::min());
          if (p < 0 || (eq && !peq) || (eq == peq && score > worst)) {
            p = id;
            pside = side;
            peq = eq;
            worst = score;
          }
        }
      }
      if (p < 0) return QpStatus::Optimal;
      const QpStatus s = add(p, pside, peq);
      if (s != QpStatus::Optimal) return s;
    }
  }

  void fill(QpResult& res) const {
    res.x = x_;
    res.mu_x = Eigen::VectorXd::Zero(n_);
    res.mu_a = Eigen::VectorXd::Zero(m_);
    res.active_set.variables.assign(static_cast<size_t>(n_), QpActiveSet::kInactive);
    res.active_set.rows.assign(static_cast<size_t>(m_), QpActiveSet::kInactive);
    for (const Active& a : active_) {
      const Real mu = -a.side * a.u;  // n = -side * a: H x + g = sum u n = sum (-side u) a
      const signed char s = a.equality ? QpActiveSet::kAtLower : static_cast<signed char>(a.side);
      if (a.id < n_) {
        res.mu_x(a.id) = mu;
        res.active_set.variables[static_cast<size_t>(a.id)] = s;
      } else {
        res.mu_a(a.id - n_) = mu;
        res.active_set.rows[static_cast<size_t>(a.id - n_)] = s;
      }
    }
    res.iterations = iterations_;
  }

 private:
  Eigen::Index q() const { return static_cast<Eigen::Index>(active_.size()); }
  Real lower(int id) const {
    if (id < n_) return p_.lower.size() ? p_.lower(id) : -kInf;
    return p_.a_lower(id - n_);
  }
  Real upper(int id) const {
    if (id < n_) return p_.upper.size() ? p_.upper(id) : kInf;
    return p_.a_upper(id - n_);
  }
  /// Normal of side `side` of constraint id: -side * a.
  Eigen::VectorXd normal(int id, int side) const {
    if (id < n_) return -side * Eigen::VectorXd::Unit(n_, id);
    return -side * p_.A.row(id - n_).transpose();
  }
  Real rhs(int id, int side) const { return side < 0 ? lower(id) : -upper(id); }
  bool is_active(int id, int side) const {
    const signed char s = side_of_[static_cast<size_t>(id)];
    return s == side || s == 2;
  }
  void push_active(const Active& a) {
    side_of_[static_cast<size_t>(a.id)] = static_cast<signed char>(a.equality ? 2 : a.side);
    active_.push_back(a);
  }

  /// Appends the constraint with d = J^T n to the factors (d is modified).
  void factor_add(Eigen::VectorXd& d) {
    const Eigen::Index q0 = q();
    for (Eigen::Index j = n_ - 1; j > q0; --j) {
      if (d(j) == 0) continue;
      Eigen::JacobiRotation<Real> G;
      Real h = 0;
      G.makeGivens(d(j - 1), d(j), &h);  // G^T (d_j-1, d_j) = (h, 0)
      d(j - 1) = h;
      d(j) = 0;
      J_.applyOnTheRight(j - 1, j, G);
    }
    R_.col(q0).head(q0 + 1) = d.head(q0 + 1);
  }

  /// Removes active constraint k from the factors and the active set.
  void drop(size_t k) {
    const Eigen::Index q0 = q(), kk = static_cast<Eigen::Index>(k);
    for (Eigen::Index c = kk; c + 1 < q0; ++c) R_.col(c).head(c + 2) = R_.col(c + 1).head(c + 2);
    R_.col(q0 - 1).setZero();
    for (Eigen::Index j = kk; j + 1 < q0; ++j) {
      if (R_(j + 1, j) == 0) continue;
      Eigen::JacobiRotation<Real> G;
      G.makeGivens(R_(j, j), R_(j + 1, j));
      R_.topLeftCorner(q0, q0).applyOnTheLeft(j, j + 1, G.adjoint());
      R_(j + 1, j) = 0;
      J_.applyOnTheRight(j, j + 1, G);
    }
    R_.col(q0 - 1).setZero();
    side_of_[static_cast<size_t>(active_[k].id)] = 0;
    active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(k));
  }

  /// x and u from the factors for the current active set, then one step of iterative
  /// refinement on the KKT system (with rho = H x + g - N u and e = b - N^T x:
  /// dx = J1 R^-T e - J2 J2^T rho, du = R^-1 (R^-T e + J1^T rho)), which removes the cancellation
  /// of x = x0 + J1 v when |x0| >> |x|; active bounds are then set exactly. Drops inequalities
  /// whose multiplier is clearly negative (most negative first) and clamps round-off negatives.
  void refresh() {
    for (;;) {
      const Eigen::Index q0 = q();
      Eigen::MatrixXd N(n_, q0);
      Eigen::VectorXd b(q0);
      for (Eigen::Index j = 0; j < q0; ++j) {
        const Active& a = active_[static_cast<size_t>(j)];
        N.col(j) = normal(a.id, a.side);
        b(j) = rhs(a.id, a.side);
      }
      const auto Rq = R_.topLeftCorner(q0, q0).triangularView<Eigen::Upper>();
      const Eigen::VectorXd v = Rq.transpose().solve(b - N.transpose() * x0_);
      Eigen::VectorXd u = Rq.solve(v);
      x_ = x0_ + J_.leftCols(q0) * v;
      const Eigen::VectorXd rho = p_.H * x_ + p_.g - N * u, e = b - N.transpose() * x_;
      const Eigen::VectorXd y1 = Rq.transpose().solve(e);
      x_ += J_.leftCols(q0) * y1 - J_.rightCols(n_ - q0) * (J_.rightCols(n_ - q0).transpose() * rho);
      u += Rq.solve(y1 + J_.leftCols(q0).transpose() * rho);
      for (const Active& a : active_)
        if (a.id < n_) x_(a.id) = a.side < 0 ? lower(a.id) : upper(a.id);
      const Real G = std::max(gscale_, (p_.H * x_).cwiseAbs().maxCoeff());
      int worst = -1;
      Real worst_u = -kNegativeU * G;
      for (Eigen::Index j = 0; j < q0; ++j) {
        Active& a = active_[static_cast<size_t>(j)];
        a.u = u(j);
        if (a.equality || a.u >= 0) continue;
        const Real scaled = a.u * norminf_[static_cast<size_t>(a.id)];
        if (scaled < worst_u) {
          worst = static_cast<int>(j);
          worst_u = scaled;
        }
      }
      dual_feasible_ = worst < 0;
      if (worst < 0) {
        for (Active& a : active_)
          if (!a.equality) a.u = std::max<Real>(a.u, 0);
        return;
      }
      if (iterations_ >= budget_) return;
      drop(static_cast<size_t>(worst));
      ++iterations_;
    }
  }

  /// Adds the violated side `side` of constraint p (Goldfarb-Idnani steps 2-3).
  QpStatus add(int p, int side, bool equality) {
    const Eigen::VectorXd np = normal(p, side);
    const Real bp = rhs(p, side);
    Real slack = np.dot(x_) - bp;  // < 0
    Real up = 0;
    for (;;) {
      if (iterations_ >= budget_) return QpStatus::IterationLimit;
      const Eigen::Index q0 = q();
      Eigen::VectorXd d = J_.transpose() * np;
      const Real dnorm = d.norm();
      const bool zero_z = dnorm == 0 || d.tail(n_ - q0).norm() <= kDependent * dnorm;
      const Eigen::VectorXd r = R_.topLeftCorner(q0, q0).triangularView<Eigen::Upper>().solve(d.head(q0));
      // Partial (dual) step length: the first active inequality whose multiplier reaches 0.
      Real rmax = 0;
      for (Eigen::Index j = 0; j < q0; ++j)
        rmax = std::max(rmax, std::abs(r(j)) * norm2_[static_cast<size_t>(active_[static_cast<size_t>(j)].id)]);
      Real t1 = kInf;
      int k = -1;
      for (Eigen::Index j = 0; j < q0; ++j) {
        const Active& a = active_[static_cast<size_t>(j)];
        if (a.equality || r(j) <= 0 || r(j) * norm2_[static_cast<size_t>(a.id)] <= kPositiveR * rmax) continue;
        const Real ratio = std::max<Real>(a.u, 0) / r(j);
        if (k < 0 || ratio < t1 || (ratio == t1 && a.id < active_[static_cast<size_t>(k)].id)) {
          t1 = ratio;
          k = static_cast<int>(j);
        }
      }
      // Full (primal) step length: the one that satisfies constraint p.
      Eigen::VectorXd z;
      Real t2 = kInf;
      if (!zero_z) {
        z = J_.rightCols(n_ - q0) * d.tail(n_ - q0);
        t2 = -slack / z.dot(np);
      }
      if (t1 == kInf && t2 == kInf) return QpStatus::Infeasible;
      const Real t = std::min(t1, t2);
      for (Eigen::Index j = 0; j < q0; ++j) active_[static_cast<size_t>(j)].u -= t * r(j);
      up += t;
      if (!zero_z) {
        x_ += t * z;
        slack = np.dot(x_) - bp;
      }
      ++iterations_;
      if (t2 <= t1) {
        factor_add(d);
        push_active({p, side, equality, up});
        refresh();
        return QpStatus::Optimal;
      }
      active_[static_cast<size_t>(k)].u = 0;
      drop(static_cast<size_t>(k));
    }
  }

  const QpProblem& p_;
  Eigen::Index n_, m_;
  Real tol_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::MatrixXd J_, R_;
  Eigen::VectorXd x0_, x_;
  Eigen::MatrixXd absA_;               ///< |A|, for the round-off scale |a||x| of each row
  std::vector<Real> norm2_, norminf_;  ///< per constraint id: |a|_2, |a|_inf
  Real gscale_ = 1;
  std::vector<Active> active_;
  std::vector<signed char> side_of_;  ///< per constraint id: 0 inactive, -1/+1 the active side, 2 equality
  int budget_;
  int iterations_ = 0;
  bool dual_feasible_ = true;  ///< false when refresh() stopped on the budget with u_j < 0 left
};

}  // namespace

QpResult dual_active_set(const QpProblem& p, const QpActiveSet* warm, int budget, Real feasibility_tolerance) {
  DualActiveSet gi(p, feasibility_tolerance, std::max(budget, 0));
  QpResult res;
  res.warm_started = warm && warm->variables.size() == static_cast<size_t>(p.H.rows()) &&
                     warm->rows.size() == static_cast<size_t>(p.A.rows());
  if (res.warm_started) gi.warm_start(*warm);
  res.status = gi.run();
  gi.fill(res);
  return res;
}

}  // namespace qp_detail
}  // namespace softik
