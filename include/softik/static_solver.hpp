// Static equilibrium by Newton-Raphson on the free DOFs (issue 3 groundwork):
//   find x with  f(x) + lambda f_ext = 0  on the free DOFs,
// f = -dE/dx the elastic force (Assembler), f_ext a conservative external load (nodal forces,
// gravity) ramped by the load factor lambda from 0 to 1 in `load_steps` increments. Each
// iteration solves K dx = f + lambda f_ext with K = d^2E/dx^2 and takes x += alpha dx, alpha
// from a backtracking line search on the potential Pi(x) = E(x) - lambda f_ext . x (Armijo).
// An increment that does not converge (or inverts a cell) is cut in half, at most
// max_step_cuts times; then softik::Error reports the load factor and the residual history.
#pragma once

#include <vector>

#include "softik/assembly.hpp"
#include "softik/linear_solver.hpp"

namespace softik {

struct NewtonOptions {
  int max_iterations = 30;          ///< per load increment
  Real residual_tolerance = 1e-8;   ///< converged when |r_free| <= tol * |lambda f_ext_free|
  Real increment_tolerance = 1e-12; ///< or when |dx| <= tol * (bounding-box diagonal of the mesh)
  bool line_search = true;
  int load_steps = 1;
  int max_step_cuts = 6;
};

/// One Newton iteration, for logs and convergence checks.
struct NewtonIterationLog {
  int load_step = 0;
  Real load_factor = 0;
  int iteration = 0;
  Real residual = 0;     ///< |f + lambda f_ext| on the free DOFs before the update
  Real increment = 0;    ///< |alpha dx|
  Real step_length = 1;  ///< alpha
};

struct StaticResult {
  int iterations = 0;  ///< total over all increments (cut ones included)
  int step_cuts = 0;
  std::vector<NewtonIterationLog> log;
};

/// Solves for the equilibrium positions x (num_dofs entries, updated in place; fixed DOFs keep
/// their values, i.e. prescribed positions). f_ext: num_dofs entries (entries on fixed DOFs are
/// ignored). The solver is analysed on the assembler's pattern here.
StaticResult solve_static(const Assembler& assembler, LinearSolver& solver, const std::vector<Real>& f_ext,
                          std::vector<Real>& x, const NewtonOptions& options = {});

}  // namespace softik
