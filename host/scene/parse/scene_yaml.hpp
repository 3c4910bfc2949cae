// Strict reading of YAML nodes for the scene parser (private to host/scene/): typed
// conversions and maps that reject unknown keys, each error starting with
// "<scene path>:<line>:<column>: " and naming what was expected.
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "host/io/yaml_keys.hpp"

#include "softik/scene.hpp"

namespace softik::scene_detail {

/// The 1-based location of a node (yaml-cpp marks are 0-based).
SceneLocation location(const std::string& path, const YAML::Node& node);
/// An Error whose message already starts with its scene location ("scene.yaml:3:5: ..."), so
/// that callers adding a location can tell it apart by type, never by the message text.
class LocatedError : public Error {
 public:
  using Error::Error;
};

/// Throws LocatedError("<where>: <message>") (an Input softik::Error).
[[noreturn]] void fail(const SceneLocation& where, const std::string& message);
/// The YAML document `text` of the scene or batch file `path`, within the limits of
/// io/yaml_load.hpp (size, nesting); a failure is located in `path`.
YAML::Node load_yaml(const std::string& text, const std::string& path);
/// "a map", "a list", "'text'" or "nothing (null)": what a node holds, for messages.
std::string describe(const YAML::Node& node);

/// Typed conversions; `what` names the value in messages (e.g. "loads.pressure[0].value").
Real as_number(const YAML::Node& node, const std::string& path, const std::string& what);
int as_int(const YAML::Node& node, const std::string& path, const std::string& what);
bool as_bool(const YAML::Node& node, const std::string& path, const std::string& what);
std::string as_string(const YAML::Node& node, const std::string& path, const std::string& what);
std::vector<Real> as_numbers(const YAML::Node& node, const std::string& path, const std::string& what);
/// A list of exactly n numbers.
std::vector<Real> as_numbers(const YAML::Node& node, const std::string& path, const std::string& what, size_t n);
std::array<Real, 3> as_vec3(const YAML::Node& node, const std::string& path, const std::string& what);
/// A non-empty list of [x, y, z] points.
std::vector<std::array<Real, 3>> as_points(const YAML::Node& node, const std::string& path, const std::string& what);
/// Index of the node's text in `choices`; otherwise an error listing them.
int as_choice(const YAML::Node& node, const std::string& path, const std::string& what,
              const std::vector<std::string>& choices);
/// A list (a single map is accepted as a one-element list when `single_map_ok`).
std::vector<YAML::Node> as_list(const YAML::Node& node, const std::string& path, const std::string& what,
                                bool single_map_ok = false);

/// The scene held by an already loaded YAML tree (parse_scene_string's second half; the batch
/// runner parses base scenes with design overrides applied to the tree).
Scene parse_scene_node(const YAML::Node& root, const std::string& path);

/// One entry of `materials:` (scene_materials.cpp): the law, its parameters (young/poisson or
/// the law's own constants) and its region; the Material is built and validated here.
SceneMaterial parse_material(const YAML::Node& node, const std::string& path, const std::string& what);

/// `file` relative to the scene file's folder (absolute paths unchanged).
std::string resolve(const std::string& scene_path, const std::string& file);
/// The file name without folder and extension.
std::string stem(const std::string& path);
/// keys + more.
std::vector<std::string> with(std::vector<std::string> keys, const std::vector<std::string>& more);
/// "what[i]".
std::string item(const std::string& what, size_t i);

/// Names used in output columns and file names: one safe path component (io/path_component.hpp).
void check_name(const YAML::Node& node, const std::string& path, const std::string& what, const std::string& name);

/// A YAML map whose keys must all be among `allowed` (no duplicates).
class Map {
 public:
  Map(const YAML::Node& node, std::string path, std::string what, std::vector<std::string> allowed);

  bool has(const std::string& key) const;
  /// The value of a required key (missing: an error naming it, and `hint` on what it holds).
  YAML::Node need(const std::string& key, const std::string& hint) const;
  /// The value of a key that has() said is there.
  YAML::Node at(const std::string& key) const;
  /// "<what>.<key>" for messages.
  std::string name(const std::string& key) const { return what_ + "." + key; }
  const std::string& path() const { return path_; }
  const std::string& what() const { return what_; }
  SceneLocation where() const { return location(path_, node_); }
  SceneLocation where(const std::string& key) const { return location(path_, at(key)); }
  /// The location of the key itself (for "this key does not belong here" errors).
  SceneLocation key_where(const std::string& key) const;
  /// Fails when more than one of `keys` is present, or (when `one_required`) none is.
  void exclusive(const std::vector<std::string>& keys, bool one_required, const std::string& hint) const;

  Real number(const std::string& key, Real fallback) const;
  Real number(const std::string& key, const std::string& hint) const;
  int integer(const std::string& key, int fallback) const;
  bool boolean(const std::string& key, bool fallback) const;
  std::string string(const std::string& key, const std::string& fallback) const;
  std::array<Real, 3> vec3(const std::string& key, const std::array<Real, 3>& fallback) const;
  int choice(const std::string& key, const std::vector<std::string>& choices, int fallback) const;

 private:
  YAML::Node node_;
  std::string path_, what_;
  std::vector<io_detail::MapEntry> entries_;
};

/// Refuses (at m's `key`) a non-zero direction whose length over- or underflows double precision
/// (|v|^2 beyond 1.8e308 or below 2.2e-308: [0, 0, 1e200], [1e-200, 0, 0]) as such, not later as a
/// zero or non-finite direction; a zero direction is the caller's to refuse (scene_parse.cpp).
void check_direction_length(const Map& m, const std::string& key, const std::array<Real, 3>& v);

/// A number as a message shows it (1e+300, 0.01).
std::string num(Real v);

/// The step count ceil(duration / step) of m's keys `duration_key` and `step_key`: refused (at
/// `step_key`) where the step is longer than the duration (its one step would run past the asked
/// span), where the quotient overflows double precision, or above `cap` (`why` says why the cap is
/// enough). Shared by dynamics: (dt) and explicit: (time_step).
int step_count(const Map& m, const std::string& duration_key, Real duration, const std::string& step_key, Real step,
               double cap, const std::string& why);

/// Time steps one explicit run may take (duration / time_step; checked when the scene is read for a
/// given time_step, before the run for the automatic one): ~100x the implicit cap (dynamics: 1e7),
/// as an explicit step costs a force evaluation, not a solve.
inline constexpr double kMaxExplicitSteps = 1e9;

/// The keys of a cavity wall: surface | file (+ scale, embed_tolerance), allow_flip.
extern const std::vector<std::string> kCavityKeys;
/// A cavity wall from a map opened with kCavityKeys among its keys (scene_parse.cpp); the
/// returned ScenePressure has no name and no value.
ScenePressure parse_cavity(const Map& m);

/// The keys of a node selection: group | box | plane | nodes, and components.
extern const std::vector<std::string> kSelectionKeys;
/// A node selection from a map opened with kSelectionKeys plus the caller's own keys
/// (scene_parse.cpp).
SceneSelection parse_selection(const Map& m);

/// A piecewise-linear function of time from a list of [t, value] pairs (`what` names it).
TimeFunction parse_time_function(const YAML::Node& node, const std::string& path, const std::string& what);
/// A `path:` list of [t, dx, dy, dz] rows, times increasing (an obstacle's, a moving support's;
/// scene_parse_dynamics.cpp).
void parse_path(const Map& m, std::vector<Real>& times, std::vector<std::array<Real, 3>>& offsets);
/// A `fixed` entry's `motion:` (path and/or rotation about an axis through a centre), named `what`.
MovingSupport parse_support_motion(const YAML::Node& node, const std::string& path, const std::string& what);
/// The `dynamics:` and `contact:` sections (scene_parse_dynamics.cpp).
SceneDynamics parse_dynamics(const YAML::Node& node, const std::string& path);
SceneContact parse_contact(const YAML::Node& node, const std::string& path);
/// One entry of `loads.cable` (scene_parse_dynamics.cpp): a tendon pulled over time.
SceneCable parse_cable_load(const YAML::Node& node, const std::string& path, const std::string& what);

/// The `explicit:` section, and its cross-checks with the rest of the scene
/// (scene_parse_explicit.cpp).
SceneExplicit parse_explicit(const YAML::Node& node, const std::string& path);
void check_explicit(Scene& scene);

/// The node-network body (scene_parse_network.cpp): `<section>.network:` options of a network
/// built from the mesh (section: "explicit" or "continuation"), and the checks of a node_network
/// model: built from the mesh, its E and nu come from the one linear material (n gets them and
/// `density`); read from a network file (mesh: {network: ...}), the file holds the links, so
/// materials and `network:` options are refused, as are runs other than explicit: and
/// continuation: with model node_network.
void parse_network_options(const Map& section, const std::string& path, NetworkFromMesh& n);
void check_network_model(const Scene& scene, const SceneLocation& where, const std::string& section, bool has_options,
                         Real density, NetworkFromMesh& n);
void check_network_file_scene(const Scene& scene);

/// The `mesh:` section: a file, a generator or a network file (scene_parse_mesh.cpp).
SceneMesh parse_mesh(const YAML::Node& node, const std::string& path, const std::string& what = "mesh");
/// A `transform:` map (scene_parse_bodies.cpp): rotation {axis, angle} or euler [ax, ay, az]
/// (degrees), translation, scale; checked (finite, scale > 0).
Transform parse_transform(const YAML::Node& node, const std::string& path, const std::string& what);
/// The keys a body holds, read from m (the scene's top level, or one entry of bodies:) into the
/// scene's lists: materials, fixed, prescribed, loads; `prefix` ("" or "bodies[i].") names
/// them in messages (scene_parse.cpp).
void parse_body_keys(const Map& m, const std::string& path, const std::string& prefix, Scene& scene);
/// `bodies:` (scene_parse_bodies.cpp): each body's mesh and transform into scene.bodies, its own
/// keys into the scene's lists, relocated (group names "<body>/<group>", selections and cavity
/// files marked with the body, cable points moved to the scene's frame, names "<body>.<name>").
void parse_bodies(const YAML::Node& node, const std::string& path, Scene& scene);

/// The `continuation:` section, and its cross-checks with the rest of the scene (`root`: the
/// scene's top-level map, for the solver: keys it replaces) (scene_parse_continuation.cpp).
SceneContinuation parse_continuation(const YAML::Node& node, const std::string& path);
void check_continuation(Scene& scene, const Map& root);

/// The cross-checks of the sections with each other, once all are read (scene_parse_checks.cpp):
/// dynamics: and contact: with the rest (and an inverse problem's contact), the averaged
/// dilatation of a node network, the number of .vtu files a run would write, one law per model.
void check_dynamics(Scene& scene, const Map& root);
void check_network_dilatation(const Scene& scene, const Map& root);
void check_output_volume(const Scene& scene, const Map& root);
void check_laws(const Scene& scene);

/// The `modes:` section and its checks against the rest of the scene (`root`: the top-level map;
/// scene_parse_modes.cpp): count, shift, density (else loads.gravity's), mass; the unloaded body
/// only, one kind of run.
SceneModes parse_modes(const YAML::Node& node, const std::string& path, const Scene& scene, const Map& root);
/// The `inverse:` section (scene_parse_inverse.cpp).
SceneInverse parse_inverse(const YAML::Node& node, const std::string& path);

}  // namespace softik::scene_detail
