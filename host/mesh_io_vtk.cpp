// VTK readers (mesh_io.hpp): legacy ASCII UNSTRUCTURED_GRID (.vtk, versions up to 4.2 with
// "CELLS n size" and 5.1 with OFFSETS/CONNECTIVITY) and XML UnstructuredGrid with ASCII
// DataArrays (.vtu). Cell types: 10 tetra, 12 hexahedron, 5 triangle, 9 quad, 3 line, 1 vertex
// (skipped). Cells of the highest dimension become Mesh::cells; in a 3D mesh the triangles and
// quads are kept in surface_groups["vtk_faces"].
#include <algorithm>
#include <cctype>
#include <cmath>

#include "mesh_io_common.hpp"

namespace softik::mesh_io {

namespace {

int vtk_kind(long long type, const Where& where) {
  switch (type) {
    case 1: return RawElements::kPoint;
    case 3: return static_cast<int>(CellType::Edge2);
    case 5: return static_cast<int>(CellType::Tri3);
    case 9: return static_cast<int>(CellType::Quad4);
    case 10: return static_cast<int>(CellType::Tet4);
    case 12: return static_cast<int>(CellType::Hex8);
    default:
      SOFTIK_PARSE_FAIL(where, "unsupported VTK cell type " << type
                                                           << ": softik reads 1 (vertex), 3 (line), 5 (triangle), 9 "
                                                              "(quad), 10 (tetra) and 12 (hexahedron); convert higher-order "
                                                              "or polyhedral cells to these");
  }
}

int kind_nodes(int kind) { return kind == RawElements::kPoint ? 1 : nodes_per_cell(static_cast<CellType>(kind)); }

/// Builds the mesh from points, per-cell connectivity (offsets into conn) and types.
MeshData build(const std::string& path, std::vector<Real> X, const std::vector<long>& point_lines,
               const std::vector<long long>& conn, const std::vector<long long>& offsets, const std::vector<long long>& types,
               const std::vector<long>& cell_lines, const std::vector<long>& type_lines) {
  MeshData data;
  data.mesh.X = std::move(X);
  const long long num_points = static_cast<long long>(data.mesh.X.size() / 3);
  RawElements raw;
  for (size_t c = 0; c < types.size(); ++c) {
    const Where where{path, cell_lines[c]};
    const int kind = vtk_kind(types[c], Where{path, type_lines[c]});
    const long long begin = c == 0 ? 0 : offsets[c - 1], end = offsets[c];
    SOFTIK_PARSE_CHECK(end - begin == kind_nodes(kind), where,
                       "cell " << c << " of VTK type " << types[c] << " has " << end - begin << " nodes, expected "
                               << kind_nodes(kind));
    raw.add(kind, cell_lines[c]);
    for (long long k = begin; k < end; ++k) {
      SOFTIK_PARSE_CHECK(conn[static_cast<size_t>(k)] >= 0 && conn[static_cast<size_t>(k)] < num_points, where,
                         "cell " << c << " uses point " << conn[static_cast<size_t>(k)] << ", outside [0, " << num_points
                                 << ")");
      raw.nodes.push_back(static_cast<int>(conn[static_cast<size_t>(k)]));
    }
    raw.close();
  }
  const std::vector<int> cell_of = assemble_cells(raw, point_lines, Where{path, 0}, "", &data.mesh);
  if (data.mesh.dim == 3)
    for (int e = 0; e < raw.size(); ++e) {
      const int* v = raw.nodes.data() + raw.offsets[e];
      if (raw.kind[e] == static_cast<int>(CellType::Tri3)) data.mesh.surface_groups["vtk_faces"].triangles.push_back({v[0], v[1], v[2]});
      if (raw.kind[e] == static_cast<int>(CellType::Quad4))
        data.mesh.surface_groups["vtk_faces"].quads.push_back({v[0], v[1], v[2], v[3]});
    }
  (void)cell_of;
  return data;
}

// ---- legacy ------------------------------------------------------------------------------

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

}  // namespace

MeshData read_vtk_legacy(const std::string& path) {
  TextFile file(path);
  std::string_view line = file.expect_line("at the header");
  SOFTIK_PARSE_CHECK(line.find("vtk DataFile Version") != std::string_view::npos, file.where(),
                     "expected '# vtk DataFile Version x.y': this is not a VTK legacy file");
  const bool v5 = line.find("Version 5") != std::string_view::npos;
  file.expect_line("at the title");
  line = file.expect_line("at the encoding");
  SOFTIK_PARSE_CHECK(upper(line).find("ASCII") != std::string::npos, file.where(),
                     "only ASCII VTK files are read, found '" << std::string(line.substr(0, 40))
                                                              << "': re-save the file as ASCII");
  std::string_view token = file.expect_token("at DATASET");
  SOFTIK_PARSE_CHECK(upper(token) == "DATASET", file.where(), "expected DATASET, found '" << token << "'");
  token = file.expect_token("at DATASET");
  SOFTIK_PARSE_CHECK(upper(token) == "UNSTRUCTURED_GRID", file.where(),
                     "dataset " << token << " is not read: softik reads UNSTRUCTURED_GRID meshes");
  std::vector<Real> X;
  std::vector<long> point_lines;
  std::vector<long long> conn, offsets, types;
  std::vector<long> cell_lines, type_lines;
  long long num_cells = -1;
  while (file.next_token(&token)) {
    const std::string key = upper(token);
    if (key == "POINTS") {
      const int n = next_count(file, "after POINTS", "the number of points");
      file.expect_token("after POINTS");  // data type
      for (int k = 0; k < 3 * n; ++k) {
        X.push_back(next_coordinate(file, "in POINTS", "a point coordinate"));
        if (k % 3 == 0) point_lines.push_back(file.where().line);
      }
    } else if (key == "CELLS" && !v5) {
      num_cells = next_count(file, "after CELLS", "the number of cells");
      const int size = next_count(file, "after CELLS", "the CELLS list size");
      long long read = 0;
      for (long long c = 0; c < num_cells; ++c) {
        const int k = next_count(file, "in CELLS", "a cell's node count");
        cell_lines.push_back(file.where().line);
        read += k + 1;
        SOFTIK_PARSE_CHECK(read <= size, file.where(), "the CELLS list is longer than its declared size " << size);
        for (int j = 0; j < k; ++j) conn.push_back(next_int(file, "in CELLS", "a point index"));
        offsets.push_back(static_cast<long long>(conn.size()));
      }
      SOFTIK_PARSE_CHECK(read == size, file.where(), "the CELLS list has " << read << " numbers, declared " << size);
    } else if (key == "CELLS") {  // 5.1: CELLS n_offsets n_connectivity, then OFFSETS and CONNECTIVITY
      const int n_off = next_count(file, "after CELLS", "the number of offsets");
      const int n_conn = next_count(file, "after CELLS", "the connectivity size");
      SOFTIK_PARSE_CHECK(n_off >= 1, file.where(), "CELLS needs at least one offset");
      num_cells = n_off - 1;
      SOFTIK_PARSE_CHECK(upper(file.expect_token("at OFFSETS")) == "OFFSETS", file.where(), "expected OFFSETS");
      file.expect_token("after OFFSETS");
      std::vector<long long> all;
      for (int k = 0; k < n_off; ++k) {
        all.push_back(next_int(file, "in OFFSETS", "an offset"));
        if (k > 0) cell_lines.push_back(file.where().line);
        SOFTIK_PARSE_CHECK(k == 0 ? all[0] == 0 : all[static_cast<size_t>(k)] >= all[static_cast<size_t>(k) - 1],
                           file.where(), "offsets must start at 0 and not decrease");
      }
      SOFTIK_PARSE_CHECK(all.back() == n_conn, file.where(), "the last offset " << all.back() << " differs from the connectivity size " << n_conn);
      offsets.assign(all.begin() + 1, all.end());
      SOFTIK_PARSE_CHECK(upper(file.expect_token("at CONNECTIVITY")) == "CONNECTIVITY", file.where(), "expected CONNECTIVITY");
      file.expect_token("after CONNECTIVITY");
      for (int k = 0; k < n_conn; ++k) conn.push_back(next_int(file, "in CONNECTIVITY", "a point index"));
    } else if (key == "CELL_TYPES") {
      const int n = next_count(file, "after CELL_TYPES", "the number of cell types");
      SOFTIK_PARSE_CHECK(n == num_cells, file.where(), "CELL_TYPES lists " << n << " cells, CELLS " << num_cells);
      for (int k = 0; k < n; ++k) {
        types.push_back(next_int(file, "in CELL_TYPES", "a cell type"));
        type_lines.push_back(file.where().line);
      }
    } else if (key == "POINT_DATA" || key == "CELL_DATA" || key == "FIELD" || key == "METADATA") {
      break;  // data arrays are not read
    } else {
      SOFTIK_PARSE_FAIL(file.where(), "unexpected keyword '" << std::string(token.substr(0, 40))
                                                             << "' (expected POINTS, CELLS or CELL_TYPES)");
    }
  }
  SOFTIK_PARSE_CHECK(!X.empty(), file.eof_where(), "no POINTS section");
  SOFTIK_PARSE_CHECK(num_cells >= 0, file.eof_where(), "no CELLS section");
  SOFTIK_PARSE_CHECK(types.size() == static_cast<size_t>(num_cells), file.eof_where(), "no CELL_TYPES section");
  return build(path, std::move(X), point_lines, conn, offsets, types, cell_lines, type_lines);
}

// ---- XML .vtu ----------------------------------------------------------------------------

namespace {

struct XmlArray {
  std::string section;  ///< Points, Cells, PointData, CellData
  std::string name;
  int components = 1;
  std::vector<Real> values;
  std::vector<long> lines;  ///< line of each value
  long line = 0;            ///< of the <DataArray tag
};

std::string attribute(std::string_view tag, const char* name) {
  const std::string key = std::string(" ") + name + "=\"";
  const size_t p = tag.find(key);
  if (p == std::string_view::npos) return {};
  const size_t start = p + key.size(), end = tag.find('"', start);
  return end == std::string_view::npos ? std::string() : std::string(tag.substr(start, end - start));
}

}  // namespace

MeshData read_vtu(const std::string& path) {
  TextFile file(path);
  const std::string& text = file.text();
  auto line_of = [&](size_t pos) { return static_cast<long>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n') + 1); };
  SOFTIK_PARSE_CHECK(text.find("<VTKFile") != std::string::npos && text.find("UnstructuredGrid") != std::string::npos,
                     file.where(1), "not a VTK XML UnstructuredGrid file (no <VTKFile type=\"UnstructuredGrid\">)");
  SOFTIK_PARSE_CHECK(text.find("<AppendedData") == std::string::npos, file.where(line_of(text.find("<AppendedData"))),
                     "appended (raw/binary) data is not read: re-save the .vtu with ASCII data (ParaView: Save Data, "
                     "Data Mode 'Ascii')");
  std::vector<XmlArray> arrays;
  const char* sections[] = {"Points", "Cells", "PointData", "CellData"};
  size_t pos = 0;
  while ((pos = text.find("<DataArray", pos)) != std::string::npos) {
    const size_t close = text.find('>', pos);
    SOFTIK_PARSE_CHECK(close != std::string::npos, file.where(line_of(pos)), "unterminated <DataArray tag");
    const std::string_view tag(text.data() + pos, close - pos);
    XmlArray a;
    a.line = line_of(pos);
    size_t best = 0;
    for (const char* s : sections) {
      const size_t open = text.rfind(std::string("<") + s, pos);
      const size_t shut = text.rfind(std::string("</") + s, pos);
      if (open != std::string::npos && (shut == std::string::npos || shut < open) && open + 1 > best) {
        best = open + 1;
        a.section = s;
      }
    }
    a.name = attribute(tag, "Name");
    const std::string format = attribute(tag, "format");
    SOFTIK_PARSE_CHECK(format == "ascii", file.where(a.line),
                       "DataArray '" << a.name << "' has format \"" << format
                                     << "\": only ascii is read; re-save the .vtu with ASCII data (ParaView: Save "
                                        "Data, Data Mode 'Ascii')");
    const std::string nc = attribute(tag, "NumberOfComponents");
    if (!nc.empty()) a.components = parse_count(nc, file.where(a.line), "NumberOfComponents");
    const size_t end = text.find("</DataArray>", close);
    SOFTIK_PARSE_CHECK(end != std::string::npos, file.where(a.line), "DataArray '" << a.name << "' is not closed by </DataArray>");
    TextFile body(path, text.substr(close + 1, end - close - 1));
    std::string_view token;
    const long base = line_of(close) - 1;
    while (body.next_token(&token)) {
      const Where where{path, base + body.where().line};
      a.values.push_back(parse_real(token, where, ("a value of DataArray '" + a.name + "'").c_str()));
      a.lines.push_back(where.line);
    }
    arrays.push_back(std::move(a));
    pos = end;
  }
  auto find = [&](const char* section, const char* name) -> const XmlArray* {
    for (const XmlArray& a : arrays)
      if (a.section == section && (name == nullptr || a.name == name)) return &a;
    return nullptr;
  };
  const XmlArray* points = find("Points", nullptr);
  const XmlArray* conn = find("Cells", "connectivity");
  const XmlArray* offs = find("Cells", "offsets");
  const XmlArray* types = find("Cells", "types");
  SOFTIK_PARSE_CHECK(points && conn && offs && types, file.eof_where(),
                     "the file needs a Points DataArray and Cells DataArrays named connectivity, offsets and types");
  SOFTIK_PARSE_CHECK(points->components == 3 && points->values.size() % 3 == 0, file.where(points->line),
                     "Points must have 3 components");
  for (size_t k = 0; k < points->values.size(); ++k)
    SOFTIK_PARSE_CHECK(std::isfinite(points->values[k]), file.where(points->lines[k]),
                       "a point coordinate is not a finite number: fix the NaN/inf coordinates");
  SOFTIK_PARSE_CHECK(offs->values.size() == types->values.size(), file.where(types->line),
                     "types lists " << types->values.size() << " cells, offsets " << offs->values.size());
  std::vector<long> point_lines;
  for (size_t k = 0; k < points->values.size(); k += 3) point_lines.push_back(points->lines[k]);
  auto ints = [&](const XmlArray& a) {
    std::vector<long long> out;
    for (size_t k = 0; k < a.values.size(); ++k) {
      SOFTIK_PARSE_CHECK(a.values[k] == static_cast<Real>(static_cast<long long>(a.values[k])), file.where(a.lines[k]),
                         "DataArray '" << a.name << "' holds " << a.values[k] << ", expected an integer");
      out.push_back(static_cast<long long>(a.values[k]));
    }
    return out;
  };
  const std::vector<long long> offsets = ints(*offs);
  for (size_t c = 0; c < offsets.size(); ++c)
    SOFTIK_PARSE_CHECK(offsets[c] >= (c ? offsets[c - 1] : 0) && offsets[c] <= static_cast<long long>(conn->values.size()),
                       file.where(offs->lines[c]), "offset " << offsets[c] << " of cell " << c
                                                             << " is decreasing or beyond the connectivity's "
                                                             << conn->values.size() << " entries");
  MeshData data = build(path, points->values, point_lines, ints(*conn), offsets, ints(*types), offs->lines, types->lines);
  // Point and cell data (cell data of the kept cells, in order: all cells when one type).
  for (const XmlArray& a : arrays) {
    if (a.section != "PointData" && a.section != "CellData") continue;
    const bool point = a.section == "PointData";
    const size_t count = point ? static_cast<size_t>(data.mesh.num_nodes()) : offsets.size();
    SOFTIK_PARSE_CHECK(a.values.size() == count * static_cast<size_t>(a.components), file.where(a.line),
                       (point ? "PointData" : "CellData") << " array '" << a.name << "' has " << a.values.size()
                                                          << " values, expected " << count << " x " << a.components);
    VtuField f{a.name, a.components, a.values};
    if (!point && static_cast<int>(count) != data.mesh.num_cells()) continue;  // mixed-dimension file: not mappable
    (point ? data.point_fields : data.cell_fields).push_back(std::move(f));
  }
  return data;
}

}  // namespace softik::mesh_io
