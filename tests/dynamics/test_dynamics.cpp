// Implicit dynamics (issue 15) against mechanics: the first bending frequency of a cantilever
// against Euler-Bernoulli, energy conservation of the trapezoidal rule (Newmark 1/4, 1/2) on a
// linear model, monotone dissipation by backward Euler, a falling body's free flight, and the
// refusal of bad options.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "softik/dynamics.hpp"
#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/static_solver.hpp"
#include "tests/mesh_helpers.hpp"
#include "tests/math_constants.hpp"

namespace softik {
namespace {

struct Beam {
  Mesh mesh;
  std::unique_ptr<Assembler> assembler;
  std::unique_ptr<LinearSolver> solver;
};

/// A clamped (xmin) linear-elastic beam of length L and square section h, nu = 0.
Beam make_beam(Real L, Real h, std::array<int, 3> cells, Real E) {
  Beam b;
  BoxSpec spec;
  spec.size = {L, h, h};
  spec.cells = cells;
  b.mesh = make_box(3, CellType::Hex8, spec);
  AssemblyOptions options;
  options.formulation = Formulation::LinearSmallStrain;
  b.assembler =
      std::make_unique<Assembler>(b.mesh, std::vector<Material>{fem::LinearElastic::from_young_poisson(E, 0.0)},
                                  fix_nodes(b.mesh, b.mesh.node_groups.at("xmin")), options);
  b.solver = make_linear_solver();
  return b;
}

/// The static deflection under a z load spread over the free end's nodes (a shape close to the
/// first bending mode).
std::vector<Real> deflected(const Beam& b, Real load) {
  std::vector<Real> f(static_cast<size_t>(b.assembler->num_dofs()), 0.0);
  const std::vector<int>& tip = b.mesh.node_groups.at("xmax");
  for (int n : tip) f[3 * static_cast<size_t>(n) + 2] = load / static_cast<Real>(tip.size());
  std::vector<Real> x = b.mesh.rest_positions();
  solve_static(*b.assembler, *b.solver, f, x);
  return x;
}

TEST(Dynamics, CantileverVibratesAtTheFirstEulerBernoulliFrequency) {
  const Real L = 1.0, h = 0.05, E = 1e6, rho = 1000;
  Beam b = make_beam(L, h, {120, 3, 3}, E);
  const Real I = h * h * h * h / 12, A = h * h;
  const Real f1 = 1.87510407 * 1.87510407 / (2 * kPi) * std::sqrt(E * I / (rho * A * L * L * L * L));
  DynamicsOptions options;
  options.scheme = TimeScheme::Newmark;
  options.density = rho;
  options.dt = 1.0 / (f1 * 60);  // 60 steps per period: period elongation (omega dt)^2/12 = 0.09%
  const std::vector<Real> x0 = deflected(b, 1e-3);
  DynamicSolver dyn(*b.assembler, *b.solver, {}, options);
  dyn.set_state(x0, std::vector<Real>(x0.size(), 0.0));
  // Tip deflection (mean z over the end) and its upward zero crossings.
  const std::vector<int>& tip = b.mesh.node_groups.at("xmax");
  auto tip_w = [&](const std::vector<Real>& x) {
    Real w = 0;
    for (int n : tip) w += x[3 * static_cast<size_t>(n) + 2] - b.mesh.X[3 * static_cast<size_t>(n) + 2];
    return w / static_cast<Real>(tip.size());
  };
  std::vector<Real> crossings;
  Real previous = tip_w(x0), time = 0;
  while (crossings.size() < 4) {
    dyn.step();
    const Real w = tip_w(dyn.positions());
    if (previous < 0 && w >= 0) crossings.push_back(time + options.dt * (-previous) / (w - previous));
    previous = w;
    time = dyn.time();
    ASSERT_LT(time, 10 / f1) << "no vibration";
  }
  const Real period = (crossings.back() - crossings.front()) / 3;
  const Real f = 1 / period;
  std::printf("cantilever: f = %.5f Hz, Euler-Bernoulli %.5f Hz, error %.3f%%\n", f, f1, 100 * (f - f1) / f1);
  EXPECT_NEAR(f, f1, 0.02 * f1);
}

/// Total energy v^T M v / 2 + E(x) of a free vibration from an initial velocity field.
std::vector<Real> energy_history(TimeScheme scheme, int steps, Real dt) {
  Beam b = make_beam(1.0, 0.2, {8, 2, 2}, 1e5);
  DynamicsOptions options;
  options.scheme = scheme;
  options.density = 1000;
  options.dt = dt;
  DynamicSolver dyn(*b.assembler, *b.solver, {}, options);
  std::vector<Real> v(static_cast<size_t>(b.assembler->num_dofs()), 0.0);
  for (int n = 0; n < b.mesh.num_nodes(); ++n) {
    const Real X = b.mesh.X[3 * static_cast<size_t>(n)];
    v[3 * static_cast<size_t>(n) + 2] = 0.3 * X * X;         // bending
    v[3 * static_cast<size_t>(n) + 1] = -0.1 * X;            // sideways
    v[3 * static_cast<size_t>(n)] = 0.05 * std::sin(3 * X);  // axial: higher modes too
  }
  dyn.set_state(b.mesh.rest_positions(), v);
  std::vector<Real> energy{dyn.kinetic_energy() + dyn.elastic_energy()};
  for (int s = 0; s < steps; ++s) {
    const DynamicStepReport r = dyn.step();
    energy.push_back(r.kinetic_energy + r.elastic_energy);
  }
  return energy;
}

TEST(Dynamics, TrapezoidalRuleConservesTheEnergyOfALinearModel) {
  const std::vector<Real> e = energy_history(TimeScheme::Newmark, 1000, 2e-3);
  Real worst = 0;
  for (Real value : e) worst = std::max(worst, std::abs(value - e.front()) / e.front());
  std::printf("Newmark 1/4 1/2: largest relative energy change over 1000 steps %.3e\n", worst);
  EXPECT_LE(worst, 1e-6);
  EXPECT_GT(e.front(), 0);
}

TEST(Dynamics, BackwardEulerDissipatesMonotonically) {
  const std::vector<Real> e = energy_history(TimeScheme::BackwardEuler, 200, 5e-2);
  for (size_t k = 1; k < e.size(); ++k) EXPECT_LE(e[k], e[k - 1] * (1 + 1e-12)) << "step " << k;
  EXPECT_LT(e.back(), 0.5 * e.front());  // and it does dissipate
}

TEST(Dynamics, AFreeBodyFallsWithGravity) {
  // Nothing fixed: a free block under gravity g accelerates at g for every scheme; no strain.
  const Mesh mesh = box_mesh(CellType::Tet4, {2, 2, 2}, {0.1, 0.1, 0.1});
  AssemblyOptions ao;
  ao.formulation = Formulation::Corotational;
  const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(1e5, 0.4)}, {}, ao);
  for (TimeScheme scheme : {TimeScheme::BackwardEuler, TimeScheme::Newmark}) {
    auto solver = make_linear_solver();
    DynamicLoads loads;
    loads.nodal = {{gravity_load(assembler, 1000, {0, 0, -9.81}), {}}};
    DynamicsOptions options;
    options.scheme = scheme;
    options.dt = 0.01;
    DynamicSolver dyn(assembler, *solver, loads, options);
    for (int s = 0; s < 20; ++s) dyn.step();
    for (int n = 0; n < mesh.num_nodes(); ++n) {
      EXPECT_NEAR(dyn.velocities()[3 * static_cast<size_t>(n) + 2], -9.81 * 0.2, 1e-9) << time_scheme_name(scheme);
      // Newmark integrates a constant acceleration exactly: z = z0 - g t^2 / 2.
      if (scheme == TimeScheme::Newmark) {
        EXPECT_NEAR(dyn.positions()[3 * static_cast<size_t>(n) + 2] - mesh.X[3 * static_cast<size_t>(n) + 2],
                    -0.5 * 9.81 * 0.04, 1e-9);
      }
    }
    EXPECT_NEAR(dyn.elastic_energy(), 0.0, 1e-12);
  }
}

TEST(Dynamics, AFailingStepIsCutAndOneThatCannotBeCutLeavesTheStateAlone) {
  // A soft neo-Hookean beam dropped under gravity with a long step and few Newton iterations
  // allowed: the whole step cannot converge, its halves can.
  const Mesh mesh = box_mesh(CellType::Hex8, {5, 1, 1}, {0.1, 0.02, 0.02});
  AssemblyOptions ao;
  ao.formulation = Formulation::Hyperelastic;
  const Assembler assembler(mesh, {fem::NeoHookean::from_young_poisson(2e4, 0.3)},
                            fix_nodes(mesh, mesh.node_groups.at("xmin")), ao);
  DynamicLoads loads;
  loads.nodal = {{gravity_load(assembler, 1000, {0, 0, -9.81}), {}}};
  DynamicsOptions options;
  options.dt = 0.2;
  options.max_iterations = 4;
  auto solver = make_linear_solver();
  {
    DynamicSolver dyn(assembler, *solver, loads, options);
    const DynamicStepReport r = dyn.step();
    std::printf("a step of %.2f s taken as %d sub-steps, %d Newton iterations\n", options.dt, r.substeps, r.iterations);
    EXPECT_GT(r.substeps, 1);
    EXPECT_NEAR(dyn.time(), options.dt, 1e-15);
    EXPECT_NEAR(r.time, options.dt, 1e-15);
    EXPECT_LT(dyn.positions()[3 * static_cast<size_t>(mesh.node_groups.at("xmax").front()) + 2],
              mesh.X[3 * static_cast<size_t>(mesh.node_groups.at("xmax").front()) + 2] - 1e-3);  // it fell
  }
  options.max_step_cuts = 0;
  DynamicSolver dyn(assembler, *solver, loads, options);
  const std::vector<Real> x0 = dyn.positions(), v0 = dyn.velocities();
  try {
    dyn.step();
    ADD_FAILURE() << "a step that cannot converge and may not be cut was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Numerical);
    EXPECT_NE(std::string(e.what()).find("reduce dt"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dyn.positions(), x0);
  EXPECT_EQ(dyn.velocities(), v0);
  EXPECT_EQ(dyn.time(), 0.0);
}

TEST(Dynamics, RefusesBadOptionsWithTheirNames) {
  Beam b = make_beam(1.0, 0.2, {4, 1, 1}, 1e5);
  auto expect_error = [&](DynamicsOptions o, const char* words) {
    try {
      DynamicSolver dyn(*b.assembler, *b.solver, {}, o);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  DynamicsOptions o;
  o.dt = 0;
  expect_error(o, "dt = 0");
  o.dt = std::nan("");
  expect_error(o, "dt = nan");
  o = {};
  o.density = -5;
  expect_error(o, "density = -5");
  o = {};
  o.rayleigh_mass = -1;
  expect_error(o, "rayleigh_mass");
  o = {};
  o.scheme = TimeScheme::Newmark;
  o.newmark_beta = 0.1;
  expect_error(o, "not unconditionally stable");
  DynamicLoads bad;
  bad.nodal = {{std::vector<Real>(static_cast<size_t>(b.assembler->num_dofs()), 0.0), {{0, 1, 0.5}, {0, 1, 2}}}};
  try {
    DynamicSolver dyn(*b.assembler, *b.solver, bad, {});
    ADD_FAILURE() << "accepted decreasing times";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("increasing order"), std::string::npos) << e.what();
  }
}

TEST(Dynamics, TimeFunctionsInterpolateAndHold) {
  TimeFunction f{{0.0, 1.0, 3.0}, {0.0, 2.0, -2.0}};
  EXPECT_EQ(f(-1.0), 0.0);
  EXPECT_DOUBLE_EQ(f(0.5), 1.0);
  EXPECT_DOUBLE_EQ(f(2.0), 0.0);
  EXPECT_EQ(f(5.0), -2.0);
  EXPECT_EQ(TimeFunction{}(7.0), 1.0);
}

}  // namespace
}  // namespace softik
