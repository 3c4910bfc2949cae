// Node networks in files (network_io.hpp): the YAML format read and written back bit for bit, a
// hand-written file's defaults, overrides and computed rest lengths and volumes, the .vtu of the
// links with their tension and strain, hostile files (each error names the file, the line and
// the key), and the star dome example (examples/star_dome/star_dome.network.yaml).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/mesh_io.hpp"
#include "softik/network_io.hpp"
#include "softik/node_network.hpp"

namespace softik {
namespace {

namespace fs = std::filesystem;

const fs::path kStarDomeNetwork = fs::path(SOFTIK_SOURCE_DIR) / "examples" / "star_dome" / "star_dome.network.yaml";

/// A folder of this process's own (ctest runs tests in parallel processes).
fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() / ("softik_network_file_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string temp_file(const std::string& name, const std::string& content) {
  const std::string path = (temp_dir() / name).string();
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

const VtuField* field(const std::vector<VtuField>& fields, const std::string& name) {
  for (const VtuField& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

// Every field of two networks, exactly.
void expect_equal(const NodeNetwork& a, const NodeNetwork& b) {
  EXPECT_EQ(a.X, b.X);
  EXPECT_EQ(a.mass, b.mass);
  EXPECT_EQ(a.links, b.links);
  ASSERT_EQ(a.parameters.size(), b.parameters.size());
  for (size_t l = 0; l < a.parameters.size(); ++l) {
    EXPECT_EQ(a.parameters[l].k, b.parameters[l].k) << "link " << l;
    EXPECT_EQ(a.parameters[l].k3, b.parameters[l].k3) << "link " << l;
    EXPECT_EQ(a.parameters[l].L, b.parameters[l].L) << "link " << l;
    EXPECT_EQ(a.parameters[l].c, b.parameters[l].c) << "link " << l;
  }
  EXPECT_EQ(a.node_groups, b.node_groups);
  ASSERT_EQ(a.surface_groups.size(), b.surface_groups.size());
  for (const auto& [name, s] : a.surface_groups) {
    ASSERT_EQ(b.surface_groups.count(name), 1u) << name;
    EXPECT_EQ(s.triangles, b.surface_groups.at(name).triangles) << name;
    EXPECT_EQ(s.quads, b.surface_groups.at(name).quads) << name;
  }
  EXPECT_EQ(a.volume_cell_type, b.volume_cell_type);
  EXPECT_EQ(a.volume_cells, b.volume_cells);
  EXPECT_EQ(a.volume_stiffness, b.volume_stiffness);
  EXPECT_EQ(a.rest_volume, b.rest_volume);
}

TEST(NetworkFile, AMeshNetworkWrittenAndReadBackIsTheSameInEveryField) {
  BoxSpec box;
  box.origin = {0.1, -0.2, 0.3};
  box.size = {0.3, 0.2, 0.1};
  box.cells = {3, 2, 2};
  NetworkFromMesh spec;
  spec.youngs_modulus = 1.7e5;
  spec.poissons_ratio = 0.45;  // volume cells
  spec.density = 1070;
  spec.cubic_hardening = 3;
  spec.dashpot_time = 2e-3;
  NodeNetwork net = make_node_network(make_box(3, CellType::Hex8, box), spec);
  ASSERT_GT(net.num_volume_cells(), 0);
  ASSERT_EQ(net.volume_cell_type, CellType::Hex8);
  ASSERT_FALSE(net.surface_groups.empty());
  ASSERT_FALSE(net.node_groups.empty());
  // What a mesh does not make: a prestressed link, one without hardening or dashpot, a rest volume
  // that is not the rest shape's, a triangle surface, an empty surface, names that need quoting.
  net.parameters[5].L *= 1.01;
  net.parameters[7].k3 = 0;
  net.parameters[7].c = 0;
  net.rest_volume[1] *= 0.99;
  net.surface_groups["lid"].triangles = {{0, 1, 4}, {1, 5, 4}};
  net.surface_groups["empty"];
  net.node_groups["tip: \"corner\" #1"] = {0, 1, 2};
  net.node_groups["true"] = {3};
  net.node_groups["none"] = {};
  std::vector<int> many(static_cast<size_t>(net.num_nodes()));
  for (int i = 0; i < net.num_nodes(); ++i) many[static_cast<size_t>(i)] = net.num_nodes() - 1 - i;
  ASSERT_GT(many.size(), 32u);
  net.node_groups["many"] = many;  // wrapped over several lines

  const std::string path = (temp_dir() / "box.network.yaml").string();
  write_node_network(path, net);
  const std::string text = read_text(path);
  EXPECT_NE(text.find("rest_length:"), std::string::npos) << "the prestressed link keeps its own rest length";
  EXPECT_NE(text.find("rest_volume:"), std::string::npos) << "the changed rest volume is written";
  EXPECT_NE(text.find("type: hex8"), std::string::npos);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  const NodeNetwork back = read_node_network(path);
  expect_equal(net, back);

  // Written again, the file is the same text.
  const std::string again = (temp_dir() / "box_again.network.yaml").string();
  write_node_network(again, back);
  EXPECT_EQ(read_text(again), text);

  // A network of equal links and masses is written compactly and still reads back exactly.
  NetworkFromMesh quarter = spec;
  quarter.poissons_ratio = 0.25;
  box.size = {0.1, 0.1, 0.1};
  box.cells = {1, 1, 1};
  const NodeNetwork cube = make_node_network(make_box(3, CellType::Tet4, box), quarter);
  ASSERT_EQ(cube.num_volume_cells(), 0);
  write_node_network(path, cube);
  expect_equal(cube, read_node_network(path));
  EXPECT_EQ(read_text(path).find("volume_cells"), std::string::npos);
}

TEST(NetworkFile, AHandWrittenFileGetsItsDefaultsOverridesAndComputedRestShape) {
  const std::string path = temp_file("tet.network.yaml", R"(# one tetrahedron of links
nodes:
  - [0, 0, 0]
  - [2, 0, 0]
  - [0, 3, 0]
  - [0, 0, 4]
mass: [0.1, 0.2, 0.3, 0.4]
link_defaults: {stiffness: 1000, hardening: 50}
links:
  - [0, 1]
  - [0, 2]
  - {nodes: [0, 3], stiffness: 2000, rest_length: 4.5, dashpot: 0.1}
  - {nodes: [1, 2], hardening: 0}
  - [1, 3]
  - [3, 2]
node_groups:
  base: [0, 1, 2]
  apex: [3]
surfaces:
  bottom: {triangles: [[0, 2, 1]]}
  side: {quads: [[0, 1, 3, 2]]}
volume_cells:
  type: tet4
  stiffness: 7.5e4
  cells: [[0, 1, 2, 3]]
)");
  const NodeNetwork net = read_node_network(path);
  ASSERT_EQ(net.num_nodes(), 4);
  ASSERT_EQ(net.num_links(), 6);
  EXPECT_EQ(net.X, (std::vector<Real>{0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4}));
  EXPECT_EQ(net.mass, (std::vector<Real>{0.1, 0.2, 0.3, 0.4}));
  EXPECT_EQ(net.links[5], (std::array<int, 2>{3, 2}));
  const Real expected_L[6] = {2, 3, 4.5, std::sqrt(13.0), std::sqrt(20.0), 5};
  const Real expected_k[6] = {1000, 1000, 2000, 1000, 1000, 1000};
  const Real expected_k3[6] = {50, 50, 50, 0, 50, 50};
  const Real expected_c[6] = {0, 0, 0.1, 0, 0, 0};
  for (size_t l = 0; l < 6; ++l) {
    EXPECT_NEAR(net.parameters[l].L, expected_L[l], 1e-15 * expected_L[l]) << "link " << l;
    EXPECT_EQ(net.parameters[l].k, expected_k[l]) << "link " << l;
    EXPECT_EQ(net.parameters[l].k3, expected_k3[l]) << "link " << l;
    EXPECT_EQ(net.parameters[l].c, expected_c[l]) << "link " << l;
  }
  EXPECT_EQ(net.node_groups.at("base"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(net.node_groups.at("apex"), (std::vector<int>{3}));
  ASSERT_EQ(net.surface_groups.at("bottom").triangles.size(), 1u);
  EXPECT_EQ(net.surface_groups.at("bottom").triangles[0], (std::array<int, 3>{0, 2, 1}));
  EXPECT_EQ(net.surface_groups.at("side").quads[0], (std::array<int, 4>{0, 1, 3, 2}));
  EXPECT_TRUE(net.surface_groups.at("side").triangles.empty());
  EXPECT_EQ(net.volume_cell_type, CellType::Tet4);
  EXPECT_EQ(net.volume_cells, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(net.volume_stiffness, (std::vector<Real>{7.5e4}));
  ASSERT_EQ(net.rest_volume.size(), 1u);
  EXPECT_NEAR(net.rest_volume[0], 2.0 * 3 * 4 / 6, 1e-15);  // the corner tetrahedron: a b c / 6

  // One mass for every node, and a rest volume given per cell.
  const std::string two = temp_file("two.network.yaml", R"(nodes: [[0, 0, 0], [0, 0, 1.5]]
mass: 0.25
links: [{nodes: [1, 0], stiffness: 10}]
)");
  const NodeNetwork pair = read_node_network(two);
  EXPECT_EQ(pair.mass, (std::vector<Real>{0.25, 0.25}));
  EXPECT_EQ(pair.parameters[0].L, 1.5);
  EXPECT_EQ(pair.parameters[0].k3, 0);
  EXPECT_EQ(pair.parameters[0].c, 0);
  EXPECT_EQ(pair.num_volume_cells(), 0);
}

// The values of the ASCII DataArray `name` of a .vtu text.
std::vector<Real> ascii_array(const std::string& vtu, const std::string& name) {
  const size_t at = vtu.find("Name=\"" + name + "\"");
  if (at == std::string::npos) return {};
  const size_t begin = vtu.find('>', at) + 1, end = vtu.find("</DataArray>", begin);
  std::istringstream in(vtu.substr(begin, end - begin));
  std::vector<Real> values;
  for (Real v; in >> v;) values.push_back(v);
  return values;
}

TEST(NetworkFile, TheVtuHoldsTheLinksWithTheirTensionAndStrain) {
  const std::string yaml = temp_file("vtu.network.yaml", R"(nodes: [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
mass: [1, 2, 3]
link_defaults: {stiffness: 100, hardening: 4000}
links: [[0, 1], [1, 2], {nodes: [0, 2], rest_length: 1.25, hardening: 0}]
)");
  const NodeNetwork net = read_node_network(yaml);
  const std::vector<Real> x = {0.01, 0, 0, 1.1, 0.02, 0, 0, 1.05, 0.03};
  const std::string path = (temp_dir() / "links.vtu").string();
  const VtuField force{"force", 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}};
  write_network_vtu(path, net, x, {force}, {VtuEncoding::Ascii});
  const std::string vtu = read_text(path);
  EXPECT_NE(vtu.find("NumberOfPoints=\"3\" NumberOfCells=\"3\""), std::string::npos);
  EXPECT_EQ(ascii_array(vtu, "Points"), x) << "the points are the current positions";
  EXPECT_EQ(ascii_array(vtu, "connectivity"), (std::vector<Real>{0, 1, 1, 2, 0, 2}));
  EXPECT_EQ(ascii_array(vtu, "offsets"), (std::vector<Real>{2, 4, 6}));
  EXPECT_EQ(ascii_array(vtu, "types"), (std::vector<Real>{3, 3, 3})) << "every link is a VTK_LINE";
  const std::vector<Real> u = ascii_array(vtu, "displacement");
  ASSERT_EQ(u.size(), 9u);
  for (size_t i = 0; i < 9; ++i) EXPECT_EQ(u[i], x[i] - net.X[i]) << "displacement entry " << i;
  EXPECT_EQ(ascii_array(vtu, "mass"), (std::vector<Real>{1, 2, 3}));
  EXPECT_EQ(ascii_array(vtu, "force"), force.values) << "the caller's point field";
  const std::vector<Real> s = ascii_array(vtu, "tension"), e = ascii_array(vtu, "strain");
  ASSERT_EQ(s.size(), 3u);
  ASSERT_EQ(e.size(), 3u);
  // Link 0: l = |(1.09, 0.02, 0)|, L = 1: s = k (l - L) + k3 (l - L)^3.
  const Real l0 = std::sqrt(1.09 * 1.09 + 0.02 * 0.02);
  EXPECT_NEAR(s[0], 100 * (l0 - 1) + 4000 * std::pow(l0 - 1, 3), 1e-12);
  EXPECT_NEAR(e[0], l0 - 1, 1e-14);
  const Real l1 = std::sqrt(1.1 * 1.1 + 1.03 * 1.03 + 0.03 * 0.03), L1 = std::sqrt(2.0);
  EXPECT_NEAR(s[1], 100 * (l1 - L1) + 4000 * std::pow(l1 - L1, 3), 1e-12);
  EXPECT_NEAR(e[1], (l1 - L1) / L1, 1e-14);
  // Link 2: l = |(0, 1.05, 0.03) - (0.01, 0, 0)|, L = 1.25, no hardening: s = k (l - L) < 0.
  const Real l2 = std::sqrt(0.01 * 0.01 + 1.05 * 1.05 + 0.03 * 0.03);
  EXPECT_NEAR(s[2], 100 * (l2 - 1.25), 1e-12);
  EXPECT_LT(s[2], 0);
  EXPECT_NEAR(e[2], (l2 - 1.25) / 1.25, 1e-14);

  // softik's own .vtu reader takes line cells on the x axis only: a chain there, in every encoding.
  const NodeNetwork chain =
      read_node_network(temp_file("chain.network.yaml", R"(nodes: [[0, 0, 0], [1, 0, 0], [2.5, 0, 0]]
mass: 0.5
links: [{nodes: [0, 1], stiffness: 10}, {nodes: [1, 2], stiffness: 20, rest_length: 1}]
)"));
  const std::vector<Real> xc = {0, 0, 0, 1.2, 0, 0, 2.5, 0, 0};
  for (const VtuEncoding encoding : {VtuEncoding::Ascii, VtuEncoding::Binary, VtuEncoding::Compressed}) {
    const std::string file = (temp_dir() / (std::string("chain_") + vtu_encoding_name(encoding) + ".vtu")).string();
    write_network_vtu(file, chain, xc, {}, {encoding});
    const MeshData data = read_mesh_data(file);
    EXPECT_EQ(data.mesh.cell_type, CellType::Edge2);
    EXPECT_EQ(data.mesh.num_nodes(), 3);
    EXPECT_EQ(data.mesh.cells, (std::vector<int>{0, 1, 1, 2}));
    const VtuField* tension = field(data.cell_fields, "tension");
    const VtuField* strain = field(data.cell_fields, "strain");
    ASSERT_TRUE(tension && strain && field(data.point_fields, "displacement") && field(data.point_fields, "mass"));
    ASSERT_EQ(tension->values.size(), 2u);
    EXPECT_NEAR(tension->values[0], 10 * 0.2, 1e-14) << vtu_encoding_name(encoding);        // stretched by 0.2
    EXPECT_NEAR(tension->values[1], 20 * (1.3 - 1), 1e-13) << vtu_encoding_name(encoding);  // l = 1.3, L = 1
    EXPECT_NEAR(strain->values[1], 0.3, 1e-14);
  }

  std::vector<Real> bad = x;
  bad[4] = std::nan("");
  try {
    write_network_vtu((temp_dir() / "nan.vtu").string(), net, bad);
    ADD_FAILURE() << "NaN positions were written";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("node 1"), std::string::npos) << err.what();
  }
  EXPECT_THROW(write_network_vtu((temp_dir() / "short.vtu").string(), net, {0, 0, 0}), Error);
  // A caller's field named like softik's own array takes its place; two of the caller's with one
  // name are refused.
  const std::string replaced = (temp_dir() / "replaced.vtu").string();
  write_network_vtu(replaced, net, x, {{"mass", 1, {7, 8, 9}}}, {VtuEncoding::Ascii});
  const std::string replaced_text = read_text(replaced);
  EXPECT_EQ(ascii_array(replaced_text, "mass"), (std::vector<Real>{7, 8, 9}));
  size_t mass_arrays = 0;
  for (size_t at = replaced_text.find("Name=\"mass\""); at != std::string::npos;
       at = replaced_text.find("Name=\"mass\"", at + 1))
    ++mass_arrays;
  EXPECT_EQ(mass_arrays, 1u);
  EXPECT_THROW(write_network_vtu((temp_dir() / "twice.vtu").string(), net, x, {force, force}), Error)
      << "two fields named force";
  EXPECT_THROW(write_network_vtu((temp_dir() / "size.vtu").string(), net, x, {{"force", 3, {1, 2}}}), Error);
}

// One hostile file: its text, the line of the fault, and words the message must hold (the key).
struct Hostile {
  const char* yaml;
  int line;
  std::vector<std::string> words;
};

const char* const kValid =
    "nodes: [[0, 0, 0], [1, 0, 0], [0, 1, 0]]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks: [[0, 1], [1, 2]]\n";

TEST(NetworkFile, HostileFilesAreErrorsNamingTheFileLineAndKey) {
  ASSERT_NO_THROW(read_node_network(temp_file("valid.yaml", kValid)));
  const std::vector<Hostile> cases = {
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlink: [[0, 1]]\n", 3, {"unknown key 'link'", "allowed keys"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\n", 1, {"missing required key 'links'"}},
      {"- [0, 0, 0]\n- [1, 0, 0]\n", 1, {"the file: expected a map with keys from: nodes, mass"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nlinks: [[0, 1]]\n", 1, {"missing required key 'mass'"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks:\n  - [0, 1]\n"
       "  - {nodes: [0, 1], stifness: 3}\n",
       6,
       {"unknown key 'stifness' in links[1]"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks:\n  - {stiffness: 3}\n",
       5,
       {"missing required key 'nodes' in links[0]"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: {value: 1}\nlinks: [[0, 1]]\n", 2, {"mass: expected one number"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlinks: 7\n", 3, {"links: expected a list"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks: [[0, 1], [1, 9]]\n",
       4,
       {"links[1]: node 9 is out of range (the file has 2 nodes)"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks:\n  - {nodes: [0, 5]}\n",
       5,
       {"links[0].nodes: node 5 is out of range"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks: [[0, 1.5]]\n",
       4,
       {"links[0]: expected a node index"}},
      {"nodes:\n  - [0, 0, 0]\n  - [1, 0, .nan]\nmass: 1\nlinks: [[0, 1]]\n", 3, {"nodes[1][2]", "finite number"}},
      {"nodes:\n  - [0, 0, 0]\n  - [1, 0, 1e999]\nmass: 1\nlinks: [[0, 1]]\n", 3, {"nodes[1][2]", "finite number"}},
      {"nodes:\n  - [0, 0, 0]\n  - [1, 0]\nmass: 1\nlinks: [[0, 1]]\n", 3, {"nodes[1]: expected [x, y, z]"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: [1, 2, 3]\nlinks: [[0, 1]]\n", 2, {"mass: 3 values for 2 nodes"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: [1, 0]\nlinks: [[0, 1]]\n", 2, {"mass[1]: 0 must be > 0"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlinks: [[0, 1]]\n", 3, {"links[0]: no stiffness", "link_defaults"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlinks: [{nodes: [0, 1], stiffness: -2}]\n",
       3,
       {"links[0].stiffness: -2 must be >= 0"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlinks: [{nodes: [0, 1], stiffness: 2, rest_length: 0}]\n",
       3,
       {"links[0].rest_length: 0 must be > 0"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks: [[0, 1], [1, 1]]\n",
       4,
       {"links[1]: joins node 1 to itself"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks:\n  - [0, 1]\n  - [1, 0]\n",
       6,
       {"links[1]: nodes 1 and 0 are joined already by links[0]"}},
      {"nodes: [[0, 0, 0], [1, 0, 0], [1, 0, 0]]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks: [[0, 1], [1, 2]]\n",
       4,
       {"links[1]: nodes 1 and 2 are at the same place"}},
      {"nodes:\n  - [0, 0, 0]\n  - [1, 0, 0]\n  - [2, 0, 0]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks: [[0, 1]]\n",
       4,
       {"nodes[2]: node 2 belongs to no link"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nmass: 2\nlink_defaults: {stiffness: 1}\nlinks: [[0, 1]]\n",
       3,
       {"duplicate key 'mass' at the top level"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks: [[0, 1]]\nnode_groups:\n"
       "  tip: [1, 4]\n",
       6,
       {"node_groups.tip[1]: node 4 is out of range"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks: [[0, 1]]\nsurfaces:\n"
       "  lid: {triangles: [[0, 1]]}\n",
       6,
       {"surfaces.lid.triangles[0]: expected [a, b, c]"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlink_defaults: {stiffness: 1}\nlinks: [[0, 1]]\nsurfaces:\n"
       "  lid: {triangle: [[0, 1, 1]]}\n",
       6,
       {"unknown key 'triangle' in surfaces.lid"}},
      {"nodes: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]\nmass: 1\nlink_defaults: {stiffness: 1}\n"
       "links: [[0, 1], [0, 2], [0, 3]]\nvolume_cells: {type: tet10, stiffness: 1, cells: [[0, 1, 2, 3]]}\n",
       5,
       {"volume_cells.type: expected tet4 or hex8"}},
      {"nodes: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]\nmass: 1\nlink_defaults: {stiffness: 1}\n"
       "links: [[0, 1], [0, 2], [0, 3]]\nvolume_cells:\n  type: tet4\n  stiffness: 1\n  cells:\n    - [0, 2, 1, 3]\n",
       9,
       {"volume_cells.cells[0]: the cell's volume at the rest positions is -0.1666", "VTK"}},
      {"nodes: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]\nmass: 1\nlink_defaults: {stiffness: 1}\n"
       "links: [[0, 1], [0, 2], [0, 3]]\nvolume_cells:\n  type: tet4\n  stiffness: [1, 2]\n  cells: [[0, 1, 2, 3]]\n",
       7,
       {"volume_cells.stiffness: 2 values for 1 cells"}},
      {"nodes: [[0, 0, 0], [1, 0, 0]]\nmass: 1\nlinks: [[0, 1]\n", 4, {"YAML syntax error"}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string name = "hostile_" + std::to_string(i) + ".yaml";
    const std::string path = temp_file(name, cases[i].yaml);
    try {
      read_node_network(path);
      ADD_FAILURE() << "case " << i << " was accepted:\n" << cases[i].yaml;
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.kind(), ErrorKind::Input) << message;
      EXPECT_EQ(message.rfind(path + ":" + std::to_string(cases[i].line) + ":", 0), 0u)
          << "case " << i << " should start with " << name << ":" << cases[i].line << ": but says: " << message;
      for (const std::string& w : cases[i].words)
        EXPECT_NE(message.find(w), std::string::npos) << "case " << i << " lacks '" << w << "': " << message;
    }
  }
}

TEST(NetworkFile, MissingEmptyAndUnwritableFilesAreErrorsNamingThePath) {
  const std::string missing = (temp_dir() / "no_such.network.yaml").string();
  try {
    read_node_network(missing);
    ADD_FAILURE() << "a missing file was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
  }
  const std::string empty = temp_file("empty.network.yaml", "# nothing\n");
  try {
    read_node_network(empty);
    ADD_FAILURE() << "an empty file was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Input);
    EXPECT_EQ(std::string(e.what()).rfind(empty + ": the file is empty", 0), 0u) << e.what();
  }
  const NodeNetwork net = read_node_network(temp_file("valid.yaml", kValid));
  try {
    write_node_network((temp_dir() / "no_folder" / "out.yaml").string(), net);
    ADD_FAILURE() << "a file was written into a missing folder";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("no_folder"), std::string::npos) << e.what();
  }
  // A network the reader would refuse is not written.
  NodeNetwork bad = net;
  bad.node_groups["tip"] = {7};
  const std::string out = (temp_dir() / "bad.network.yaml").string();
  EXPECT_THROW(write_node_network(out, bad), Error);
  bad = net;
  bad.mass[1] = 0;
  try {
    write_node_network(out, bad);
    ADD_FAILURE() << "a zero mass was written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node 1"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST(NetworkFile, TheStarDomeExampleIsAShallowTrussOfThreeLinks) {
  ASSERT_TRUE(fs::exists(kStarDomeNetwork)) << kStarDomeNetwork;
  const NodeNetwork net = read_node_network(kStarDomeNetwork.string());
  ASSERT_EQ(net.num_nodes(), 4);
  ASSERT_EQ(net.num_links(), 3);
  const Real pi = std::acos(-1.0);
  EXPECT_EQ(net.X[0], 0);
  EXPECT_EQ(net.X[1], 0);
  EXPECT_EQ(net.X[2], 0.2);
  for (int s = 1; s <= 3; ++s) {
    const Real angle = 2 * pi * (s - 1) / 3;
    EXPECT_NEAR(net.X[3 * s], std::cos(angle), 1e-15) << "support " << s;
    EXPECT_NEAR(net.X[3 * s + 1], std::sin(angle), 1e-15) << "support " << s;
    EXPECT_EQ(net.X[3 * s + 2], 0) << "support " << s;
  }
  EXPECT_EQ(net.mass, (std::vector<Real>(4, 0.01)));
  const Real L = std::sqrt(1.04);
  for (int l = 0; l < 3; ++l) {
    EXPECT_EQ(net.links[static_cast<size_t>(l)][0], 0) << "every link starts at the apex";
    EXPECT_EQ(net.links[static_cast<size_t>(l)][1], l + 1);
    EXPECT_EQ(net.parameters[static_cast<size_t>(l)].k, 1000);
    EXPECT_EQ(net.parameters[static_cast<size_t>(l)].k3, 0);
    EXPECT_EQ(net.parameters[static_cast<size_t>(l)].c, 0);
    EXPECT_NEAR(net.parameters[static_cast<size_t>(l)].L, L, 1e-15);
  }
  EXPECT_EQ(net.node_groups.at("apex"), (std::vector<int>{0}));
  EXPECT_EQ(net.node_groups.at("supports"), (std::vector<int>{1, 2, 3}));

  // The links' upward push on the apex at height w is the closed form P = n k (L - l) w / l.
  NetworkForces forces(net, 1);
  for (const Real w : {0.15, 0.05, -0.1}) {
    std::vector<Real> x = net.X, f(x.size(), 0.0);
    x[2] = w;
    forces.add_forces(x.data(), nullptr, f.data());
    const Real l = std::sqrt(1 + w * w);
    EXPECT_NEAR(f[2], 3 * 1000 * (L - l) * w / l, 1e-12) << "w = " << w;
    EXPECT_NEAR(f[0], 0, 1e-12);
    EXPECT_NEAR(f[1], 0, 1e-12);
  }
}

// The node-network reader shares the YAML limits of the scene reader (io/yaml_load.hpp).
TEST(NetworkFile, NestingPastTheReadersLimitNamesTheFile) {
  const std::string path = temp_file("deep.yaml", "nodes: " + std::string(3000, '[') + std::string(3000, ']') + "\n");
  try {
    (void)read_node_network(path);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Input);
    EXPECT_NE(std::string(e.what()).find(path + ": lists and maps nested about"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace softik
