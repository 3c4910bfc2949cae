// Real-time inverse step of the pneumatic finger (make_finger, Tet4, corotational linear
// silicone with the consistent tangent (so that the converged solve is Newton's method), base
// fixed, one cavity actuator, a tip position effector) vs mesh size, split by
// phase: assembly (f, K, constraint rows), factorisation, solves (dx_free and K^-1 J^T),
// constraint-space QP, update. Also the converged solve: steps and total time.
// Counters are per step, in milliseconds, averaged over the timed steps.
//
//   ./build/bench/bench_inverse_step --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "softik/actuator_generator.hpp"
#include "softik/inverse.hpp"

namespace {

using softik::Real;

struct Finger {
  softik::Mesh mesh;
  std::unique_ptr<softik::Assembler> assembler;
};

/// The finger with grid cells of `cell` metres (Tet4: six tets per grid cell).
const Finger& finger(Real cell) {
  static std::map<Real, std::unique_ptr<Finger>> cache;
  auto& slot = cache[cell];
  if (!slot) {
    slot = std::make_unique<Finger>();
    softik::FingerSpec spec;
    spec.cell_size = cell;
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
  e.point = softik::AttachedPoint::at(f.mesh, {0.1, 0.01, 0.02}, 1e-9);
  e.goal = {0.095, 0.01, 0.045};
  e.axes = {true, false, true};
  inverse->add(softik::make_position_effector(f.mesh, e));
  return inverse;
}

const Real kCells[] = {0.004, 0.003, 0.002, 0.0015, 0.001};

void BM_InverseStep(benchmark::State& state) {
  const Finger& f = finger(kCells[state.range(0)]);
  auto solver = softik::make_linear_solver();
  auto inverse = make_inverse(f, *solver);
  std::vector<Real> x = f.mesh.rest_positions();
  inverse->step(x);  // analysis and first factorisation outside the timing
  Real t[5] = {0, 0, 0, 0, 0};
  for (auto _ : state) {
    const softik::InverseStepReport r = inverse->step(x);
    t[0] += r.t_assembly;
    t[1] += r.t_factorization;
    t[2] += r.t_solves;
    t[3] += r.t_constraint_solve;
    t[4] += r.t_update;
  }
  const Real n = static_cast<Real>(state.iterations()) / 1000.0;  // -> ms per step
  state.counters["tets"] = f.mesh.num_cells();
  state.counters["free_dofs"] = f.assembler->num_free_dofs();
  state.counters["assembly_ms"] = t[0] / n;
  state.counters["factor_ms"] = t[1] / n;
  state.counters["solves_ms"] = t[2] / n;
  state.counters["qp_ms"] = t[3] / n;
  state.counters["update_ms"] = t[4] / n;
}

void BM_InverseConvergedSolve(benchmark::State& state) {
  const Finger& f = finger(kCells[state.range(0)]);
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
BENCHMARK(BM_InverseConvergedSolve)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
