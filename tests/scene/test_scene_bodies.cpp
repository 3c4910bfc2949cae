// Transforms and several bodies in a scene (docs/scene-format.md, "bodies" and "transform"):
// a loaded cantilever placed by a rotation and a translation, its selections and loads written
// in its own frame, deflects by R u of the unplaced one (rigid-motion invariance of the
// hyperelastic solve, to the Newton tolerance); two bodies of one scene, apart, each deflect as
// the same body alone with its own material; a cavity file moves and scales with its mesh (its
// rest volume s^3 V); every bad transform or body is refused naming its key.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "softik/mesh_transform.hpp"
#include "softik/scene.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

using Point = std::array<Real, 3>;

std::string vec(const Point& p) {
  std::ostringstream s;
  s << std::setprecision(17) << "[" << p[0] << ", " << p[1] << ", " << p[2] << "]";
  return s.str();
}

// A 0.1 x 0.02 x 0.02 cantilever fixed at x = 0 with a tip force, in its own frame.
const std::string kBeamMesh = "{generator: {type: box, size: [0.1, 0.02, 0.02], cells: [10, 2, 2], cell_type: tet4}}";
std::string beam_keys(const std::string& indent, Real young) {
  std::ostringstream s;
  s << indent << "materials: [{law: neo_hookean, young: " << young << ", poisson: 0.3}]\n"
    << indent << "fixed: [{plane: {point: [0, 0, 0], normal: [1, 0, 0]}}]\n"
    << indent << "loads: {forces: [{plane: {point: [0.1, 0, 0], normal: [1, 0, 0]}, force: [0, 0.1, -0.4]}]}\n";
  return s.str();
}
const std::string kSolver =
    "solver: {load_steps: 2, residual_tolerance: 1.0e-10, increment_tolerance: 1.0e-13, linear_solver: eigen}\n";
const std::vector<Point> kProbePoints = {{0.1, 0.01, 0.01}, {0.1, 0, 0.02}, {0.05, 0.02, 0}};

std::string probes(const std::vector<Point>& points) {
  std::string s = "outputs:\n  vtu: false\n  probes:\n";
  for (size_t i = 0; i < points.size(); ++i)
    s += "    - {name: p" + std::to_string(i) + ", point: " + vec(points[i]) + "}\n";
  return s;
}

SceneRunResult run_placed(const std::string& name, const std::string& yaml) {
  const fs::path dir = fresh_dir("bodies_" + name);
  write_file(dir / (name + ".yaml"), yaml);
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  return run_scene(parse_scene((dir / (name + ".yaml")).string()), options);
}

Real largest(const std::vector<ProbeSummary>& probes) {
  Real m = 0;
  for (const ProbeSummary& p : probes)
    for (Real u : p.displacement) m = std::max(m, std::abs(u));
  return m;
}

TEST(SceneBodies, PlacedCantileverDeflectsByTheRotatedDisplacement) {
  const SceneRunResult alone =
      run_placed("alone", "mesh: " + kBeamMesh + "\n" + beam_keys("", 1e5) + kSolver + probes(kProbePoints));
  Transform t;
  t.rotation = rotation_euler_xyz({30, -40, 70});
  t.translation = {1, 2, 3};
  std::vector<Point> placed;
  for (const Point& p : kProbePoints) placed.push_back(t.apply(p));
  const SceneRunResult moved =
      run_placed("placed", "bodies:\n  - name: beam\n    mesh: " + kBeamMesh +
                               "\n    transform: {euler: [30, -40, 70], translation: [1, 2, 3]}\n" +
                               beam_keys("    ", 1e5) + kSolver + probes(placed));
  ASSERT_EQ(alone.probes.size(), kProbePoints.size());
  ASSERT_EQ(moved.probes.size(), kProbePoints.size());
  const Real scale = largest(alone.probes);
  EXPECT_GT(scale, 1e-3);  // a large deflection (the nonlinear solve matters)
  for (size_t i = 0; i < kProbePoints.size(); ++i) {
    const Point expected = t.rotate(alone.probes[i].displacement);
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(moved.probes[i].displacement[k], expected[k], 1e-9 * scale) << "probe " << i << " component " << k;
  }
}

TEST(SceneBodies, TwoBodiesDeflectEachAsAloneWithItsOwnMaterial) {
  const Real soft = 1e5, stiff = 3e5;
  const SceneRunResult a =
      run_placed("soft", "mesh: " + kBeamMesh + "\n" + beam_keys("", soft) + kSolver + probes({kProbePoints[0]}));
  const SceneRunResult b =
      run_placed("stiff", "mesh: " + kBeamMesh + "\n" + beam_keys("", stiff) + kSolver + probes({kProbePoints[0]}));
  const Point shift{0, 0.1, 0};  // 8 cm of air between them
  const Point tip = kProbePoints[0], tip_b{tip[0] + shift[0], tip[1] + shift[1], tip[2] + shift[2]};
  const SceneRunResult both =
      run_placed("both", "bodies:\n  - name: a\n    mesh: " + kBeamMesh + "\n" + beam_keys("    ", soft) +
                             "  - name: b\n    mesh: " + kBeamMesh + "\n    transform: {translation: " + vec(shift) +
                             "}\n" + beam_keys("    ", stiff) + kSolver + probes({tip, tip_b}));
  ASSERT_EQ(both.probes.size(), 2u);
  EXPECT_EQ(both.num_cells, 2 * a.num_cells);
  const Real scale = largest(a.probes);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(both.probes[0].displacement[k], a.probes[0].displacement[k], 1e-9 * scale);
    EXPECT_NEAR(both.probes[1].displacement[k], b.probes[0].displacement[k], 1e-9 * scale);
  }
  // The materials reached their own bodies: the stiffer one deflects less.
  EXPECT_LT(std::abs(b.probes[0].displacement[2]), 0.5 * std::abs(a.probes[0].displacement[2]));
}

// A closed cube [lo, hi]^3, wound outwards.
std::string cube_obj(Real lo, Real hi) {
  std::ostringstream s;
  for (int v = 0; v < 8; ++v)
    s << "v " << (v & 1 ? hi : lo) << " " << (v & 2 ? hi : lo) << " " << (v & 4 ? hi : lo) << "\n";
  // Faces as quads (1-based, counter-clockwise seen from outside), split into two triangles.
  const int quads[6][4] = {{1, 3, 4, 2}, {5, 6, 8, 7}, {1, 2, 6, 5}, {3, 7, 8, 4}, {1, 5, 7, 3}, {2, 4, 8, 6}};
  for (const auto& q : quads)
    s << "f " << q[0] << " " << q[1] << " " << q[2] << "\nf " << q[0] << " " << q[2] << " " << q[3] << "\n";
  return s.str();
}

TEST(SceneBodies, CavityFileMovesAndScalesWithItsMesh) {
  const fs::path dir = fresh_dir("bodies_cavity");
  write_file(dir / "cavity.obj", cube_obj(0.01, 0.03));
  const std::string body =
      "materials: [{law: neo_hookean, young: 1.0e5, poisson: 0.3}]\n"
      "fixed: [{group: zmin}]\n"
      "loads: {pressure: [{name: c, file: cavity.obj, value: 100}]}\n"
      "solver: {load_steps: 1}\noutputs: {vtu: false}\n";
  const std::string box = "{type: box, size: [0.04, 0.04, 0.04], cells: [4, 4, 4], cell_type: hex8}";
  write_file(dir / "plain.yaml", "mesh: {generator: " + box + "}\n" + body);
  write_file(dir / "placed.yaml",
             "mesh:\n  generator: " + box +
                 "\n  transform: {rotation: {axis: [1, 2, 3], angle: 50}, translation: [0.5, 0, -1], "
                 "scale: 2}\n" +
                 body);
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  const SceneRunResult plain = run_scene(parse_scene((dir / "plain.yaml").string()), options);
  const SceneRunResult placed = run_scene(parse_scene((dir / "placed.yaml").string()), options);
  ASSERT_EQ(plain.pressures.size(), 1u);
  ASSERT_EQ(placed.pressures.size(), 1u);
  EXPECT_NEAR(plain.pressures[0].volume0, 8e-6, 1e-15);
  EXPECT_NEAR(placed.pressures[0].volume0, 8 * 8e-6, 1e-14);  // s^3 V: moved with the mesh, not left behind
}

TEST(SceneBodies, OverlappingBodiesAreNamedWithTheDeepestNode) {
  const auto warnings = [](const std::string& shift) {
    const std::string cube =
        "mesh: {generator: {type: box, cells: [2, 2, 2], cell_type: hex8}}\n"
        "    fixed: [{group: zmin}]\n"
        "    materials: [{law: linear, young: 1.0e5, poisson: 0.3}]\n";
    return build_scene(parse_scene_string("bodies:\n  - name: a\n    " + cube +
                                              "  - name: b\n    transform: "
                                              "{translation: " +
                                              shift + "}\n    " + cube,
                                          "s.yaml"))
        .warnings;
  };
  const std::vector<std::string> overlapping = warnings("[0.5, 0, 0]");
  ASSERT_EQ(overlapping.size(), 2u);  // each body's nodes inside the other
  EXPECT_NE(overlapping[0].find("bodies 'b' and 'a' overlap at t = 0: "), std::string::npos) << overlapping[0];
  EXPECT_NE(overlapping[0].find("the deepest 0.5 below its surface"), std::string::npos) << overlapping[0];
  EXPECT_TRUE(warnings("[1, 0, 0]").empty());  // touching along x = 1: no overlap
}

TEST(SceneBodies, BadTransformsAndBodiesAreRefused) {
  const std::string mesh = "mesh:\n  generator: {type: box}\n";
  const std::string mat = "materials: [{law: linear, young: 1.0e5, poisson: 0.3}]\n";
  const std::string body = "  - name: a\n    mesh: {generator: {type: box}}\n";
  const std::vector<SceneErrorCase> cases = {
      {mesh + "  transform: {scale: 0}\n" + mat, "mesh.transform: the scale must be a finite number > 0"},
      {mesh + "  transform: {scale: -1}\n" + mat, "turns it inside out"},
      {mesh + "  transform: {rotation: {axis: [0, 0, 0], angle: 30}}\n" + mat, "the rotation axis has zero length"},
      {mesh + "  transform: {rotation: {axis: [0, 0, 1], angle: 30}, euler: [0, 0, 30]}\n" + mat,
       "give the rotation once"},
      {mesh + "  transform: {rotation: {axis: [0, 0, 1]}}\n" + mat, "missing required key 'angle'"},
      {mesh + "  transform: {translation: [0, .nan, 0]}\n" + mat, "mesh.transform"},
      {mesh + "  transform: {shear: 1}\n" + mat, "shear"},
      {"bodies: []\n" + mat, "bodies: the list is empty"},
      {"bodies:\n" + body + mesh + mat, "mesh: with bodies: each body has its own mesh"},
      {"bodies:\n  - mesh: {generator: {type: box}}\n" + mat, "bodies[0]: needs a name"},
      {"bodies:\n" + body + body + mat, "bodies[1].name: the name 'a' is used by another body"},
      {"bodies:\n  - name: a/b\n    mesh: {generator: {type: box}}\n" + mat, "bodies[0].name"},
      {"bodies:\n" + body + "    loads: {gravity: {density: 1000}}\n" + mat, "gravity acts on the whole scene"},
      {"bodies:\n" + body + "    transform: {scale: 2}\n    fixed: [{box: {min: [1.5, 1.5, 1.5], max: [2, 2, 2]}}]\n" +
           mat,
       "selects no node"},  // the box is in the body's own frame, where the body spans [0, 1]^3
      {"bodies:\n" + body + "  - name: b\n    mesh: {generator: {type: box, cell_type: hex8}}\n" + mat,
       "share one cell type"},
      {"bodies:\n" + body, "bodies: no materials"},
      {"bodies:\n" + body +
           "    fixed: [{group: zmin}]\n  - name: b\n    mesh: {generator: {type: box, origin: [2, 0, 0]}}\n" + mat,
       "bodies[1] 'b': no node of it is fixed or prescribed, so it floats"},
      {"bodies:\n" + body + "    materials: [{law: linear, young: 1.0e5, poisson: 0.3, region: core}]\n",
       "the mesh has no cell group 'a/core'"},
      {"bodies:\n  - name: a\n    mesh: {generator: {type: box}, transform: {scale: 2}}\n    transform: {scale: 2}\n" +
           mat,
       "give the transform once"},
  };
  for (const SceneErrorCase& c : cases) {
    const std::string e = scene_build_error(c.yaml);
    EXPECT_NE(e, "(no error)") << c.yaml;
    EXPECT_NE(e.find(c.words), std::string::npos) << "scene:\n" << c.yaml << "error: " << e;
    EXPECT_EQ(e.find("s.yaml:"), 0u) << e;
  }
}

}  // namespace
}  // namespace softik
