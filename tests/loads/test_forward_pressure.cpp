// Forward static solves under pressure (issue 3): the host pressure helpers of loads.hpp against
// finite differences, Newton with the follower-load stiffness converging quadratically on a
// hyperelastic inflation, prescribed displacements against the analytic bar stretch, gravity's
// resultant, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "host/loads/pressure_stiffness.hpp"
#include "softik/error.hpp"
#include "softik/loads.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/mesh_selection.hpp"
#include "softik/static_solver.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

constexpr int kHexFaces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};

/// A 3x3x3 Hex8 block of side 3 (cell size 1) whose centre cell is removed: the faces of the
/// removed cell, wound out of it (out of the cavity, into the material), form a closed cavity.
struct HollowBlock {
  Mesh mesh;
  PressureLoad cavity;
};

HollowBlock hollow_block() {
  Mesh box = box_mesh(CellType::Hex8, {3, 3, 3}, {3, 3, 3});
  HollowBlock b;
  b.mesh = box;
  b.mesh.cells.clear();
  const int centre = 13;
  for (int c = 0; c < box.num_cells(); ++c)
    if (c != centre) b.mesh.cells.insert(b.mesh.cells.end(), box.cell(c), box.cell(c) + 8);
  b.mesh.surface_groups.clear();
  b.cavity.name = "cavity";
  for (const auto& f : kHexFaces)
    b.cavity.surface.quads.push_back(
        {box.cell(centre)[f[0]], box.cell(centre)[f[1]], box.cell(centre)[f[2]], box.cell(centre)[f[3]]});
  return b;
}

TEST(ForwardPressure, CavityVolumeAndJacobianMatchFiniteDifferences) {
  const HollowBlock b = hollow_block();
  EXPECT_NEAR(surface_volume(b.cavity, b.mesh, b.mesh.rest_positions()), 1.0, 1e-14);
  std::vector<Real> x = with_noise(b.mesh.rest_positions(), 0.05, 1);
  const std::vector<Real> J = pressure_jacobian(b.cavity, b.mesh, x);
  Real err = 0, scale = 0;
  const Real h = 1e-6;
  for (size_t k = 0; k < x.size(); ++k) {
    std::vector<Real> xp = x, xm = x;
    xp[k] += h;
    xm[k] -= h;
    const Real fd = (surface_volume(b.cavity, b.mesh, xp) - surface_volume(b.cavity, b.mesh, xm)) / (2 * h);
    err = std::max(err, std::abs(fd - J[k]));
    scale = std::max(scale, std::abs(J[k]));
  }
  EXPECT_GT(scale, 0.1);
  EXPECT_LE(err, 1e-8 * scale);
  // A closed cavity's pressure forces have no resultant.
  for (int i = 0; i < 3; ++i) {
    Real sum = 0;
    for (size_t n = 0; n < x.size() / 3; ++n) sum += J[3 * n + static_cast<size_t>(i)];
    EXPECT_NEAR(sum, 0.0, 1e-14);
  }
}

TEST(ForwardPressure, EmbeddedSurfaceSpreadsForcesWithItsWeights) {
  // The same cavity given by vertices that are weighted averages of mesh nodes: the volume is
  // that of the interpolated vertices and the forces are spread with the weights, so the virtual
  // work f . dx equals P dV for any dx (checked by finite differences of V).
  const HollowBlock b = hollow_block();
  PressureLoad e;
  e.name = "embedded";
  e.embedding.nodes_per_vertex = 2;
  const int nv = b.mesh.num_nodes();
  for (int v = 0; v < nv; ++v) {
    e.embedding.nodes.insert(e.embedding.nodes.end(), {v, (v + 1) % nv});
    e.embedding.weights.insert(e.embedding.weights.end(), {0.9, 0.1});
  }
  e.surface = b.cavity.surface;
  const std::vector<Real> x = with_noise(b.mesh.rest_positions(), 0.05, 2);
  std::vector<Real> f(x.size(), 0.0);
  const Real P = 2.5;
  add_pressure_forces(e, P, b.mesh, x, f);
  std::mt19937 rng(3);
  std::uniform_real_distribution<Real> u(-1, 1);
  std::vector<Real> dx(x.size());
  for (Real& v : dx) v = u(rng);
  const Real h = 1e-6;
  std::vector<Real> xp = x, xm = x;
  Real work = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    xp[k] += h * dx[k];
    xm[k] -= h * dx[k];
    work += f[k] * dx[k];
  }
  const Real dV = (surface_volume(e, b.mesh, xp) - surface_volume(e, b.mesh, xm)) / (2 * h);
  EXPECT_NEAR(work, P * dV, 1e-8 * std::abs(work));
}

TEST(ForwardPressure, LoadStiffnessMatchesFiniteDifferencesOfTheForces) {
  const HollowBlock b = hollow_block();
  const Assembler assembler(b.mesh, {fem::LinearElastic::from_young_poisson(1e3, 0.3)}, {});
  const std::vector<Real> x = with_noise(b.mesh.rest_positions(), 0.05, 4);
  const Real P = 3.0;
  std::vector<Real> K(static_cast<size_t>(assembler.pattern().nnz()), 0.0);
  const long dropped = add_pressure_stiffness(b.cavity, P, assembler, x, 1.0, K);
  EXPECT_EQ(dropped, 0);
  const auto Ks = assembler.to_sparse(K);
  const Eigen::MatrixXd dense = Eigen::MatrixXd(Ks);
  EXPECT_LE((dense - dense.transpose()).norm(), 1e-13 * dense.norm()) << "closed cavity: P d2V/dx2 is symmetric";
  const Real h = 1e-6;
  Real err = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    std::vector<Real> xp = x, xm = x, fp(x.size(), 0.0), fm(x.size(), 0.0);
    xp[k] += h;
    xm[k] -= h;
    add_pressure_forces(b.cavity, P, b.mesh, xp, fp);
    add_pressure_forces(b.cavity, P, b.mesh, xm, fm);
    for (size_t r = 0; r < x.size(); ++r) err = std::max(err, std::abs((fp[r] - fm[r]) / (2 * h) - dense(r, k)));
  }
  EXPECT_GT(dense.cwiseAbs().maxCoeff(), 0.1);
  EXPECT_LE(err, 1e-7 * dense.cwiseAbs().maxCoeff());
}

TEST(ForwardPressure, KeptSlotsAddTheSameLoadStiffnessAtEveryPosition) {
  // detail::PressureStiffness (the static solver's, slots looked up once) against the one-shot
  // add_pressure_stiffness at three positions, with scale -1 and the cavity's floor clamped (its
  // entries skipped).
  const HollowBlock b = hollow_block();
  const Assembler assembler(b.mesh, {fem::LinearElastic::from_young_poisson(1e3, 0.3)},
                            fix_nodes(b.mesh, nodes_on_plane(b.mesh, {0, 0, 1}, {0, 0, 1}, 1e-9)));
  const detail::PressureStiffness kept(b.cavity, b.mesh, assembler.pattern(), assembler.free_dof_index());
  for (int seed = 1; seed <= 3; ++seed) {
    const std::vector<Real> x = with_noise(b.mesh.rest_positions(), 0.05, seed);
    std::vector<Real> K_kept(static_cast<size_t>(assembler.pattern().nnz()), 0.0), K_once = K_kept;
    EXPECT_EQ(kept.add(2.0 * seed, x, -1.0, K_kept), 0);
    EXPECT_EQ(add_pressure_stiffness(b.cavity, 2.0 * seed, assembler, x, -1.0, K_once), 0);
    EXPECT_EQ(K_kept, K_once) << "seed " << seed;
    EXPECT_GT(*std::max_element(K_once.begin(), K_once.end()), 0.0);
  }
  std::vector<Real> wrong_K(1, 0.0);
  EXPECT_THROW(kept.add(1.0, b.mesh.rest_positions(), -1.0, wrong_K), Error);  // K of another pattern
}

/// The hollow block clamped on its bottom face, inflated with a neo-Hookean law.
struct Inflation {
  HollowBlock block = hollow_block();
  Assembler assembler;
  Inflation()
      : assembler(block.mesh, {fem::NeoHookean::from_young_poisson(1e3, 0.3)},
                  fix_nodes(block.mesh, nodes_on_plane(block.mesh, {0, 0, 0}, {0, 0, 1}, 1e-9)),
                  AssemblyOptions{Formulation::Hyperelastic}) {}
};

TEST(ForwardPressure, NewtonConvergesQuadraticallyOnAHyperelasticInflation) {
  Inflation c;
  Loads loads;
  c.block.cavity.pressure = 400;  // E/2.5: the cavity grows by a large fraction of its volume
  loads.pressures.push_back(c.block.cavity);
  auto solver = make_linear_solver();
  std::vector<Real> x = c.block.mesh.rest_positions();
  NewtonOptions newton;
  newton.residual_tolerance = 1e-11;
  newton.load_steps = 2;
  std::vector<LoadStepReport> reports;
  newton.on_step = [&](const LoadStepReport& r, const std::vector<Real>&) { reports.push_back(r); };
  const StaticResult r = solve_static(c.assembler, *solver, loads, x, newton);
  for (const auto& e : r.log)
    std::printf("step %d lambda %.2f it %d residual %.3e alpha %.3f\n", e.load_step, e.load_factor, e.iteration,
                e.residual, e.step_length);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_DOUBLE_EQ(reports[1].pressures[0], 400);
  EXPECT_GT(reports[0].volumes[0], 1.05);
  EXPECT_GT(reports[1].volumes[0], reports[0].volumes[0]);
  // Equilibrium: elastic + pressure forces vanish on every free DOF.
  std::vector<Real> f = c.assembler.force(x);
  add_pressure_forces(c.block.cavity, 400, c.block.mesh, x, f);
  Real residual = 0;
  for (size_t k = 0; k < x.size(); ++k)
    if (c.assembler.free_dof_index()[k] >= 0) residual = std::max(residual, std::abs(f[k]));
  EXPECT_LE(residual, 1e-9 * 400);
  int quadratic_checks = 0;
  for (size_t k = 0; k + 1 < r.log.size(); ++k) {
    const Real rk = r.log[k].residual / 400, rn = r.log[k + 1].residual / 400;
    if (r.log[k].load_step != r.log[k + 1].load_step || rk > 1e-2 || rn < 1e-12) continue;
    EXPECT_LE(rn, 10 * rk * rk) << "iteration " << k;
    ++quadratic_checks;
  }
  EXPECT_GE(quadratic_checks, 2);
  // Without the load stiffness the tangent is wrong by P d2V/dx2: convergence is only linear.
  std::vector<Real> x2 = c.block.mesh.rest_positions();
  newton.pressure_stiffness = false;
  newton.on_step = nullptr;
  newton.max_iterations = 100;
  const StaticResult r2 = solve_static(c.assembler, *solver, loads, x2, newton);
  EXPECT_GT(r2.iterations, r.iterations);
  Real diff = 0;
  for (size_t k = 0; k < x.size(); ++k) diff = std::max(diff, std::abs(x[k] - x2[k]));
  EXPECT_LE(diff, 1e-8);
}

TEST(ForwardPressure, ResidualLineSearchReachesTheSameEquilibrium) {
  Inflation c;
  Loads loads;
  c.block.cavity.pressure = 200;
  loads.pressures.push_back(c.block.cavity);
  auto solver = make_linear_solver();
  std::vector<Real> a = c.block.mesh.rest_positions(), b = a;
  NewtonOptions newton;
  newton.residual_tolerance = 1e-11;
  newton.line_search = LineSearch::Energy;
  solve_static(c.assembler, *solver, loads, a, newton);
  newton.line_search = LineSearch::Residual;
  solve_static(c.assembler, *solver, loads, b, newton);
  Real diff = 0;
  for (size_t k = 0; k < a.size(); ++k) diff = std::max(diff, std::abs(a[k] - b[k]));
  EXPECT_LE(diff, 1e-9);
}

TEST(ForwardPressure, PrescribedStretchOfABarGivesTheAnalyticReaction) {
  // Linear bar of length 4, section 1x1, left end sliding on its plane (u_x = 0, one node pinned
  // against rigid motion), right end pulled by d: uniaxial stress sigma = E d / L everywhere, so
  // the reaction on the right end is E A d / L and the lateral contraction nu d / L.
  const Mesh mesh = box_mesh(CellType::Hex8, {4, 2, 2}, {4, 1, 1});
  std::vector<char> fixed;
  fix_components(mesh, mesh.node_groups.at("xmin"), {true, false, false}, fixed);
  fix_components(mesh, mesh.node_groups.at("xmax"), {true, false, false}, fixed);
  fix_components(mesh, {closest_node(mesh, {0, 0, 0})}, {true, true, true}, fixed);
  fix_components(mesh, {closest_node(mesh, {0, 1, 0})}, {true, false, true}, fixed);
  fix_components(mesh, {closest_node(mesh, {0, 0, 1})}, {true, true, false}, fixed);
  const Real E = 100, nu = 0.3, d = 0.01;
  const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(E, nu)}, fixed,
                            AssemblyOptions{Formulation::LinearSmallStrain});
  Loads loads;
  for (int n : mesh.node_groups.at("xmax")) loads.prescribed.push_back({3 * n, d});
  auto solver = make_linear_solver();
  std::vector<Real> x = mesh.rest_positions();
  solve_static(assembler, *solver, loads, x);
  const std::vector<Real> f = assembler.force(x);
  Real reaction = 0;
  for (int n : mesh.node_groups.at("xmax")) reaction -= f[3 * static_cast<size_t>(n)];
  EXPECT_NEAR(reaction, E * d / 4, 1e-10 * E * d);
  const int corner = closest_node(mesh, {4, 1, 1});
  EXPECT_NEAR(x[3 * static_cast<size_t>(corner) + 1] - 1, -nu * d / 4, 1e-12);
}

TEST(ForwardPressure, GravityResultantIsTheWeight) {
  const Mesh mesh = box_mesh(CellType::Tet4, {4, 2, 2}, {2, 1, 0.5});
  const Assembler assembler(mesh, {fem::LinearElastic::from_young_poisson(1e3, 0.3)}, {});
  const std::vector<Real> g = gravity_load(assembler, 1000, {0, 0, -9.81});
  Real fz = 0, fx = 0;
  for (size_t n = 0; n < g.size() / 3; ++n) {
    fx += g[3 * n];
    fz += g[3 * n + 2];
  }
  EXPECT_NEAR(fz, -1000 * 1.0 * 9.81, 1e-9);
  EXPECT_EQ(fx, 0.0);
}

TEST(ForwardPressure, BadLoadsAreErrors) {
  Inflation c;
  auto solver = make_linear_solver();
  std::vector<Real> x = c.block.mesh.rest_positions();
  Loads nan_pressure;
  nan_pressure.pressures.push_back(c.block.cavity);
  nan_pressure.pressures[0].pressure = std::nan("");
  EXPECT_THROW(solve_static(c.assembler, *solver, nan_pressure, x), Error);
  Loads bad_vertex;
  bad_vertex.pressures.push_back(c.block.cavity);
  bad_vertex.pressures[0].surface.triangles.push_back({0, 1, 100000});
  EXPECT_THROW(solve_static(c.assembler, *solver, bad_vertex, x), Error);
  Loads free_prescribed;
  const int free_dof = 3 * closest_node(c.block.mesh, {3, 3, 3});
  free_prescribed.prescribed.push_back({free_dof, 0.1});
  try {
    solve_static(c.assembler, *solver, free_prescribed, x);
    ADD_FAILURE() << "prescribing a free DOF must be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is free"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace softik
