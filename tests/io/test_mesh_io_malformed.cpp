// Malformed mesh files: a parser suite whose errors must name the file and the right line, and
// truncated/mutated copies of every fixture, which must read or throw softik::Error.
#include "tests/mesh_io_fixtures.hpp"

namespace softik::mesh_io_test {
namespace {

struct BadFile {
  std::string name;  // file name: the extension picks the reader
  std::string content;
  long line;         // expected line; 0: the message starts with "<path>: "
  std::string what;  // a piece of the expected message
};

// Reads `bad`; the Error must start with "<path>:<line>: " and contain `what`.
void expect_error(const BadFile& bad) {
  const ReadFailure f = read_failure(bad.name, bad.content);
  if (!f.thrown) return;
  const std::string& msg = f.message;
  const std::string where = bad.line > 0 ? f.path + ":" + std::to_string(bad.line) + ": " : f.path + ": ";
  EXPECT_EQ(msg.rfind(where, 0), 0u) << bad.name << ": expected the message to start with '" << where << "': " << msg;
  EXPECT_NE(msg.find(bad.what), std::string::npos) << bad.name << ": expected '" << bad.what << "' in: " << msg;
}

TEST(MeshIo, MalformedGmshNamesFileAndLine) {
  const std::string& g = kGmsh22;
  const std::vector<BadFile> cases = {
      {"empty.msh", "", 1, "expected $MeshFormat"},
      {"not_gmsh.msh", "hello\n", 1, "expected $MeshFormat"},
      {"binary.msh", replace(g, "2.2 0 8", "2.2 1 8"), 2, "expected the binary int 1 after the format line"},
      {"file_type.msh", replace(g, "2.2 0 8", "2.2 2 8"), 2, "the file type is 2, expected 0 (ASCII) or 1 (binary)"},
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
       "expected 10 node tags for a 10-node tetrahedron (type 11), found 4"},
      {"hex20.msh", replace(g, "4 4 2 7 1 10 20 30 40", "4 17 2 7 1 10 20 30 40"), 24,
       "element type 17 (20-node hexahedron) is not supported: softik reads Gmsh element types 1 (line)"},
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
      {"binary41.msh", replace(g, "4.1 0 8", "4.1 1 8"), 2, "wrongly says binary (file type 1)"},
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
       "DataArray 'Points': the size header declares"},
      {"appended.vtu", replace(v, points, "Name=\"Points\" NumberOfComponents=\"3\" format=\"appended\" offset=\"0\""),
       22, "DataArray 'Points' has format \"appended\" but the file has no <AppendedData>"},
      {"format.vtu", replace(v, points, "Name=\"Points\" NumberOfComponents=\"3\" format=\"hex\""), 22,
       "DataArray 'Points' has format \"hex\": expected ascii, binary or appended"},
      {"polydata.vtu", replace(v, "type=\"UnstructuredGrid\"", "type=\"PolyData\""), 3, "\"PolyData\" is not read"},
      {"range.vtu", replace(v, "0 1 2 3 0 2 1", "0 1 2 3 0 2 9"), 37, "cell 1 refers to point 9, outside [0, 4)"},
      {"points.vtu", replace(v, "0 1 0 0 0 1\n", "0 1 0 0 0\n"), 22, "holds 11 numbers, expected 12"},
      {"nan.vtu", replace(v, "0 1 0 0 0 1\n", "0 1 0 0 nan 1\n"), 24, "point 3 has the non-finite coordinate"},
      {"word.vtu", replace(v, "10 5\n", "10 five\n"), 43, "found 'five'"},
      {"wedge.vtu", replace(v, "10 5\n", "13 5\n"), 43, "VTK cell type 13 (wedge)"},
      {"offsets.vtu",
       replace(v, "4 7\n        </DataArray>\n        <DataArray type=\"UInt8\"",
               "4 9\n        </DataArray>\n        <DataArray type=\"UInt8\""),
       40, "offset 9 of cell 1 decreases or exceeds the 7 connectivity entries"},
      {"quote.vtu", replace(v, "NumberOfPoints=\"4\"", "NumberOfPoints=4"), 10,
       "the value of NumberOfPoints is not quoted"},
      {"close.vtu", replace(v, "</Points>", "</Cells>"), 34, "</Cells> does not close <Points> (opened at line 21)"},
      {"truncated.vtu", v.substr(0, v.find("</Cells>")), 45,
       "unexpected end of file inside <Cells> (opened at line 35)"},
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
      {"inf.stl",
       replace(kStlAscii, "vertex 1 1 0\n    endloop\n  endfacet\nendsolid first",
               "vertex 1 inf 0\n    endloop\n  endfacet\nendsolid first"),
       6, "not a finite number"},
      {"truncated.stl", kStlBinary.substr(0, 150), 0,
       "binary header declares 2 triangles (184 bytes) but the file has 150"},
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
      {"fuzz22.msh", kGmsh22}, {"fuzz41.msh", kGmsh41}, {"fuzz2d.msh", kGmsh2d},
      {"fuzz.vtk", kVtk},      {"fuzz51.vtk", kVtk51},  {"fuzz.vtu", kVtu},
      {"fuzz.obj", kObj},      {"fuzz.stl", kStlAscii}, {"fuzzb.stl", kStlBinary}};
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
}  // namespace softik::mesh_io_test
