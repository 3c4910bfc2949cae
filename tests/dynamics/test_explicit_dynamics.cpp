// Explicit dynamics (issue 17) against mathematics and mechanics: a spring chain follows its
// discrete exact solution step by step, a lattice bar vibrates at the wave speed sqrt(E/rho),
// velocity Verlet's energy stays bounded over 10^5 steps, a pressurised free network keeps its
// momentum and energy, mass damping removes energy at the predicted rate, explicit and implicit
// dynamics of one FEM cantilever agree, and bad time steps and loads are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "softik/actuator_generator.hpp"
#include "softik/error.hpp"
#include "softik/explicit_dynamics.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/static_solver.hpp"
#include "tests/mesh_helpers.hpp"
#include "tests/math_constants.hpp"

namespace softik {
namespace {

// N masses m along x at spacing h joined by springs k, node 0 (at x = 0) fixed; only x moves.
struct Chain {
  NodeNetwork net;
  std::vector<char> fixed;
};

Chain make_chain(int N, Real k, Real m, Real h) {
  Chain c;
  for (int i = 0; i <= N; ++i) {
    c.net.X.insert(c.net.X.end(), {i * h, 0, 0});
    c.net.mass.push_back(m);
    if (i > 0) c.net.links.push_back({i - 1, i}), c.net.parameters.push_back({k, 0, h, 0});
    c.fixed.insert(c.fixed.end(), {char(i == 0), 1, 1});
  }
  return c;
}

TEST(ExplicitDynamics, ASpringChainFollowsItsDiscreteExactSolution) {
  // Mode j = 1 of the fixed-free chain: u_n = A sin(n theta), theta = pi / (2N + 1), omega =
  // 2 sqrt(k/m) sin(theta / 2). The schemes' positions obey x+ - 2x + x- = -(omega dt)^2 x,
  // so x_s = A (cos(s W dt) + c sin(s W dt)) with cos(W dt) = 1 - (omega dt)^2 / 2 and c = 0
  // (velocity Verlet) or -(omega dt)^2 / (2 sin(W dt)) (symplectic Euler, whose first step is a
  // full dt^2 a).
  const int N = 24;
  const Real k = 150, m = 0.02, h = 0.01, A = 1e-4;
  const Chain chain = make_chain(N, k, m, h);
  const Real theta = kPi / (2 * N + 1), omega = 2 * std::sqrt(k / m) * std::sin(theta / 2);
  for (ExplicitScheme scheme : {ExplicitScheme::VelocityVerlet, ExplicitScheme::SymplecticEuler}) {
    const NodeNetworkModel model(chain.net, chain.fixed, {}, 1);
    ExplicitOptions o;
    o.scheme = scheme;
    ExplicitSolver solver(model, o);
    const Real dt = solver.time_step();
    std::vector<Real> x = chain.net.X, v(x.size(), 0.0);
    for (int n = 0; n <= N; ++n) x[3 * n] += A * std::sin(n * theta);
    solver.set_state(x, v);
    const Real W = std::acos(1 - omega * omega * dt * dt / 2);
    const Real c = scheme == ExplicitScheme::VelocityVerlet ? 0 : -omega * omega * dt * dt / (2 * std::sin(W));
    Real worst = 0;
    for (int s = 1; s <= 3000; ++s) {
      solver.step();
      const Real phase = A * (std::cos(s * W) + c * std::sin(s * W));
      for (int n = 1; n <= N; ++n)
        worst = std::max(worst, std::abs(solver.x()[3 * n] - n * h - phase * std::sin(n * theta)));
    }
    EXPECT_LT(worst, 1e-9 * A) << explicit_scheme_name(scheme);
  }
}

TEST(ExplicitDynamics, ALatticeBarVibratesAtTheWaveSpeed) {
  // A bar clamped at x = 0, free at x = L, released from u = eps sin(pi X / 2L): its first
  // longitudinal mode, omega = (pi / 2) c / L with c = sqrt(E / rho) (Poisson's ratio 1/4 of the
  // lattice only adds lateral inertia, ~(nu pi r / 2L)^2 here).
  const Real L = 0.2, w = 0.01, E = 1e5, rho = 1000, eps = 1e-5;
  const Mesh mesh = box_mesh(CellType::Hex8, {40, 2, 2}, {L, w, w});
  const NodeNetwork net = make_node_network(mesh, {E, 0.25, rho});
  const NodeNetworkModel model(net, fix_nodes(mesh, mesh.node_groups.at("xmin")), {}, 1);
  ExplicitSolver solver(model);
  std::vector<Real> x = net.X;
  for (int n = 0; n < net.num_nodes(); ++n) x[3 * n] += eps * L * std::sin(kPi * net.X[3 * n] / (2 * L));
  solver.set_state(x, std::vector<Real>(x.size(), 0.0));
  const std::vector<int>& tip = mesh.node_groups.at("xmax");
  auto tip_u = [&] {
    Real u = 0;
    for (int n : tip) u += solver.x()[3 * n] - L;
    return u / tip.size();
  };
  std::vector<Real> crossings;
  Real previous = tip_u(), t_previous = 0;
  while (crossings.size() < 5 && solver.time() < 1) {
    solver.step();
    const Real u = tip_u();
    if ((previous > 0) != (u > 0))
      crossings.push_back(t_previous + (solver.time() - t_previous) * previous / (previous - u));
    previous = u, t_previous = solver.time();
  }
  ASSERT_EQ(crossings.size(), 5u);
  const Real period = (crossings.back() - crossings.front()) / 2;
  const Real c = 4 * L / period, c_exact = std::sqrt(E / rho);
  std::printf("lattice bar: wave speed %.5f m/s, sqrt(E/rho) %.5f m/s, error %.3f%%, dt %.3e s\n", c, c_exact,
              100 * (c - c_exact) / c_exact, solver.time_step());
  EXPECT_NEAR(c, c_exact, 0.01 * c_exact);
}

// A free 3x3x3 hex network with cubic hardening, started with random velocities (zero mean).
struct FreeNetwork {
  NodeNetwork net;
  std::vector<Real> v;
};

FreeNetwork free_network(unsigned seed, Real speed) {
  BoxSpec spec;
  spec.size = {0.03, 0.03, 0.03};
  spec.cells = {3, 3, 3};
  NetworkFromMesh from{1e5, 0.25, 1000};
  from.cubic_hardening = 50;
  FreeNetwork f{make_node_network(make_box(3, CellType::Hex8, spec), from), {}};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> u(-speed, speed);
  f.v.resize(f.net.X.size());
  Vec3r mean = Vec3r::Zero();
  for (size_t i = 0; i < f.v.size(); ++i) f.v[i] = u(rng), mean[i % 3] += f.v[i] / f.net.num_nodes();
  for (size_t i = 0; i < f.v.size(); ++i) f.v[i] -= mean[i % 3];
  return f;
}

TEST(ExplicitDynamics, VelocityVerletKeepsTheEnergyBoundedOverAHundredThousandSteps) {
  const FreeNetwork f = free_network(7, 0.5);  // strains of several % with hardening: nonlinear
  const NodeNetworkModel model(f.net, {}, {}, 1);
  ExplicitOptions o;
  o.safety = 0.1;  // the error of the energy at whole steps is O((omega dt)^2)
  ExplicitSolver solver(model, o);
  solver.set_state(f.net.X, f.v);
  const Real E0 = solver.kinetic_energy() + solver.potential_energy();
  const int steps = 100000;
  Real first = 0, last = 0;
  for (int s = 1; s <= steps; ++s) {
    solver.step();
    if (s % 10 != 0) continue;
    const Real drift = std::abs(solver.kinetic_energy() + solver.potential_energy() - E0) / E0;
    if (s <= steps / 10) first = std::max(first, drift);
    if (s > steps - steps / 10) last = std::max(last, drift);
  }
  std::printf("velocity Verlet, 1e5 steps: energy error %.2e (first tenth) %.2e (last tenth)\n", first, last);
  EXPECT_LT(first, 2e-3);
  EXPECT_LT(last, 2 * first + 1e-6) << "the energy error grows: not symplectic";
}

TEST(ExplicitDynamics, APressurisedFreeNetworkKeepsItsMomentumAndEnergy) {
  MultiCavitySpec spec;
  spec.size = {0.03, 0.02, 0.02};
  spec.cavities = {{0.01, 0.006, 0.006, 0.01, 0.008, 0.008}};  // surface group "cavity0"
  spec.cell_size = 0.002;
  spec.cell_type = CellType::Hex8;
  const Mesh mesh = make_multi_cavity_block(spec);
  const NodeNetwork net = make_node_network(mesh, {2e5, 0.25, 1100});
  for (bool reversed : {false, true}) {
    ExplicitLoads loads;
    PressureLoad p{"cavity", net.surface_groups.at("cavity0"), {}, 5e3, true, true};
    if (reversed)
      for (auto& q : p.surface.quads) std::swap(q[1], q[3]);
    loads.pressures.push_back({p, {}});
    const NodeNetworkModel model(net, {}, loads, 1);
    EXPECT_EQ(model.notes().size(), reversed ? 1u : 0u) << "a reversed surface is put right and reported";
    // Suddenly applied, the pressure rings every mode; the energy error of velocity Verlet is
    // O(dt^2): halving dt must cut it about 4x.
    Real error[2] = {0, 0}, PV0 = 0;
    for (int half = 0; half < 2; ++half) {
      ExplicitOptions o;
      o.safety = half ? 0.1 : 0.2;
      ExplicitSolver solver(model, o);
      const Real E0 = solver.potential_energy();
      const Real V0 = surface_volume(model.loads().pressures[0].load, model.nodes(), solver.x());
      PV0 = 5e3 * V0;
      solver.advance(0.03);
      Vec3r momentum = Vec3r::Zero();
      Real scale = 0;
      for (size_t i = 0; i < solver.v().size(); ++i)
        momentum[i % 3] += model.mass()[i] * solver.v()[i], scale += model.mass()[i] * std::abs(solver.v()[i]);
      EXPECT_LT(momentum.norm(), 1e-12 * scale) << "pressure on a closed cavity has no resultant";
      EXPECT_GT(surface_volume(model.loads().pressures[0].load, model.nodes(), solver.x()), V0) << "inflates";
      error[half] = std::abs(solver.kinetic_energy() + solver.potential_energy() - E0);
    }
    std::printf("pressurised network: energy error %.3e J (dt), %.3e J (dt/2), P V0 %.3e J\n", error[0], error[1], PV0);
    EXPECT_GT(error[0] / error[1], 3.0)
        << "the follower pressure of a closed cavity is conservative: only the O(dt^2) error";
    EXPECT_LT(error[1], 1e-4 * PV0);
  }
}

TEST(ExplicitDynamics, MassDampingRemovesEnergyAtItsRate) {
  // alpha M v damps every mode of the chain at exp(-alpha t) in energy (omega >> alpha);
  // the energy it removed is accounted for.
  const Chain chain = make_chain(10, 200, 0.01, 0.01);
  const NodeNetworkModel model(chain.net, chain.fixed, {}, 1);
  ExplicitOptions o;
  o.mass_damping = 2.0;
  o.safety = 0.2;
  ExplicitSolver solver(model, o);
  std::vector<Real> x = chain.net.X;
  const Real theta = kPi / 21;
  for (int n = 0; n <= 10; ++n) x[3 * n] += 1e-4 * std::sin(n * theta);
  solver.set_state(x, std::vector<Real>(x.size(), 0.0));
  const Real E0 = solver.potential_energy();
  solver.advance(0.5);
  const Real E = solver.kinetic_energy() + solver.potential_energy();
  EXPECT_NEAR(E / E0, std::exp(-2.0 * 0.5), 0.02);
  EXPECT_NEAR(E + solver.damped_energy(), E0, 2e-3 * E0);
}

TEST(ExplicitDynamics, ExplicitAndImplicitDynamicsOfOneFemCantileverAgree) {
  // The same Hex8 cantilever (lumped mass), released from its static deflection under a tip
  // load: central differences (velocity Verlet) at the stable step, Newmark's trapezoidal rule at
  // 400 and 800 steps of the first mode's period over 1.5 periods. Both are second order; they
  // differ by the trapezoidal rule's period error (omega dt)^2 / 12 (2e-5 on the first mode at
  // 400 steps, 1e-3 on the second, more on the higher modes the deflection also holds), the
  // explicit step being 5x smaller.
  const Real L = 0.2, h = 0.02, E = 1e6, rho = 1000;
  const Mesh mesh = box_mesh(CellType::Hex8, {10, 2, 2}, {L, h, h});
  AssemblyOptions ao;
  ao.formulation = Formulation::LinearSmallStrain;
  const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(E, 0.3)},
                            fix_nodes(mesh, mesh.node_groups.at("xmin")), ao);
  std::vector<Real> f(static_cast<size_t>(assembler.num_dofs()), 0.0);
  const std::vector<int>& tip = mesh.node_groups.at("xmax");
  for (int n : tip) f[3 * n + 2] = 1e-2 / tip.size();
  auto solver = make_linear_solver();
  std::vector<Real> x0 = mesh.rest_positions();
  solve_static(assembler, *solver, f, x0);
  auto tip_w = [&](const std::vector<Real>& x) {
    Real w = 0;
    for (int n : tip) w += x[3 * n + 2] - mesh.X[3 * n + 2];
    return w / tip.size();
  };
  const Real f1 = 1.87510407 * 1.87510407 / (2 * kPi) * std::sqrt(E * h * h / 12 / (rho * L * L * L * L));
  const Real w0 = tip_w(x0);
  Real worst[2] = {0, 0};
  for (int refined = 0; refined < 2; ++refined) {
    DynamicsOptions io;
    io.scheme = TimeScheme::Newmark;
    io.lumped_mass = true;
    io.density = rho;
    io.dt = 1 / ((refined ? 800 : 400) * f1);
    DynamicSolver implicit(assembler, *solver, {}, io);
    implicit.set_state(x0, std::vector<Real>(x0.size(), 0.0));
    const FemExplicitModel model(assembler, rho, {});
    ExplicitSolver explicit_solver(model);
    explicit_solver.set_state(x0, std::vector<Real>(x0.size(), 0.0));
    while (implicit.time() < 1.5 / f1) {
      implicit.step();
      explicit_solver.advance(implicit.time() - explicit_solver.time());
      worst[refined] = std::max(worst[refined], std::abs(tip_w(explicit_solver.x()) - tip_w(implicit.positions())));
    }
    std::printf(
        "cantilever: explicit (dt %.2e s, %ld steps) vs Newmark (dt %.2e s): largest tip difference %.2e of the "
        "amplitude\n",
        explicit_solver.time_step(), explicit_solver.steps(), io.dt, worst[refined] / std::abs(w0));
  }
  // The difference is Newmark's own error: halving its step shrinks it (measured 4.6e-3 -> 2.4e-3:
  // the modes above the first few, which the trapezoidal rule does not resolve at these steps,
  // converge more slowly than (omega dt)^2).
  EXPECT_LT(worst[1], 0.7 * worst[0]);
  EXPECT_LT(worst[1], 0.003 * std::abs(w0));
}

TEST(ExplicitDynamics, BadTimeStepsAndLoadsAreRefusedWithTheReason) {
  const Chain chain = make_chain(5, 100, 0.01, 0.01);
  const NodeNetworkModel model(chain.net, chain.fixed, {}, 1);
  const Real dt_c = ExplicitSolver(model).stable_time_step();
  ExplicitOptions o;
  o.time_step = 1.5 * dt_c;
  try {
    ExplicitSolver solver(model, o);
    ADD_FAILURE() << "a time step above the stable limit was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds the stable limit"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("force_time_step"), std::string::npos) << e.what();
  }
  o.force_time_step = true;
  EXPECT_NO_THROW(ExplicitSolver(model, o));
  // The bound is an upper bound: the chain's highest frequency is below it.
  const Real omega_max = 2 * std::sqrt(100 / 0.01) * std::sin(5 * kPi / 22);
  EXPECT_LE(dt_c, 2 / omega_max);
  for (auto [field, value] : {std::pair<const char*, Real>{"safety", 0}, {"mass_damping", -1}, {"time_step", -1}}) {
    ExplicitOptions bad;
    if (std::string(field) == "safety") bad.safety = value;
    if (std::string(field) == "mass_damping") bad.mass_damping = value;
    if (std::string(field) == "time_step") bad.time_step = value;
    try {
      ExplicitSolver solver(model, bad);
      ADD_FAILURE() << field << " " << value << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
  // An open surface given as a closed cavity, a NaN pressure, fixed flags of the wrong size.
  const Mesh box = box_mesh(CellType::Hex8, {2, 2, 2});
  const NodeNetwork net = make_node_network(box, {1e5, 0.25, 1000});
  ExplicitLoads loads;
  loads.pressures.push_back({PressureLoad{"lid", box.surface_groups.at("zmax"), {}, 1e3, true, true}, {}});
  EXPECT_THROW(NodeNetworkModel(net, {}, loads, 1), Error);
  loads.pressures[0].load.closed = false;
  EXPECT_NO_THROW(NodeNetworkModel(net, {}, loads, 1));
  loads.pressures[0].load.pressure = std::nan("");
  EXPECT_THROW(NodeNetworkModel(net, {}, loads, 1), Error);
  EXPECT_THROW(NodeNetworkModel(net, std::vector<char>(5, 0), {}, 1), Error);
}

TEST(ExplicitDynamics, AnAdvanceWhoseStepCountOverflowsIsRefusedNotSkipped) {
  // 1 s in steps of 1e-300 s (1e300 steps), or 1e10 s (an infinite quotient): the count does not
  // fit; cast unchecked, it integrated nothing and reported the end time.
  const Chain chain = make_chain(5, 100, 0.01, 0.01);
  const NodeNetworkModel model(chain.net, chain.fixed, {}, 1);
  ExplicitOptions o;
  o.time_step = 1e-300;
  ExplicitSolver solver(model, o);
  for (const Real duration : {1.0, 1e10}) {
    try {
      solver.advance(duration);
      ADD_FAILURE() << "advanced " << duration << " s to t = " << solver.time() << " in " << solver.steps() << " steps";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("overflows the step count"), std::string::npos) << e.what();
    }
    EXPECT_EQ(solver.time(), 0);
    EXPECT_EQ(solver.steps(), 0);
  }
}

TEST(ExplicitDynamics, ADampingThatOverflowsIsNamedAndAHugeOneLimitsTheStep) {
  // mass_damping 1e300: the damping ratio's square overflows; it read "the stable time step
  // estimate is inf; is every DOF fixed, or a stiffness NaN?". 1e150 fits, and the stable step
  // is 2 / alpha (the quotient form; the difference sqrt(1 + xi^2) - xi cancelled to 0).
  const Chain chain = make_chain(5, 100, 0.01, 0.01);
  const NodeNetworkModel model(chain.net, chain.fixed, {}, 1);
  for (const char* key : {"mass_damping", "global_damping"}) {
    ExplicitOptions o;
    (std::string(key) == "mass_damping" ? o.mass_damping : o.global_damping) = 1e300;
    try {
      ExplicitSolver solver(model, o);
      ADD_FAILURE() << key << " 1e300 accepted, stable step " << solver.stable_time_step();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the damping overflows double precision"), std::string::npos) << e.what();
      EXPECT_NE(
          std::string(e.what()).find(std::string(key == std::string("mass_damping") ? "alpha" : "c_g") + " = 1e+300"),
          std::string::npos)
          << e.what();
    }
  }
  ExplicitOptions o;
  o.mass_damping = 1e150;
  const ExplicitSolver solver(model, o);
  EXPECT_NEAR(solver.stable_time_step(), 2e-150, 1e-9 * 2e-150);
  EXPECT_NEAR(solver.time_step(), 0.9 * 2e-150, 1e-9 * 2e-150);
}

}  // namespace
}  // namespace softik
