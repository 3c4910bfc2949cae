// softik's dense QP solver for the constraint-space problem of the inverse method
// (docs/method.md section 8.3; [16] eq. 5). Host-only. Convex problems:
//
//   minimise    1/2 x^T H x + g^T x                 H symmetric positive semi-definite (n x n)
//   subject to  lower   <= x   <= upper             per-variable bounds, +-infinity allowed
//               a_lower <= A x <= a_upper           m two-sided rows, +-infinity allowed;
//                                                   a_lower == a_upper: an equality row
//
// Method: the dual active-set method of Goldfarb and Idnani (D. Goldfarb, A. Idnani, "A
// numerically stable dual method for solving strictly convex quadratic programs", Math.
// Programming 27:1-33, 1983), in the factorised form of that paper: H = L L^T once, the matrix
// J = L^-T Q and the triangle R of the QR factorisation of L^-1 N (N: normals of the active
// constraints) updated by Givens rotations when a constraint is added or dropped, so that one
// iteration costs O(n^2) and no KKT system is ever refactorised. It starts from the unconstrained
// minimiser -H^-1 g (needs no feasible point), keeps the multipliers of the active set
// non-negative (dual feasibility), and adds the most violated constraint until none is violated.
// When the constraint being added is linearly dependent on the active ones and no active
// inequality can be dropped, the constraints are infeasible (Theorem 3 of the paper).
// Each finite side of a bound or row is one inequality; equality rows are never dropped.
// After each addition x and the multipliers are recomputed from the factors with one step of
// iterative refinement, so accuracy does not drift over many iterations (details and the
// anti-cycling rule in host/qp/qp_dual_active_set.cpp). The returned x always lies within the
// variable bounds exactly (an optimal x is moved by at most the feasibility tolerance).
//
// Semi-definite H (host/qp/qp_semidefinite.cpp). With D = diag(H) (1 where H_ii = 0) and the scaled
// Hessian D^-1/2 H D^-1/2 (unit diagonal: the test does not depend on the units of x), H is
// strictly convex when every Cholesky pivot of the scaled matrix exceeds 1e-14 (the method
// above); otherwise its eigenvalues below 1e-13 of the largest span the *flat* directions (zero
// or near-zero curvature, e.g. W_ea^T W_ea + eps W_aa with eps zero or tiny). A negative
// eigenvalue below -1e-10 of the largest is an error (not convex). The problem is then
//   - Unbounded when some flat direction d (x + t d feasible for every t >= 0: d_i >= 0 where x_i
//     has a finite lower bound, <= 0 where it has a finite upper one, likewise for the rows) makes
//     the objective decrease: its slope, measured in the scaled variables, exceeds 1e-8 of the
//     gradient's round-off scale (g_terms below). The steepest such d is found by projecting
//     -D^-1/2 g onto that cone within the flat subspace (a small strictly convex QP). Status
//     Unbounded, with that direction, the variables that move along it, and x a feasible point
//     (the one nearest 0 in the scaled variables) - never an infinite or NaN x. Infeasible
//     constraints take precedence (status Infeasible as below).
//   - otherwise bounded: the part of the gradient's flat slope that no constraint stops (at
//     round-off, by the test above) is dropped, and the problem solved by proximal-point
//     iterations along the flat directions (each a strictly
//     convex QP by the method above, warm-started), which pick, among the optima, one reached
//     from 0; the KKT residuals are those of the problem as given.
//
// Infeasible problems (status Infeasible) return a least-violation answer, defined as
//   1. the smallest sum of squared row violations  sum_r dist(a_r . x, [a_lower_r, a_upper_r])^2
//      (for an empty range a_lower_r > a_upper_r: (a_lower_r - a_r.x)_+^2 + (a_r.x - a_upper_r)_+^2)
//      over the x that satisfy the variable bounds exactly (the bounds are never violated), then
//   2. the smallest objective among those x.
// The violation vector of stage 1 is unique (strictly convex in the violations), so stage 2 is
// the original QP with each violated row pinned to its least-violation value. Stage 1 has a
// positive semi-definite Hessian; it is solved by proximal-point iterations (each a strictly
// convex QP solved by the same method, warm-started; typically 5-8 of them, to round-off), with
// longer proximal steps when rows of very different weights slow them down. The answer names the
// rows that stay violated and the variable bounds that block them (non-zero multipliers in
// stage 1; such a variable sits exactly at that bound). Note that the criterion weighs rows in
// their own units: scale rows comparably if their violations should count alike.
//
// Errors (softik::Error, kind Input unless said): inconsistent sizes; NaN or infinity in H, g, A
// or g_terms; a NaN bound, a lower bound of +inf or an upper bound of -inf; lower > upper on a
// variable (the message names it); an H that is not symmetric (beyond 1e-8 relative; H is
// symmetrised) or not positive semi-definite (a clearly negative eigenvalue: in the inverse
// problem an indefinite tangent); variable or row names given but not n / m of them; warm-start
// entries other than -1, 0, 1. A row with a_lower > a_upper is not an error (a rate window can
// miss the absolute range): it makes the problem infeasible and is reported as such. A result
// that is not finite (x or a multiplier; it should never happen) is an ErrorKind::Numerical
// error, never returned.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "softik/config.hpp"

namespace softik {

struct QpProblem {
  Eigen::MatrixXd H;  ///< n x n, symmetric positive semi-definite (n >= 1)
  Eigen::VectorXd g;  ///< n
  /// Optional (n entries >= 0, or none): the size of the terms each g_i is computed from, e.g.
  /// |W_ea|^T |delta_e| for g = W_ea^T delta_e: the round-off scale against which a slope of the
  /// objective along a flat direction is judged (a g that nearly cancels, as at the optimum of an
  /// unreachable goal, must not make round-off look like a slope). None: |g|.
  Eigen::VectorXd g_terms;
  Eigen::VectorXd lower, upper;      ///< n each; empty: -inf / +inf for every variable
  Eigen::MatrixXd A;                 ///< m x n (m may be 0; then A may be 0 x 0)
  Eigen::VectorXd a_lower, a_upper;  ///< m each
  /// Optional names used in messages ("cavity0 pressure", "cavity0 volume growth"); missing
  /// names read "x[i]" and "row r".
  std::vector<std::string> variable_names, row_names;
};

/// Unbounded: the objective decreases without limit along a feasible direction of (near-)zero
/// curvature (semi-definite H only; see the top of this file and QpResult::direction).
enum class QpStatus { Optimal, Infeasible, IterationLimit, Unbounded };
const char* qp_status_name(QpStatus s);

/// Which constraints are active: for each variable and row, kAtLower, kAtUpper or kInactive.
/// An active equality (lower == upper) reads kAtLower. A result's active set warm-starts the next
/// solve of a problem with the same n and m.
struct QpActiveSet {
  static constexpr signed char kAtLower = -1, kInactive = 0, kAtUpper = 1;
  std::vector<signed char> variables, rows;
  bool empty() const { return variables.empty() && rows.empty(); }
};

/// KKT residuals of the returned point, each relative (0 at an exact solution). With s_j the
/// slack of a bound or row side and scale_j = |bound_j| + terms_j, terms_j = sum_k |a_jk x_k|
/// (|x_i| for a bound: the size of the terms that make the slack, so each variable and row is
/// measured in its own units), and the normalised multiplier nu_j = |mu_j| |a_j|_inf / G,
///   G = max(|H x|_inf, |g|_inf, max_j |mu_j| |a_j|_inf):
struct QpKkt {
  Real stationarity = 0;     ///< |H x + g - mu_x - A^T mu_a|_inf / max_i (|H||x| + |g| + |mu_x| + |A|^T|mu_a|)_i
  Real primal = 0;           ///< max_j max(0, -s_j) / scale_j (bounds and rows)
  Real complementarity = 0;  ///< max_j nu_j |s_j| / scale_j over the side each multiplier belongs to
  Real dual = 0;             ///< max_j nu_j over multipliers whose side is infinite (wrong sign)
  Real max() const;
};

struct QpResult {
  Eigen::VectorXd x;
  /// Multipliers with H x + g = mu_x + A^T mu_a: mu >= 0 at a lower bound, mu <= 0 at an upper
  /// bound, either sign on an equality, 0 on an inactive constraint.
  Eigen::VectorXd mu_x, mu_a;
  QpStatus status = QpStatus::Optimal;
  int iterations = 0;  ///< active-set changes (constraints added + dropped), all stages and sub-problems together
  bool warm_started = false;  ///< the warm active set was used (else a cold start)
  /// Residuals of the QP whose solution x is: the problem itself (Optimal, IterationLimit,
  /// Unbounded: there x is no solution and the residuals say so) or, when Infeasible, the stage-2
  /// problem (violated rows pinned at their least-violation values; the problem itself if stage
  /// 2 could not be completed).
  QpKkt kkt;
  QpActiveSet active_set;  ///< of x; rows pinned in stage 2 read the side they violate
  /// Per row: a_r.x minus the nearest point of [a_lower_r, a_upper_r] (0 when met; for an empty
  /// range the violation of the side that is violated more). Always filled.
  Eigen::VectorXd row_violation;
  // Infeasible only:
  std::vector<int> conflicting_rows;       ///< rows left violated by the least-violation answer
  std::vector<int> conflicting_variables;  ///< variables whose bound blocks a smaller violation
  // Unbounded only:
  /// A direction along which the objective decreases without bound and no bound or row stops it
  /// (H d ~ 0 to the flat tolerance, g.d < 0, x + t d feasible for all t >= 0); largest |d_i| = 1.
  Eigen::VectorXd direction;
  /// The variables that move along `direction` (|d_i| sqrt(H_ii) above 1e-6 of the largest):
  /// each needs a bound on the side it moves to (direction_i > 0: an upper bound) - or the
  /// problem more curvature (in the inverse problem: a larger energy weight epsilon).
  std::vector<int> unbounded_variables;
  std::string message;  ///< Infeasible / IterationLimit / Unbounded: what happened, naming the constraints
};

struct QpOptions {
  /// Cap on active-set changes over all stages; reaching it gives status IterationLimit, with x
  /// the last iterate clamped to the variable bounds (this is also the guard against cycling in
  /// degenerate problems). A cold solve takes about n to 3n changes (n = 100, m = 200: ~270 on
  /// random problems; an infeasible one up to ~450); a warm one usually 0 to a few.
  int max_iterations = 500;
  /// A constraint counts as violated when its slack is below -feasibility_tolerance * scale_j
  /// (see QpKkt): relative, so independent of the units of x and of the rows.
  Real feasibility_tolerance = 1e-10;
};

/// Solves the QP. `warm` (optional) is the active set of a previous solution: when its sizes
/// match n and m, the solver starts from the minimiser over those active constraints, taken as
/// equalities, instead of the unconstrained minimiser (see QpResult::warm_started). Entries that
/// point at an infinite side are ignored, entries linearly dependent on earlier ones (variables
/// first, then rows, in index order) are skipped, and inequalities whose multiplier comes out
/// negative are dropped one at a time (most negative first, each counted as an iteration) until
/// the start is dual feasible, so any warm set gives the same answer as a cold start. Sizes that
/// do not match give a cold start; entries other than -1, 0, 1 are a softik::Error.
QpResult solve_qp(const QpProblem& problem, const QpOptions& options = {}, const QpActiveSet* warm = nullptr);

}  // namespace softik
