// Follower and dead pressure loads (loads.pressure `follower`, PressureLoad::follower) against
// closed forms. A unit cube on rollers (x = 0, y = 0, z = 0 planes hold their normal component)
// is pulled by a pressure P on its x = 1 face: the deformation is homogeneous, F = diag(a, b, b),
// which trilinear hexahedra reproduce exactly, so the finite-element answer is the closed form to
// the Newton tolerance. The linear formulation takes a dead load only (a follower load is refused).
//   dead load (nominal traction):      P11(a, b) = P
//   follower load (true traction):     sigma11 = P11 a / J = P11 / b^2 = P, i.e. P11 = P b^2
//   free lateral faces:                P22(a, b) = 0
// with the compressible neo-Hookean P = mu (F - F^-T) + lambda ln J F^-T, J = a b^2. In a linear
// analysis the default is a dead load: u_x = P L / E, u_y = -nu P L / E exactly.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/scene_test_support.hpp"
#include "softik/scene.hpp"

namespace softik {
namespace {

constexpr Real kFollowerE = 1e6, kFollowerNu = 0.3, kFollowerP = 2e5;  // 20% of E: the two loads differ by ~12%

std::string cube(const std::string& law, const std::string& formulation, const std::string& follower) {
  return "mesh: {generator: {type: box, size: [1, 1, 1], cells: [2, 2, 2], cell_type: hex8}}\n"
         "formulation: " +
         formulation +
         "\n"
         "materials: {law: " +
         law + ", young: " + std::to_string(kFollowerE) + ", poisson: " + std::to_string(kFollowerNu) +
         "}\n"
         "fixed: [{group: xmin, components: [x]}, {group: ymin, components: [y]}, {group: zmin, components: [z]}]\n"
         "loads: {pressure: {surface: xmax, value: " +
         std::to_string(kFollowerP) + ", closed: false" + follower +
         "}}\n"
         "solver: {load_steps: 8, residual_tolerance: 1.0e-12}\n"
         "outputs: {vtu: false, probes: [{name: corner, point: [1, 1, 1]}]}\n";
}

std::array<Real, 3> corner_displacement(const std::string& yaml, const std::string& name) {
  const fs::path dir = fresh_dir(name);
  SceneRunOptions options;
  options.out_dir = dir.string();
  const SceneRunResult r = run_scene(parse_scene_string(yaml, (dir / "cube.yaml").string()), options);
  return r.probes.at(0).displacement;
}

/// The homogeneous stretches (a, b) of the closed form, by Newton on (P11 - t(b), P22) = 0.
std::array<Real, 2> stretches(bool follower) {
  const Real mu = kFollowerE / (2 * (1 + kFollowerNu)),
             lambda = kFollowerE * kFollowerNu / ((1 + kFollowerNu) * (1 - 2 * kFollowerNu));
  Real a = 1, b = 1;
  for (int it = 0; it < 50; ++it) {
    const Real L = std::log(a * b * b);
    const Real r1 = mu * (a - 1 / a) + lambda * L / a - (follower ? kFollowerP * b * b : kFollowerP);
    const Real r2 = mu * (b - 1 / b) + lambda * L / b;
    // Jacobian of (r1, r2) with respect to (a, b).
    const Real j11 = mu * (1 + 1 / (a * a)) + lambda * (1 - L) / (a * a);
    const Real j12 = 2 * lambda / (a * b) - (follower ? 2 * kFollowerP * b : 0);
    const Real j21 = lambda / (a * b);
    const Real j22 = mu * (1 + 1 / (b * b)) + lambda * (2 - L) / (b * b);
    const Real det = j11 * j22 - j12 * j21;
    a -= (j22 * r1 - j12 * r2) / det;
    b -= (j11 * r2 - j21 * r1) / det;
  }
  return {a, b};
}

TEST(PressureFollower, DeadAndFollowerLoadsMatchTheirClosedForms) {
  for (const bool follower : {false, true}) {
    SCOPED_TRACE(follower ? "follower" : "dead");
    const auto [a, b] = stretches(follower);
    const auto u =
        corner_displacement(cube("neo_hookean", "hyperelastic", follower ? ", follower: true" : ", follower: false"),
                            follower ? "pressure_follower" : "pressure_dead");
    EXPECT_NEAR(u[0], a - 1, 1e-8 * (a - 1));
    EXPECT_NEAR(u[1], b - 1, 1e-8 * (1 - b));
    EXPECT_NEAR(u[2], b - 1, 1e-8 * (1 - b));
  }
  // The two really differ here (a follower load on a face that shrinks laterally pulls less).
  EXPECT_GT(stretches(false)[0] - stretches(true)[0], 0.01);
}

TEST(PressureFollower, ALinearAnalysisTakesADeadLoadByDefault) {
  const auto u = corner_displacement(cube("linear", "linear", ""), "pressure_linear_default");
  EXPECT_NEAR(u[0], kFollowerP / kFollowerE, 1e-10 * kFollowerP / kFollowerE);
  EXPECT_NEAR(u[1], -kFollowerNu * kFollowerP / kFollowerE, 1e-10 * kFollowerP / kFollowerE);
  EXPECT_NEAR(u[2], -kFollowerNu * kFollowerP / kFollowerE, 1e-10 * kFollowerP / kFollowerE);
}

TEST(PressureFollower, AFollowerLoadIsRefusedWithTheLinearFormulation) {
  // K u acts on the rest geometry, a follower load on the displaced wall: the default finger
  // (linear law, E = 200 kPa) inflated to 24 kPa bent its tip 2.7 mm down with follower: true,
  // where the hyperelastic finger bends 9.1 mm up. (At small pressure both agree with the
  // nonlinear run to O(P/E): no sign error, two inconsistent geometries.)
  std::string e = scene_build_error(cube("linear", "linear", ", follower: true"));
  EXPECT_NE(e.find("loads.pressure 'xmax': follower: true with formulation: linear"), std::string::npos) << e;
  EXPECT_NE(e.find("use formulation: corotational or hyperelastic"), std::string::npos) << e;
  // What a follower load is for, asked of the linear formulation, names the formulations that carry it.
  std::string volume =
      kBlock + "formulation: linear\nloads: {pressure: {surface: cavity0, control: volume, volume_growth: 1.0e-7}}\n";
  volume.replace(volume.find("law: neo_hookean"), std::string("law: neo_hookean").size(), "law: linear");
  e = scene_build_error(volume);
  EXPECT_NE(e.find("control: volume needs a follower load"), std::string::npos) << e;
  EXPECT_NE(e.find("which formulation: linear does not carry"), std::string::npos) << e;
  // corotational and hyperelastic take it.
  EXPECT_EQ(scene_build_error(cube("linear", "corotational", ", follower: true")), "(no error)");
  EXPECT_EQ(scene_build_error(cube("neo_hookean", "hyperelastic", ", follower: true")), "(no error)");
}

TEST(PressureFollower, FollowerMustBeABoolean) {
  try {
    (void)parse_scene_string(cube("linear", "linear", ", follower: maybe"), "cube.yaml");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("follower"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace softik
