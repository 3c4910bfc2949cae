// The low-rank part of a tangent, K_t = K + U C U^T (linear_solver.hpp: LowRankStiffness, e.g. a
// cable's T (I - e e^T)/|e| per segment), applied by the Woodbury identity with K's factorisation:
//   K_t^-1 = K^-1 - K^-1 U M U^T K^-1,   M = (I + C U^T K^-1 U)^-1 C.
// Used by the inverse step (host/inverse/inverse_solver.cpp) and the dynamic Newton step
// (host/dynamics/time_stepping.cpp).
#pragma once

#include <string>

#include <Eigen/Dense>

#include "softik/error.hpp"
#include "softik/linear_solver.hpp"

namespace softik::detail {

/// C: the 3x3 blocks of `s` on the diagonal of an nr x nr matrix (nr = s.columns.size()).
inline Eigen::MatrixXd low_rank_blocks(const LowRankStiffness& s) {
  const Eigen::Index nr = static_cast<Eigen::Index>(s.columns.size());
  SOFTIK_CHECK(3 * s.blocks.size() == s.columns.size(),
               "low-rank stiffness: " << s.blocks.size() << " 3x3 blocks for " << s.columns.size() << " columns");
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(nr, nr);
  for (size_t b = 0; b < s.blocks.size(); ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        C(static_cast<Eigen::Index>(3 * b) + i, static_cast<Eigen::Index>(3 * b) + j) =
            s.blocks[b][static_cast<size_t>(3 * i + j)];
  return C;
}

/// M = (I + C G)^-1 C for G = U^T K^-1 U. A singular I + C G is an error of `kind`: `what`, then
/// its reciprocal condition, then `hint`.
inline Eigen::MatrixXd woodbury_middle(const Eigen::MatrixXd& C, const Eigen::MatrixXd& G, ErrorKind kind,
                                       const std::string& what, const std::string& hint) {
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(Eigen::MatrixXd::Identity(C.rows(), C.rows()) + C * G);
  SOFTIK_CHECK_KIND(lu.rcond() > 1e-13, kind,
                    what << " (reciprocal condition of I + C U^T K^-1 U: " << lu.rcond() << ")" << hint);
  return lu.solve(C);
}

}  // namespace softik::detail
