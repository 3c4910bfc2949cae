// Mesh readers and writers (mesh_io.hpp): the exact content of small Gmsh 2.2/4.1, VTK legacy
// (4.2 and 5.1), VTU (ParaView style), OBJ and STL files (tests/mesh_io_fixtures.hpp) and
// write_vtu -> read_mesh_data round trips. Malformed input: test_mesh_io_malformed.cpp.
#include <cmath>
#include <functional>

#include "tests/mesh_io_fixtures.hpp"

namespace softik::mesh_io_test {
namespace {

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
  const fs::path path = fs::path(SOFTIK_SOURCE_DIR) / "tests" / "data" / "unit_cube.msh";
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
  for (CellType type : {CellType::Hex8, CellType::Tet4, CellType::Tet10}) {
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

// No non-finite number reaches a file: a NaN von Mises stress (a diverged inverse step once wrote
// one into a compressed .vtu) or position is a numerical failure naming the entry, and the file
// that was there stays as it was.
TEST(MeshIo, WriteVtuRefusesNonFiniteValuesInEveryEncoding) {
  const Mesh box = make_box(3, CellType::Hex8, BoxSpec{});
  const std::string path = (temp_dir() / "nan.vtu").string();
  const std::vector<Real> x = box.rest_positions();
  for (const VtuEncoding encoding : {VtuEncoding::Compressed, VtuEncoding::Binary, VtuEncoding::Ascii}) {
    VtuOptions options;
    options.encoding = encoding;
    write_vtu(path, box, x, {}, {{"von_mises", 1, {0.0}}}, options);
    const auto expect_refused = [&](const std::function<void()>& f, const std::string& words) {
      try {
        f();
        ADD_FAILURE() << "no error: " << words;
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Numerical) << e.what();
        EXPECT_NE(std::string(e.what()).find(path + ": not written: " + words), std::string::npos) << e.what();
      }
    };
    expect_refused(
        [&] {
          write_vtu(path, box, x, {}, {{"von_mises", 1, {std::nan("")}}}, options);
        },
        "cell 0's 'von_mises' is nan");
    std::vector<Real> bad = x;
    bad[3 * 5 + 2] = INFINITY;
    expect_refused([&] { write_vtu(path, box, bad, {}, {}, options); }, "node 5's position is inf");
    std::vector<Real> u(3 * 8, 0.0);
    u[3 * 7 + 1] = -INFINITY;
    expect_refused([&] { write_vtu(path, box, x, {{"u", 3, u}}, {}, options); }, "node 7's 'u' is -inf");
    const Mesh back = read_mesh(path);  // the last good file, whole
    EXPECT_EQ(back.num_cells(), 1);
  }
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

}  // namespace
}  // namespace softik::mesh_io_test
