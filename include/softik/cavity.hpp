// A cavity: a pressure on a surface of the body (docs/method.md sections 6 and 7), its control
// (a given pressure, an imposed volume, a closed amount of gas), its enclosed volume, its forces,
// its actuator column dV/dx and its load stiffness.
//
// Pressure conventions are those of fem/pressure_load.hpp: a cavity surface is wound with its
// normals OUT of the cavity (into the material); P > 0 inflates. check_surface() (surface.hpp)
// returns a surface in that winding; the actuator generators produce it directly.
#pragma once

#include <string>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/mesh.hpp"
#include "softik/point_location.hpp"  // SurfaceEmbedding

namespace softik {

/// How the pressure of a PressureLoad is set (docs/method.md section 7, "Volume-controlled and gas
/// cavities"). Volume and Gas need a closed, follower cavity; only solve_static drives them (the
/// arc-length, dynamic and inverse solvers refuse them with softik::Error).
enum class CavityControl {
  Pressure,  ///< given: P = lambda * pressure (the default)
  /// imposed volume growth V(x) - V0 = lambda * volume_growth (V0: the volume at the mesh's rest
  /// positions); the pressure is an unknown of the solve (a Lagrange multiplier)
  Volume,
  /// a closed amount of ideal gas at constant temperature (Boyle's law): the absolute pressure is
  /// N(lambda) / V(x) with N(lambda) = N0 + lambda (gas_amount - N0), N0 = ambient_pressure * V0
  /// (the cavity starts at ambient pressure); the wall carries the gauge pressure
  /// P = N / V - ambient_pressure
  Gas,
};

/// "pressure", "volume", "gas".
const char* cavity_control_name(CavityControl control);

/// A uniform pressure on a surface. `pressure` is the value at load factor 1 (force per area,
/// e.g. Pa). For a closed cavity the load is conservative, f = P dV/dx.
struct PressureLoad {
  std::string name;
  SurfaceGroup surface;        ///< wound out of the cavity
  SurfaceEmbedding embedding;  ///< empty: surface indices are mesh nodes
  Real pressure = 0;
  bool closed = true;  ///< a closed cavity: its volume is meaningful, its load conservative
  /// true: a follower load, normal to the deformed surface and proportional to its current area
  /// (P dV/dx at x, with the load stiffness -P d2V/dx2). false: a dead load, fixed at the rest
  /// geometry (P dV/dx at the rest positions X, no load stiffness, potential P (dV/dx at X) . x):
  /// what a linear (small-displacement) analysis assumes.
  bool follower = true;
  CavityControl control = CavityControl::Pressure;  ///< Volume and Gas ignore `pressure` (it must be 0)
  /// Volume: the volume growth V - V0 at load factor 1 (units of length^3; may be negative).
  Real volume_growth = 0;
  /// Gas: N = P_abs V at load factor 1 (energy, J = Pa m^3): the amount of gas as its absolute
  /// pressure times its volume at that pressure, e.g. ambient_pressure * (the volume of air it
  /// takes at ambient pressure). > 0.
  Real gas_amount = 0;
  /// Gas: the ambient (atmospheric) pressure P_atm, absolute, in the model's pressure units (the
  /// default is 101325 Pa: SI units). >= 0.
  Real ambient_pressure = 101325;
};

/// The positions a pressure load's forces are evaluated at: x for a follower load, the mesh's
/// rest positions for a dead one.
const std::vector<Real>& pressure_positions(const PressureLoad& load, const Mesh& mesh, const std::vector<Real>& x);

/// The work potential of the pressure loads at x (pressure * the load's factor `lambda`): P V(x)
/// for a follower load on a closed surface, P (dV/dx at X) . x for a dead load.
Real pressure_work(const PressureLoad& load, Real P, const Mesh& mesh, const std::vector<Real>& x);

/// Enclosed volume of a (closed, outward-wound) surface at positions x (divergence theorem,
/// sum p1.(p2 x p3)/6 over its triangles; quads by both diagonal splits, the exact volume under
/// the bilinear face, fem/pressure_load.hpp). dim must be 3.
Real surface_volume(const PressureLoad& load, const Mesh& mesh, const std::vector<Real>& x);

/// Adds the nodal forces of pressure P on the load's surface at positions x to f (num_dofs);
/// a dead load (follower = false) takes them at the rest positions whatever x is.
void add_pressure_forces(const PressureLoad& load, Real P, const Mesh& mesh, const std::vector<Real>& x,
                         std::vector<Real>& f);

/// The actuator Jacobian column of the surface at x: dV/dx per DOF (num_dofs entries), i.e.
/// the pressure forces per unit pressure, J_i = sum_t n_t a_t / 3 (docs/method.md section 6; [7]).
std::vector<Real> pressure_jacobian(const PressureLoad& load, const Mesh& mesh, const std::vector<Real>& x);

/// Adds scale * (symmetric part of d f_p / dx) of pressure P to the free-DOF stiffness values
/// K_values (in assembler.pattern()). Newton passes scale = -1: the tangent of the residual
/// f_int + f_p is -(K - d f_p/dx). The per-triangle matrices (pressure_load.hpp) are symmetrised
/// before assembly; over a closed cavity their sum is already symmetric (= P d2V/dx2), so this is
/// exact there and the symmetric part of the load stiffness for an open surface. Couplings that
/// are not in the elastic pattern (vertices embedded in different cells) are dropped; returns how
/// many non-zero contributions were dropped. A dead load has no load stiffness: adds nothing.
long add_pressure_stiffness(const PressureLoad& load, Real P, const Assembler& assembler, const std::vector<Real>& x,
                            Real scale, std::vector<Real>& K_values);

/// The same into any free-DOF system: `pattern` over the rows free_dof_index gives each DOF of
/// `mesh`'s nodes (a node network's NetworkStatics, network_statics.hpp).
long add_pressure_stiffness(const PressureLoad& load, Real P, const Mesh& mesh, const CsrPattern& pattern,
                            const std::vector<int>& free_dof_index, const std::vector<Real>& x, Real scale,
                            std::vector<Real>& K_values);

}  // namespace softik
