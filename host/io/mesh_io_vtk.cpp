// VTK legacy reader (mesh_io.hpp): ASCII DATASET UNSTRUCTURED_GRID, file versions up to 4.2
// ("CELLS n size", each cell "k i0 .. ik-1") and 5.1 ("CELLS numOffsets numConnectivity" then
// OFFSETS and CONNECTIVITY arrays). The format is free-form (numbers may wrap lines), so it is
// read token by token; METADATA blocks and dataset FIELD arrays are skipped, and reading stops
// at POINT_DATA / CELL_DATA. Also the VTK-cells -> Mesh step shared with the .vtu reader.
#include <cctype>
#include <string>
#include <utility>

#include "host/io/mesh_io_common.hpp"

namespace softik::mesh_io {

namespace {

const char* vtk_type_name(long long type) {
  constexpr std::pair<long long, const char*> kNames[] = {{1, "vertex"},
                                                          {2, "poly-vertex"},
                                                          {3, "line"},
                                                          {4, "poly-line"},
                                                          {5, "triangle"},
                                                          {6, "triangle strip"},
                                                          {7, "polygon"},
                                                          {8, "pixel"},
                                                          {9, "quad"},
                                                          {10, "tetra"},
                                                          {11, "voxel"},
                                                          {12, "hexahedron"},
                                                          {13, "wedge"},
                                                          {14, "pyramid"},
                                                          {21, "quadratic edge"},
                                                          {22, "quadratic triangle"},
                                                          {23, "quadratic quad"},
                                                          {24, "quadratic tetra"},
                                                          {25, "quadratic hexahedron"},
                                                          {42, "polyhedron"}};
  for (const auto& [code, name] : kNames)
    if (code == type) return name;
  return "unknown to softik";
}

int vtk_kind(long long type, const Where& where) {
  switch (type) {
    case 1:
      return RawElements::kPoint;
    case 3:
      return static_cast<int>(CellType::Edge2);
    case 5:
      return static_cast<int>(CellType::Tri3);
    case 9:
      return static_cast<int>(CellType::Quad4);
    case 10:
      return static_cast<int>(CellType::Tet4);
    case 12:
      return static_cast<int>(CellType::Hex8);
    case 22:
      return RawElements::kTri6;
    case 24:
      return static_cast<int>(CellType::Tet10);
    default:
      SOFTIK_PARSE_FAIL(where, "VTK cell type " << type << " (" << vtk_type_name(type)
                                                << ") is not supported: softik reads VTK cell types 1 (vertex, "
                                                   "skipped), 3 (line), 5 (triangle), 9 (quad), 10 (tetra), 12 "
                                                   "(hexahedron), 24 (quadratic tetra) and 22 (quadratic triangle, "
                                                   "its faces); re-mesh with tetrahedra or linear hexahedra");
  }
}

int kind_nodes(int kind) { return RawElements::kind_nodes(kind); }

// METADATA (VTK >= 9): lines up to the next blank line.
void skip_metadata(TextFile& file) {
  std::string_view line;
  file.next_line(&line);  // the rest of the METADATA line
  while (file.next_line(&line))
    if (trim(line).empty()) return;
}

// FIELD name numArrays, then per array "name numComponents numTuples type" and its values.
void skip_field(TextFile& file) {
  file.expect_token("after FIELD (its name)");
  const int arrays = next_count(file, "after FIELD", "the number of FIELD arrays");
  for (int a = 0; a < arrays; ++a) {
    const std::string_view name = file.expect_token("in FIELD (an array name)");
    if (name == "NULL_ARRAY") continue;
    const long long components = next_count(file, "in FIELD", "the number of components of a FIELD array");
    const long long tuples = next_count(file, "in FIELD", "the number of tuples of a FIELD array");
    file.expect_token("in FIELD (the data type)");
    for (long long k = 0; k < components * tuples; ++k) file.expect_token("in a FIELD array's values");
    if (iequals(file.peek_token(), "METADATA")) {
      file.expect_token("at METADATA");
      skip_metadata(file);
    }
  }
}

// Legacy (<= 4.2) CELLS body: per cell "k i0 .. ik-1", `size` numbers in all.
void read_cells_legacy(TextFile& file, int num_cells, int size, VtkCells* cells) {
  long long used = 0;
  for (int c = 0; c < num_cells; ++c) {
    const int k = next_count(file, "in CELLS", "the number of points of a cell");
    cells->cell_lines.push_back(file.where().line);
    used += static_cast<long long>(k) + 1;
    SOFTIK_PARSE_CHECK(used <= size, file.where(),
                       "the CELLS list is longer than the size " << size << " its header declares (cell " << c << ")");
    for (int j = 0; j < k; ++j) {
      cells->conn.push_back(next_int(file, "in CELLS", "a point index"));
      cells->conn_lines.push_back(file.where().line);
    }
    cells->offsets.push_back(static_cast<long long>(cells->conn.size()));
  }
  SOFTIK_PARSE_CHECK(
      used == size, file.where(),
      "CELLS declares a list size of " << size << ", but its " << num_cells << " cells hold " << used << " numbers");
}

// 5.1 CELLS body: "OFFSETS type" with num_offsets entries, "CONNECTIVITY type" with num_conn.
void read_cells_51(TextFile& file, int num_offsets, int num_conn, VtkCells* cells) {
  SOFTIK_PARSE_CHECK(num_offsets >= 1, file.where(),
                     "CELLS declares " << num_offsets << " offsets; a 5.1 file needs at least 1");
  file.expect_token("at OFFSETS");
  file.expect_token("after OFFSETS (the data type)");
  for (int k = 0; k < num_offsets; ++k) {
    const long long offset = next_int(file, "in OFFSETS", "an offset");
    if (k == 0) {
      SOFTIK_PARSE_CHECK(offset == 0, file.where(), "the first offset is " << offset << ", expected 0");
      continue;
    }
    SOFTIK_PARSE_CHECK(offset >= cells->offsets.back() && offset <= num_conn, file.where(),
                       "offset " << offset << " decreases or exceeds the connectivity size " << num_conn);
    cells->offsets.push_back(offset);
    cells->cell_lines.push_back(file.where().line);
  }
  SOFTIK_PARSE_CHECK(cells->offsets.back() == num_conn, file.where(),
                     "the last offset is " << cells->offsets.back() << ", expected the connectivity size " << num_conn);
  const std::string_view keyword = file.expect_token("at CONNECTIVITY");
  SOFTIK_PARSE_CHECK(iequals(keyword, "CONNECTIVITY"), file.where(),
                     "expected CONNECTIVITY, found '" << keyword.substr(0, 40) << "'");
  file.expect_token("after CONNECTIVITY (the data type)");
  for (int k = 0; k < num_conn; ++k) {
    cells->conn.push_back(next_int(file, "in CONNECTIVITY", "a point index"));
    cells->conn_lines.push_back(file.where().line);
  }
}

}  // namespace

Mesh build_vtk_mesh(const std::string& path, std::vector<Real> X, const std::vector<long>& point_lines,
                    const VtkCells& cells, std::vector<int>* cell_of) {
  Mesh mesh;
  mesh.X = std::move(X);
  const long long num_points = mesh.num_nodes();
  RawElements raw;
  for (size_t c = 0; c < cells.types.size(); ++c) {
    const int kind = vtk_kind(cells.types[c], Where{path, cells.type_lines[c]});
    const long long begin = cells.offsets[c], end = cells.offsets[c + 1];
    SOFTIK_PARSE_CHECK(end - begin == kind_nodes(kind), (Where{path, cells.cell_lines[c]}),
                       "cell " << c << " (VTK type " << cells.types[c] << ", " << vtk_type_name(cells.types[c])
                               << ") has " << end - begin << " points, expected " << kind_nodes(kind));
    raw.add(kind, cells.type_lines[c]);
    for (long long k = begin; k < end; ++k) {
      const long long p = cells.conn[static_cast<size_t>(k)];
      SOFTIK_PARSE_CHECK(p >= 0 && p < num_points, (Where{path, cells.conn_lines[static_cast<size_t>(k)]}),
                         "cell " << c << " refers to point " << p << ", outside [0, " << num_points
                                 << ") (the file has " << num_points << " points)");
      raw.nodes.push_back(static_cast<int>(p));
    }
    raw.close();
  }
  const Where none{path, cells.type_lines.empty() ? 0 : cells.type_lines.front()};
  *cell_of = assemble_cells(raw, point_lines, none, "", &mesh);
  if (mesh.dim == 3)
    for (int e = 0; e < raw.size(); ++e) {
      const int* v = raw.nodes.data() + raw.offsets[e];
      if (raw.kind[e] == static_cast<int>(CellType::Tri3))
        mesh.surface_groups["vtk_faces"].triangles.push_back({v[0], v[1], v[2]});
      else if (raw.kind[e] == static_cast<int>(CellType::Quad4))
        mesh.surface_groups["vtk_faces"].quads.push_back({v[0], v[1], v[2], v[3]});
      else if (raw.kind[e] == RawElements::kTri6)
        mesh.surface_groups["vtk_faces"].triangles6.push_back({v[0], v[1], v[2], v[3], v[4], v[5]});
    }
  return mesh;
}

MeshData read_vtk_legacy(const std::string& path) {
  TextFile file(path);
  std::string header(file.expect_line("at the '# vtk DataFile Version' header"));
  for (char& c : header) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  SOFTIK_PARSE_CHECK(header.find("vtk datafile") != std::string::npos, file.where(),
                     "expected '# vtk DataFile Version x.y' on the first line: this is not a VTK legacy file");
  file.expect_line("at the title line");
  const std::string_view encoding = trim(file.expect_line("at the ASCII/BINARY line"));
  SOFTIK_PARSE_CHECK(!iequals(encoding, "BINARY"), file.where(),
                     "binary VTK legacy files are not read: re-save the mesh as ASCII (ParaView: File > Save Data, "
                     "Legacy VTK, File Type 'Ascii')");
  SOFTIK_PARSE_CHECK(iequals(encoding, "ASCII"), file.where(),
                     "expected ASCII or BINARY on the third line, found '" << encoding.substr(0, 40) << "'");
  std::string_view token = file.expect_token("at DATASET");
  SOFTIK_PARSE_CHECK(iequals(token, "DATASET"), file.where(),
                     "expected DATASET, found '" << token.substr(0, 40) << "'");
  token = file.expect_token("after DATASET");
  SOFTIK_PARSE_CHECK(iequals(token, "UNSTRUCTURED_GRID"), file.where(),
                     "DATASET " << token.substr(0, 40)
                                << " is not read: softik reads UNSTRUCTURED_GRID volume meshes (for a POLYDATA "
                                   "surface, export STL or OBJ and use read_surface)");
  std::vector<Real> X;
  std::vector<long> point_lines;
  VtkCells cells;
  bool have_points = false, have_cells = false, have_types = false;
  long types_line = 0;
  while (file.next_token(&token)) {
    if (iequals(token, "POINTS")) {
      SOFTIK_PARSE_CHECK(!have_points, file.where(), "a second POINTS section");
      const int n = next_count(file, "after POINTS", "the number of points");
      file.expect_token("after POINTS (the data type)");
      static const char* const what[3] = {"the x coordinate", "the y coordinate", "the z coordinate"};
      for (int k = 0; k < n; ++k)
        for (int i = 0; i < 3; ++i) {
          X.push_back(next_coordinate(file, "in POINTS", what[i]));
          if (i == 0) point_lines.push_back(file.where().line);
        }
      have_points = true;
    } else if (iequals(token, "CELLS")) {
      SOFTIK_PARSE_CHECK(!have_cells, file.where(), "a second CELLS section");
      const int a = next_count(file, "after CELLS", "the number of cells (or offsets)");
      const int b = next_count(file, "after CELLS", "the CELLS list size (or connectivity size)");
      if (iequals(file.peek_token(), "OFFSETS"))
        read_cells_51(file, a, b, &cells);
      else
        read_cells_legacy(file, a, b, &cells);
      have_cells = true;
    } else if (iequals(token, "CELL_TYPES")) {
      SOFTIK_PARSE_CHECK(!have_types, file.where(), "a second CELL_TYPES section");
      types_line = file.where().line;
      const int n = next_count(file, "after CELL_TYPES", "the number of cell types");
      for (int k = 0; k < n; ++k) {
        cells.types.push_back(next_int(file, "in CELL_TYPES", "a cell type"));
        cells.type_lines.push_back(file.where().line);
      }
      have_types = true;
    } else if (iequals(token, "METADATA")) {
      skip_metadata(file);
    } else if (iequals(token, "FIELD")) {
      skip_field(file);
    } else if (iequals(token, "POINT_DATA") || iequals(token, "CELL_DATA")) {
      break;
    } else {
      SOFTIK_PARSE_FAIL(file.where(), "unexpected keyword '" << token.substr(0, 40)
                                                             << "': expected POINTS, CELLS, CELL_TYPES, FIELD, "
                                                                "METADATA, POINT_DATA or CELL_DATA");
    }
  }
  SOFTIK_PARSE_CHECK(have_points, file.eof_where(), "no POINTS section in the file");
  SOFTIK_PARSE_CHECK(have_cells, file.eof_where(), "no CELLS section in the file");
  SOFTIK_PARSE_CHECK(have_types, file.eof_where(), "no CELL_TYPES section in the file");
  SOFTIK_PARSE_CHECK(
      cells.types.size() + 1 == cells.offsets.size(), file.where(types_line),
      "CELL_TYPES lists " << cells.types.size() << " cells, but CELLS holds " << cells.offsets.size() - 1);
  MeshData data;
  std::vector<int> cell_of;
  data.mesh = build_vtk_mesh(path, std::move(X), point_lines, cells, &cell_of);
  return data;
}

}  // namespace softik::mesh_io
