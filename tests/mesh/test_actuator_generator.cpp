// Actuator generators (actuator_generator.hpp): for Tet4 and Hex8, the meshes validate, each
// cavity surface is closed, consistently wound out of the cavity (check_surface finds nothing to
// flip) and encloses the analytic box volume; the cells fill box minus cavities; the outer faces
// close up to the box volume (so the tet split is conforming); group contents; parameter errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <Eigen/LU>

#include "softik/actuator_generator.hpp"
#include "softik/error.hpp"
#include "softik/fem/element_traits.hpp"
#include "softik/surface.hpp"
#include "tests/expect_refused.hpp"

namespace softik {
namespace {

const CellType kTypes[] = {CellType::Tet4, CellType::Hex8};

// Sum of the cell volumes: det(X^T dN) at the quadrature points times the weights (exact for
// Tet4 and, with 2x2x2 Gauss points, for the trilinear Hex8).
template <class E>
Real volume_of(const Mesh& m) {
  Real v = 0;
  for (int c = 0; c < m.num_cells(); ++c) {
    Eigen::Matrix<Real, E::num_nodes, 3> X;
    for (int a = 0; a < E::num_nodes; ++a)
      for (int i = 0; i < 3; ++i) X(a, i) = m.X[3 * static_cast<size_t>(m.cell(c)[a]) + i];
    for (int q = 0; q < E::num_quad; ++q)
      v += Eigen::Matrix3d(X.transpose() * E::dN(E::quad_point(q))).determinant() * E::quad_weight(q);
  }
  return v;
}
Real mesh_volume(const Mesh& m) {
  return m.cell_type == CellType::Tet4 ? volume_of<fem::Tet4>(m) : volume_of<fem::Hex8>(m);
}

// Number of edge-connected components of a surface.
int components(const SurfaceGroup& s) {
  std::vector<std::vector<int>> faces;
  for (const auto& t : s.triangles) faces.push_back({t[0], t[1], t[2]});
  for (const auto& q : s.quads) faces.push_back({q[0], q[1], q[2], q[3]});
  std::vector<int> parent(faces.size());
  std::iota(parent.begin(), parent.end(), 0);
  std::function<int(int)> root = [&](int f) {
    return parent[size_t(f)] == f ? f : parent[size_t(f)] = root(parent[size_t(f)]);
  };
  std::map<std::pair<int, int>, int> edge_face;
  for (size_t f = 0; f < faces.size(); ++f)
    for (size_t k = 0; k < faces[f].size(); ++k) {
      const int a = faces[f][k], b = faces[f][(k + 1) % faces[f].size()];
      const auto key = std::make_pair(std::min(a, b), std::max(a, b));
      const auto it = edge_face.find(key);
      if (it == edge_face.end())
        edge_face[key] = int(f);
      else
        parent[size_t(root(int(f)))] = root(it->second);
    }
  int n = 0;
  for (size_t f = 0; f < faces.size(); ++f) n += root(int(f)) == int(f) ? 1 : 0;
  return n;
}

std::set<int> surface_nodes(const SurfaceGroup& s) {
  std::set<int> nodes;
  for (const auto& t : s.triangles) nodes.insert(t.begin(), t.end());
  for (const auto& q : s.quads) nodes.insert(q.begin(), q.end());
  return nodes;
}

// Everything every generated mesh must satisfy; `cavity_volumes` by group name.
void check_generated(const Mesh& m, const std::array<Real, 3>& size, const std::map<std::string, Real>& cavity_volumes,
                     Real cell_size) {
  SCOPED_TRACE(cell_type_name(m.cell_type));
  const MeshReport report = validate(m);
  EXPECT_GT(report.min_detJ, 0);
  EXPECT_EQ(report.unreferenced_nodes, 0);
  ASSERT_EQ(m.cell_groups.at("body").size(), size_t(m.num_cells()));

  // No cell longer than cell_size along an axis.
  Real longest = 0;
  for (int c = 0; c < m.num_cells(); ++c)
    for (int i = 0; i < 3; ++i) {
      Real lo = HUGE_VAL, hi = -HUGE_VAL;
      for (int a = 0; a < nodes_per_cell(m.cell_type); ++a) {
        lo = std::min(lo, m.X[3 * size_t(m.cell(c)[a]) + i]);
        hi = std::max(hi, m.X[3 * size_t(m.cell(c)[a]) + i]);
      }
      longest = std::max(longest, hi - lo);
    }
  EXPECT_LE(longest, cell_size * (1 + 1e-9));

  // Cavities: closed, wound out of the cavity, analytic volume; node group = surface nodes,
  // none on the outer faces.
  const Real box = size[0] * size[1] * size[2];
  Real cavities = 0;
  for (const auto& [name, volume] : cavity_volumes) {
    SCOPED_TRACE(name);
    SurfaceReport r;
    check_surface(m, m.surface_groups.at(name), name, /*require_closed=*/true, /*allow_flip=*/false, &r);
    EXPECT_TRUE(r.closed);
    EXPECT_EQ(r.flipped, 0);
    EXPECT_NEAR(r.volume, volume, 1e-12 * volume);
    EXPECT_EQ(components(m.surface_groups.at(name)), 1);
    const auto& group = m.node_groups.at(name);
    const std::set<int> expected = surface_nodes(m.surface_groups.at(name));
    EXPECT_EQ(std::set<int>(group.begin(), group.end()), expected);
    EXPECT_TRUE(std::is_sorted(group.begin(), group.end()));
    for (int n : group)
      for (int i = 0; i < 3; ++i) {
        const Real x = m.X[3 * size_t(n) + i];
        EXPECT_TRUE(x > cell_size * (1 - 1e-9) && x < size[size_t(i)] - cell_size * (1 - 1e-9))
            << "cavity node " << n << " coordinate " << i << " = " << x << " is within a cell of the outer box";
      }
    cavities += volume;
  }
  EXPECT_NEAR(mesh_volume(m), box - cavities, 1e-12 * box);

  // Outer faces: node groups hold exactly the nodes on each side; the six surface groups
  // together close up around the box volume (normals out of the body).
  const char* sides[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};
  SurfaceGroup outer;
  for (int i = 0; i < 3; ++i)
    for (int s = 0; s < 2; ++s) {
      const Real plane = s * size[size_t(i)];
      std::vector<int> on_plane;
      for (int n = 0; n < m.num_nodes(); ++n)
        if (m.X[3 * size_t(n) + i] == plane) on_plane.push_back(n);
      EXPECT_EQ(m.node_groups.at(sides[i][s]), on_plane) << sides[i][s];
      const SurfaceGroup& g = m.surface_groups.at(sides[i][s]);
      outer.triangles.insert(outer.triangles.end(), g.triangles.begin(), g.triangles.end());
      outer.quads.insert(outer.quads.end(), g.quads.begin(), g.quads.end());
    }
  SurfaceReport r;
  check_surface(m, outer, "outer", true, false, &r);
  EXPECT_NEAR(r.volume, box, 1e-12 * box);
  EXPECT_EQ(m.surface_groups.size(), 6 + cavity_volumes.size());
}

TEST(ActuatorGenerator, FingerDefaults) {
  for (CellType type : kTypes) {
    FingerSpec s;
    s.cell_type = type;
    const Mesh m = make_finger(s);
    const Real cavity =
        (s.length - s.base_wall - s.tip_wall) * (s.width - 2 * s.side_wall) * (s.height - s.bottom_wall - s.top_wall);
    check_generated(m, {s.length, s.width, s.height}, {{"cavity", cavity}}, s.cell_size);
    // 50 x 10 x 10 grid cells minus the 40 x 6 x 4 of the cavity.
    EXPECT_EQ(m.num_cells(), (5000 - 960) * (type == CellType::Tet4 ? 6 : 1));
  }
}

TEST(ActuatorGenerator, FingerWallsOffTheCellSizeAreExact) {
  for (CellType type : kTypes) {
    FingerSpec s;
    s.cell_type = type;
    s.length = 0.0537;
    s.base_wall = 0.0071;
    s.tip_wall = 0.0033;
    s.side_wall = 0.0029;
    s.bottom_wall = 0.0027;
    s.top_wall = 0.0061;
    s.cell_size = 0.0025;
    const Mesh m = make_finger(s);
    const Real cavity =
        (s.length - s.base_wall - s.tip_wall) * (s.width - 2 * s.side_wall) * (s.height - s.bottom_wall - s.top_wall);
    check_generated(m, {s.length, s.width, s.height}, {{"cavity", cavity}}, s.cell_size);
  }
}

TEST(ActuatorGenerator, BellowsIsOneCavityOfChambersAndChannel) {
  for (CellType type : kTypes) {
    BellowsSpec s;
    s.cell_type = type;
    const Mesh m = make_bellows(s);
    const Real length = 2 * s.end_wall + s.chambers * s.chamber_length + (s.chambers - 1) * s.wall;
    const Real chambers = s.chambers * s.chamber_length * (s.width - 2 * s.side_wall) * (s.height - 2 * s.side_wall);
    const Real channel = (s.chambers - 1) * s.wall * s.channel * s.channel;
    check_generated(m, {length, s.width, s.height}, {{"cavity", chambers + channel}}, s.cell_size);
  }
}

TEST(ActuatorGenerator, BellowsRectangularAndSingleChamber) {
  for (CellType type : kTypes) {
    BellowsSpec s;
    s.cell_type = type;
    s.chambers = 3;
    s.width = 0.026;
    s.height = 0.021;
    s.channel = 0.005;
    s.wall = 0.003;
    s.cell_size = 0.003;
    const Mesh m = make_bellows(s);
    const Real length = 2 * s.end_wall + 3 * s.chamber_length + 2 * s.wall;
    const Real volume = 3 * s.chamber_length * (s.width - 2 * s.side_wall) * (s.height - 2 * s.side_wall) +
                        2 * s.wall * s.channel * s.channel;
    check_generated(m, {length, s.width, s.height}, {{"cavity", volume}}, s.cell_size);

    s.chambers = 1;
    const Mesh one = make_bellows(s);
    check_generated(one, {2 * s.end_wall + s.chamber_length, s.width, s.height},
                    {{"cavity", s.chamber_length * (s.width - 2 * s.side_wall) * (s.height - 2 * s.side_wall)}},
                    s.cell_size);
  }
}

TEST(ActuatorGenerator, MultiCavityBlock) {
  for (CellType type : kTypes) {
    MultiCavitySpec s;
    s.cell_type = type;
    s.cavities = {{0.006, 0.006, 0.006, 0.018, 0.018, 0.018},
                  {0.0343, 0.0081, 0.0107, 0.0193, 0.0122, 0.0093},
                  {0.0343, 0.0231, 0.004, 0.01, 0.004, 0.004}};
    const Mesh m = make_multi_cavity_block(s);
    std::map<std::string, Real> volumes;
    for (size_t c = 0; c < s.cavities.size(); ++c)
      volumes["cavity" + std::to_string(c)] = s.cavities[c][3] * s.cavities[c][4] * s.cavities[c][5];
    check_generated(m, s.size, volumes, s.cell_size);
    // The wall node groups of different cavities are disjoint.
    std::set<int> seen;
    for (const auto& [name, volume] : volumes)
      for (int n : m.node_groups.at(name)) EXPECT_TRUE(seen.insert(n).second) << "node " << n << " in two cavities";
  }
}

TEST(ActuatorGenerator, FingerParameterErrors) {
  const auto finger = [](auto edit) {
    return [edit] {
      FingerSpec s;
      edit(s);
      make_finger(s);
    };
  };
  expect_error_mentions(finger([](FingerSpec& s) { s.bottom_wall = 0.001; }),
                        {"make_finger", "bottom_wall = 0.001", "thinner than one cell"});
  expect_error_mentions(finger([](FingerSpec& s) { s.side_wall = 0; }), {"side_wall", "thinner than one cell"});
  expect_error_mentions(finger([](FingerSpec& s) { s.length = NAN; }), {"length = nan", "positive finite"});
  expect_error_mentions(finger([](FingerSpec& s) { s.width = -0.02; }), {"width = -0.02", "positive finite"});
  expect_error_mentions(finger([](FingerSpec& s) { s.cell_size = 0; }), {"cell_size = 0"});
  expect_error_mentions(finger([](FingerSpec& s) { s.top_wall = NAN; }), {"top_wall = nan"});
  expect_error_mentions(finger([](FingerSpec& s) { s.cell_type = CellType::Tri3; }),
                        {"cell_type Tri3", "Tet4, Hex8 or Tet10"});
  expect_error_mentions(finger([](FingerSpec& s) { s.base_wall = s.tip_wall = 0.05; }),
                        {"base_wall + tip_wall", "length"});
  expect_error_mentions(finger([](FingerSpec& s) { s.side_wall = 0.01; }), {"side_wall", "width"});
  expect_error_mentions(finger([](FingerSpec& s) { s.bottom_wall = s.top_wall = 0.01; }),
                        {"bottom_wall + top_wall", "height"});
  expect_error_mentions(finger([](FingerSpec& s) { s.cell_size = 1e-12; }),
                        {"cell_size = 1e-12", "cells along axis 0", "raise cell_size"});
  expect_error_mentions(finger([](FingerSpec& s) { s.cell_size = 1e-5; }),
                        {"cell_size = 1e-05", "grid cells", "raise cell_size"});
}

TEST(ActuatorGenerator, BellowsParameterErrors) {
  const auto bellows = [](auto edit) {
    return [edit] {
      BellowsSpec s;
      edit(s);
      make_bellows(s);
    };
  };
  expect_error_mentions(bellows([](BellowsSpec& s) { s.chambers = 0; }), {"make_bellows", "chambers = 0"});
  expect_error_mentions(bellows([](BellowsSpec& s) { s.wall = 0.001; }), {"wall = 0.001", "thinner than one cell"});
  expect_error_mentions(bellows([](BellowsSpec& s) { s.end_wall = 0.0015; }),
                        {"end_wall = 0.0015", "thinner than one cell"});
  expect_error_mentions(bellows([](BellowsSpec& s) { s.channel = 0.02; }),
                        {"channel = 0.02", "rim", "thinner than one cell"});
  expect_error_mentions(bellows([](BellowsSpec& s) { s.channel = -1; }), {"channel = -1", "positive finite"});
  expect_error_mentions(bellows([](BellowsSpec& s) { s.chamber_length = NAN; }), {"chamber_length = nan"});
  expect_error_mentions(bellows([](BellowsSpec& s) { s.side_wall = 0.015; }), {"side_wall", "no chamber"});
}

TEST(ActuatorGenerator, MultiCavityParameterErrors) {
  const auto block = [](std::vector<std::array<Real, 6>> cavities) {
    return [cavities] {
      MultiCavitySpec s;
      s.cavities = cavities;
      make_multi_cavity_block(s);
    };
  };
  expect_error_mentions(block({{0.05, 0.01, 0.01, 0.02, 0.01, 0.01}}), {"cavities[0]", "outside the body"});
  expect_error_mentions(block({{-0.01, 0.01, 0.01, 0.02, 0.01, 0.01}}), {"cavities[0]", "outside the body"});
  expect_error_mentions(block({{0.001, 0.01, 0.01, 0.02, 0.01, 0.01}}),
                        {"cavities[0]", "xmin", "thinner than one cell"});
  expect_error_mentions(block({{0.01, 0.01, 0.01, 0.02, 0.01, 0.0195}}),
                        {"cavities[0]", "zmax", "thinner than one cell"});
  expect_error_mentions(block({{0.01, 0.01, 0.01, 0.02, 0.01, 0.01}, {0.02, 0.012, 0.012, 0.02, 0.01, 0.01}}),
                        {"cavities[1] and cavities[0] overlap or touch"});
  expect_error_mentions(block({{0.01, 0.01, 0.01, 0.02, 0.01, 0.01}, {0.03, 0.01, 0.01, 0.02, 0.01, 0.01}}),
                        {"cavities[1] and cavities[0] overlap or touch"});
  expect_error_mentions(block({{0.01, 0.01, 0.01, 0.02, 0.01, 0.01}, {0.031, 0.01, 0.01, 0.02, 0.01, 0.01}}),
                        {"wall between cavities[1] and cavities[0]", "thinner than one cell"});
  expect_error_mentions(block({{0.01, 0.01, 0.01, 0.02, 0, 0.01}}), {"cavities[0] extent 1 = 0"});
  expect_error_mentions(block({{0.01, NAN, 0.01, 0.02, 0.01, 0.01}}), {"cavities[0] corner coordinate 1 = nan"});
  expect_error_mentions(
      [] {
        MultiCavitySpec s;
        s.size[2] = 0;
        make_multi_cavity_block(s);
      },
      {"size[2] = 0"});
}

}  // namespace
}  // namespace softik
