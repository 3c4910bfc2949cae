// Rigid obstacles (contact.hpp): prescribed paths, validate() errors, signed distances of the
// plane, sphere, box and capped cylinder against analytic formulas (faces, edges, corners,
// caps, rim, inside), an OBJ cube against the Box, rejected OBJ files, tangent frames and
// detect_obstacle_contacts().
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "softik/contact.hpp"
#include "softik/error.hpp"
#include "tests/expect_refused.hpp"

namespace softik {
namespace {

using Mat3 = Eigen::Matrix<Real, 3, 3>;

Obstacle make_box(const Mat3& R = Mat3::Identity()) {
  Obstacle o;
  o.name = "crate";
  o.shape = ObstacleShape::Box;
  o.center = Vec3r(1, -2, 0.5);
  o.half_extents = Vec3r(1, 0.5, 0.25);
  o.rotation = R;
  return o;
}

Obstacle make_cylinder() {
  Obstacle o;
  o.name = "post";
  o.shape = ObstacleShape::Cylinder;
  o.center = Vec3r(0.5, 0, -1);
  o.axis = Vec3r(0, 1, 1).normalized();
  o.radius = 0.3;
  o.half_length = 0.8;
  return o;
}

// Every distance result satisfies p = point + d n with a unit n.
void expect_consistent(const ObstacleDistance& d, const Vec3r& p) {
  EXPECT_NEAR(d.normal.norm(), 1, 1e-12);
  EXPECT_LT((d.point + d.distance * d.normal - p).norm(), 1e-12) << p.transpose();
}

TEST(ContactObstacle, PathOffsetIsPiecewiseLinearAndHeld) {
  Obstacle o;
  EXPECT_EQ(o.offset(3.0), Vec3r::Zero());
  o.path_times = {1, 2, 4};
  o.path_offsets = {Vec3r(0, 0, 0), Vec3r(1, 0, 0), Vec3r(1, 2, 0)};
  EXPECT_LT((o.offset(0.0) - Vec3r(0, 0, 0)).norm(), 1e-15);
  EXPECT_LT((o.offset(1.25) - Vec3r(0.25, 0, 0)).norm(), 1e-15);
  EXPECT_LT((o.offset(2.0) - Vec3r(1, 0, 0)).norm(), 1e-15);
  EXPECT_LT((o.offset(3.5) - Vec3r(1, 1.5, 0)).norm(), 1e-15);
  EXPECT_LT((o.offset(9.0) - Vec3r(1, 2, 0)).norm(), 1e-15);
  // The distance follows the moved obstacle: a unit sphere at (1, 1.5, 0) at t = 3.5.
  o.shape = ObstacleShape::Sphere;
  o.name = "ball";
  o.radius = 1;
  const ObstacleDistance d = distance_to_obstacle(o, 3.5, Vec3r(1, 1.5, 3));
  EXPECT_NEAR(d.distance, 2, 1e-14);
  EXPECT_LT((d.point - Vec3r(1, 1.5, 1)).norm(), 1e-14);
}

TEST(ContactObstacle, PlaneAndSphereDistances) {
  Obstacle plane;
  plane.name = "floor";
  plane.center = Vec3r(0, 0, 1);
  plane.normal = Vec3r(0, 0.6, 0.8);
  const Vec3r p(3, 1, 2);
  const ObstacleDistance d = distance_to_obstacle(plane, 0, p);
  EXPECT_NEAR(d.distance, 0.6 + 0.8, 1e-14);
  expect_consistent(d, p);
  Obstacle ball;
  ball.name = "ball";
  ball.shape = ObstacleShape::Sphere;
  ball.center = Vec3r(1, 1, 1);
  ball.radius = 2;
  for (const Vec3r& q : {Vec3r(4, 5, 1), Vec3r(1.5, 1, 1), Vec3r(1, 1, 3)}) {
    const ObstacleDistance s = distance_to_obstacle(ball, 0, q);
    EXPECT_NEAR(s.distance, (q - ball.center).norm() - 2, 1e-14);
    expect_consistent(s, q);
  }
}

TEST(ContactObstacle, BoxFacesEdgesCornersAndInside) {
  const Obstacle box = make_box();
  struct Case {
    Vec3r local;  // point relative to the centre
    Real d;
    Vec3r n;
  };
  const Case cases[] = {
      {{1.5, 0, 0}, 0.5, {1, 0, 0}},                                      // face +x
      {{0, -0.5, 0}, 0, {0, -1, 0}},                                      // on face -y
      {{1.3, 0.9, 0}, 0.5, {0.6, 0.8, 0}},                                // edge x-y
      {{-2, -1.5, 1.25}, std::sqrt(3.0), Vec3r(-1, -1, 1).normalized()},  // corner
      {{0.9, 0, 0}, -0.1, {1, 0, 0}},                                     // inside near +x
      {{0, 0, -0.2}, -0.05, {0, 0, -1}},                                  // inside near -z
  };
  for (const Case& c : cases) {
    const Vec3r p = box.center + c.local;
    const ObstacleDistance d = distance_to_obstacle(box, 0, p);
    EXPECT_NEAR(d.distance, c.d, 1e-14) << c.local.transpose();
    EXPECT_LT((d.normal - c.n).norm(), 1e-14) << c.local.transpose();
    expect_consistent(d, p);
  }
}

// Against the box formula d = |max(q - h, 0)| + min(max_i(q_i - h_i), 0), q = |R^T (p - c)|.
TEST(ContactObstacle, RotatedBoxMatchesFormulaAtRandomPoints) {
  const Mat3 R = Eigen::AngleAxis<Real>(0.7, Vec3r(1, 2, 3).normalized()).toRotationMatrix();
  const Obstacle box = make_box(R);
  std::mt19937 rng(7);
  std::uniform_real_distribution<Real> u(-2, 2);
  for (int k = 0; k < 500; ++k) {
    const Vec3r p = box.center + Vec3r(u(rng), u(rng), u(rng));
    const Vec3r q = (R.transpose() * (p - box.center)).cwiseAbs() - box.half_extents;
    const Real expected = q.cwiseMax(0).norm() + std::min(q.maxCoeff(), Real(0));
    const ObstacleDistance d = distance_to_obstacle(box, 0, p);
    EXPECT_NEAR(d.distance, expected, 1e-13);
    expect_consistent(d, p);
  }
}

// Against d = |max((dr, dz), 0)| + min(max(dr, dz), 0), dr = r - R, dz = |z| - L.
TEST(ContactObstacle, CylinderCapsRimSideAndInside) {
  const Obstacle cyl = make_cylinder();
  Vec3r u, v;
  tangent_frame(cyl.axis, u, v);
  const Vec3r& a = cyl.axis;
  const Vec3r c = cyl.center;
  EXPECT_NEAR(distance_to_obstacle(cyl, 0, c + 0.5 * u).distance, 0.2, 1e-14);            // side
  EXPECT_NEAR(distance_to_obstacle(cyl, 0, c + 1.1 * a + 0.1 * v).distance, 0.3, 1e-14);  // cap
  EXPECT_NEAR(distance_to_obstacle(cyl, 0, c - 1.2 * a - 0.6 * u).distance, 0.5, 1e-14);  // rim
  const ObstacleDistance in_side = distance_to_obstacle(cyl, 0, c + 0.25 * v);
  EXPECT_NEAR(in_side.distance, -0.05, 1e-14);
  EXPECT_LT((in_side.normal - v).norm(), 1e-12);
  const ObstacleDistance in_cap = distance_to_obstacle(cyl, 0, c - 0.7 * a);
  EXPECT_NEAR(in_cap.distance, -0.1, 1e-14);
  EXPECT_LT((in_cap.normal + a).norm(), 1e-12);
  std::mt19937 rng(3);
  std::uniform_real_distribution<Real> w(-1.5, 1.5);
  for (int k = 0; k < 500; ++k) {
    const Vec3r p = c + Vec3r(w(rng), w(rng), w(rng));
    const Real z = a.dot(p - c);
    const Real dr = (p - c - z * a).norm() - cyl.radius, dz = std::abs(z) - cyl.half_length;
    const Real expected =
        std::hypot(std::max(dr, Real(0)), std::max(dz, Real(0))) + std::min(std::max(dr, dz), Real(0));
    const ObstacleDistance d = distance_to_obstacle(cyl, 0, p);
    EXPECT_NEAR(d.distance, expected, 1e-13);
    expect_consistent(d, p);
  }
}

TEST(ContactObstacle, TangentFrameIsOrthonormalRightHandedAndDeterministic) {
  std::mt19937 rng(11);
  std::normal_distribution<Real> g;
  for (int k = 0; k < 200; ++k) {
    const Vec3r n = k < 3 ? Vec3r(Vec3r::Unit(k)) : Vec3r(g(rng), g(rng), g(rng)).normalized();
    Vec3r t1, t2, s1, s2;
    tangent_frame(n, t1, t2);
    tangent_frame(n, s1, s2);
    EXPECT_EQ(t1, s1);
    EXPECT_NEAR(t1.norm(), 1, 1e-14);
    EXPECT_NEAR(t2.norm(), 1, 1e-14);
    EXPECT_NEAR(n.dot(t1), 0, 1e-14);
    EXPECT_NEAR(n.dot(t2), 0, 1e-14);
    EXPECT_LT((n.cross(t1) - t2).norm(), 1e-14);
  }
}

TEST(ContactObstacle, ValidateNamesTheObstacleAndTheBadValue) {
  validate(make_box());
  validate(make_cylinder());
  auto bad = [](const std::function<void(Obstacle&)>& edit, Obstacle o, const std::string& piece) {
    edit(o);
    expect_error_mentions([&] { validate(o); }, {"'" + o.name + "'", piece});
  };
  Obstacle plane;
  plane.name = "floor";
  bad([](Obstacle& o) { o.normal = Vec3r(0, 0, 2); }, plane, "length 2");
  bad([](Obstacle& o) { o.normal = Vec3r::Zero(); }, plane, "unit vector");
  bad([](Obstacle& o) { o.center[0] = NAN; }, plane, "not finite");
  bad([](Obstacle& o) { o.friction = -0.5; }, plane, "-0.5");
  bad([](Obstacle& o) { o.path_times = {0, 1}; }, plane, "2 times but 0 offsets");
  bad(
      [](Obstacle& o) {
        o.path_times = {0, 1, 1};
        o.path_offsets.assign(3, Vec3r::Zero());
      },
      plane, "increasing");
  bad([](Obstacle& o) { o.radius = -1; }, make_cylinder(), "radius is -1");
  bad([](Obstacle& o) { o.half_length = 0; }, make_cylinder(), "half length is 0");
  bad([](Obstacle& o) { o.axis = Vec3r(1, 1, 0); }, make_cylinder(), "the axis");
  bad([](Obstacle& o) { o.half_extents[1] = 0; }, make_box(), "half extent 1 is 0");
  bad([](Obstacle& o) { o.rotation(0, 0) = 2; }, make_box(), "rotation");
  bad([](Obstacle& o) { o.rotation = -Mat3::Identity(); }, make_box(), "right-handed");
  Obstacle ball;
  ball.name = "ball";
  ball.shape = ObstacleShape::Sphere;
  bad([](Obstacle&) {}, ball, "radius is 0");
  Obstacle mesh;
  mesh.name = "rock";
  mesh.shape = ObstacleShape::TriangleMesh;
  bad([](Obstacle&) {}, mesh, "0 triangles");
}

// A unit cube [0,1]^3 as an OBJ file, wound outward (or inward, or with a face missing).
std::string write_cube_obj(const std::string& file, bool inward, bool open) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "softik_contact_obstacles";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / file).string();
  std::ofstream out(path);
  for (int i = 0; i < 8; ++i) out << "v " << (i & 1) << " " << ((i >> 1) & 1) << " " << ((i >> 2) & 1) << "\n";
  const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (int q = open ? 1 : 0; q < 6; ++q) {
    int f[4] = {quads[q][0] + 1, quads[q][1] + 1, quads[q][2] + 1, quads[q][3] + 1};
    if (inward) std::swap(f[1], f[3]);
    out << "f " << f[0] << " " << f[1] << " " << f[2] << "\nf " << f[0] << " " << f[2] << " " << f[3] << "\n";
  }
  return path;
}

TEST(ContactObstacle, ObjCubeMatchesTheBox) {
  const Obstacle mesh = load_obstacle_mesh(write_cube_obj("cube.obj", false, false), "cube");
  EXPECT_EQ(mesh.shape, ObstacleShape::TriangleMesh);
  EXPECT_EQ(mesh.triangles.size(), 12u);
  Obstacle box;
  box.name = "box";
  box.shape = ObstacleShape::Box;
  box.center = Vec3r::Constant(0.5);
  box.half_extents = Vec3r::Constant(0.5);
  std::mt19937 rng(5);
  std::uniform_real_distribution<Real> u(-0.8, 1.8);
  for (int k = 0; k < 400; ++k) {
    const Vec3r p(u(rng), u(rng), u(rng));
    const ObstacleDistance dm = distance_to_obstacle(mesh, 0, p), db = distance_to_obstacle(box, 0, p);
    EXPECT_NEAR(dm.distance, db.distance, 1e-13) << p.transpose();
    expect_consistent(dm, p);
    if (std::abs(db.distance) > 1e-9) {
      EXPECT_LT((dm.normal - db.normal).norm(), 1e-9) << p.transpose();
    }
  }
  // On a face: distance 0, the face normal; near an edge and a corner inside.
  const ObstacleDistance on = distance_to_obstacle(mesh, 0, Vec3r(0.3, 0.4, 1));
  EXPECT_NEAR(on.distance, 0, 1e-15);
  EXPECT_LT((on.normal - Vec3r::UnitZ()).norm(), 1e-15);
  EXPECT_NEAR(distance_to_obstacle(mesh, 0, Vec3r(0.95, 0.5, 0.97)).distance, -0.03, 1e-14);
  EXPECT_NEAR(distance_to_obstacle(mesh, 0, Vec3r(0.99, 0.98, 0.97)).distance, -0.01, 1e-14);
  EXPECT_NEAR(distance_to_obstacle(mesh, 0, Vec3r(2, 2, 2)).distance, std::sqrt(3.0), 1e-14);
}

TEST(ContactObstacle, OpenAndInwardObjFilesAreRejectedNamingTheFile) {
  const std::string open = write_cube_obj("open_cube.obj", false, true);
  expect_error_mentions([&] { load_obstacle_mesh(open, "lid"); }, {open, "'lid'", "not closed"});
  const std::string inward = write_cube_obj("inward_cube.obj", true, false);
  expect_error_mentions([&] { load_obstacle_mesh(inward, "inside_out"); }, {inward, "'inside_out'", "inward"});
}

TEST(ContactObstacle, DetectReportsNearNodesWithGapsAndFrames) {
  Obstacle floor;
  floor.name = "floor";
  floor.friction = 0.4;
  floor.path_times = {0, 1};
  floor.path_offsets = {Vec3r::Zero(), Vec3r(0, 0, 0.1)};
  Obstacle ball;
  ball.name = "ball";
  ball.shape = ObstacleShape::Sphere;
  ball.center = Vec3r(0, 0, 1);
  ball.radius = 0.5;
  const std::vector<Real> x = {0, 0, 0.12, 5, 5, 1, 0, 0, 0.48, 3, 0, 0.3};
  // At t = 1 the floor is at z = 0.1: node 0 at distance 0.02, node 2 at 0.38 (0.02 from the
  // ball too), node 3 at 0.2 (outside 0.01 + 0.05), node 1 far from both.
  const auto contacts = detect_obstacle_contacts({floor, ball}, 1.0, {0, 1, 2, 3}, x, 0.01, 0.05);
  ASSERT_EQ(contacts.size(), 2u);
  EXPECT_EQ(contacts[0].node, 0);
  EXPECT_EQ(contacts[0].obstacle, 0);
  EXPECT_NEAR(contacts[0].gap, 0.01, 1e-14);
  EXPECT_EQ(contacts[0].friction, 0.4);
  EXPECT_EQ(contacts[1].node, 2);
  EXPECT_EQ(contacts[1].obstacle, 1);
  EXPECT_NEAR(contacts[1].gap, 0.01, 1e-14);
  EXPECT_LT((contacts[1].normal + Vec3r::UnitZ()).norm(), 1e-14);
  for (const auto& c : contacts) {
    EXPECT_NEAR(c.normal.dot(c.t1), 0, 1e-14);
    EXPECT_LT((c.normal.cross(c.t1) - c.t2).norm(), 1e-14);
  }
  expect_error_mentions([&] { detect_obstacle_contacts({floor}, 0, {7}, x, 0.01, 0.05); }, {"node 7"});
  expect_error_mentions([&] { detect_obstacle_contacts({floor}, 0, {0}, x, -1, 0.05); }, {"contact distance"});
}

}  // namespace
}  // namespace softik
