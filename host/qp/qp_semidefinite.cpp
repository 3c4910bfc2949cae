// Convex QPs whose Hessian is only positive semi-definite (qp.hpp, "Semi-definite H"): the
// curvature analysis, the test for unboundedness along flat directions, and proximal-point
// iterations along them when the problem is bounded. Each sub-problem is strictly convex and is
// solved by the Goldfarb-Idnani iteration of qp_dual_active_set.cpp.
//
// Notation: D = diag(H) (1 where H_ii <= 0), scaled variables y = D^1/2 x, scaled Hessian
// Hs = D^-1/2 H D^-1/2 (unit diagonal), F (n x k) an orthonormal basis of its flat directions
// (eigenvalues <= kFlat times the largest), gs = D^-1/2 g.
//
// Unboundedness. The objective decreases without limit iff some d with H d = 0, g.d < 0 lies in
// the recession cone of the feasible set (d_i >= 0 where x_i has a finite lower bound, <= 0
// where a finite upper one, likewise a_r.d for the rows) and that set is not empty. Within the
// flat subspace, d = D^-1/2 F z, the steepest such direction is the projection of -F^T gs onto
// the cone: z* = argmin 1/2 |z|^2 + (F^T gs).z over it (always feasible: z = 0), for which the
// slope per unit scaled length is -|z*|. It counts as a real decrease when |z*| exceeds kSlope
// times the gradient's round-off scale |D^-1/2 g_terms| (qp.hpp): the component of g along a
// flat direction of W_ea^T W_ea is zero in exact arithmetic, so round-off must not count. Along
// a near-flat direction (eigenvalue mu <= kFlat) the minimiser then lies at least
// kSlope / kFlat = 1e5 scaled units away: unbounded for any practical purpose.
//
// Bounded. The part of the flat slope that no constraint stops, z* (below that round-off scale),
// is dropped, g_c = g + D^1/2 F z*: by Moreau's decomposition -F^T gs - z* lies in the polar of
// the cone, so no feasible flat direction descends for g_c, and a slope that the constraints do
// stop is kept. The problem min 1/2 x^T H x + g_c^T x is solved by proximal-point iterations along the flat
// directions only: x_{k+1} = argmin of it + delta/2 |F^T D^1/2 (x - x_k)|^2 over the constraints
// (strictly convex: curvature delta along the flat directions, the eigenvalues of Hs elsewhere).
// Minimising exactly over the other directions makes this the proximal-point method on the
// reduced objective over the flat coordinates, which converges to a minimiser (Rockafellar
// 1976); without constraints acting on the flat directions the first iterate is already one.
// They stop when the stationarity residual left by the proximal term, delta |D^1/2 F F^T D^1/2
// (x_{k+1} - x_k)|, is at round-off relative to the terms of the stationarity condition.
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Eigenvalues>

#include "host/qp/qp_detail.hpp"
#include "softik/error.hpp"
#include "softik/qp.hpp"

namespace softik {
namespace qp_detail {

namespace {

constexpr Real kInf = std::numeric_limits<Real>::infinity();
constexpr Real kPivot = 1e-14;       ///< strictly convex: every Cholesky pivot^2 of Hs above this
constexpr Real kFlat = 1e-13;        ///< flat: eigenvalue of Hs <= kFlat * largest (>= kPivot: one exists)
constexpr Real kNegative = 1e-10;    ///< not convex: an eigenvalue of Hs below -kNegative * largest
constexpr Real kSlope = 1e-8;        ///< unbounded: slope along the flat cone above kSlope * |gradient terms|
constexpr Real kEntry = 1e-12;       ///< entries of a unit row restricted to the flat subspace below this: 0
constexpr Real kMoving = 1e-6;       ///< a variable moves along the direction: |y_i| above this of the largest
constexpr Real kStationary = 1e-13;  ///< proximal iterations stop: residual of the proximal term, relative
constexpr int kMaxProximal = 100;
constexpr Real kConeSlack = 1e-12;  ///< relaxation of the cone's rows, relative to the gradient's scale

Real lower_of(const QpProblem& p, Eigen::Index i) { return p.lower.size() ? p.lower(i) : -kInf; }
Real upper_of(const QpProblem& p, Eigen::Index i) { return p.upper.size() ? p.upper(i) : kInf; }

/// Appends to r the row `a` of the recession cone (a.z >= 0 when `lo` is finite, <= 0 when `hi`
/// is), with its round-off entries set to 0; a row that is then zero restricts nothing.
/// The rows of the recession cone all pass through z = 0, which is where the projection mostly
/// lies: a degenerate vertex (more active rows than dimensions; a boxed variable gives an
/// equality, several such rows are dependent) on which the dual active-set method can stall or
/// call the problem infeasible through round-off. So each side is relaxed by its own tiny slack,
/// slack * (1 + r / 16) for row r: the feasible set gets an interior, the shifted planes are not
/// concurrent, and the projection moves by O(slack) - far below what counts as a slope (kSlope).
void add_cone_row(QpProblem& r, Eigen::RowVectorXd a, Real lo, Real hi, Real slack) {
  if (!std::isfinite(lo) && !std::isfinite(hi)) return;
  for (Eigen::Index j = 0; j < a.size(); ++j)
    if (std::abs(a(j)) <= kEntry) a(j) = 0;
  if (a.isZero()) return;
  const Eigen::Index m = r.A.rows();
  const Real shift = slack * (1 + static_cast<Real>(m) / 16);
  r.A.conservativeResize(m + 1, a.size());
  r.A.row(m) = a / a.norm();
  r.a_lower.conservativeResize(m + 1);
  r.a_upper.conservativeResize(m + 1);
  r.a_lower(m) = std::isfinite(lo) ? -shift : -kInf;
  r.a_upper(m) = std::isfinite(hi) ? shift : kInf;
}

class Semidefinite {
 public:
  Semidefinite(const QpProblem& p, const Curvature& c, Real tol)
      : p_(p), c_(c), tol_(tol), n_(p.H.rows()), root_(c.scale.cwiseSqrt()), inv_root_(root_.cwiseInverse()) {}

  QpResult solve(const QpActiveSet* warm, int budget) {
    const Eigen::MatrixXd& F = c_.flat;
    const Eigen::VectorXd gs = inv_root_.cwiseProduct(p_.g);
    const Eigen::VectorXd gflat = F.transpose() * gs;
    const Eigen::VectorXd terms = inv_root_.cwiseProduct(p_.g_terms.size() ? p_.g_terms : p_.g.cwiseAbs());

    // 1. The steepest feasible flat direction (projection of -F^T gs onto the recession cone).
    QpProblem cone;
    cone.H = Eigen::MatrixXd::Identity(F.cols(), F.cols());
    cone.g = gflat;
    cone.A.resize(0, F.cols());
    const Real slack = kConeSlack * std::max({terms.norm(), gflat.norm(), std::numeric_limits<Real>::min()});
    for (Eigen::Index i = 0; i < n_; ++i) add_cone_row(cone, F.row(i), lower_of(p_, i), upper_of(p_, i), slack);
    for (Eigen::Index r = 0; r < p_.A.rows(); ++r) {
      const Eigen::RowVectorXd a = p_.A.row(r).cwiseProduct(inv_root_.transpose());
      const Real norm = a.norm();
      if (norm > 0) add_cone_row(cone, (a / norm) * F, p_.a_lower(r), p_.a_upper(r), slack);
    }
    const QpResult rc = dual_active_set(cone, nullptr, budget, tol_);
    used_ += rc.iterations;
    if (rc.status != QpStatus::Optimal) return limit();  // the cone problem is always feasible
    const Eigen::VectorXd& z = rc.x;
    if (z.norm() > kSlope * terms.norm() && gflat.dot(z) < 0) return unbounded(F * z, budget);

    // 2. Bounded: z* is the part of the flat slope that no constraint stops, at round-off; drop
    //    it (then no feasible flat direction descends: Moreau) and iterate.
    return proximal(gs + F * z, warm, budget);
  }

 private:
  /// The objective decreases along x + t D^-1/2 ys: status Unbounded with a feasible x (the one
  /// nearest 0 in the scaled variables), or the status of that feasibility problem.
  QpResult unbounded(const Eigen::VectorXd& ys, int budget) {
    QpProblem f = p_;
    f.H = c_.scale.asDiagonal();
    f.g = Eigen::VectorXd::Zero(n_);
    QpResult res = dual_active_set(f, nullptr, budget - used_, tol_);
    used_ += res.iterations;
    res.iterations = used_;
    if (res.status != QpStatus::Optimal) return res;  // Infeasible (takes precedence) or IterationLimit
    res.status = QpStatus::Unbounded;
    res.mu_x.setZero();
    res.mu_a.setZero();
    const Real ymax = ys.cwiseAbs().maxCoeff();
    for (Eigen::Index i = 0; i < n_; ++i)
      if (std::abs(ys(i)) > kMoving * ymax) res.unbounded_variables.push_back(static_cast<int>(i));
    res.direction = inv_root_.cwiseProduct(ys);
    for (Eigen::Index i = 0; i < n_; ++i)  // directions of variables that do not move: exactly 0
      if (std::abs(ys(i)) <= kMoving * ymax) res.direction(i) = 0;
    res.direction /= res.direction.cwiseAbs().maxCoeff();
    return res;
  }

  /// Proximal-point iterations on min 1/2 x^T H x + g_c^T x (g_c = D^1/2 gs_c) from x = 0 (clamped
  /// into the variable bounds).
  QpResult proximal(const Eigen::VectorXd& gs_c, const QpActiveSet* warm, int budget) {
    const Eigen::MatrixXd& F = c_.flat;
    const Eigen::VectorXd g_c = root_.cwiseProduct(gs_c);
    const Eigen::MatrixXd RF = root_.asDiagonal() * F;  // D^1/2 F
    const Eigen::MatrixXd M = RF * RF.transpose();      // the proximal metric along the flat directions
    Eigen::VectorXd xk = Eigen::VectorXd::Zero(n_);
    if (p_.lower.size()) xk = xk.cwiseMax(p_.lower);
    if (p_.upper.size()) xk = xk.cwiseMin(p_.upper);
    Real delta = 1e-3 * c_.largest;
    const Real delta_min = 1e-8 * delta;
    QpProblem s = p_;
    QpResult res;
    QpActiveSet next;
    const QpActiveSet* start = warm;
    bool warm_started = false;
    Real previous = kInf;
    for (int it = 0; it < kMaxProximal; ++it) {
      s.H = p_.H + delta * M;
      s.g = g_c - delta * (M * xk);
      res = dual_active_set(s, start, budget - used_, tol_);
      used_ += res.iterations;
      if (it == 0) warm_started = res.warm_started;
      if (res.status != QpStatus::Optimal) break;  // Infeasible (the same for every iterate) or IterationLimit
      // The stationarity residual of the problem itself: delta M (x_{k+1} - x_k).
      const Eigen::VectorXd step = delta * (M * (res.x - xk));
      const Eigen::VectorXd scale = p_.H.cwiseAbs() * res.x.cwiseAbs() + g_c.cwiseAbs() + res.mu_x.cwiseAbs() +
                                    p_.A.cwiseAbs().transpose() * res.mu_a.cwiseAbs();
      const Real residual = step.cwiseAbs().maxCoeff() / std::max(scale.maxCoeff(), std::numeric_limits<Real>::min());
      xk = res.x;
      next = res.active_set;
      start = &next;
      if (residual <= kStationary) {
        res.iterations = used_;
        res.warm_started = warm_started;
        return res;
      }
      if (delta == delta_min && residual >= previous) break;                     // no further progress (round-off)
      if (residual > 0.1 * previous) delta = std::max(delta_min, 1e-2 * delta);  // slow: longer steps
      previous = residual;
    }
    res.iterations = used_;
    res.warm_started = warm_started;
    if (res.status == QpStatus::Optimal) res.status = QpStatus::IterationLimit;  // did not settle
    return res;
  }

  QpResult limit() const {
    QpResult res;
    res.status = QpStatus::IterationLimit;
    res.x = Eigen::VectorXd::Zero(n_);
    res.mu_x = Eigen::VectorXd::Zero(n_);
    res.mu_a = Eigen::VectorXd::Zero(p_.A.rows());
    res.active_set.variables.assign(static_cast<size_t>(n_), QpActiveSet::kInactive);
    res.active_set.rows.assign(static_cast<size_t>(p_.A.rows()), QpActiveSet::kInactive);
    res.iterations = used_;
    return res;
  }

  const QpProblem& p_;
  const Curvature& c_;
  Real tol_;
  Eigen::Index n_;
  Eigen::VectorXd root_, inv_root_;  ///< D^1/2, D^-1/2
  int used_ = 0;
};

}  // namespace

Curvature analyse_curvature(const QpProblem& p) {
  const Eigen::Index n = p.H.rows();
  Curvature c;
  c.scale = p.H.diagonal();
  for (Eigen::Index i = 0; i < n; ++i)
    if (!(c.scale(i) > 0)) c.scale(i) = 1;
  const Eigen::VectorXd s = c.scale.cwiseSqrt().cwiseInverse();
  const Eigen::MatrixXd Hs = s.asDiagonal() * p.H * s.asDiagonal();
  // Strictly convex to working precision: a Cholesky pivot L_ii^2 of Hs (= that of H over H_ii)
  // below kPivot means H is singular up to round-off (e.g. W_ea^T W_ea alone, epsilon = 0).
  const Eigen::LLT<Eigen::MatrixXd> llt(Hs);
  if (llt.info() == Eigen::Success && llt.matrixLLT().diagonal().cwiseAbs2().minCoeff() > kPivot) return c;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Hs);
  SOFTIK_CHECK(es.info() == Eigen::Success, "QP: the eigenvalues of the Hessian H could not be computed");
  const Eigen::VectorXd& ev = es.eigenvalues();  // ascending
  const Real largest = std::max<Real>(ev(n - 1), 0);
  SOFTIK_CHECK(ev(0) >= -kNegative * largest,
               "QP: the Hessian H is not positive semi-definite (an eigenvalue of D^-1/2 H D^-1/2, D = diag(H), is "
                   << ev(0) << " against a largest of " << largest
                   << "): the objective is not convex; in the inverse problem the tangent stiffness is indefinite");
  Eigen::Index k = 0;
  while (k < n && ev(k) <= kFlat * largest) ++k;
  c.flat = es.eigenvectors().leftCols(std::max<Eigen::Index>(k, 1));  // the pivot test found one
  c.largest = largest > 0 ? largest : 1;
  return c;
}

QpResult solve_convex(const QpProblem& p, const Curvature& c, const QpActiveSet* warm, int budget,
                      Real feasibility_tolerance) {
  if (c.strictly_convex()) return dual_active_set(p, warm, budget, feasibility_tolerance);
  return Semidefinite(p, c, feasibility_tolerance).solve(warm, budget);
}

}  // namespace qp_detail
}  // namespace softik
