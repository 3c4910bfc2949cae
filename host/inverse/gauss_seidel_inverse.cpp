// Gauss-Seidel inverse solver in constraint space (docs/method.md 8.4; [16] eqs. 6-10; inverse.hpp).
#include <algorithm>
#include <cmath>

#include "softik/error.hpp"
#include "softik/inverse.hpp"

namespace softik {

int gauss_seidel_inverse(const Eigen::MatrixXd& W_ea, const Eigen::VectorXd& delta_e_free, const Eigen::MatrixXd& W_aa,
                         const Eigen::VectorXd& delta_a_free, const std::vector<Interval>& lambda_bounds,
                         const std::vector<Interval>& delta_bounds, Eigen::VectorXd& lambda, int max_sweeps, Real tol) {
  const Eigen::Index na = W_aa.rows();
  SOFTIK_CHECK(W_ea.cols() == na && lambda.size() == na && delta_a_free.size() == na &&
                   static_cast<Eigen::Index>(lambda_bounds.size()) == na &&
                   static_cast<Eigen::Index>(delta_bounds.size()) == na && delta_e_free.size() == W_ea.rows(),
               "gauss_seidel_inverse: inconsistent sizes");
  SOFTIK_CHECK(W_ea.allFinite() && W_aa.allFinite() && delta_e_free.allFinite() && delta_a_free.allFinite() &&
                   lambda.allFinite(),
               "gauss_seidel_inverse: W_ea, W_aa, delta_e_free, delta_a_free and the starting lambda must be finite");
  for (Eigen::Index j = 0; j < na; ++j) {
    const Interval& l = lambda_bounds[static_cast<size_t>(j)];
    const Interval& b = delta_bounds[static_cast<size_t>(j)];
    SOFTIK_CHECK(
        !std::isnan(l.lo) && !std::isnan(l.hi) && !std::isnan(b.lo) && !std::isnan(b.hi) && l.lo < kInf && l.hi > -kInf,
        "gauss_seidel_inverse: the bounds of actuator " << j << " are NaN, or lambda's are [+inf, .] / [., -inf]");
  }
  // Current effector and actuator values for the starting lambda (eq. 6's right-hand side).
  Eigen::VectorXd delta_e = delta_e_free + W_ea * lambda;
  Eigen::VectorXd delta_a = delta_a_free + W_aa * lambda;
  for (int sweep = 1; sweep <= max_sweeps; ++sweep) {
    Real change = 0, scale = 0;
    for (Eigen::Index j = 0; j < na; ++j) {
      const Real w2 = W_ea.col(j).squaredNorm();
      // eq. 10: the change that best cancels the effector offset along w_*j.
      Real d = w2 > 0 ? -W_ea.col(j).dot(delta_e) / w2 : 0.0;
      Real lo = lambda_bounds[static_cast<size_t>(j)].lo, hi = lambda_bounds[static_cast<size_t>(j)].hi;
      // Keep this actuator's own delta_a_j = delta_a_j(current) + W_aa(j,j) d within its bounds.
      const Real wjj = W_aa(j, j);
      if (wjj > 0) {
        const Interval& b = delta_bounds[static_cast<size_t>(j)];
        lo = std::max(lo, lambda(j) + (b.lo - delta_a(j)) / wjj);
        hi = std::min(hi, lambda(j) + (b.hi - delta_a(j)) / wjj);
      }
      const Real target = lo <= hi ? std::clamp(lambda(j) + d, lo, hi) : lambda(j);
      d = target - lambda(j);
      if (d != 0) {
        lambda(j) = target;
        delta_e += W_ea.col(j) * d;  // eq. 8
        delta_a += W_aa.col(j) * d;
      }
      change = std::max(change, std::abs(d));
      scale = std::max(scale, std::abs(lambda(j)));
    }
    // A change this large can only come from a coupling at round-off level (the caller zeroes
    // those: inverse_checks.hpp) or from unbounded inputs growing without limit: never let an
    // infinity or a NaN out.
    SOFTIK_CHECK_NUMERICAL(lambda.allFinite() && delta_e.allFinite() && delta_a.allFinite(),
                           "gauss_seidel_inverse: the actuation became infinite in sweep "
                               << sweep << "; bound the actuators (min/max force or pressure)");
    if (change <= tol * std::max(scale, 1e-300)) return sweep;
  }
  return max_sweeps + 1;
}

}  // namespace softik
