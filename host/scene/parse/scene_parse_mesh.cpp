// The `mesh:` section of a scene (docs/scene-format.md, "mesh"): a mesh file, one of the
// generators (box, finger, bellows, multi_cavity, gripper, sphere_shell) with its fields, or a
// node-network file (the body is then that network).
#include <cmath>
#include <initializer_list>

#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik::scene_detail {

namespace {

const char* const kGeneratorTypes = "box, finger, bellows, multi_cavity, gripper or sphere_shell";

CellType cell_type(const Map& m) {
  const CellType types[] = {CellType::Tet4, CellType::Hex8, CellType::Tet10};
  return types[m.choice("cell_type", {"tet4", "hex8", "tet10"}, 0)];
}

void require_positive(const Map& m, const std::string& key, Real v) {
  if (!(v > 0) || !std::isfinite(v))
    fail(m.where(key), m.name(key) + ": must be > 0 (and finite), got " + std::to_string(v));
}

const std::vector<std::string> kFingerKeys = {"type",      "length",    "width",     "height",
                                              "base_wall", "tip_wall",  "side_wall", "bottom_wall",
                                              "top_wall",  "cell_size", "cell_type"};

// Reads the number of keys[i] into spec.*fields[i], in the order given (an absent key keeps the field).
template <class Spec>
void read_numbers(const Map& m, Spec& spec, std::initializer_list<const char*> keys,
                  std::initializer_list<Real Spec::*> fields) {
  SOFTIK_ASSERT(keys.size() == fields.size(), "one field per key");
  const auto* field = fields.begin();
  for (const char* key : keys) {
    Real& value = spec.*(*field++);
    value = m.number(key, value);
  }
}

void parse_finger(const Map& m, FingerSpec& f) {
  using F = FingerSpec;
  read_numbers(
      m, f, {"length", "width", "height", "base_wall", "tip_wall", "side_wall", "bottom_wall", "top_wall", "cell_size"},
      {&F::length, &F::width, &F::height, &F::base_wall, &F::tip_wall, &F::side_wall, &F::bottom_wall, &F::top_wall,
       &F::cell_size});
  f.cell_type = cell_type(m);
}

void parse_box(const Map& m, SceneMesh& mesh) {
  mesh.source = SceneMesh::Source::Box;
  mesh.box.size = m.vec3("size", mesh.box.size);
  mesh.box.origin = m.vec3("origin", mesh.box.origin);
  if (m.has("cells")) {
    const YAML::Node cells = m.at("cells");
    as_numbers(cells, m.path(), m.name("cells"), 3);
    for (int i = 0; i < 3; ++i) {
      mesh.box.cells[static_cast<size_t>(i)] =
          as_int(cells[i], m.path(), m.name("cells") + "[" + std::to_string(i) + "]");
      if (mesh.box.cells[static_cast<size_t>(i)] < 1)
        fail(location(m.path(), cells[i]), m.name("cells") + ": every count must be >= 1");
    }
  }
  mesh.box_cell_type = cell_type(m);
}

void parse_gripper(const Map& m, SceneMesh& mesh) {
  GripperSpec& g = mesh.gripper;
  mesh.source = SceneMesh::Source::Gripper;
  parse_finger(m, g.finger);
  g.fingers = m.integer("fingers", g.fingers);
  g.radius = m.number("radius", g.radius);
  g.tip_height = m.number("tip_height", g.tip_height);
  g.ball_radius = m.number("ball_radius", g.ball_radius);
  g.ball_cells = m.integer("ball_cells", g.ball_cells);
}

void parse_bellows(const Map& m, SceneMesh& mesh) {
  BellowsSpec& b = mesh.bellows;
  mesh.source = SceneMesh::Source::Bellows;
  b.chambers = m.integer("chambers", b.chambers);
  if (b.chambers < 1) fail(m.where("chambers"), m.name("chambers") + ": must be >= 1");
  using B = BellowsSpec;
  read_numbers(
      m, b, {"width", "height", "chamber_length", "wall", "side_wall", "end_wall", "channel", "cell_size"},
      {&B::width, &B::height, &B::chamber_length, &B::wall, &B::side_wall, &B::end_wall, &B::channel, &B::cell_size});
  b.cell_type = cell_type(m);
}

void parse_multi_cavity(const Map& m, SceneMesh& mesh) {
  MultiCavitySpec& s = mesh.multi_cavity;
  mesh.source = SceneMesh::Source::MultiCavity;
  s.size = m.vec3("size", s.size);
  for (const YAML::Node& c :
       as_list(m.need("cavities", "a list of [x0, y0, z0, dx, dy, dz] boxes"), m.path(), m.name("cavities"))) {
    const std::vector<Real> v = as_numbers(c, m.path(), m.name("cavities") + " entry", 6);
    s.cavities.push_back({v[0], v[1], v[2], v[3], v[4], v[5]});
  }
  s.cell_size = m.number("cell_size", s.cell_size);
  s.cell_type = cell_type(m);
}

/// The octant of a thick spherical shell (make_thick_sphere_octant): the radii, the cells
/// through the wall and per patch side, each count within the generator's cap.
void parse_sphere_shell(const Map& m, SceneMesh& mesh) {
  SceneMesh::SphereShell& s = mesh.sphere_shell;
  mesh.source = SceneMesh::Source::SphereShell;
  s.inner_radius = m.number("inner_radius", "the cavity's radius, e.g. 0.01 (m)");
  require_positive(m, "inner_radius", s.inner_radius);
  s.outer_radius = m.number("outer_radius", "the outer wall's radius, e.g. 0.012 (m)");
  require_positive(m, "outer_radius", s.outer_radius);
  if (!(s.outer_radius > s.inner_radius))
    fail(m.where("outer_radius"), m.name("outer_radius") + ": " + std::to_string(s.outer_radius) +
                                      " must be larger than inner_radius (" + std::to_string(s.inner_radius) + ")");
  const auto count = [&](const std::string& key, int fallback, const std::string& meaning) {
    const int v = m.integer(key, fallback);
    if (v < 1 || v > 1000)
      fail(m.where(key), m.name(key) + ": " + std::to_string(v) + " " + meaning + "; give 1 to 1000");
    return v;
  };
  s.layers = count("layers", s.layers, "cells through the wall");
  s.cells = count("cells", s.cells, "cells per side of each of the octant's three patches");
  s.cell_type = cell_type(m);
  s.radial_grading = m.number("radial_grading", s.radial_grading);
  require_positive(m, "radial_grading", s.radial_grading);
}

void parse_generator(const YAML::Node& node, const std::string& path, SceneMesh& mesh) {
  const std::string what = "mesh.generator";
  if (!node.IsMap()) Map(node, path, what, {"type"});  // throws: expected a map
  YAML::Node type;
  bool has_type = false;
  for (auto it = node.begin(); it != node.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == "type") {
      type = it->second;
      has_type = true;
    }
  if (!has_type) fail(location(path, node), what + ": missing required key 'type' (" + kGeneratorTypes + ")");
  const int kind =
      as_choice(type, path, what + ".type", {"box", "finger", "bellows", "multi_cavity", "gripper", "sphere_shell"});
  switch (kind) {
    case 0:
      return parse_box(Map(node, path, what, {"type", "size", "origin", "cells", "cell_type"}), mesh);
    case 1:
      mesh.source = SceneMesh::Source::Finger;
      return parse_finger(Map(node, path, what, kFingerKeys), mesh.finger);
    case 2:
      return parse_bellows(Map(node, path, what,
                               {"type", "chambers", "width", "height", "chamber_length", "wall", "side_wall",
                                "end_wall", "channel", "cell_size", "cell_type"}),
                           mesh);
    case 3:
      return parse_multi_cavity(Map(node, path, what, {"type", "size", "cavities", "cell_size", "cell_type"}), mesh);
    case 4:
      return parse_gripper(
          Map(node, path, what, with(kFingerKeys, {"fingers", "radius", "tip_height", "ball_radius", "ball_cells"})),
          mesh);
    default:
      return parse_sphere_shell(
          Map(node, path, what,
              {"type", "inner_radius", "outer_radius", "layers", "cells", "cell_type", "radial_grading"}),
          mesh);
  }
}

}  // namespace

SceneMesh parse_mesh(const YAML::Node& node, const std::string& path, const std::string& what) {
  const Map m(node, path, what, {"file", "scale", "generator", "network", "transform"});
  m.exclusive({"file", "generator", "network"}, true,
              std::string("give a mesh file (.msh, .vtk or .vtu), a generator {type: ") + kGeneratorTypes +
                  ", ...}, or a node-network file (network: body.network.yaml)");
  SceneMesh mesh;
  mesh.where = m.where();
  if (m.has("network")) {
    if (m.has("scale"))
      fail(m.key_where("scale"), "mesh.scale: applies to mesh files only; a network file is read as it is");
    mesh.source = SceneMesh::Source::Network;
    mesh.file = resolve(path, m.string("network", ""));
    mesh.where = m.where("network");
  } else if (m.has("file")) {
    mesh.source = SceneMesh::Source::File;
    mesh.file = resolve(path, m.string("file", ""));
    mesh.scale = m.number("scale", 1.0);
    if (!(mesh.scale > 0)) fail(m.where("scale"), m.name("scale") + ": must be > 0, got " + std::to_string(mesh.scale));
    mesh.where = m.where("file");
  } else {
    if (m.has("scale"))
      fail(m.key_where("scale"), "mesh.scale: applies to mesh files only; scale the generator's sizes");
    parse_generator(m.at("generator"), path, mesh);
    mesh.where = m.where("generator");
  }
  if (m.has("transform")) {
    if (mesh.source == SceneMesh::Source::Network)
      fail(m.key_where("transform"),
           m.name("transform") + ": applies to volume meshes; a network file is read as it is");
    mesh.transform = parse_transform(m.at("transform"), path, m.name("transform"));
  }
  return mesh;
}

}  // namespace softik::scene_detail
