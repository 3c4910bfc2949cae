#include <gtest/gtest.h>
#include <cstdio>
#include "inverse_test_support.hpp"
namespace softik {
namespace {
using namespace inverse_test;
TEST(InverseUnboundedProbe, Print) {
  const Finger f;
  for (int method = 0; method < 2; ++method) {
  auto solver = make_linear_solver();
  InverseOptions o;
  o.method = method ? InverseMethod::GaussSeidel : InverseMethod::QP;
  InverseSolver inverse(f.assembler, *solver, {}, o);
  inverse.add(f.actuator({0, kInf}));
  PositionEffectorSpec s;
  s.name = "tip";
  s.point = f.tip();
  s.goal = {0.1, 0.05, 0.02};
  s.axes = {false, true, false};
  inverse.add(make_position_effector(f.mesh, s));
  std::vector<Real> x = f.mesh.rest_positions();
  for (int k = 0; k < 3; ++k) {
    InverseStepReport r;
    try { r = inverse.step(x); } catch (const Error& e) { std::printf("error %s\n", e.what()); break; }
    std::printf("status %s lambda %g W %g %g %g %g err %g\n", qp_status_name(r.status), r.lambda[0], r.W[0], r.W[1], r.W[2], r.W[3], r.effector_error);
  }
  }
}
}
}
