// The active-set polish of projected Gauss-Seidel (contact_solvers.hpp): once the contacts'
// states settle, one linear solve on that state gives the solution to round-off, where
// Gauss-Seidel alone converges linearly (slowly for stiff, strongly coupled contacts).
#include <cmath>

#include <Eigen/Dense>

#include "host/contact/contact_solvers.hpp"

namespace softik {
namespace contact {

std::vector<int> contact_states(const VectorXr& lambda, const VectorXr& delta, const std::vector<Real>& mu,
                                Real slip_threshold) {
  std::vector<int> states(mu.size(), 0);
  for (size_t i = 0; i < mu.size(); ++i) {
    const Vec3r l = lambda.segment<3>(3 * Eigen::Index(i));
    if (l[0] <= 0) continue;
    const bool on_cone = l.tail<2>().norm() >= mu[i] * l[0] * (1 - 1e-9);
    const bool slipping = delta.segment<2>(3 * Eigen::Index(i) + 1).norm() > slip_threshold;
    states[i] = (mu[i] == 0 || (on_cone && slipping)) ? 2 : 1;
  }
  return states;
}

// lambda = G z: a stick contact has the columns e_n, e_t1, e_t2; a slipping contact the column
// (1, -mu s) with s = delta_t / |delta_t| (direction_from_slip) or -lambda_t / |lambda_t|; a
// separated contact none. Equations R^T (delta_free + W G z) = 0 with R the rows
// n, t1, t2 (stick) or n (boundary): (R^T W G) z = -R^T delta_free.
bool polish_active_set(const MatrixXr& W, const VectorXr& delta_free, const std::vector<Real>& mu,
                       const std::vector<int>& states, bool direction_from_slip, VectorXr& lambda) {
  const VectorXr delta = delta_free + W * lambda;
  const Eigen::Index n = Eigen::Index(mu.size());
  Eigen::Index m = 0;
  for (int s : states) m += s == 1 ? 3 : s == 2 ? 1 : 0;
  if (m == 0) {
    lambda.setZero();
    return true;
  }
  MatrixXr G = MatrixXr::Zero(3 * n, m), R = MatrixXr::Zero(3 * n, m);
  Eigen::Index col = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const int s = states[size_t(i)];
    if (s == 1) {
      for (int k = 0; k < 3; ++k) G(3 * i + k, col + k) = R(3 * i + k, col + k) = 1;
      col += 3;
    } else if (s == 2) {
      const Eigen::Matrix<Real, 2, 1> dt = delta.segment<2>(3 * i + 1);
      const Real len = dt.norm();
      G(3 * i, col) = R(3 * i, col) = 1;
      const Eigen::Matrix<Real, 2, 1> lt = lambda.segment<2>(3 * i + 1);
      if (len > 0 && (direction_from_slip || lt.norm() == 0)) {
        G.block<2, 1>(3 * i + 1, col) = -mu[size_t(i)] * dt / len;
      } else if (lt.norm() > 0) {
        G.block<2, 1>(3 * i + 1, col) = mu[size_t(i)] * lt / lt.norm();
      }
      col += 1;
    }
  }
  const MatrixXr A = R.transpose() * W * G;
  const Eigen::FullPivLU<MatrixXr> lu(A);
  if (!lu.isInvertible()) return false;
  const VectorXr z = lu.solve(-R.transpose() * delta_free);
  if (!z.allFinite()) return false;
  lambda = G * z;
  return true;
}

}  // namespace contact
}  // namespace softik
