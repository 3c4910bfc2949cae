// Scenes with `explicit:` (issue 17): a block hanging in gravity as a node network and as an FEM
// body runs end to end (CSV per frame, .vtu/.pvd) and comes to rest where its weight stretches
// it; every bad value of the new keys is an error naming its line and the fix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "tests/scene_test_support.hpp"
#include "softik/scene.hpp"

namespace softik {
namespace {

// A 40 mm column of 2 mm cubes clamped at its top (zmax), hanging in gravity.
const char* kColumn = R"(name: hang
mesh: {generator: {type: box, size: [0.008, 0.008, 0.04], cells: [4, 4, 20], cell_type: hex8}}
formulation: corotational
materials: {law: linear, young: 2.0e4, poisson: 0.25}
fixed: [{group: zmax}]
loads:
  gravity: {density: 1000}
outputs:
  every: 10
  probes:
    - {name: bottom, point: [0.004, 0.004, 0.0]}
)";

TEST(SceneExplicit, AHangingColumnSettlesWhereItsWeightStretchesIt) {
  // A bar of length L under its own weight stretches by rho g L^2 / (2E) at its free end (here
  // 0.392 mm); the clamp's lateral restraint stiffens the top slightly.
  const Real L = 0.04, stretch = 1000 * 9.81 * L * L / (2 * 2.0e4);
  for (const std::string model : {"node_network", "fem"}) {
    const std::string yaml = std::string(kColumn) + "explicit: {model: " + model +
                             ", duration: 0.3, frame_interval: 0.003, mass_damping: 60}\n";
    const fs::path out = fresh_dir("explicit_" + model);
    const SceneRunResult r = run_scene(parse_scene_string(yaml, "hang.yaml"), {out.string(), nullptr, nullptr});
    ASSERT_TRUE(r.explicit_dynamics.enabled);
    EXPECT_EQ(r.explicit_dynamics.model, model);
    EXPECT_EQ(r.explicit_dynamics.frames, 100);
    EXPECT_NEAR(r.explicit_dynamics.time, 0.3, 1e-12);
    EXPECT_LE(r.explicit_dynamics.time_step, r.explicit_dynamics.stable_time_step);  // checked at every frame
    const auto rows = read_csv(out / "hang.csv");
    ASSERT_EQ(rows.size(), 102u);  // header, the rest state and 100 frames
    const std::vector<std::string>& header = rows.front();
    const size_t uz = static_cast<size_t>(std::find(header.begin(), header.end(), "uz_bottom") - header.begin());
    ASSERT_LT(uz, header.size());
    const Real u = std::stod(rows.back()[uz]);
    std::printf("%s: bottom settles at %.4e m, 1D bar %.4e m\n", model.c_str(), u, -stretch);
    EXPECT_NEAR(u, -stretch, 0.05 * stretch) << model;
    const size_t ke = static_cast<size_t>(std::find(header.begin(), header.end(), "kinetic_energy") - header.begin());
    EXPECT_LT(std::stod(rows.back()[ke]), 1e-6 * 1000 * 9.81 * 0.008 * 0.008 * L * stretch) << "at rest";
    EXPECT_EQ(r.vtu_files, 11);  // frames 0, 10, ..., 100
    EXPECT_TRUE(fs::exists(out / "hang.pvd"));
  }
}

std::string replaced(std::string text, const std::string& what, const std::string& by) {
  return text.replace(text.find(what), what.size(), by);
}

TEST(SceneExplicit, ANetworkWithPoissonRatioAboveOneQuarterSettlesWhereTheFemBodyDoes) {
  // poisson: 0.45 gives the network volume terms (one per cell); hanging in gravity, its bottom
  // settles where the FEM body of the same mesh and material does.
  Real settled[2] = {0, 0};
  int index = 0;
  for (const std::string model : {"node_network", "fem"}) {
    const std::string yaml = replaced(kColumn, "poisson: 0.25", "poisson: 0.45") + "explicit: {model: " + model +
                             ", duration: 0.3, frame_interval: 0.003, mass_damping: 60}\n";
    const fs::path out = fresh_dir("explicit_045_" + model);
    const SceneRunResult r = run_scene(parse_scene_string(yaml, "hang.yaml"), {out.string(), nullptr, nullptr});
    EXPECT_EQ(r.explicit_dynamics.volume_cells, model == "fem" ? 0 : 4 * 4 * 20);
    const auto rows = read_csv(out / "hang.csv");
    const std::vector<std::string>& header = rows.front();
    const size_t uz = static_cast<size_t>(std::find(header.begin(), header.end(), "uz_bottom") - header.begin());
    ASSERT_LT(uz, header.size());
    settled[index++] = std::stod(rows.back()[uz]);
  }
  std::printf("poisson 0.45: bottom settles at %.4e m (network), %.4e m (FEM)\n", settled[0], settled[1]);
  EXPECT_NEAR(settled[0], settled[1], 0.02 * std::abs(settled[1]));
}

TEST(SceneExplicit, BadValuesNameTheirKey) {
  const std::string base = kColumn;
  const SceneErrorCase cases[] = {
      {base + "explicit: {duration: 0.1}\n", "frame_interval"},
      {base + "explicit: {frame_interval: 0.01}\n", "duration"},
      {base + "explicit: {duration: 0.1, frame_interval: 0.2}\n", "must lie in (0, duration]"},
      {base + "explicit: {duration: 0.1, frame_interval: 0.01, scheme: rk4}\n", "velocity_verlet"},
      {base + "explicit: {duration: 0.1, frame_interval: 0.01, model: lattice}\n", "node_network"},
      {base + "explicit: {duration: 0.1, frame_interval: 0.01, safety: 1.5}\n", "explicit.safety: must lie in (0, 1]"},
      {base + "explicit: {duration: 0.1, frame_interval: 0.01, mass_damping: -1}\n", "alpha must be >= 0"},
      {base + "explicit: {duration: 0.1, frame_interval: 0.01, density: 500}\n", "differs from explicit.density"},
      {base + "explicit: {duration: 0.1, frame_interval: 0.01, network: {}}\n", "model: node_network only"},
      {base + "explicit: {model: node_network, duration: 0.1, frame_interval: 0.01, network: {dashpot_time: -1}}\n",
       "dashpot_time: must be >= 0"},
      {base + "explicit: {duration: 0.1, frame_interval: 0.01}\ndynamics: {dt: 0.01, duration: 0.1}\n",
       "dynamics: section"},
      {replaced(kColumn, "poisson: 0.25", "poisson: 0.2") +
           "explicit: {model: node_network, duration: 0.1, frame_interval: 0.01}\n",
       "Cauchy relation"},
      {replaced(replaced(kColumn, "law: linear", "law: neo_hookean"), "corotational", "hyperelastic") +
           "explicit: {model: node_network, duration: 0.1, frame_interval: 0.01}\n",
       "one material of law linear"},
  };
  expect_scene_build_errors(cases);
  // Without gravity the density must be given.
  const std::string no_density = R"(mesh: {generator: {type: box, cells: [1, 1, 1], cell_type: hex8}}
formulation: corotational
materials: {law: linear, young: 1.0e5, poisson: 0.25}
explicit: {duration: 0.1, frame_interval: 0.01}
)";
  EXPECT_NE(scene_build_error(no_density).find("give the mass density"), std::string::npos)
      << scene_build_error(no_density);
  // A time step above the stable limit is refused when the run starts, naming the limit.
  const std::string too_long =
      std::string(kColumn) + "explicit: {duration: 0.1, frame_interval: 0.01, time_step: 0.01}\n";
  try {
    (void)run_scene(parse_scene_string(too_long, "s.yaml"),
                    {fresh_dir("explicit_too_long").string(), nullptr, nullptr});
    ADD_FAILURE() << "a time step of 0.01 s was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds the stable limit"), std::string::npos) << e.what();
  }
}

TEST(SceneExplicit, AGivenTimeStepIsCappedAndAnOverflowIsNamed) {
  const std::string base = kColumn;
  const SceneErrorCase cases[] = {
      {base + "explicit: {duration: 1, frame_interval: 0.1, time_step: 1.0e-12}\n",
       "explicit.time_step: explicit.duration / explicit.time_step = 1 / 1e-12 = 1e+12 steps is above the cap of "
       "1e+09"},
      {base + "explicit: {duration: 1.0e+300, frame_interval: 1.0e+296, time_step: 1.0e-300}\n",
       "explicit.time_step: explicit.duration / explicit.time_step = 1e+300 / 1e-300 overflows double precision"},
      // Steps land on every frame: a longer time step is never taken.
      {base + "explicit: {duration: 0.1, frame_interval: 0.01, time_step: 0.02}\n",
       "explicit.time_step: 0.02 is longer than explicit.frame_interval (0.01)"},
      {base + "explicit: {duration: 0.1, frame_interval: 0.1, time_step: 0.5}\n",
       "explicit.time_step: 0.5 is longer than explicit.duration (0.1)"},
      {base + "explicit: {duration: 1, frame_interval: 1.0e-6}\n",
       "explicit.frame_interval: explicit.duration / explicit.frame_interval = 1 / 1e-06 = 1e+06 frames is above the "
       "cap"},
  };
  expect_scene_build_errors(cases);
  EXPECT_EQ(parse_scene_string(base + "explicit: {duration: 1, frame_interval: 0.1, time_step: 1.0e-9}\n", "s.yaml")
                .explicit_dynamics.options.time_step,
            1e-9);
}

// The automatic step (time_step: 0) is known only when the run starts: the same cap, refused
// before a single step instead of running for days.
TEST(SceneExplicit, TheAutomaticTimeStepIsCappedBeforeTheRun) {
  const fs::path dir = fresh_dir("scene_explicit_auto_cap");
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  const Scene scene =
      parse_scene_string(std::string(kColumn) + "explicit: {duration: 1.0e+6, frame_interval: 1.0e+3}\n", "s.yaml");
  try {
    (void)run_scene(scene, options);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("steps for duration 1e+06 s, above the cap of 1e+09"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW((void)run_scene(
      parse_scene_string(std::string(kColumn) + "explicit: {duration: 0.01, frame_interval: 0.01}\n", "s.yaml"),
      options));
}

TEST(SceneExplicit, ADilatationKeyIsRefusedForANetworkBuiltFromTheMesh) {
  // A network has links and volume terms, no elements whose dilatation could be averaged.
  const std::string body =
      R"(mesh: {generator: {type: box, size: [0.01, 0.01, 0.01], cells: [2, 2, 2], cell_type: hex8}}
formulation: linear
dilatation: cell_mean
materials: {law: linear, young: 1.0e5, poisson: 0.45}
fixed: [{group: zmax}]
loads: {gravity: {density: 1000}}
)";
  const SceneErrorCase cases[] = {
      {body + "explicit: {model: node_network, duration: 0.1, frame_interval: 0.01}\n",
       "s.yaml:3:1: dilatation: the body runs as a node network (explicit.model: node_network)"},
      {body + "continuation: {model: node_network, initial_arc: 1.0e-4}\n",
       "s.yaml:3:1: dilatation: the body runs as a node network (continuation.model: node_network)"},
  };
  expect_scene_build_errors(cases);
  EXPECT_EQ(scene_build_error(body + "explicit: {model: fem, duration: 0.1, frame_interval: 0.01}\n"), "(no error)");
}

}  // namespace
}  // namespace softik
