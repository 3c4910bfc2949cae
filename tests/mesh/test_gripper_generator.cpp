// The ball and gripper generators (issue 15's grasping scenes): the ball's boundary lies on the
// sphere and its volume converges to 4/3 pi r^3; the gripper's parts are where the spec puts
// them, every cell positively oriented, its groups complete; bad specs are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "softik/actuator_generator.hpp"
#include "softik/error.hpp"
#include "softik/surface.hpp"
#include "tests/math_constants.hpp"

namespace softik {
namespace {

Real distance_to(const Mesh& m, int n, const std::array<Real, 3>& c) {
  Real d = 0;
  for (int i = 0; i < 3; ++i) d += std::pow(m.X[3 * static_cast<size_t>(n) + i] - c[static_cast<size_t>(i)], 2);
  return std::sqrt(d);
}

TEST(BallGenerator, BoundaryOnTheSphereAndVolumeConverges) {
  Real previous_error = 1;
  for (int cells : {4, 8, 16}) {
    BallSpec spec;
    spec.center = {0.1, -0.2, 0.3};
    spec.radius = 0.05;
    spec.cells = cells;
    const Mesh ball = make_ball(spec);
    const MeshReport report = validate(ball);
    EXPECT_GT(report.min_detJ, 0);
    const SurfaceGroup boundary = boundary_surface(ball);
    std::set<int> nodes;
    for (const auto& q : boundary.quads) nodes.insert(q.begin(), q.end());
    for (int n : nodes) EXPECT_NEAR(distance_to(ball, n, spec.center), spec.radius, 1e-12);
    Real volume = 0;  // of the closed boundary (divergence theorem over its split quads)
    for (const auto& q : boundary.quads)
      for (const std::array<int, 3>& t : {std::array<int, 3>{q[0], q[1], q[2]}, std::array<int, 3>{q[0], q[2], q[3]}}) {
        const Real* a = &ball.X[3 * static_cast<size_t>(t[0])];
        const Real* b = &ball.X[3 * static_cast<size_t>(t[1])];
        const Real* c = &ball.X[3 * static_cast<size_t>(t[2])];
        volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                   a[2] * (b[0] * c[1] - b[1] * c[0])) /
                  6;
      }
    const Real exact = 4.0 / 3.0 * kPi * std::pow(spec.radius, 3);
    const Real error = std::abs(volume - exact) / exact;
    EXPECT_LT(error, previous_error / 3) << cells << " cells";  // second order: /4 per halving
    previous_error = error;
  }
  EXPECT_LT(previous_error, 5e-3);
}

TEST(GripperGenerator, PartsGroupsAndPlacement) {
  GripperSpec spec;
  spec.finger.length = 0.06;
  spec.finger.width = 0.015;
  spec.finger.height = 0.015;
  spec.finger.base_wall = spec.finger.tip_wall = 0.006;
  spec.finger.side_wall = spec.finger.bottom_wall = 0.003;
  spec.finger.top_wall = 0.006;
  spec.finger.cell_size = 0.003;
  spec.finger.cell_type = CellType::Hex8;
  spec.radius = 0.02;
  spec.ball_radius = 0.015;
  spec.ball_cells = 4;
  const Mesh m = make_gripper(spec);
  EXPECT_GT(validate(m).min_detJ, 0);
  ASSERT_EQ(m.cell_groups.count("ball"), 1u);
  for (int k = 0; k < 3; ++k) {
    ASSERT_EQ(m.cell_groups.count("finger" + std::to_string(k)), 1u);
    ASSERT_EQ(m.surface_groups.count("cavity" + std::to_string(k)), 1u);
    // Each cavity is closed, wound to inflate (positive volume), the finger's cavity volume.
    SurfaceReport r;
    check_surface(m, m.surface_groups.at("cavity" + std::to_string(k)), "cavity", true, false, &r);
    EXPECT_NEAR(r.volume, (0.06 - 0.012) * (0.015 - 0.006) * (0.015 - 0.009), 1e-12);
  }
  // The bases at z = tip_height + length, the tips' lowest point at tip_height, every finger node
  // at least `radius` from the axis.
  for (int n : m.node_groups.at("base")) EXPECT_NEAR(m.X[3 * static_cast<size_t>(n) + 2], 0.064, 1e-12);
  Real lowest = 1, closest = 1;
  std::set<int> ball(m.node_groups.at("ball").begin(), m.node_groups.at("ball").end());
  for (int n = 0; n < m.num_nodes(); ++n) {
    if (ball.count(n)) {
      EXPECT_LE(distance_to(m, n, {0, 0, 0.015}), 0.015 + 1e-12);
      continue;
    }
    lowest = std::min(lowest, m.X[3 * static_cast<size_t>(n) + 2]);
    closest = std::min(closest, std::hypot(m.X[3 * static_cast<size_t>(n)], m.X[3 * static_cast<size_t>(n) + 1]));
  }
  EXPECT_NEAR(lowest, 0.004, 1e-12);
  // The inner faces are at 0.02 from the axis; the nearest grid node is 1.5 mm off their centre line.
  EXPECT_GE(closest, 0.02 - 1e-12);
  EXPECT_NEAR(closest, std::hypot(0.02, 0.0015), 1e-12);
}

TEST(GripperGenerator, RefusesOverlaps) {
  GripperSpec spec;
  spec.radius = 0.01;  // inside the 0.02 ball
  EXPECT_THROW(make_gripper(spec), Error);
  spec = {};
  spec.fingers = 12;  // 12 fingers 20 mm wide do not fit around a 25 mm radius
  EXPECT_THROW(make_gripper(spec), Error);
  spec = {};
  spec.tip_height = 0;
  EXPECT_THROW(make_gripper(spec), Error);
  BallSpec ball;
  ball.cells = 1;
  EXPECT_THROW(make_ball(ball), Error);
}

}  // namespace
}  // namespace softik
