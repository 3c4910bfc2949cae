// Node-network bodies in scenes (issue 17): a network read from a YAML list (mesh: {network:})
// followed through its snap-through by continuation: (the star dome example against its closed
// form), the same network settling under gravity in explicit:, a network built from the mesh
// under continuation: against bar theory (E and nu, with volume terms above 1/4), and the
// refusals that name their keys.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "softik/scene.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

const fs::path kStarDome = fs::path(SOFTIK_SOURCE_DIR) / "examples" / "star_dome" / "star_dome.yaml";

// The star dome's closed form (examples/star_dome/star_dome.yaml): apex height w, n = 3 bars of
// k = 1000 N/m from the unit circle, rest height 0.2: P(w) = n k (L - l) w / l.
Real dome_load(Real w) {
  const Real L = std::sqrt(1.04), l = std::sqrt(1 + w * w);
  return 3 * 1000 * (L - l) * w / l;
}

TEST(SceneNetwork, TheStarDomeSnapsThroughAlongItsClosedFormWithBothLimitPoints) {
  const Scene scene = parse_scene(kStarDome.string());
  const fs::path out = fresh_dir("network_star_dome");
  const SceneRunResult r = run_scene(scene, {out.string(), nullptr, nullptr});
  const ContinuationRunSummary& c = r.continuation;
  EXPECT_EQ(c.status, "reached max_load_factor") << c.message;
  EXPECT_EQ(unmet_goals(r), "");
  EXPECT_EQ(c.nodes, 4);
  EXPECT_EQ(c.links, 3);
  // The extrema of the closed form: l*^3 = L a^2, w* = sqrt(l*^2 - 1), P* = P(w*).
  const Real l_star = std::cbrt(std::sqrt(1.04)), w_star = std::sqrt(l_star * l_star - 1), P_star = dome_load(w_star);
  ASSERT_EQ(c.limits.size(), 2u);
  EXPECT_NEAR(c.limits[0].load_factor * 10, P_star, 1e-4 * P_star);
  EXPECT_NEAR(c.limits[1].load_factor * 10, -P_star, 1e-4 * P_star);
  EXPECT_NEAR(c.limits[0].displacement, w_star - 0.2, 1e-3);
  EXPECT_NEAR(c.limits[1].displacement, -w_star - 0.2, 1e-3);
  const auto rows = read_csv(out / "star_dome.csv");
  ASSERT_GT(rows.size(), 20u);
  Real worst = 0;
  for (size_t k = 1; k < rows.size(); ++k) {
    const Real w = 0.2 + std::stod(rows[k][2]), lambda = std::stod(rows[k][1]);  // monitor: uz of the apex
    worst = std::max(worst, std::abs(10 * lambda - dome_load(w)));
    if (std::abs(std::abs(w) - w_star) > 2e-3) {
      EXPECT_EQ(rows[k][4], std::abs(w) < w_star ? "1" : "0") << "row " << k;
    }
  }
  EXPECT_LT(worst, 1e-8);
  EXPECT_NEAR(0.2 + r.probes.at(0).displacement[2], -0.259343, 1e-6);  // lambda = 1 on the inverted branch
  EXPECT_TRUE(fs::exists(out / "star_dome_path.svg"));
  const std::string vtu = read_file(out / "star_dome_0000.vtu");
  EXPECT_NE(vtu.find("Name=\"tension\""), std::string::npos);
  EXPECT_NE(vtu.find("NumberOfCells=\"3\""), std::string::npos);
}

// The star dome's network under its weight, damped: the apex (0.01 kg) settles where
// P(w) = m g, found here by bisection.
TEST(SceneNetwork, ANetworkFileSettlesUnderGravityInExplicitDynamics) {
  const fs::path dir = fresh_dir("network_explicit");
  fs::copy_file(kStarDome.parent_path() / "star_dome.network.yaml", dir / "dome.network.yaml");
  const std::string yaml = R"(name: dome_drop
mesh: {network: dome.network.yaml}
fixed: [{group: supports}]
loads:
  gravity: {g: [0, 0, -9.81]}
explicit:
  model: node_network
  duration: 2.0
  frame_interval: 0.5
  mass_damping: 20
outputs:
  every: 1
  probes: [{name: apex, point: [0, 0, 0.2]}]
)";
  write_file(dir / "drop.yaml", yaml);
  const SceneRunResult r =
      run_scene(parse_scene((dir / "drop.yaml").string()), {(dir / "out").string(), nullptr, nullptr});
  Real lo = 0.15, hi = 0.2;  // P(w) = m g on the upper branch, below the rest height
  for (int it = 0; it < 200; ++it) {
    const Real mid = 0.5 * (lo + hi);
    (dome_load(mid) > 0.01 * 9.81 ? lo : hi) = mid;
  }
  const Real settled = 0.5 * (lo + hi) - 0.2;
  ASSERT_EQ(r.probes.size(), 1u);
  std::printf("star dome under its weight: apex settles at %.6g m (closed form %.6g m)\n", r.probes[0].displacement[2],
              settled);
  EXPECT_NEAR(r.probes[0].displacement[2], settled, 1e-3 * std::abs(settled));
  EXPECT_EQ(r.explicit_dynamics.links, 3);
  const std::string svg = read_file(r.explicit_dynamics.svg_path);
  EXPECT_NE(svg.find("dome_drop: probe displacements"), std::string::npos);
  EXPECT_NE(svg.find("dome_drop: energies"), std::string::npos);
}

// A bar of 1 x 1 x 6 cubes (Hex8) built into a network, on symmetry rollers at x = 0, y = 0,
// z = 0, pulled at x = L by F (a quarter at each corner of the end face: the consistent load of
// a uniform stress): the lattice's patch test makes the stretch uniform, eps = F / (E A), and
// the contraction -nu eps, for nu = 1/4 (links only) and nu = 0.45 (with volume terms).
TEST(SceneNetwork, AMeshBuiltNetworkUnderContinuationIsABarOfModulusEAndRatioNu) {
  for (const char* nu : {"0.25", "0.45"}) {
    const std::string yaml = std::string(R"(name: bar
mesh: {generator: {type: box, size: [0.06, 0.01, 0.01], cells: [6, 1, 1], cell_type: hex8}}
materials: [{law: linear, young: 1.0e6, poisson: )") +
                             nu + R"(}]
fixed:
  - {plane: {point: [0, 0, 0], normal: [1, 0, 0]}, components: [x]}
  - {plane: {point: [0, 0, 0], normal: [0, 1, 0]}, components: [y]}
  - {plane: {point: [0, 0, 0], normal: [0, 0, 1]}, components: [z]}
loads:
  forces: [{plane: {point: [0.06, 0, 0], normal: [1, 0, 0]}, force: [0.01, 0, 0]}]
continuation:
  model: node_network
  initial_arc: 1.0e-7
  max_arc: 1.0e-6
  residual_tolerance: 1.0e-9
outputs:
  probes: [{name: corner, point: [0.06, 0.01, 0.01]}]
)";
    const fs::path out = fresh_dir(std::string("network_bar_") + nu);
    const SceneRunResult r =
        run_scene(parse_scene_string(yaml, (out / "bar.yaml").string()), {out.string(), nullptr, nullptr});
    EXPECT_EQ(r.continuation.status, "reached max_load_factor") << r.continuation.message;
    EXPECT_EQ(r.continuation.volume_cells > 0, std::string(nu) == "0.45");
    const Real eps = 0.01 / (1e6 * 1e-4), n = std::stod(nu);
    const std::array<Real, 3> u = r.probes.at(0).displacement;
    std::printf("network bar nu %s: end stretch %.6g (F/EA %.6g), lateral %.6g (-nu eps %.6g)\n", nu, u[0] / 0.06, eps,
                u[1] / 0.01, -n * eps);
    EXPECT_NEAR(u[0] / 0.06, eps, 2e-3 * eps);  // the geometric nonlinearity at eps = 1e-4
    EXPECT_NEAR(u[1] / 0.01, -n * eps, 2e-3 * eps);
    EXPECT_NEAR(u[2] / 0.01, -n * eps, 2e-3 * eps);
  }
}

/// The error of building a scene in `dir` (a network file beside it) from `yaml`.
std::string network_scene_error(const fs::path& dir, const std::string& yaml) {
  write_file(dir / "s.yaml", yaml);
  try {
    (void)build_scene(parse_scene((dir / "s.yaml").string()));
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SceneNetwork, BadNetworkScenesAreErrorsNamingTheirKeys) {
  const fs::path dir = fresh_dir("network_errors");
  fs::copy_file(kStarDome.parent_path() / "star_dome.network.yaml", dir / "dome.network.yaml");
  const std::string head =
      "mesh: {network: dome.network.yaml}\nfixed: [{group: supports}]\n"
      "loads: {forces: [{group: apex, force: [0, 0, -1]}]}\n";
  const std::string cont = "continuation: {model: node_network, initial_arc: 0.001}\n";
  auto expect = [&](const std::string& yaml, const std::string& words) {
    const std::string e = network_scene_error(dir, yaml);
    EXPECT_NE(e.find(words), std::string::npos) << "expected '" << words << "' in: " << e;
    EXPECT_NE(e.find("s.yaml:"), std::string::npos) << e;
  };
  EXPECT_EQ(network_scene_error(dir, head + cont), "(no error)");
  expect(head + cont + "materials: [{law: linear, young: 1, poisson: 0.3}]\n", "materials: the body is a node network");
  expect(head, "mesh.network: the body is a node network, which runs under explicit: or continuation:");
  expect(head + "continuation: {initial_arc: 0.001}\n", "this scene asks for continuation: with model fem");
  expect(head + "continuation: {model: node_network, initial_arc: 0.001, network: {body_diagonals: true}}\n",
         "continuation.network: the body is the network file's");
  expect(head + "continuation: {initial_arc: 0.001, network: {body_diagonals: true}}\n",
         "continuation.network: applies to model: node_network only");
  expect(head + "explicit: {model: node_network, duration: 1, frame_interval: 0.1, density: 1000}\n",
         "explicit.density: the body is a node network");
  expect("mesh: {network: dome.network.yaml}\nfixed: [{group: supports}]\nloads: {gravity: {density: 1000}}\n" + cont,
         "loads.gravity.density: the body is a node network");
  expect(head + cont + "outputs: {probes: [{name: p, point: [0.5, 0.5, 0.5]}]}\n",
         "outputs.probes 'p': no node of the network");
  expect("mesh: {network: missing.network.yaml}\n" + cont + "fixed: [{group: supports}]\n" +
             "loads: {forces: [{group: apex, force: [0, 0, -1]}]}\n",
         "missing.network.yaml");
  expect("mesh: {network: dome.network.yaml, scale: 2}\n" + cont, "mesh.scale: applies to mesh files only");
  // A mesh-built network needs one linear material with 1/4 <= nu < 1/2.
  const std::string box =
      "mesh: {generator: {type: box, cells: [2, 1, 1], cell_type: hex8}}\n"
      "fixed: [{plane: {point: [0, 0, 0], normal: [1, 0, 0]}}]\n"
      "loads: {forces: [{plane: {point: [1, 0, 0], normal: [1, 0, 0]}, force: [1, 0, 0]}]}\n";
  expect(box + "materials: [{law: linear, young: 1.0e6, poisson: 0.2}]\n" + cont, "Cauchy relation");
  expect(box + "materials: [{law: neo_hookean, young: 1.0e6, poisson: 0.3}]\n" + cont,
         "continuation.model node_network: give one material of law linear");
}

}  // namespace
}  // namespace softik
