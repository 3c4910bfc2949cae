// The cross-checks of a scene's sections with each other (parse_root, scene_parse.cpp, calls
// them once every section is read): one law per model, inverse problems with contact, dynamics
// with contact and control, the averaged dilatation of a node network, the number of .vtu files.
#include <algorithm>
#include <cmath>
#include <string>

#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik::scene_detail {

namespace {

constexpr int kMaxFrames = 100000;  ///< .vtu files one run may write

/// Contact inside a static inverse problem has no free parts, and force targets need contact with
/// the obstacle they name.
void check_inverse_contact(const Scene& scene, const Map& m) {
  if (scene.contact.enabled && scene.inverse.enabled && !scene.dynamics.enabled && scene.contact.options.between_parts)
    fail(m.key_where("contact"),
         "contact.between_parts: a static inverse problem cannot hold a free part (it has no "
         "equilibrium without inertia); add a dynamics: section, or fix the other part");
  for (const SceneForceTarget& t : scene.inverse.force_targets) {
    std::string known;
    bool found = false;
    for (const SceneObstacle& o : scene.contact.obstacles) {
      known += (known.empty() ? "'" : ", '") + o.obstacle.name + "'";
      found = found || o.obstacle.name == t.target.obstacle;
    }
    if (!found)
      fail(t.where,
           "inverse.force_targets '" + t.target.name + "': no contact obstacle is named '" + t.target.obstacle + "' (" +
               (known.empty() ? std::string("the scene has no contact.obstacles") : "obstacles: " + known) + ")");
    if (scene.inverse.options.method == InverseMethod::GaussSeidel)
      fail(t.where,
           "inverse.force_targets: need the QP method (inverse.method: qp); Gauss-Seidel sweeps over the "
           "actuators only");
  }
}

}  // namespace

/// The cross-checks of dynamics: and contact: with the rest of the scene.
void check_dynamics(Scene& scene, const Map& m) {
  if (scene.explicit_dynamics.enabled) return check_explicit(scene);
  check_inverse_contact(scene, m);
  if (!scene.dynamics.enabled) {
    if (scene.contact.enabled && !scene.inverse.enabled)
      fail(m.key_where("contact"),
           "contact: is solved in the dynamic loop or inside an inverse problem; add a "
           "dynamics: section (dt, duration) or an inverse: section");
    if (!scene.gravity.over_time.times.empty())
      fail(scene.gravity.where, "loads.gravity.over_time: a function of time needs a dynamics: section");
    if (!scene.cables.empty())
      fail(scene.cables.front().where,
           "loads.cable '" + scene.cables.front().name +
               "': a cable load is applied in the dynamic loop (add a dynamics: section); a "
               "static scene drives a cable as an inverse actuator with a fixed force "
               "(inverse.actuators: type: cable, force: value)");
    for (const ScenePressure& p : scene.pressures)
      if (!p.over_time.times.empty())
        fail(p.where, "loads.pressure '" + p.name +
                          "': over_time is a function of time and needs a dynamics: section; "
                          "a static run ramps the value by solver.load_steps");
    return;
  }
  if (scene.inverse.enabled) {  // control in the loop: one real-time step per time step
    const SceneInverse& inv = scene.inverse;
    if (inv.mode != SceneInverse::Mode::RealTime)
      fail(inv.where,
           "inverse.mode: converged solves are static; with dynamics: the inverse problem is solved once per "
           "time step (mode: realtime, the default)");
    if (inv.options.actuator_stiffness)
      fail(inv.where,
           "inverse.actuator_stiffness: with dynamics: the actuators' stiffness is always in the time "
           "step's tangent; remove the key");
    if (inv.options.reuse_factorization > 0)
      fail(inv.where,
           "inverse.reuse_factorization: with dynamics: each time step factorises its own tangent; remove "
           "the key");
    if (!inv.force_targets.empty())
      fail(inv.force_targets.front().where,
           "inverse.force_targets: contact force targets are solved in static inverse problems (remove dynamics:); in "
           "the dynamic loop the approach to the obstacle and the impact are not controlled yet");
  }
  if (!scene.prescribed.empty())
    fail(scene.prescribed.front().selection.where,
         "prescribed: prescribed displacements are not applied over time; "
         "fix those nodes and move them with a motion (fixed: {..., motion: {path: ...}}), or move an obstacle "
         "along a path instead");
  DynamicsOptions& o = scene.dynamics.options;
  if (o.density < 0) {
    if (!scene.gravity.enabled)
      fail(scene.dynamics.where, "dynamics: give the mass density (dynamics.density, e.g. 1070 kg/m^3)");
    o.density = scene.gravity.density;
  } else if (scene.gravity.enabled && scene.gravity.density != o.density) {
    fail(scene.gravity.where, "loads.gravity.density (" + std::to_string(scene.gravity.density) +
                                  ") differs from dynamics.density (" + std::to_string(o.density) +
                                  "); the weight and the inertia come from one density: give it once");
  }
}

/// Refuses a scene that would write more than kMaxFrames .vtu files (a run writes one every
/// outputs.every steps, and the last), naming the keys that set the count.
void check_output_volume(const Scene& scene, const Map& m) {
  if (!scene.outputs.vtu) return;
  double steps = scene.solver.newton.load_steps;
  std::string from = "solver.load_steps = " + std::to_string(scene.solver.newton.load_steps);
  if (scene.dynamics.enabled) {
    steps = scene.dynamics.steps;
    from = "dynamics.duration / dynamics.dt = " + std::to_string(scene.dynamics.steps) + " steps";
  } else if (scene.continuation.enabled) {
    steps = scene.continuation.options.max_steps;
    from = "continuation.max_steps = " + std::to_string(scene.continuation.options.max_steps);
  } else if (scene.explicit_dynamics.enabled) {
    steps = scene.explicit_dynamics.frames;
    from =
        "explicit.duration / explicit.frame_interval = " + std::to_string(scene.explicit_dynamics.frames) + " frames";
  } else if (scene.inverse.enabled) {
    size_t goals = 1;
    for (const SceneEffector& e : scene.inverse.effectors)
      goals = std::max(goals, e.type == SceneEffector::Type::Position ? e.goals.size() : e.volumes.size());
    const bool realtime = scene.inverse.mode == SceneInverse::Mode::RealTime;
    steps = static_cast<double>(goals) * (realtime ? scene.inverse.steps_per_target : 1);
    from = std::to_string(goals) + " goals" +
           (realtime ? " x inverse.steps_per_target = " + std::to_string(scene.inverse.steps_per_target) : "");
  }
  const double frames = std::ceil(steps / scene.outputs.every) + 1;  // and the rest state
  if (frames > kMaxFrames)
    fail(m.has("outputs")        ? m.where("outputs")
         : m.has("inverse")      ? m.where("inverse")
         : m.has("continuation") ? m.where("continuation")
         : m.has("solver")       ? m.where("solver")
                                 : m.where(),
         "outputs: " + from + " with outputs.every = " + std::to_string(scene.outputs.every) + " would write " +
             std::to_string(static_cast<long long>(frames)) + " .vtu files (cap " + std::to_string(kMaxFrames) +
             "); raise outputs.every or set outputs.vtu: false");
}

void check_laws(const Scene& scene) {
  const SceneMaterial& first = scene.materials.front();
  for (size_t i = 1; i < scene.materials.size(); ++i)
    if (scene.materials[i].law != first.law)
      fail(scene.materials[i].where,
           item("materials", i) + ": law '" + scene.materials[i].law + "' differs from materials[0]'s '" + first.law +
               "' (" + first.where.str() +
               "); all regions must use one law (the Assembler runs one law per model), with different parameters "
               "if needed");
  for (size_t i = 1; i < scene.materials.size(); ++i)  // neo_hookean_decoupled: D1 form or another U(J)
    if (scene.materials[i].material.index() != first.material.index())
      fail(scene.materials[i].where, item("materials", i) + ": its volumetric term differs from materials[0]'s (" +
                                         first.where.str() + "); law '" + first.law +
                                         "' takes one volumetric form per model: give every region the same");
  if (scene.formulation != Formulation::Hyperelastic && first.law != "linear")
    fail(scene.formulation_where, std::string("formulation '") +
                                      (scene.formulation == Formulation::Corotational ? "corotational" : "linear") +
                                      "' needs law 'linear', but materials[0] (" + first.where.str() + ") uses '" +
                                      first.law + "'; use formulation: hyperelastic, or law: linear");
  if (scene.dilatation != fem::Dilatation::Pointwise) {
    const std::string mode = scene.dilatation == fem::Dilatation::CellMean ? "cell_mean" : "nodal_mean";
    if (scene.formulation == Formulation::Corotational)
      fail(scene.dilatation_where, "dilatation: " + mode +
                                       " needs formulation: hyperelastic or linear, not corotational (the averaged "
                                       "volume is defined for the total-Lagrangian element); change the formulation "
                                       "or remove the dilatation key");
    if (first.law == "saint_venant_kirchhoff")
      fail(scene.dilatation_where, "dilatation: " + mode + " needs a law with a bulk term, and materials[0] (" +
                                       first.where.str() +
                                       ") uses 'saint_venant_kirchhoff', whose lambda term is not a function of the "
                                       "volume; use neo_hookean or another law");
  }
}

/// A body run as a node network built from its mesh (explicit: or continuation: with model:
/// node_network) has links and volume terms, no elements: a `dilatation:` key would be ignored.
void check_network_dilatation(const Scene& scene, const Map& m) {
  if (!m.has("dilatation")) return;
  std::string section;
  if (scene.explicit_dynamics.enabled && scene.explicit_dynamics.model == SceneModel::NodeNetwork) section = "explicit";
  if (scene.continuation.enabled && scene.continuation.model == SceneModel::NodeNetwork) section = "continuation";
  if (section.empty()) return;
  fail(m.key_where("dilatation"),
       "dilatation: the body runs as a node network (" + section +
           ".model: node_network), whose links and volume "
           "terms are calibrated to the material's E and nu; the element's averaged dilatation does not apply to it. "
           "Remove dilatation, or use " +
           section + ".model: fem");
}

}  // namespace softik::scene_detail
