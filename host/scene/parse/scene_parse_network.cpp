// The node-network body of a scene (docs/scene-format.md, "Node networks"): the options of a
// network built from the mesh (`explicit.network:`, `continuation.network:`), its calibration to
// the one linear material, and the rules for a network read from a file (mesh: {network: ...}).
#include <cmath>
#include <variant>

#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik::scene_detail {

namespace {

void require(bool ok, const Map& m, const std::string& key, const std::string& message) {
  if (!ok) fail(m.where(key), m.name(key) + ": " + message);
}

}  // namespace

void parse_network_options(const Map& section, const std::string& path, NetworkFromMesh& n) {
  const Map m(section.at("network"), path, section.name("network"),
              {"face_diagonals", "body_diagonals", "cubic_hardening", "dashpot_time"});
  n.face_diagonals = m.boolean("face_diagonals", n.face_diagonals);
  n.body_diagonals = m.boolean("body_diagonals", n.body_diagonals);
  n.cubic_hardening = m.number("cubic_hardening", n.cubic_hardening);
  require(std::isfinite(n.cubic_hardening) && n.cubic_hardening >= 0, m, "cubic_hardening",
          "must be >= 0 (k3 = cubic_hardening k / L^2; 0: linear springs)");
  n.dashpot_time = m.number("dashpot_time", n.dashpot_time);
  require(std::isfinite(n.dashpot_time) && n.dashpot_time >= 0, m, "dashpot_time",
          "must be >= 0 seconds (each link's dashpot c = dashpot_time k)");
}

void check_network_model(const Scene& scene, const SceneLocation& where, const std::string& section, bool has_options,
                         Real density, NetworkFromMesh& n) {
  if (scene.mesh.source == SceneMesh::Source::Network) {
    if (has_options)
      fail(where, section +
                      ".network: the body is the network file's (mesh.network), whose links carry their own "
                      "stiffness; remove " +
                      section + ".network");
    return;
  }
  // Built from the mesh: links for the shear modulus and, above nu = 1/4, the cells' volume
  // terms for lambda (node_network.hpp), from the one linear material (E, nu).
  const SceneMaterial& first = scene.materials.front();
  if (scene.materials.size() != 1 || first.law != "linear")
    fail(first.where, section +
                          ".model node_network: give one material of law linear (young, poisson in [0.25, 0.5)); "
                          "the network's links and volume terms are calibrated to it");
  const fem::LinearElastic& law = std::get<fem::LinearElastic>(first.material);
  const Real E = law.mu * (3 * law.lambda + 2 * law.mu) / (law.lambda + law.mu);
  const Real nu = law.lambda / (2 * (law.lambda + law.mu));
  if (nu < 0.25 - 1e-9)
    fail(first.where, "materials[0]: poisson " + std::to_string(nu) +
                          " cannot be matched by a node network: central-force links obey the Cauchy relation "
                          "C12 = C44 (Poisson's ratio 1/4), and the volume terms that raise the ratio add to lambda "
                          "only (a lower ratio would need a negative volume stiffness). Give 0.25 <= poisson < 0.5, "
                          "or model: fem for a lower ratio");
  n.youngs_modulus = E;
  n.poissons_ratio = std::abs(nu - 0.25) <= 1e-9 ? 0.25 : nu;  // 1/4 up to the conversion's round-off
  n.density = density;
}

void check_network_file_scene(const Scene& scene) {
  if (scene.mesh.source != SceneMesh::Source::Network) return;
  const bool explicit_network =
      scene.explicit_dynamics.enabled && scene.explicit_dynamics.model == SceneModel::NodeNetwork;
  const bool continuation_network = scene.continuation.enabled && scene.continuation.model == SceneModel::NodeNetwork;
  if (explicit_network || continuation_network) return;
  std::string run = "a static load ramp";
  SceneLocation where = scene.mesh.where;
  if (scene.explicit_dynamics.enabled) run = "explicit: with model fem", where = scene.explicit_dynamics.where;
  if (scene.continuation.enabled) run = "continuation: with model fem", where = scene.continuation.where;
  if (scene.dynamics.enabled) run = "dynamics: (implicit FEM time integration)", where = scene.dynamics.where;
  if (scene.inverse.enabled) run = "inverse:", where = scene.inverse.where;
  fail(where,
       "mesh.network: the body is a node network, which runs under explicit: or continuation: with model: "
       "node_network; this scene asks for " +
           run + ", which needs an FEM mesh (mesh: {file: ...} or a generator)");
}

}  // namespace softik::scene_detail
