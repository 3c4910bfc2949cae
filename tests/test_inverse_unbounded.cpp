// An actuator that cannot move an effector, with no upper bound (issue 13, item 3): the finger's
// cavity is symmetric about y = 0.01, so its pressure cannot move the tip along y. The coupling
// W_ea then computes to round-off, and its ratio with the round-off gradient once gave 1e18 Pa and
// NaN positions reported as "optimal". Now the coupling is recognised as zero: the actuator keeps
// its least-energy input (0 Pa, its lower bound), every output is finite, and the report says why
// the goal cannot be served - for the QP and the Gauss-Seidel methods alike.
#include <gtest/gtest.h>

#include <cmath>

#include "inverse_test_support.hpp"

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

}  // namespace
}  // namespace softik
