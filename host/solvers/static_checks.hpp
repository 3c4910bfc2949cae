// Input checks shared by the static solvers (solve_static, solve_arc_length): sizes, finiteness
// of the loads, that something is fixed, pressure surfaces and prescribed displacements.
#pragma once

#include <vector>

#include "host/solvers/equilibrium_model.hpp"
#include "softik/loads.hpp"

namespace softik {

/// Throws softik::Error (ErrorKind::Input) naming the bad value; `caller` starts size messages
/// ("solve_static", "solve_arc_length").
void check_static_loads(const EquilibriumModel& model, const Loads& loads, const std::vector<Real>& x,
                        const char* caller);

}  // namespace softik
