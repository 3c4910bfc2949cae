// Parametric pneumatic actuators (actuator_generator.hpp): a box on a tensor-product grid whose
// planes include every cavity wall, with the cells inside the cavities removed.
//
// Grid: along each axis the breakpoints are 0, the body size and every cavity wall coordinate
// (breakpoints closer than 1e-9 of the body size are merged); each interval [a, b] between
// consecutive breakpoints is divided into ceil((b - a) / cell_size) equal cells. Walls therefore
// lie exactly on grid planes and no cell is longer than cell_size along any axis.
//
// Cavity surfaces: boundary_surface() gives every boundary face wound out of the body. A face
// whose nodes all lie on the closure of cavity c's boxes bounds cavity c (the closures of
// different cavities and the outer faces are at least one cell apart, so this is unambiguous);
// the others lie on the outer box. Out of the body at a cavity wall is INTO the cavity, so the
// cavity faces are reversed to the pressure_load.hpp convention (normals out of the cavity).
#include "softik/actuator_generator.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"

namespace softik {

namespace {

struct Box {
  std::array<Real, 3> lo, hi;
};

// One cavity: the union of boxes (touching or overlapping each other), named as its groups.
struct Cavity {
  std::string name;
  std::vector<Box> boxes;
};

// Relative tolerance of the wall-thickness checks and of breakpoint merging.
constexpr Real kRelTol = 1e-9;

void require_positive(const char* who, const char* name, Real value) {
  SOFTIK_CHECK(std::isfinite(value) && value > 0,
               who << ": " << name << " = " << value << " must be a positive finite length");
}

// A wall between a cavity and the outside or another cavity must hold at least one cell.
void require_wall(const char* who, const std::string& name, Real value, Real cell_size) {
  SOFTIK_CHECK(std::isfinite(value) && value >= cell_size * (1 - kRelTol),
               who << ": " << name << " = " << value << " is thinner than one cell (cell_size = " << cell_size
                   << "): thicken the wall or lower cell_size");
}

void require_cells(const char* who, Real cell_size, CellType type) {
  require_positive(who, "cell_size", cell_size);
  SOFTIK_CHECK(type == CellType::Tet4 || type == CellType::Hex8 || type == CellType::Tet10,
               who << ": cell_type " << cell_type_name(type) << " is not a 3D solid cell; use Tet4, Hex8 or Tet10");
}

// Grid coordinates along one axis of [0, length] with every breakpoint a grid plane.
std::vector<Real> axis_coordinates(const char* who, int axis, Real length, std::vector<Real> breaks, Real cell_size) {
  std::sort(breaks.begin(), breaks.end());
  std::vector<Real> merged{0};
  for (Real b : breaks)
    if (b - merged.back() > kRelTol * length && length - b > kRelTol * length) merged.push_back(b);
  merged.push_back(length);
  std::vector<Real> cells(merged.size() - 1);
  Real total = 0;
  for (size_t s = 0; s + 1 < merged.size(); ++s) {
    cells[s] = std::max(Real(1), std::ceil((merged[s + 1] - merged[s]) / cell_size - kRelTol));
    total += cells[s];
  }
  SOFTIK_CHECK(total <= 1e5, who << ": cell_size = " << cell_size << " gives " << total << " cells along axis " << axis
                                 << " (limit 1e5): raise cell_size");
  std::vector<Real> coords{merged.front()};
  for (size_t s = 0; s + 1 < merged.size(); ++s) {
    const Real a = merged[s], b = merged[s + 1];
    const int n = static_cast<int>(cells[s]);
    for (int i = 1; i < n; ++i) coords.push_back(a + (b - a) * i / n);
    coords.push_back(b);
  }
  return coords;
}

// Index of the grid plane at coordinate v (v is one of the breakpoints, up to merging).
int plane_index(const std::vector<Real>& coords, Real v) {
  const auto it = std::lower_bound(coords.begin(), coords.end(), v);
  size_t i = static_cast<size_t>(it - coords.begin());
  if (i == coords.size() || (i > 0 && v - coords[i - 1] < coords[i] - v)) --i;
  return static_cast<int>(i);
}

// The names of the outer sides' groups, per axis: the side at 0, the side at the body size.
const char* const kSideNames[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};

// The grid's coordinates along each axis, every cavity wall a grid plane, within the limits on
// cells along an axis, on grid cells and on the generated mesh's size.
std::array<std::vector<Real>, 3> carve_grid(const char* who, const std::array<Real, 3>& size,
                                            const std::vector<Cavity>& cavities, Real cell_size, CellType type) {
  std::array<std::vector<Real>, 3> coords;
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<Real> breaks;
    for (const Cavity& cav : cavities)
      for (const Box& b : cav.boxes) breaks.insert(breaks.end(), {b.lo[axis], b.hi[axis]});
    coords[axis] = axis_coordinates(who, axis, size[axis], breaks, cell_size);
  }
  const size_t n[3] = {coords[0].size() - 1, coords[1].size() - 1, coords[2].size() - 1};
  const Real grid_cells = static_cast<Real>(n[0]) * static_cast<Real>(n[1]) * static_cast<Real>(n[2]);
  SOFTIK_CHECK(grid_cells <= 5e7, who << ": cell_size = " << cell_size << " gives " << grid_cells
                                      << " grid cells (limit 5e7): raise cell_size");
  check_generated_size(who, static_cast<Real>(n[0] + 1) * static_cast<Real>(n[1] + 1) * static_cast<Real>(n[2] + 1),
                       grid_cells * (type == CellType::Tet4 ? 6 : 1), type);
  return coords;
}

// Which grid cells are kept: every grid cell inside a cavity box is removed (cells are whole,
// since the box walls are planes).
std::vector<char> kept_cells(const std::array<std::vector<Real>, 3>& coords, const std::vector<Cavity>& cavities) {
  const size_t n[3] = {coords[0].size() - 1, coords[1].size() - 1, coords[2].size() - 1};
  std::vector<char> keep(n[0] * n[1] * n[2], 1);
  for (const Cavity& cav : cavities)
    for (const Box& b : cav.boxes) {
      int lo[3], hi[3];
      for (int axis = 0; axis < 3; ++axis) {
        lo[axis] = plane_index(coords[axis], b.lo[axis]);
        hi[axis] = plane_index(coords[axis], b.hi[axis]);
      }
      for (int k = lo[2]; k < hi[2]; ++k)
        for (int j = lo[1]; j < hi[1]; ++j)
          for (int i = lo[0]; i < hi[0]; ++i)
            keep[static_cast<size_t>(i) + n[0] * (j + n[1] * static_cast<size_t>(k))] = 0;
    }
  return keep;
}

// A node's coordinate along an axis.
Real node_coord(const Mesh& m, int node, int axis) { return m.X[3 * static_cast<size_t>(node) + axis]; }

// The outer sides' node groups (the nodes within tol of each side) and the "body" cell group
// (every cell).
void add_side_groups(Mesh& m, const std::array<Real, 3>& size, Real tol) {
  for (int axis = 0; axis < 3; ++axis) {
    auto& gmin = m.node_groups[kSideNames[axis][0]];
    auto& gmax = m.node_groups[kSideNames[axis][1]];
    for (int v = 0; v < m.num_nodes(); ++v) {
      if (std::abs(node_coord(m, v, axis)) <= tol) gmin.push_back(v);
      if (std::abs(node_coord(m, v, axis) - size[axis]) <= tol) gmax.push_back(v);
    }
  }
  auto& body = m.cell_groups["body"];
  body.resize(static_cast<size_t>(m.num_cells()));
  std::iota(body.begin(), body.end(), 0);
}

// The carved mesh and what classifying its boundary faces needs.
struct Carving {
  const char* who;
  const std::array<Real, 3>& size;
  const std::vector<Cavity>& cavities;
  Real tol;
  Mesh& m;
};

// Whether a node lies on the closure of one of the cavity's boxes.
bool in_cavity(const Carving& c, int node, const Cavity& cav) {
  for (const Box& b : cav.boxes) {
    bool inside = true;
    for (int axis = 0; axis < 3; ++axis)
      inside = inside && node_coord(c.m, node, axis) >= b.lo[axis] - c.tol &&
               node_coord(c.m, node, axis) <= b.hi[axis] + c.tol;
    if (inside) return true;
  }
  return false;
}

// The group a boundary face belongs to.
struct FaceOwner {
  std::string name;  // empty: none (cannot happen for a valid carve)
  bool cavity;
};

// A boundary face's owner: the cavity whose closure holds all its nodes, else the outer side it
// lies on.
template <class Face>
FaceOwner face_owner(const Carving& c, const Face& face) {
  for (const Cavity& cav : c.cavities)
    if (std::all_of(face.begin(), face.end(), [&](int v) { return in_cavity(c, v, cav); })) return {cav.name, true};
  for (int axis = 0; axis < 3; ++axis)
    for (int s = 0; s < 2; ++s)
      if (std::all_of(face.begin(), face.end(),
                      [&](int v) { return std::abs(node_coord(c.m, v, axis) - s * c.size[axis]) <= c.tol; }))
        return {kSideNames[axis][s], false};
  return {std::string(), false};
}

// A boundary face added to its owner's surface group (faces_of: the group's list of its kind); a
// cavity face is reversed (out of the body = into the cavity) and its nodes join the cavity's
// node group.
template <class Face, class Faces>
void add_face(Carving& c, Face face, Faces faces_of) {
  const FaceOwner o = face_owner(c, face);
  SOFTIK_CHECK(!o.name.empty(), c.who << ": internal error, a boundary face lies on no cavity and no outer side");
  if (o.cavity) {  // out of the body = into the cavity: reverse
    // A quadratic triangle: corners 1 <-> 2, mid-nodes (0,1) <-> (2,0).
    if constexpr (std::tuple_size<Face>::value == 6) {
      std::swap(face[1], face[2]);
      std::swap(face[3], face[5]);
    } else {
      std::reverse(face.begin() + 1, face.end());
    }
    auto& nodes = c.m.node_groups[o.name];
    nodes.insert(nodes.end(), face.begin(), face.end());
  }
  (c.m.surface_groups[o.name].*faces_of).push_back(face);
}

// Classify the boundary faces: outer side, or the cavity whose closure holds all its nodes; each
// cavity's node group sorted, without repeats.
void add_boundary_groups(Carving& c) {
  const SurfaceGroup boundary = boundary_surface(c.m);
  for (const auto& t : boundary.triangles) add_face(c, t, &SurfaceGroup::triangles);
  for (const auto& q : boundary.quads) add_face(c, q, &SurfaceGroup::quads);
  for (const auto& t : boundary.triangles6) add_face(c, t, &SurfaceGroup::triangles6);
  for (const Cavity& cav : c.cavities) {
    auto& nodes = c.m.node_groups[cav.name];
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  }
}

// The body [0, size] minus the cavities (already validated by the caller), with its groups.
Mesh carve(const char* who, const std::array<Real, 3>& size, const std::vector<Cavity>& cavities, Real cell_size,
           CellType type) {
  const std::array<std::vector<Real>, 3> coords = carve_grid(who, size, cavities, cell_size, type);
  const std::vector<char> keep = kept_cells(coords, cavities);
  Mesh m = make_tensor_grid(coords, type, keep);
  const Real tol = kRelTol * std::max({size[0], size[1], size[2]});
  add_side_groups(m, size, tol);
  Carving c{who, size, cavities, tol, m};
  add_boundary_groups(c);
  return m;
}

}  // namespace

Mesh make_finger(const FingerSpec& s) {
  const char* who = "make_finger";
  require_cells(who, s.cell_size, s.cell_type);
  require_positive(who, "length", s.length);
  require_positive(who, "width", s.width);
  require_positive(who, "height", s.height);
  require_wall(who, "base_wall", s.base_wall, s.cell_size);
  require_wall(who, "tip_wall", s.tip_wall, s.cell_size);
  require_wall(who, "side_wall", s.side_wall, s.cell_size);
  require_wall(who, "bottom_wall", s.bottom_wall, s.cell_size);
  require_wall(who, "top_wall", s.top_wall, s.cell_size);
  SOFTIK_CHECK(s.length - s.base_wall - s.tip_wall > 0, who << ": base_wall + tip_wall = " << s.base_wall + s.tip_wall
                                                            << " leaves no cavity in length = " << s.length
                                                            << ": lengthen the finger or thin its end walls");
  SOFTIK_CHECK(s.width - 2 * s.side_wall > 0, who << ": 2 side_wall = " << 2 * s.side_wall
                                                  << " leaves no cavity in width = " << s.width
                                                  << ": widen the finger or thin its side walls");
  SOFTIK_CHECK(s.height - s.bottom_wall - s.top_wall > 0,
               who << ": bottom_wall + top_wall = " << s.bottom_wall + s.top_wall << " leaves no cavity in height = "
                   << s.height << ": raise the height or thin the bottom/top walls");
  const Box chamber{{s.base_wall, s.side_wall, s.bottom_wall},
                    {s.length - s.tip_wall, s.width - s.side_wall, s.height - s.top_wall}};
  return carve(who, {s.length, s.width, s.height}, {{"cavity", {chamber}}}, s.cell_size, s.cell_type);
}

Mesh make_bellows(const BellowsSpec& s) {
  const char* who = "make_bellows";
  require_cells(who, s.cell_size, s.cell_type);
  SOFTIK_CHECK(s.chambers >= 1, who << ": chambers = " << s.chambers << ", need at least 1");
  require_positive(who, "width", s.width);
  require_positive(who, "height", s.height);
  require_positive(who, "chamber_length", s.chamber_length);
  require_positive(who, "channel", s.channel);
  require_wall(who, "side_wall", s.side_wall, s.cell_size);
  require_wall(who, "end_wall", s.end_wall, s.cell_size);
  if (s.chambers > 1) require_wall(who, "wall", s.wall, s.cell_size);
  const Real hollow_y = s.width - 2 * s.side_wall, hollow_z = s.height - 2 * s.side_wall;
  SOFTIK_CHECK(hollow_y > 0 && hollow_z > 0, who << ": 2 side_wall = " << 2 * s.side_wall
                                                 << " leaves no chamber in width x height = " << s.width << " x "
                                                 << s.height << ": enlarge the cross-section or thin the side walls");
  // The separating walls keep a rim (hollow - channel)/2 wide around the channel.
  const Real rim = (std::min(hollow_y, hollow_z) - s.channel) / 2;
  SOFTIK_CHECK(s.chambers == 1 || rim >= s.cell_size * (1 - kRelTol),
               who << ": channel = " << s.channel << " leaves a rim of " << rim
                   << " between channel and chamber walls, thinner than one cell (cell_size = " << s.cell_size
                   << "): narrow the channel, thin side_wall or lower cell_size");

  // Along x: end_wall, chamber, wall, chamber, ..., chamber, end_wall. The channel pieces fill
  // the separating walls' centres, so the chambers form one cavity.
  const Real length = 2 * s.end_wall + s.chambers * s.chamber_length + (s.chambers - 1) * s.wall;
  const Real cy0 = (s.width - s.channel) / 2, cy1 = (s.width + s.channel) / 2;
  const Real cz0 = (s.height - s.channel) / 2, cz1 = (s.height + s.channel) / 2;
  Cavity cavity{"cavity", {}};
  for (int c = 0; c < s.chambers; ++c) {
    const Real x0 = s.end_wall + c * (s.chamber_length + s.wall), x1 = x0 + s.chamber_length;
    cavity.boxes.push_back({{x0, s.side_wall, s.side_wall}, {x1, s.width - s.side_wall, s.height - s.side_wall}});
    if (c + 1 < s.chambers) cavity.boxes.push_back({{x1, cy0, cz0}, {x1 + s.wall, cy1, cz1}});
  }
  return carve(who, {length, s.width, s.height}, {cavity}, s.cell_size, s.cell_type);
}

Mesh make_multi_cavity_block(const MultiCavitySpec& s) {
  const char* who = "make_multi_cavity_block";
  require_cells(who, s.cell_size, s.cell_type);
  require_positive(who, "size[0]", s.size[0]);
  require_positive(who, "size[1]", s.size[1]);
  require_positive(who, "size[2]", s.size[2]);
  const char* side_names[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};
  std::vector<Cavity> cavities;
  for (size_t c = 0; c < s.cavities.size(); ++c) {
    const auto& v = s.cavities[c];
    const std::string name = "cavities[" + std::to_string(c) + "]";
    Box b;
    for (int axis = 0; axis < 3; ++axis) {
      SOFTIK_CHECK(std::isfinite(v[axis]),
                   who << ": " << name << " corner coordinate " << axis << " = " << v[axis] << " is not finite");
      SOFTIK_CHECK(std::isfinite(v[axis + 3]) && v[axis + 3] > 0, who << ": " << name << " extent " << axis << " = "
                                                                      << v[axis + 3]
                                                                      << " must be a positive finite length");
      b.lo[axis] = v[axis];
      b.hi[axis] = v[axis] + v[axis + 3];
      SOFTIK_CHECK(b.lo[axis] >= 0 && b.hi[axis] <= s.size[axis],
                   who << ": " << name << " = [" << b.lo[axis] << ", " << b.hi[axis] << "] along axis " << axis
                       << " lies outside the body [0, " << s.size[axis] << "]: move or shrink the cavity");
      require_wall(who, "the wall between " + name + " and face " + side_names[axis][0], b.lo[axis], s.cell_size);
      require_wall(who, "the wall between " + name + " and face " + side_names[axis][1], s.size[axis] - b.hi[axis],
                   s.cell_size);
    }
    for (size_t d = 0; d < c; ++d) {
      // Chebyshev gap: the largest separation along one axis (<= 0: the boxes overlap or touch).
      const Box& o = cavities[d].boxes[0];
      Real gap = -HUGE_VAL;
      for (int axis = 0; axis < 3; ++axis) gap = std::max({gap, b.lo[axis] - o.hi[axis], o.lo[axis] - b.hi[axis]});
      SOFTIK_CHECK(
          gap > kRelTol * std::max({s.size[0], s.size[1], s.size[2]}),
          who << ": " << name << " and cavities[" << d << "] overlap or touch: separate them by at least one cell");
      require_wall(who, "the wall between " + name + " and cavities[" + std::to_string(d) + "]", gap, s.cell_size);
    }
    cavities.push_back({"cavity" + std::to_string(c), {b}});
  }
  return carve(who, s.size, cavities, s.cell_size, s.cell_type);
}

}  // namespace softik
