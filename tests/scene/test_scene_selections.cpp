// Selections drawn as shapes (docs/scene-format.md, "selections" and "materials"): a sphere picks
// the nodes within its radius; a material region given as a box takes the cells whose centroid
// lies in it, so a bar's two halves stretch F L1/(E1 A) + F L2/(E2 A) (exact: uniform uniaxial
// stress, nu = 0), also in a placed body whose box is in its own frame; bad shapes are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "softik/scene.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

TEST(SceneSelections, ASpherePicksTheNodesWithinItsRadius) {
  const BuiltScene b =
      build_scene(parse_scene_string(R"(mesh: {generator: {type: box, cells: [2, 2, 2], cell_type: hex8}}
materials: [{law: linear, young: 1.0e5, poisson: 0.3}]
fixed: [{sphere: {center: [0, 0, 0], radius: 1}}]
)",
                                     "s.yaml"));
  // Of the 3 x 3 x 3 grid of spacing 0.5: the origin, 3 + 3 + 1 nodes with coordinates 0 or 0.5,
  // and the 3 at distance exactly 1.
  EXPECT_EQ(std::count(b.fixed_dofs.begin(), b.fixed_dofs.end(), 1), 3 * 11);
}

const std::string kBarKeys = R"(formulation: linear
fixed: [{plane: {point: [0, 0, 0], normal: [1, 0, 0]}}]
loads: {forces: [{plane: {point: [0.1, 0, 0], normal: [1, 0, 0]}, force: [0.5, 0, 0]}]}
solver: {load_steps: 1, linear_solver: eigen}
)";
const std::string kBarMaterials = R"(materials:
  - {law: linear, young: 1.0e6, poisson: 0}
  - {law: linear, young: 4.0e6, poisson: 0, region: {box: {min: [0.05, -1, -1], max: [1, 1, 1]}}}
)";
const std::string kBar = "{generator: {type: box, size: [0.1, 0.01, 0.01], cells: [10, 1, 1], cell_type: hex8}}";

Real tip_stretch(const std::string& name, const std::string& yaml) {
  const fs::path dir = fresh_dir("selections_" + name);
  write_file(dir / "s.yaml", yaml);
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  const SceneRunResult r = run_scene(parse_scene((dir / "s.yaml").string()), options);
  EXPECT_EQ(r.probes.size(), 1u);
  return r.probes.empty() ? 0 : r.probes[0].displacement[0];
}

TEST(SceneSelections, ABoxRegionGivesTheCellsInItTheirMaterial) {
  const Real expected = 0.5 * 0.05 / (1e6 * 1e-4) + 0.5 * 0.05 / (4e6 * 1e-4);
  const std::string probe = "outputs: {vtu: false, probes: [{name: tip, point: [0.1, 0.005, 0.005]}]}\n";
  EXPECT_NEAR(tip_stretch("box", "mesh: " + kBar + "\n" + kBarMaterials + kBarKeys + probe), expected,
              1e-10 * expected);
  // The same bar as a body placed 5 m away along y, its keys (and its region's box) in its frame.
  std::string body = kBarMaterials + kBarKeys;
  std::string indented;
  for (size_t start = 0; start < body.size();) {
    const size_t end = body.find('\n', start);
    const std::string line = body.substr(start, end - start);
    if (line.rfind("formulation", 0) != 0 && line.rfind("solver", 0) != 0) indented += "    " + line + "\n";
    start = end + 1;
  }
  const std::string placed =
      "formulation: linear\nsolver: {load_steps: 1, linear_solver: eigen}\nbodies:\n  - name: bar\n    mesh: " + kBar +
      "\n    transform: {translation: [0, 5, 0]}\n" + indented +
      "outputs: {vtu: false, probes: [{name: tip, point: [0.1, 5.005, 0.005]}]}\n";
  EXPECT_NEAR(tip_stretch("placed", placed), expected, 1e-10 * expected);
}

TEST(SceneSelections, BadShapesAreRefused) {
  const std::string mesh = "mesh: " + kBar + "\n";
  const std::string mat = "materials: [{law: linear, young: 1.0e6, poisson: 0}]\n";
  const std::vector<SceneErrorCase> cases = {
      {mesh + mat + "fixed: [{sphere: {center: [0, 0, 0], radius: 0}}]\n", "fixed[0].sphere.radius: must be > 0"},
      {mesh + mat + "fixed: [{sphere: {center: [5, 5, 5], radius: 0.1}}]\n", "fixed[0]: selects no node"},
      {mesh + mat + "fixed: [{sphere: {center: [0, 0, 0], radius: 1}, box: {min: [0, 0, 0], max: [1, 1, 1]}}]\n",
       "fixed[0]"},
      {mesh + "materials:\n  - {law: linear, young: 1.0e6, poisson: 0}\n" +
           "  - {law: linear, young: 2.0e6, poisson: 0, region: {box: {min: [2, 0, 0], max: [3, 1, 1]}}}\n" +
           "fixed: [{group: xmin}]\n",
       "materials[1].region: no cell has its centroid in the box"},
      {mesh + "materials: [{law: linear, young: 1.0e6, poisson: 0, region: {plane: {point: [0, 0, 0]}}}]\n",
       "materials[0].region"},
  };
  expect_scene_build_errors(cases);
}

}  // namespace
}  // namespace softik
