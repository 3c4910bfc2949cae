// VTK XML UnstructuredGrid reader (.vtu, mesh_io.hpp). The XML before the data is read by a
// small scanner (xml_scanner.hpp); DataArrays are ASCII text, inline base64 ("binary") or blocks
// in <AppendedData> (raw bytes or base64), uncompressed or zlib-compressed (vtu_binary.hpp). Raw
// appended bytes are never scanned as XML: the scan stops at <AppendedData>, and each array is
// read at its offset. Enough for our own writer's output and ParaView's (whose DataArrays may
// hold <InformationKey> children after the numbers).
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "host/io/mesh_io_common.hpp"
#include "host/io/vtu_binary.hpp"
#include "host/io/xml_scanner.hpp"

namespace softik::mesh_io {

namespace {

struct Array {
  std::string section;  // Points, Cells, PointData, CellData
  std::string name;
  std::string type;              // the type attribute (Float64, Int64, ...)
  std::string format = "ascii";  // ascii, binary (inline base64) or appended
  size_t offset = 0;             // appended: where its block starts in the appended data
  std::string base64;            // binary: its text
  int components = 1;
  bool integers = false;        // Cells arrays
  std::vector<Real> reals;      // !integers
  std::vector<long long> ints;  // integers
  std::vector<long> lines;      // line of the first value of each tuple (binary: of the tag)
  long line = 0;                // of the <DataArray> tag
  size_t size() const { return integers ? ints.size() : reals.size(); }
};

// The <VTKFile> attributes that say how binary data is laid out.
struct Layout {
  int header_bytes = 4;  // header_type UInt32 (VTK's default) or UInt64
  bool compressed = false;
  bool big_endian = false;
};

// The <AppendedData> element: its data starts after the '_' that follows the tag.
struct Appended {
  bool present = false;
  bool base64 = false;
  std::string_view data;  // raw: everything after '_' to the end of the file; base64: up to the next '<'
  long line = 0;
};

Layout read_layout(const XmlEvent& e, const Where& at) {
  Layout layout;
  if (const std::string* h = e.attribute("header_type")) {
    SOFTIK_PARSE_CHECK(*h == "UInt32" || *h == "UInt64", at,
                       "header_type \"" << *h << "\" is not read: expected UInt32 or UInt64");
    layout.header_bytes = *h == "UInt64" ? 8 : 4;
  }
  if (const std::string* c = e.attribute("compressor"); c && !c->empty()) {
    SOFTIK_PARSE_CHECK(*c == "vtkZLibDataCompressor", at,
                       "compressor \"" << *c
                                       << "\" is not read: softik reads uncompressed and zlib-compressed "
                                          "(vtkZLibDataCompressor) data; re-save the .vtu with Compressor Type 'ZLib' "
                                          "or 'None' (ParaView: File > Save Data)");
    layout.compressed = true;
  }
  if (const std::string* b = e.attribute("byte_order")) {
    SOFTIK_PARSE_CHECK(*b == "LittleEndian" || *b == "BigEndian", at,
                       "byte_order \"" << *b << "\" is not LittleEndian or BigEndian");
    layout.big_endian = *b == "BigEndian";
  }
  return layout;
}

// Whitespace, then `tag`, at the start of `rest`; rest is moved past it.
bool skip_to_tag(std::string_view* rest, const char* tag) {
  size_t p = 0;
  while (p < rest->size() && xml_is_space((*rest)[p])) ++p;
  const size_t n = std::char_traits<char>::length(tag);
  if (rest->substr(p, n) != tag) return false;
  rest->remove_prefix(p + n);
  return true;
}

// The bytes of an appended array (decoded from base64 when the data is base64).
std::string appended_bytes(const Appended& appended, size_t offset, const VtuBlockContext& c, size_t* extent) {
  SOFTIK_PARSE_CHECK(appended.present, c.where,
                     "DataArray '" << c.array << "' has format \"appended\" but the file has no <AppendedData>");
  SOFTIK_PARSE_CHECK(offset <= appended.data.size(), c.where,
                     "DataArray '" << c.array << "' has offset " << offset << ", beyond the " << appended.data.size()
                                   << " " << (appended.base64 ? "characters" : "bytes")
                                   << " of appended data: the file is truncated or the offset is wrong");
  std::string bytes;
  if (appended.base64) {
    *extent = decode_vtu_block(decode_base64(appended.data.substr(offset), c), c, &bytes);
  } else {
    *extent = decode_vtu_block(appended.data.substr(offset), c, &bytes);
  }
  return bytes;
}

/// What the scan of the XML before the data finds: the arrays (ASCII ones already parsed, binary
/// and appended ones still to decode), the layout, the appended data and the <Piece>'s counts.
struct Scan {
  std::vector<std::pair<std::string, long>> open;  // element stack: name, line
  std::vector<Array> arrays;
  std::vector<std::tuple<size_t, std::string, long>> appended_arrays;  // every appended DataArray: offset, name, line
  Layout layout;
  Appended appended;
  bool collecting = false;  // inside a <DataArray> that is read: its text holds its values
  bool seen_root = false;
  int pieces = 0;
  int num_points = 0, num_cells = 0;
  long piece_line = 0;
};

/// Text inside a read <DataArray>: binary keeps its base64 to decode after the scan; ASCII numbers
/// are parsed now, each tuple noting the line of its first value.
void collect_text(const TextFile& file, const XmlEvent& e, Array* a) {
  if (a->format == "binary") a->base64 += e.text;
  if (a->format != "ascii") return;
  TextFile body(file.path(), std::string(e.text));
  std::string_view token;
  while (body.next_token(&token)) {
    const Where w = file.where(e.line + body.where().line - 1);
    if (a->size() % static_cast<size_t>(a->components) == 0) a->lines.push_back(w.line);
    if (a->integers)
      a->ints.push_back(parse_int(token, w, "an integer of DataArray 'connectivity'/'offsets'/'types'"));
    else
      a->reals.push_back(parse_real(token, w, "a number of a DataArray"));
  }
}

/// A closing tag must close the innermost open element.
void close_element(const XmlEvent& e, const Where& at, Scan* s) {
  SOFTIK_PARSE_CHECK(!s->open.empty() && s->open.back().first == e.name, at,
                     "malformed XML: </" << e.name << "> does not close "
                                         << (s->open.empty() ? std::string("any element")
                                                             : "<" + s->open.back().first + "> (opened at line " +
                                                                   std::to_string(s->open.back().second) + ")"));
  if (e.name == "DataArray") s->collecting = false;
  s->open.pop_back();
}

/// The root element must be <VTKFile type="UnstructuredGrid">; its attributes give the layout.
Layout read_root(const XmlEvent& e, const Where& at) {
  SOFTIK_PARSE_CHECK(e.name == "VTKFile", at,
                     "expected <VTKFile> as the root element, found <" << e.name << ">: not a .vtu file");
  const std::string* type = e.attribute("type");
  SOFTIK_PARSE_CHECK(type && *type == "UnstructuredGrid", at,
                     "VTKFile type \"" << (type ? *type : std::string())
                                       << "\" is not read: softik reads UnstructuredGrid (.vtu) meshes");
  return read_layout(e, at);
}

/// <AppendedData>: a child of <VTKFile>, encoding raw or base64. Unless the tag is empty, its data
/// starts after the '_' that follows the tag, and the scan stops there: raw bytes follow.
void read_appended_data(const TextFile& file, const XmlScanner& xml, const XmlEvent& e, const Where& at,
                        const std::string& parent, Appended* appended) {
  SOFTIK_PARSE_CHECK(parent == "VTKFile", at,
                     "<AppendedData> inside <" << parent << ">: it must be a child of <VTKFile>");
  const std::string* encoding = e.attribute("encoding");
  SOFTIK_PARSE_CHECK(encoding && (*encoding == "raw" || *encoding == "base64"), at,
                     "<AppendedData> needs encoding=\"raw\" or \"base64\", found "
                         << (encoding ? "\"" + *encoding + "\"" : std::string("none")));
  appended->base64 = *encoding == "base64";
  appended->line = e.line;
  if (e.kind == XmlEvent::kEmpty) return;  // no data
  const std::string_view text = file.text();
  size_t p = xml.offset();
  while (p < text.size() && xml_is_space(text[p])) ++p;
  SOFTIK_PARSE_CHECK(
      p < text.size() && text[p] == '_', at,
      "the data of <AppendedData> must start with '_'" << (p < text.size() ? "" : " (the file ends here: truncated?)"));
  appended->data = text.substr(p + 1);
  if (appended->base64) appended->data = appended->data.substr(0, appended->data.find('<'));
  appended->present = true;  // the scan stops here: raw bytes follow
}

/// The one <Piece> (softik reads single-piece files) and its NumberOfPoints and NumberOfCells.
void read_piece(const XmlEvent& e, const Where& at, Scan* s) {
  SOFTIK_PARSE_CHECK(++s->pieces == 1, at,
                     "a second <Piece> (the first at line " << s->piece_line
                                                            << "): softik reads single-piece files; merge the "
                                                               "pieces (ParaView: Merge Blocks) and save again");
  s->piece_line = e.line;
  const std::string* np = e.attribute("NumberOfPoints");
  const std::string* nc = e.attribute("NumberOfCells");
  SOFTIK_PARSE_CHECK(np && nc, at, "<Piece> needs NumberOfPoints and NumberOfCells attributes");
  s->num_points = parse_count(*np, at, "NumberOfPoints");
  s->num_cells = parse_count(*nc, at, "NumberOfCells");
}

/// A <DataArray>: format ascii, binary or appended (at an offset, noted for every appended array, read
/// or not, to find where the raw bytes end); binary data must be little-endian. An array inside
/// Points, Cells, PointData or CellData and not of type String is read: its values follow as text
/// (ascii, binary) or are decoded after the scan (appended).
void read_data_array(const XmlEvent& e, const Where& at, const std::string& parent, Scan* s) {
  const std::string name = e.attribute("Name") ? *e.attribute("Name") : std::string();
  const std::string* format = e.attribute("format");
  const std::string fmt = format ? *format : "ascii";
  SOFTIK_PARSE_CHECK(fmt == "ascii" || fmt == "binary" || fmt == "appended", at,
                     "DataArray '" << name << "' has format \"" << fmt << "\": expected ascii, binary or appended");
  size_t offset = 0;
  if (fmt == "appended") {
    const std::string* o = e.attribute("offset");
    SOFTIK_PARSE_CHECK(o, at, "DataArray '" << name << "' has format \"appended\" but no offset attribute");
    const long long value = parse_int(*o, at, "the offset of an appended DataArray");
    SOFTIK_PARSE_CHECK(value >= 0, at, "DataArray '" << name << "' has the negative offset " << value);
    offset = static_cast<size_t>(value);
    s->appended_arrays.emplace_back(offset, name, e.line);
  }
  SOFTIK_PARSE_CHECK(fmt == "ascii" || !s->layout.big_endian, at,
                     "DataArray '" << name
                                   << "' holds binary data of byte_order BigEndian, which softik does not "
                                      "read: re-save the .vtu on a little-endian machine or with ASCII data");
  const std::string* type = e.attribute("type");
  const bool read = parent == "Points" || parent == "Cells" || parent == "PointData" || parent == "CellData";
  if (!read || (type && *type == "String")) return;
  Array a;
  a.section = parent;
  a.name = name;
  a.format = fmt;
  a.offset = offset;
  SOFTIK_PARSE_CHECK(type || fmt == "ascii", at, "DataArray '" << name << "' has binary data but no type attribute");
  if (type) a.type = *type;
  a.integers = parent == "Cells";
  a.line = e.line;
  if (const std::string* nc = e.attribute("NumberOfComponents"))
    a.components = parse_count(*nc, at, "NumberOfComponents");
  SOFTIK_PARSE_CHECK(a.components >= 1 && (!a.integers || a.components == 1), at,
                     "DataArray '" << a.name << "' has NumberOfComponents=\"" << a.components << "\", expected "
                                   << (a.integers ? "1 in <Cells>" : "at least 1"));
  s->arrays.push_back(std::move(a));
  s->collecting = e.kind == XmlEvent::kOpen;
}

/// Scans the XML up to <AppendedData> (or the end of the file): the root is checked first, every
/// closing tag must match, and at the end no element may be left open but <VTKFile> when the
/// appended data follows.
Scan scan_xml(const TextFile& file) {
  Scan s;
  XmlScanner xml(file);
  XmlEvent e;
  while (!s.appended.present && xml.next(&e)) {
    const Where at = file.where(e.line);
    if (e.kind == XmlEvent::kText) {
      if (s.collecting && s.open.back().first == "DataArray") collect_text(file, e, &s.arrays.back());
      continue;
    }
    if (e.kind == XmlEvent::kClose) {
      close_element(e, at, &s);
      continue;
    }
    if (!s.seen_root) {
      s.layout = read_root(e, at);
      s.seen_root = true;
    }
    const std::string parent = s.open.empty() ? std::string() : s.open.back().first;
    if (e.name == "AppendedData") {
      read_appended_data(file, xml, e, at, parent, &s.appended);
      continue;  // never on the element stack
    }
    if (e.name == "Piece") read_piece(e, at, &s);
    if (e.name == "DataArray") read_data_array(e, at, parent, &s);
    if (e.kind == XmlEvent::kOpen) s.open.emplace_back(e.name, e.line);
  }
  SOFTIK_PARSE_CHECK(s.seen_root, file.eof_where(), "no <VTKFile> element: not a .vtu file");
  const size_t still_open = s.appended.present ? 1 : 0;  // <VTKFile>, closed after the appended data
  SOFTIK_PARSE_CHECK(s.open.size() == still_open, file.eof_where(),
                     "unexpected end of file inside <" << s.open.back().first << "> (opened at line "
                                                       << s.open.back().second << "): the file is truncated");
  return s;
}

/// Decodes the binary (inline base64) and appended arrays; each tuple's line is that of the
/// <DataArray> tag.
void decode_arrays(const TextFile& file, Scan* s) {
  for (Array& a : s->arrays) {
    if (a.format == "ascii") continue;
    const VtuBlockContext context{s->layout.header_bytes, s->layout.compressed, file.where(a.line), a.name};
    std::string bytes;
    size_t extent = 0;
    if (a.format == "binary")
      decode_vtu_block(decode_base64(a.base64, context), context, &bytes);
    else
      bytes = appended_bytes(s->appended, a.offset, context, &extent);
    vtu_values(bytes, a.type, a.integers, context, &a.reals, &a.ints);
    a.lines.assign((a.size() + static_cast<size_t>(a.components) - 1) / static_cast<size_t>(a.components), a.line);
  }
}

/// Raw appended data (with appended arrays): the raw bytes end where the array reaching furthest
/// ends; the closing tags must follow.
void check_appended_end(const TextFile& file, const Scan& s) {
  const Appended& appended = s.appended;
  if (!appended.present || appended.base64 || s.appended_arrays.empty()) return;
  size_t end = 0;
  for (const auto& [offset, name, line] : s.appended_arrays) {
    const VtuBlockContext context{s.layout.header_bytes, s.layout.compressed, file.where(line), name};
    size_t extent = 0;
    if (offset <= appended.data.size())
      extent = vtu_block_extent(appended.data.substr(offset), context);
    else
      appended_bytes(appended, offset, context, &extent);  // throws: beyond the data
    end = std::max(end, offset + extent);
  }
  std::string_view rest = appended.data.substr(end);
  SOFTIK_PARSE_CHECK(skip_to_tag(&rest, "</AppendedData>") && skip_to_tag(&rest, "</VTKFile>"), Where{file.path()},
                     "the appended data (from line " << appended.line << ") ends after " << end
                                                     << " bytes, but </AppendedData></VTKFile> does not follow: the "
                                                        "file is truncated or an offset is wrong");
}

/// The first array of `section` (named `name` unless null); throws at the <Piece> when there is none.
const Array& find_array(const TextFile& file, const Scan& s, const char* section, const char* name) {
  for (const Array& a : s.arrays)
    if (a.section == section && (!name || a.name == name)) return a;
  SOFTIK_PARSE_FAIL(file.where(s.piece_line), "the <Piece> has no "
                                                  << section << " DataArray"
                                                  << (name ? std::string(" named '") + name + "'" : ""));
}

/// An array holds `count` tuples: NumberOfPoints ("point") or NumberOfCells ("cell").
void check_size(const TextFile& file, const Array& a, size_t count, const char* what) {
  SOFTIK_PARSE_CHECK(a.size() == count * static_cast<size_t>(a.components), file.where(a.line),
                     "DataArray '" << a.name << "' holds " << a.size() << " numbers, expected " << count * a.components
                                   << " (" << a.components << " per " << what << ", NumberOf"
                                   << (std::string(what) == "point" ? "Points" : "Cells") << "=\"" << count << "\")");
}

/// The Points hold NumberOfPoints finite 3-component points; offsets and types one entry per cell.
void check_piece_arrays(const TextFile& file, const Scan& s, const Array& points, const Array& offsets,
                        const Array& types) {
  SOFTIK_PARSE_CHECK(points.components == 3, file.where(points.line),
                     "the Points DataArray has NumberOfComponents=\"" << points.components << "\", expected 3");
  check_size(file, points, static_cast<size_t>(s.num_points), "point");
  check_size(file, offsets, static_cast<size_t>(s.num_cells), "cell");
  check_size(file, types, static_cast<size_t>(s.num_cells), "cell");
  for (size_t k = 0; k < points.reals.size(); ++k)
    SOFTIK_PARSE_CHECK(std::isfinite(points.reals[k]), file.where(points.lines[k / 3]),
                       "point " << k / 3 << " has the non-finite coordinate " << points.reals[k]
                                << ": fix the NaN/inf coordinates in the mesh or in the program that wrote it");
}

/// The VTK cells: each offset (after the leading 0) is at least the one before and at most the
/// connectivity's size, and the last one ends the connectivity.
VtkCells vtk_cells(const TextFile& file, const Array& conn, const Array& offsets, const Array& types) {
  VtkCells cells;
  cells.types = types.ints;
  cells.type_lines = types.lines;
  cells.conn = conn.ints;
  cells.conn_lines = conn.lines;
  cells.cell_lines = offsets.lines;
  for (size_t c = 0; c < offsets.ints.size(); ++c) {
    const long long o = offsets.ints[c];
    SOFTIK_PARSE_CHECK(o >= cells.offsets.back() && o <= static_cast<long long>(conn.ints.size()),
                       file.where(offsets.lines[c]),
                       "offset " << o << " of cell " << c << " decreases or exceeds the " << conn.ints.size()
                                 << " connectivity entries");
    cells.offsets.push_back(o);
  }
  SOFTIK_PARSE_CHECK(
      cells.offsets.back() == static_cast<long long>(conn.ints.size()), file.where(conn.line),
      "the connectivity holds " << conn.ints.size() << " entries, but the last offset is " << cells.offsets.back());
  return cells;
}

/// PointData and CellData arrays, in file order, as fields; a cell field keeps the values of the
/// VTK cells that became mesh cells (cell_of[c] >= 0) only.
void read_fields(const TextFile& file, const Scan& s, const std::vector<int>& cell_of, MeshData* data) {
  for (const Array& a : s.arrays) {
    if (a.section == "PointData") {
      check_size(file, a, static_cast<size_t>(s.num_points), "point");
      data->point_fields.push_back({a.name, a.components, a.reals});
    } else if (a.section == "CellData") {
      check_size(file, a, static_cast<size_t>(s.num_cells), "cell");
      VtuField f{a.name, a.components, {}};
      for (size_t c = 0; c < cell_of.size(); ++c)
        if (cell_of[c] >= 0)
          f.values.insert(f.values.end(), a.reals.begin() + static_cast<long>(c) * a.components,
                          a.reals.begin() + static_cast<long>(c + 1) * a.components);
      data->cell_fields.push_back(std::move(f));
    }
  }
}

}  // namespace

MeshData read_vtu(const std::string& path) {
  TextFile file(path);
  Scan scan = scan_xml(file);
  decode_arrays(file, &scan);
  check_appended_end(file, scan);
  SOFTIK_PARSE_CHECK(scan.pieces == 1, file.eof_where(), "no <Piece> element in the file");

  const Array& points = find_array(file, scan, "Points", nullptr);
  const Array& conn = find_array(file, scan, "Cells", "connectivity");
  const Array& offsets = find_array(file, scan, "Cells", "offsets");
  const Array& types = find_array(file, scan, "Cells", "types");
  check_piece_arrays(file, scan, points, offsets, types);
  const VtkCells cells = vtk_cells(file, conn, offsets, types);
  MeshData data;
  std::vector<int> cell_of;
  data.mesh = build_vtk_mesh(path, points.reals, std::vector<long>(points.lines), cells, &cell_of);
  read_fields(file, scan, cell_of, &data);
  return data;
}

}  // namespace softik::mesh_io
