// Real-time inverse step of the pneumatic finger (make_finger, Tet4, corotational linear
// silicone with the consistent tangent (so that the converged solve is Newton's method), base
// fixed, one cavity actuator, a tip position effector) vs mesh size, split by
// phase: assembly (f, K, constraint rows), factorisation, solves (dx_free and K^-1 J^T),
// constraint-space QP, update. Also the converged solve: steps and total time.
// Counters are per step, in milliseconds, averaged over the timed steps.
//
//   ./build/bench/bench_inverse_step --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "bench_wall.hpp"
#include "inverse_phases.hpp"
#include "softik/actuator_generator.hpp"
#include "softik/inverse.hpp"

namespace {

using softik::Real;

struct Finger {
  softik::Mesh mesh;
  std::unique_ptr<softik::Assembler> assembler;
  Real length = 0.1;
};

/// A finger's grid cell (m) and length (m).
struct FingerSize {
  Real cell, length;
};

/// The finger with grid cells of size.cell metres (Tet4: six tets per grid cell), size.length long.
const Finger& finger(const FingerSize& size) {
  static std::map<std::pair<Real, Real>, std::unique_ptr<Finger>> cache;
  auto& slot = cache[{size.cell, size.length}];
  if (!slot) {
    slot = std::make_unique<Finger>();
    softik::FingerSpec spec;
    spec.cell_size = size.cell;
    spec.length = size.length;
    slot->length = size.length;
    slot->mesh = softik::make_finger(spec);
    softik::AssemblyOptions options;
    options.corotational_tangent = softik::fem::CorotationalTangent::Consistent;
    slot->assembler = std::make_unique<softik::Assembler>(
        slot->mesh, std::vector<softik::Material>{softik::fem::LinearElastic::from_young_poisson(2e5, 0.45)},
        softik::fix_nodes(slot->mesh, slot->mesh.node_groups.at("xmin")), options);
  }
  return *slot;
}

std::unique_ptr<softik::InverseSolver> make_inverse(const Finger& f, softik::LinearSolver& solver) {
  auto inverse = std::make_unique<softik::InverseSolver>(*f.assembler, solver);
  softik::SurfacePressureActuatorSpec a;
  a.name = "cavity";
  a.cavity.name = "cavity";
  a.cavity.surface = f.mesh.surface_groups.at("cavity");
  a.pressure = {0, 50e3};
  inverse->add(softik::make_surface_pressure_actuator(f.mesh, a));
  softik::PositionEffectorSpec e;
  e.name = "tip";
  e.point = softik::AttachedPoint::at(f.mesh, {f.length, 0.01, 0.02}, 1e-9);
  e.goal = {f.length - 0.002, 0.01, 0.03};  // 10 mm up: within the 50 kPa range (least squares over x, z)
  e.axes = {true, false, true};
  inverse->add(softik::make_position_effector(f.mesh, e));
  return inverse;
}

// Index 0-4: the 10 cm finger refined (3.18k to 444k tets); 5: 3.5 mm cells, 9.48k tets (the
// grid of the 10 cm finger gives nothing between 3.18k and 9.48k); 6: the 4 mm grid on a 16 cm
// finger, 5.09k tets: the 5k-tet model of the contact benchmark (BM_InverseStepWithContacts).
const FingerSize kSizes[] = {{0.004, 0.1}, {0.003, 0.1},  {0.002, 0.1}, {0.0015, 0.1},
                             {0.001, 0.1}, {0.0035, 0.1}, {0.004, 0.16}};

void BM_InverseStep(benchmark::State& state) {
  const Finger& f = finger(kSizes[state.range(0)]);
  auto solver = softik::make_linear_solver();
  auto inverse = make_inverse(f, *solver);
  std::vector<Real> x = f.mesh.rest_positions();
  inverse->step(x);  // analysis and first factorisation outside the timing
  InversePhaseTimes phases;
  for (auto _ : state) phases.add(inverse->step(x));
  state.counters["tets"] = f.mesh.num_cells();
  state.counters["free_dofs"] = f.assembler->num_free_dofs();
  phases.set_counters(state, static_cast<Real>(state.iterations()));
}

/// Trajectory following: the tip goal moves on a small circle in the bending plane (0.5 mm
/// radius, 100 steps per turn) around the tip position reached after 60 steps toward
/// (98.5, 10, 25.5) mm; one real-time step per goal sample, with the factorisation refactored
/// every step (range(1) = 0) or reused for up to range(1) steps
/// (InverseOptions::reuse_factorization). Counters: time per phase, the fraction of steps that
/// refactored, and the mean predicted tip error (one pressure cannot follow a circle exactly:
/// this is the least-squares distance, the same for both settings when they track alike).
void BM_InverseTracking(benchmark::State& state) {
  const Finger& f = finger(kSizes[state.range(0)]);
  auto solver = softik::make_linear_solver();
  auto inverse = make_inverse(f, *solver);
  inverse->options().reuse_factorization = static_cast<int>(state.range(1));
  inverse->options().actuator_stiffness = true;
  auto& tip = static_cast<softik::PositionEffector&>(*inverse->constraints()[1]);
  const std::array<Real, 3> centre{f.length - 0.0015, 0.01, 0.0255};
  std::vector<Real> x = f.mesh.rest_positions();
  tip.set_goal(centre);
  tip.set_max_shift(1e-3);                        // approach the start from rest by at most 1 mm per step
  for (int k = 0; k < 60; ++k) inverse->step(x);  // settle, outside the timing
  tip.set_max_shift(0);
  const std::array<Real, 3> p0 = tip.position(x);
  const std::array<Real, 3> centre_reached{p0[0], p0[1], p0[2]};
  InversePhaseTimes phases;
  Real error = 0;
  int k = 0, refactored = 0;
  for (auto _ : state) {
    const Real a = 2 * 3.141592653589793 * k++ / 100;
    tip.set_goal({centre_reached[0] + 5e-4 * std::cos(a), centre_reached[1], centre_reached[2] + 5e-4 * std::sin(a)});
    const softik::InverseStepReport r = inverse->step(x);
    phases.add(r);
    refactored += r.refactored ? 1 : 0;
    error += r.effector_error;
  }
  const Real n = static_cast<Real>(state.iterations());
  state.counters["tets"] = f.mesh.num_cells();
  phases.set_counters(state, n);
  state.counters["refactored"] = refactored / n;
  state.counters["tip_error_um"] = 1e6 * error / n;
  state.counters["factor_nnz"] = static_cast<double>(solver->info().factor_nnz);
}

/// The real-time step with contacts: a wall 0.5 mm above the finger's top face, over
/// the tip, and the n top-face nodes nearest the tip as contact candidates (n = range(1); 0: no
/// contact set at all). The tip effector pulls 10 mm up, so the tip presses on the wall; the
/// contact forces are unknowns of the step's QP (docs/inverse_contact.md). 10 warm-up steps
/// (contacts pressed) outside the timing. Counters: time per phase, contacts in the step and
/// pressed, contact state changes (pivots) per step.
void BM_InverseStepWithContacts(benchmark::State& state) {
  const Finger& f = finger(kSizes[state.range(0)]);
  const int n = static_cast<int>(state.range(1));
  auto solver = softik::make_linear_solver();
  auto inverse = make_inverse(f, *solver);
  if (n > 0) {
    softik::ContactOptions c;
    if (!wall_over_tip(f.mesh, n, c)) {
      state.SkipWithError("the finger's top face has fewer nodes than contacts asked for");
      return;
    }
    inverse->set_contact(c);
  }
  std::vector<Real> x = f.mesh.rest_positions();
  for (int k = 0; k < 10; ++k) inverse->step(x);
  InversePhaseTimes phases;
  Real contacts = 0, pressed = 0, pivots = 0;
  for (auto _ : state) {
    const softik::InverseStepReport r = inverse->step(x);
    phases.add(r);
    contacts += r.contacts, pressed += r.pressed_contacts, pivots += r.contact_pivots;
  }
  const Real it = static_cast<Real>(state.iterations());
  state.counters["tets"] = f.mesh.num_cells();
  state.counters["contacts"] = contacts / it;
  state.counters["pressed"] = pressed / it;
  state.counters["pivots"] = pivots / it;
  phases.set_counters(state, it);
}

void BM_InverseConvergedSolve(benchmark::State& state) {
  const Finger& f = finger(kSizes[state.range(0)]);
  int iterations = 0;
  for (auto _ : state) {
    auto solver = softik::make_linear_solver();
    auto inverse = make_inverse(f, *solver);
    std::vector<Real> x = f.mesh.rest_positions();
    iterations = inverse->solve(x).iterations;
  }
  state.counters["tets"] = f.mesh.num_cells();
  state.counters["steps"] = iterations;
}

BENCHMARK(BM_InverseStep)->DenseRange(0, 4)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_InverseTracking)
    ->ArgsProduct({{0, 6, 5, 1, 2, 3}, {0, 10, 30, 100, 300, 1000}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(1.0);
BENCHMARK(BM_InverseStepWithContacts)
    ->ArgNames({"size", "contacts"})
    ->ArgsProduct({{6, 5}, {0, 10, 100}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(1.0);
BENCHMARK(BM_InverseConvergedSolve)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
