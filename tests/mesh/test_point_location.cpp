// Point location (point_location.hpp) on distorted Tet4/Hex8/Tri3/Quad4 meshes: random points
// in random cells are found in their cell with weights that sum to 1 and reproduce the point;
// mesh vertices and points on cell faces are found; points outside are clamped within the
// tolerance (exact distances to the unit cube) or rejected with the distance in the message;
// embed_surface of a cube surface inside a box mesh; a 100k-cell mesh stays fast.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "softik/actuator_generator.hpp"
#include "softik/error.hpp"
#include "softik/fem/element_traits.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/point_location.hpp"
#include "tests/mesh_helpers.hpp"
#include "tests/expect_refused.hpp"

namespace softik {
namespace {

using Point = std::array<Real, 3>;

// A box mesh of [0,1]^dim with n cells per axis whose interior nodes are moved at random by up
// to `amount` cell sizes per coordinate (the boundary stays the unit box).
Mesh distorted_box(int dim, CellType type, int n, Real amount, unsigned seed) {
  BoxSpec spec;
  spec.cells = {n, n, n};
  Mesh m = make_box(dim, type, spec);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> u(-amount / n, amount / n);
  for (int v = 0; v < m.num_nodes(); ++v) {
    bool interior = true;
    for (int i = 0; i < dim; ++i)
      interior = interior && m.X[3 * size_t(v) + i] > 1e-12 && m.X[3 * size_t(v) + i] < 1 - 1e-12;
    if (interior)
      for (int i = 0; i < dim; ++i) m.X[3 * size_t(v) + i] += u(rng);
  }
  EXPECT_GT(validate(m).min_detJ, 0);
  return m;
}

// sum_a w_a X_a of a location.
Point interpolate(const Mesh& m, const PointLocation& loc) {
  Point x{0, 0, 0};
  for (int a = 0; a < loc.num_weights; ++a)
    for (int i = 0; i < 3; ++i) x[size_t(i)] += loc.weights[size_t(a)] * m.X[3 * size_t(loc.nodes[size_t(a)]) + i];
  return x;
}

// Weights sum to 1, reproduce p (first dim coordinates) and belong to loc.cell's nodes.
void expect_consistent(const Mesh& m, const PointLocation& loc, const Point& p, Real tol = 1e-12) {
  ASSERT_GE(loc.cell, 0);
  ASSERT_EQ(loc.num_weights, nodes_per_cell(m.cell_type));
  Real sum = 0;
  for (int a = 0; a < loc.num_weights; ++a) {
    sum += loc.weights[size_t(a)];
    EXPECT_EQ(loc.nodes[size_t(a)], m.cell(loc.cell)[a]);
  }
  EXPECT_NEAR(sum, 1, 1e-12);
  const Point x = interpolate(m, loc);
  for (int i = 0; i < m.dim; ++i) EXPECT_NEAR(x[size_t(i)], p[size_t(i)], tol) << "coordinate " << i;
}

// A random point of cell c: reference coordinates strictly inside (or, on_face, on one face);
// returns the shape function values that generate it.
template <class E>
Point random_point(const Mesh& m, int c, std::mt19937& rng, bool on_face, std::vector<Real>& N_out) {
  typename E::Xi xi;
  std::uniform_real_distribution<Real> u(0, 1);
  if constexpr (E::num_nodes == E::dim + 1) {
    Eigen::Matrix<Real, E::dim + 1, 1> lambda;
    for (int a = 0; a <= E::dim; ++a) lambda[a] = 0.01 - std::log(1 - u(rng));
    if (on_face) lambda[std::uniform_int_distribution<int>(0, E::dim)(rng)] = 0;
    lambda /= lambda.sum();
    xi = lambda.template tail<E::dim>();
  } else {
    for (int i = 0; i < E::dim; ++i) xi[i] = 1.96 * u(rng) - 0.98;
    if (on_face) xi[std::uniform_int_distribution<int>(0, E::dim - 1)(rng)] = u(rng) < 0.5 ? -1 : 1;
  }
  const auto N = E::N(xi);
  N_out.assign(N.data(), N.data() + E::num_nodes);
  Point p{0, 0, 0};
  for (int a = 0; a < E::num_nodes; ++a)
    for (int i = 0; i < 3; ++i) p[size_t(i)] += N[a] * m.X[3 * size_t(m.cell(c)[a]) + i];
  return p;
}

template <class E>
void check_random_points(CellType type, int n, Real distortion) {
  SCOPED_TRACE(cell_type_name(type));
  const Mesh m = distorted_box(E::dim, type, n, distortion, 7);
  const PointLocator locator(m);
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> pick(0, m.num_cells() - 1);
  std::vector<Real> N;
  for (int k = 0; k < 500; ++k) {
    const int c = pick(rng);
    const Point p = random_point<E>(m, c, rng, false, N);
    const PointLocation loc = locator.locate(p, 0);
    EXPECT_EQ(loc.cell, c);
    EXPECT_EQ(loc.distance, 0);
    expect_consistent(m, loc, p);
    for (int a = 0; a < E::num_nodes; ++a) EXPECT_NEAR(loc.weights[size_t(a)], N[size_t(a)], 1e-10);
  }
  // Points on cell faces (shared or on the boundary) and the mesh vertices.
  for (int k = 0; k < 500; ++k) {
    const Point p = random_point<E>(m, pick(rng), rng, true, N);
    const PointLocation loc = locator.locate(p, 0);
    EXPECT_EQ(loc.distance, 0);
    expect_consistent(m, loc, p);
  }
  for (int v = 0; v < m.num_nodes(); ++v) {
    const Point p{m.X[3 * size_t(v)], m.X[3 * size_t(v) + 1], m.X[3 * size_t(v) + 2]};
    const PointLocation loc = locator.locate(p, 0);
    expect_consistent(m, loc, p);
    Real w = 0;
    for (int a = 0; a < loc.num_weights; ++a) w += loc.nodes[size_t(a)] == v ? loc.weights[size_t(a)] : 0;
    EXPECT_NEAR(w, 1, 1e-10) << "vertex " << v;
  }
}

TEST(PointLocation, RandomPointsTet4) { check_random_points<fem::Tet4>(CellType::Tet4, 5, 0.1); }
TEST(PointLocation, RandomPointsHex8) { check_random_points<fem::Hex8>(CellType::Hex8, 5, 0.15); }
TEST(PointLocation, RandomPointsTri3) { check_random_points<fem::Tri3>(CellType::Tri3, 6, 0.15); }
TEST(PointLocation, RandomPointsQuad4) { check_random_points<fem::Quad4>(CellType::Quad4, 6, 0.2); }

TEST(PointLocation, OutsidePointsClampOrThrow) {
  for (CellType type : {CellType::Tet4, CellType::Hex8}) {
    SCOPED_TRACE(cell_type_name(type));
    // Interior distortion makes the hexes trilinear; the boundary is still the unit cube, so
    // the distance of an outside point is its distance to the cube.
    const Mesh m = distorted_box(3, type, 3, 0.15, 3);
    const PointLocator locator(m);
    const PointLocation near = locator.locate({1.05, 0.2, 0.7}, 0.1);
    EXPECT_NEAR(near.distance, 0.05, 1e-12);
    expect_consistent(m, near, {1.0, 0.2, 0.7});
    for (int a = 0; a < near.num_weights; ++a) EXPECT_GE(near.weights[size_t(a)], 0);

    const PointLocation corner = locator.nearest({1.1, 1.2, -0.3});
    EXPECT_NEAR(corner.distance, std::sqrt(0.14), 1e-12);
    expect_consistent(m, corner, {1.0, 1.0, 0.0});
    const PointLocation side = locator.nearest({-0.2, 0.37, 0.61});
    EXPECT_NEAR(side.distance, 0.2, 1e-12);
    expect_consistent(m, side, {0.0, 0.37, 0.61});

    expect_error_mentions(
        [&] {
          locator.locate({1.5, 0.5, 0.5}, 0.1);
        },
        {"point (1.5, 0.5, 0.5)", "outside the mesh", "distance 0.5 ", "tolerance 0.1"});
    expect_error_mentions([&] { locate_point(m, {0.5, 4.0, 0.5}, 0); }, {"point (0.5, 4, 0.5)", "distance 3 "});
    expect_error_mentions([&] { locator.locate({0.5, 0.5, 0.5}, -1); }, {"tolerance = -1"});
    expect_error_mentions([&] { locator.locate({0.5, NAN, 0.5}, 0); }, {"non-finite"});
  }
  expect_error_mentions([] { PointLocator l(make_box(1, CellType::Edge2, {})); }, {"Edge2"});
}

// Random points outside the unit box [0,1]^dim: the nearest cell is at the distance of the point
// from the box (the boundary of the distorted meshes is not moved), and the clamped weights
// reproduce the nearest point of the box.
TEST(PointLocation, NearestOutsideMatchesDistanceToTheBox) {
  const std::pair<int, CellType> cases[] = {
      {3, CellType::Tet4}, {3, CellType::Hex8}, {2, CellType::Tri3}, {2, CellType::Quad4}};
  for (const auto& [dim, type] : cases) {
    SCOPED_TRACE(cell_type_name(type));
    const Mesh m = distorted_box(dim, type, 6, 0.15, 9);
    const PointLocator locator(m);
    std::mt19937 rng(13);
    std::uniform_real_distribution<Real> u(-1.5, 2.5);
    for (int k = 0; k < 300; ++k) {
      Point p{0, 0, 0}, q{0, 0, 0};
      Real d2 = 0;
      for (int i = 0; i < dim; ++i) {
        p[size_t(i)] = u(rng);
        q[size_t(i)] = std::clamp(p[size_t(i)], 0.0, 1.0);
        d2 += (p[size_t(i)] - q[size_t(i)]) * (p[size_t(i)] - q[size_t(i)]);
      }
      const PointLocation loc = locator.nearest(p);
      EXPECT_NEAR(loc.distance, std::sqrt(d2), 1e-12) << "point " << p[0] << " " << p[1] << " " << p[2];
      expect_consistent(m, loc, d2 > 0 ? q : p);
      for (int a = 0; a < loc.num_weights; ++a) EXPECT_GE(loc.weights[size_t(a)], d2 > 0 ? 0 : -1e-12);
    }
  }
}

// Points inside the cavity of a block are outside the mesh, in buckets that hold no cell: the
// ring search must reach the nearest cavity wall, at min_i min(p_i - lo_i, hi_i - p_i).
TEST(PointLocation, NearestFromInsideACavity) {
  for (CellType type : {CellType::Tet4, CellType::Hex8}) {
    SCOPED_TRACE(cell_type_name(type));
    MultiCavitySpec spec;
    spec.cell_type = type;
    const std::array<Real, 6> cavity{0.01, 0.008, 0.006, 0.04, 0.014, 0.018};
    spec.cavities = {cavity};
    const Mesh m = make_multi_cavity_block(spec);
    const PointLocator locator(m);
    std::mt19937 rng(17);
    std::uniform_real_distribution<Real> u(0, 1);
    for (int k = 0; k < 200; ++k) {
      Point p;
      Real d = HUGE_VAL;
      for (size_t i = 0; i < 3; ++i) {
        p[i] = cavity[i] + cavity[i + 3] * u(rng);
        d = std::min({d, p[i] - cavity[i], cavity[i] + cavity[i + 3] - p[i]});
      }
      const PointLocation loc = locator.nearest(p);
      EXPECT_NEAR(loc.distance, d, 1e-12);
      expect_error_mentions([&] { locator.locate(p, 0.5 * d); }, {"outside the mesh"});
    }
  }
}

TEST(PointLocation, EmbedCubeSurfaceInBox) {
  // Vertices of the surface of the cube [0.3, 0.7]^3 (boundary nodes of a 3x3x3 grid).
  BoxSpec cube;
  cube.origin = {0.3, 0.3, 0.3};
  cube.size = {0.4, 0.4, 0.4};
  cube.cells = {3, 3, 3};
  const Mesh grid = make_box(3, CellType::Hex8, cube);
  std::vector<Real> vertex_X;
  for (int v = 0; v < grid.num_nodes(); ++v) {
    bool on_surface = false;
    for (int i = 0; i < 3; ++i) {
      const Real x = grid.X[3 * size_t(v) + i];
      on_surface = on_surface || std::abs(x - 0.3) < 1e-12 || std::abs(x - 0.7) < 1e-12;
    }
    if (on_surface) vertex_X.insert(vertex_X.end(), grid.X.begin() + 3 * v, grid.X.begin() + 3 * v + 3);
  }
  ASSERT_EQ(vertex_X.size(), 3u * (64 - 8));
  for (CellType type : {CellType::Tet4, CellType::Hex8}) {
    SCOPED_TRACE(cell_type_name(type));
    const Mesh m = distorted_box(3, type, 5, 0.15, 5);
    const SurfaceEmbedding e = embed_surface(m, vertex_X, 0);
    ASSERT_EQ(e.nodes_per_vertex, type == CellType::Tet4 ? 4 : 8);
    ASSERT_EQ(e.num_vertices(), 56);
    ASSERT_EQ(e.weights.size(), e.nodes.size());
    EXPECT_EQ(e.vertex_X, vertex_X);
    for (int v = 0; v < e.num_vertices(); ++v) {
      Real sum = 0, x[3] = {0, 0, 0};
      for (int a = 0; a < e.nodes_per_vertex; ++a) {
        const size_t k = size_t(v * e.nodes_per_vertex + a);
        sum += e.weights[k];
        for (int i = 0; i < 3; ++i) x[i] += e.weights[k] * m.X[3 * size_t(e.nodes[k]) + i];
      }
      EXPECT_NEAR(sum, 1, 1e-12);
      for (int i = 0; i < 3; ++i) EXPECT_NEAR(x[i], vertex_X[3 * size_t(v) + i], 1e-12);
    }
    std::vector<Real> bad = vertex_X;
    bad.insert(bad.end(), {0.5, 0.5, 1.25});
    expect_error_mentions([&] { embed_surface(m, bad, 0.1); }, {"embed_surface: vertex 56", "distance 0.25 "});
    expect_error_mentions([&] { embed_surface(m, {0.5, 0.5}, 0.1); }, {"3 per vertex"});
  }
}

TEST(PointLocation, HundredThousandCellMeshLocatesEveryPoint) {
  const Mesh m = box_mesh(CellType::Tet4, {16, 16, 66}, {1, 1, 4});
  ASSERT_EQ(m.num_cells(), 6 * 16 * 16 * 66);
  std::mt19937 rng(1);
  std::uniform_real_distribution<Real> u(0, 1);
  const PointLocator locator(m);
  for (int k = 0; k < 20000; ++k) {
    const Point p{u(rng), u(rng), 4 * u(rng)};
    const PointLocation loc = locator.locate(p, 0);
    ASSERT_EQ(loc.distance, 0);
    expect_consistent(m, loc, p);
  }
}

}  // namespace
}  // namespace softik
