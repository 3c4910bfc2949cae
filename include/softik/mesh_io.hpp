// Reading and writing meshes.
//
// Readers (ASCII unless stated; every malformed input is a softik::Error whose message starts
// with "<path>:<line>: " and says what was expected there -- binary STL, which has no lines,
// names the byte offset instead; a .vtu whose appended data lacks its closing tags, and a file
// that cannot be opened, name only the path; nothing crashes):
//   .msh  Gmsh 2.2 and 4.1, ASCII or binary (file type 1, data size 4 or 8, written on a
//         little-endian machine; binary errors name the section and byte offset). Elements of
//         types 1 (line), 2 (triangle), 3 (quadrangle), 4 (tetrahedron), 5 (hexahedron) and
//         15 (point) are read; any other type is an error. The elements of the highest
//         dimension are the cells and must be of ONE type (Tet4 or Hex8; Tri3/Quad4 for 2D
//         meshes, Edge2 for 1D); lower-dimensional elements only feed groups. Physical
//         groups become groups named by $PhysicalNames (else "physical_<tag>"):
//           - of the mesh's dimension  -> cell_groups[name] (sorted cell indices)
//           - of dimension dim-1 (3D)  -> surface_groups[name] (triangles/quads, file winding)
//           - every physical group     -> node_groups[name] (sorted nodes of its elements;
//                                         groups of different dimensions sharing a name merge)
//         In 4.1 files element physical tags come from $Entities; in 2.2 files an element
//         written several times (one per physical group, as Gmsh does) is one cell.
//         Nodes are renumbered 0..N-1 in file order (Gmsh tags may be sparse).
//   .vtk  VTK legacy, ASCII, DATASET UNSTRUCTURED_GRID, file versions up to 4.2 (CELLS n size)
//         and 5.1 (OFFSETS/CONNECTIVITY). VTK_TETRA=10, VTK_HEXAHEDRON=12, VTK_TRIANGLE=5,
//         VTK_QUAD=9, VTK_LINE=3 (VTK_VERTEX=1 is skipped). Cells of the highest dimension
//         become Mesh::cells (one type); in a 3D file triangles and quads are collected into
//         surface_groups["vtk_faces"]. POINT_DATA / CELL_DATA are not read.
//   .vtu  VTK XML UnstructuredGrid, one <Piece>, DataArrays (Points, connectivity, offsets,
//         types; cell types as for .vtk) in any of VTK's encodings: format="ascii", "binary"
//         (inline base64) or "appended" (<AppendedData encoding="raw"> or "base64"), each
//         uncompressed or zlib-compressed (compressor="vtkZLibDataCompressor"), with
//         header_type UInt32 or UInt64, byte_order LittleEndian, any integer or Float32/Float64
//         type. PointData/CellData arrays are returned by read_mesh_data(). Damaged binary data
//         (a truncated block, sizes beyond the file, a zlib error) is an error naming the
//         DataArray.
//   .obj / .stl  triangle surfaces (OBJ faces with >3 vertices are fanned; STL ASCII and binary).
// Coordinates are stored as in the file (3 per node). dim is the dimension of the cells: a 2D
// (1D) mesh must lie in the z = 0 plane (on the x axis); other coordinates are an error.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "softik/mesh.hpp"

namespace softik {

/// Reads a volume mesh; the format is chosen by the extension (.msh, .vtk, .vtu). The result is
/// NOT validated (call validate(); the readers only check the file's own consistency).
Mesh read_mesh(const std::string& path);

/// One named data array for write_vtu: `components` values per node (point data) or per cell.
struct VtuField {
  std::string name;
  int components = 1;
  std::vector<Real> values;  ///< entity-major: values[e * components + c]
};

/// A mesh with the data arrays its file carries (.vtu PointData/CellData, cell fields restricted
/// to the cells kept in Mesh::cells; the other formats carry none here).
struct MeshData {
  Mesh mesh;
  std::vector<VtuField> point_fields;
  std::vector<VtuField> cell_fields;
};

/// read_mesh() plus the file's data arrays. A `.vtk` file that holds VTK XML (what some tools
/// write under that name) is read as .vtu.
MeshData read_mesh_data(const std::string& path);

/// Regions from the file's cell data: for every one-component cell array whose values are all
/// integers (a material or region id), a cell group "<array>=<value>" per value holding its cells
/// and a node group of the same name holding their nodes. Arrays with other values, several
/// components or more than 1000 distinct values are skipped; a group that exists keeps its cells.
/// Returns the number of groups added.
int add_cell_data_groups(MeshData& data);

/// A surface given by its own vertices (e.g. a cavity drawn separately from the volume mesh).
struct SurfaceMesh {
  std::vector<Real> X;                        ///< 3 coordinates per vertex
  std::vector<std::array<int, 3>> triangles;  ///< vertex indices, file winding
  int num_vertices() const { return static_cast<int>(X.size() / 3); }
};

/// Reads an OBJ or STL surface (STL vertices are merged when bit-identical; OBJ vertices are
/// kept as numbered in the file).
SurfaceMesh read_surface(const std::string& path);

/// How write_vtu stores its DataArrays.
enum class VtuEncoding {
  Compressed,  ///< appended raw binary, zlib-compressed in 32 KiB blocks (the default: smallest)
  Binary,      ///< appended raw binary, uncompressed (fastest to write and read)
  Ascii,       ///< text in the DataArrays (readable, largest)
};

/// "compressed", "binary" or "ascii" (the scene key outputs.vtu_format spells them so).
const char* vtu_encoding_name(VtuEncoding encoding);

/// Options of write_vtu.
struct VtuOptions {
  VtuEncoding encoding = VtuEncoding::Compressed;
};

/// Writes `mesh` at positions x (DOF vector, num_dofs entries; x = rest positions writes the
/// rest shape) as a VTK XML UnstructuredGrid (.vtu) that ParaView and meshio open: Points are
/// the positions x (z = 0, y = 0 filled in below 3D), Float64; cells keep their node order with
/// VTK types 10/12/5/9/3 (Tet4/Hex8/Tri3/Quad4/Edge2), connectivity and offsets Int64, types
/// UInt8; fields Float64. The binary encodings (options.encoding, default Compressed) write
/// <AppendedData encoding="raw"> with header_type="UInt64" (Compressed adds
/// compressor="vtkZLibDataCompressor": per array the header [blocks, block size, size of the
/// last partial block or 0, compressed size of each block], then the zlib blocks); Ascii writes
/// numbers in the shortest form that reads back to the same double. Every encoding reads back
/// through read_mesh_data() to exactly the doubles written. Point fields have num_nodes *
/// components values, cell fields num_cells * components. Throws on a size mismatch, an empty
/// field name, or when the file cannot be written (naming the path).
void write_vtu(const std::string& path, const Mesh& mesh, const std::vector<Real>& x,
               const std::vector<VtuField>& point_fields, const std::vector<VtuField>& cell_fields,
               const VtuOptions& options = {});

/// A ParaView time series (.pvd collection): add() one .vtu per step, write() rewrites the file.
class PvdWriter {
 public:
  explicit PvdWriter(std::string path);  ///< path of the .pvd file
  /// Records `vtu_file` (a path relative to the .pvd's folder) at time/load value t.
  void add(double t, const std::string& vtu_file);
  /// Rewrites the .pvd (through a temporary file renamed over it, so a reader never sees half a
  /// file); throws naming the path when it cannot be written.
  void write() const;

 private:
  std::string path_;
  std::vector<std::pair<double, std::string>> entries_;
};

}  // namespace softik
