// Moving supports in scenes (`fixed: {..., motion: ...}`, docs/scene-format.md "selections"): a
// block lifted by its base ends displaced by the lift, every probe alike (a rigid translation);
// the same block placed as a body, its base selected in its own frame and lifted in the scene's,
// ends where the scene says; each bad motion is refused naming its key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "softik/scene.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

const std::string kBlock = "{generator: {type: box, size: [0.02, 0.02, 0.04], cells: [2, 2, 4], cell_type: hex8}}";
const std::string kKeys = R"(materials: [{law: neo_hookean, young: 1.0e5, poisson: 0.3}]
dynamics: {dt: 0.005, duration: 0.4, density: 1000, rayleigh: {mass: 20}}
outputs:
  vtu: false
  probes: [{name: top, point: [0.01, 0.01, 0.04]}, {name: corner, point: [0.02, 0, 0.04]}]
)";

SceneRunResult run_supported(const std::string& name, const std::string& yaml) {
  const fs::path dir = fresh_dir("supports_" + name);
  write_file(dir / "s.yaml", yaml);
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  return run_scene(parse_scene((dir / "s.yaml").string()), options);
}

TEST(SceneSupports, LiftedBaseCarriesTheBlockUp) {
  const SceneRunResult r = run_supported(
      "lift",
      "mesh: " + kBlock + "\nfixed: [{group: zmin, motion: {path: [[0, 0, 0, 0], [0.05, 0, 0, 0.01]]}}]\n" + kKeys);
  ASSERT_EQ(r.probes.size(), 2u);
  for (const ProbeSummary& p : r.probes) {
    EXPECT_NEAR(p.displacement[0], 0, 1e-7) << p.name;
    EXPECT_NEAR(p.displacement[1], 0, 1e-7) << p.name;
    EXPECT_NEAR(p.displacement[2], 0.01, 1e-7) << p.name;
  }
}

TEST(SceneSupports, APlacedBodyIsLiftedInTheScenesFrame) {
  // The block lies along x (its own z turned onto +x); its base, zmin in its own frame, is lifted
  // along the scene's z.
  const SceneRunResult r = run_supported(
      "placed", "bodies:\n  - name: b\n    mesh: " + kBlock +
                    "\n    transform: {rotation: {axis: [0, 1, 0], angle: 90}}\n"
                    "    fixed: [{plane: {point: [0, 0, 0], normal: [0, 0, 1]}, motion: {path: [[0, 0, 0, 0], "
                    "[0.05, 0, 0, 0.01]]}}]\n" +
                    R"(materials: [{law: neo_hookean, young: 1.0e5, poisson: 0.3}]
dynamics: {dt: 0.005, duration: 0.4, density: 1000, rayleigh: {mass: 20}}
outputs:
  vtu: false
  probes: [{name: tip, point: [0.04, 0.01, -0.01]}]
)");
  ASSERT_EQ(r.probes.size(), 1u);
  EXPECT_NEAR(r.probes[0].displacement[0], 0, 1e-7);
  EXPECT_NEAR(r.probes[0].displacement[2], 0.01, 1e-7);
}

TEST(SceneSupports, BadMotionsAreRefused) {
  const std::string mesh = "mesh: " + kBlock + "\n";
  const std::string rest = R"(materials: [{law: neo_hookean, young: 1.0e5, poisson: 0.3}]
dynamics: {dt: 0.005, duration: 0.1, density: 1000}
)";
  const std::string statics = "materials: [{law: neo_hookean, young: 1.0e5, poisson: 0.3}]\n";
  const std::vector<SceneErrorCase> cases = {
      {mesh + "fixed: [{group: zmin, motion: {path: [[0, 0, 0, 0], [1, 0, 0, 1]]}}]\n" + statics,
       "fixed[0].motion: a support moved in time needs a dynamics: section"},
      {mesh + "fixed: [{group: zmin, components: [z], motion: {path: [[0, 0, 0, 0]]}}]\n" + rest,
       "fixed[0].components: a support with a motion is fixed in x, y and z"},
      {mesh + "fixed: [{group: zmin, motion: {}}]\n" + rest, "fixed[0].motion: give the support's path"},
      {mesh + "fixed: [{group: zmin, motion: {path: [[1, 0, 0, 0], [0, 0, 0, 1]]}}]\n" + rest,
       "list the times in increasing order"},
      {mesh + "fixed: [{group: zmin, motion: {path: [[0, 0, 0]]}}]\n" + rest, "fixed[0].motion.path[0]"},
      {mesh + "fixed: [{group: zmin, motion: {rotation: {axis: [0, 0, 0], angle: [[0, 0], [1, 90]]}}}]\n" + rest,
       "fixed[0].motion.rotation.axis: must be a non-zero direction"},
      {mesh + "fixed: [{group: zmin, motion: {rotation: {axis: [0, 0, 1]}}}]\n" + rest, "missing required key 'angle'"},
      {mesh + "fixed: [{group: zmin, motion: {path: [[0, 0, 0, 0]], spin: 1}}]\n" + rest, "spin"},
  };
  expect_scene_build_errors(cases);
}

}  // namespace
}  // namespace softik
