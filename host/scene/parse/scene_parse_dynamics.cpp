// The `dynamics:` and `contact:` sections of a scene (docs/scene-format.md, "Dynamics" and
// "Contact"), and the [t, value] tables that drive loads over time. Strict like the rest of the
// scene reader: every bad value names its line and column and the fix.
#include <algorithm>
#include <cmath>

#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik::scene_detail {

namespace {

constexpr int kMaxNewtonIterations = 10000;    ///< dynamics.max_iterations (as solver.max_iterations)
constexpr int kMaxContactIterations = 100000;  ///< contact.max_iterations

void require(bool ok, const Map& m, const std::string& key, const std::string& message) {
  if (!ok) fail(m.where(key), m.name(key) + ": " + message);
}

/// A count within [lo, hi] (the value of `key`, or `fallback` without it): the caps are far
/// beyond any useful value and stop a typo from running for hours without a word.
int within(const Map& m, const std::string& key, int fallback, int lo, int hi, const std::string& why) {
  const int v = m.integer(key, fallback);
  require(v >= lo, m, key, "must be >= " + std::to_string(lo) + ", got " + std::to_string(v));
  require(v <= hi, m, key, std::to_string(v) + " is above the cap of " + std::to_string(hi) + "; " + why);
  return v;
}

Vec3r vec(const std::array<Real, 3>& a) { return Vec3r(a[0], a[1], a[2]); }

/// A unit vector from a non-zero one (the scene gives directions of any length).
Vec3r unit(const Map& m, const std::string& key, const std::array<Real, 3>& fallback) {
  const std::array<Real, 3> given = m.vec3(key, fallback);
  const Vec3r v = vec(given);
  require(v != Vec3r::Zero(), m, key, "must be a non-zero direction [x, y, z]");
  check_direction_length(m, key, given);  // |v| over- or underflows
  return v / v.norm();
}

SceneObstacle parse_obstacle(const YAML::Node& node, const std::string& path, const std::string& what) {
  const Map m(node, path, what,
              {"name", "type", "point", "normal", "center", "radius", "size", "axis", "length", "file", "scale",
               "friction", "path"});
  SceneObstacle s;
  s.where = m.where();
  Obstacle& o = s.obstacle;
  const ObstacleShape shapes[] = {ObstacleShape::Plane, ObstacleShape::Sphere, ObstacleShape::Box,
                                  ObstacleShape::Cylinder, ObstacleShape::TriangleMesh};
  if (!m.has("type")) m.need("type", "plane, sphere, box, cylinder or mesh");
  o.shape = shapes[m.choice("type", {"plane", "sphere", "box", "cylinder", "mesh"}, 0)];
  o.name = m.string("name", obstacle_shape_name(o.shape));
  check_name(m.has("name") ? m.at("name") : node, path, m.name("name"), o.name);
  // Only the keys of the shape: a radius on a plane is a mistake, not a default.
  const std::vector<std::vector<std::string>> keys = {{"point", "normal"},
                                                      {"center", "radius"},
                                                      {"center", "size"},
                                                      {"center", "axis", "radius", "length"},
                                                      {"file", "scale"}};
  for (const std::string k : {"point", "normal", "center", "radius", "size", "axis", "length", "file", "scale"}) {
    const auto& mine = keys[static_cast<size_t>(o.shape)];
    if (m.has(k) && std::find(mine.begin(), mine.end(), k) == mine.end())
      fail(
          m.key_where(k),
          m.name(k) + ": not a key of a " + obstacle_shape_name(o.shape) + " obstacle; it takes " + [&] {
            std::string list;
            for (const std::string& key : mine) list += (list.empty() ? "" : ", ") + key;
            return list;
          }());
  }
  switch (o.shape) {
    case ObstacleShape::Plane:
      o.center = vec(m.vec3("point", {0, 0, 0}));
      o.normal = unit(m, "normal", {0, 0, 1});
      break;
    case ObstacleShape::Sphere:
      o.center = vec(m.vec3("center", {0, 0, 0}));
      o.radius = m.number("radius", "the sphere's radius");
      require(o.radius > 0, m, "radius", "must be > 0");
      break;
    case ObstacleShape::Box: {
      o.center = vec(m.vec3("center", {0, 0, 0}));
      if (!m.has("size")) m.need("size", "the box's edge lengths [x, y, z]");
      const Vec3r size = vec(m.vec3("size", {0, 0, 0}));
      require(size.minCoeff() > 0, m, "size", "every edge length must be > 0");
      o.half_extents = 0.5 * size;
      break;
    }
    case ObstacleShape::Cylinder:
      o.center = vec(m.vec3("center", {0, 0, 0}));
      o.axis = unit(m, "axis", {0, 0, 1});
      o.radius = m.number("radius", "the cylinder's radius");
      require(o.radius > 0, m, "radius", "must be > 0");
      o.half_length = 0.5 * m.number("length", "the cylinder's length along its axis");
      require(o.half_length > 0, m, "length", "must be > 0");
      break;
    case ObstacleShape::TriangleMesh:
      s.file =
          resolve(path, as_string(m.need("file", "a closed OBJ or STL surface, wound outwards"), path, m.name("file")));
      s.scale = m.number("scale", 1.0);
      require(s.scale > 0, m, "scale", "must be > 0");
      break;
  }
  o.friction = m.number("friction", 0.0);
  require(o.friction >= 0, m, "friction", "Coulomb's coefficient mu must be >= 0 (0: frictionless)");
  if (m.has("path")) {
    std::vector<std::array<Real, 3>> offsets;
    parse_path(m, o.path_times, offsets);
    for (const auto& d : offsets) o.path_offsets.push_back(Vec3r(d[0], d[1], d[2]));
  }
  return s;
}

}  // namespace

void parse_path(const Map& m, std::vector<Real>& times, std::vector<std::array<Real, 3>>& offsets) {
  const std::vector<YAML::Node> rows = as_list(m.at("path"), m.path(), m.name("path"));
  if (rows.empty()) fail(m.where("path"), m.name("path") + ": the list is empty; give [t, dx, dy, dz] rows");
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::vector<Real> r = as_numbers(rows[i], m.path(), item(m.name("path"), i) + " ([t, dx, dy, dz])", 4);
    if (!times.empty() && !(r[0] > times.back()))
      fail(location(m.path(), rows[i]), item(m.name("path"), i) + ": time " + std::to_string(r[0]) +
                                            " does not follow the previous row's; list the times in increasing order");
    times.push_back(r[0]);
    offsets.push_back({r[1], r[2], r[3]});
  }
}

MovingSupport parse_support_motion(const YAML::Node& node, const std::string& path, const std::string& what) {
  const Map m(node, path, what, {"path", "rotation"});
  if (!m.has("path") && !m.has("rotation"))
    fail(m.where(), what +
                        ": give the support's path: [[t, dx, dy, dz], ...] and/or rotation: {axis, center, "
                        "angle: [[t, degrees], ...]}");
  MovingSupport s;
  s.name = what;
  if (m.has("path")) parse_path(m, s.path_times, s.path_offsets);
  if (m.has("rotation")) {
    const Map r(m.at("rotation"), path, m.name("rotation"), {"axis", "center", "angle"});
    s.axis = r.vec3("axis", s.axis);
    s.center = r.vec3("center", s.center);
    s.angle = parse_time_function(r.need("angle", "the angle over time, [[t, degrees], ...]"), path, r.name("angle"));
    const Real n = std::sqrt(s.axis[0] * s.axis[0] + s.axis[1] * s.axis[1] + s.axis[2] * s.axis[2]);
    if (!(n > 0 && std::isfinite(n)))
      fail(r.where("axis"), r.name("axis") + ": must be a non-zero direction, e.g. [0, 0, 1]");
  }
  return s;
}

TimeFunction parse_time_function(const YAML::Node& node, const std::string& path, const std::string& what) {
  TimeFunction f;
  const std::vector<YAML::Node> rows = as_list(node, path, what);
  if (rows.empty())
    fail(location(path, node), what + ": the list is empty; give [t, factor] rows, e.g. [[0, 0], [0.1, 1]]");
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::vector<Real> r = as_numbers(rows[i], path, item(what, i) + " ([t, factor])", 2);
    if (!f.times.empty() && !(r[0] > f.times.back()))
      fail(location(path, rows[i]), item(what, i) + ": time " + std::to_string(r[0]) +
                                        " does not follow the previous row's; list the times in increasing order");
    f.times.push_back(r[0]);
    f.values.push_back(r[1]);
  }
  return f;
}

SceneCable parse_cable_load(const YAML::Node& node, const std::string& path, const std::string& what) {
  const Map m(node, path, what, {"name", "pull_point", "points", "tolerance", "force", "over_time"});
  SceneCable c;
  c.where = m.where();
  if (!m.has("name")) m.need("name", "names the cable's CSV columns T_<name> and length_<name>");
  c.name = m.string("name", "");
  check_name(m.at("name"), path, m.name("name"), c.name);
  c.pull_point =
      as_vec3(m.need("pull_point", "the fixed point [x, y, z] the cable is pulled from"), path, m.name("pull_point"));
  c.points = as_points(m.need("points", "the cable's points on the body, from the pull side to its end"), path,
                       m.name("points"));
  c.tolerance = m.number("tolerance", -1.0);
  c.force = m.number("force", "the tension at factor 1, e.g. 1.5 (N)");
  require(c.force >= 0 && std::isfinite(c.force), m, "force", "a cable only pulls: give a tension >= 0 (N)");
  if (m.has("over_time")) {
    c.over_time = parse_time_function(m.at("over_time"), path, m.name("over_time"));
    for (size_t k = 0; k < c.over_time.values.size(); ++k)
      require(c.over_time.values[k] >= 0, m, "over_time",
              "row " + std::to_string(k) + " has the factor " + std::to_string(c.over_time.values[k]) +
                  "; a cable only pulls, give factors >= 0");
  }
  return c;
}

SceneDynamics parse_dynamics(const YAML::Node& node, const std::string& path) {
  const Map m(node, path, "dynamics",
              {"scheme", "dt", "duration", "density", "mass", "rayleigh", "newmark", "max_iterations",
               "residual_tolerance", "max_step_cuts"});
  SceneDynamics d;
  d.enabled = true;
  d.where = m.where();
  DynamicsOptions& o = d.options;
  o.scheme =
      m.choice("scheme", {"backward_euler", "newmark"}, 0) == 0 ? TimeScheme::BackwardEuler : TimeScheme::Newmark;
  o.dt = m.number("dt", "the time step, e.g. 0.001 (s)");
  require(std::isfinite(o.dt) && o.dt > 0, m, "dt", "must be a positive time step");
  d.duration = m.number("duration", "the simulated time, e.g. 1.0 (s)");
  require(std::isfinite(d.duration) && d.duration > 0, m, "duration", "must be > 0");
  d.steps = step_count(m, "duration", d.duration, "dt", o.dt, 1e7,
                       "each step is a Newton solve and a CSV row: raise dt or shorten the duration");
  o.density = m.number("density", -1.0);  // < 0: loads.gravity.density (checked at build)
  if (m.has("density")) require(o.density > 0, m, "density", "the mass density must be > 0 (e.g. 1070 kg/m^3)");
  o.lumped_mass = m.choice("mass", {"consistent", "lumped"}, 0) == 1;
  if (m.has("rayleigh")) {
    const Map r(m.at("rayleigh"), path, "dynamics.rayleigh", {"mass", "stiffness"});
    o.rayleigh_mass = r.number("mass", 0.0);
    o.rayleigh_stiffness = r.number("stiffness", 0.0);
    require(o.rayleigh_mass >= 0, r, "mass", "alpha must be >= 0 (damping C = alpha M + beta K)");
    require(o.rayleigh_stiffness >= 0, r, "stiffness", "beta must be >= 0 (damping C = alpha M + beta K)");
  }
  if (m.has("newmark")) {
    if (o.scheme != TimeScheme::Newmark)
      fail(m.key_where("newmark"), "dynamics.newmark: its beta and gamma apply to scheme: newmark only");
    const Map n(m.at("newmark"), path, "dynamics.newmark", {"beta", "gamma"});
    o.newmark_beta = n.number("beta", o.newmark_beta);
    o.newmark_gamma = n.number("gamma", o.newmark_gamma);
    const Real beta_min = 0.25 * (o.newmark_gamma + 0.5) * (o.newmark_gamma + 0.5);
    require(o.newmark_gamma >= 0.5 && o.newmark_gamma <= 1, n, "gamma", "must lie in [0.5, 1]");
    require(o.newmark_beta >= beta_min - 1e-15 && o.newmark_beta <= 0.5, n, "beta",
            "must lie in [(gamma + 1/2)^2 / 4, 0.5] = [" + std::to_string(beta_min) +
                ", 0.5] to be unconditionally stable");
  }
  o.max_iterations = within(m, "max_iterations", o.max_iterations, 1, kMaxNewtonIterations,
                            "Newton converges in a few to a few tens of iterations or not at all: lower dt");
  o.residual_tolerance = m.number("residual_tolerance", o.residual_tolerance);
  require(o.residual_tolerance > 0, m, "residual_tolerance", "must be > 0");
  o.max_step_cuts = m.integer("max_step_cuts", o.max_step_cuts);
  require(o.max_step_cuts >= 0 && o.max_step_cuts <= 30, m, "max_step_cuts", "must lie in [0, 30]");
  return d;
}

SceneContact parse_contact(const YAML::Node& node, const std::string& path) {
  const Map m(node, path, "contact",
              {"obstacles", "nodes", "between_parts", "friction", "distance", "alarm_distance", "solver", "tolerance",
               "max_iterations"});
  SceneContact c;
  c.enabled = true;
  c.where = m.where();
  if (m.has("obstacles")) {
    const std::vector<YAML::Node> list = as_list(m.at("obstacles"), path, "contact.obstacles", true);
    for (size_t i = 0; i < list.size(); ++i) {
      c.obstacles.push_back(parse_obstacle(list[i], path, item("contact.obstacles", i)));
      for (size_t j = 0; j < i; ++j)
        if (c.obstacles[j].obstacle.name == c.obstacles[i].obstacle.name)
          fail(c.obstacles[i].where, item("contact.obstacles", i) + ": the name '" + c.obstacles[i].obstacle.name +
                                         "' is already used; give each obstacle its own 'name'");
    }
  }
  if (m.has("nodes")) {
    const std::vector<YAML::Node> list = as_list(m.at("nodes"), path, "contact.nodes", true);
    for (size_t i = 0; i < list.size(); ++i)
      c.nodes.push_back(parse_selection(Map(list[i], path, item("contact.nodes", i), kSelectionKeys)));
  }
  ContactOptions& o = c.options;
  o.between_parts = m.boolean("between_parts", false);
  o.body_friction = m.number("friction", 0.0);
  require(o.body_friction >= 0, m, "friction", "Coulomb's coefficient mu must be >= 0");
  if (m.has("friction") && !o.between_parts)
    fail(m.key_where("friction"),
         "contact.friction: the friction between parts applies with between_parts: true; "
         "give an obstacle's friction under its own entry");
  o.contact_distance = m.number("distance", 0.0);
  require(o.contact_distance >= 0, m, "distance", "the contact distance must be >= 0");
  o.alarm_distance = m.number("alarm_distance", -1.0);
  if (m.has("alarm_distance"))
    require(o.alarm_distance >= 0, m, "alarm_distance", "must be >= 0 (omit it for automatic)");
  o.solver.method = m.choice("solver", {"pgs", "direct"}, 0) == 0 ? ContactSolverMethod::ProjectedGaussSeidel
                                                                  : ContactSolverMethod::Direct;
  o.tolerance = m.number("tolerance", -1.0);
  if (m.has("tolerance")) require(o.tolerance > 0, m, "tolerance", "must be > 0 (omit it for 1e-9 x the model size)");
  o.solver.max_iterations = within(m, "max_iterations", o.solver.max_iterations, 1, kMaxContactIterations,
                                   "the contact solve converges in hundreds to a few thousand sweeps or pivots, or "
                                   "not at all: an unconverged solve is counted in the summary");
  if (c.obstacles.empty() && !o.between_parts)
    fail(c.where, "contact: nothing can touch: give contact.obstacles or between_parts: true");
  return c;
}

}  // namespace softik::scene_detail
