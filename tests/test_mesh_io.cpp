// Mesh readers and writers (mesh_io.hpp): the exact content of small Gmsh 2.2/4.1, VTK legacy
// (4.2 and 5.1), VTU (ParaView style), OBJ and STL files written here; write_vtu -> read_mesh_data
// round trips; a parser suite of malformed files whose errors must name the file and the right
// line; and truncated/mutated copies of every fixture, which must read or throw softik::Error.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/mesh_io.hpp"
#include "softik/surface.hpp"

namespace softik {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() / "softik_mesh_io_test";
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

// s with its only occurrence of `from` replaced by `to`.
std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << "fixture lacks '" << from << "'";
  EXPECT_EQ(s.find(from, p + 1), std::string::npos) << "fixture holds '" << from << "' twice";
  return p == std::string::npos ? s : s.replace(p, from.size(), to);
}

// ---- fixtures ----------------------------------------------------------------------------------

// Two tetrahedra sharing the face (20,30,40) with sparse node tags. Physical groups: point "tip"
// (node 50), an unnamed line 9 (10-20), surface "base" (triangle 10-30-20 on z = 0, normal -z),
// volume "body" (both tets) and volume "right" (tet 5, written twice as Gmsh 2.2 does).
const std::string kGmsh22 = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
4
0 5 "tip"
2 3 "base"
3 7 "body"
3 8 "right"
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
6
1 15 2 5 1 50
2 1 2 9 1 10 20
3 2 2 3 1 10 30 20
4 4 2 7 1 10 20 30 40
5 4 2 7 2 20 30 40 50
5 4 2 8 2 20 30 40 50
$EndElements
)";

// The same mesh in 4.1: physical tags through $Entities, nodes in two blocks.
const std::string kGmsh41 = R"($MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
4
0 5 "tip"
2 3 "base"
3 7 "body"
3 8 "right"
$EndPhysicalNames
$Entities
1 1 1 2
1 1 1 1 1 5
1 0 0 0 1 0 0 1 9 2 1 -2
1 0 0 0 1 1 0 1 3 0
1 0 0 0 1 1 1 1 7 0
2 0 0 0 1 1 1 2 7 8 0
$EndEntities
$Nodes
2 5 10 50
3 1 0 4
10
20
30
40
0 0 0
1 0 0
0 1 0
0 0 1
0 1 0 1
50
1 1 1
$EndNodes
$Elements
5 5 1 5
0 1 15 1
1 50
1 1 1 1
2 10 20
2 1 2 1
3 10 30 20
3 1 4 1
4 10 20 30 40
3 2 4 1
5 20 30 40 50
$EndElements
)";

// A unit square as two triangles, no $PhysicalNames: physical line 4, physical surface 1.
const std::string kGmsh2d = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
4
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0
$EndNodes
$Elements
3
1 1 2 4 1 1 2
2 2 2 1 1 1 2 3
3 2 2 1 1 1 3 4
$EndElements
)";

// A 2 x 1 x 1 hexahedron, a quad face and a vertex; a FIELD before POINTS; data after the cells.
const std::string kVtk = R"(# vtk DataFile Version 3.0
one hex
ASCII
DATASET UNSTRUCTURED_GRID
FIELD FieldData 1
TIME 1 1 double
0.5
POINTS 8 double
0 0 0 2 0 0 2 1 0 0 1 0
0 0 1 2 0 1 2 1 1 0 1 1
CELLS 3 16
8 0 1 2 3 4 5 6 7
4 0 3 2 1
1 7
CELL_TYPES 3
12
9
1
POINT_DATA 8
SCALARS t double 1
LOOKUP_TABLE default
0 1 2 3 4 5 6 7
)";

// The same in the 5.1 layout (OFFSETS/CONNECTIVITY) with a METADATA block, as VTK 9 writes it.
const std::string kVtk51 = R"(# vtk DataFile Version 5.1
one hex
ASCII
DATASET UNSTRUCTURED_GRID
POINTS 8 float
0 0 0 2 0 0 2 1 0 0 1 0
0 0 1 2 0 1 2 1 1 0 1 1
METADATA
INFORMATION 2
NAME L2_NORM_RANGE LOCATION vtkDataArray
DATA 2 0 2.44949
NAME L2_NORM_FINITE_RANGE LOCATION vtkDataArray
DATA 2 0 2.44949

CELLS 4 13
OFFSETS vtktypeint64
0 8 12 13
CONNECTIVITY vtktypeint64
0 1 2 3 4 5 6 7
0 3 2 1
7
CELL_TYPES 3
12
9
1
)";

// A tetrahedron and one of its faces in ParaView's style: a comment, FieldData, single-quoted and
// escaped attributes, an <InformationKey> after the Points numbers.
const std::string kVtu = R"(<?xml version="1.0"?>
<!-- written by hand in ParaView's style -->
<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">
  <UnstructuredGrid>
    <FieldData>
      <DataArray type="Float64" Name="TimeValue" NumberOfTuples="1" format="ascii">
        0.25
      </DataArray>
    </FieldData>
    <Piece NumberOfPoints="4" NumberOfCells="2">
      <PointData Scalars='temperature'>
        <DataArray type="Float32" Name="temperature" format="ascii" RangeMin="0" RangeMax="3">
          0 1 2 3
        </DataArray>
      </PointData>
      <CellData>
        <DataArray type="Int32" Name="region &amp; id" format="ascii" RangeMin="4" RangeMax="7">
          4 7
        </DataArray>
      </CellData>
      <Points>
        <DataArray type="Float32" Name="Points" NumberOfComponents="3" format="ascii" RangeMin="0" RangeMax="1">
          0 0 0 1 0 0
          0 1 0 0 0 1
          <InformationKey name="L2_NORM_RANGE" location="vtkDataArray" length="2">
            <Value index="0">
              0
            </Value>
            <Value index="1">
              1
            </Value>
          </InformationKey>
        </DataArray>
      </Points>
      <Cells>
        <DataArray type="Int64" Name="connectivity" format="ascii" RangeMin="0" RangeMax="3">
          0 1 2 3 0 2 1
        </DataArray>
        <DataArray type="Int64" Name="offsets" format="ascii" RangeMin="4" RangeMax="7">
          4 7
        </DataArray>
        <DataArray type="UInt8" Name="types" format="ascii" RangeMin="5" RangeMax="10">
          10 5
        </DataArray>
      </Cells>
    </Piece>
  </UnstructuredGrid>
</VTKFile>
)";

// The unit cube, vertex i + 1 at (i & 1, i >> 1 & 1, i >> 2 & 1); six quads wound out of the cube,
// written with the v, v/vt, v//vn and v/vt/vn forms and negative (relative) indices.
const std::string kObj = R"(# unit cube
mtllib cube.mtl
o cube
v 0 0 0
v 1 0 0
v 0 1 0
v 1 1 0
v 0 0 1
v 1 0 1
v 0 1 1
v 1 1 1
vt 0 0
vn 0 0 -1
usemtl rubber
s off
f 1 3 4 2
f 5/1 6/1 8/1 7/1
f 1//1 2//1 6//1 5//1
f 3/1/1 7/1/1 8/1/1 4/1/1
f -8 -4 -2 -6
f 2 4 8 6
)";

const std::string kStlAscii = R"(solid first
  facet normal 0 0 1
    outer loop
      vertex 0 0 0
      vertex 1 0 0
      vertex 1 1 0
    endloop
  endfacet
endsolid first
solid second
  facet normal 0 0 1
    outer loop
      vertex 0 0 0
      vertex 1 1 0
      vertex 0 1 0
    endloop
  endfacet
endsolid second
)";

void put_u32(std::string& b, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) b += static_cast<char>((v >> (8 * k)) & 0xff);
}

// A binary STL (little-endian) whose 80-byte header starts with "solid", as some exporters write.
std::string binary_stl(const std::vector<std::array<float, 9>>& triangles) {
  std::string b = "solid exported by a CAD program";
  b.resize(80, ' ');
  put_u32(b, static_cast<std::uint32_t>(triangles.size()));
  for (const auto& t : triangles) {
    for (int k = 0; k < 3; ++k) put_u32(b, 0);  // normal
    for (float f : t) {
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      put_u32(b, bits);
    }
    b.append(2, '\0');
  }
  return b;
}

const std::string kStlBinary = binary_stl({{0, 0, 0, 1, 0, 0, 1, 1, 0}, {0, 0, 0, 1, 1, 0, 0, 1, 0}});

// ---- reading valid files -----------------------------------------------------------------------

void expect_two_tets(const Mesh& m) {
  ASSERT_EQ(m.dim, 3);
  EXPECT_EQ(m.cell_type, CellType::Tet4);
  EXPECT_EQ(m.X, (std::vector<Real>{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(m.cells, (std::vector<int>{0, 1, 2, 3, 1, 2, 3, 4}));
  EXPECT_EQ(m.cell_groups, (std::map<std::string, std::vector<int>>{{"body", {0, 1}}, {"right", {1}}}));
  ASSERT_EQ(m.surface_groups.size(), 1u);
  EXPECT_EQ(m.surface_groups.at("base").triangles, (std::vector<std::array<int, 3>>{{0, 2, 1}}));
  EXPECT_TRUE(m.surface_groups.at("base").quads.empty());
  EXPECT_EQ(m.node_groups, (std::map<std::string, std::vector<int>>{{"base", {0, 1, 2}},
                                                                    {"body", {0, 1, 2, 3, 4}},
                                                                    {"physical_9", {0, 1}},
                                                                    {"right", {1, 2, 3, 4}},
                                                                    {"tip", {4}}}));
  const MeshReport report = validate(m);
  EXPECT_NEAR(report.min_detJ, 1.0, 1e-14);  // tet 0: the unit corner; tet 1: det J = 2 (volume 1/3)
  EXPECT_NEAR(report.max_detJ, 2.0, 1e-14);
}

TEST(MeshIo, Gmsh22TwoTetsWithPhysicalGroupsAndRepeatedElement) {
  expect_two_tets(read_mesh(temp_file("two_tets_22.msh", kGmsh22)));
}

TEST(MeshIo, Gmsh41TwoTetsWithEntitiesAndNodeBlocks) {
  expect_two_tets(read_mesh(temp_file("two_tets_41.msh", kGmsh41)));
}

TEST(MeshIo, GmshUnknownSectionsAndCrlfAreSkipped) {
  std::string text = replace(kGmsh22, "$EndNodes\n", "$EndNodes\n$Periodic\n1\n2 1 3\n$EndPeriodic\n");
  text += "$NodeData\n1\n\"u\"\n$EndNodeData\n";
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  expect_two_tets(read_mesh(temp_file("extra_sections.msh", crlf)));
}

TEST(MeshIo, Gmsh41ParametricNodesAreRead) {
  // Node 50 on a curve (entity dimension 1) with one parametric coordinate after x y z.
  const std::string text = replace(kGmsh41, "0 1 0 1\n50\n1 1 1\n", "1 1 1 1\n50\n1 1 1 0.5\n");
  expect_two_tets(read_mesh(temp_file("parametric_41.msh", text)));
}

TEST(MeshIo, Gmsh2dTrianglesWithUnnamedGroups) {
  const Mesh m = read_mesh(temp_file("square.msh", kGmsh2d));
  EXPECT_EQ(m.dim, 2);
  EXPECT_EQ(m.cell_type, CellType::Tri3);
  EXPECT_EQ(m.cells, (std::vector<int>{0, 1, 2, 0, 2, 3}));
  EXPECT_EQ(m.cell_groups.at("physical_1"), (std::vector<int>{0, 1}));
  EXPECT_EQ(m.node_groups.at("physical_1"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(m.node_groups.at("physical_4"), (std::vector<int>{0, 1}));
  EXPECT_TRUE(m.surface_groups.empty());  // lines of a 2D mesh only feed node groups
  EXPECT_NO_THROW(validate(m));
}

TEST(MeshIo, GmshExampleCubeFromTestsData) {
  // tests/data/unit_cube.msh: a unit cube as 6 Kuhn tetrahedra (Gmsh 4.1), physical surfaces
  // "bottom" (z = 0, normals -z) and "top" (z = 1, normals +z), physical volume "body".
  const fs::path path = fs::path(__FILE__).parent_path() / "data" / "unit_cube.msh";
  const Mesh m = read_mesh(path.string());
  EXPECT_EQ(m.num_nodes(), 8);
  EXPECT_EQ(m.num_cells(), 6);
  EXPECT_EQ(m.cell_groups.at("body").size(), 6u);
  const MeshReport report = validate(m);
  EXPECT_EQ(report.unreferenced_nodes, 0);
  EXPECT_GT(report.min_detJ, 0);
  for (const char* name : {"bottom", "top"}) {
    const SurfaceGroup& s = m.surface_groups.at(name);
    ASSERT_EQ(s.triangles.size(), 2u) << name;
    const Real z = std::string(name) == "top" ? 1.0 : 0.0;
    for (const auto& t : s.triangles) {
      for (int v : t) EXPECT_EQ(m.X[3 * v + 2], z) << name;
      Real e1[3], e2[3];
      for (int i = 0; i < 3; ++i) {
        e1[i] = m.X[3 * t[1] + i] - m.X[3 * t[0] + i];
        e2[i] = m.X[3 * t[2] + i] - m.X[3 * t[0] + i];
      }
      const Real normal_z = e1[0] * e2[1] - e1[1] * e2[0];
      EXPECT_NEAR(normal_z, z == 1.0 ? 1.0 : -1.0, 1e-15) << name << ": outward unit-area normal";
    }
    EXPECT_EQ(m.node_groups.at(name).size(), 4u);
  }
}

void expect_one_hex(const Mesh& m) {
  ASSERT_EQ(m.dim, 3);
  EXPECT_EQ(m.cell_type, CellType::Hex8);
  EXPECT_EQ(m.cells, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(m.X, (std::vector<Real>{0, 0, 0, 2, 0, 0, 2, 1, 0, 0, 1, 0, 0, 0, 1, 2, 0, 1, 2, 1, 1, 0, 1, 1}));
  ASSERT_EQ(m.surface_groups.size(), 1u);
  EXPECT_TRUE(m.surface_groups.at("vtk_faces").triangles.empty());
  EXPECT_EQ(m.surface_groups.at("vtk_faces").quads, (std::vector<std::array<int, 4>>{{0, 3, 2, 1}}));
  EXPECT_TRUE(m.node_groups.empty());
  EXPECT_NEAR(validate(m).min_detJ, 2.0 / 8.0, 1e-14);  // volume 2 over the reference volume 8
}

TEST(MeshIo, VtkLegacyHexWithFaceVertexAndData) { expect_one_hex(read_mesh(temp_file("hex.vtk", kVtk))); }

TEST(MeshIo, VtkLegacy51OffsetsConnectivityAndMetadata) { expect_one_hex(read_mesh(temp_file("hex51.vtk", kVtk51))); }

TEST(MeshIo, VtuInParaViewStyleWithFields) {
  const MeshData d = read_mesh_data(temp_file("paraview.vtu", kVtu));
  EXPECT_EQ(d.mesh.cell_type, CellType::Tet4);
  EXPECT_EQ(d.mesh.X, (std::vector<Real>{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(d.mesh.cells, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(d.mesh.surface_groups.at("vtk_faces").triangles, (std::vector<std::array<int, 3>>{{0, 2, 1}}));
  ASSERT_EQ(d.point_fields.size(), 1u);
  EXPECT_EQ(d.point_fields[0].name, "temperature");
  EXPECT_EQ(d.point_fields[0].components, 1);
  EXPECT_EQ(d.point_fields[0].values, (std::vector<Real>{0, 1, 2, 3}));
  ASSERT_EQ(d.cell_fields.size(), 1u);
  EXPECT_EQ(d.cell_fields[0].name, "region & id");
  EXPECT_EQ(d.cell_fields[0].values, (std::vector<Real>{4}));  // the tetrahedron's value only
  EXPECT_NO_THROW(validate(d.mesh));
}

TEST(MeshIo, VtuRoundTripKeepsNodesCellsAndFieldsExactly) {
  BoxSpec spec;
  spec.size = {1.0 / 3.0, 0.2, 0.7};
  spec.cells = {3, 2, 2};
  for (CellType type : {CellType::Hex8, CellType::Tet4}) {
    const Mesh box = make_box(3, type, spec);
    std::vector<Real> x = box.rest_positions();
    for (size_t k = 0; k < x.size(); ++k) x[k] += 1e-3 * std::sin(static_cast<Real>(k)) + (k == 5 ? 1e-300 : 0.0);
    VtuField u{"displacement", 3, {}}, s{"von \"Mises\" <Pa>", 1, {}};
    for (size_t k = 0; k < x.size(); ++k) u.values.push_back(x[k] - box.X[k]);
    for (int c = 0; c < box.num_cells(); ++c) s.values.push_back(std::exp(c * 0.1) * 1e5);
    const std::string path = (temp_dir() / "round_trip.vtu").string();
    write_vtu(path, box, x, {u}, {s});
    const MeshData back = read_mesh_data(path);
    EXPECT_EQ(back.mesh.dim, 3);
    EXPECT_EQ(back.mesh.cell_type, type);
    EXPECT_EQ(back.mesh.cells, box.cells);
    EXPECT_EQ(back.mesh.X, x);  // bit-identical: the shortest round-trip decimal form
    ASSERT_EQ(back.point_fields.size(), 1u);
    EXPECT_EQ(back.point_fields[0].name, u.name);
    EXPECT_EQ(back.point_fields[0].components, 3);
    EXPECT_EQ(back.point_fields[0].values, u.values);
    ASSERT_EQ(back.cell_fields.size(), 1u);
    EXPECT_EQ(back.cell_fields[0].name, s.name);
    EXPECT_EQ(back.cell_fields[0].values, s.values);
    EXPECT_FALSE(fs::exists(path + ".tmp"));
  }
}

TEST(MeshIo, VtuRoundTripOf2dMeshPadsZ) {
  BoxSpec spec;
  spec.cells = {2, 3, 1};
  const Mesh square = make_box(2, CellType::Tri3, spec);
  const std::string path = (temp_dir() / "square.vtu").string();
  write_vtu(path, square, square.rest_positions(), {}, {});
  const Mesh back = read_mesh(path);
  EXPECT_EQ(back.dim, 2);
  EXPECT_EQ(back.cell_type, CellType::Tri3);
  EXPECT_EQ(back.X, square.X);
  EXPECT_EQ(back.cells, square.cells);
}

TEST(MeshIo, WriteVtuRefusesBadSizesAndUnwritablePaths) {
  const Mesh box = make_box(3, CellType::Hex8, BoxSpec{});
  const std::string path = (temp_dir() / "bad.vtu").string();
  const std::vector<Real> x = box.rest_positions();
  auto message = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  std::string m = message([&] { write_vtu(path, box, std::vector<Real>(5), {}, {}); });
  EXPECT_EQ(m.rfind(path + ": the positions x have 5 entries, expected num_dofs = 24", 0), 0u) << m;
  m = message([&] { write_vtu(path, box, x, {{"u", 3, std::vector<Real>(23)}}, {}); });
  EXPECT_NE(m.find("point field 'u' has 23 values, expected 8 points x 3 components"), std::string::npos) << m;
  m = message([&] { write_vtu(path, box, x, {}, {{"", 1, {1.0}}}); });
  EXPECT_NE(m.find("empty name"), std::string::npos) << m;
  const std::string nowhere = (temp_dir() / "no_such_folder" / "a.vtu").string();
  m = message([&] { write_vtu(nowhere, box, x, {}, {}); });
  EXPECT_EQ(m.rfind(nowhere + ": cannot write", 0), 0u) << m;
  m = message([&] { PvdWriter(nowhere + ".pvd").write(); });
  EXPECT_EQ(m.rfind(nowhere + ".pvd: cannot write", 0), 0u) << m;
}

TEST(MeshIo, PvdListsEveryStepInOrder) {
  const std::string path = (temp_dir() / "series.pvd").string();
  PvdWriter pvd(path);
  pvd.add(0, "step_0000.vtu");
  pvd.write();
  pvd.add(0.25, "a&b_0001.vtu");
  pvd.write();
  const std::string text = read_text(path);
  const size_t first = text.find("<DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"step_0000.vtu\"/>");
  const size_t second = text.find("<DataSet timestep=\"0.25\" group=\"\" part=\"0\" file=\"a&amp;b_0001.vtu\"/>");
  EXPECT_NE(first, std::string::npos) << text;
  EXPECT_NE(second, std::string::npos) << text;
  EXPECT_LT(first, second);
  EXPECT_NE(text.find("<VTKFile type=\"Collection\""), std::string::npos);
  EXPECT_NE(text.find("</Collection>\n</VTKFile>"), std::string::npos);
}

TEST(MeshIo, ObjCubeIsFannedIntoAClosedOutwardSurface) {
  const SurfaceMesh s = read_surface(temp_file("cube.obj", kObj));
  ASSERT_EQ(s.num_vertices(), 8);
  for (int i = 0; i < 8; ++i)
    for (int k = 0; k < 3; ++k) EXPECT_EQ(s.X[3 * i + k], (i >> k) & 1);
  ASSERT_EQ(s.triangles.size(), 12u);
  EXPECT_EQ(s.triangles[0], (std::array<int, 3>{0, 2, 3}));
  EXPECT_EQ(s.triangles[1], (std::array<int, 3>{0, 3, 1}));
  EXPECT_EQ(s.triangles[8], (std::array<int, 3>{0, 4, 6}));  // the face of negative indices
  Mesh m;
  m.X = s.X;
  SurfaceGroup g;
  g.triangles = s.triangles;
  SurfaceReport r;
  check_surface(m, g, "cube", true, false, &r);
  EXPECT_TRUE(r.closed);
  EXPECT_EQ(r.flipped, 0);
  EXPECT_NEAR(r.volume, 1.0, 1e-15);
}

TEST(MeshIo, StlAsciiWithTwoSolidsAndBinaryMergeSharedVertices) {
  for (const std::string name : {"two_solids.stl", "two_binary.stl"}) {
    const SurfaceMesh s = read_surface(temp_file(name, name == "two_solids.stl" ? kStlAscii : kStlBinary));
    EXPECT_EQ(s.X, (std::vector<Real>{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0})) << name;
    EXPECT_EQ(s.triangles, (std::vector<std::array<int, 3>>{{0, 1, 2}, {0, 2, 3}})) << name;
  }
}

// ---- malformed input ---------------------------------------------------------------------------

struct BadFile {
  std::string name;     // file name: the extension picks the reader
  std::string content;
  long line;            // expected line; 0: the message starts with "<path>: "
  std::string what;     // a piece of the expected message
};

// Reads `bad`; the Error must start with "<path>:<line>: " and contain `what`.
void expect_error(const BadFile& bad) {
  const std::string path = temp_file(bad.name, bad.content);
  const std::string ext = fs::path(path).extension().string();
  try {
    if (ext == ".obj" || ext == ".stl")
      read_surface(path);
    else
      read_mesh(path);
    ADD_FAILURE() << bad.name << ": no error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    const std::string where = bad.line > 0 ? path + ":" + std::to_string(bad.line) + ": " : path + ": ";
    EXPECT_EQ(msg.rfind(where, 0), 0u) << bad.name << ": expected the message to start with '" << where << "': " << msg;
    EXPECT_NE(msg.find(bad.what), std::string::npos) << bad.name << ": expected '" << bad.what << "' in: " << msg;
  }
}

TEST(MeshIo, MalformedGmshNamesFileAndLine) {
  const std::string& g = kGmsh22;
  const std::vector<BadFile> cases = {
      {"empty.msh", "", 1, "expected $MeshFormat"},
      {"not_gmsh.msh", "hello\n", 1, "expected $MeshFormat"},
      {"binary.msh", replace(g, "2.2 0 8", "2.2 1 8"), 2, "binary .msh file (file type 1)"},
      {"version.msh", replace(g, "2.2 0 8", "3.0 0 8"), 2, "Gmsh file format 3.0 is not supported"},
      {"unquoted.msh", replace(g, "3 7 \"body\"", "3 7 body"), 8, "name in double quotes"},
      {"duplicate_node.msh", replace(g, "40 0 0 1", "30 0 0 1"), 16, "node tag 30 is defined twice (first at line 15)"},
      {"inf.msh", replace(g, "40 0 0 1", "40 0 0 inf"), 16, "the z coordinate is 'inf', not a finite number"},
      {"nan.msh", replace(g, "50 1 1 1", "50 1 nan 1"), 17, "the y coordinate is 'nan', not a finite number"},
      {"word.msh", replace(g, "20 1 0 0", "20 one 0 0"), 14, "expected the x coordinate (a number), found 'one'"},
      {"few_nodes.msh", replace(g, "$Nodes\n5", "$Nodes\n6"), 18, "expected 6 entries in $Nodes"},
      {"many_elements.msh", replace(g, "$Elements\n6", "$Elements\n5"), 26, "expected $EndElements after the 5"},
      {"short_point.msh", replace(g, "1 15 2 5 1 50", "1 15"), 21, "expected an element as 'tag type numTags"},
      {"tag_count.msh", replace(g, "1 15 2 5 1 50", "1 15 9 5 1 50"), 21, "declares 9 tags"},
      {"hex6.msh", replace(g, "4 4 2 7 1 10 20 30 40", "4 5 2 7 1 10 20 30 40 50 10"), 24,
       "expected 8 node tags for a hexahedron (type 5), found 6"},
      {"tet10.msh", replace(g, "4 4 2 7 1 10 20 30 40", "4 11 2 7 1 10 20 30 40"), 24,
       "element type 11 (10-node tetrahedron) is not supported: softik reads Gmsh element types 1 (line)"},
      {"prism.msh", replace(g, "4 4 2 7 1 10 20 30 40", "4 6 2 7 1 10 20 30 40 50 10"), 24, "type 6 (6-node prism)"},
      {"undefined_node.msh", replace(g, "5 4 2 7 2 20 30 40 50", "5 4 2 7 2 20 30 40 99"), 25,
       "element 5 refers to node tag 99, which $Nodes does not define"},
      {"duplicate_element.msh", replace(g, "5 4 2 8 2 20 30 40 50", "5 4 2 8 2 20 30 50 40"), 26,
       "element tag 5 is defined twice with different types or nodes (first at line 25)"},
      {"mixed.msh", replace(g, "5 4 2 8 2 20 30 40 50", "6 5 2 8 2 10 20 30 40 50 10 20 30"), 26,
       "a Hex8 cell among Tet4 cells (the first at line 24): only one cell type per mesh is supported"},
      {"truncated.msh", g.substr(0, g.find("5 4 2 7 2")), 24, "unexpected end of file"},
      {"unclosed_section.msh", g + "$NodeData\n1\n", 29, "section $NodeData (line 28) has no $EndNodeData"},
      {"only_points.msh", g.substr(0, g.find("$Elements")) + "$Elements\n1\n1 15 2 5 1 50\n$EndElements\n", 19,
       "no cells: the file has no line, triangle, quadrangle, tetrahedron or hexahedron elements"},
      {"not_flat.msh", replace(kGmsh2d, "3 1 1 0", "3 1 1 0.5"), 8, "node 2 has z = 0.5, but the mesh's cells are 2D"},
  };
  for (const BadFile& bad : cases) expect_error(bad);
}

TEST(MeshIo, MalformedGmsh41NamesFileAndLine) {
  const std::string& g = kGmsh41;
  const std::vector<BadFile> cases = {
      {"binary41.msh", replace(g, "4.1 0 8", "4.1 1 8"), 2, "Mesh.Binary = 0"},
      {"entity.msh", replace(g, "2 0 0 0 1 1 1 2 7 8 0", "2 0 0 0 1 1 1 2 7 8"), 17,
       "expected 2 physical tags and the number of bounding entities"},
      {"node_header.msh", replace(g, "2 5 10 50", "2 6 10 50"), 20, "declares 6 nodes but its 2 blocks hold 5"},
      {"coordinates.msh", replace(g, "50\n1 1 1\n", "50\n1 1\n"), 32, "expected 3 coordinates for node tag 50"},
      {"element_count.msh", replace(g, "5 5 1 5", "5 4 1 5"), 44, "more than the 0 left of the 4"},
      {"hex41.msh", replace(g, "3 2 4 1\n5 20 30 40 50", "3 2 5 1\n5 20 30 40 50 10 20"), 45,
       "expected 8 node tags for a hexahedron (type 5), found 6"},
      {"node41.msh", replace(g, "5 20 30 40 50", "5 20 30 40 77"), 45, "refers to node tag 77"},
      {"pyramid41.msh", replace(g, "3 2 4 1", "3 2 7 1"), 44, "type 7 (5-node pyramid)"},
  };
  for (const BadFile& bad : cases) expect_error(bad);
}

TEST(MeshIo, MalformedVtkNamesFileAndLine) {
  const std::string& v = kVtk;
  const std::vector<BadFile> cases = {
      {"header.vtk", "# not vtk\n", 1, "not a VTK legacy file"},
      {"binary.vtk", replace(v, "ASCII", "BINARY"), 3, "binary VTK legacy files are not read: re-save"},
      {"polydata.vtk", replace(v, "UNSTRUCTURED_GRID", "POLYDATA"), 4, "DATASET POLYDATA is not read"},
      {"nan.vtk", replace(v, "2 1 1 0 1 1", "2 nan 1 0 1 1"), 10, "not a finite number"},
      {"truncated.vtk", v.substr(0, v.find("0 0 1 2 0 1")), 9, "unexpected end of file in POINTS"},
      {"size.vtk", replace(v, "CELLS 3 16", "CELLS 3 17"), 14, "CELLS declares a list size of 17"},
      {"range.vtk", replace(v, "1 7\n", "1 8\n"), 14, "cell 2 refers to point 8, outside [0, 8)"},
      {"negative.vtk", replace(v, "4 0 3 2 1", "4 0 3 -2 1"), 13, "refers to point -2"},
      {"wedge.vtk", replace(v, "12\n9\n1", "13\n9\n1"), 16, "VTK cell type 13 (wedge) is not supported"},
      {"count.vtk", replace(v, "12\n9\n1", "12\n5\n1"), 13, "cell 1 (VTK type 5, triangle) has 4 points, expected 3"},
      {"mixed.vtk", replace(v, "12\n9\n1", "12\n10\n1"), 17, "only one cell type per mesh is supported"},
      {"keyword.vtk", replace(v, "CELL_TYPES 3", "CELL_KINDS 3"), 15, "unexpected keyword 'CELL_KINDS'"},
      {"no_types.vtk", v.substr(0, v.find("CELL_TYPES")), 14, "no CELL_TYPES section"},
      {"offsets.vtk", replace(kVtk51, "0 8 12 13", "0 8 7 13"), 17, "offset 7 decreases"},
      {"connectivity.vtk", replace(kVtk51, "CONNECTIVITY vtktypeint64", "CONNECT vtktypeint64"), 18,
       "expected CONNECTIVITY"},
  };
  for (const BadFile& bad : cases) expect_error(bad);
}

TEST(MeshIo, MalformedVtuNamesFileAndLine) {
  const std::string& v = kVtu;
  const std::string points = "Name=\"Points\" NumberOfComponents=\"3\" format=\"ascii\"";
  const std::vector<BadFile> cases = {
      {"binary.vtu", replace(v, points, "Name=\"Points\" NumberOfComponents=\"3\" format=\"binary\""), 22,
       "format \"binary\", which softik does not read: re-save the .vtu with ASCII data"},
      {"appended.vtu", replace(v, points, "Name=\"Points\" NumberOfComponents=\"3\" format=\"appended\" offset=\"0\""),
       22, "Data Mode 'Ascii'"},
      {"polydata.vtu", replace(v, "type=\"UnstructuredGrid\"", "type=\"PolyData\""), 3, "\"PolyData\" is not read"},
      {"range.vtu", replace(v, "0 1 2 3 0 2 1", "0 1 2 3 0 2 9"), 37, "cell 1 refers to point 9, outside [0, 4)"},
      {"points.vtu", replace(v, "0 1 0 0 0 1\n", "0 1 0 0 0\n"), 22, "holds 11 numbers, expected 12"},
      {"nan.vtu", replace(v, "0 1 0 0 0 1\n", "0 1 0 0 nan 1\n"), 24, "point 3 has the non-finite coordinate"},
      {"word.vtu", replace(v, "10 5\n", "10 five\n"), 43, "found 'five'"},
      {"wedge.vtu", replace(v, "10 5\n", "13 5\n"), 43, "VTK cell type 13 (wedge)"},
      {"offsets.vtu", replace(v, "4 7\n        </DataArray>\n        <DataArray type=\"UInt8\"",
                              "4 9\n        </DataArray>\n        <DataArray type=\"UInt8\""),
       40, "offset 9 of cell 1 decreases or exceeds the 7 connectivity entries"},
      {"quote.vtu", replace(v, "NumberOfPoints=\"4\"", "NumberOfPoints=4"), 10, "the value of NumberOfPoints is not quoted"},
      {"close.vtu", replace(v, "</Points>", "</Cells>"), 34, "</Cells> does not close <Points> (opened at line 21)"},
      {"truncated.vtu", v.substr(0, v.find("</Cells>")), 45, "unexpected end of file inside <Cells> (opened at line 35)"},
      {"no_types.vtu", replace(v, "Name=\"types\"", "Name=\"kinds\""), 10, "no Cells DataArray named 'types'"},
      {"html.vtu", "<html>\n</html>\n", 1, "expected <VTKFile> as the root element, found <html>"},
      {"text.vtu", "solid\n", 1, "no <VTKFile> element"},
  };
  for (const BadFile& bad : cases) expect_error(bad);
}

TEST(MeshIo, MalformedSurfacesAndPathsNameTheFile) {
  std::string nan_stl = kStlBinary;
  const float nan = std::nanf("");
  std::uint32_t bits;
  std::memcpy(&bits, &nan, 4);
  std::string nan_bytes;
  put_u32(nan_bytes, bits);
  nan_stl.replace(84 + 50 + 12 + 12 + 4, 4, nan_bytes);  // triangle 1, vertex 1, y
  const std::vector<BadFile> cases = {
      {"range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", 4, "refers to vertex 4, but only 3 vertices are defined"},
      {"zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", 4, "OBJ indices start at 1"},
      {"two.obj", "v 0 0 0\nv 1 0 0\n\nf 1 2\n", 4, "a face needs at least 3 vertices, found 2"},
      {"vertex.obj", "# c\nv 0 0\n", 2, "a vertex needs 3 coordinates"},
      {"nan.obj", "v 0 0 0\nv 1 nan 0\n", 2, "not a finite number"},
      {"nofaces.obj", "v 0 0 0\n", 1, "no faces"},
      {"facet.stl", "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\n", 6,
       "expected 'vertex' (a facet has exactly 3 vertices), found only 2"},
      {"unterminated.stl", kStlAscii.substr(0, kStlAscii.find("endsolid second")), 17, "unexpected end of file"},
      {"inf.stl", replace(kStlAscii, "vertex 1 1 0\n    endloop\n  endfacet\nendsolid first",
                          "vertex 1 inf 0\n    endloop\n  endfacet\nendsolid first"), 6, "not a finite number"},
      {"truncated.stl", kStlBinary.substr(0, 150), 0, "binary header declares 2 triangles (184 bytes) but the file has 150"},
      {"nan.stl", nan_stl, 0, "binary STL triangle 1 (byte 162): vertex 1 has a NaN/inf coordinate"},
      {"tiny.stl", "sol", 0, "shorter than the 84-byte header"},
      {"mesh.ply", "ply\n", 0, "unsupported mesh format '.ply'"},
  };
  for (const BadFile& bad : cases) expect_error(bad);
  const std::string missing = (temp_dir() / "missing.msh").string();
  fs::remove(missing);
  try {
    read_mesh(missing);
    ADD_FAILURE() << "no error for a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(missing + ": cannot open the file (No such file or directory)", 0), 0u)
        << e.what();
  }
  try {
    read_surface((temp_dir() / "missing.stl").string());
    ADD_FAILURE() << "no error for a missing surface";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.stl: cannot open the file"), std::string::npos) << e.what();
  }
}

// ---- robustness ------------------------------------------------------------------------------

// Every prefix and 400 single-byte mutations of every fixture either read (into a mesh whose
// indices are in range) or throw softik::Error naming the file; nothing else may escape.
TEST(MeshIo, TruncatedAndMutatedFilesReadOrThrowError) {
  const std::vector<std::pair<std::string, std::string>> fixtures = {
      {"fuzz22.msh", kGmsh22}, {"fuzz41.msh", kGmsh41}, {"fuzz2d.msh", kGmsh2d},  {"fuzz.vtk", kVtk},
      {"fuzz51.vtk", kVtk51},  {"fuzz.vtu", kVtu},      {"fuzz.obj", kObj},       {"fuzz.stl", kStlAscii},
      {"fuzzb.stl", kStlBinary}};
  const char replacements[] = {'0', '9', '-', ' ', '\n', '$', '<', '>', '"', '/', 'x', 'e', '.', '\0', '\xff'};
  std::mt19937 rng(20261122);
  int errors = 0, reads = 0;
  for (const auto& [name, text] : fixtures) {
    const std::string path = (temp_dir() / name).string();
    std::vector<std::string> variants;
    for (size_t n = 0; n < text.size(); ++n) variants.push_back(text.substr(0, n));
    for (int k = 0; k < 400; ++k) {
      std::string t = text;
      t[rng() % t.size()] = replacements[rng() % sizeof replacements];
      variants.push_back(t);
    }
    const bool surface = fs::path(name).extension() != ".msh" && fs::path(name).extension() != ".vtk" &&
                         fs::path(name).extension() != ".vtu";
    for (const std::string& variant : variants) {
      std::ofstream(path, std::ios::binary | std::ios::trunc) << variant;
      try {
        if (surface) {
          const SurfaceMesh s = read_surface(path);
          for (const auto& t : s.triangles)
            for (int v : t) ASSERT_TRUE(v >= 0 && v < s.num_vertices()) << name << ":\n" << variant;
        } else {
          const Mesh m = read_mesh(path);
          ASSERT_EQ(m.cells.size() % static_cast<size_t>(nodes_per_cell(m.cell_type)), 0u);
          for (int v : m.cells) ASSERT_TRUE(v >= 0 && v < m.num_nodes()) << name << ":\n" << variant;
          for (const auto& [g, s] : m.surface_groups)
            for (const auto& t : s.triangles)
              for (int v : t) ASSERT_TRUE(v >= 0 && v < m.num_nodes()) << name << ":\n" << variant;
        }
        ++reads;
      } catch (const Error& e) {
        ++errors;
        ASSERT_EQ(std::string(e.what()).rfind(path, 0), 0u) << e.what();
      } catch (const std::exception& e) {
        FAIL() << name << ": " << typeid(e).name() << " " << e.what() << " for:\n" << variant;
      }
    }
  }
  EXPECT_GT(errors, 5000);
  EXPECT_GT(reads, 100);
}

}  // namespace
}  // namespace softik
