// Reactions of fixed and prescribed sets (outputs.reactions): the clamp of a linear cantilever
// holds the tip load and its moment about the clamp (global balance, exact for the linear model);
// the clamp of an inflated hyperelastic finger under gravity holds exactly its weight (a closed
// cavity's pressure forces sum to zero); a block settled on its base in dynamics carries its
// weight; the CSV has the columns; the runs that do not write reactions refuse the key.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "softik/mesh_generator.hpp"
#include "softik/scene.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

SceneRunResult run_reacting(const std::string& name, const std::string& yaml, fs::path* out = nullptr) {
  const fs::path dir = fresh_dir("reactions_" + name);
  write_file(dir / "s.yaml", yaml);
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  if (out) *out = dir / "out";
  return run_scene(parse_scene((dir / "s.yaml").string()), options);
}

TEST(SceneReactions, LinearClampHoldsTheTipLoadAndItsMoment) {
  const std::array<Real, 3> F{0, 0.2, -0.4};
  fs::path out;
  const SceneRunResult r = run_reacting(
      "linear", R"(mesh: {generator: {type: box, size: [0.1, 0.02, 0.02], cells: [10, 2, 2], cell_type: hex8}}
formulation: linear
materials: [{law: linear, young: 1.0e6, poisson: 0.3}]
fixed: [{plane: {point: [0, 0, 0], normal: [1, 0, 0]}, name: clamp}]
loads: {forces: [{plane: {point: [0.1, 0, 0], normal: [1, 0, 0]}, force: [0, 0.2, -0.4]}]}
solver: {load_steps: 1, residual_tolerance: 1.0e-12, linear_solver: eigen}
outputs: {vtu: false, reactions: true}
)",
      &out);
  ASSERT_EQ(r.reactions.size(), 1u);
  EXPECT_EQ(r.reactions[0].name, "clamp");
  const Real scale = 0.45;
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(r.reactions[0].force[i], -F[i], 1e-9 * scale) << i;
  // The loads' moment about the clamp's centroid (0, 0.01, 0.01), each tip node carrying F / n.
  BoxSpec spec;
  spec.size = {0.1, 0.02, 0.02};
  spec.cells = {10, 2, 2};
  const Mesh mesh = make_box(3, CellType::Hex8, spec);
  const std::vector<int>& tip = mesh.node_groups.at("xmax");
  std::array<Real, 3> M{0, 0, 0};
  for (int n : tip) {
    const Real a[3] = {mesh.X[3 * n] - 0, mesh.X[3 * n + 1] - 0.01, mesh.X[3 * n + 2] - 0.01};
    const Real f[3] = {F[0] / tip.size(), F[1] / tip.size(), F[2] / tip.size()};
    M[0] += a[1] * f[2] - a[2] * f[1];
    M[1] += a[2] * f[0] - a[0] * f[2];
    M[2] += a[0] * f[1] - a[1] * f[0];
  }
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(r.reactions[0].moment[i], -M[i], 1e-9 * scale * 0.1) << i;
  const auto rows = read_csv(out / "s.csv");
  ASSERT_EQ(rows.size(), 3u);  // header, rest, one step
  EXPECT_NEAR(std::stod(rows[2][column(rows[0], "Fz_clamp")]), 0.4, 1e-9);
  EXPECT_NEAR(std::stod(rows[2][column(rows[0], "My_clamp")]), -M[1], 1e-10);
  EXPECT_EQ(std::stod(rows[1][column(rows[0], "Fz_clamp")]), 0);  // the rest state
}

TEST(SceneReactions, InflatedFingerClampHoldsExactlyItsWeight) {
  const Real rho = 1070, g = 9.81;
  const SceneRunResult r =
      run_reacting("finger", R"(mesh: {generator: {type: finger, cell_size: 0.004, cell_type: hex8}}
materials: [{law: neo_hookean, young: 2.0e5, poisson: 0.45}]
fixed: [{group: xmin}]
loads:
  gravity: {density: 1070}
  pressure: [{surface: cavity, value: 20000}]
solver: {load_steps: 4, residual_tolerance: 1.0e-11}
outputs: {vtu: false, reactions: true}
)");
  ASSERT_EQ(r.reactions.size(), 1u);
  EXPECT_EQ(r.reactions[0].name, "xmin");
  ASSERT_EQ(r.pressures.size(), 1u);
  const Real weight = rho * g * (0.1 * 0.02 * 0.02 - r.pressures[0].volume0);  // the solid, not the cavity
  EXPECT_NEAR(r.reactions[0].force[0], 0, 1e-8 * weight);
  EXPECT_NEAR(r.reactions[0].force[1], 0, 1e-8 * weight);
  EXPECT_NEAR(r.reactions[0].force[2], weight, 1e-8 * weight);
  EXPECT_GT(std::abs(r.reactions[0].moment[1]), 1e-4);  // the clamp also holds the bending moment
}

TEST(SceneReactions, SettledBlockCarriesItsWeightInDynamics) {
  const SceneRunResult r = run_reacting(
      "dynamics", R"(mesh: {generator: {type: box, size: [0.02, 0.02, 0.04], cells: [2, 2, 4], cell_type: hex8}}
materials: [{law: neo_hookean, young: 1.0e5, poisson: 0.3}]
fixed: [{group: zmin, name: base}]
loads: {gravity: {density: 1000}}
dynamics: {dt: 0.005, duration: 0.5, rayleigh: {mass: 40}}
outputs: {vtu: false, reactions: true}
)");
  ASSERT_EQ(r.reactions.size(), 1u);
  const Real weight = 1000 * 9.81 * 0.02 * 0.02 * 0.04;
  EXPECT_NEAR(r.reactions[0].force[2], weight, 1e-6 * weight);
  EXPECT_NEAR(r.reactions[0].force[0], 0, 1e-9 * weight);
}

TEST(SceneReactions, RunsWithoutReactionsRefuseTheKey) {
  const std::string body = R"(mesh: {generator: {type: box, size: [0.1, 0.02, 0.02], cells: [4, 1, 1]}}
materials: [{law: neo_hookean, young: 1.0e5, poisson: 0.3}]
)";
  const std::vector<SceneErrorCase> cases = {
      {body + "fixed: [{group: xmin}]\noutputs: {reactions: true}\ninverse:\n  actuators: [{type: force, name: f, "
              "point: [0.1, 0.01, 0.01], direction: [0, 0, 1], max_force: 1}]\n  effectors: [{type: position, name: e, "
              "point: [0.1, 0.01, 0.01], goal: [0.1, 0.01, 0.02]}]\n",
       "outputs.reactions: written by static load ramps and dynamics"},
      {body + "fixed: [{group: xmin, name: a}, {group: xmax, name: a}]\noutputs: {reactions: true}\n",
       "fixed[1].name: 'a' names another fixed or prescribed set"},
      {body + "fixed: [{group: xmin, name: 'a b'}]\n", "fixed[0].name"},
      {body + "loads: {forces: [{group: xmax, force: [0, 0, 1], name: tip}]}\nfixed: [{group: xmin}]\n", "name"},
  };
  expect_scene_build_errors(cases);
}

}  // namespace
}  // namespace softik
