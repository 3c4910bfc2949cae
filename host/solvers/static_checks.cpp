#include "host/solvers/static_checks.hpp"

#include <cmath>
#include <cstddef>

#include "softik/error.hpp"

namespace softik {

void check_static_loads(const Assembler& assembler, const Loads& loads, const std::vector<Real>& x, const char* caller) {
  const size_t n = static_cast<size_t>(assembler.num_dofs());
  SOFTIK_CHECK(x.size() == n, caller << ": x has " << x.size() << " entries, expected num_dofs = " << n);
  SOFTIK_CHECK(loads.nodal.empty() || loads.nodal.size() == n,
               caller << ": the nodal load has " << loads.nodal.size() << " entries, expected num_dofs = " << n);
  // With nothing fixed the body can move rigidly and K is singular: refuse it up front, even
  // under a zero load that Newton would accept without a factorisation.
  std::vector<char> referenced(static_cast<size_t>(assembler.mesh().num_nodes()), 0);
  for (int v : assembler.mesh().cells) referenced[static_cast<size_t>(v)] = 1;
  bool anything_fixed = false;
  for (size_t dof = 0; dof < n && !anything_fixed; ++dof)
    anything_fixed = referenced[dof / static_cast<size_t>(assembler.mesh().dim)] && assembler.free_dof_index()[dof] < 0;
  SOFTIK_CHECK(anything_fixed, "nothing is fixed: the body can move rigidly, so its stiffness matrix is singular and the "
                               "static problem has no unique solution. Fix nodes (scene key `fixed:`, or the Assembler's "
                               "fixed-DOF mask): at least one face of every separate part");
  for (size_t k = 0; k < loads.nodal.size(); ++k)
    SOFTIK_CHECK(std::isfinite(loads.nodal[k]), "external load on DOF " << k << " is " << loads.nodal[k] << ": fix the load");
  for (const PressureLoad& p : loads.pressures) {
    SOFTIK_CHECK(std::isfinite(p.pressure), "pressure load '" << p.name << "' is " << p.pressure << ": give a finite value");
    surface_volume(p, assembler.mesh(), x);  // checks the surface's indices and embedding
  }
  for (const PrescribedDisplacement& d : loads.prescribed) {
    SOFTIK_CHECK(d.dof >= 0 && static_cast<size_t>(d.dof) < n,
                 "prescribed displacement on DOF " << d.dof << ": out of range [0, " << n << ")");
    SOFTIK_CHECK(assembler.free_dof_index()[static_cast<size_t>(d.dof)] < 0,
                 "prescribed displacement on DOF " << d.dof << " (node " << d.dof / assembler.mesh().dim
                                                   << "): the DOF is free; fix it in the Assembler's fixed-DOF mask");
    SOFTIK_CHECK(std::isfinite(d.value), "prescribed displacement on DOF " << d.dof << " is " << d.value);
  }
}

}  // namespace softik
