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
#include <vector>

#include "softik/actuator_generator.hpp"
#include "softik/constraints.hpp"
#include "softik/dynamics.hpp"

namespace {

using softik::Real;

/// The finger of both benchmarks: grid cells of range(0) x 0.1 mm, neo-Hookean silicone
/// (E = 200 kPa, nu = 0.45), hyperelastic, its base (xmin) fixed.
struct Finger {
  softik::FingerSpec spec;
  softik::Mesh mesh;
  std::unique_ptr<softik::Assembler> assembler;

  explicit Finger(const benchmark::State& state) {
    spec.cell_size = static_cast<Real>(state.range(0)) * 1e-4;
    mesh = softik::make_finger(spec);
    softik::AssemblyOptions ao;
    ao.formulation = softik::Formulation::Hyperelastic;
    assembler = std::make_unique<softik::Assembler>(
        mesh, std::vector<softik::Material>{softik::fem::NeoHookean::from_young_poisson(2e5, 0.45)},
        softik::fix_nodes(mesh, mesh.node_groups.at("xmin")), ao);
  }
};

/// Sums over the timed steps of what their reports give (seconds, contacts, iterations), and the
/// control's effector error after the last one.
struct StepSums {
  double total = 0, detection = 0, compliance = 0, solve = 0, contacts = 0, active = 0, iterations = 0,
         factorizations = 0, effector_error = 0;
  int steps = 0;

  void add(const softik::DynamicStepReport& r) {
    total += r.seconds_total;
    detection += r.seconds_detection;
    compliance += r.seconds_compliance;
    solve += r.seconds_contact_solve;
    contacts += r.contacts;
    active += r.active_contacts;
    iterations += r.iterations;
    factorizations += r.factorizations;
    effector_error = r.control.effector_error;
    ++steps;
  }
};

/// Times one step of `dyn` per iteration of the benchmark's loop and reports the counters both
/// benchmarks share: the model's size, the mean step time (ms), the compliance W's time (ms) and
/// the Newton iterations per step, and the steps per second.
StepSums time_steps(benchmark::State& state, const Finger& f, softik::DynamicSolver& dyn) {
  StepSums sums;
  for (auto _ : state) sums.add(dyn.step());
  const int steps = sums.steps;
  state.counters["cells"] = f.mesh.num_cells();
  state.counters["free_dofs"] = f.assembler->num_free_dofs();
  state.counters["step_ms"] = 1e3 * sums.total / steps;
  state.counters["W_ms"] = 1e3 * sums.compliance / steps;
  state.counters["newton"] = sums.iterations / steps;
  state.counters["steps_per_s"] = steps / sums.total;
  return sums;
}

void BM_DynamicStep(benchmark::State& state) {
  const bool contact = state.range(1) != 0;  // 0: no table, 1: mu = 0.5, 2: frictionless
  const Finger f(state);
  const softik::Mesh& mesh = f.mesh;
  const softik::Assembler& assembler = *f.assembler;
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
  const StepSums sums = time_steps(state, f, dyn);
  const int steps = sums.steps;
  state.counters["detect_ms"] = 1e3 * sums.detection / steps;
  state.counters["pgs_ms"] = 1e3 * sums.solve / steps;
  state.counters["contacts"] = sums.contacts / steps;
  state.counters["active"] = sums.active / steps;
  state.counters["factor"] = sums.factorizations / steps;
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

// One control step (DynamicSolver::add_control): the same finger without gravity, its
// cavity pressure solved at every step (bounds [0, 30 kPa]) so that the tip reaches a goal 2 mm
// above its rest position (which the finger reaches at a few kPa). Timed after 10 warm-up steps,
// while the tip still moves: the step, its compliance of the constraint rows (cavity + 3 tip
// rows: 4 right-hand sides) and the constraint-space QP.
void BM_DynamicControlStep(benchmark::State& state) {
  const Finger f(state);
  const softik::FingerSpec& spec = f.spec;
  const softik::Mesh& mesh = f.mesh;
  auto solver = softik::make_linear_solver();
  softik::DynamicsOptions options;
  options.density = 1070;
  options.dt = 1e-3;
  options.rayleigh_mass = 60;
  softik::DynamicSolver dyn(*f.assembler, *solver, {}, options);
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
  const StepSums sums = time_steps(state, f, dyn);
  state.counters["qp_ms"] = 1e3 * sums.solve / sums.steps;
  state.counters["pressure_Pa"] = dyn.actuation()[0];
  state.counters["tip_error_m"] = sums.effector_error;
}

BENCHMARK(BM_DynamicControlStep)->Arg(34)->Arg(28)->Unit(benchmark::kMillisecond)->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
