// A scene with `modes:` (docs/scene-format.md, "modes"): the CSV has one row per mode with the
// frequencies natural_modes finds on the same model, one .vtu per mode carries the shape; the keys
// that do not go with it are refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "softik/modes.hpp"
#include "softik/scene.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

const std::string kBeam = R"(mesh: {generator: {type: box, size: [0.1, 0.01, 0.01], cells: [20, 2, 2], cell_type: hex8}}
materials: [{law: neo_hookean, young: 1.0e6, poisson: 0.3}]
fixed: [{group: xmin}]
)";

TEST(SceneModes, OneRowAndOneVtuPerMode) {
  const fs::path dir = fresh_dir("modes");
  write_file(dir / "beam.yaml", kBeam + "modes: {count: 3, density: 1000}\n");
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  const Scene scene = parse_scene((dir / "beam.yaml").string());
  const SceneRunResult r = run_scene(scene, options);
  ASSERT_EQ(r.frequencies.size(), 3u);
  EXPECT_EQ(r.vtu_files, 3);
  const BuiltScene built = build_scene(scene);
  std::unique_ptr<LinearSolver> solver = make_linear_solver();
  ModesOptions o;
  o.count = 3;
  o.density = 1000;
  const ModesResult m = natural_modes(*built.assembler, *solver, built.mesh.rest_positions(), o);
  const auto rows = read_csv(dir / "out" / "beam.csv");
  ASSERT_EQ(rows.size(), 4u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_NEAR(r.frequencies[k], m.frequencies[k], 1e-9 * m.frequencies[k]);
    EXPECT_NEAR(std::stod(rows[k + 1][column(rows[0], "frequency")]), m.frequencies[k], 1e-8 * m.frequencies[k]);
  }
  EXPECT_LT(r.frequencies[0], r.frequencies[2]);
  EXPECT_NE(read_file(dir / "out" / "beam_0001.vtu").find("mode_shape"), std::string::npos);
}

TEST(SceneModes, KeysThatDoNotGoWithModesAreRefused) {
  const std::vector<SceneErrorCase> cases = {
      {kBeam + "modes: {count: 3}\n", "modes: give the mass density"},
      {kBeam + "modes: {count: 0, density: 1000}\n", "modes.count: must be in [1, 1000]"},
      {kBeam + "modes: {density: 1000, mass: diagonal}\n", "modes.mass"},
      {kBeam + "modes: {density: 1000}\nloads: {forces: [{group: xmax, force: [0, 0, 1]}]}\n",
       "loads: with modes: the modes are those of the unloaded body"},
      {kBeam + "modes: {density: 1000}\ndynamics: {dt: 0.01, duration: 0.1}\n", "dynamics: with modes:"},
  };
  expect_scene_build_errors(cases);
}

}  // namespace
}  // namespace softik
