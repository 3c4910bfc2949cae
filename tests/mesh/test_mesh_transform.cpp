// Transforms x = t + R (s p) (mesh_transform.hpp): axis-angle rotations against known images
// and Rodrigues' properties (orthonormal, det +1, the axis fixed), Euler angles as the product
// R_z R_y R_x, a transformed box keeps every cell's orientation with det J scaled by s^3 and
// distances scaled by s; merged meshes keep every body's cells and groups under its name; each
// bad transform and merge is refused with a message naming the fault.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/mesh_transform.hpp"
#include "tests/expect_refused.hpp"

namespace softik {
namespace {

using Point = std::array<Real, 3>;
using Rotation = std::array<std::array<Real, 3>, 3>;

void expect_point(const Point& a, const Point& b, Real tol = 1e-14) {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b[i], tol) << "component " << i;
}

Point times(const Rotation& R, const Point& v) {
  Transform t;
  t.rotation = R;
  return t.rotate(v);
}

TEST(MeshTransform, AxisAngleMapsKnownVectors) {
  // 90 degrees about z: x -> y, y -> -x; 120 degrees about (1,1,1): x -> y -> z -> x.
  const Rotation Rz = rotation_axis_angle({0, 0, 2}, 90);
  expect_point(times(Rz, {1, 0, 0}), {0, 1, 0});
  expect_point(times(Rz, {0, 1, 0}), {-1, 0, 0});
  const Rotation R3 = rotation_axis_angle({1, 1, 1}, 120);
  expect_point(times(R3, {1, 0, 0}), {0, 1, 0});
  expect_point(times(R3, {0, 1, 0}), {0, 0, 1});
  expect_point(times(R3, {0, 0, 1}), {1, 0, 0});
}

TEST(MeshTransform, AxisAngleIsAProperRotationFixingItsAxis) {
  const Point axis{0.3, -1.2, 0.7};
  const Rotation R = rotation_axis_angle(axis, 37.5);
  Transform t;
  t.rotation = R;
  EXPECT_NO_THROW(check_transform(t, "t"));  // orthonormal to 1e-9 and det +1
  expect_point(times(R, axis), axis);
  // The angle between v and R v (v orthogonal to the axis) is the angle given.
  const Point v{1.2, 0.3, 0};  // v . axis = 0.36 - 0.36 = 0
  const Point w = times(R, v);
  const Real c = (v[0] * w[0] + v[1] * w[1] + v[2] * w[2]) / (v[0] * v[0] + v[1] * v[1]);
  EXPECT_NEAR(std::acos(c) * 180 / 3.14159265358979323846, 37.5, 1e-10);
}

TEST(MeshTransform, EulerAnglesAreZThenYThenXProduct) {
  const Point angles{30, -50, 110};
  const Rotation R = rotation_euler_xyz(angles);
  const Point v{0.2, -0.7, 1.3};
  // R v = R_z (R_y (R_x v)): x first, about the fixed axes.
  const Point expected =
      times(rotation_axis_angle({0, 0, 1}, angles[2]),
            times(rotation_axis_angle({0, 1, 0}, angles[1]), times(rotation_axis_angle({1, 0, 0}, angles[0]), v)));
  expect_point(times(R, v), expected);
  // Euler [90, 0, 0]: y -> z (a y-up mesh turned z-up).
  expect_point(times(rotation_euler_xyz({90, 0, 0}), {0, 1, 0}), {0, 0, 1});
}

TEST(MeshTransform, TransformedBoxKeepsOrientationAndScalesVolumes) {
  BoxSpec spec;
  spec.cells = {2, 1, 1};
  spec.size = {2, 1, 1};
  const Mesh box = make_box(3, CellType::Tet4, spec);
  const MeshReport before = validate(box);
  Mesh moved = box;
  Transform t;
  t.rotation = rotation_euler_xyz({20, 75, -140});
  t.translation = {1, -2, 3};
  t.scale = 2.5;
  transform_mesh(t, moved);
  const MeshReport after = validate(moved);  // throws for an inverted cell
  EXPECT_NEAR(after.min_detJ, before.min_detJ * t.scale * t.scale * t.scale, 1e-12);
  EXPECT_NEAR(after.max_detJ, before.max_detJ * t.scale * t.scale * t.scale, 1e-12);
  // Distances scale by s, and node 0 lands on t + R (s X_0).
  const auto distance = [](const Mesh& m, int a, int b) {
    Real d = 0;
    for (int i = 0; i < 3; ++i) d += std::pow(m.X[3 * a + i] - m.X[3 * b + i], 2);
    return std::sqrt(d);
  };
  const int last = box.num_nodes() - 1;
  EXPECT_NEAR(distance(moved, 0, last), t.scale * distance(box, 0, last), 1e-12);
  expect_point({moved.X[0], moved.X[1], moved.X[2]}, t.apply({box.X[0], box.X[1], box.X[2]}));
  EXPECT_EQ(moved.cells, box.cells);
}

TEST(MeshTransform, MergedMeshKeepsEveryBodyUnderItsName) {
  BoxSpec a_spec, b_spec;
  a_spec.cells = {1, 1, 1};
  b_spec.cells = {2, 1, 1};
  b_spec.origin = {3, 0, 0};
  Mesh a = make_box(3, CellType::Hex8, a_spec), b = make_box(3, CellType::Hex8, b_spec);
  a.node_groups["tip"] = {1, 2};
  b.node_groups["tip"] = {0};
  b.cell_groups["core"] = {1};
  b.surface_groups["lid"].quads.push_back({0, 1, 2, 3});
  MeshParts parts;
  const Mesh m = merge_meshes({{"a", a}, {"b", b}}, &parts);
  EXPECT_EQ(m.num_nodes(), a.num_nodes() + b.num_nodes());
  EXPECT_EQ(m.num_cells(), a.num_cells() + b.num_cells());
  EXPECT_NO_THROW(validate(m));
  const int n0 = a.num_nodes();
  EXPECT_EQ(m.node_groups.at("a/tip"), (std::vector<int>{1, 2}));
  EXPECT_EQ(m.node_groups.at("b/tip"), (std::vector<int>{n0}));
  EXPECT_EQ(m.cell_groups.at("b/core"), (std::vector<int>{a.num_cells() + 1}));
  EXPECT_EQ(m.surface_groups.at("b/lid").quads[0], (std::array<int, 4>{n0, n0 + 1, n0 + 2, n0 + 3}));
  EXPECT_EQ(m.node_groups.at("b").size(), static_cast<size_t>(b.num_nodes()));
  EXPECT_EQ(m.cell_groups.at("a").size(), static_cast<size_t>(a.num_cells()));
  EXPECT_EQ(parts.body_of_node(n0 - 1), 0);
  EXPECT_EQ(parts.body_of_node(n0), 1);
  // The second body's cell c is its own cell c with nodes shifted by n0.
  for (int k = 0; k < 8; ++k) EXPECT_EQ(m.cell(a.num_cells())[k], b.cell(0)[k] + n0);
}

TEST(MeshTransform, BadTransformsAreRefused) {
  const Real nan = std::numeric_limits<Real>::quiet_NaN();
  expect_refused(
      [] {
        rotation_axis_angle({0, 0, 0}, 30, "bodies[1].transform");
      },
      "bodies[1].transform: the rotation axis has zero length");
  expect_refused([&] { rotation_axis_angle({0, 0, 1}, nan); }, "must be finite");
  expect_refused([&] { rotation_euler_xyz({0, nan, 0}); }, "Euler angles must be finite");
  Transform t;
  t.scale = 0;
  expect_refused([&] { check_transform(t, "mesh.transform"); },
                 "mesh.transform: the scale must be a finite number > 0");
  t.scale = 1;
  t.translation[1] = nan;
  expect_refused([&] { check_transform(t, "mesh.transform"); }, "the translation must be finite");
  t.translation[1] = 0;
  t.rotation[2][2] = -1;  // a reflection
  expect_refused([&] { check_transform(t, "mesh.transform"); }, "must be a proper rotation");
}

TEST(MeshTransform, BadMergesAreRefused) {
  const Mesh tets = make_box(3, CellType::Tet4, BoxSpec{}), hexes = make_box(3, CellType::Hex8, BoxSpec{});
  expect_refused([&] { merge_meshes({{"a", tets}, {"b", hexes}}); }, "share one cell type");
  expect_refused([&] { merge_meshes({{"a", tets}, {"a", tets}}); }, "two bodies are named 'a'");
  expect_refused([&] { merge_meshes({{"a/b", tets}}); }, "without '/'");
  expect_refused([&] { merge_meshes({}); }, "no bodies");
}

}  // namespace
}  // namespace softik
