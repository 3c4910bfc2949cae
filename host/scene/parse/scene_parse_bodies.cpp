// `transform:` (a body's placement) and `bodies:` (several bodies in one scene;
// docs/scene-format.md, "bodies"). A body's own keys are read as the top level's are, then
// relocated into the scene's lists: its group names become "<body>/<group>" (the names the
// merged mesh gives them), its selections and cavity files are marked with the body (their
// coordinates are the body's own), its cable points move to the scene's frame and its loads'
// names become "<body>.<name>".
#include <set>

#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik::scene_detail {

Transform parse_transform(const YAML::Node& node, const std::string& path, const std::string& what) {
  const Map m(node, path, what, {"rotation", "euler", "translation", "scale"});
  m.exclusive({"rotation", "euler"}, false,
              "give the rotation once: rotation: {axis: [0, 0, 1], angle: 90} or euler: [90, 0, 0] (degrees)");
  Transform t;
  const auto checked = [&](const std::string& key, auto&& make) {
    try {
      return make();
    } catch (const LocatedError&) {
      throw;
    } catch (const Error& e) {
      fail(m.where(key), e.what());
    }
  };
  if (m.has("rotation")) {
    const Map r(m.at("rotation"), path, m.name("rotation"), {"axis", "angle"});
    const std::array<Real, 3> axis = as_vec3(r.need("axis", "the rotation axis [x, y, z]"), path, r.name("axis"));
    const Real angle = r.number("angle", "the angle in degrees about the axis (right hand), e.g. 90");
    t.rotation = checked("rotation", [&] { return rotation_axis_angle(axis, angle, m.name("rotation")); });
  } else if (m.has("euler")) {
    const std::array<Real, 3> angles = m.vec3("euler", {0, 0, 0});
    t.rotation = checked("euler", [&] { return rotation_euler_xyz(angles, m.name("euler")); });
  }
  t.translation = m.vec3("translation", t.translation);
  t.scale = m.number("scale", 1.0);
  checked(m.has("scale")         ? "scale"
          : m.has("translation") ? "translation"
                                 : "rotation",
          [&] { return check_transform(t, what), 0; });
  return t;
}

namespace {

std::string in_body(const std::string& body, const std::string& name) { return body + "/" + name; }

/// A body's own keys, read into `part`, moved into the scene's lists (see the file comment).
void relocate(Scene& part, int index, const SceneBody& body, Scene& scene) {
  for (SceneMaterial& m : part.materials) {
    if (m.region_shape)
      m.shape.body = index;  // its cells by their centroid in the body's frame
    else
      m.region = m.region.empty() ? body.name : in_body(body.name, m.region);
    scene.materials.push_back(std::move(m));
  }
  const auto mark = [&](SceneSelection& s) {
    s.body = index;
    if (!s.name.empty()) s.name = body.name + "." + s.name;
    if (s.kind == SceneSelection::Kind::Group) s.group = in_body(body.name, s.group);
  };
  for (SceneSupportMotion& s : part.supports) {
    s.fixed += scene.fixed.size();
    scene.supports.push_back(std::move(s));
  }
  for (SceneSelection& s : part.fixed) mark(s), scene.fixed.push_back(s);
  for (ScenePrescribed& p : part.prescribed) mark(p.selection), scene.prescribed.push_back(p);
  for (SceneForce& f : part.forces) {
    mark(f.selection);
    f.force = body.mesh.transform.rotate(f.force);
    scene.forces.push_back(f);
  }
  for (ScenePressure& p : part.pressures) {
    p.body = index;
    if (!p.surface.empty()) p.surface = in_body(body.name, p.surface);
    p.name = body.name + "." + p.name;
    scene.pressures.push_back(std::move(p));
  }
  const Transform& t = body.mesh.transform;
  for (SceneCable& c : part.cables) {
    c.pull_point = t.apply(c.pull_point);
    for (auto& point : c.points) point = t.apply(point);
    c.name = body.name + "." + c.name;
    scene.cables.push_back(std::move(c));
  }
}

}  // namespace

void parse_bodies(const YAML::Node& node, const std::string& path, Scene& scene) {
  const std::vector<YAML::Node> list = as_list(node, path, "bodies");
  if (list.empty()) fail(location(path, node), "bodies: the list is empty; give at least one body {name, mesh}");
  std::set<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string what = item("bodies", i);
    const Map m(list[i], path, what, {"name", "mesh", "transform", "materials", "fixed", "prescribed", "loads"});
    SceneBody body;
    body.where = m.where();
    body.name = m.string("name", "");
    if (!m.has("name")) fail(m.where(), what + ": needs a name (e.g. name: finger1): it names the body's groups");
    check_name(m.at("name"), path, m.name("name"), body.name);
    if (!names.insert(body.name).second)
      fail(m.where("name"), m.name("name") + ": the name '" + body.name + "' is used by another body");
    body.mesh = parse_mesh(m.need("mesh", "the body's mesh: {file: finger.msh} or {generator: {type: finger}}"), path,
                           m.name("mesh"));
    if (body.mesh.source == SceneMesh::Source::Network)
      fail(body.mesh.where, m.name("mesh") +
                                ": a body of bodies: is a volume mesh (file or generator); a node "
                                "network is a scene of its own (mesh: {network: ...})");
    if (m.has("transform")) {
      if (!body.mesh.transform.is_identity())
        fail(m.key_where("transform"),
             what + ": give the transform once, as " + m.name("transform") + " or " + m.name("mesh") + ".transform");
      body.mesh.transform = parse_transform(m.at("transform"), path, m.name("transform"));
    }
    Scene part;
    parse_body_keys(m, path, what + ".", part);
    if (part.gravity.enabled)
      fail(part.gravity.where, what +
                                   ".loads.gravity: gravity acts on the whole scene; give it as loads.gravity "
                                   "at the top level");
    scene.bodies.push_back(body);
    relocate(part, static_cast<int>(i), scene.bodies.back(), scene);
  }
  if (scene.materials.empty())
    fail(location(path, node),
         "bodies: no materials; give each body its materials (bodies[i].materials) or the "
         "scene's materials (region: <body> or <body>/<cell group>)");
}

}  // namespace softik::scene_detail
