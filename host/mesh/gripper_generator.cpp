// make_ball and make_gripper (actuator_generator.hpp): a ball from a mapped cube grid, and
// fingers placed around it as separate parts of one mesh, for grasping scenes.
#include <cmath>
#include <string>

#include "softik/actuator_generator.hpp"
#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"

namespace softik {

namespace {

constexpr Real kPi = 3.14159265358979323846;

/// Appends `part` to `mesh` (same cell type): its nodes and cells renumbered after mesh's, its
/// node and surface groups kept under their names with `suffix` appended, all its cells in the
/// cell group `cells`.
void append(Mesh& mesh, const Mesh& part, const std::string& suffix, const std::string& cells) {
  const int offset = mesh.num_nodes(), first_cell = mesh.num_cells();
  mesh.X.insert(mesh.X.end(), part.X.begin(), part.X.end());
  for (int v : part.cells) mesh.cells.push_back(v + offset);
  for (const auto& [name, nodes] : part.node_groups) {
    std::vector<int>& group = mesh.node_groups[name + suffix];
    for (int n : nodes) group.push_back(n + offset);
  }
  for (const auto& [name, surface] : part.surface_groups) {
    SurfaceGroup& group = mesh.surface_groups[name + suffix];
    for (auto t : surface.triangles) {
      for (int& v : t) v += offset;
      group.triangles.push_back(t);
    }
    for (auto q : surface.quads) {
      for (int& v : q) v += offset;
      group.quads.push_back(q);
    }
  }
  std::vector<int>& group = mesh.cell_groups[cells];
  for (int c = 0; c < part.num_cells(); ++c) group.push_back(first_cell + c);
}

}  // namespace

Mesh make_ball(const BallSpec& s) {
  SOFTIK_CHECK(std::isfinite(s.radius) && s.radius > 0,
               "make_ball: radius = " << s.radius << "; give a positive radius");
  SOFTIK_CHECK(s.cells >= 2 && s.cells <= 512,
               "make_ball: cells = " << s.cells << "; give 2 to 512 cells per cube edge");
  SOFTIK_CHECK(s.cell_type == CellType::Hex8 || s.cell_type == CellType::Tet4,
               "make_ball: cell_type must be Hex8 or Tet4");
  for (Real c : s.center) SOFTIK_CHECK(std::isfinite(c), "make_ball: the centre has a non-finite coordinate");
  BoxSpec cube;
  cube.origin = {-1, -1, -1};
  cube.size = {2, 2, 2};
  cube.cells = {s.cells, s.cells, s.cells};
  Mesh mesh = make_box(3, s.cell_type, cube);
  for (int n = 0; n < mesh.num_nodes(); ++n) {
    Real* p = &mesh.X[3 * static_cast<size_t>(n)];
    const Real x = p[0], y = p[1], z = p[2];
    // The spherified cube: each face of [-1, 1]^3 onto the unit sphere, smooth and one-to-one.
    const Real mapped[3] = {x * std::sqrt(1 - y * y / 2 - z * z / 2 + y * y * z * z / 3),
                            y * std::sqrt(1 - z * z / 2 - x * x / 2 + z * z * x * x / 3),
                            z * std::sqrt(1 - x * x / 2 - y * y / 2 + x * x * y * y / 3)};
    for (int i = 0; i < 3; ++i) p[i] = s.center[static_cast<size_t>(i)] + s.radius * mapped[i];
  }
  mesh.node_groups.clear();
  mesh.surface_groups.clear();
  std::vector<int>& all = mesh.node_groups["ball"];
  for (int n = 0; n < mesh.num_nodes(); ++n) all.push_back(n);
  std::vector<int>& cells = mesh.cell_groups["ball"];
  for (int c = 0; c < mesh.num_cells(); ++c) cells.push_back(c);
  return mesh;
}

Mesh make_gripper(const GripperSpec& s) {
  const char* who = "make_gripper";
  SOFTIK_CHECK(s.fingers >= 1 && s.fingers <= 12, who << ": fingers = " << s.fingers << "; give 1 to 12");
  SOFTIK_CHECK(std::isfinite(s.radius) && s.radius > s.ball_radius,
               who << ": radius = " << s.radius << " must exceed ball_radius = " << s.ball_radius
                   << " (the fingers' inner faces would cut the ball)");
  SOFTIK_CHECK(std::isfinite(s.tip_height) && s.tip_height > 0,
               who << ": tip_height = " << s.tip_height << "; the fingertips must be above the table (> 0)");
  const Real w = s.finger.width, h = s.finger.height;
  // Neighbouring fingers' inner corners, at distance `radius` from the axis and w/2 to the side,
  // must not overlap: 2 asin(w / (2 r_corner)) < 2 pi / fingers.
  if (s.fingers > 1) {
    const Real corner = std::sqrt(s.radius * s.radius + w * w / 4);
    SOFTIK_CHECK(2 * std::asin(std::min(1.0, w / (2 * corner))) < 2 * kPi / s.fingers,
                 who << ": " << s.fingers << " fingers " << w << " wide overlap at radius " << s.radius
                     << "; raise radius or use fewer or narrower fingers");
  }
  const Mesh finger = make_finger(s.finger);
  BallSpec ball;
  ball.center = {0, 0, s.ball_radius};
  ball.radius = s.ball_radius;
  ball.cells = s.ball_cells;
  ball.cell_type = s.finger.cell_type;
  Mesh mesh;
  mesh.dim = 3;
  mesh.cell_type = s.finger.cell_type;
  const Real base_z = s.tip_height + s.finger.length;
  for (int k = 0; k < s.fingers; ++k) {
    const Real phi = 2 * kPi * k / s.fingers, c = std::cos(phi), sn = std::sin(phi);
    // Finger frame -> world: x down (0, 0, -1), y along (sin, -cos, 0), z inward (-cos, -sin, 0):
    // a rotation (det +1), so every cell keeps its orientation.
    Mesh placed = finger;
    for (int n = 0; n < placed.num_nodes(); ++n) {
      Real* p = &placed.X[3 * static_cast<size_t>(n)];
      const Real xl = p[0], yl = p[1] - w / 2, zl = p[2];
      const Real radial = s.radius + h - zl;
      p[0] = radial * c + yl * sn;
      p[1] = radial * sn - yl * c;
      p[2] = base_z - xl;
    }
    placed.node_groups = {{"base", finger.node_groups.at("xmin")}, {"cavity", finger.node_groups.at("cavity")}};
    placed.surface_groups = {{"cavity", finger.surface_groups.at("cavity")}};
    append(mesh, placed, "", "finger" + std::to_string(k));
    // append() keeps "base" across fingers (one group) and names each cavity by its finger.
    mesh.node_groups["cavity" + std::to_string(k)] = mesh.node_groups["cavity"];
    mesh.surface_groups["cavity" + std::to_string(k)] = mesh.surface_groups["cavity"];
    mesh.node_groups.erase("cavity");
    mesh.surface_groups.erase("cavity");
  }
  append(mesh, make_ball(ball), "", "ball");
  std::vector<int>& body = mesh.cell_groups["body"];
  for (int c = 0; c < mesh.num_cells(); ++c) body.push_back(c);
  return mesh;
}

}  // namespace softik
