// Constructors of the LinearSolver implementations (private to host/).
#pragma once

#include <memory>

#include "softik/linear_solver.hpp"

namespace softik {
std::unique_ptr<LinearSolver> make_eigen_ldlt_solver();
#ifdef SOFTIK_HAVE_CHOLMOD
std::unique_ptr<LinearSolver> make_cholmod_solver();
#endif
}  // namespace softik
