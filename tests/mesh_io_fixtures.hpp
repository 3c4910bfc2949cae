// Shared by the mesh-file tests (test_mesh_io.cpp, test_mesh_io_malformed.cpp): temporary files
// and the small fixture files of every format (Gmsh 2.2/4.1, VTK legacy 4.2/5.1, VTU, OBJ, STL).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

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

namespace softik::mesh_io_test {

namespace fs = std::filesystem;

/// The low `bytes` bytes of v, least significant first (the byte order of binary Gmsh and VTU files).
inline std::string le_bytes(std::uint64_t v, int bytes) {
  std::string s;
  for (int k = 0; k < bytes; ++k) s += static_cast<char>((v >> (8 * k)) & 0xff);
  return s;
}

/// A folder of this process's own: ctest runs the tests in parallel processes, and two of them
/// writing one file name (nan.msh) into a shared folder read each other's half-written files.
inline fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() / ("softik_mesh_io_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

inline std::string temp_file(const std::string& name, const std::string& content) {
  const std::string path = (temp_dir() / name).string();
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

/// What reading a damaged file gave: its path and the Error's message and kind (`thrown` false
/// when it read without one, after a failure naming the file).
struct ReadFailure {
  std::string path;
  bool thrown = false;
  std::string message;
  ErrorKind kind = ErrorKind::Input;
};

/// Writes `content` to the temporary file `name` and reads it (read_surface for .obj and .stl,
/// read_mesh otherwise), expecting an Error.
inline ReadFailure read_failure(const std::string& name, const std::string& content) {
  ReadFailure f;
  f.path = temp_file(name, content);
  const std::string ext = fs::path(f.path).extension().string();
  try {
    if (ext == ".obj" || ext == ".stl")
      read_surface(f.path);
    else
      read_mesh(f.path);
    ADD_FAILURE() << name << ": no error";
  } catch (const Error& e) {
    f.thrown = true;
    f.message = e.what();
    f.kind = e.kind();
  }
  return f;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// s with its only occurrence of `from` replaced by `to`.
inline std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << "fixture lacks '" << from << "'";
  EXPECT_EQ(s.find(from, p + 1), std::string::npos) << "fixture holds '" << from << "' twice";
  return p == std::string::npos ? s : s.replace(p, from.size(), to);
}

// ---- fixtures ----------------------------------------------------------------------------------

/// The $MeshFormat (ASCII, `version`) and $PhysicalNames sections of the Gmsh fixtures below.
inline std::string gmsh_header(const std::string& version) {
  return "$MeshFormat\n" + version + R"( 0 8
$EndMeshFormat
$PhysicalNames
4
0 5 "tip"
2 3 "base"
3 7 "body"
3 8 "right"
$EndPhysicalNames
)";
}

// Two tetrahedra sharing the face (20,30,40) with sparse node tags. Physical groups: point "tip"
// (node 50), an unnamed line 9 (10-20), surface "base" (triangle 10-30-20 on z = 0, normal -z),
// volume "body" (both tets) and volume "right" (tet 5, written twice as Gmsh 2.2 does).
const std::string kGmsh22 = gmsh_header("2.2") + R"($Nodes
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
const std::string kGmsh41 = gmsh_header("4.1") + R"($Entities
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

inline void put_u32(std::string& b, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) b += static_cast<char>((v >> (8 * k)) & 0xff);
}

// A binary STL (little-endian) whose 80-byte header starts with "solid", as some exporters write.
inline std::string binary_stl(const std::vector<std::array<float, 9>>& triangles) {
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

/// Writes each variant of a file (prefixes, mutated bytes) to `path` and reads it back: it must
/// read into a mesh whose cells index its nodes, or throw softik::Error naming the file; any
/// other exception fails the test. Counts both outcomes.
inline void read_or_error(const std::vector<std::string>& variants, const std::string& path, int& reads, int& errors) {
  for (const std::string& variant : variants) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << variant;
    try {
      const Mesh m = read_mesh(path);
      for (int v : m.cells) ASSERT_TRUE(v >= 0 && v < m.num_nodes());
      ++reads;
    } catch (const Error& e) {
      ++errors;
      ASSERT_EQ(std::string(e.what()).rfind(path, 0), 0u) << e.what();
    } catch (const std::exception& e) {
      FAIL() << typeid(e).name() << " " << e.what();
    }
  }
}

}  // namespace softik::mesh_io_test
