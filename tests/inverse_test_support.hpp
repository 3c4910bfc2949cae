// The coarse pneumatic finger shared by the inverse-problem tests (test_inverse.cpp,
// test_inverse_cable.cpp): its actuator, tip effector and forward inflation.
#pragma once

#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include "softik/actuator_generator.hpp"
#include "softik/inverse.hpp"
#include "softik/static_solver.hpp"

namespace softik {
namespace inverse_test {

constexpr Real kSize = 0.1;  // the finger's length: "model size" of the tolerances

/// A coarse Hex8 pneumatic finger (about 500 cells), neo-Hookean, base fixed.
struct Finger {
  Mesh mesh;
  Assembler assembler;
  PressureLoad cavity;
  static Mesh make() {
    FingerSpec spec;
    spec.cell_size = 0.004;
    spec.cell_type = CellType::Hex8;
    return make_finger(spec);
  }
  Finger()
      : mesh(make()),
        assembler(mesh, {fem::NeoHookean::from_young_poisson(2e5, 0.45)}, fix_nodes(mesh, mesh.node_groups.at("xmin")),
                  AssemblyOptions{Formulation::Hyperelastic}) {
    cavity.name = "cavity";
    cavity.surface = mesh.surface_groups.at("cavity");
  }
  AttachedPoint tip() const { return AttachedPoint::at(mesh, {0.1, 0.01, 0.02}, 1e-9); }

  /// Forward equilibrium under pressure P.
  std::vector<Real> inflate(Real P) const {
    Loads loads;
    PressureLoad p = cavity;
    p.pressure = P;
    loads.pressures.push_back(p);
    auto solver = make_linear_solver();
    std::vector<Real> x = mesh.rest_positions();
    NewtonOptions o;
    o.load_steps = 4;
    o.residual_tolerance = 1e-11;
    solve_static(assembler, *solver, loads, x, o);
    return x;
  }

  std::shared_ptr<Constraint> actuator(Interval pressure, Interval growth = {}, Real rate = kInf) const {
    SurfacePressureActuatorSpec s;
    s.name = "cavity";
    s.cavity = cavity;
    s.pressure = pressure;
    s.volume_growth = growth;
    s.max_volume_growth_variation = rate;
    return make_surface_pressure_actuator(mesh, s);
  }

  std::shared_ptr<PositionEffector> effector(const std::array<Real, 3>& goal) const {
    PositionEffectorSpec s;
    s.name = "tip";
    s.point = tip();
    s.goal = goal;
    s.axes = {true, false, true};  // the bending plane
    return make_position_effector(mesh, s);
  }
};

inline Real distance(const std::array<Real, 3>& a, const std::array<Real, 3>& b, const std::array<bool, 3>& axes) {
  Real d = 0;
  for (size_t i = 0; i < 3; ++i)
    if (axes[i]) d += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(d);
}

}  // namespace inverse_test
}  // namespace softik
