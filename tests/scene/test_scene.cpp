// Scenes (scene.hpp): a full scene parsed and built into the solver's objects, malformed scenes
// rejected with the scene's line:column and the key/type at fault, an end-to-end run checked
// through its CSV/.pvd/.vtu outputs, and the CLI's exit status.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/scene.hpp"
#include "tests/mesh_helpers.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

// A box [0, 0.04] x [0, 0.01] x [0, 0.01] of 4 x 1 x 1 Hex8: 20 nodes, x planes of 4 nodes.
const std::string kFull = R"(name: full_scene
description: every feature that needs no extra file
mesh:
  generator: {type: box, size: [0.04, 0.01, 0.01], cells: [4, 1, 1], cell_type: hex8}
formulation: hyperelastic
materials:
  - law: neo_hookean
    young: 1.0e5
    poisson: 0.45
fixed:
  - group: xmin
  - box: {min: [0.01, 0, 0], max: [0.01, 0.01, 0]}
    components: [z]
prescribed:
  - plane: {point: [0.04, 0, 0], normal: [1, 0, 0]}
    components: [x]
    displacement: [0.002, 0, 0]
loads:
  gravity: {density: 1000, g: [0, 0, -9.81]}
  forces:
    - nodes: [1, 2]
      force: [0, 0, -2]
solver:
  load_steps: 3
  max_iterations: 20
  residual_tolerance: 1.0e-9
  increment_tolerance: 1.0e-13
  max_step_cuts: 2
  line_search: energy
  pressure_stiffness: false
  chord_contraction: 0.3
  krylov_iterations: 7
  krylov_tolerance: 1.0e-8
  extrapolate: false
  linear_solver: eigen
  threads: 1
outputs:
  vtu: false
  every: 2
  probes:
    - {name: mid, point: [0.02, 0.005, 0.005]}
)";

TEST(Scene, FullSceneParsesAndBuilds) {
  const Scene scene = parse_scene_string(kFull, "dir/full.yaml");
  EXPECT_EQ(scene.name, "full_scene");
  EXPECT_EQ(scene.mesh.source, SceneMesh::Source::Box);
  EXPECT_EQ(scene.solver.newton.load_steps, 3);
  EXPECT_EQ(scene.solver.newton.line_search, LineSearch::Energy);
  EXPECT_EQ(scene.solver.linear_solver, LinearSolverKind::EigenLDLT);
  EXPECT_EQ(scene.outputs.every, 2);
  ASSERT_EQ(scene.fixed.size(), 2u);
  EXPECT_EQ(scene.fixed[1].where.str(), "dir/full.yaml:12:5");

  const BuiltScene built = build_scene(scene);
  ASSERT_EQ(built.mesh.num_nodes(), 20);
  // xmin: 4 nodes x 3 DOFs; the box (x = 0.01, z = 0): 2 nodes, z only; x = 0.04: 4 nodes, x only.
  long fixed = 0;
  for (char f : built.fixed_dofs) fixed += f != 0;
  EXPECT_EQ(fixed, 12 + 2 + 4);
  for (int n = 0; n < built.mesh.num_nodes(); ++n) {
    const Real* X = &built.mesh.X[3 * static_cast<size_t>(n)];
    if (X[0] == 0.01 && X[2] == 0) {
      EXPECT_FALSE(built.fixed_dofs[3 * static_cast<size_t>(n) + 0]);
      EXPECT_TRUE(built.fixed_dofs[3 * static_cast<size_t>(n) + 2]);
    }
  }
  ASSERT_EQ(built.loads.prescribed.size(), 4u);
  for (const PrescribedDisplacement& p : built.loads.prescribed) {
    EXPECT_EQ(p.dof % 3, 0);
    EXPECT_NEAR(built.mesh.X[static_cast<size_t>(p.dof)], 0.04, 1e-15);
    EXPECT_EQ(p.value, 0.002);
    EXPECT_TRUE(built.fixed_dofs[static_cast<size_t>(p.dof)]);
  }

  ASSERT_EQ(built.materials.size(), 4u);  // one per cell
  const fem::NeoHookean expected = fem::NeoHookean::from_young_poisson(1e5, 0.45);
  for (const Material& m : built.materials) {
    ASSERT_TRUE(std::holds_alternative<fem::NeoHookean>(m));
    EXPECT_DOUBLE_EQ(std::get<fem::NeoHookean>(m).mu, expected.mu);
    EXPECT_DOUBLE_EQ(std::get<fem::NeoHookean>(m).lambda, expected.lambda);
  }

  // Nodal loads: the total force (split over nodes 1 and 2) plus gravity rho g V.
  ASSERT_EQ(built.loads.nodal.size(), 60u);
  Real total[3] = {0, 0, 0};
  for (size_t k = 0; k < 60; ++k) total[k % 3] += built.loads.nodal[k];
  EXPECT_NEAR(total[0], 0, 1e-15);
  EXPECT_NEAR(total[2], -2 - 1000 * 9.81 * 0.04 * 0.01 * 0.01, 1e-12);
  EXPECT_LT(built.loads.nodal[3 * 1 + 2], -1.0);
  EXPECT_LT(built.loads.nodal[3 * 2 + 2], -1.0);
  EXPECT_TRUE(built.loads.pressures.empty());

  EXPECT_EQ(built.newton.load_steps, 3);
  EXPECT_EQ(built.newton.max_iterations, 20);
  EXPECT_EQ(built.newton.residual_tolerance, 1e-9);
  EXPECT_FALSE(built.newton.pressure_stiffness);
  EXPECT_EQ(built.newton.chord_contraction, 0.3);
  EXPECT_EQ(built.newton.krylov_iterations, 7);
  EXPECT_EQ(built.newton.krylov_tolerance, 1e-8);
  EXPECT_FALSE(built.newton.extrapolate);
  EXPECT_EQ(built.assembler->options().formulation, Formulation::Hyperelastic);

  ASSERT_EQ(built.probes.size(), 1u);
  const BuiltProbe& probe = built.probes[0];
  ASSERT_EQ(probe.nodes.size(), 8u);
  Real weight = 0, x = 0;
  for (size_t k = 0; k < 8; ++k) {
    weight += probe.weights[k];
    x += probe.weights[k] * built.mesh.X[3 * static_cast<size_t>(probe.nodes[k])];
  }
  EXPECT_NEAR(weight, 1, 1e-12);
  EXPECT_NEAR(x, 0.02, 1e-12);
}

/// A Gmsh 2.2 file of the 4 x 1 x 1 Hex8 box with physical volumes "left" (x < 0.02) and "right".
void write_two_region_msh(const fs::path& path) {
  const Mesh box = box_mesh(CellType::Hex8, {4, 1, 1}, {0.04, 0.01, 0.01});
  std::ofstream out(path);
  out << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n3 1 \"left\"\n3 2 \"right\"\n$EndPhysicalNames\n";
  out << "$Nodes\n" << box.num_nodes() << "\n";
  for (int n = 0; n < box.num_nodes(); ++n)
    out << n + 1 << " " << box.X[3 * n] << " " << box.X[3 * n + 1] << " " << box.X[3 * n + 2] << "\n";
  out << "$EndNodes\n$Elements\n" << box.num_cells() << "\n";
  for (int c = 0; c < box.num_cells(); ++c) {
    Real xc = 0;
    for (int a = 0; a < 8; ++a) xc += box.X[3 * static_cast<size_t>(box.cell(c)[a])] / 8;
    out << c + 1 << " 5 2 " << (xc < 0.02 ? 1 : 2) << " 1";
    for (int a = 0; a < 8; ++a) out << " " << box.cell(c)[a] + 1;
    out << "\n";
  }
  out << "$EndElements\n";
}

TEST(Scene, RegionsGetTheirOwnParameters) {
  const fs::path dir = fresh_dir("regions");
  write_two_region_msh(dir / "two.msh");
  write_file(dir / "regions.yaml", R"(mesh: {file: two.msh}
materials:
  - {law: mooney_rivlin, C10: 10000, C01: 2000, D1: 1.0e-5}
  - {region: right, law: mooney_rivlin, young: 3.0e5, poisson: 0.45, c01_share: 0.5}
fixed: [{plane: {point: [0, 0, 0], normal: [1, 0, 0]}}]
)");
  const BuiltScene built = build_scene(parse_scene((dir / "regions.yaml").string()));
  ASSERT_EQ(built.materials.size(), 4u);
  const std::vector<int>& right = built.mesh.cell_groups.at("right");
  for (int c = 0; c < 4; ++c) {
    const auto& m = std::get<fem::MooneyRivlin>(built.materials[static_cast<size_t>(c)]);
    const bool is_right = std::find(right.begin(), right.end(), c) != right.end();
    EXPECT_DOUBLE_EQ(m.C10, is_right ? 3e5 / (2 * 1.45) / 4 : 10000) << "cell " << c;
    EXPECT_DOUBLE_EQ(m.C01, is_right ? 3e5 / (2 * 1.45) / 4 : 2000) << "cell " << c;
  }
  long fixed = 0;
  for (char f : built.fixed_dofs) fixed += f != 0;
  EXPECT_EQ(fixed, 12);
}

/// An ASCII STL box [lo, hi], wound outward (or inward with `inward`).
void write_stl_box(const fs::path& path, const std::array<Real, 3>& lo, const std::array<Real, 3>& hi, bool inward) {
  const Real c[8][3] = {{lo[0], lo[1], lo[2]}, {hi[0], lo[1], lo[2]}, {hi[0], hi[1], lo[2]}, {lo[0], hi[1], lo[2]},
                        {lo[0], lo[1], hi[2]}, {hi[0], lo[1], hi[2]}, {hi[0], hi[1], hi[2]}, {lo[0], hi[1], hi[2]}};
  const int quads[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {2, 3, 7, 6}, {1, 2, 6, 5}, {0, 4, 7, 3}};
  std::ofstream out(path);
  out << "solid cavity\n";
  for (const auto& q : quads)
    for (const auto& t : {std::array<int, 3>{q[0], q[1], q[2]}, std::array<int, 3>{q[0], q[2], q[3]}}) {
      out << "facet normal 0 0 0\nouter loop\n";
      for (int k = 0; k < 3; ++k) {
        const int v = t[static_cast<size_t>(inward ? 2 - k : k)];
        out << "vertex " << c[v][0] << " " << c[v][1] << " " << c[v][2] << "\n";
      }
      out << "endloop\nendfacet\n";
    }
  out << "endsolid cavity\n";
}

TEST(Scene, PressureOnSurfaceGroupAndEmbeddedStl) {
  const fs::path dir = fresh_dir("embedded");
  write_stl_box(dir / "out.stl", {0.004, 0.002, 0.002}, {0.026, 0.010, 0.010}, false);
  write_stl_box(dir / "in.stl", {0.004, 0.002, 0.002}, {0.026, 0.010, 0.010}, true);
  const std::string loads =
      "loads:\n  pressure:\n    - {surface: cavity0, value: 1000}\n"
      "    - {name: drawn, file: out.stl, value: 2000}\n"
      "    - {name: flipped, file: in.stl, value: 3000}\n";
  write_file(dir / "s.yaml", kBlock + loads);
  const BuiltScene built = build_scene(parse_scene((dir / "s.yaml").string()));
  ASSERT_EQ(built.loads.pressures.size(), 3u);
  EXPECT_EQ(built.loads.pressures[0].name, "cavity0");
  EXPECT_TRUE(built.loads.pressures[0].embedding.empty());
  EXPECT_EQ(built.loads.pressures[1].pressure, 2000);
  EXPECT_EQ(built.loads.pressures[1].embedding.nodes_per_vertex, 8);
  EXPECT_EQ(built.loads.pressures[1].embedding.num_vertices(), 8);
  const std::vector<Real> X = built.mesh.rest_positions();
  const Real V = 0.022 * 0.008 * 0.008;
  EXPECT_NEAR(surface_volume(built.loads.pressures[1], built.mesh, X), V, 1e-12 * V);
  EXPECT_NEAR(surface_volume(built.loads.pressures[2], built.mesh, X), V, 1e-12 * V);  // flipped to inflate
  ASSERT_EQ(built.warnings.size(), 1u);
  EXPECT_NE(built.warnings[0].find("s.yaml:14:7: loads.pressure[2] 'flipped'"), std::string::npos) << built.warnings[0];
  EXPECT_NE(built.warnings[0].find("reversed 12 faces"), std::string::npos) << built.warnings[0];

  write_file(dir / "strict.yaml", kBlock + "loads: {pressure: {file: in.stl, value: 1, allow_flip: false}}\n");
  try {
    build_scene(parse_scene((dir / "strict.yaml").string()));
    FAIL() << "an inward-wound cavity with allow_flip: false was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind((dir / "strict.yaml").string() + ":10:19: loads.pressure[0] 'in'", 0), 0u)
        << e.what();
  }
}

struct Malformed {
  const char* text;
  const char* token;                 ///< where the error must point (its first occurrence)
  std::vector<std::string> message;  ///< parts the message must contain
  bool at_build = false;             ///< found by build_scene, not by the parser
};

const std::string kBase =
    "mesh: {generator: {type: box, size: [0.04, 0.01, 0.01], cells: [4, 1, 1]}}\n"
    "materials: [{law: neo_hookean, young: 1.0e5, poisson: 0.45}]\n"
    "fixed: [{group: xmin}]\n";

TEST(Scene, MalformedScenesNameLineColumnAndKey) {
  const std::vector<Malformed> cases = {
      {"solvr: {load_steps: 2}\n",
       "solvr",
       {"unknown key 'solvr' in the scene", "allowed keys: name, description, mesh, formulation, materials"}},
      {"solver:\n  load_steps: ten\n", "ten", {"solver.load_steps: expected an integer, got 'ten'"}},
      {"loads:\n  pressure:\n    - surface: cavity\n      valeu: 20000\n",
       "valeu",
       {"unknown key 'valeu' in loads.pressure[0]", "allowed keys: name, surface, file, scale"}},
      {"loads:\n  pressure:\n    - surface: cavity\n",
       "surface: cavity",
       {"loads.pressure[0]: missing required key 'value'"}},
      {"formulation: corotational\n", "corotational", {"formulation 'corotational' needs law 'linear'"}},
      {"outputs: {vtu: yes}\n", "yes", {"outputs.vtu: expected true or false, got 'yes'"}},
      {"loads: {gravity: {density: 1000, g: [0, -9.81]}}\n",
       "[0, -9.81]",
       {"loads.gravity.g: expected a list of 3 numbers, got 2"}},
      {"prescribed: [{group: xmax, components: [x, w], displacement: [1, 0, 0]}]\n",
       "w]",
       {"prescribed[0].components entry: expected one of: x, y, z, got 'w'"}},
      {"prescribed: [{group: xmax, box: {min: [0, 0, 0], max: [1, 1, 1]}, displacement: [1, 0, 0]}]\n",
       "box: {min",
       {"'group' and 'box' cannot both be given"}},
      {"solver:\n  load_steps: 2\n  load_steps: 3\n", "load_steps: 3", {"duplicate key 'load_steps' in solver"}},
      {"solver: {load_steps: 0}\n", "0}", {"solver.load_steps: must be >= 1, got 0"}},
      {"outputs: {probes: [{name: tip, point: [1, 1, 1]}]}\n", "{name: tip", {"outputs.probes 'tip'"}, true},
      {"loads: {forces: [{group: xmn, force: [0, 0, 1]}]}\n",
       "{group: xmn",
       {"loads.forces[0]: the mesh has no node group 'xmn'", "its node groups: xmax, xmin"},
       true},
      {"loads: {pressure: [{surface: cavity, value: 1}]}\n", "{surface", {"no surface group 'cavity'", "xmax"}, true},
  };
  for (const Malformed& c : cases) {
    const std::string text = kBase + c.text;
    SCOPED_TRACE(text);
    try {
      const Scene scene = parse_scene_string(text, "scene.yaml");
      ASSERT_TRUE(c.at_build) << "parsed without error";
      build_scene(scene);
      FAIL() << "built without error";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("scene.yaml:" + position_of(text, c.token) + ": ", 0), 0u) << message;
      for (const std::string& part : c.message) EXPECT_NE(message.find(part), std::string::npos) << message;
    }
  }
}

TEST(Scene, MalformedMaterialsAndDocuments) {
  const std::string mesh = "mesh: {generator: {type: box}}\n";
  const std::vector<Malformed> cases = {
      {"materials:\n  - young: 1.0e5\n    poisson: 0.45\n", "young", {"materials[0]: missing required key 'law'"}},
      {"materials: [{law: neo_hooke, young: 1.0e5, poisson: 0.45}]\n",
       "neo_hooke",
       {"materials[0].law: expected one of: linear, saint_venant_kirchhoff, neo_hookean"}},
      {"materials: [{law: neo_hookean, young: 1.0e5, poisson: 0.45, lambda: 3}]\n",
       "lambda",
       {"give either young and poisson, or the constants of neo_hookean (lambda, mu)"}},
      {"materials: [{law: neo_hookean, young: 1.0e5, poisson: 0.5}]\n",
       "{law",
       {"materials[0] (neo_hookean)", "Poisson's ratio nu = 0.5 is out of range"}},
      {"materials: [{law: yeoh, C10: 1.0e4}]\n", "{law", {"materials[0]: missing required key 'D1'"}},
      {"materials: [{law: ogden, mu: [1.0e4, 2.0e3], alpha: [2], D1: 1.0e-5}]\n",
       "[2]",
       {"materials[0].alpha: expected as many exponents as moduli (2), got 1"}},
      {"materials:\n  - {law: neo_hookean, young: 1.0e5, poisson: 0.45}\n"
       "  - {region: tip, law: mooney_rivlin, young: 2.0e5, poisson: 0.45}\n",
       "{region",
       {"law 'mooney_rivlin' differs from materials[0]'s 'neo_hookean'", "all regions must use one law"}},
      {"materials: [{law: linear, young: 1.0e5, poisson: 0.3}\n", "materials", {"YAML syntax error"}},
  };
  for (const Malformed& c : cases) {
    const std::string text = mesh + c.text;
    SCOPED_TRACE(text);
    try {
      parse_scene_string(text, "scene.yaml");
      FAIL() << "parsed without error";
    } catch (const Error& e) {
      const std::string message = e.what();
      if (std::string(c.message[0]) == "YAML syntax error")  // yaml-cpp reports where it gave up: line 2 or 3
        EXPECT_EQ(message.rfind("scene.yaml:", 0), 0u) << message;
      else
        EXPECT_EQ(message.rfind("scene.yaml:" + position_of(text, c.token) + ": ", 0), 0u) << message;
      for (const std::string& part : c.message) EXPECT_NE(message.find(part), std::string::npos) << message;
    }
  }
  try {
    parse_scene_string("materials: [{law: linear, young: 1.0e5, poisson: 0.3}]\n", "scene.yaml");
    FAIL() << "a scene without a mesh was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("scene.yaml:1:1: the scene: missing required key 'mesh'", 0), 0u) << e.what();
  }
}

TEST(Scene, RunWritesCsvPvdAndVtu) {
  const fs::path dir = fresh_dir("run");
  write_file(dir / "block.yaml", kBlock + R"(loads: {pressure: {surface: cavity0, value: 6000}}
solver: {load_steps: 3}
outputs: {probes: [{name: tip, point: [0.03, 0.006, 0.006]}]}
)");
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  const SceneRunResult result = run_scene(parse_scene((dir / "block.yaml").string()), options);
  EXPECT_EQ(result.load_steps, 3);
  EXPECT_EQ(result.load_factor, 1);
  ASSERT_EQ(result.pressures.size(), 1u);
  EXPECT_GT(result.pressures[0].volume, result.pressures[0].volume0);

  const auto rows = read_csv(dir / "out" / "block.csv");
  const std::vector<std::string> header = {
      "step",   "load_factor",       "p_cavity0", "volume_cavity0", "volume_growth_cavity0", "ux_tip", "uy_tip",
      "uz_tip", "newton_iterations", "residual",  "seconds"};
  ASSERT_EQ(rows.size(), 1u + 1 + 3);  // header, rest state, 3 load steps
  EXPECT_EQ(rows[0], header);
  Real previous_growth = -1;
  for (size_t r = 1; r < rows.size(); ++r) {
    ASSERT_EQ(rows[r].size(), header.size());
    EXPECT_EQ(std::stoi(rows[r][0]), static_cast<int>(r - 1));
    EXPECT_NEAR(std::stod(rows[r][2]), 6000.0 * static_cast<double>(r - 1) / 3, 1e-6);
    const Real growth = std::stod(rows[r][4]);
    EXPECT_NEAR(growth, std::stod(rows[r][3]) - std::stod(rows[1][3]), 1e-12);
    if (r == 1)
      EXPECT_EQ(growth, 0);
    else
      EXPECT_GT(growth, previous_growth);
    previous_growth = growth;
  }
  EXPECT_GT(previous_growth, 0);
  EXPECT_GT(std::stod(rows.back()[5]), 0);  // the free end moves away from the fixed base

  const std::string pvd = read_file(dir / "out" / "block.pvd");
  for (int step = 0; step <= 3; ++step) {
    const std::string vtu = "block_000" + std::to_string(step) + ".vtu";
    EXPECT_TRUE(fs::exists(dir / "out" / vtu)) << vtu;
    EXPECT_NE(pvd.find(vtu), std::string::npos) << vtu;
  }
  const std::string last = read_file(dir / "out" / "block_0003.vtu");
  for (const char* field : {"displacement", "pressure_force", "von_mises"})
    EXPECT_NE(last.find(std::string("Name=\"") + field + "\""), std::string::npos) << field;
  EXPECT_EQ(result.vtu_files, 4);
}

TEST(Scene, CliExitStatusAndMessages) {
  const fs::path dir = fresh_dir("cli");
  const fs::path err = dir / "stderr.txt";
  EXPECT_EQ(run_cli("run " + (dir / "missing.yaml").string() + " --out " + (dir / "out").string(), err), 3);  // I/O
  EXPECT_EQ(read_file(err).rfind("softik: error: cannot open scene file '" + (dir / "missing.yaml").string() + "'", 0),
            0u)
      << read_file(err);
  write_file(dir / "bad.yaml", "mesh: {generator: {type: box}}\nmaterials: {law: linear, young: -1, poisson: 0.3}\n");
  EXPECT_EQ(run_cli("run " + (dir / "bad.yaml").string() + " --out " + (dir / "out").string(), err), 1);
  EXPECT_NE(read_file(err).find("bad.yaml:2:12: materials[0] (linear): LinearElastic: Young's modulus E = -1"),
            std::string::npos)
      << read_file(err);
  EXPECT_EQ(run_cli("run " + (dir / "bad.yaml").string(), err), 1);
  EXPECT_NE(read_file(err).find("softik: error: 'run' needs --out DIR"), std::string::npos) << read_file(err);
  EXPECT_EQ(run_cli("frobnicate", err), 1);
  EXPECT_EQ(run_cli("--version", err), 0);
  EXPECT_EQ(run_cli("--help", err), 0);
}

TEST(Scene, AnEmbeddedCavityMovedOntoTheMeshIsWarnedOf) {
  // The box's top face lies 0.5 mm above the mesh (z = 0.012): within embed_tolerance its four
  // vertices move onto the mesh, and the cavity's rest volume shrinks from 0.022 x 0.008 x
  // 0.0105 to 0.022 x 0.008 x 0.010 (-4.76%).
  const fs::path dir = fresh_dir("embedded_outside");
  write_stl_box(dir / "tall.stl", {0.004, 0.002, 0.002}, {0.026, 0.010, 0.0125}, false);
  write_stl_box(dir / "inside.stl", {0.004, 0.002, 0.002}, {0.026, 0.010, 0.010}, false);
  write_file(dir / "s.yaml", kBlock + "loads: {pressure: {file: tall.stl, value: 1000, embed_tolerance: 0.001}}\n");
  const BuiltScene built = build_scene(parse_scene((dir / "s.yaml").string()));
  ASSERT_EQ(built.warnings.size(), 1u);
  const std::string& w = built.warnings[0];
  EXPECT_NE(w.find("loads.pressure[0] 'tall': 4 of 8 vertices of '"), std::string::npos) << w;
  EXPECT_NE(
      w.find("lie outside the mesh and were moved onto it (within embed_tolerance 0.001), the farthest by 0.0005"),
      std::string::npos)
      << w;
  EXPECT_NE(w.find("the cavity's rest volume changes by -4.7619%"), std::string::npos) << w;
  const Real V = 0.022 * 0.008 * 0.010;  // what the solver sees: the projected cavity
  EXPECT_NEAR(surface_volume(built.loads.pressures[0], built.mesh, built.mesh.rest_positions()), V, 1e-9 * V);
  // A cavity inside the mesh moves nothing.
  write_file(dir / "in.yaml", kBlock + "loads: {pressure: {file: inside.stl, value: 1000, embed_tolerance: 0.001}}\n");
  EXPECT_TRUE(build_scene(parse_scene((dir / "in.yaml").string())).warnings.empty());
}

TEST(Scene, APlaneNormalThatOverflowsIsRefusedAsSuch) {
  // |n|^2 overflows to inf: it was refused later as "zero or not finite".
  const auto scene = [](const std::string& normal) {
    return kBlock.substr(0, kBlock.find("fixed:")) +
           "fixed: [{group: xmin}, {plane: {point: [0.03, 0, 0], normal: " + normal + "}}]\n";
  };
  std::string e = scene_build_error(scene("[1.0e+200, 0, 0]"));
  EXPECT_NE(e.find("fixed[1].plane.normal: the length of [1e+200, 0, 0] overflows double precision"), std::string::npos)
      << e;
  EXPECT_NE(e.find("e.g. [1, 0, 0]"), std::string::npos) << e;
  e = scene_build_error(scene("[1.0e-170, 1.0e-170, 0]"));
  EXPECT_NE(e.find("fixed[1].plane.normal: the length of [1e-170, 1e-170, 0] underflows double precision"),
            std::string::npos)
      << e;
  EXPECT_EQ(scene_build_error(scene("[1.0e+100, 0, 0]")), "(no error)");
}

}  // namespace
}  // namespace softik
