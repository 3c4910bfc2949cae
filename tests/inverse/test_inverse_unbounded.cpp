// An actuator that cannot move an effector, with no upper bound (issue 13, item 3): the finger's
// cavity is symmetric about y = 0.01, so its pressure cannot move the tip along y. The coupling
// W_ea then computes to round-off, and its ratio with the round-off gradient once gave 1e18 Pa and
// NaN positions reported as "optimal". Now the coupling is recognised as zero: the actuator keeps
// its least-energy input (0 Pa, its lower bound), every output is finite, and the report says why
// the goal cannot be served - for the QP and the Gauss-Seidel methods alike.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/inverse_test_support.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

using namespace inverse_test;

TEST(InverseUnbounded, AnActuatorThatCannotMoveTheEffectorKeepsItsLeastEnergyInput) {
  const Finger f;
  for (const InverseMethod method : {InverseMethod::QP, InverseMethod::GaussSeidel}) {
    SCOPED_TRACE(method == InverseMethod::QP ? "QP" : "Gauss-Seidel");
    auto solver = make_linear_solver();
    InverseOptions o;
    o.method = method;
    InverseSolver inverse(f.assembler, *solver, {}, o);
    inverse.add(f.actuator({0, kInf}));
    PositionEffectorSpec s;
    s.name = "tip";
    s.point = f.tip();
    s.goal = {0.1, 0.05, 0.02};  // 40 mm off the plane of symmetry: along y only
    s.axes = {false, true, false};
    inverse.add(make_position_effector(f.mesh, s));
    std::vector<Real> x = f.mesh.rest_positions();
    const std::vector<Real> rest = x;
    for (int k = 0; k < 3; ++k) {
      const InverseStepReport r = inverse.step(x);
      ASSERT_EQ(r.lambda.size(), 1u);
      EXPECT_EQ(r.lambda[0], 0.0) << "step " << k;
      EXPECT_TRUE(std::isfinite(r.effector_error));
      EXPECT_NEAR(r.effector_error, 0.04, 1e-9);  // nothing moved: the goal is as far as it was
      EXPECT_NE(r.message.find("actuator 'cavity' cannot move the effectors"), std::string::npos) << r.message;
      for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], rest[i], 1e-12) << "DOF " << i;
    }
  }
}

TEST(InverseUnbounded, NonFinitePositionsAreRefusedNamingTheDof) {
  const Finger f;
  auto solver = make_linear_solver();
  InverseSolver inverse(f.assembler, *solver, {}, InverseOptions{});
  inverse.add(f.actuator({0, kInf}));
  std::vector<Real> x = f.mesh.rest_positions();
  x[7] = std::nan("");
  try {
    (void)inverse.step(x);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("DOF 7 (node 2)"), std::string::npos) << e.what();
  }
}

#ifdef SOFTIK_CLI_PATH
// The same from a scene, as the defect was found: a real-time run with an actuator without an
// upper bound and a goal across its plane of symmetry. Exit status 2 (goal not reached), the
// message says why, and no NaN or infinity in the CSV.
TEST(InverseUnbounded, TheSceneRunExitsWithStatusTwoAndWritesNoNan) {
  const fs::path dir = fresh_dir("inverse_unbounded_cli");
  write_file(dir / "across.yaml", R"(mesh: {generator: {type: finger, cell_size: 0.004, cell_type: hex8}}
materials: {law: neo_hookean, young: 2.0e5, poisson: 0.45}
fixed: [{group: xmin}]
inverse:
  mode: realtime
  steps_per_target: 3
  actuators: [{type: pressure, name: cavity, surface: cavity, min_pressure: 0}]
  effectors: [{type: position, name: tip, point: [0.10, 0.01, 0.01], axes: [y], goal: [0.10, 0.05, 0.01]}]
outputs: {vtu: false}
)");
  const fs::path err = dir / "stderr.txt", out = dir / "stdout.txt";
  EXPECT_EQ(
      run_cli("run " + (dir / "across.yaml").string() + " --out " + (dir / "out").string() + " --quiet", err, out), 2)
      << read_file(err);
  const std::string text = read_file(err);
  EXPECT_NE(text.find("actuator 'cavity' cannot move the effectors"), std::string::npos) << text;
  const std::string csv = read_file(dir / "out" / "across.csv");
  ASSERT_FALSE(csv.empty());
  for (const char* bad : {"nan", "inf"}) EXPECT_EQ(csv.find(bad), std::string::npos) << csv;
}
#endif

}  // namespace
}  // namespace softik
