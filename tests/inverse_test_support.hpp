// The coarse pneumatic finger shared by the inverse-problem tests (test_inverse.cpp,
// test_inverse_cable.cpp, test_inverse_contact.cpp, test_dynamics_control.cpp): its actuator, tip
// effector and forward inflation, and the finger with a wall across the tip's path.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "softik/actuator_generator.hpp"
#include "softik/contact.hpp"
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

/// The finger bends in z under pressure; a wall (plane) across the tip's path halfway to where
/// 10 kPa takes it.
struct FingerAndWall : Finger {
  std::vector<Real> x0 = mesh.rest_positions();
  std::array<Real, 3> tip0 = tip().position(x0);
  std::array<Real, 3> tip10 = tip().position(inflate(1e4));
  Real side = tip10[2] > tip0[2] ? 1.0 : -1.0;  // the direction the tip moves in z
  Obstacle wall(Real mu) const {
    Obstacle o;
    o.name = "wall";
    o.shape = ObstacleShape::Plane;
    o.center = Vec3r(0, 0, tip0[2] + 0.5 * (tip10[2] - tip0[2]));
    o.normal = Vec3r(0, 0, -side);
    o.friction = mu;
    return o;
  }
  /// The wall, and as contact candidates the nodes of the last 20 mm (where the finger bends
  /// toward the wall; every boundary node would give ~150 contacts and slow tests).
  ContactOptions contact(Real mu) const {
    ContactOptions c;
    c.obstacles.push_back(wall(mu));
    for (int n = 0; n < mesh.num_nodes(); ++n)
      if (mesh.X[3 * static_cast<size_t>(n)] >= 0.08 - 1e-12) c.nodes.push_back(n);
    return c;
  }
};

/// lambda_n >= 0, and a pressed contact (lambda_n > 0) sits on the wall: complementarity at the
/// state x; the friction forces within the cone mu_bound. contacts/forces: a solver's last step
/// (3 forces per contact: normal, t1, t2).
inline void expect_contact_conditions(const std::vector<ContactPoint>& contacts, const std::vector<Real>& f,
                                      const std::vector<Real>& x, const Obstacle& wall, Real mu_bound,
                                      const std::string& where) {
  Real fmax = 0;
  for (size_t i = 0; i < contacts.size(); ++i) fmax = std::max(fmax, f[3 * i]);
  for (size_t i = 0; i < contacts.size(); ++i) {
    const int n = contacts[i].node;
    const Vec3r p(x[3 * static_cast<size_t>(n)], x[3 * static_cast<size_t>(n) + 1], x[3 * static_cast<size_t>(n) + 2]);
    const Real gap = distance_to_obstacle(wall, 0, p).distance;
    EXPECT_GE(f[3 * i], 0) << where << ": contact " << i;
    EXPECT_GE(gap, -1e-6 * kSize) << where << ": node " << n << " penetrates";
    if (f[3 * i] > 1e-6 * fmax) {
      EXPECT_LE(std::abs(gap), 1e-6 * kSize) << where << ": a pressed node is off the wall";
    }
    EXPECT_LE(std::hypot(f[3 * i + 1], f[3 * i + 2]), mu_bound * f[3 * i] + 1e-9 * fmax)
        << where << ": outside the cone";
  }
}

}  // namespace inverse_test
}  // namespace softik
