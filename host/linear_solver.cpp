#include "softik/linear_solver.hpp"

#include <sstream>

#include "linear_solvers.hpp"
#include "softik/error.hpp"

namespace softik {

bool have_cholmod() {
#ifdef SOFTIK_HAVE_CHOLMOD
  return true;
#else
  return false;
#endif
}

std::unique_ptr<LinearSolver> make_linear_solver(LinearSolverKind kind) {
  SOFTIK_CHECK(kind == LinearSolverKind::Automatic || kind == LinearSolverKind::Cholmod ||
                   kind == LinearSolverKind::EigenLDLT,
               "unknown LinearSolverKind " << static_cast<int>(kind));
  if (kind == LinearSolverKind::EigenLDLT) return make_eigen_ldlt_solver();
#ifdef SOFTIK_HAVE_CHOLMOD
  return make_cholmod_solver();
#else
  SOFTIK_CHECK(kind == LinearSolverKind::Automatic,
               "LinearSolverKind::Cholmod requested, but softik was built without CHOLMOD: rebuild with "
               "-DSOFTIK_WITH_CHOLMOD=ON (libsuitesparse-dev) or use LinearSolverKind::EigenLDLT");
  return make_eigen_ldlt_solver();
#endif
}

void LinearSolver::require_cholesky_factor(const char* call) const {
  SOFTIK_CHECK(has_cholesky_factor(),
               name() << "::" << call << " needs a Cholesky factor K = P^T L L^T P, but the last factorisation is not "
                      << "one (no successful factorisation yet, an indefinite K factored as L D L^T, or a solver "
                      << "without half solves): check has_cholesky_factor() first and use solve() otherwise");
}

// Default for solvers without half solves: has_cholesky_factor() is false, so these throw.
void LinearSolver::solve_forward(const Real*, Real*, int) const { require_cholesky_factor("solve_forward"); }
void LinearSolver::solve_backward(const Real*, Real*, int) const { require_cholesky_factor("solve_backward"); }

namespace detail {
void throw_singular(const char* solver, double pivot_ratio, long row) {
  std::ostringstream s;
  s << "the stiffness matrix is singular (" << solver << ": smallest/largest pivot = " << pivot_ratio;
  if (row >= 0) s << ", detected at free DOF row " << row;
  s << "): the body is not held against rigid motion, or a part of it floats free. Fix enough nodes "
       "(at least one face of every separate part), or check that every part is connected to the mesh";
  throw Error(s.str());
}
}  // namespace detail

}  // namespace softik
