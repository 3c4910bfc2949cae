// The `continuation:` section of a scene (docs/scene-format.md, "continuation"): arc-length
// continuation of the static problem (continuation.hpp) instead of the load ramp of solver:,
// with the arc settings, and the monitor whose displacement is the path's abscissa. Strict like
// the rest of the scene reader; continuation is refused where the scene is not a static load
// problem (time integration, an inverse problem, contact, prescribed displacements).
#include <cmath>

#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik::scene_detail {

namespace {

void require(bool ok, const Map& m, const std::string& key, const std::string& message) {
  if (!ok) fail(m.where(key), m.name(key) + ": " + message);
}

Real positive(const Map& m, const std::string& key, Real value, const std::string& meaning) {
  require(std::isfinite(value) && value > 0, m, key, "must be > 0 (" + meaning + "), got " + std::to_string(value));
  return value;
}

int bounded_count(const Map& m, const std::string& key, int fallback, int hi, const std::string& why) {
  const int v = m.integer(key, fallback);
  require(v >= 1, m, key, "must be >= 1, got " + std::to_string(v));
  require(v <= hi, m, key, std::to_string(v) + " is above the cap of " + std::to_string(hi) + "; " + why);
  return v;
}

void parse_monitor(const Map& c, SceneContinuation& s) {
  const Map m(c.at("monitor"), c.path(), "continuation.monitor",
              {"probe", "group", "box", "plane", "nodes", "component"});
  m.exclusive({"probe", "group", "box", "plane", "nodes"}, true,
              "name a probe of outputs.probes (probe: tip) or select nodes (group:, box:, plane: or nodes:), whose "
              "displacement is the path's abscissa");
  s.monitor_where = m.where();
  if (m.has("probe")) {
    s.monitor = SceneContinuation::Monitor::Probe;
    s.probe = m.string("probe", "");
    s.monitor_where = m.where("probe");
  } else {
    s.monitor = SceneContinuation::Monitor::Nodes;
    s.nodes = parse_selection(m);
  }
  s.component = m.choice("component", {"x", "y", "z", "magnitude"}, 3);
}

}  // namespace

SceneContinuation parse_continuation(const YAML::Node& node, const std::string& path) {
  const Map m(node, path, "continuation",
              {"method", "initial_arc", "min_arc", "max_arc", "desired_iterations", "max_iterations", "max_steps",
               "max_load_factor", "psi", "residual_tolerance", "monitor", "model", "network"});
  SceneContinuation s;
  s.enabled = true;
  s.where = m.where();
  m.choice("method", {"arc_length"}, 0);
  s.model = m.choice("model", {"fem", "node_network"}, 0) == 0 ? SceneModel::Fem : SceneModel::NodeNetwork;
  if (m.has("network")) {
    if (s.model != SceneModel::NodeNetwork)
      fail(m.key_where("network"), "continuation.network: applies to model: node_network only");
    parse_network_options(m, path, s.network);
    s.network_options = true;
  }
  ArcLengthOptions& o = s.options;
  const std::string arc = "a root-mean-square node displacement per step, in the scene's length unit";
  o.initial_arc = positive(m, "initial_arc",
                           m.number("initial_arc", "the first step's arc length, " + arc +
                                                       ", e.g. "
                                                       "1/50 of the largest displacement expected"),
                           arc);
  o.min_arc = positive(m, "min_arc", m.number("min_arc", o.initial_arc / 1000), arc);
  require(o.min_arc <= o.initial_arc, m, "min_arc",
          std::to_string(o.min_arc) + " is larger than initial_arc (" + std::to_string(o.initial_arc) +
              "); a failed step is cut down to min_arc: give min_arc <= initial_arc");
  o.max_arc = positive(m, "max_arc", m.number("max_arc", 10 * o.initial_arc), arc);
  require(o.max_arc >= o.initial_arc, m, "max_arc",
          std::to_string(o.max_arc) + " is smaller than initial_arc (" + std::to_string(o.initial_arc) +
              "); the adaptation keeps every arc within [min_arc, max_arc]: give max_arc >= initial_arc");
  o.max_iterations =
      bounded_count(m, "max_iterations", 20, 10000,
                    "a corrector converges in a few to a few tens of iterations or not at all: lower initial_arc");
  o.desired_iterations =
      bounded_count(m, "desired_iterations", 4, 100, "the adaptation aims at a few corrector iterations per step");
  require(o.desired_iterations <= o.max_iterations, m, "desired_iterations",
          std::to_string(o.desired_iterations) + " is above max_iterations (" + std::to_string(o.max_iterations) +
              "): no step could converge in the iterations the adaptation aims at; lower it");
  o.max_steps = bounded_count(m, "max_steps", 100, 1000000, "each step is a corrector solve and a CSV row");
  o.max_load_factor = positive(m, "max_load_factor", m.number("max_load_factor", 1.0),
                               "the continuation stops once the load factor reaches it");
  o.psi = m.number("psi", 0.0);
  require(std::isfinite(o.psi) && o.psi >= 0, m, "psi",
          "must be >= 0 (0: the cylindrical arc length, displacements only), got " + std::to_string(o.psi));
  o.residual_tolerance = positive(m, "residual_tolerance", m.number("residual_tolerance", 1e-8),
                                  "converged when |r| <= tol x max(1, |load factor|) x |reference load|");
  if (m.has("monitor")) parse_monitor(m, s);
  return s;
}

namespace {

/// The solver: keys of load control, which continuation: replaces: each an error at its key.
void refuse_load_control_keys(const Map& root) {
  if (!root.has("solver") || !root.at("solver").IsMap()) return;
  const YAML::Node solver = root.at("solver");
  const std::vector<std::pair<std::string, std::string>> replaced = {
      {"load_steps", "the steps are continuation.max_steps, their size continuation.initial_arc"},
      {"max_iterations", "use continuation.max_iterations"},
      {"residual_tolerance", "use continuation.residual_tolerance"},
      {"increment_tolerance", "the corrector converges on the residual (continuation.residual_tolerance)"},
      {"max_step_cuts", "a failed step's arc is halved down to continuation.min_arc"},
      {"line_search", "the corrector takes full steps on the arc"},
      {"chord_contraction", "the corrector factorises the tangent at every iteration"},
      {"krylov_iterations", "the corrector factorises the tangent at every iteration"},
      {"krylov_tolerance", "the corrector factorises the tangent at every iteration"},
      {"extrapolate", "continuation predicts each step along the path's tangent"}};
  for (auto it = solver.begin(); it != solver.end(); ++it) {
    const std::string key = it->first.Scalar();
    for (const auto& [name, instead] : replaced)
      if (key == name)
        fail(location(root.path(), it->first), "solver." + key +
                                                   ": applies to the load ramp, which continuation: "
                                                   "replaces; remove it (" +
                                                   instead + ")");
    if (key == "pressure_stiffness" && it->second.IsScalar() && it->second.Scalar() == "false")
      fail(location(root.path(), it->first),
           "solver.pressure_stiffness: false is not available with continuation: "
           "(its tangent always holds the follower-load stiffness); remove the key");
  }
}

}  // namespace

void check_continuation(Scene& scene, const Map& root) {
  SceneContinuation& c = scene.continuation;
  const auto refuse = [&](bool present, const std::string& what, const std::string& fix) {
    if (present)
      fail(c.where, "continuation: cannot be combined with " + what + "; " + fix +
                        " (arc-length continuation follows the static equilibrium path of the scene's loads)");
  };
  const std::string remove = "remove it, or remove continuation:";
  refuse(scene.dynamics.enabled, "a dynamics: section (time integration)", remove);
  refuse(scene.explicit_dynamics.enabled, "an explicit: section (time integration)", remove);
  refuse(scene.inverse.enabled, "an inverse: section", remove);
  refuse(scene.contact.enabled, "a contact: section", remove);
  refuse(!scene.prescribed.empty(), "prescribed displacements (the load factor scales loads only)",
         "fix those nodes with fixed:, or replace them by loads.forces");
  refuse_load_control_keys(root);
  if (scene.pressures.empty() && scene.forces.empty() && !scene.gravity.enabled)
    fail(c.where,
         "continuation: the scene has no load to follow; give loads.pressure, loads.forces or "
         "loads.gravity (the load factor scales them all)");
  if (c.model == SceneModel::NodeNetwork)
    check_network_model(scene, c.where, "continuation", c.network_options,
                        scene.gravity.enabled ? scene.gravity.density : 1.0, scene.continuation.network);
  if (c.monitor != SceneContinuation::Monitor::Probe) return;
  std::string names;
  for (const SceneProbe& p : scene.outputs.probes) {
    if (p.name == c.probe) return;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  fail(c.monitor_where,
       "continuation.monitor.probe: no probe is named '" + c.probe + "' (" +
           (names.empty() ? std::string("outputs.probes is empty: add one") : "outputs.probes: " + names) + ")");
}

}  // namespace softik::scene_detail
