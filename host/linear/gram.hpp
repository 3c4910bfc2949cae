// G = Z^T Z for the n x nb columns Z (column-major): the Gram matrix of the half solves
// (LinearSolver::forward_gram, the inverse step's kept columns), formed as a symmetric rank
// update of one triangle and mirrored, so that G is exactly symmetric.
#pragma once

#include <Eigen/Dense>

#include "softik/config.hpp"

namespace softik::detail {

inline void gram(const Real* Z, Eigen::Index n, Eigen::Index nb, Real* G) {
  const Eigen::Map<const Eigen::MatrixXd> Zm(Z, n, nb);
  Eigen::Map<Eigen::MatrixXd> Gm(G, nb, nb);
  Gm.setZero();
  Gm.selfadjointView<Eigen::Lower>().rankUpdate(Zm.transpose());
  Gm.triangularView<Eigen::StrictlyUpper>() = Gm.transpose();
}

}  // namespace softik::detail
