// detail::PressureRows (host/loads/pressure_rows.hpp), the host rows of a pressure actuator
// and a volume effector: its volume and sparse dV/dx equal surface_volume and the non-zero
// entries of pressure_jacobian (loads.hpp) bit for bit, for a follower and a dead load, on the
// finger's cavity and on an embedded quad surface, call after call (its scratch is reset), and
// a wrong x or a bad surface is refused with surface_volume's message.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "host/loads/pressure_rows.hpp"
#include "softik/actuator_generator.hpp"
#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/point_location.hpp"
#include "tests/mesh_helpers.hpp"

namespace {

using namespace softik;

std::vector<std::pair<int, Real>> nonzero(const std::vector<Real>& dense) {
  std::vector<std::pair<int, Real>> out;
  for (size_t k = 0; k < dense.size(); ++k)
    if (dense[k] != 0) out.emplace_back(static_cast<int>(k), dense[k]);
  return out;
}

void expect_rows_equal_loads(const PressureLoad& load, const Mesh& mesh, Real amplitude) {
  const detail::PressureRows rows(load, mesh);
  for (unsigned seed : {1u, 2u, 3u}) {  // several calls: the scratch must be back at zero each time
    const std::vector<Real> x = with_noise(mesh.X, amplitude, seed);
    std::vector<std::pair<int, Real>> J{{-1, 1.0}};  // replaced
    const Real V = rows.volume_and_jacobian(x, J);
    EXPECT_EQ(V, surface_volume(load, mesh, x));
    EXPECT_EQ(rows.volume(x), V);
    const std::vector<std::pair<int, Real>> expected = nonzero(pressure_jacobian(load, mesh, x));
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(J, expected);
  }
}

TEST(PressureRows, FingerCavityEqualsTheLoadFunctionsFollowerAndDead) {
  FingerSpec spec;
  spec.cell_size = 0.004;
  const Mesh mesh = make_finger(spec);
  PressureLoad load = cavity_load(mesh);
  for (bool follower : {true, false}) {
    SCOPED_TRACE(follower ? "follower" : "dead");
    load.follower = follower;
    expect_rows_equal_loads(load, mesh, 2e-4);
  }
}

TEST(PressureRows, EmbeddedQuadSurfaceEqualsTheLoadFunctions) {
  const Mesh mesh = box_mesh(CellType::Hex8, {3, 3, 3}, {1, 1, 1});
  // A cube [0.3, 0.7]^3 of six quads, wound outward, its corners inside the mesh's cells.
  std::vector<Real> vertex_X;
  for (int k = 0; k < 8; ++k)
    for (int i = 0; i < 3; ++i) vertex_X.push_back((k >> i) & 1 ? 0.7 : 0.3);
  PressureLoad load;
  load.name = "embedded";
  load.surface.quads = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  load.embedding = embed_surface(mesh, vertex_X, 0);
  expect_rows_equal_loads(load, mesh, 0.02);
  EXPECT_GT(surface_volume(load, mesh, mesh.X), 0);
}

TEST(PressureRows, RefusesAWrongPositionVectorAndABadSurface) {
  const Mesh mesh = box_mesh(CellType::Tet4, {2, 2, 2});
  PressureLoad load;
  load.name = "lid";
  load.surface.triangles = {{0, 1, 2}};
  const detail::PressureRows rows(load, mesh);
  std::vector<std::pair<int, Real>> J;
  try {
    rows.volume_and_jacobian(std::vector<Real>(5, 0.0), J);
    FAIL() << "a 5-entry x was accepted";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("pressure load 'lid': x has 5 entries, expected " + std::to_string(mesh.num_dofs())),
        std::string::npos)
        << e.what();
  }
  load.surface.triangles = {{0, 1, mesh.num_nodes()}};
  for (auto make : {+[](const PressureLoad&l, const Mesh&m) { (void)detail::PressureRows(l, m); },
                    +[](const PressureLoad&l, const Mesh&m) { (void)surface_volume(l, m, m.X); }}) {
    try {
      make(load, mesh);
      FAIL() << "a vertex out of range was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("surface vertex " + std::to_string(mesh.num_nodes()) + " is out of range"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
