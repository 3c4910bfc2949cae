// The `explicit:` section of a scene (docs/scene-format.md, "Explicit dynamics and node
// networks"): the body integrated by central differences as an FEM model with lumped mass or as
// a node network (built from its mesh, or read from mesh.network). Strict like the rest of the
// scene reader.
#include <cmath>

#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik::scene_detail {

namespace {

void require(bool ok, const Map& m, const std::string& key, const std::string& message) {
  if (!ok) fail(m.where(key), m.name(key) + ": " + message);
}

}  // namespace

SceneExplicit parse_explicit(const YAML::Node& node, const std::string& path) {
  const Map m(node, path, "explicit",
              {"model", "scheme", "duration", "frame_interval", "density", "time_step", "safety", "force_time_step",
               "mass_damping", "global_damping", "network"});
  SceneExplicit e;
  e.enabled = true;
  e.where = m.where();
  e.model = m.choice("model", {"fem", "node_network"}, 0) == 0 ? SceneExplicit::Model::Fem
                                                               : SceneExplicit::Model::NodeNetwork;
  ExplicitOptions& o = e.options;
  o.scheme = m.choice("scheme", {"velocity_verlet", "symplectic_euler"}, 0) == 0 ? ExplicitScheme::VelocityVerlet
                                                                                 : ExplicitScheme::SymplecticEuler;
  e.duration = m.number("duration", "the simulated time, e.g. 0.2 (s)");
  require(std::isfinite(e.duration) && e.duration > 0, m, "duration", "must be > 0");
  e.frame_interval = m.number("frame_interval", "the time between output frames, e.g. 0.005 (s)");
  require(std::isfinite(e.frame_interval) && e.frame_interval > 0 && e.frame_interval <= e.duration, m,
          "frame_interval", "must lie in (0, duration]");
  const double frames = std::ceil(e.duration / e.frame_interval - 1e-9);
  require(frames <= 100000, m, "frame_interval",
          "explicit.duration / explicit.frame_interval = " + num(e.duration) + " / " + num(e.frame_interval) + " = " +
              num(frames) + " frames is above the cap of 1e5 (each frame is a CSV row); give a longer frame_interval");
  e.frames = static_cast<int>(frames);
  e.density = m.number("density", -1.0);
  if (m.has("density"))
    require(std::isfinite(e.density) && e.density > 0, m, "density", "the mass density must be > 0 (e.g. 1070 kg/m^3)");
  o.time_step = m.number("time_step", 0.0);
  require(std::isfinite(o.time_step) && o.time_step >= 0, m, "time_step",
          "must be >= 0 (0: safety x the stable limit)");
  if (o.time_step > 0) {  // the step count duration / time_step: within the cap, and not an overflow
    // The steps of a frame are shortened to land on it: a longer time_step would never be taken.
    require(
        o.time_step <= e.frame_interval, m, "time_step",
        num(o.time_step) + " is longer than explicit." +
            (o.time_step > e.duration ? "duration (" + num(e.duration) : "frame_interval (" + num(e.frame_interval)) +
            "): the steps are shortened to land on every frame, so no step is longer than frame_interval (" +
            num(e.frame_interval) + "); give time_step <= frame_interval (or 0: safety x the stable limit)");
    (void)step_count(m, "duration", e.duration, "time_step", o.time_step, kMaxExplicitSteps,
                     "give a longer time_step (or 0: safety x the stable limit) or a shorter duration");
  }
  o.safety = m.number("safety", o.safety);
  require(std::isfinite(o.safety) && o.safety > 0 && o.safety <= 1, m, "safety", "must lie in (0, 1]");
  o.force_time_step = m.boolean("force_time_step", false);
  o.mass_damping = m.number("mass_damping", 0.0);
  require(std::isfinite(o.mass_damping) && o.mass_damping >= 0, m, "mass_damping", "alpha must be >= 0 (1/s)");
  o.global_damping = m.number("global_damping", 0.0);
  require(std::isfinite(o.global_damping) && o.global_damping >= 0, m, "global_damping",
          "must be >= 0 (N s/m per DOF)");
  if (m.has("network")) {
    if (e.model != SceneExplicit::Model::NodeNetwork)
      fail(m.key_where("network"), "explicit.network: applies to model: node_network only");
    parse_network_options(m, path, e.network);
    e.network_options = true;
  }
  return e;
}

void check_explicit(Scene& scene) {
  SceneExplicit& e = scene.explicit_dynamics;
  const auto refuse = [&](bool present, const std::string& what) {
    if (present)
      fail(e.where, "explicit: " + what +
                        " cannot be combined with explicit time integration; remove it, or use "
                        "dynamics: (implicit) instead of explicit:");
  };
  refuse(scene.dynamics.enabled, "a dynamics: section (implicit time integration)");
  refuse(scene.inverse.enabled, "an inverse: section");
  refuse(scene.contact.enabled, "a contact: section");
  refuse(!scene.prescribed.empty(), "prescribed displacements (fix those nodes with fixed:)");
  refuse(!scene.cables.empty(), "loads.cable");
  for (const ScenePressure& p : scene.pressures)
    if (!p.file.empty())
      fail(p.where, "loads.pressure '" + p.name +
                        "': a cavity embedded from a file is not supported by explicit: "
                        "give the cavity as a surface group of the mesh");
  if (scene.mesh.source == SceneMesh::Source::Network) {  // the network file's nodes carry the masses
    if (e.density >= 0)
      fail(e.where,
           "explicit.density: the body is a node network (mesh.network), whose nodes carry their masses; "
           "remove density");
  } else if (e.density < 0) {
    if (!scene.gravity.enabled) fail(e.where, "explicit: give the mass density (explicit.density, e.g. 1070 kg/m^3)");
    e.density = scene.gravity.density;
  } else if (scene.gravity.enabled && scene.gravity.density != e.density) {
    fail(scene.gravity.where, "loads.gravity.density (" + std::to_string(scene.gravity.density) +
                                  ") differs from explicit.density (" + std::to_string(e.density) +
                                  "); the weight and the inertia come from one density: give it once");
  }
  if (e.model == SceneExplicit::Model::NodeNetwork)
    check_network_model(scene, e.where, "explicit", e.network_options, e.density, e.network);
}

}  // namespace softik::scene_detail
