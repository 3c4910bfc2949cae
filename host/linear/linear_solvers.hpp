// Constructors of the LinearSolver implementations (private to host/).
#pragma once

#include <memory>
#include <string>

#include "softik/linear_solver.hpp"

namespace softik {
std::unique_ptr<LinearSolver> make_eigen_ldlt_solver();
#ifdef SOFTIK_HAVE_CHOLMOD
std::unique_ptr<LinearSolver> make_cholmod_solver();
#endif
// The GPU solvers come from the device backend's table (host/exec/device_backend.hpp).
}  // namespace softik
