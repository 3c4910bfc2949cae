// One implicit dynamic step (backward Euler, Newton) of the pneumatic finger (make_finger, Tet4,
// neo-Hookean silicone, base fixed, gravity, its cavity at 20 kPa), without contact and
// lying on a table with friction (a plane under its bottom face: the finger sags onto it) and
// on a frictionless one (whose pairs need only their normal rows in W), vs mesh size. Counters are per step, in milliseconds, averaged over the timed steps: the whole
// step, and of it detection, the compliance W = H A^-1 H^T and the contact solve (PGS); also the
// contacts detected and active, Newton iterations and factorisations per step.
//
//   ./build/bench/bench_dynamics_step --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <memory>

#include "softik/actuator_generator.hpp"
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
  double total = 0, detection = 0, compliance = 0, solve = 0, contacts = 0, active = 0, iterations = 0, factorizations = 0;
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

}  // namespace

BENCHMARK_MAIN();
