// Kept columns of the inverse step's solves (kept_columns.hpp).
#include "host/inverse/kept_columns.hpp"

#include "host/linear/gram.hpp"
#include "softik/error.hpp"

namespace softik::inverse_detail {

int solve_with_kept_columns(const LinearSolver& solver, KeptSolve how, bool refresh, int k, KeptColumns kept,
                            const Eigen::MatrixXd& B, Eigen::MatrixXd& Z, Eigen::MatrixXd& G) {
  const Eigen::Index n = B.rows(), nb = B.cols();
  SOFTIK_CHECK(k >= 0 && 1 + k <= nb,
               "InverseSolver: kept columns: " << k << " constraint rows of " << nb << " columns");
  const auto cols = static_cast<size_t>(n) * static_cast<size_t>(k);
  const bool have = !refresh && kept.rows == k && kept.Jt.size() == cols && kept.Z.size() == cols;
  // The columns to solve: r, every constraint row whose J differs from the kept one, the rest.
  std::vector<Eigen::Index> solve;
  solve.push_back(0);
  for (Eigen::Index r = 0; r < k; ++r)
    if (!have || B.col(1 + r) != Eigen::Map<const Eigen::MatrixXd>(kept.Jt.data(), n, k).col(r)) solve.push_back(1 + r);
  for (Eigen::Index c = 1 + k; c < nb; ++c) solve.push_back(c);
  const auto ns = static_cast<Eigen::Index>(solve.size());
  auto run = [&](const Real* b, Real* z, Eigen::Index columns) {
    if (how == KeptSolve::Forward)
      solver.solve_forward(b, z, static_cast<int>(columns));
    else
      solver.solve(b, z, static_cast<int>(columns));
  };
  Z.resize(n, nb);
  if (ns == nb) {
    run(B.data(), Z.data(), nb);
  } else {
    Eigen::MatrixXd Bs(n, ns), Zs(n, ns);
    for (Eigen::Index j = 0; j < ns; ++j) Bs.col(j) = B.col(solve[static_cast<size_t>(j)]);
    run(Bs.data(), Zs.data(), ns);
    Z.middleCols(1, k) = Eigen::Map<const Eigen::MatrixXd>(kept.Z.data(), n, k);
    for (Eigen::Index j = 0; j < ns; ++j) Z.col(solve[static_cast<size_t>(j)]) = Zs.col(j);
  }
  // The constraint columns of this step on this factor, for the next step: all of them after a
  // refresh, else only those solved again (the kept ones are already there).
  if (!have) {
    kept.rows = -1;
    kept.Jt.assign(B.data() + n, B.data() + n + cols);
    kept.Z.assign(Z.data() + n, Z.data() + n + cols);
    kept.rows = k;
  } else {
    Eigen::Map<Eigen::MatrixXd> Jt0(kept.Jt.data(), n, k), Z0(kept.Z.data(), n, k);
    for (Eigen::Index c : solve)
      if (c >= 1 && c <= k) {
        Jt0.col(c - 1) = B.col(c);
        Z0.col(c - 1) = Z.col(c);
      }
  }
  if (how == KeptSolve::Forward) {  // G = Z^T Z (on the full path the caller forms B^T Z)
    G.resize(nb, nb);
    detail::gram(Z.data(), n, nb, G.data());
  }
  return static_cast<int>(nb - ns);
}

}  // namespace softik::inverse_detail
