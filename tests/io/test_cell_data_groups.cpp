// Regions from a file's cell data (add_cell_data_groups, mesh_io.hpp): an integer cell array
// becomes cell groups "<array>=<value>" and node groups of their cells' nodes; arrays that are
// not one integer per cell are skipped; a VTK XML file named .vtk reads as .vtu. In a scene, a
// bar whose halves carry material=0 and material=1 stretches by F L1/(E1 A) + F L2/(E2 A) (exact:
// uniform uniaxial stress, nu = 0), the second half taking the second material by its region.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "softik/mesh_generator.hpp"
#include "softik/mesh_io.hpp"
#include "softik/scene.hpp"
#include "tests/expect_refused.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {
namespace {

// A 0.1 x 0.01 x 0.01 bar of 10 hexahedra with the cell array material = 0 (x < 0.05) or 1.
Mesh bar(std::vector<Real>* material) {
  BoxSpec spec;
  spec.size = {0.1, 0.01, 0.01};
  spec.cells = {10, 1, 1};
  Mesh mesh = make_box(3, CellType::Hex8, spec);
  for (int c = 0; c < mesh.num_cells(); ++c) {
    Real x = 0;
    for (int a = 0; a < 8; ++a) x += mesh.X[3 * static_cast<size_t>(mesh.cell(c)[a])] / 8;
    material->push_back(x < 0.05 ? 0 : 1);
  }
  return mesh;
}

TEST(CellDataGroups, IntegerCellArraysBecomeGroups) {
  std::vector<Real> material;
  const Mesh mesh = bar(&material);
  std::vector<Real> ratio(material.size()), vector3(3 * material.size(), 1.0);
  for (size_t c = 0; c < ratio.size(); ++c) ratio[c] = 0.5 + static_cast<Real>(c);
  const fs::path dir = fresh_dir("cell_data_groups");
  for (const std::string name : {"bar.vtu", "bar.vtk"}) {  // .vtk holding XML reads as .vtu
    write_vtu((dir / name).string(), mesh, mesh.rest_positions(), {},
              {{"material", 1, material}, {"ratio", 1, ratio}, {"direction", 3, vector3}});
    MeshData data = read_mesh_data((dir / name).string());
    EXPECT_EQ(data.mesh.X, mesh.X) << name;
    EXPECT_EQ(add_cell_data_groups(data), 2) << name;  // ratio (not integral) and direction (3 components) skipped
    const std::vector<int>& ones = data.mesh.cell_groups.at("material=1");
    ASSERT_EQ(ones.size(), 5u);
    for (int c : ones) EXPECT_EQ(material[static_cast<size_t>(c)], 1);
    EXPECT_EQ(data.mesh.cell_groups.at("material=0").size(), 5u);
    EXPECT_EQ(data.mesh.node_groups.at("material=1").size(), 6u * 4);  // x = 0.05 .. 0.1: 6 planes of 4 nodes
    EXPECT_EQ(data.mesh.cell_groups.count("ratio=0"), 0u);
  }
}

TEST(CellDataGroups, SceneRegionsByCellDataGiveEachHalfItsMaterial) {
  std::vector<Real> material;
  const Mesh mesh = bar(&material);
  const fs::path dir = fresh_dir("cell_data_scene");
  write_vtu((dir / "bar.vtu").string(), mesh, mesh.rest_positions(), {}, {{"material", 1, material}});
  const Real E1 = 1e6, E2 = 4e6, F = 0.5, A = 1e-4;
  write_file(dir / "bar.yaml", R"(mesh: {file: bar.vtu}
formulation: linear
materials:
  - {law: linear, young: 1.0e6, poisson: 0}
  - {law: linear, young: 4.0e6, poisson: 0, region: material=1}
fixed: [{plane: {point: [0, 0, 0], normal: [1, 0, 0]}}]
loads: {forces: [{plane: {point: [0.1, 0, 0], normal: [1, 0, 0]}, force: [0.5, 0, 0]}]}
solver: {load_steps: 1, linear_solver: eigen}
outputs: {vtu: false, probes: [{name: tip, point: [0.1, 0.005, 0.005]}]}
)");
  SceneRunOptions options;
  options.out_dir = (dir / "out").string();
  const SceneRunResult r = run_scene(parse_scene((dir / "bar.yaml").string()), options);
  ASSERT_EQ(r.probes.size(), 1u);
  const Real expected = F * 0.05 / (E1 * A) + F * 0.05 / (E2 * A);
  EXPECT_NEAR(r.probes[0].displacement[0], expected, 1e-10 * expected);
  write_file(dir / "bad.yaml", R"(mesh: {file: bar.vtu}
materials: [{law: linear, young: 1.0e6, poisson: 0, region: material=7}]
fixed: [{plane: {point: [0, 0, 0], normal: [1, 0, 0]}}]
)");
  expect_error_mentions([&] { build_scene(parse_scene((dir / "bad.yaml").string())); },
                        {"no cell group 'material=7'", "material=0", "material=1"});
}

}  // namespace
}  // namespace softik
