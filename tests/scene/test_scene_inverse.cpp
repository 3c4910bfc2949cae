// Scenes with an `inverse:` section (scene.hpp, docs/scene-format.md): forward mode with an
// imposed pressure, then the inverse of its answer round-trips to that pressure; real-time
// waypoints respect the bounds in every CSV row and report which goals were reached; volume
// effectors with Gauss-Seidel; sensors, cables and point forces built from the scene; CSV
// trajectories; malformed sections named by line:column; the CLI's summary.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "host/io/csv_writer.hpp"
#include "softik/error.hpp"
#include "softik/scene.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

SceneRunResult run(const fs::path& dir, const std::string& name, const std::string& yaml) {
  write_file(dir / (name + ".yaml"), yaml);
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  return run_scene(parse_scene((dir / (name + ".yaml")).string()), options);
}

Real output(const SceneRunResult& r, const std::string& actuator, const std::string& key) {
  for (const ActuatorSummary& a : r.inverse.actuators)
    if (a.name == actuator)
      for (const auto& [k, v] : a.outputs)
        if (k == key) return v;
  ADD_FAILURE() << "no output " << actuator << "." << key;
  return NAN;
}

TEST(SceneInverse, ForwardModeThenInverseRoundTripsToTheImposedPressure) {
  const fs::path dir = fresh_dir("inverse_roundtrip");
  // Forward mode: the pressure imposed (equal bounds), no effector; a probe reads the end face.
  const SceneRunResult fwd =
      run(dir, "fwd", kBlock + R"(outputs: {vtu: false, probes: [{name: tip, point: [0.03, 0.006, 0.006]}]}
inverse:
  mode: converged
  actuators: [{type: pressure, name: cav, surface: cavity0, pressure: 6000}]
)");
  ASSERT_EQ(fwd.probes.size(), 1u);
  EXPECT_EQ(fwd.inverse.unconverged, 0);
  EXPECT_DOUBLE_EQ(output(fwd, "cav", "pressure"), 6000);
  const Real ux = fwd.probes[0].displacement[0];
  EXPECT_GT(ux, 1e-4);  // a real elongation
  char goal[128];
  std::snprintf(goal, sizeof goal, "[%.17g, 0.006, 0.006]", 0.03 + ux);
  // Inverse: find the pressure that puts the end face there.
  const SceneRunResult inv = run(dir, "inv",
                                 kBlock + R"(outputs: {vtu: true}
inverse:
  mode: converged
  actuators: [{type: pressure, name: cav, surface: cavity0, min_pressure: 0, max_pressure: 20000}]
  effectors:
    - {type: position, name: tip, point: [0.03, 0.006, 0.006], axes: [x], tolerance: 3.0e-8, goal: )" +
                                     std::string(goal) + "}\n");
  EXPECT_NEAR(output(inv, "cav", "pressure"), 6000, 1e-6 * 6000);
  ASSERT_EQ(inv.inverse.effectors.size(), 1u);
  const EffectorSummary& tip = inv.inverse.effectors[0];
  EXPECT_EQ(tip.goals, 1);
  EXPECT_EQ(tip.reached, 1);
  EXPECT_LE(tip.final_error, 1e-6 * 0.03);
  EXPECT_TRUE(inv.inverse.all_reached());
  // The CSV: rest row + one row per goal in converged mode; outputs of every constraint.
  const auto rows = read_csv(dir / "out" / "inv.csv");
  ASSERT_EQ(rows.size(), 3u);
  const auto& h = rows[0];
  for (const char* c :
       {"step", "goal", "cav_pressure", "cav_volume_growth", "cav_cavity_volume", "tip_x", "tip_goal_x", "tip_error",
        "status", "solver_iterations", "kkt_residual", "equilibrium_residual", "iterations", "t_assembly",
        "t_factorization", "t_solves", "t_constraint_solve", "t_update", "seconds"})
    column(h, c);
  EXPECT_EQ(rows[1][column(h, "status")], "rest");
  EXPECT_EQ(rows[2][column(h, "status")], "optimal");
  EXPECT_GE(std::stoi(rows[2][column(h, "iterations")]), 2);
  EXPECT_NEAR(std::stod(rows[2][column(h, "cav_pressure")]), 6000, 1e-3);
  EXPECT_TRUE(fs::exists(dir / "out" / "inv.pvd"));
  EXPECT_NE(read_file(dir / "out" / "inv_0001.vtu").find("Name=\"actuation_force\""), std::string::npos);
}

TEST(SceneInverse, RealTimeWaypointsRespectBoundsAndReportUnreachedGoals) {
  const fs::path dir = fresh_dir("inverse_waypoints");
  // The last waypoint needs far more than max_pressure: it is not reached, the pressure saturates.
  const int steps = 6;
  const SceneRunResult r = run(dir, "wp",
                               kBlock + R"(outputs: {vtu: false}
inverse:
  steps_per_target: )" + std::to_string(steps) +
                                   R"(
  actuators: [{type: pressure, name: cav, surface: cavity0, min_pressure: 0, max_pressure: 15000}]
  effectors:
    - type: position
      name: tip
      point: [0.03, 0.006, 0.006]
      axes: [x]
      tolerance: 2.0e-6
      waypoints: [[0.0301, 0, 0], [0.0302, 0, 0], [0.035, 0, 0]]
)");
  EXPECT_EQ(r.inverse.mode, "realtime");
  EXPECT_EQ(r.inverse.goals, 3);
  EXPECT_EQ(r.inverse.steps, 3 * steps);
  const EffectorSummary& tip = r.inverse.effectors.at(0);
  EXPECT_EQ(tip.goals, 3);
  EXPECT_EQ(tip.reached, 2);
  EXPECT_FALSE(r.inverse.all_reached());
  EXPECT_DOUBLE_EQ(output(r, "cav", "pressure"), 15000);
  EXPECT_GT(tip.final_error, 1e-3);
  const auto rows = read_csv(dir / "out" / "wp.csv");
  ASSERT_EQ(rows.size(), 2u + 3 * steps);
  const auto& h = rows[0];
  for (size_t k = 2; k < rows.size(); ++k) {
    const Real p = std::stod(rows[k][column(h, "cav_pressure")]);
    EXPECT_GE(p, 0);
    EXPECT_LE(p, 15000);
    EXPECT_EQ(std::stoi(rows[k][column(h, "goal")]), static_cast<int>((k - 2) / steps));
    EXPECT_EQ(std::stod(rows[k][column(h, "tip_goal_x")]), (k - 2) / steps == 0   ? 0.0301
                                                           : (k - 2) / steps == 1 ? 0.0302
                                                                                  : 0.035);
  }
}

TEST(SceneInverse, VolumeEffectorWithGaussSeidelReachesTheTargetVolume) {
  const fs::path dir = fresh_dir("inverse_volume");
  // The rest volume of cavity0 is 0.018 x 0.006 x 0.006; ask for 3 % more.
  const Real V0 = 0.018 * 0.006 * 0.006, target = 1.03 * V0;
  char yaml[512];
  std::snprintf(yaml, sizeof yaml, R"(outputs: {vtu: false}
inverse:
  mode: converged
  method: gauss_seidel
  actuators: [{type: pressure, name: cav, surface: cavity0, min_pressure: 0}]
  effectors: [{type: volume, name: vol, surface: cavity0, volume: %.17g, tolerance: 1.0e-15}]
)",
                target);
  const SceneRunResult r = run(dir, "vol", kBlock + yaml);
  EXPECT_EQ(r.inverse.method, "gauss_seidel");
  EXPECT_EQ(r.inverse.unconverged, 0);
  EXPECT_NEAR(output(r, "cav", "cavity_volume"), target, 1e-9 * target);
  EXPECT_NEAR(output(r, "cav", "initial_cavity_volume"), V0, 1e-12 * V0);
  EXPECT_GT(output(r, "cav", "pressure"), 0);
  EXPECT_TRUE(r.inverse.all_reached());
}

TEST(SceneInverse, SensorsCablesAndPointForcesAreBuiltFromTheScene) {
  const fs::path dir = fresh_dir("inverse_kinds");
  // A point force pulls the end face along +x; the cavity is only a sensor (its pressure stays 0
  // while its volume grows with the stretch); the cable runs along the body (no effect on the
  // x goal it cannot push toward: its tension stays at its lower bound 0).
  const SceneRunResult r = run(dir, "kinds", kBlock + R"(outputs: {vtu: false}
inverse:
  mode: converged
  actuators:
    - {type: pressure, name: cav, surface: cavity0, sensor: true}
    - {type: force, name: pull, point: [0.03, 0.006, 0.006], direction: [1, 0, 0], min_force: 0, max_force: 5}
    - {type: cable, name: cable, pull_point: [-0.01, 0.006, 0.0015], points: [[0.0, 0.006, 0.0015], [0.03, 0.006, 0.0015]]}
  effectors: [{type: position, name: tip, point: [0.03, 0.006, 0.006], axes: [x], goal: [0.0302, 0, 0], tolerance: 1.0e-8}]
)");
  EXPECT_TRUE(r.inverse.all_reached());
  EXPECT_EQ(output(r, "cav", "pressure"), 0);
  EXPECT_GT(output(r, "cav", "volume_growth"), 0);
  EXPECT_GT(output(r, "pull", "force"), 0);
  EXPECT_LE(output(r, "pull", "force"), 5);
  EXPECT_NEAR(output(r, "cable", "force"), 0, 1e-9);
  EXPECT_LT(output(r, "cable", "displacement"), 0);  // stretched with the body: the cable pays out
}

TEST(SceneInverse, TrajectoryCsvGivesOneGoalPerRow) {
  const fs::path dir = fresh_dir("inverse_trajectory");
  write_file(dir / "traj.csv", "t,x,y,z\n# comment\n0,0.0301,0.006,0.006\n1, 0.0302 ,0.006,0.006\n");
  const std::string head = kBlock +
                           "inverse:\n  actuators: [{type: pressure, name: cav, surface: cavity0}]\n"
                           "  effectors: [{type: position, name: tip, point: [0.03, 0.006, 0.006], trajectory: ";
  write_file(dir / "t.yaml", head + "traj.csv}]\n");
  const Scene scene = parse_scene((dir / "t.yaml").string());
  ASSERT_EQ(scene.inverse.effectors.size(), 1u);
  const auto& goals = scene.inverse.effectors[0].goals;
  ASSERT_EQ(goals.size(), 2u);
  EXPECT_EQ(goals[1][0], 0.0302);
  EXPECT_EQ(goals[0][2], 0.006);
  // Malformed trajectories: the file and line are named.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"t,x,y\n0,1,2\n", "traj.csv:1: the header has no column 'z'"},
      {"x,y,z\n0.03,0.006,0.006\n0.03,abc,0.006\n", "traj.csv:3: column 2: 'abc' is not a finite number"},
      {"x,y,z\n0.03,0.006\n", "traj.csv:2: expected 3 values (as the header), got 2"},
      {"x,y,z\n", "the trajectory has no rows after its header"},
      {"x,y,z,x\n1,2,3,4\n", "traj.csv:1: the header names column 'x' twice"}};
  for (const auto& [text, message] : bad) {
    write_file(dir / "traj.csv", text);
    try {
      parse_scene((dir / "t.yaml").string());
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
      // ... after the scene location of the 'trajectory' value
      const std::string where = (dir / "t.yaml").string() + ":" + position_of(head + "traj.csv}]\n", "traj.csv") + ": ";
      EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u) << e.what();
    }
  }
}

TEST(SceneInverse, MalformedInverseSectionsNameLineAndColumn) {
  const std::string act = "  actuators: [{type: pressure, name: cav, surface: cavity0}]\n";
  // {section, token where the error points (the first occurrence in the scene text), message}
  struct Case {
    std::string section, token, message;
  };
  const std::vector<Case> cases = {
      {"inverse:\n  mode: fast\n" + act, "fast", "inverse.mode: expected one of: realtime, converged"},
      {"inverse:\n  actuators: [{type: pump, name: a}]\n", "pump",
       "inverse.actuators[0].type: expected one of: pressure, cable, force"},
      {"inverse:\n  actuators: [{type: pressure, surface: cavity0}]\n", "{type: pressure",
       "missing required key 'name'"},
      {"inverse:\n  actuators: [{type: pressure, name: a, surface: cavity0, pressure: 1, max_pressure: 2}]\n",
       "max_pressure", "inverse.actuators[0].max_pressure: 'pressure' imposes the value"},
      {"inverse:\n  actuators: [{type: pressure, name: a, surface: cavity0, min_pressure: 3, max_pressure: 2}]\n", "2}",
       "inverse.actuators[0].max_pressure: must be >= min_pressure"},
      {"inverse:\n  actuators: [{type: pressure, name: a, surface: cavity0, sensor: true}]\n", "[{type: pressure",
       "no actuator (every entry is a sensor)"},
      {"inverse:\n  actuators:\n    - {type: pressure, name: a, surface: cavity0}\n"
       "    - {type: cable, name: c, sensor: true, max_force: 3, pull_point: [0, 0, 0], points: [[0.01, 0.006, "
       "0.006]]}\n",
       "max_force", "inverse.actuators[1].max_force: a sensor (sensor: true) only reports"},
      {"inverse:\n" + act + "  effectors: [{type: volume, name: cav, surface: cavity0, volume: 1}]\n", "{type: volume",
       "the name 'cav' is already used"},
      {"inverse:\n" + act + "  effectors: [{type: position, name: e, point: [0, 0, 0]}]\n", "{type: position",
       "give the goal"},
      {"inverse:\n" + act +
           "  effectors:\n    - {type: position, name: e, point: [0.03, 0.006, 0.006], waypoints: [[0, 0, 0], [1, 1, "
           "1]]}\n"
           "    - {type: volume, name: v, surface: cavity0, volumes: [1, 2, 3]}\n",
       "{type: volume", "has 3 goals but 'e' has 2"},
      {"inverse:\n" + act + "  epsilon: -1\n", "-1", "inverse.epsilon: must be > 0"},
      {"inverse:\n" + act + "  effectors: [{type: position, name: e, point: [0, 0, 0], axes: [w], goal: [0, 0, 0]}]\n",
       "w]", "inverse.effectors[0].axes entry: expected one of: x, y, z"},
      {"inverse:\n  mode: converged\n  steps_per_target: 3\n" + act, "steps_per_target",
       "inverse.steps_per_target: applies to mode: realtime only"},
      {"inverse:\n  mode: converged\n  reuse_factorization: 4\n" + act, "reuse_factorization",
       "inverse.reuse_factorization: applies to mode: realtime only"},
      {"inverse:\n  reuse_factorization: -2\n" + act, "-2", "inverse.reuse_factorization: must be >= 0"},
      {"inverse:\n  mode: converged\n  max_iterations: 5\n" + act, "5\n",
       "inverse.max_iterations: must be >= 9 with epsilon"},
  };
  for (const Case& c : cases) {
    const std::string text = kBlock + c.section;
    const std::optional<std::string> what = scene_parse_failure(text, c.section);
    if (!what) continue;
    EXPECT_EQ(what->rfind("s.yaml:" + position_of(text, c.token) + ": ", 0), 0u) << *what;
    EXPECT_NE(what->find(c.message), std::string::npos) << *what;
  }
  // Checks made when the scene is built: a point outside the body, prescribed displacements.
  const std::string outside =
      kBlock + "inverse:\n" + act + "  effectors: [{type: position, name: e, point: [0.5, 0, 0], goal: [0, 0, 0]}]\n";
  try {
    build_scene(parse_scene_string(outside, "s.yaml"));
    ADD_FAILURE() << "accepted a point outside the mesh";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:" + position_of(outside, "{type: position") +
                                         ": inverse.effectors[0] 'e' point"),
              std::string::npos)
        << e.what();
  }
  const std::string prescribed = kBlock + "prescribed: [{group: xmax, displacement: [0.001, 0, 0]}]\ninverse:\n" + act;
  try {
    build_scene(parse_scene_string(prescribed, "s.yaml"));
    ADD_FAILURE() << "accepted prescribed displacements in an inverse scene";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:" + position_of(prescribed, "{group: xmax") +
                                         ": prescribed: displacements cannot be prescribed in an inverse scene"),
              std::string::npos)
        << e.what();
  }
}

TEST(SceneInverse, CliPrintsWhetherTheGoalsWereReached) {
  const fs::path dir = fresh_dir("inverse_cli");
  write_file(dir / "s.yaml", kBlock + R"(outputs: {vtu: false}
inverse:
  mode: converged
  actuators: [{type: pressure, name: cav, surface: cavity0, min_pressure: 0, max_pressure: 1000}]
  effectors: [{type: position, name: tip, point: [0.03, 0.006, 0.006], axes: [x], goal: [0.04, 0, 0]}]
)");
  const std::string command = std::string(SOFTIK_CLI_PATH) + " run " + (dir / "s.yaml").string() + " --out " +
                              (dir / "out").string() + " --quiet >" + (dir / "stdout.txt").string() + " 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);  // a goal not reached is not a success (docs/cli.md)
  const std::string out = read_file(dir / "stdout.txt");
  EXPECT_NE(out.find("inverse problem (converged, qp)"), std::string::npos) << out;
  EXPECT_NE(out.find("effector tip: NOT reached 0/1 goals"), std::string::npos) << out;
  EXPECT_NE(out.find("actuator cav: pressure = 1000"), std::string::npos) << out;
}

/// The pneumatic finger of examples/finger_push (hex8, 4 mm cells), clamped at x = 0.
const std::string kFinger = R"(mesh:
  generator: {type: finger, length: 0.10, width: 0.02, height: 0.02, base_wall: 0.01, tip_wall: 0.01,
              side_wall: 0.004, bottom_wall: 0.004, top_wall: 0.008, cell_size: 0.004, cell_type: hex8}
materials: {law: neo_hookean, young: 2.0e5, poisson: 0.45}
fixed: [{group: xmin}]
)";

TEST(SceneInverse, APressureActuatorOnlyPushesUnlessGivenAMinimum) {
  // min_pressure defaults to 0 (a cavity pushes); max_pressure stays unbounded without a value.
  const std::string head = kBlock + "inverse:\n  actuators: [{type: pressure, name: cav, surface: cavity0";
  const std::string tail =
      "}]\n  effectors: [{type: position, name: tip, point: [0.03, 0.006, 0.006], goal: [0.0301, 0.006, 0.006]}]\n";
  const auto bounds = [&](const std::string& keys) {
    return parse_scene_string(head + keys + tail, "s.yaml").inverse.actuators.at(0).force;
  };
  EXPECT_EQ(bounds("").lo, 0);
  EXPECT_EQ(bounds("").hi, kInf);
  EXPECT_EQ(bounds(", max_pressure: 1000").lo, 0);
  EXPECT_EQ(bounds(", max_pressure: 1000").hi, 1000);
  EXPECT_EQ(bounds(", min_pressure: -5000").lo, -5000);  // suction, when asked for
  EXPECT_EQ(bounds(", pressure: -2000").lo, -2000);      // an imposed value
  EXPECT_EQ(bounds(", pressure: -2000").hi, -2000);
  const std::string e = scene_build_error(head + ", max_pressure: -1000" + tail);
  EXPECT_NE(e.find("inverse.actuators[0].max_pressure: must be >= min_pressure (0"), std::string::npos) << e;
  EXPECT_NE(e.find("min_pressure defaults to 0 (a cavity that only pushes); give min_pressure < 0 for suction"),
            std::string::npos)
      << e;
}

TEST(SceneInverse, AForceDirectionThatOverflowsIsRefusedAsSuch) {
  // Its length squared underflows to 0: it was taken as "no direction", a force free in 3D.
  const std::string head =
      kBlock + "inverse:\n  actuators: [{type: force, name: push, point: [0.03, 0.006, 0.006], direction: ";
  const SceneErrorCase cases[] = {
      {head + "[1.0e-200, 0, 0]}]\n",
       "inverse.actuators[0].direction: the length of [1e-200, 0, 0] underflows double precision"},
      {head + "[0, 1.0e+200, 0]}]\n",
       "inverse.actuators[0].direction: the length of [0, 1e+200, 0] overflows double precision"},
  };
  expect_scene_build_errors(cases);
  EXPECT_EQ(scene_build_error(head + "[0, 0, 0]}]\n"), "(no error)");
}

// A real-time step with no upper pressure bound toward a goal 0.5 m away applied ~10 MPa and
// inverted cells: the run wrote NaN von Mises stresses into the second .vtu. No non-finite number
// reaches a file: the run stops with a numerical error naming the step and the cell, the CSV
// rows before it are finite and no .vtu of that state is written.
TEST(SceneInverse, AStepThatInvertsCellsStopsTheRunInsteadOfWritingNaN) {
  const fs::path dir = fresh_dir("scene_inverse_inverted");
  write_file(dir / "unbounded.yaml", kFinger + R"(inverse:
  steps_per_target: 4
  actuators: [{type: pressure, name: cav, surface: cavity}]
  effectors: [{type: position, name: tip, point: [0.1, 0.01, 0.01], goal: [0.0, 0.01, 0.5]}]
outputs: {vtu: true}
)");
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  try {
    (void)run_scene(parse_scene((dir / "unbounded.yaml").string()), options);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Numerical) << e.what();
    EXPECT_NE(std::string(e.what()).find("unbounded_0001.vtu: not written: step 1 left cell"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("max_pressure"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(dir / "out" / "unbounded_0000.vtu"));
  EXPECT_FALSE(fs::exists(dir / "out" / "unbounded_0001.vtu"));
  const std::string csv = read_file(dir / "out" / "unbounded.csv");
  EXPECT_EQ(csv.find("nan"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("inf"), std::string::npos) << csv;
}

// A converged solve that fails restores its last converged increment; its CSV row described that
// state's pressure and penetration but the contacts of the last step it tried (pressed, with
// forces, while the state written was at rest). With min_increment: 1 the first failure ends the
// solve at the rest state: every column of the row must be the rest state's.
TEST(SceneInverse, AFailedConvergedSolveReportsTheStateItKeeps) {
  const fs::path dir = fresh_dir("scene_inverse_failed_contact");
  const std::string scene = kFinger + R"(contact:
  obstacles: [{name: wall, type: plane, point: [0, 0, 0.022], normal: [0, 0, -1]}]
  nodes: [{box: {min: [0.08, -1, -1], max: [1, 1, 1]}}]
inverse:
  mode: converged
  epsilon: 1.0e-9
  max_iterations: 3
  min_increment: )";
  const std::string tail = R"(
  actuators: [{type: pressure, name: cav, surface: cavity, max_pressure: 30000}]
  effectors: [{type: position, name: tip, point: [0.10, 0.01, 0.02], axes: [x, z], goal: [0.0995, 0.01, 0.0245]}]
outputs: {vtu: false}
)";
  const SceneRunResult r = run(dir, "failed", scene + "1" + tail);
  EXPECT_EQ(r.inverse.unconverged, 1);
  const auto rows = read_csv(dir / "out" / "failed.csv");
  ASSERT_EQ(rows.size(), 3u);  // header, rest, goal 0
  const auto& h = rows[0];
  const auto at = [&](const std::string& name) { return std::stod(rows[2].at(column(h, name))); };
  EXPECT_EQ(at("cav_pressure"), 0);
  EXPECT_EQ(at("tip_z"), 0.02);  // the rest state, as the solve left x
  EXPECT_EQ(at("contacts"), 0);
  EXPECT_EQ(at("pressed_contacts"), 0);
  EXPECT_EQ(at("normal_force"), 0);
  EXPECT_EQ(at("max_penetration"), 0);
  // The keys' limits.
  for (const char* bad : {"0", "1.5", "-1"})
    EXPECT_NE(scene_build_error(scene + bad + tail).find("inverse.min_increment: must be in (0, 1]"), std::string::npos)
        << bad;
  EXPECT_NE(scene_build_error(kBlock + "inverse:\n  min_increment: 0.5\n  actuators: [{type: pressure, name: cav, "
                                       "surface: cavity0}]\n")
                .find("inverse.min_increment: applies to mode: converged only"),
            std::string::npos);
}

// Every scene run writes its CSV through io_detail::CsvWriter: a row with a field that a stream
// wrote for NaN or infinity is refused, naming the file, the row and the column, and nothing of
// it reaches the file; status words such as "infeasible" are not numbers and pass.
TEST(SceneCsv, ARowWithANonFiniteFieldIsRefusedAndNotWritten) {
  const fs::path dir = fresh_dir("scene_csv_non_finite");
  const std::string path = (dir / "t.csv").string();
  io_detail::CsvWriter csv;
  csv.open(path);
  csv << "step,p,status\n";
  csv.end_row("the header");
  csv << 1 << "," << 2.5 << ",infeasible\n";
  csv.end_row("step 1");
  for (const Real bad : {std::nan(""), -std::nan(""), kInf, -kInf}) {
    csv << 2 << "," << bad << ",optimal\n";
    try {
      csv.end_row("step 2");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Numerical);
      const std::string w = e.what();
      EXPECT_NE(w.find("'" + path + "': step 2: column 'p' is "), std::string::npos) << w;
    }
  }
  const Real big = 1e300;
  csv << 3 << "," << big * big << ",optimal\n";  // overflows to inf
  EXPECT_THROW(csv.end_row("step 3"), Error);
  csv << 4 << "," << -0.0 << ",optimal\n";
  csv.end_row("step 4");
  EXPECT_EQ(read_file(dir / "t.csv"), "step,p,status\n1,2.5,infeasible\n4,-0,optimal\n");
  EXPECT_EQ(io_detail::first_non_finite_field("1,nan(0x8)\n"), 1);
  EXPECT_EQ(io_detail::first_non_finite_field("inf,2\n"), 0);
  EXPECT_EQ(io_detail::first_non_finite_field("info,nano,-2\n"), -1);
  io_detail::CsvWriter unwritable;
  EXPECT_THROW(unwritable.open((dir / "missing" / "t.csv").string()), Error);
}

// Without .vtu outputs the same unbounded finger reached its second step with an inverted cell and
// the run stopped with the static solver's advice ("take smaller load steps, or use
// StableNeoHookean"), which blames the law for what the missing pressure bound did. The reason
// now names the actuation that drove the body there and the bound it lacks.
TEST(SceneInverse, AnInvertedStateNamesTheActuatorBoundItLacks) {
  const fs::path dir = fresh_dir("scene_inverse_inverted_no_vtu");
  const std::string head = kFinger + R"(inverse:
  steps_per_target: 6
  actuators: [{type: pressure, name: cav, surface: cavity)";
  const std::string tail = R"(}]
  effectors: [{type: position, name: tip, point: [0.1, 0.01, 0.01], goal: [0.09, 0.01, 0.05]}]
outputs: {vtu: false}
)";
  try {
    (void)run(dir, "unbounded", head + tail);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string w = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::Numerical) << w;
    EXPECT_NE(w.find("is inverted in the current configuration"), std::string::npos) << w;  // the cause
    EXPECT_NE(w.find("'cav' has no upper bound (max_pressure / max_force): bound it"), std::string::npos) << w;
    EXPECT_NE(w.find("an effector's max_shift"), std::string::npos) << w;
  }
  // The CSV rows before the failing step are finite and in the file.
  const auto rows = read_csv(dir / "out" / "unbounded.csv");
  ASSERT_GE(rows.size(), 3u);  // header, rest, step 1
  // With a bound the same goal is approached without inverting a cell: the run ends (exit 2:
  // the goal is out of reach of 30 kPa) instead of throwing.
  const SceneRunResult r = run(dir, "bounded", head + ", max_pressure: 30000" + tail);
  EXPECT_EQ(r.inverse.steps, 6);
}

}  // namespace
}  // namespace softik
