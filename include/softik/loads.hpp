// Load cases of a static problem (docs/method.md section 6): nodal forces (gravity included),
// pressures on cavity walls (softik/cavity.hpp) and prescribed displacements of fixed DOFs. Every
// load is scaled by the load factor lambda in [0, 1] while Newton ramps it.
#pragma once

#include <array>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/cavity.hpp"
#include "softik/mesh.hpp"

namespace softik {

/// Displacement of one fixed DOF (its node's position becomes X + lambda * value).
struct PrescribedDisplacement {
  int dof = 0;
  Real value = 0;
};

struct Loads {
  std::vector<Real> nodal;  ///< num_dofs entries, or empty
  std::vector<PressureLoad> pressures;
  std::vector<PrescribedDisplacement> prescribed;  ///< DOFs must be fixed in the Assembler
};

/// Nodal gravity load f_a = rho g integral(N_a dV) of density rho (Assembler::body_force_share:
/// the row sums of the consistent mass; num_dofs entries; only the first `dim` components of g
/// are used).
std::vector<Real> gravity_load(const Assembler& assembler, Real density, const std::array<Real, 3>& g);

}  // namespace softik
