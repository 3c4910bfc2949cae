#include "host/solvers/static_checks.hpp"

#include <cmath>
#include <cstddef>

#include "softik/error.hpp"

namespace softik {

namespace {

/// The control mode's parameters of one pressure load (CavityControl, loads.hpp).
void check_cavity_control(const PressureLoad& p, const Mesh& mesh) {
  const char* mode = cavity_control_name(p.control);
  if (p.control == CavityControl::Pressure) {
    SOFTIK_CHECK(p.volume_growth == 0 && p.gas_amount == 0,
                 "pressure load '" << p.name << "' has volume_growth " << p.volume_growth << " and gas_amount "
                                   << p.gas_amount << " but control = pressure, which ignores them: set control to "
                                   << "CavityControl::Volume or CavityControl::Gas, or leave them at 0");
    return;
  }
  SOFTIK_CHECK(p.closed, "pressure load '"
                             << p.name << "': control = " << mode << " needs a closed cavity (closed = true); "
                             << "an open surface encloses no volume. Close the surface or use control = pressure");
  SOFTIK_CHECK(p.follower, "pressure load '"
                               << p.name << "': control = " << mode << " needs a follower load (follower = true); "
                               << "a dead load's pressure does not act on the deformed wall whose volume sets it");
  SOFTIK_CHECK(p.pressure == 0, "pressure load '" << p.name << "': pressure is " << p.pressure << " but control = "
                                                  << mode << " computes the pressure itself; leave pressure at 0");
  const Real V0 = surface_volume(p, mesh, mesh.rest_positions());
  SOFTIK_CHECK(V0 > 0, "pressure load '" << p.name << "': the cavity's rest volume is " << V0 << " (control = " << mode
                                         << " needs V0 > 0): wind the surface out of the cavity (check_surface)");
  if (p.control == CavityControl::Volume) {
    SOFTIK_CHECK(std::isfinite(p.volume_growth),
                 "pressure load '" << p.name << "': volume_growth is " << p.volume_growth << "; give a finite value");
    SOFTIK_CHECK(V0 + p.volume_growth > 0,
                 "pressure load '" << p.name << "': the target volume V0 + volume_growth = " << V0 + p.volume_growth
                                   << " (rest volume V0 = " << V0 << ") is not positive; give volume_growth > " << -V0);
    return;
  }
  SOFTIK_CHECK(std::isfinite(p.gas_amount) && p.gas_amount > 0,
               "pressure load '" << p.name << "': gas_amount is " << p.gas_amount
                                 << "; give the amount of gas N = P_abs V > 0 "
                                 << "(e.g. ambient_pressure times the volume of the gas at ambient pressure)");
  SOFTIK_CHECK(std::isfinite(p.ambient_pressure) && p.ambient_pressure >= 0,
               "pressure load '" << p.name << "': ambient_pressure is " << p.ambient_pressure
                                 << "; give the absolute ambient pressure, finite and >= 0");
}

}  // namespace

void check_static_loads(const EquilibriumModel& model, const Loads& loads, const std::vector<Real>& x,
                        const char* caller) {
  const size_t n = static_cast<size_t>(model.num_dofs());
  SOFTIK_CHECK(x.size() == n, caller << ": x has " << x.size() << " entries, expected num_dofs = " << n);
  SOFTIK_CHECK(loads.nodal.empty() || loads.nodal.size() == n,
               caller << ": the nodal load has " << loads.nodal.size() << " entries, expected num_dofs = " << n);
  // With nothing fixed the body can move rigidly and K is singular: refuse it up front, even
  // under a zero load that Newton would accept without a factorisation.
  SOFTIK_CHECK(model.fixes_something(),
               "nothing is fixed: the body can move rigidly, so its stiffness matrix is singular and the "
               "static problem has no unique solution. Fix nodes (scene key `fixed:`, or the fixed-DOF mask of the "
               "Assembler or NetworkStatics): at least one face of every separate part");
  for (size_t k = 0; k < loads.nodal.size(); ++k)
    SOFTIK_CHECK(std::isfinite(loads.nodal[k]),
                 "external load on DOF " << k << " is " << loads.nodal[k] << ": fix the load");
  for (const PressureLoad& p : loads.pressures) {
    SOFTIK_CHECK(std::isfinite(p.pressure),
                 "pressure load '" << p.name << "' is " << p.pressure << ": give a finite value");
    surface_volume(p, model.nodes(), x);  // checks the surface's indices and embedding
    check_cavity_control(p, model.nodes());
  }
  for (const PrescribedDisplacement& d : loads.prescribed) {
    SOFTIK_CHECK(d.dof >= 0 && static_cast<size_t>(d.dof) < n,
                 "prescribed displacement on DOF " << d.dof << ": out of range [0, " << n << ")");
    SOFTIK_CHECK(model.free_dof_index()[static_cast<size_t>(d.dof)] < 0,
                 "prescribed displacement on DOF " << d.dof << " (node " << d.dof / model.nodes().dim
                                                   << "): the DOF is free; fix it in the Assembler's fixed-DOF mask");
    SOFTIK_CHECK(std::isfinite(d.value), "prescribed displacement on DOF " << d.dof << " is " << d.value);
  }
}

}  // namespace softik
