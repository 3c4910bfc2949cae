// Scenes with inverse: and dynamics: (control in the loop) or inverse: and contact: (docs/
// scene-format.md, "inverse"; docs/inverse_contact.md): a controlled block elongates to an
// effector goal along x, with the pressure within its bounds in every CSV row and the goal
// sequence in the `goal` column; a force target on a wall is met and reported; bad combinations
// are refused naming line and column.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "softik/error.hpp"
#include "softik/scene.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

const std::string kActuator =
    "  actuators: [{type: pressure, name: cav, surface: cavity0, min_pressure: 0, max_pressure: 40000}]\n";

/// The coarse pneumatic finger of examples/finger_push (top face at z = 0.02) under a wall, the
/// plane z = wall_z, that its last 20 mm can touch; `inverse` is the scene's inverse: section.
std::string finger_under_wall(const std::string& wall_z, const std::string& inverse) {
  return R"(mesh:
  generator: {type: finger, length: 0.10, width: 0.02, height: 0.02, base_wall: 0.01, tip_wall: 0.01,
              side_wall: 0.004, bottom_wall: 0.004, top_wall: 0.008, cell_size: 0.004, cell_type: hex8}
materials: {law: neo_hookean, young: 2.0e5, poisson: 0.45}
fixed: [{group: xmin}]
contact:
  obstacles: [{name: wall, type: plane, point: [0, 0, )" +
         wall_z + R"(], normal: [0, 0, -1]}]
  nodes: [{box: {min: [0.08, -1, -1], max: [1, 1, 1]}}]
)" + inverse +
         "outputs: {vtu: false}\n";
}

TEST(SceneControl, ADynamicSceneWithAnInverseSectionControlsTheInputsEveryStep) {
  const fs::path dir = fresh_dir("scene_control_dynamic");
  // The block's end face centre moves along +x only when inflated: goals along x.
  const std::string text = kBlock +
                           "dynamics: {dt: 0.005, duration: 0.3, density: 1070, rayleigh: {mass: 150}}\n"
                           "inverse:\n"
                           "  epsilon: 1.0e-10\n"
                           "  steps_per_target: 30\n" +
                           kActuator +
                           "  effectors: [{type: position, name: end, point: [0.03, 0.006, 0.006], axes: [x],\n"
                           "               waypoints: [[0.0302, 0, 0], [0.0304, 0, 0]], tolerance: 1.0e-7}]\n"
                           "outputs: {vtu: false}\n";
  write_file(dir / "control.yaml", text);
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  const SceneRunResult r = run_scene(parse_scene((dir / "control.yaml").string()), options);
  ASSERT_TRUE(r.dynamics.enabled);
  ASSERT_TRUE(r.inverse.enabled);
  EXPECT_EQ(r.inverse.mode, "dynamic");
  ASSERT_EQ(r.inverse.effectors.size(), 1u);
  EXPECT_EQ(r.inverse.effectors[0].goals, 2);
  EXPECT_EQ(r.inverse.effectors[0].reached, 2) << "final error " << r.inverse.effectors[0].final_error;
  EXPECT_TRUE(unmet_goals(r).empty()) << unmet_goals(r);
  const auto rows = read_csv(r.csv_path);
  ASSERT_EQ(rows.size(), 2u + 60u);  // header, rest state, 60 steps
  const size_t p = column(rows[0], "cav_pressure"), goal = column(rows[0], "goal"),
               status = column(rows[0], "control_status"), x = column(rows[0], "end_x");
  for (size_t k = 2; k < rows.size(); ++k) {
    const Real pressure = std::stod(rows[k][p]);
    EXPECT_GE(pressure, 0) << "row " << k;
    EXPECT_LE(pressure, 40000) << "row " << k;
    EXPECT_EQ(rows[k][goal], k - 2 < 30 ? "0" : "1") << "row " << k;
    EXPECT_EQ(rows[k][status], "optimal") << "row " << k;
  }
  EXPECT_NEAR(std::stod(rows.back()[x]), 0.0304, 1e-7);
  EXPECT_EQ(rows[1][status], "rest");
}

TEST(SceneControl, AForceTargetOnAWallIsMetInAStaticInverseScene) {
  const fs::path dir = fresh_dir("scene_control_force");
  // The coarse pneumatic finger of examples/finger_push: a wall 0.5 mm above its top face near
  // the tip, pressed with 0.02 N. (A flat face pressed flat on a wall, a dozen contacts at once,
  // is a degenerate problem the converged solve does not settle: docs/inverse_contact.md.)
  const std::string text = finger_under_wall("0.0205", R"(inverse:
  mode: converged
  actuators: [{type: pressure, name: cav, surface: cavity, min_pressure: 0, max_pressure: 30000}]
  force_targets: [{name: push, obstacle: wall, force: 0.02, tolerance: 1.0e-6}]
)");
  write_file(dir / "force.yaml", text);
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  const SceneRunResult r = run_scene(parse_scene((dir / "force.yaml").string()), options);
  ASSERT_EQ(r.inverse.force_targets.size(), 1u);
  EXPECT_TRUE(r.inverse.force_targets[0].met()) << r.inverse.force_targets[0].force << " N";
  EXPECT_NEAR(r.inverse.force_targets[0].force, 0.02, 1e-6);
  EXPECT_TRUE(r.inverse.all_reached());
  const auto rows = read_csv(r.csv_path);
  const size_t force = column(rows[0], "force_push"), normal = column(rows[0], "normal_force"),
               penetration = column(rows[0], "max_penetration");
  EXPECT_NEAR(std::stod(rows.back()[force]), 0.02, 1e-6);
  EXPECT_NEAR(std::stod(rows.back()[normal]), 0.02, 1e-6);
  EXPECT_LE(std::stod(rows.back()[penetration]), 1e-9);
  EXPECT_GT(std::stod(rows.back()[column(rows[0], "pressed_contacts")]), 0);
}

// A zero force target is met at rest (pressure 0, nothing touching): the converged solve once
// ran 450 iterations and exited 2, its relative residual round-off over a round-off force scale;
// a Newton step that moves nothing (|dx| <= 1e-12 x the model size) is equilibrium, as in the
// static solver.
TEST(SceneControl, AZeroForceTargetConvergesAtRest) {
  const fs::path dir = fresh_dir("scene_control_zero_force");
  write_file(dir / "zero.yaml", finger_under_wall("0.0205", R"(inverse:
  mode: converged
  actuators: [{type: pressure, name: cav, surface: cavity, min_pressure: 0, max_pressure: 30000}]
  force_targets: [{name: push, obstacle: wall, force: 0, tolerance: 1.0e-6}]
)"));
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  const SceneRunResult r = run_scene(parse_scene((dir / "zero.yaml").string()), options);
  EXPECT_EQ(r.inverse.unconverged, 0) << r.inverse.last_message;
  EXPECT_TRUE(r.inverse.all_reached());
  EXPECT_TRUE(unmet_goals(r).empty()) << unmet_goals(r);
  const auto rows = read_csv(r.csv_path);
  EXPECT_LT(std::stoi(rows.back()[column(rows[0], "iterations")]), 20);
  EXPECT_EQ(std::stod(rows.back()[column(rows[0], "cav_pressure")]), 0.0);
}

// Nodes that start inside an obstacle are warned in an inverse run as in dynamics, and the CSV's
// max_penetration is that of the state in its row: the rest row once said 0 for a body whose
// top face started 1 mm inside the wall.
TEST(SceneControl, AnInverseRunWarnsOfNodesStartingInsideAnObstacleAndReportsTheirDepth) {
  const fs::path dir = fresh_dir("scene_control_inside");
  const std::string text = finger_under_wall("0.019", R"(inverse:
  steps_per_target: 1
  actuators: [{type: pressure, name: cav, surface: cavity, min_pressure: 0, max_pressure: 30000}]
  effectors: [{type: position, name: tip, point: [0.1, 0.01, 0.01], axes: [x], goal: [0.1, 0, 0]}]
)");
  write_file(dir / "inside.yaml", text);
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  std::ostringstream warnings;
  options.warnings = &warnings;
  SceneRunResult r;
  ASSERT_NO_THROW(r = run_scene(parse_scene((dir / "inside.yaml").string()), options)) << warnings.str();
  EXPECT_NE(warnings.str().find("start interpenetrating (deepest 0.001"), std::string::npos) << warnings.str();
  EXPECT_NE(warnings.str().find("into obstacle 'wall'"), std::string::npos) << warnings.str();
  bool listed = false;
  for (const std::string& w : r.warnings) listed = listed || w.find("start interpenetrating") != std::string::npos;
  EXPECT_TRUE(listed);
  const auto rows = read_csv(r.csv_path);
  ASSERT_GE(rows.size(), 3u);
  EXPECT_NEAR(std::stod(rows[1][column(rows[0], "max_penetration")]), 0.001, 1e-12);  // the rest state
}

TEST(SceneControl, BadCombinationsAreRefusedNamingLineAndColumn) {
  const std::string wall =
      "contact:\n  obstacles: [{name: wall, type: plane, point: [0.031, 0, 0], normal: [-1, 0, 0]}]\n";
  const std::string dynamics = "dynamics: {dt: 0.01, duration: 0.1, density: 1070}\n";
  struct Case {
    std::string text, token, message;
  };
  const std::vector<Case> cases = {
      {wall + "inverse:\n" + kActuator + "  force_targets: [{name: push, obstacle: floor, force: 1}]\n", "{name: push",
       "inverse.force_targets 'push': no contact obstacle is named 'floor' (obstacles: 'wall')"},
      {"inverse:\n" + kActuator + "  force_targets: [{name: push, obstacle: wall, force: 1}]\n", "{name: push",
       "the scene has no contact.obstacles"},
      {wall + "inverse:\n" + kActuator + "  force_targets: [{name: push, obstacle: wall, force: -1}]\n", "-1",
       "inverse.force_targets[0].force: must be a finite force >= 0"},
      {wall + "inverse:\n" + kActuator + "  force_targets: [{name: push, force: 1}]\n", "{name: push",
       "give the obstacle"},
      {wall + "inverse:\n  method: gauss_seidel\n" + kActuator +
           "  force_targets: [{name: push, obstacle: wall, force: 1}]\n",
       "{name: push", "need the QP method"},
      {wall + dynamics + "inverse:\n" + kActuator + "  force_targets: [{name: push, obstacle: wall, force: 1}]\n",
       "{name: push", "contact force targets are solved in static inverse problems"},
      {dynamics + "inverse:\n  mode: converged\n" + kActuator, "mode", "converged solves are static"},
      {dynamics + "inverse:\n  actuator_stiffness: true\n" + kActuator, "actuator_stiffness",
       "the actuators' stiffness is always in the time step's tangent"},
      {"contact:\n  between_parts: true\ninverse:\n" + kActuator, "between_parts",
       "a static inverse problem cannot hold a free part"},
      {wall, "contact", "contact: is solved in the dynamic loop or inside an inverse problem"},
  };
  for (const Case& c : cases) {
    const std::optional<std::string> what = scene_parse_failure(kBlock + c.text, c.text);
    if (!what) continue;
    EXPECT_EQ(what->rfind("s.yaml:", 0), 0u) << *what;
    EXPECT_NE(what->find(c.message), std::string::npos) << *what;
  }
}

}  // namespace
}  // namespace softik
