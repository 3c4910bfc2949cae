// The real-time inverse loop through softik's C++ API: a generated pneumatic finger (Tet4,
// corotational silicone, base clamped) with one cavity actuator (0..50 kPa) and a tip effector
// whose goal is 5 mm above its rest height. One InverseSolver::step per control tick, as a
// robot controller would run it; each step linearises at the current state, solves the
// constraint-space QP for the pressure and moves the finger. One pressure controls one
// coordinate (the tip height), so the goal is reachable and the loop must bring the tip to it.
// Exits 1 when the tip does not get there, 2 on a softik::Error.
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include <softik/actuator_generator.hpp>
#include <softik/error.hpp>
#include <softik/inverse.hpp>

int main() {
  using softik::Real;
  try {
    softik::FingerSpec spec;  // 100 x 20 x 20 mm, cavity inside, base at x = 0
    spec.cell_size = 0.004;
    const softik::Mesh mesh = softik::make_finger(spec);
    const softik::Assembler assembler(mesh, {softik::fem::LinearElastic::from_young_poisson(2e5, 0.45)},
                                      softik::fix_nodes(mesh, mesh.node_groups.at("xmin")));
    auto solver = softik::make_linear_solver();
    softik::InverseSolver inverse(assembler, *solver);

    softik::SurfacePressureActuatorSpec cavity;
    cavity.name = "cavity";
    cavity.cavity.name = "cavity";
    cavity.cavity.surface = mesh.surface_groups.at("cavity");
    cavity.pressure = {0, 50e3};  // Pa: the cavity can only be inflated, up to 50 kPa
    inverse.add(softik::make_surface_pressure_actuator(mesh, cavity));

    const std::array<Real, 3> rest_tip{0.1, 0.01, 0.02};  // top edge of the tip face
    const Real rise = 0.005;
    softik::PositionEffectorSpec tip;
    tip.name = "tip";
    tip.point = softik::AttachedPoint::at(mesh, rest_tip, 1e-9);
    tip.goal = {rest_tip[0], rest_tip[1], rest_tip[2] + rise};
    tip.axes = {false, false, true};  // the height only
    auto effector = softik::make_position_effector(mesh, tip);
    inverse.add(effector);

    std::vector<Real> x = mesh.rest_positions();
    const Real tolerance = 0.01 * rise;  // 50 um
    Real error = rise;
    int steps = 0;
    for (; steps < 30 && error > tolerance; ++steps) {
      const softik::InverseStepReport report = inverse.step(x);
      error = std::abs(effector->position(x)[2] - tip.goal[2]);
      std::printf("inverse_finger: step %2d pressure %8.1f Pa, tip height error %.3e m (%s)\n", steps + 1,
                  report.lambda.at(0), error, softik::qp_status_name(report.status));
    }
    const Real pressure = inverse.lambda().at(0);
    if (error > tolerance || !(pressure > 0 && pressure <= 50e3)) {
      std::fprintf(stderr,
                   "inverse_finger: FAILED: after %d steps the tip is %.3e m from its goal (tolerance %.1e m), "
                   "pressure %.1f Pa\n",
                   steps, error, tolerance, pressure);
      return 1;
    }
    std::printf("inverse_finger: goal reached in %d steps with %.1f Pa\n", steps, pressure);
    return 0;
  } catch (const softik::Error& e) {
    std::fprintf(stderr, "inverse_finger: softik error (%s): %s\n", softik::error_kind_name(e.kind()), e.what());
    return 2;
  }
}
