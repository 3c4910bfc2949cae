// YAML scene -> Scene (strict; docs/scene-format.md describes every key).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik {

using namespace scene_detail;

namespace fs = std::filesystem;

namespace scene_detail {

std::string resolve(const std::string& scene_path, const std::string& file) {
  const fs::path p(file);
  if (p.is_absolute()) return p.string();
  return (fs::path(scene_path).parent_path() / p).lexically_normal().string();
}

std::string stem(const std::string& path) { return fs::path(path).stem().string(); }

std::vector<std::string> with(std::vector<std::string> keys, const std::vector<std::string>& more) {
  keys.insert(keys.end(), more.begin(), more.end());
  return keys;
}

std::string item(const std::string& what, size_t i) { return what + "[" + std::to_string(i) + "]"; }

void check_direction_length(const Map& m, const std::string& key, const std::array<Real, 3>& v) {
  const Real length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  const Real largest = std::max({std::abs(v[0]), std::abs(v[1]), std::abs(v[2])});
  if ((std::isfinite(length) && length > 0) || largest == 0) return;  // (a zero direction is the caller's to refuse)
  std::ostringstream s;
  s << m.name(key) << ": the length of [" << v[0] << ", " << v[1] << ", " << v[2] << "] "
    << (length > 0 ? "overflows double precision (its square is beyond 1.8e308)"
                   : "underflows double precision (its square is below 2.2e-308)")
    << "; give the direction with moderate components, e.g. [" << v[0] / largest << ", " << v[1] / largest << ", "
    << v[2] / largest << "]";
  fail(m.where(key), s.str());
}

const std::vector<std::string> kCavityKeys = {"surface", "file", "scale", "embed_tolerance", "allow_flip"};

ScenePressure parse_cavity(const Map& m) {
  m.exclusive({"surface", "file"}, true,
              "name a surface group of the mesh (surface: cavity) or an OBJ/STL cavity file (file: cavity.stl)");
  ScenePressure p;
  p.where = m.where();
  if (m.has("surface")) {
    p.surface = m.string("surface", "");
    if (m.has("scale") || m.has("embed_tolerance"))
      fail(m.key_where(m.has("scale") ? "scale" : "embed_tolerance"),
           m.what() + ": 'scale' and 'embed_tolerance' apply to a cavity 'file' only");
  } else {
    p.file = resolve(m.path(), m.string("file", ""));
    p.scale = m.number("scale", 1.0);
    if (!(p.scale > 0)) fail(m.where("scale"), m.name("scale") + ": must be > 0");
    p.embed_tolerance = m.number("embed_tolerance", -1.0);
  }
  p.allow_flip = m.boolean("allow_flip", true);
  return p;
}

}  // namespace scene_detail

namespace {

constexpr int kMaxLoadSteps = 1000000;  ///< solver.load_steps

void check_positive(const Map& m, const std::string& key, Real v) {
  if (!(v > 0)) fail(m.where(key), m.name(key) + ": must be > 0, got " + std::to_string(v));
}

}  // namespace

SceneSelection scene_detail::parse_selection(const Map& m) {
  const std::string& path = m.path();
  m.exclusive({"group", "box", "plane", "sphere", "nodes"}, true,
              "select nodes by a node group (group: xmin), a box {min, max}, a plane {point, normal}, a sphere "
              "{center, radius} or a list (nodes: [0, 5])");
  SceneSelection s;
  s.where = m.where();
  if (m.has("group")) {
    s.kind = SceneSelection::Kind::Group;
    s.group = m.string("group", "");
  } else if (m.has("box")) {
    s.kind = SceneSelection::Kind::Box;
    const Map b(m.at("box"), path, m.name("box"), {"min", "max", "tolerance"});
    s.min = as_vec3(b.need("min", "the lowest corner [x, y, z]"), path, b.name("min"));
    s.max = as_vec3(b.need("max", "the highest corner [x, y, z]"), path, b.name("max"));
    for (int i = 0; i < 3; ++i)
      if (s.min[static_cast<size_t>(i)] > s.max[static_cast<size_t>(i)])
        fail(b.where("max"), b.name("max") + ": every coordinate must be >= the one of min");
    s.tolerance = b.number("tolerance", -1.0);
  } else if (m.has("plane")) {
    s.kind = SceneSelection::Kind::Plane;
    const Map p(m.at("plane"), path, m.name("plane"), {"point", "normal", "tolerance"});
    s.point = as_vec3(p.need("point", "a point [x, y, z] on the plane"), path, p.name("point"));
    s.normal = as_vec3(p.need("normal", "the plane's normal [nx, ny, nz]"), path, p.name("normal"));
    if (s.normal[0] == 0 && s.normal[1] == 0 && s.normal[2] == 0)
      fail(p.where("normal"), p.name("normal") + ": must not be zero");
    check_direction_length(p, "normal", s.normal);
    s.tolerance = p.number("tolerance", -1.0);
  } else if (m.has("sphere")) {
    s.kind = SceneSelection::Kind::Sphere;
    const Map b(m.at("sphere"), path, m.name("sphere"), {"center", "radius", "tolerance"});
    s.point = as_vec3(b.need("center", "the centre [x, y, z]"), path, b.name("center"));
    s.radius = b.number("radius", "the radius, > 0");
    if (!(s.radius > 0) || !std::isfinite(s.radius)) fail(b.where("radius"), b.name("radius") + ": must be > 0");
    s.tolerance = b.number("tolerance", -1.0);
  } else {
    s.kind = SceneSelection::Kind::Nodes;
    const YAML::Node list = m.at("nodes");
    for (const YAML::Node& n : as_list(list, path, m.name("nodes"))) {
      const int node = as_int(n, path, m.name("nodes") + " entry");
      if (node < 0) fail(location(path, n), m.name("nodes") + ": node indices are >= 0 (0-based)");
      s.nodes.push_back(node);
    }
    if (s.nodes.empty()) fail(location(path, list), m.name("nodes") + ": the list is empty");
  }
  if (m.has("name")) {  // allowed where the caller's keys list it (fixed, prescribed)
    s.name = m.string("name", "");
    check_name(m.at("name"), path, m.name("name"), s.name);
  }
  if (m.has("components")) {
    s.components = {false, false, false};
    const std::vector<YAML::Node> list = as_list(m.at("components"), path, m.name("components"));
    if (list.empty()) fail(m.where("components"), m.name("components") + ": expected a non-empty list of x, y, z");
    for (const YAML::Node& c : list)
      s.components[static_cast<size_t>(as_choice(c, path, m.name("components") + " entry", {"x", "y", "z"}))] = true;
  }
  return s;
}

const std::vector<std::string> scene_detail::kSelectionKeys = {"group",  "box",   "plane",
                                                               "sphere", "nodes", "components"};

namespace {

/// value, or volume_growth / gas_amount / ambient_pressure, by loads.pressure's `control`.
void parse_cavity_control(const Map& m, ScenePressure& p) {
  const std::string control = cavity_control_name(p.load.control);
  const auto not_here = [&](const std::string& key, const std::string& why) {
    if (m.has(key)) fail(m.key_where(key), m.name(key) + ": " + why);
  };
  if (p.load.control == CavityControl::Pressure) {
    p.load.pressure = m.number("value", "the pressure at the end of the load ramp, e.g. 20000 (Pa)");
    for (const std::string key : {"volume_growth", "gas_amount", "ambient_pressure"})
      not_here(key, "applies to control: volume or gas; add control: or remove the key");
    return;
  }
  not_here("value", "with control: " + control + " the solve finds the pressure; remove value");
  not_here("over_time", "applies to control: pressure (a given pressure over time)");
  if (!p.file.empty() || !p.load.closed)
    fail(m.where(), m.what() + ": control: " + control +
                        " needs a closed cavity given as a surface group (surface:, "
                        "closed: true): its volume is what is controlled");
  if (p.load.control == CavityControl::Volume) {
    not_here("gas_amount", "applies to control: gas");
    not_here("ambient_pressure", "applies to control: gas");
    p.load.volume_growth =
        m.number("volume_growth", "the cavity's volume growth at the end of the load ramp, e.g. 2.0e-6 (m^3)");
    if (!std::isfinite(p.load.volume_growth))
      fail(m.where("volume_growth"), m.name("volume_growth") + ": must be a finite volume (m^3)");
    return;
  }
  not_here("volume_growth", "applies to control: volume");
  p.load.gas_amount = m.number("gas_amount",
                               "the amount of gas at the end of the load ramp as absolute pressure x volume, e.g. "
                               "0.25 (Pa m^3 = J)");
  if (!(std::isfinite(p.load.gas_amount) && p.load.gas_amount > 0))
    fail(m.where("gas_amount"), m.name("gas_amount") + ": must be > 0 (absolute pressure x volume of the gas, Pa m^3)");
  p.load.ambient_pressure = m.number("ambient_pressure", p.load.ambient_pressure);
  if (!(std::isfinite(p.load.ambient_pressure) && p.load.ambient_pressure >= 0))
    fail(m.where("ambient_pressure"), m.name("ambient_pressure") + ": must be >= 0 (Pa, absolute)");
}

ScenePressure parse_pressure(const YAML::Node& node, const std::string& path, const std::string& what) {
  // The keys of a cavity wall (kCavityKeys) plus the load's own, in the order messages list them.
  const Map m(node, path, what,
              {"name", "surface", "file", "scale", "embed_tolerance", "value", "closed", "symmetry_sector",
               "allow_flip", "follower", "over_time", "control", "volume_growth", "gas_amount", "ambient_pressure"});
  ScenePressure p = parse_cavity(m);
  p.name = m.string("name", p.surface.empty() ? stem(p.file) : p.surface);
  check_name(m.has("name") ? m.at("name") : node, path, m.name("name"), p.name);
  const int control = m.choice("control", {"pressure", "volume", "gas"}, 0);
  p.load.control = control == 0 ? CavityControl::Pressure : control == 1 ? CavityControl::Volume : CavityControl::Gas;
  p.load.closed = m.boolean("closed", true);
  p.symmetry_sector = m.boolean("symmetry_sector", false);
  if (p.symmetry_sector && (!p.file.empty() || !p.load.closed))
    fail(m.where("symmetry_sector"), m.name("symmetry_sector") +
                                         ": applies to a closed cavity given as a surface group "
                                         "(surface:, closed: true), whose open edges lie on the "
                                         "symmetry planes x = 0, y = 0, z = 0");
  if (m.has("follower")) p.follower = m.boolean("follower", true) ? 1 : 0;
  if (m.has("over_time")) p.over_time = parse_time_function(m.at("over_time"), path, m.name("over_time"));
  parse_cavity_control(m, p);  // value, or what a volume or gas control needs (after closed:)
  return p;
}

/// The entries of loads.<key> (a list, or one map), each parsed by `parse`, names unique.
template <class T, class Parse>
void parse_named_list(const Map& m, const std::string& key, const std::string& noun, Parse parse, std::vector<T>& out) {
  if (!m.has(key)) return;
  const std::string what = m.name(key);
  const std::vector<YAML::Node> list = as_list(m.at(key), m.path(), what, true);
  for (size_t i = 0; i < list.size(); ++i) {
    out.push_back(parse(list[i], m.path(), item(what, i)));
    for (size_t j = 0; j < i; ++j)
      if (out[j].name == out[i].name)
        fail(out[i].where, item(what, i) + ": the name '" + out[i].name + "' is already used by " + item(what, j) +
                               "; give each " + noun + " its own 'name'");
  }
}

/// The entries of `what` (loads.forces, prescribed: a list, or one map), each a node selection
/// with the vector `key` (its meaning: `hint`) read into entry.*vector.
template <class T>
void parse_selection_vectors(const YAML::Node& node, const std::string& path, const std::string& what,
                             const std::string& key, const std::string& hint, std::array<Real, 3> T::*vector,
                             std::vector<T>& out, const std::vector<std::string>& more = {}) {
  const std::vector<YAML::Node> list = as_list(node, path, what, true);
  for (size_t i = 0; i < list.size(); ++i) {
    const Map e(list[i], path, item(what, i), with(kSelectionKeys, with({key}, more)));
    T entry;
    entry.selection = parse_selection(e);
    entry.*vector = as_vec3(e.need(key, hint), path, e.name(key));
    out.push_back(entry);
  }
}

void parse_loads(const YAML::Node& node, const std::string& path, const std::string& what, Scene& scene) {
  const Map m(node, path, what, {"pressure", "gravity", "forces", "cable"});
  parse_named_list(m, "pressure", "pressure load", parse_pressure, scene.pressures);
  parse_named_list(m, "cable", "cable", parse_cable_load, scene.cables);
  if (m.has("gravity")) {
    const Map g(m.at("gravity"), path, m.name("gravity"), {"density", "g", "over_time"});
    scene.gravity.enabled = true;
    scene.gravity.where = g.where();
    if (scene.mesh.source == SceneMesh::Source::Network) {
      if (g.has("density"))
        fail(g.key_where("density"),
             "loads.gravity.density: the body is a node network (mesh.network), whose "
             "nodes carry their masses; remove density (the weight is mass x g per node)");
    } else {
      scene.gravity.density = g.number("density", "the mass density, e.g. 1070 (kg/m^3)");
      check_positive(g, "density", scene.gravity.density);
    }
    scene.gravity.g = g.vec3("g", scene.gravity.g);
    if (g.has("over_time")) scene.gravity.over_time = parse_time_function(g.at("over_time"), path, g.name("over_time"));
  }
  if (m.has("forces"))
    parse_selection_vectors(m.at("forces"), path, m.name("forces"), "force",
                            "the total force [Fx, Fy, Fz], split evenly over the nodes", &SceneForce::force,
                            scene.forces);
}

void parse_solver(const YAML::Node& node, const std::string& path, SceneSolver& s) {
  const Map m(node, path, "solver",
              {"load_steps", "max_iterations", "residual_tolerance", "increment_tolerance", "max_step_cuts",
               "line_search", "pressure_stiffness", "chord_contraction", "krylov_iterations", "krylov_tolerance",
               "extrapolate", "linear_solver", "backend", "threads"});
  // Counts within [lo, hi]: the caps are far beyond any useful value and stop a typo (1e9 load
  // steps) from running for days and filling the disk with one CSV row per step.
  auto within = [&](const std::string& key, int v, int lo, int hi, const std::string& why) {
    if (v < lo) fail(m.where(key), m.name(key) + ": must be >= " + std::to_string(lo) + ", got " + std::to_string(v));
    if (v > hi)
      fail(m.where(key),
           m.name(key) + ": " + std::to_string(v) + " is above the cap of " + std::to_string(hi) + "; " + why);
    return v;
  };
  if (m.has("load_steps"))
    s.newton.load_steps = within("load_steps", m.integer("load_steps", 0), 1, kMaxLoadSteps,
                                 "each step is a Newton solve and a CSV row: a few to a few hundred steps are typical");
  if (m.has("max_iterations"))
    s.newton.max_iterations =
        within("max_iterations", m.integer("max_iterations", 0), 1, 10000,
               "Newton converges in a few to a few tens of iterations or not at all: add load_steps");
  if (m.has("max_step_cuts"))
    s.newton.max_step_cuts = within("max_step_cuts", m.integer("max_step_cuts", 0), 0, 50,
                                    "each cut halves the step: 50 cuts are a factor 1e-15");
  if (m.has("threads")) s.threads = within("threads", m.integer("threads", 0), 0, 4096, "0 uses every core");
  s.newton.residual_tolerance = m.number("residual_tolerance", s.newton.residual_tolerance);
  check_positive(m, "residual_tolerance", s.newton.residual_tolerance);
  s.newton.increment_tolerance = m.number("increment_tolerance", s.newton.increment_tolerance);
  if (s.newton.increment_tolerance < 0)
    fail(m.where("increment_tolerance"), "solver.increment_tolerance: must be >= 0");
  const LineSearch searches[] = {LineSearch::Automatic, LineSearch::Energy, LineSearch::Residual, LineSearch::None};
  s.newton.line_search = searches[m.choice("line_search", {"auto", "energy", "residual", "none"}, 0)];
  s.newton.pressure_stiffness = m.boolean("pressure_stiffness", s.newton.pressure_stiffness);
  s.newton.chord_contraction = m.number("chord_contraction", s.newton.chord_contraction);
  if (!(s.newton.chord_contraction >= 0 && s.newton.chord_contraction < 1))
    fail(m.where("chord_contraction"), "solver.chord_contraction: a residual ratio in [0, 1) (0: full Newton), got " +
                                           std::to_string(s.newton.chord_contraction));
  if (m.has("krylov_iterations"))
    s.newton.krylov_iterations =
        within("krylov_iterations", m.integer("krylov_iterations", 0), 0, 1000,
               "each iteration costs a solve with the factor: past a few tens a factorisation is cheaper");
  s.newton.krylov_tolerance = m.number("krylov_tolerance", s.newton.krylov_tolerance);
  if (!(s.newton.krylov_tolerance > 0 && s.newton.krylov_tolerance < 1))
    fail(m.where("krylov_tolerance"),
         "solver.krylov_tolerance: the relative residual a Krylov step solves its tangent "
         "system to, in (0, 1) (1e-6 is typical), got " +
             std::to_string(s.newton.krylov_tolerance));
  s.newton.extrapolate = m.boolean("extrapolate", s.newton.extrapolate);
  const std::vector<LinearSolverKind> kinds = linear_solver_kinds();  // one list with the CLI's
  std::vector<std::string> names;
  for (LinearSolverKind k : kinds) names.emplace_back(linear_solver_kind_name(k));
  const size_t kind = static_cast<size_t>(m.choice("linear_solver", names, 0));
  if (kinds[kind] == LinearSolverKind::Cholmod && !have_cholmod())
    fail(m.where("linear_solver"),
         "solver.linear_solver: this softik was built without CHOLMOD; use 'auto' or "
         "'eigen', or rebuild with -DSOFTIK_WITH_CHOLMOD=ON");
  if (is_gpu_solver(kinds[kind]) && !cuda_backend_built())
    fail(m.where("linear_solver"), "solver.linear_solver: '" + std::string(linear_solver_kind_name(kinds[kind])) +
                                       "' runs on the GPU, but this softik was built without the CUDA backend; use "
                                       "'auto', 'cholmod' or 'eigen'");
  if (kinds[kind] == LinearSolverKind::Cudss && !have_cudss_solver())
    fail(m.where("linear_solver"),
         "solver.linear_solver: this softik was built without cuDSS (scripts/setup.sh "
         "installs nvidia-cudss-cu13; rebuild after it); use 'cuda-dense' or 'cuda-pcg'");
  s.linear_solver = kinds[kind];
  const Backend backends[] = {Backend::Cpu, Backend::Cuda};
  s.backend = backends[m.choice("backend", {"cpu", "cuda"}, 0)];
  if (s.backend == Backend::Cuda && !cuda_backend_built())
    fail(m.where("backend"),
         "solver.backend: this softik was built without the CUDA backend; use 'cpu', or "
         "rebuild with the CUDA toolkit (nvcc) and -DSOFTIK_CUDA=ON");
}

void parse_outputs(const YAML::Node& node, const std::string& path, SceneOutputs& o) {
  const Map m(node, path, "outputs", {"vtu", "every", "vtu_format", "probes", "reactions"});
  o.reactions = m.boolean("reactions", false);
  o.vtu = m.boolean("vtu", o.vtu);
  o.every = m.integer("every", o.every);
  if (o.every < 1) fail(m.where("every"), "outputs.every: must be >= 1 (write a .vtu every N load steps)");
  const VtuEncoding formats[] = {VtuEncoding::Compressed, VtuEncoding::Binary, VtuEncoding::Ascii};
  o.vtu_format = formats[m.choice(
      "vtu_format", {vtu_encoding_name(formats[0]), vtu_encoding_name(formats[1]), vtu_encoding_name(formats[2])}, 0)];
  if (!m.has("probes")) return;
  const std::vector<YAML::Node> list = as_list(m.at("probes"), path, "outputs.probes", true);
  for (size_t i = 0; i < list.size(); ++i) {
    const Map p(list[i], path, item("outputs.probes", i), {"name", "point", "tolerance"});
    SceneProbe probe;
    probe.where = p.where();
    probe.name =
        as_string(p.need("name", "names the CSV columns ux_<name>, uy_<name>, uz_<name>"), path, p.name("name"));
    check_name(p.at("name"), path, p.name("name"), probe.name);
    probe.point = as_vec3(p.need("point", "the probe's rest position [x, y, z]"), path, p.name("point"));
    probe.tolerance = p.number("tolerance", -1.0);
    for (const SceneProbe& other : o.probes)
      if (other.name == probe.name)
        fail(p.where("name"), p.name("name") + ": the name '" + probe.name + "' is used by another probe");
    o.probes.push_back(probe);
  }
}

}  // namespace

void scene_detail::parse_body_keys(const Map& m, const std::string& path, const std::string& prefix, Scene& scene) {
  if (m.has("materials")) {
    const std::string what = prefix + "materials";
    const std::vector<YAML::Node> materials = as_list(m.at("materials"), path, what, true);
    if (materials.empty()) fail(m.where("materials"), what + ": the list is empty; give at least one material");
    for (size_t i = 0; i < materials.size(); ++i)
      scene.materials.push_back(parse_material(materials[i], path, item(what, i)));
  }
  if (m.has("fixed")) {
    const std::vector<YAML::Node> list = as_list(m.at("fixed"), path, prefix + "fixed", true);
    for (size_t i = 0; i < list.size(); ++i) {
      const Map f(list[i], path, item(prefix + "fixed", i), with(kSelectionKeys, {"motion", "name"}));
      scene.fixed.push_back(parse_selection(f));
      if (!f.has("motion")) continue;
      const std::array<bool, 3>& c = scene.fixed.back().components;
      if (!(c[0] && c[1] && c[2]))
        fail(f.where("components"), f.name("components") +
                                        ": a support with a motion is fixed in x, y and z (it "
                                        "moves its nodes rigidly); remove components");
      scene.supports.push_back(
          {scene.fixed.size() - 1, parse_support_motion(f.at("motion"), path, f.name("motion")), f.where("motion")});
    }
  }
  if (m.has("prescribed"))
    parse_selection_vectors(m.at("prescribed"), path, prefix + "prescribed", "displacement",
                            "the displacement [dx, dy, dz] at the end of the load ramp", &ScenePrescribed::displacement,
                            scene.prescribed, {"name"});
  if (m.has("loads")) parse_loads(m.at("loads"), path, prefix + "loads", scene);
}

namespace {

Scene parse_root(const YAML::Node& root, const std::string& path) {
  const Map m(
      root, path, "the scene",
      {"name", "description", "mesh", "formulation", "materials", "fixed", "prescribed", "loads", "solver", "outputs",
       "inverse", "dynamics", "explicit", "continuation", "contact", "dilatation", "bodies", "modes"});
  Scene scene;
  scene.path = path;
  scene.name = m.string("name", stem(path));
  check_name(m.has("name") ? m.at("name") : root, path, "name", scene.name);
  scene.description = m.has("description") ? as_string(m.at("description"), path, "description") : "";
  if (!m.has("bodies"))
    scene.mesh = parse_mesh(m.need("mesh", "mesh: {file: body.msh} or mesh: {generator: {type: finger}}"), path);
  const Formulation formulations[] = {Formulation::LinearSmallStrain, Formulation::Corotational,
                                      Formulation::Hyperelastic};
  scene.formulation = formulations[m.choice("formulation", {"linear", "corotational", "hyperelastic"}, 2)];
  scene.formulation_where = m.has("formulation") ? m.where("formulation") : m.where();
  const fem::Dilatation dilatations[] = {fem::Dilatation::Pointwise, fem::Dilatation::CellMean,
                                         fem::Dilatation::NodalMean};
  scene.dilatation = dilatations[m.choice("dilatation", {"pointwise", "cell_mean", "nodal_mean"}, 0)];
  scene.dilatation_where = m.has("dilatation") ? m.where("dilatation") : m.where();
  if (scene.mesh.source == SceneMesh::Source::Network) {
    // The network file's links carry their own stiffness and its nodes the masses.
    for (const char* key : {"materials", "formulation", "dilatation"})
      if (m.has(key))
        fail(m.key_where(key), std::string(key) +
                                   ": the body is a node network (mesh.network), whose links carry "
                                   "their own stiffness; remove " +
                                   key);
  }
  if (scene.mesh.source != SceneMesh::Source::Network && !m.has("bodies"))
    m.need("materials", "a list of {law, young, poisson} or the law's constants, per region");
  parse_body_keys(m, path, "", scene);
  if (m.has("bodies")) {
    if (m.has("mesh"))
      fail(m.key_where("mesh"),
           "mesh: with bodies: each body has its own mesh (bodies[i].mesh); remove the "
           "top-level mesh, or write the scene with one mesh and no bodies");
    parse_bodies(m.at("bodies"), path, scene);
  }
  if (scene.mesh.source != SceneMesh::Source::Network) check_laws(scene);
  if (m.has("solver")) parse_solver(m.at("solver"), path, scene.solver);
  if (m.has("outputs")) parse_outputs(m.at("outputs"), path, scene.outputs);
  if (m.has("inverse")) scene.inverse = parse_inverse(m.at("inverse"), path);
  if (m.has("dynamics")) scene.dynamics = parse_dynamics(m.at("dynamics"), path);
  if (m.has("explicit")) scene.explicit_dynamics = parse_explicit(m.at("explicit"), path);
  if (m.has("modes")) scene.modes = parse_modes(m.at("modes"), path, scene, m);
  if (scene.outputs.reactions && ((scene.inverse.enabled && !m.has("dynamics")) || m.has("continuation") ||
                                  m.has("explicit") || scene.mesh.source == SceneMesh::Source::Network))
    fail(m.where("outputs"),
         "outputs.reactions: written by static load ramps and dynamics (with or without its "
         "control); not by a static inverse run, continuation:, explicit: or a node network yet");
  if (!scene.supports.empty() && !m.has("dynamics"))
    fail(scene.supports.front().where, scene.supports.front().motion.name +
                                           ": a support moved in time needs a dynamics: section (a static run "
                                           "holds its fixed nodes at rest; prescribed: moves nodes in statics)");
  for (const ScenePressure& p : scene.pressures)
    if (p.load.control != CavityControl::Pressure &&
        (m.has("dynamics") || m.has("explicit") || m.has("inverse") || m.has("continuation")))
      fail(p.where, "loads.pressure '" + p.name + "': control: " + cavity_control_name(p.load.control) +
                        " is solved in static load-ramp runs only, not with dynamics:, explicit:, inverse: or "
                        "continuation:; give the pressure (value:) there");
  if (m.has("contact")) scene.contact = parse_contact(m.at("contact"), path);
  if (m.has("continuation")) {
    scene.continuation = parse_continuation(m.at("continuation"), path);
    check_continuation(scene, m);
  }
  check_dynamics(scene, m);
  check_network_dilatation(scene, m);
  check_output_volume(scene, m);
  check_network_file_scene(scene);
  return scene;
}

}  // namespace

Scene parse_scene_string(const std::string& yaml, const std::string& path) {
  return scene_detail::parse_scene_node(scene_detail::load_yaml(yaml, path), path);
}

Scene scene_detail::parse_scene_node(const YAML::Node& root, const std::string& path) {
  try {
    return parse_root(root, path);
  } catch (const YAML::Exception& e) {  // yaml-cpp's own checks, should a conversion slip through
    SceneLocation where{path, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1};
    fail(where, e.msg);
  }
}

Scene parse_scene(const std::string& path) {
  std::error_code ec;
  SOFTIK_CHECK(!fs::is_directory(path, ec), "'" << path
                                                << "' is a folder, not a scene file; give the path of a .yaml "
                                                   "scene (see docs/scene-format.md)");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("cannot open scene file '" + path + "': " + (fs::exists(path, ec) ? "not readable" : "no such file") +
                    "; give the path of a .yaml scene (see docs/scene-format.md)",
                ErrorKind::Io);
  std::ostringstream text;
  text << in.rdbuf();
  SOFTIK_CHECK_IO(!in.bad(), "cannot read scene file '" << path << "'");
  return parse_scene_string(text.str(), path);  // its reader refuses a NUL byte (scene_detail::load_yaml)
}

}  // namespace softik
