// check_surface() (surface.hpp) on surfaces built here: a unit cube as 12 triangles or 6 quads
// wound out of the cube (the cube is the cavity), reversed, with a face reversed or missing,
// a non-manifold edge, bad node indices, degenerate faces and a flat closed surface.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "softik/error.hpp"
#include "softik/surface.hpp"
#include "tests/expect_refused.hpp"

namespace softik {
namespace {

// Unit cube corners, node i = x + 2y + 4z, plus node 8 at (2, 0, 0) and node 9 at (0.5, -1, 0.5).
Mesh cube_mesh(double shift = 0) {
  Mesh m;
  for (int i = 0; i < 8; ++i)
    for (int k = 0; k < 3; ++k) m.X.push_back(((i >> k) & 1) + shift);
  for (double c : {2.0, 0.0, 0.0, 0.5, -1.0, 0.5}) m.X.push_back(c + shift);
  return m;
}

// The six cube faces, normals out of the cube.
SurfaceGroup cube_quads() {
  SurfaceGroup s;
  s.quads = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  return s;
}

// The same split (a,b,c),(a,c,d): quad q gives triangles 2q and 2q+1.
SurfaceGroup cube_triangles() {
  SurfaceGroup s;
  for (const auto& q : cube_quads().quads) {
    s.triangles.push_back({q[0], q[1], q[2]});
    s.triangles.push_back({q[0], q[2], q[3]});
  }
  return s;
}

SurfaceGroup reversed(SurfaceGroup s) {
  for (auto& t : s.triangles) std::swap(t[1], t[2]);
  for (auto& q : s.quads) std::swap(q[1], q[3]);
  return s;
}

// Every refusal names the surface it checked ('cavity') besides `pieces`.
void expect_cavity_error(const std::function<void()>& f, std::vector<std::string> pieces) {
  pieces.push_back("'cavity'");
  expect_error_mentions(f, pieces);
}

TEST(SurfaceCheck, ClosedTrianglesPass) {
  const Mesh m = cube_mesh();
  SurfaceReport r;
  const SurfaceGroup out = check_surface(m, cube_triangles(), "cavity", true, false, &r);
  EXPECT_TRUE(r.closed);
  EXPECT_EQ(r.num_triangles, 12);
  EXPECT_EQ(r.boundary_edges, 0);
  EXPECT_EQ(r.flipped, 0);
  EXPECT_NEAR(r.volume, 1.0, 1e-12);
  EXPECT_EQ(out.triangles, cube_triangles().triangles);
}

TEST(SurfaceCheck, ClosedQuadsPassAndVolumeIsTranslationInvariant) {
  for (double shift : {0.0, 100.0}) {
    SurfaceReport r;
    const SurfaceGroup out = check_surface(cube_mesh(shift), cube_quads(), "cavity", true, false, &r);
    EXPECT_TRUE(r.closed);
    EXPECT_EQ(r.num_triangles, 12);
    EXPECT_EQ(r.flipped, 0);
    EXPECT_NEAR(r.volume, 1.0, 1e-12);
    EXPECT_EQ(out.quads, cube_quads().quads);
  }
}

TEST(SurfaceCheck, MixedTrianglesAndQuads) {
  SurfaceGroup s = cube_quads();
  s.quads.pop_back();  // +x face as two triangles instead
  s.triangles = {{1, 3, 7}, {1, 7, 5}};
  SurfaceReport r;
  check_surface(cube_mesh(), s, "cavity", true, false, &r);
  EXPECT_TRUE(r.closed);
  EXPECT_EQ(r.num_triangles, 12);
  EXPECT_NEAR(r.volume, 1.0, 1e-12);
}

TEST(SurfaceCheck, InwardSurfaceIsFlippedBackWhenAllowed) {
  const Mesh m = cube_mesh();
  SurfaceReport r;
  SurfaceGroup out = check_surface(m, reversed(cube_triangles()), "cavity", true, true, &r);
  EXPECT_EQ(r.flipped, 12);
  EXPECT_NEAR(r.volume, 1.0, 1e-12);
  EXPECT_EQ(out.triangles, cube_triangles().triangles);
  out = check_surface(m, reversed(cube_quads()), "cavity", true, true, &r);
  EXPECT_EQ(r.flipped, 6);
  EXPECT_NEAR(r.volume, 1.0, 1e-12);
  EXPECT_EQ(out.quads, cube_quads().quads);
  // The flipped result passes unchanged.
  check_surface(m, out, "cavity", true, false, &r);
  EXPECT_EQ(r.flipped, 0);
}

TEST(SurfaceCheck, InwardSurfaceIsAnErrorWhenFlippingIsNotAllowed) {
  const Mesh m = cube_mesh();
  expect_cavity_error([&] { check_surface(m, reversed(cube_triangles()), "cavity", true, false); },
                      {"wound inward", "reverse all faces or allow flipping"});
}

TEST(SurfaceCheck, OneReversedFaceIsNamed) {
  const Mesh m = cube_mesh();
  for (int k : {0, 5, 11}) {
    SurfaceGroup s = cube_triangles();
    std::swap(s.triangles[size_t(k)][1], s.triangles[size_t(k)][2]);
    expect_cavity_error(
        [&] { check_surface(m, s, "cavity", true, true); },
        {"same direction", "reverse face " + std::to_string(k) + " (triangle " + std::to_string(k) + ")"});
  }
  SurfaceGroup q = cube_quads();
  std::swap(q.quads[2][1], q.quads[2][3]);
  expect_cavity_error([&] { check_surface(m, q, "cavity", false, true); }, {"reverse face 2 (quad 2)"});
}

TEST(SurfaceCheck, MissingFace) {
  const Mesh m = cube_mesh();
  SurfaceGroup s = cube_triangles();
  s.triangles.pop_back();
  expect_cavity_error([&] { check_surface(m, s, "cavity", true, true); },
                      {"the cavity surface is not closed", "3 boundary edges", "add the missing faces"});
  SurfaceReport r;
  check_surface(m, s, "cavity", false, true, &r);
  EXPECT_FALSE(r.closed);
  EXPECT_EQ(r.boundary_edges, 3);
  EXPECT_EQ(r.flipped, 0);

  SurfaceGroup q = cube_quads();
  q.quads.erase(q.quads.begin() + 1);  // open box without its top
  expect_cavity_error([&] { check_surface(m, q, "cavity", true, false); }, {"not closed", "4 boundary edges"});
  check_surface(m, q, "cavity", false, false, &r);
  EXPECT_FALSE(r.closed);
  EXPECT_EQ(r.boundary_edges, 4);
  EXPECT_EQ(r.num_triangles, 10);
}

TEST(SurfaceCheck, EdgeSharedByThreeFaces) {
  SurfaceGroup s = cube_triangles();
  s.triangles.push_back({0, 1, 9});
  expect_cavity_error([&] { check_surface(cube_mesh(), s, "cavity", false, true); },
                      {"edge 0-1", "shared by 3 faces", "non-manifold", "face 12 (triangle 12)"});
}

TEST(SurfaceCheck, NodeOutOfRange) {
  const Mesh m = cube_mesh();
  for (int bad : {10, -1}) {
    SurfaceGroup s = cube_triangles();
    s.triangles[4][2] = bad;
    expect_cavity_error([&] { check_surface(m, s, "cavity", true, true); },
                        {"face 4 (triangle 4)", "node " + std::to_string(bad), "outside the mesh's 10 nodes"});
  }
  SurfaceGroup q = cube_quads();
  q.quads[3][0] = 42;
  expect_cavity_error([&] { check_surface(m, q, "cavity", true, true); }, {"face 3 (quad 3)", "node 42"});
}

TEST(SurfaceCheck, DegenerateFaces) {
  const Mesh m = cube_mesh();
  SurfaceGroup s = cube_triangles();
  s.triangles[7] = {3, 3, 6};
  expect_cavity_error([&] { check_surface(m, s, "cavity", true, true); },
                      {"face 7", "degenerate", "node 3 appears twice"});
  s = cube_triangles();
  s.triangles.push_back({0, 1, 8});  // collinear
  expect_cavity_error([&] { check_surface(m, s, "cavity", false, true); }, {"face 12", "degenerate", "area"});
  SurfaceGroup q = cube_quads();
  q.quads[0] = {0, 2, 0, 1};
  expect_cavity_error([&] { check_surface(m, q, "cavity", true, true); }, {"face 0 (quad 0)", "degenerate"});
}

TEST(SurfaceCheck, EmptyAndFlatSurfaces) {
  const Mesh m = cube_mesh();
  expect_cavity_error([&] { check_surface(m, SurfaceGroup{}, "cavity", true, true); }, {"no faces"});
  SurfaceGroup flat;  // two coincident triangles of opposite winding: closed, volume 0
  flat.triangles = {{0, 1, 3}, {0, 3, 1}};
  expect_cavity_error([&] { check_surface(m, flat, "cavity", true, true); }, {"encloses no volume"});
}

}  // namespace
}  // namespace softik
