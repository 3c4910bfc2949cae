// One implicit dynamic step (backward Euler, Newton) of the pneumatic finger (make_finger, Tet4,
// neo-Hookean silicone, base fixed, gravity, its cavity at 20 kPa), without contact and
// lying on a table with friction (a plane under its bottom face: the finger sags onto it) and
// on a frictionless one (whose pairs need only their normal rows in W), vs mesh size. Counters are per step, in
// milliseconds, averaged over the timed steps: the whole step, and of it detection, the compliance W = H A^-1 H^T and
// the contact solve (PGS); also the contacts detected and active, Newton iterations and factorisations per step.
//
//   ./build/bench/bench_dynamics_step --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <memory>

#include "softik/actuator_generator.hpp"
#include "softik/constraints.hpp"
#include "softik/dynamics.hpp"

namespace {

using softik::Real;

void BM_DynamicStep(benchmark::State& state) {
  softik::FingerSpec spec;
  spec.cell_size = static_cast<Real>(state.range(0)) * 1e-4;
  const bool contact = state.range(1) != 0;  // 0: no table, 1: mu = 0.5, 2: frictionless
  const softik::Mesh mesh = softik::make_finger(spec);
  softik::AssemblyOptions ao;
  ao.formulation = softik::Formulation::Hyperelastic;
  const softik::Assembler assembler(mesh, {softik::fem::NeoHookean::from_young_poisson(2e5, 0.45)},
                                    softik::fix_nodes(mesh, mesh.node_groups.at("xmin")), ao);
  auto solver = softik::make_linear_solver();
  softik::DynamicLoads loads;
  loads.nodal = {{softik::gravity_load(assembler, 1070, {0, 0, -9.81}), {}}};
  softik::PressureLoad p;
  p.name = "cavity";
  p.surface = mesh.surface_groups.at("cavity");
  p.pressure = 20e3;
  loads.pressures = {p};
  loads.pressure_factors = {{{0, 0.05}, {0, 1}}};
  softik::DynamicsOptions options;
  options.density = 1070;
  options.dt = 1e-3;
  options.rayleigh_mass = 5;
  if (contact) {
    softik::Obstacle table;
    table.name = "table";
    table.center = softik::Vec3r(0, 0, -1e-4);
    table.friction = state.range(1) == 1 ? 0.5 : 0.0;
    options.contact.obstacles = {table};
    options.contact.tolerance = 1e-10;
  }
  softik::DynamicSolver dyn(assembler, *solver, loads, options);
  for (int s = 0; s < 10; ++s) dyn.step();  // warm-up: the finger settles onto the table
  double total = 0, detection = 0, compliance = 0, solve = 0, contacts = 0, active = 0, iterations = 0,
         factorizations = 0;
  int steps = 0;
  for (auto _ : state) {
    const softik::DynamicStepReport r = dyn.step();
    total += r.seconds_total;
    detection += r.seconds_detection;
    compliance += r.seconds_compliance;
    solve += r.seconds_contact_solve;
    contacts += r.contacts;
    active += r.active_contacts;
    iterations += r.iterations;
    factorizations += r.factorizations;
    ++steps;
  }
  state.counters["cells"] = mesh.num_cells();
  state.counters["free_dofs"] = assembler.num_free_dofs();
  state.counters["step_ms"] = 1e3 * total / steps;
  state.counters["detect_ms"] = 1e3 * detection / steps;
  state.counters["W_ms"] = 1e3 * compliance / steps;
  state.counters["pgs_ms"] = 1e3 * solve / steps;
  state.counters["contacts"] = contacts / steps;
  state.counters["active"] = active / steps;
  state.counters["newton"] = iterations / steps;
  state.counters["factor"] = factorizations / steps;
  state.counters["steps_per_s"] = steps / total;
}

// cell_size 3.4 mm and 2.8 mm, each without the table, with it, and with a frictionless one.
BENCHMARK(BM_DynamicStep)
    ->Args({34, 0})
    ->Args({34, 1})
    ->Args({34, 2})
    ->Args({28, 0})
    ->Args({28, 1})
    ->Args({28, 2})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);

// One control step (DynamicSolver::add_control; issue 16): the same finger without gravity, its
// cavity pressure solved at every step (bounds [0, 30 kPa]) so that the tip reaches a goal 2 mm
// above its rest position (which the finger reaches at a few kPa). Timed after 10 warm-up steps,
// while the tip still moves: the step, its compliance of the constraint rows (cavity + 3 tip
// rows: 4 right-hand sides) and the constraint-space QP.
void BM_DynamicControlStep(benchmark::State& state) {
  softik::FingerSpec spec;
  spec.cell_size = static_cast<Real>(state.range(0)) * 1e-4;
  const softik::Mesh mesh = softik::make_finger(spec);
  softik::AssemblyOptions ao;
  ao.formulation = softik::Formulation::Hyperelastic;
  const softik::Assembler assembler(mesh, {softik::fem::NeoHookean::from_young_poisson(2e5, 0.45)},
                                    softik::fix_nodes(mesh, mesh.node_groups.at("xmin")), ao);
  auto solver = softik::make_linear_solver();
  softik::DynamicsOptions options;
  options.density = 1070;
  options.dt = 1e-3;
  options.rayleigh_mass = 60;
  softik::DynamicSolver dyn(assembler, *solver, {}, options);
  softik::SurfacePressureActuatorSpec cavity;
  cavity.name = "cavity";
  cavity.cavity.name = "cavity";
  cavity.cavity.surface = mesh.surface_groups.at("cavity");
  cavity.pressure = {0, 30e3};
  dyn.add_control(softik::make_surface_pressure_actuator(mesh, cavity));
  softik::PositionEffectorSpec tip;
  tip.name = "tip";
  tip.point = softik::AttachedPoint::at(mesh, {spec.length, spec.width / 2, spec.height / 2}, 1e-9);
  tip.goal = {spec.length, spec.width / 2, spec.height / 2 + 2e-3};
  tip.axes = {false, false, true};
  dyn.add_control(softik::make_position_effector(mesh, tip));
  for (int s = 0; s < 10; ++s) dyn.step();
  double total = 0, compliance = 0, qp = 0, iterations = 0, error = 0;
  int steps = 0;
  for (auto _ : state) {
    const softik::DynamicStepReport r = dyn.step();
    total += r.seconds_total;
    compliance += r.seconds_compliance;
    qp += r.seconds_contact_solve;
    iterations += r.iterations;
    error = r.control.effector_error;
    ++steps;
  }
  state.counters["cells"] = mesh.num_cells();
  state.counters["free_dofs"] = assembler.num_free_dofs();
  state.counters["step_ms"] = 1e3 * total / steps;
  state.counters["W_ms"] = 1e3 * compliance / steps;
  state.counters["qp_ms"] = 1e3 * qp / steps;
  state.counters["newton"] = iterations / steps;
  state.counters["pressure_Pa"] = dyn.actuation()[0];
  state.counters["tip_error_m"] = error;
  state.counters["steps_per_s"] = steps / total;
}

BENCHMARK(BM_DynamicControlStep)->Arg(34)->Arg(28)->Unit(benchmark::kMillisecond)->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
