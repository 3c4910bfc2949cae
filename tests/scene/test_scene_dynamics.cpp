// Scenes with `dynamics:` and `contact:` (issue 15): a block dropped on a table runs end to end
// (CSV time series, .vtu/.pvd), its last row carrying the block's weight in contact forces; and
// every bad value of the new keys is an error naming its line and the fix.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/expect_refused.hpp"
#include "tests/scene_test_support.hpp"
#include "softik/scene.hpp"

namespace softik {
namespace {

const char* kDropScene = R"(name: drop
mesh: {generator: {type: box, size: [0.05, 0.05, 0.05], origin: [0, 0, 0.002], cells: [2, 2, 2], cell_type: hex8}}
formulation: linear
materials: {law: linear, young: 1.0e5, poisson: 0.3}
loads:
  gravity: {density: 1000}
)";

TEST(SceneDynamics, ABlockDroppedOnATableComesToRestOnIt) {
  const std::string yaml = std::string(kDropScene) + R"(dynamics:
  dt: 0.01
  duration: 0.5
contact:
  obstacles:
    - {name: table, type: plane, point: [0, 0, 0], normal: [0, 0, 1], friction: 0.4}
outputs:
  every: 10
  probes:
    - {name: top, point: [0.025, 0.025, 0.052]}
)";
  const fs::path out = fresh_dir("dynamics_drop");
  const SceneRunResult r = run_scene(parse_scene_string(yaml, "drop.yaml"), {out.string(), nullptr, nullptr});
  EXPECT_TRUE(r.dynamics.enabled);
  EXPECT_EQ(r.dynamics.steps, 50);
  EXPECT_NEAR(r.dynamics.time, 0.5, 1e-12);
  EXPECT_EQ(r.dynamics.unconverged_contact_solves, 0);
  EXPECT_EQ(unmet_goals(r), "");
  const Real weight = 1000 * 0.05 * 0.05 * 0.05 * 9.81;
  EXPECT_NEAR(r.dynamics.normal_force, weight, 1e-6 * weight);
  EXPECT_LE(r.dynamics.max_penetration, 1e-9);
  const auto rows = read_csv(out / "drop.csv");
  ASSERT_EQ(rows.size(), 52u);  // header, the initial state and 50 steps
  const std::vector<std::string>& header = rows.front();
  auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<size_t>(it - header.begin());
  };
  EXPECT_EQ(std::stod(rows[1][column("time")]), 0.0);
  EXPECT_EQ(std::stod(rows[1][column("contacts")]), 0.0);
  EXPECT_NEAR(std::stod(rows.back()[column("contact_fz")]), weight, 1e-6 * weight);
  // It fell 2 mm onto the table: the top moved down by about that (plus its compression).
  EXPECT_NEAR(std::stod(rows.back()[column("uz_top")]), -0.002, 2e-4);
  EXPECT_LT(std::stod(rows.back()[column("kinetic_energy")]), 1e-9);
  EXPECT_TRUE(fs::exists(out / "drop.pvd"));
  EXPECT_EQ(r.vtu_files, 6);  // steps 0, 10, ..., 50
  EXPECT_TRUE(fs::exists(out / "drop_0050.vtu"));
}

TEST(SceneDynamics, BadValuesNameTheirKey) {
  const std::string base = kDropScene;
  const std::string dyn = "dynamics: {dt: 0.01, duration: 0.1}\n";
  const SceneErrorCase cases[] = {
      {base + "contact: {obstacles: [{type: plane}]}\n", "add a dynamics: section"},
      {base + "dynamics: {dt: -0.01, duration: 1}\n", "dynamics.dt: must be a positive time step"},
      {base + "dynamics: {dt: 0.01}\n", "duration"},
      {base + "dynamics: {dt: 0.01, duration: 1, scheme: leapfrog}\n", "backward_euler"},
      {base + "dynamics: {dt: 0.01, duration: 1, newmark: {beta: 0.25}}\n", "scheme: newmark only"},
      {base + "dynamics: {dt: 0.01, duration: 1, scheme: newmark, newmark: {beta: 0.1}}\n", "unconditionally stable"},
      {base + "dynamics: {dt: 0.01, duration: 1, rayleigh: {mass: -1}}\n", "alpha must be >= 0"},
      {base + "dynamics: {dt: 0.01, duration: 1, density: 500}\n", "differs from dynamics.density"},
      {base + dyn + "contact: {obstacles: [{type: plane, friction: -0.1}]}\n", "mu must be >= 0"},
      {base + dyn + "contact: {obstacles: [{type: sphere, radius: 0.1, normal: [0, 0, 1]}]}\n",
       "not a key of a sphere"},
      {base + dyn + "contact: {obstacles: [{type: sphere}]}\n", "radius"},
      {base + dyn + "contact: {obstacles: [{type: cone}]}\n", "cylinder"},
      {base + dyn + "contact: {obstacles: [{type: plane, normal: [0, 0, 0]}]}\n", "non-zero direction"},
      {base + dyn + "contact: {obstacles: [{type: plane, path: [[0, 0, 0, 0], [0, 1, 0, 0]]}]}\n", "increasing order"},
      {base + dyn + "contact: {obstacles: [{type: plane}, {type: plane}]}\n", "already used"},
      {base + dyn + "contact: {obstacles: [{type: mesh, file: missing.stl}]}\n", "missing.stl"},
      {base + dyn + "contact: {between_parts: false}\n", "nothing can touch"},
      {base + dyn + "contact: {obstacles: [{type: plane}], friction: 0.3}\n", "between_parts: true"},
      {base + dyn + "contact: {obstacles: [{type: plane}], distance: -1}\n", "contact distance must be >= 0"},
      {std::string(kDropScene) + "  pressure: []\n" + "dynamics: {dt: 0.01, duration: 1}\ninverse: {}\n", "inverse"},
  };
  expect_scene_build_errors(cases);
  // A gravity table over time without dynamics.
  const std::string no_dynamics = std::string(R"(mesh: {generator: {type: box, cells: [1, 1, 1]}}
materials: {law: linear, young: 1.0e5, poisson: 0.3}
fixed: [{group: zmin}]
loads: {gravity: {density: 1000, over_time: [[0, 0], [1, 1]]}}
)");
  EXPECT_NE(scene_build_error(no_dynamics).find("needs a dynamics: section"), std::string::npos)
      << scene_build_error(no_dynamics);
}

TEST(SceneDynamics, AContactDistanceAboveTheSmallestElementIsRefusedAtRun) {
  const std::string yaml = std::string(kDropScene) + R"(dynamics: {dt: 0.01, duration: 0.02}
contact:
  obstacles: [{name: table, type: plane}]
  distance: 0.1
)";
  const fs::path out = fresh_dir("dynamics_distance");
  try {
    run_scene(parse_scene_string(yaml, "d.yaml"), {out.string(), nullptr, nullptr});
    ADD_FAILURE() << "accepted a contact distance of 0.1 with 0.025 elements";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("smallest element"), std::string::npos) << e.what();
  }
}

/// The tendon-driven beam of examples/cable_finger, its cable given by `cable` (YAML lines).
std::string cable_beam(const std::string& cable) {
  return std::string(R"(mesh: {generator: {type: box, size: [0.10, 0.02, 0.02], cells: [10, 2, 2], cell_type: hex8}}
formulation: hyperelastic
materials: {law: neo_hookean, young: 2.0e5, poisson: 0.45}
fixed: [{group: xmin}]
outputs:
  vtu: false
  probes: [{name: tip, point: [0.1, 0.01, 0.01]}]
)") + cable;
}

const char* kTendonPoints =
    "[[0.0, 0.01, 0.002], [0.025, 0.01, 0.002], [0.05, 0.01, 0.002], [0.075, 0.01, 0.002], "
    "[0.1, 0.01, 0.002]]";

TEST(SceneDynamics, ACableHeldAtATensionSettlesWhereTheStaticSolveAtThatTensionIs) {
  // Pulled to 1.5 N and held, the damped beam comes to rest at the static equilibrium with the
  // same tension (the inverse section in forward mode: the cable's force bounds equal).
  const std::string dynamic = cable_beam(std::string(R"(loads:
  cable:
    - name: tendon
      pull_point: [-0.01, 0.01, 0.002]
      points: )") + kTendonPoints + R"(
      force: 1.5
      over_time: [[0, 0], [0.05, 1]]
dynamics: {dt: 0.01, duration: 1.0, density: 1070, rayleigh: {mass: 40.0}, residual_tolerance: 1.0e-10}
)");
  const std::string statics = cable_beam(std::string(R"(solver: {residual_tolerance: 1.0e-12}
inverse:
  mode: converged
  actuators:
    - type: cable
      name: tendon
      pull_point: [-0.01, 0.01, 0.002]
      points: )") + kTendonPoints + R"(
      force: 1.5
)");
  const fs::path out = fresh_dir("dynamics_cable");
  const SceneRunResult d = run_scene(parse_scene_string(dynamic, "cable.yaml"), {out.string(), nullptr, nullptr});
  const SceneRunResult s =
      run_scene(parse_scene_string(statics, "static.yaml"), {(out / "static").string(), nullptr, nullptr});
  ASSERT_EQ(d.probes.size(), 1u);
  ASSERT_EQ(s.probes.size(), 1u);
  EXPECT_EQ(d.dynamics.cut_steps, 0);
  const std::array<Real, 3> ud = d.probes[0].displacement, us = s.probes[0].displacement;
  std::printf("tip: dynamic (%.9f, %.9f), static (%.9f, %.9f); %d Newton iterations in %d steps\n", ud[0], ud[2], us[0],
              us[2], d.dynamics.newton_iterations, d.dynamics.steps);
  EXPECT_LT(us[2], -0.005);  // the tendon bends the beam down
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(ud[i], us[i], 1e-6 * std::abs(us[2])) << "component " << i;
  EXPECT_LT(d.dynamics.kinetic_energy, 1e-12);
  // The cable's exact stiffness (Woodbury) keeps Newton quadratic: a few iterations per step.
  EXPECT_LE(d.dynamics.newton_iterations, 4 * d.dynamics.steps);
  // The CSV has the tension and the cable's length; the tension follows the table.
  const auto rows = read_csv(out / "cable.csv");
  const std::vector<std::string>& header = rows.front();
  const auto col = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<size_t>(it - header.begin());
  };
  EXPECT_NEAR(std::stod(rows[4][col("T_tendon")]), 1.5 * 0.03 / 0.05, 1e-12);  // step 3, t = 0.03
  EXPECT_NEAR(std::stod(rows.back()[col("T_tendon")]), 1.5, 1e-12);
  EXPECT_LT(std::stod(rows.back()[col("length_tendon")]), std::stod(rows[1][col("length_tendon")]));
}

TEST(SceneDynamics, BadCableLoadsNameTheirKey) {
  const std::string dyn = "dynamics: {dt: 0.01, duration: 0.02, density: 1000}\n";
  const std::string cable =
      std::string("loads:\n  cable:\n    - {name: c, pull_point: [-0.01, 0.01, 0.002], points: ") + kTendonPoints;
  const SceneErrorCase cases[] = {
      {cable_beam(cable + ", force: -1}\n" + dyn), "a cable only pulls"},
      {cable_beam(cable + ", force: 1, over_time: [[0, 1], [1, -1]]}\n" + dyn), "factors >= 0"},
      {cable_beam(cable + "}\n" + dyn), "force"},
      {cable_beam(cable + ", force: 1}\n"), "inverse actuator with a fixed force"},
      {cable_beam("loads:\n  cable:\n    - {name: c, pull_point: [0, 0, 0], points: [], force: 1}\n" + dyn), "empty"},
      {cable_beam("loads:\n  cable:\n    - {name: c, pull_point: [0, 0, 0], points: [[5, 5, 5]], force: 1}\n" + dyn),
       "loads.cable[0] 'c' point 0"},
      {cable_beam(cable +
                  ", force: 1}\n    - {name: c, pull_point: [0, 0, 0], points: [[0.1, 0.01, 0.01]], force: 1}\n" + dyn),
       "already used"},
  };
  expect_scene_build_errors(cases);
}

/// The build's warnings, one per line.
std::string build_warnings(const std::string& yaml) {
  std::string all;
  for (const std::string& w : build_scene(parse_scene_string(yaml, "s.yaml")).warnings) all += w + "\n";
  return all;
}

TEST(SceneDynamics, StepCountsAreCappedAndAnOverflowIsNamed) {
  const std::string base = kDropScene;
  const std::string dyn = "dynamics: {dt: 0.01, duration: 0.1}\n";
  const SceneErrorCase cases[] = {
      {base + "dynamics: {dt: 1.0e-9, duration: 1}\n",
       "dynamics.dt: dynamics.duration / dynamics.dt = 1 / 1e-09 = 1e+09 steps is above the cap of 1e+07"},
      {base + "dynamics: {dt: 1.0e-300, duration: 1.0e+300}\n",
       "dynamics.dt: dynamics.duration / dynamics.dt = 1e+300 / 1e-300 overflows double precision"},
      // dt above the duration: its one step would simulate to t = dt.
      {base + "dynamics: {dt: 0.5, duration: 0.1}\n", "dynamics.dt: 0.5 is longer than dynamics.duration (0.1)"},
      {base + "dynamics: {dt: 0.01, duration: 0.1, max_iterations: 100000}\n",
       "dynamics.max_iterations: 100000 is above the cap of 10000"},
      {base + "dynamics: {dt: 0.01, duration: 0.1, max_iterations: 0}\n",
       "dynamics.max_iterations: must be >= 1, got 0"},
      {base + dyn + "contact: {obstacles: [{type: plane}], max_iterations: 1000000000}\n",
       "contact.max_iterations: 1000000000 is above the cap of 100000"},
      {base + dyn + "contact: {obstacles: [{type: plane}], max_iterations: 0}\n",
       "contact.max_iterations: must be >= 1"},
  };
  expect_scene_build_errors(cases);
  EXPECT_EQ(parse_scene_string(base + "dynamics: {dt: 0.1, duration: 0.1}\n", "s.yaml").dynamics.steps, 1);
  EXPECT_EQ(parse_scene_string(base + dyn + "contact: {obstacles: [{type: plane}], max_iterations: 100000}\n", "s.yaml")
                .contact.options.solver.max_iterations,
            100000);
}

TEST(SceneDynamics, ACsvTableAboveAGigabyteIsWarnedOfBeforeTheRun) {
  // 5e6 steps of 16 columns: ~1.3 GB of CSV.
  const std::string big =
      build_warnings(std::string(kDropScene) + "dynamics: {dt: 2.0e-7, duration: 1}\noutputs: {vtu: false}\n");
  EXPECT_NE(big.find("s.yaml:7:11: outputs: the CSV table drop.csv will take about 1.28 GB"), std::string::npos) << big;
  EXPECT_NE(big.find("rows from dynamics.duration / dynamics.dt = "), std::string::npos) << big;
  const std::string small =
      build_warnings(std::string(kDropScene) + "dynamics: {dt: 2.0e-5, duration: 1}\noutputs: {vtu: false}\n");
  EXPECT_EQ(small.find("CSV table"), std::string::npos) << small;
}

TEST(SceneDynamics, AnObstacleEntirelyInsideTheBodyIsWarnedOf) {
  // The body is the cube [0, 0.05]^2 x [0.002, 0.052].
  const std::string head = std::string(kDropScene) + "dynamics: {dt: 0.01, duration: 0.02}\ncontact:\n  obstacles:\n";
  std::string w =
      build_warnings(head + "    - {name: stone, type: sphere, center: [0.025, 0.025, 0.027], radius: 0.01}\n");
  EXPECT_NE(w.find("s.yaml:10:7: contact: obstacle 'stone' (sphere) lies entirely inside the body"), std::string::npos)
      << w;
  EXPECT_NE(w.find("has no effect"), std::string::npos) << w;
  w = build_warnings(
      head +
      "    - {name: brick, type: box, center: [0.025, 0.025, 0.027], size: [0.02, 0.03, 0.04]}\n"
      "    - {name: rod, type: cylinder, center: [0.02, 0.02, 0.02], axis: [1, 1, 0], radius: 0.005, length: 0.02}\n");
  EXPECT_NE(w.find("obstacle 'brick' (box) lies entirely inside"), std::string::npos) << w;
  EXPECT_NE(w.find("obstacle 'rod' (cylinder) lies entirely inside"), std::string::npos) << w;
  // Outside, partly outside, moved out along its path, or a plane: no warning.
  for (const std::string obstacle :
       {"{name: s, type: sphere, center: [0.025, 0.025, -0.02], radius: 0.01}",
        "{name: s, type: sphere, center: [0.025, 0.025, 0.05], radius: 0.01}",
        "{name: s, type: sphere, center: [0.025, 0.025, 0.027], radius: 0.01, path: [[0, 0, 0, 0], [1, 0, 0, 0.1]]}",
        "{name: s, type: plane, point: [0, 0, 0.02]}"})
    EXPECT_EQ(build_warnings(head + "    - " + obstacle + "\n"), "") << obstacle;
}

TEST(SceneDynamics, ADirectionThatOverflowsIsRefusedAsSuch) {
  const std::string head = std::string(kDropScene) + "dynamics: {dt: 0.01, duration: 0.1}\ncontact:\n  obstacles:\n";
  const SceneErrorCase cases[] = {
      {head + "    - {type: plane, normal: [0, 0, 1.0e+200]}\n",
       "contact.obstacles[0].normal: the length of [0, 0, 1e+200] overflows double precision"},
      {head + "    - {type: plane, normal: [1.0e-200, 0, 0]}\n",
       "contact.obstacles[0].normal: the length of [1e-200, 0, 0] underflows double precision"},
      {head + "    - {type: cylinder, axis: [1.0e+300, 1.0e+300, 0], radius: 0.01, length: 0.01}\n",
       "contact.obstacles[0].axis: the length of [1e+300, 1e+300, 0] overflows double precision"},
  };
  expect_scene_build_errors(cases);
}

TEST(SceneDynamics, ARayleighDampingWhoseForcesOverflowIsNamed) {
  // Newmark's predictor gives the block sagging under its weight a velocity: alpha M v (beta K v)
  // with alpha (beta) = 1e300 does not fit a double. It read "no convergence within 25 Newton
  // iterations; reduce dt, add damping".
  for (const std::string rayleigh : {"{mass: 1.0e+300}", "{stiffness: 1.0e+300}"}) {
    const std::string yaml = std::string(kDropScene) + "fixed: [{group: zmin}]\n" +
                             "dynamics: {dt: 0.01, duration: 0.02, scheme: newmark, rayleigh: " + rayleigh +
                             "}\noutputs: {vtu: false}\n";
    expect_error_mentions(
        [&] {
          (void)run_scene(parse_scene_string(yaml, "s.yaml"),
                          {fresh_dir("rayleigh_overflow").string(), nullptr, nullptr});
        },
        {"the Rayleigh damping forces alpha M v + beta K v overflow double precision",
         rayleigh.find("mass") != std::string::npos ? "rayleigh mass alpha = 1e+300" : "stiffness beta = 1e+300"});
  }
}

}  // namespace
}  // namespace softik
