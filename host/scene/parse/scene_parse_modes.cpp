// The `modes:` section (docs/scene-format.md, "modes"): natural frequencies of the unloaded body.
#include <cmath>

#include "host/scene/parse/scene_yaml.hpp"

namespace softik::scene_detail {

SceneModes parse_modes(const YAML::Node& node, const std::string& path, const Scene& scene, const Map& root) {
  const Map m(node, path, "modes", {"count", "shift", "density", "mass", "tolerance", "max_iterations"});
  SceneModes s;
  s.enabled = true;
  s.where = m.where();
  ModesOptions& o = s.options;
  o.count = m.integer("count", o.count);
  if (o.count < 1 || o.count > 1000)
    fail(m.where("count"), "modes.count: must be in [1, 1000] (the lowest modes, or those nearest shift)");
  o.shift = m.number("shift", o.shift);
  if (!std::isfinite(o.shift)) fail(m.where("shift"), "modes.shift: must be a finite number (lambda = omega^2)");
  if (m.has("density"))
    o.density = m.number("density", o.density);
  else if (scene.gravity.enabled)
    o.density = scene.gravity.density;
  else
    fail(m.where(), "modes: give the mass density (modes.density, e.g. 1070 kg/m^3)");
  if (!(o.density > 0) || !std::isfinite(o.density))
    fail(m.has("density") ? m.where("density") : m.where(), "modes.density: must be > 0");
  o.lumped_mass = m.choice("mass", {"consistent", "lumped"}, 0) == 1;
  o.tolerance = m.number("tolerance", o.tolerance);
  if (!(o.tolerance > 0 && o.tolerance < 1)) fail(m.where("tolerance"), "modes.tolerance: must be in (0, 1)");
  o.max_iterations = m.integer("max_iterations", o.max_iterations);
  if (o.max_iterations < 1) fail(m.where("max_iterations"), "modes.max_iterations: must be >= 1");
  for (const char* key : {"inverse", "dynamics", "explicit", "continuation", "contact", "prescribed"})
    if (root.has(key))
      fail(root.key_where(key), std::string(key) +
                                    ": with modes: the run computes the natural modes of the unloaded body; "
                                    "remove one of the two (a scene is one kind of run)");
  if (root.has("loads") && (!scene.pressures.empty() || !scene.forces.empty() || !scene.cables.empty()))
    fail(root.key_where("loads"),
         "loads: with modes: the modes are those of the unloaded body at rest (a "
         "loaded state's modes are not computed); remove the loads (loads.gravity may "
         "stay for its density)");
  if (scene.mesh.source == SceneMesh::Source::Network)
    fail(m.where(), "modes: need cells (a mesh), not a node network file");
  return s;
}

}  // namespace softik::scene_detail
