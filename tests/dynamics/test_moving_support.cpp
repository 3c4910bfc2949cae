// Moving supports in dynamics (MovingSupport, dynamics.hpp): a block whose base is lifted is
// carried up rigidly once the motion stops (every node displaced by the path's end offset), its
// top lagging behind while the base accelerates; a base turned by 90 degrees turns the block
// rigidly, x = c + R (X - c) (a rigid rotation is stress-free); the supported nodes sit exactly
// on the support's path at every step; each bad support is refused naming it.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <memory>

#include "softik/dynamics.hpp"
#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/mesh_transform.hpp"
#include "tests/expect_refused.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

struct Block {
  Mesh mesh;
  std::unique_ptr<Assembler> assembler;
  std::unique_ptr<LinearSolver> solver;
};

// A 20 x 20 x 40 mm neo-Hookean block standing on its base (zmin, fixed).
Block make_block() {
  Block b;
  BoxSpec spec;
  spec.size = {0.02, 0.02, 0.04};
  spec.cells = {2, 2, 4};
  b.mesh = make_box(3, CellType::Hex8, spec);
  AssemblyOptions hyperelastic;
  hyperelastic.formulation = Formulation::Hyperelastic;
  b.assembler =
      std::make_unique<Assembler>(b.mesh, std::vector<Material>{fem::NeoHookean::from_young_poisson(1e5, 0.3)},
                                  fix_nodes(b.mesh, b.mesh.node_groups.at("zmin")), hyperelastic);
  b.solver = make_linear_solver();
  return b;
}

DynamicsOptions options() {
  DynamicsOptions o;
  o.dt = 5e-3;
  o.density = 1000;
  o.rayleigh_mass = 20;
  return o;
}

std::array<Real, 3> node_x(const std::vector<Real>& x, int n) {
  return {x[3 * static_cast<size_t>(n)], x[3 * static_cast<size_t>(n) + 1], x[3 * static_cast<size_t>(n) + 2]};
}

TEST(MovingSupport, LiftedBaseCarriesTheBlockUpRigidly) {
  Block b = make_block();
  MovingSupport lift;
  lift.name = "base";
  lift.nodes = b.mesh.node_groups.at("zmin");
  lift.path_times = {0, 0.05, 1};
  lift.path_offsets = {{0, 0, 0}, {0, 0, 0.01}, {0, 0, 0.01}};
  DynamicLoads loads;
  loads.supports = {lift};
  DynamicSolver dyn(*b.assembler, *b.solver, loads, options());
  const std::vector<int>& top = b.mesh.node_groups.at("zmax");
  Real top_lag = 0;
  while (dyn.time() < 0.5 - 1e-12) {
    dyn.step();
    for (int n : lift.nodes) {  // the base is on its path at every step
      const std::array<Real, 3> on_path = lift.position(node_x(b.mesh.X, n), dyn.time()),
                                x = node_x(dyn.positions(), n);
      for (int i = 0; i < 3; ++i) ASSERT_NEAR(x[i], on_path[i], 1e-15) << "node " << n << " at t = " << dyn.time();
    }
    if (std::abs(dyn.time() - 0.05) < 1e-9)
      top_lag = lift.offset(dyn.time())[2] -
                (node_x(dyn.positions(), top[0])[2] - b.mesh.X[3 * static_cast<size_t>(top[0]) + 2]);
  }
  EXPECT_GT(top_lag, 1e-5);  // inertia: the top follows the base late
  for (int n = 0; n < b.mesh.num_nodes(); ++n) {
    const std::array<Real, 3> x = node_x(dyn.positions(), n), X = node_x(b.mesh.X, n);
    EXPECT_NEAR(x[0] - X[0], 0, 1e-7) << "node " << n;
    EXPECT_NEAR(x[1] - X[1], 0, 1e-7) << "node " << n;
    EXPECT_NEAR(x[2] - X[2], 0.01, 1e-7) << "node " << n;
  }
}

TEST(MovingSupport, TurnedBaseTurnsTheBlockRigidly) {
  Block b = make_block();
  MovingSupport turn;
  turn.name = "turntable";
  turn.nodes = b.mesh.node_groups.at("zmin");
  turn.center = {0.01, 0.01, 0};
  turn.axis = {0, 0, 1};
  turn.angle = TimeFunction{{0, 0.1}, {0, 90}};
  DynamicLoads loads;
  loads.supports = {turn};
  DynamicSolver dyn(*b.assembler, *b.solver, loads, options());
  while (dyn.time() < 0.6 - 1e-12) dyn.step();
  Transform quarter;
  quarter.rotation = rotation_axis_angle({0, 0, 1}, 90);
  for (int n = 0; n < b.mesh.num_nodes(); ++n) {
    const std::array<Real, 3> X = node_x(b.mesh.X, n), x = node_x(dyn.positions(), n);
    const std::array<Real, 3> r = quarter.rotate({X[0] - 0.01, X[1] - 0.01, X[2]});
    EXPECT_NEAR(x[0], 0.01 + r[0], 1e-7) << "node " << n;
    EXPECT_NEAR(x[1], 0.01 + r[1], 1e-7) << "node " << n;
    EXPECT_NEAR(x[2], r[2], 1e-7) << "node " << n;
  }
}

TEST(MovingSupport, BadSupportsAreRefused) {
  Block b = make_block();
  const auto refused = [&](MovingSupport s, DynamicsOptions o, const std::string& words) {
    DynamicLoads loads;
    loads.supports = {s};
    expect_refused([&] { DynamicSolver dyn(*b.assembler, *b.solver, loads, o); }, words);
  };
  MovingSupport good;
  good.name = "base";
  good.nodes = b.mesh.node_groups.at("zmin");
  good.path_times = {0, 1};
  good.path_offsets = {{0, 0, 0}, {0, 0, 0.01}};
  MovingSupport s = good;
  s.nodes.push_back(b.mesh.node_groups.at("zmax")[0]);
  refused(s, options(), "moving support 'base': node");  // a free node
  s = good;
  s.nodes = {};
  refused(s, options(), "has no nodes");
  s = good;
  s.nodes.push_back(b.mesh.num_nodes());
  refused(s, options(), "is out of range");
  s = good;
  s.path_times = {1, 0};
  refused(s, options(), "list the times in increasing order");
  s = good;
  s.path_offsets[1][2] = std::numeric_limits<Real>::quiet_NaN();
  refused(s, options(), "non-finite");
  s = good;
  s.angle = TimeFunction{{0, 1}, {0, 90}};
  s.axis = {0, 0, 0};
  refused(s, options(), "zero length");
  DynamicsOptions damped = options();
  damped.rayleigh_stiffness = 1e-3;
  refused(good, damped, "rayleigh_stiffness with a moving support");
}

}  // namespace
}  // namespace softik
