// The `inverse:` section of a scene (docs/scene-format.md, "Inverse problem"): actuators,
// sensors, effectors with their goal sequences (a fixed goal, waypoints or a CSV trajectory),
// and the solver settings. Strict like the rest of the scene reader.
#include <cmath>
#include <fstream>
#include <sstream>

#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik::scene_detail {

namespace {

/// Bounds from the keys min_<q> / max_<q> (each optional), or an imposed value <q> (both bounds
/// equal: an equality constraint). `fallback` holds the defaults; `default_lo` says why a
/// default lower bound is what it is (empty: no default to explain).
Interval bounds(const Map& m, const std::string& q, Interval fallback, const std::string& default_lo = "") {
  if (m.has(q)) {
    for (const std::string& k : {"min_" + q, "max_" + q})
      if (m.has(k))
        fail(m.key_where(k), m.name(k) + ": '" + q + "' imposes the value; give either '" + q + "' or min_" + q +
                                 "/max_" + q + ", not both");
    const Real v = m.number(q, 0.0);
    return {v, v};
  }
  Interval i{m.number("min_" + q, fallback.lo), m.number("max_" + q, fallback.hi)};
  if (i.lo > i.hi)
    fail(m.where("max_" + q), m.name("max_" + q) + ": must be >= min_" + q + " (" + std::to_string(i.lo) + ")" +
                                  (m.has("min_" + q) || default_lo.empty() ? "" : "; " + default_lo));
  return i;
}

Real positive_or_inf(const Map& m, const std::string& key) {
  if (!m.has(key)) return kInf;
  const Real v = m.number(key, 0.0);
  if (!(v > 0)) fail(m.where(key), m.name(key) + ": must be > 0 (omit it for no limit)");
  return v;
}

/// A sensor is never solved for: bounds on it would be silently ignored, so they are errors.
void reject_bounds_on_sensor(const Map& m, bool sensor, const std::vector<std::string>& keys) {
  if (!sensor) return;
  for (const std::string& k : keys)
    if (m.has(k))
      fail(m.key_where(k), m.name(k) +
                               ": a sensor (sensor: true) only reports its displacement and is never solved "
                               "for; remove '" +
                               k + "' or make it an actuator");
}

/// A CSV trajectory: a header line naming the columns, then one row per goal. Returns the
/// columns `wanted` (in that order) of every row; other columns (e.g. t) are ignored.
std::vector<std::vector<Real>> read_trajectory(const std::string& file, const std::vector<std::string>& wanted,
                                               const SceneLocation& where) {
  std::ifstream in(file);
  if (!in) fail(where, "cannot open the trajectory file '" + file + "'; the path is relative to the scene file");
  std::string line;
  int line_no = 0;
  std::vector<int> column(wanted.size(), -1);
  size_t num_columns = 0;
  std::vector<std::vector<Real>> rows;
  auto split = [](const std::string& s) {
    std::vector<std::string> cells;
    std::stringstream ss(s);
    std::string cell;
    while (std::getline(ss, cell, ',')) {
      const size_t a = cell.find_first_not_of(" \t\r"), b = cell.find_last_not_of(" \t\r");
      cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
    }
    if (!s.empty() && s.back() == ',') cells.emplace_back();
    return cells;
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t")] == '#') continue;
    const std::vector<std::string> cells = split(line);
    const std::string at = file + ":" + std::to_string(line_no) + ": ";
    if (num_columns == 0) {  // the header
      num_columns = cells.size();
      for (size_t w = 0; w < wanted.size(); ++w)
        for (size_t c = 0; c < cells.size(); ++c)
          if (cells[c] == wanted[w]) {
            if (column[w] >= 0) fail(where, at + "the header names column '" + wanted[w] + "' twice");
            column[w] = static_cast<int>(c);
          }
      for (size_t w = 0; w < wanted.size(); ++w)
        if (column[w] < 0)
          fail(where, at + "the header has no column '" + wanted[w] + "'; the first line must name the columns, e.g. " +
                          "t," + wanted[0] + (wanted.size() > 1 ? "," + wanted[1] + "," + wanted[2] : ""));
      continue;
    }
    if (cells.size() != num_columns)
      fail(where, at + "expected " + std::to_string(num_columns) + " values (as the header), got " +
                      std::to_string(cells.size()));
    std::vector<Real> row;
    for (int c : column) {
      const std::string& text = cells[static_cast<size_t>(c)];
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
        fail(where, at + "column " + std::to_string(c + 1) + ": '" + text + "' is not a finite number");
      row.push_back(v);
    }
    rows.push_back(row);
  }
  if (rows.empty()) fail(where, file + ": the trajectory has no rows after its header");
  return rows;
}

/// The entry's `type` (required), one of `choices`, before the keys are checked against the
/// type's own list.
int type_of(const YAML::Node& node, const std::string& path, const std::string& what,
            const std::vector<std::string>& choices) {
  if (!node.IsMap()) Map(node, path, what, {"type"});  // throws: expected a map
  for (auto it = node.begin(); it != node.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == "type")
      return as_choice(it->second, path, what + ".type", choices);
  std::string list;
  for (const std::string& c : choices) list += (list.empty() ? "" : ", ") + c;
  fail(location(path, node), what + ": missing required key 'type' (" + list + ")");
}

std::string required_name(const Map& m, const YAML::Node& node, const std::string& hint) {
  const std::string name = as_string(m.need("name", hint), m.path(), m.name("name"));
  check_name(node["name"], m.path(), m.name("name"), name);
  return name;
}

SceneActuator parse_actuator(const YAML::Node& node, const std::string& path, const std::string& what) {
  SceneActuator a;
  const int type = type_of(node, path, what, {"pressure", "cable", "force"});
  const std::string hint = "names the actuator's CSV columns";
  if (type == 0) {
    const Map m(
        node, path, what,
        with(kCavityKeys, {"type", "name", "sensor", "pressure", "min_pressure", "max_pressure", "volume_growth",
                           "min_volume_growth", "max_volume_growth", "max_volume_growth_variation"}));
    a.type = SceneActuator::Type::Pressure;
    a.name = required_name(m, node, hint);
    a.cavity = parse_cavity(m);
    a.cavity.name = a.name;
    // A cavity only pushes: without min_pressure the pressure is >= 0 (give min_pressure for suction).
    a.force = bounds(m, "pressure", {0, kInf},
                     "min_pressure defaults to 0 (a cavity that only pushes); give min_pressure < 0 for suction");
    a.displacement = bounds(m, "volume_growth", {});
    a.max_variation = positive_or_inf(m, "max_volume_growth_variation");
    a.sensor = m.boolean("sensor", false);
    reject_bounds_on_sensor(m, a.sensor,
                            {"pressure", "min_pressure", "max_pressure", "volume_growth", "min_volume_growth",
                             "max_volume_growth", "max_volume_growth_variation"});
  } else if (type == 1) {
    const Map m(node, path, what,
                {"type", "name", "sensor", "pull_point", "points", "tolerance", "force", "min_force", "max_force",
                 "displacement", "min_displacement", "max_displacement", "max_displacement_variation"});
    a.type = SceneActuator::Type::Cable;
    a.name = required_name(m, node, hint);
    a.pull_point =
        as_vec3(m.need("pull_point", "the fixed point [x, y, z] the cable is pulled from"), path, m.name("pull_point"));
    a.points = as_points(m.need("points", "the cable's points on the body, from the pull side to its end"), path,
                         m.name("points"));
    a.tolerance = m.number("tolerance", -1.0);
    a.force = bounds(m, "force", {0, kInf});
    a.displacement = bounds(m, "displacement", {});
    a.max_variation = positive_or_inf(m, "max_displacement_variation");
    a.sensor = m.boolean("sensor", false);
    reject_bounds_on_sensor(m, a.sensor,
                            {"force", "min_force", "max_force", "displacement", "min_displacement", "max_displacement",
                             "max_displacement_variation"});
  } else {
    const Map m(node, path, what,
                {"type", "name", "point", "direction", "tolerance", "force", "min_force", "max_force"});
    a.type = SceneActuator::Type::Force;
    a.name = required_name(m, node, hint);
    a.points = {as_vec3(m.need("point", "the loaded point [x, y, z] in the body"), path, m.name("point"))};
    a.direction = m.vec3("direction", {0, 0, 0});
    if (a.direction != std::array<Real, 3>{0, 0, 0}) check_direction_length(m, "direction", a.direction);
    a.tolerance = m.number("tolerance", -1.0);
    a.force = bounds(m, "force", {});
  }
  a.where = location(path, node);
  return a;
}

std::array<bool, 3> axes(const Map& m) {
  if (!m.has("axes")) return {true, true, true};
  std::array<bool, 3> out{false, false, false};
  const std::vector<YAML::Node> list = as_list(m.at("axes"), m.path(), m.name("axes"));
  if (list.empty()) fail(m.where("axes"), m.name("axes") + ": expected a non-empty list of x, y, z");
  for (const YAML::Node& c : list)
    out[static_cast<size_t>(as_choice(c, m.path(), m.name("axes") + " entry", {"x", "y", "z"}))] = true;
  return out;
}

SceneEffector parse_effector(const YAML::Node& node, const std::string& path, const std::string& what) {
  SceneEffector e;
  const int type = type_of(node, path, what, {"position", "volume"});
  const std::string hint = "names the effector's CSV columns";
  const std::string goals_hint =
      type == 0 ? "give the goal: goal: [x, y, z], waypoints: [[x, y, z], ...] or trajectory: goals.csv"
                : "give the target: volume: V, volumes: [V1, V2, ...] or trajectory: volumes.csv";
  if (type == 0) {
    const Map m(node, path, what,
                {"type", "name", "point", "axes", "weights", "max_shift", "locate_tolerance", "goal", "waypoints",
                 "trajectory", "tolerance"});
    e.type = SceneEffector::Type::Position;
    e.name = required_name(m, node, hint);
    e.point = as_vec3(m.need("point", "the effector point's rest position [x, y, z], inside the body"), path,
                      m.name("point"));
    e.axes = axes(m);
    e.weights = m.vec3("weights", e.weights);
    for (Real w : e.weights)
      if (!(w > 0)) fail(m.where("weights"), m.name("weights") + ": every weight must be > 0");
    e.max_shift = m.number("max_shift", 0.0);
    if (e.max_shift < 0) fail(m.where("max_shift"), m.name("max_shift") + ": must be >= 0 (0: no limit)");
    e.locate_tolerance = m.number("locate_tolerance", -1.0);
    m.exclusive({"goal", "waypoints", "trajectory"}, true, goals_hint);
    if (m.has("goal")) {
      e.goals = {as_vec3(m.at("goal"), path, m.name("goal"))};
    } else if (m.has("waypoints")) {
      e.goals = as_points(m.at("waypoints"), path, m.name("waypoints"));
    } else {
      const std::string file = resolve(path, m.string("trajectory", ""));
      for (const std::vector<Real>& r : read_trajectory(file, {"x", "y", "z"}, m.where("trajectory")))
        e.goals.push_back({r[0], r[1], r[2]});
    }
    e.tolerance = m.number("tolerance", -1.0);
  } else {
    const Map m(node, path, what, with(kCavityKeys, {"type", "name", "volume", "volumes", "trajectory", "tolerance"}));
    e.type = SceneEffector::Type::Volume;
    e.name = required_name(m, node, hint);
    e.cavity = parse_cavity(m);
    e.cavity.name = e.name;
    m.exclusive({"volume", "volumes", "trajectory"}, true, goals_hint);
    if (m.has("volume")) {
      e.volumes = {m.number("volume", 0.0)};
    } else if (m.has("volumes")) {
      e.volumes = as_numbers(m.at("volumes"), path, m.name("volumes"));
      if (e.volumes.empty()) fail(m.where("volumes"), m.name("volumes") + ": the list is empty");
    } else {
      for (const std::vector<Real>& r :
           read_trajectory(resolve(path, m.string("trajectory", "")), {"volume"}, m.where("trajectory")))
        e.volumes.push_back(r[0]);
    }
    for (Real v : e.volumes)
      if (!(v > 0)) fail(m.where(), what + ": target volumes must be > 0, got " + std::to_string(v));
    e.tolerance = m.number("tolerance", -1.0);
  }
  e.where = location(path, node);
  return e;
}

/// {name, obstacle, force, weight}: the total normal force on a contact obstacle (N), the weight
/// converting its error to a length (m/N; 0: the contacts' compliance).
SceneForceTarget parse_force_target(const YAML::Node& node, const std::string& path, const std::string& what) {
  const Map m(node, path, what, {"name", "obstacle", "force", "weight", "tolerance"});
  SceneForceTarget t;
  t.where = m.where();
  t.target.name = m.string("name", "");
  if (t.target.name.empty()) fail(m.where(), what + ": give the target a name (it names the CSV column force_<name>)");
  t.target.obstacle = m.string("obstacle", "");
  if (t.target.obstacle.empty())
    fail(m.where(),
         what + ": give the obstacle (the name of one of contact.obstacles) whose normal force is the target");
  t.target.force = m.number("force", "the normal force to reach (N)");
  if (!(t.target.force >= 0) || !std::isfinite(t.target.force))
    fail(m.where("force"), what + ".force: must be a finite force >= 0 (N); a contact can only push");
  t.target.weight = m.number("weight", 0.0);
  if (!(t.target.weight >= 0) || !std::isfinite(t.target.weight))
    fail(m.where("weight"), what + ".weight: must be >= 0 (m/N; 0: the contacts' own compliance)");
  t.tolerance = m.number("tolerance", t.target.force > 0 ? 1e-4 * t.target.force : 1e-9);
  if (!(t.tolerance > 0) || !std::isfinite(t.tolerance))
    fail(m.where("tolerance"), what + ".tolerance: must be a force > 0 (N): how close the normal force must come");
  return t;
}

size_t num_goals(const SceneEffector& e) {
  return e.type == SceneEffector::Type::Position ? e.goals.size() : e.volumes.size();
}

/// Keys of the other mode would be silently ignored: refuse them.
void reject_other_mode_keys(const Map& m, const SceneInverse& inv) {
  const bool realtime = inv.mode == SceneInverse::Mode::RealTime;
  for (const char* k : realtime
                           ? std::vector<const char*>{"max_iterations", "min_increment"}
                           : std::vector<const char*>{"steps_per_target", "actuator_stiffness", "reuse_factorization"})
    if (m.has(k))
      fail(m.key_where(k), std::string("inverse.") + k + ": applies to mode: " + (realtime ? "converged" : "realtime") +
                               " only (this scene's mode is " + (realtime ? "realtime" : "converged") + ")");
}

/// The iterations of each mode: steps_per_target (real-time); max_iterations, min_increment
/// (converged); actuator_stiffness and reuse_factorization.
void parse_iterations(const Map& m, SceneInverse& inv) {
  inv.steps_per_target = m.integer("steps_per_target", inv.steps_per_target);
  if (inv.steps_per_target < 1) fail(m.where("steps_per_target"), "inverse.steps_per_target: must be >= 1");
  if (inv.steps_per_target > 100000)
    fail(m.where("steps_per_target"), "inverse.steps_per_target: " + std::to_string(inv.steps_per_target) +
                                          " is above the cap of 100000 (each step writes a CSV row); a real-time "
                                          "step moves most of the way to its goal: a few to a few tens are typical");
  inv.options.max_iterations = m.integer("max_iterations", inv.options.max_iterations);
  if (inv.options.max_iterations > 100000)
    fail(m.where("max_iterations"), "inverse.max_iterations: " + std::to_string(inv.options.max_iterations) +
                                        " is above the cap of 100000; a converged solve needs tens of iterations or "
                                        "does not converge");
  // Per continuation increment; the last one lowers the energy weight 10x per iteration from
  // epsilon to InverseOptions::epsilon_min (1e-10) and needs one more to see lambda settle.
  const int needed = static_cast<int>(std::ceil(std::log10(inv.options.epsilon / InverseOptions{}.epsilon_min))) + 2;
  if (inv.options.max_iterations < needed)
    fail(m.where("max_iterations"), "inverse.max_iterations: must be >= " + std::to_string(needed) +
                                        " with epsilon = " + std::to_string(inv.options.epsilon) +
                                        " (per continuation increment; the last one lowers the energy weight 10x per "
                                        "iteration down to 1e-10)");
  inv.options.min_increment = m.number("min_increment", inv.options.min_increment);
  if (!(inv.options.min_increment > 0 && inv.options.min_increment <= 1))
    fail(m.where("min_increment"),
         "inverse.min_increment: must be in (0, 1] (the smallest continuation increment, "
         "as a fraction of the way to the goal, before the solve gives up)");
  inv.options.actuator_stiffness = m.boolean("actuator_stiffness", false);
  inv.options.reuse_factorization = m.integer("reuse_factorization", 0);
  if (inv.options.reuse_factorization < 0)
    fail(m.where("reuse_factorization"), "inverse.reuse_factorization: must be >= 0 (0: refactor every step)");
}

/// The lists: actuators (at least one of them not a sensor), effectors, force targets.
void parse_lists(const Map& m, const std::string& path, SceneInverse& inv) {
  const std::vector<YAML::Node> actuators = as_list(
      m.need("actuators", "a list of {type: pressure|cable|force, name, ...}"), path, "inverse.actuators", true);
  for (size_t i = 0; i < actuators.size(); ++i)
    inv.actuators.push_back(parse_actuator(actuators[i], path, item("inverse.actuators", i)));
  if (m.has("effectors")) {
    const std::vector<YAML::Node> effectors = as_list(m.at("effectors"), path, "inverse.effectors", true);
    for (size_t i = 0; i < effectors.size(); ++i)
      inv.effectors.push_back(parse_effector(effectors[i], path, item("inverse.effectors", i)));
  }
  if (m.has("force_targets")) {
    const std::vector<YAML::Node> targets = as_list(m.at("force_targets"), path, "inverse.force_targets", true);
    for (size_t i = 0; i < targets.size(); ++i)
      inv.force_targets.push_back(parse_force_target(targets[i], path, item("inverse.force_targets", i)));
  }
  bool actuated = false;
  for (const SceneActuator& a : inv.actuators) actuated = actuated || !a.sensor;
  if (!actuated)
    fail(m.where("actuators"),
         "inverse.actuators: no actuator (every entry is a sensor); the inverse problem needs at "
         "least one input to solve for");
}

/// Unique names over actuators and effectors (they name CSV columns and QP messages).
void check_unique_names(const SceneInverse& inv) {
  std::vector<std::pair<std::string, SceneLocation>> names;
  for (const SceneActuator& a : inv.actuators) names.emplace_back(a.name, a.where);
  for (const SceneEffector& e : inv.effectors) names.emplace_back(e.name, e.where);
  for (const SceneForceTarget& t : inv.force_targets) names.emplace_back(t.target.name, t.where);
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (names[i].first == names[j].first)
        fail(names[i].second, "inverse: the name '" + names[i].first + "' is already used at " + names[j].second.str() +
                                  "; give every actuator, effector and force target its own name");
}

/// Goal sequences: every effector with several goals must have the same number of them.
void check_goal_sequences(const SceneInverse& inv) {
  size_t n = 1;
  const SceneEffector* longest = nullptr;
  for (const SceneEffector& e : inv.effectors) {
    const size_t k = num_goals(e);
    if (k == 1) continue;
    if (n > 1 && k != n)
      fail(e.where, "inverse: effector '" + e.name + "' has " + std::to_string(k) + " goals but '" + longest->name +
                        "' has " + std::to_string(n) + "; sequences must have the same length (or a single goal)");
    n = k;
    longest = &e;
  }
}

}  // namespace

SceneInverse parse_inverse(const YAML::Node& node, const std::string& path) {
  const Map m(node, path, "inverse",
              {"mode", "method", "epsilon", "steps_per_target", "max_iterations", "min_increment", "actuator_stiffness",
               "reuse_factorization", "actuators", "effectors", "force_targets"});
  SceneInverse inv;
  inv.enabled = true;
  inv.where = m.where();
  inv.mode = m.choice("mode", {"realtime", "converged"}, 0) == 0 ? SceneInverse::Mode::RealTime
                                                                 : SceneInverse::Mode::Converged;
  inv.options.method =
      m.choice("method", {"qp", "gauss_seidel"}, 0) == 0 ? InverseMethod::QP : InverseMethod::GaussSeidel;
  inv.options.epsilon = m.number("epsilon", inv.options.epsilon);
  if (!(inv.options.epsilon > 0))
    fail(m.where("epsilon"), "inverse.epsilon: must be > 0 (it makes the QP strictly convex)");
  reject_other_mode_keys(m, inv);
  parse_iterations(m, inv);
  parse_lists(m, path, inv);
  check_unique_names(inv);
  check_goal_sequences(inv);
  return inv;
}

}  // namespace softik::scene_detail
