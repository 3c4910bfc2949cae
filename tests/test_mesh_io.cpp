// Mesh readers and writers: exact content of small Gmsh 2.2/4.1, VTK legacy, VTU, OBJ and STL
// files written here, a write_vtu -> read_mesh_data round trip, and a parser suite of malformed
// files whose errors must name the file and the right line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "softik/mesh_generator.hpp"
#include "softik/error.hpp"
#include "softik/mesh_io.hpp"

namespace softik {
namespace {

std::string temp_file(const std::string& name, const std::string& content) {
  const auto dir = std::filesystem::temp_directory_path() / "softik_mesh_io_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// Two tetrahedra sharing the face (1,2,3); physical volume 7 "body", physical surface 3 "base"
// holding triangle (1,3,2) on z = 0.
const char* kGmsh22 = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
2
2 3 "base"
3 7 "body"
$EndPhysicalNames
$Nodes
5
10 0 0 0
20 1 0 0
30 0 1 0
40 0 0 1
50 1 1 1
$EndNodes
$Elements
3
1 2 2 3 1 10 30 20
2 4 2 7 1 10 20 30 40
3 4 2 7 1 20 50 30 40
$EndElements
)";

const char* kGmsh41 = R"($MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
2
2 3 "base"
3 7 "body"
$EndPhysicalNames
$Entities
0 0 1 1
1 0 0 0 1 1 0 1 3 0
1 0 0 0 1 1 1 1 7 0
$EndEntities
$Nodes
2 5 1 5
3 1 0 3
1
2
3
0 0 0
1 0 0
0 1 0
3 1 0 2
4
5
0 0 1
1 1 1
$EndNodes
$Elements
2 3 1 3
2 1 2 1
1 1 3 2
3 1 4 2
2 1 2 3 4
3 2 5 3 4
$EndElements
)";

void expect_two_tets(const Mesh& m) {
  ASSERT_EQ(m.dim, 3);
  EXPECT_EQ(m.cell_type, CellType::Tet4);
  ASSERT_EQ(m.num_nodes(), 5);
  EXPECT_EQ(m.cells, (std::vector<int>{0, 1, 2, 3, 1, 4, 2, 3}));
  EXPECT_EQ(m.X[3 * 4 + 0], 1.0);
  EXPECT_EQ(m.X[3 * 4 + 2], 1.0);
  EXPECT_EQ(m.cell_groups.at("body"), (std::vector<int>{0, 1}));
  ASSERT_EQ(m.surface_groups.at("base").triangles.size(), 1u);
  EXPECT_EQ(m.surface_groups.at("base").triangles[0], (std::array<int, 3>{0, 2, 1}));
  EXPECT_EQ(m.node_groups.at("base"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(m.node_groups.at("body"), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_NO_THROW(validate(m));
}

TEST(MeshIo, Gmsh22TwoTetsWithPhysicalGroups) { expect_two_tets(read_mesh(temp_file("two_tets_22.msh", kGmsh22))); }

TEST(MeshIo, Gmsh41TwoTetsWithPhysicalGroups) { expect_two_tets(read_mesh(temp_file("two_tets_41.msh", kGmsh41))); }

TEST(MeshIo, VtkLegacyHexahedron) {
  const std::string text = R"(# vtk DataFile Version 3.0
one hex
ASCII
DATASET UNSTRUCTURED_GRID
POINTS 8 double
0 0 0 2 0 0 2 1 0 0 1 0
0 0 1 2 0 1 2 1 1 0 1 1
CELLS 2 13
8 0 1 2 3 4 5 6 7
3 0 1 2
CELL_TYPES 2
12
5
)";
  const Mesh m = read_mesh(temp_file("hex.vtk", text));
  EXPECT_EQ(m.cell_type, CellType::Hex8);
  EXPECT_EQ(m.num_cells(), 1);
  EXPECT_EQ(m.X[3 * 6], 2.0);
  ASSERT_EQ(m.surface_groups.at("vtk_faces").triangles.size(), 1u);
  EXPECT_NEAR(validate(m).min_detJ, 2.0 / 8.0, 1e-14);  // volume 2 over the reference volume 8
}

TEST(MeshIo, VtuRoundTripKeepsNodesCellsAndFields) {
  BoxSpec spec;
  spec.size = {1.0 / 3.0, 0.2, 0.7};
  spec.cells = {3, 2, 2};
  const Mesh box = make_box(3, CellType::Hex8, spec);
  std::vector<Real> x = box.rest_positions();
  for (size_t k = 0; k < x.size(); ++k) x[k] += 1e-3 * std::sin(static_cast<Real>(k));
  VtuField u{"displacement", 3, {}}, s{"von_mises", 1, {}};
  for (size_t k = 0; k < x.size(); ++k) u.values.push_back(x[k] - box.X[k]);
  for (int c = 0; c < box.num_cells(); ++c) s.values.push_back(std::exp(c * 0.1));
  const std::string path = temp_file("round_trip.vtu", "");
  write_vtu(path, box, x, {u}, {s});
  const MeshData back = read_mesh_data(path);
  EXPECT_EQ(back.mesh.cells, box.cells);
  EXPECT_EQ(back.mesh.X, x);  // bit-identical: 17 significant digits
  ASSERT_EQ(back.point_fields.size(), 1u);
  EXPECT_EQ(back.point_fields[0].name, "displacement");
  EXPECT_EQ(back.point_fields[0].values, u.values);
  ASSERT_EQ(back.cell_fields.size(), 1u);
  EXPECT_EQ(back.cell_fields[0].values, s.values);
  const std::string pvd_path = temp_file("series.pvd", "");
  PvdWriter pvd(pvd_path);
  pvd.add(0.5, "round_trip.vtu");
  pvd.write();
  std::ifstream in(pvd_path);
  const std::string pvd_text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(pvd_text.find("<DataSet timestep=\"0.5\" part=\"0\" file=\"round_trip.vtu\"/>"), std::string::npos)
      << pvd_text;
}

TEST(MeshIo, ObjFacesAreFanned) {
  const SurfaceMesh s = read_surface(temp_file("quad.obj", "# a quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 -1//1\n"));
  EXPECT_EQ(s.num_vertices(), 4);
  ASSERT_EQ(s.triangles.size(), 2u);
  EXPECT_EQ(s.triangles[0], (std::array<int, 3>{0, 1, 2}));
  EXPECT_EQ(s.triangles[1], (std::array<int, 3>{0, 2, 3}));
}

std::string binary_stl(const std::vector<std::array<float, 9>>& tris) {
  std::string b(80, ' ');
  const std::uint32_t n = static_cast<std::uint32_t>(tris.size());
  b.append(reinterpret_cast<const char*>(&n), 4);
  for (const auto& t : tris) {
    const float normal[3] = {0, 0, 0};
    b.append(reinterpret_cast<const char*>(normal), 12);
    b.append(reinterpret_cast<const char*>(t.data()), 36);
    b.append(2, '\0');
  }
  return b;
}

TEST(MeshIo, StlAsciiAndBinaryMergeSharedVertices) {
  const std::string ascii = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 1 1 0\nendloop\n"
                            "endfacet\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 1 0\nvertex 0 1 0\nendloop\n"
                            "endfacet\nendsolid t\n";
  for (const SurfaceMesh& s :
       {read_surface(temp_file("two.stl", ascii)),
        read_surface(temp_file("two_bin.stl", binary_stl({{0, 0, 0, 1, 0, 0, 1, 1, 0}, {0, 0, 0, 1, 1, 0, 0, 1, 0}})))}) {
    EXPECT_EQ(s.num_vertices(), 4);
    ASSERT_EQ(s.triangles.size(), 2u);
    EXPECT_EQ(s.triangles[1], (std::array<int, 3>{0, 2, 3}));
  }
}

/// Reading `content` as `name` must throw an Error naming "<path>:<line>" and containing `what`.
void expect_parse_error(const std::string& name, const std::string& content, long line, const std::string& what) {
  const std::string path = temp_file(name, content);
  try {
    if (name.size() > 4 && (name.substr(name.size() - 4) == ".obj" || name.substr(name.size() - 4) == ".stl"))
      read_surface(path);
    else
      read_mesh(path);
    ADD_FAILURE() << name << ": no error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    const std::string where = line > 0 ? path + ":" + std::to_string(line) + ":" : path;
    EXPECT_NE(msg.find(where), std::string::npos) << name << ": expected '" << where << "' in: " << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << name << ": expected '" << what << "' in: " << msg;
  }
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return s.replace(p, from.size(), to);
}

TEST(MeshIo, MalformedFilesNameTheFileAndLine) {
  const std::string g22 = kGmsh22, g41 = kGmsh41;
  expect_parse_error("missing.msh", "", 0, "");  // created empty: no $MeshFormat
  std::filesystem::remove(temp_file("gone.msh", ""));
  try {
    read_mesh(std::filesystem::temp_directory_path() / "softik_mesh_io_test" / "gone.msh");
    ADD_FAILURE() << "missing file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
  expect_parse_error("trunc.msh", g22.substr(0, g22.find("3 4 2 7")), 20, "end of file");
  expect_parse_error("count.msh", replace(g22, "$Nodes\n5", "$Nodes\n6"), 16, "$EndNodes");
  expect_parse_error("type.msh", replace(g22, "2 4 2 7 1 10 20 30 40", "2 11 2 7 1 10 20 30 40"), 20, "element type 11");
  expect_parse_error("tag.msh", replace(g22, "3 4 2 7 1 20 50 30 40", "3 4 2 7 1 20 99 30 40"), 21, "node tag 99");
  expect_parse_error("nan.msh", replace(g22, "50 1 1 1", "50 1 nan 1"), 15, "not a finite number");
  expect_parse_error("short.msh", replace(g22, "3 4 2 7 1 20 50 30 40", "3 4 2 7 1 20 50 30"), 22, "found '$EndElements'");
  expect_parse_error("binary.msh", replace(g22, "2.2 0 8", "2.2 1 8"), 2, "ASCII");
  expect_parse_error("version.msh", replace(g22, "2.2 0 8", "3.0 0 8"), 2, "version");
  expect_parse_error("word.msh", replace(g22, "20 1 0 0", "20 one 0 0"), 12, "found 'one'");
  expect_parse_error("mixed.msh", replace(g22, "3 4 2 7 1 20 50 30 40", "3 5 2 7 1 20 50 30 40 10 20 30 40"), 21,
                     "one cell type");
  expect_parse_error("entity.msh", replace(g41, "3 1 4 2\n", "3 1 4 3\n"), 36, "found '$EndElements'");
  expect_parse_error("legacy.vtk", "# vtk DataFile Version 3.0\nx\nBINARY\nDATASET UNSTRUCTURED_GRID\n", 3, "ASCII");
  expect_parse_error("range.vtk",
                     "# vtk DataFile Version 3.0\nx\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 double\n0 0 0 1 0 0 0 1 0 "
                     "0 0 1\nCELLS 1 5\n4 0 1 2 9\nCELL_TYPES 1\n10\n",
                     8, "point 9");
  expect_parse_error("celltype.vtk",
                     "# vtk DataFile Version 3.0\nx\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 double\n0 0 0 1 0 0 0 1 0 "
                     "0 0 1\nCELLS 1 5\n4 0 1 2 3\nCELL_TYPES 1\n24\n",
                     10, "cell type 24");
  expect_parse_error("appended.vtu", "<VTKFile type=\"UnstructuredGrid\">\n<UnstructuredGrid>\n<AppendedData encoding=\"raw\">",
                     3, "Ascii");
  expect_parse_error("obj.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\n", 3, "vertex 3");
  expect_parse_error("stl.stl", "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\n", 6,
                     "exactly 3 vertices");
  expect_parse_error("bin.stl", binary_stl({{0, 0, 0, 1, 0, 0, 1, 1, 0}}).substr(0, 100), 0, "truncated");
}

}  // namespace
}  // namespace softik
