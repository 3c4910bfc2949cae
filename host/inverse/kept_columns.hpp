// Kept columns of the inverse step's solves (inverse_solver.cpp, free_configuration; docs/method.md
// section 8.2).
//
// The half path of a step solves Z = L^-1 P B for B = [r, J^T, U] (r = f + f_ext on the free DOFs,
// J^T the constraint rows, then the contact rows, U the cables' low-rank stiffness) and forms
// G = Z^T Z; the full path solves Z = K^-1 B and forms G = B^T Z. While a factorisation is kept
// (chord steps), a constraint row whose J has not changed since its column was last solved on
// this factor (a position effector: its J is the attached point's fixed interpolation) has the
// same column of Z: it is kept instead of solved again. Rows whose J moves with the body (a
// cavity's volume gradient, a cable's direction) are solved every step, as are r, the contacts
// and U. Kept columns are exactly the columns a solve would give (same factor, same J), so the
// step is the same chord step.
#pragma once

#include <vector>

#include <Eigen/Dense>

#include "softik/linear_solver.hpp"

namespace softik::inverse_detail {

/// The kept J^T and Z columns of the constraint rows (n_free x k each, column-major), and k
/// (-1: nothing kept).
struct KeptColumns {
  std::vector<Real>& Jt;
  std::vector<Real>& Z;
  int& rows;
};

/// Which solves make Z: forward solves Z = L^-1 P B (a host solver's half path, with a Cholesky
/// factor), or full solves Z = K^-1 B (a solver without forward-only solves, such as cuDSS, or
/// an L D L^T factor). A GPU solver's own half path keeps Z on the device and does not come here.
enum class KeptSolve { Forward, Full };

/// Z (n_free x nb) for the step's B, whose columns 1..k are the constraint rows' J^T, and on the
/// forward path G = Z^T Z (on the full path the caller forms G = B^T Z). With refresh (the step
/// factorised) or when `kept` does not hold k rows, every column is solved; otherwise the
/// constraint columns equal to their kept J^T take the kept Z. The constraint columns are kept
/// for the next step either way. Returns the number of columns taken from `kept`.
int solve_with_kept_columns(const LinearSolver& solver, KeptSolve how, bool refresh, int k, KeptColumns kept,
                            const Eigen::MatrixXd& B, Eigen::MatrixXd& Z, Eigen::MatrixXd& G);

}  // namespace softik::inverse_detail
