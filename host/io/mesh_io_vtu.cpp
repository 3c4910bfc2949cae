// VTK XML UnstructuredGrid reader (.vtu, mesh_io.hpp) with ASCII DataArrays. No XML library: a
// small scanner hands out tags (name, attributes, line) and the text between them; comments,
// processing instructions and DOCTYPE are skipped, CDATA is text. Enough for our own writer's
// output and ParaView's (whose DataArrays may hold <InformationKey> children after the numbers).
#include <cmath>
#include <string>

#include "host/io/mesh_io_common.hpp"

namespace softik::mesh_io {

namespace {

struct XmlEvent {
  enum Kind { kText, kOpen, kClose, kEmpty } kind = kText;  // kEmpty: <tag ... />
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string_view text;
  long line = 0;

  const std::string* attribute(const char* key) const {
    for (const auto& [k, v] : attributes)
      if (k == key) return &v;
    return nullptr;
  }
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_name_char(char c) { return !is_space(c) && c != '=' && c != '>' && c != '/' && c != '<' && c != '"' && c != '\''; }

// Replaces the five predefined entities and numeric character references below 128.
std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const size_t semi = s[i] == '&' ? s.find(';', i) : std::string_view::npos;
    if (semi == std::string_view::npos || semi - i > 8) {
      out += s[i];
      continue;
    }
    const std::string_view entity = s.substr(i + 1, semi - i - 1);
    char c = 0;
    if (entity == "lt") c = '<';
    else if (entity == "gt") c = '>';
    else if (entity == "amp") c = '&';
    else if (entity == "quot") c = '"';
    else if (entity == "apos") c = '\'';
    else if (entity.size() > 1 && entity[0] == '#') {
      long code = 0;
      const bool hex = entity[1] == 'x' || entity[1] == 'X';
      for (size_t k = hex ? 2 : 1; k < entity.size() && code < 128; ++k) {
        const char d = entity[k];
        const int v = d >= '0' && d <= '9' ? d - '0' : hex && d >= 'a' && d <= 'f' ? d - 'a' + 10
                                                      : hex && d >= 'A' && d <= 'F' ? d - 'A' + 10 : -1;
        code = v < 0 ? 128 : code * (hex ? 16 : 10) + v;
      }
      if (code > 0 && code < 128) c = static_cast<char>(code);
    }
    if (c == 0) {
      out += s[i];
      continue;
    }
    out += c;
    i = semi;
  }
  return out;
}

class XmlScanner {
 public:
  explicit XmlScanner(const TextFile& file) : file_(file), text_(file.text()) {}

  bool next(XmlEvent* e) {
    while (pos_ < text_.size()) {
      if (text_[pos_] != '<') {
        size_t end = text_.find('<', pos_);
        if (end == std::string::npos) end = text_.size();
        e->kind = XmlEvent::kText;
        e->text = std::string_view(text_).substr(pos_, end - pos_);
        e->line = line_;
        advance(end);
        return true;
      }
      const long start_line = line_;
      if (starts_with("<!--")) {
        skip_past("-->", start_line, "comment");
      } else if (starts_with("<![CDATA[")) {
        const size_t end = text_.find("]]>", pos_);
        SOFTIK_PARSE_CHECK(end != std::string::npos, file_.eof_where(),
                           "unexpected end of file inside the CDATA section started at line " << start_line);
        e->kind = XmlEvent::kText;
        e->text = std::string_view(text_).substr(pos_ + 9, end - pos_ - 9);
        e->line = start_line;
        advance(end + 3);
        return true;
      } else if (starts_with("<?")) {
        skip_past("?>", start_line, "processing instruction");
      } else if (starts_with("<!")) {
        skip_past(">", start_line, "declaration");
      } else {
        read_tag(e);
        return true;
      }
    }
    return false;
  }

 private:
  bool starts_with(const char* s) const { return text_.compare(pos_, std::char_traits<char>::length(s), s) == 0; }

  void advance(size_t to) {
    for (; pos_ < to; ++pos_)
      if (text_[pos_] == '\n') ++line_;
  }

  void skip_past(const char* end, long start_line, const char* what) {
    const size_t p = text_.find(end, pos_ + 1);
    SOFTIK_PARSE_CHECK(p != std::string::npos, file_.eof_where(),
                       "unexpected end of file inside the XML " << what << " started at line " << start_line);
    advance(p + std::char_traits<char>::length(end));
  }

  void skip_spaces() {
    while (pos_ < text_.size() && is_space(text_[pos_])) advance(pos_ + 1);
  }

  void expect_more(long start_line) const {
    SOFTIK_PARSE_CHECK(pos_ < text_.size(), file_.eof_where(),
                       "unexpected end of file inside the XML tag started at line " << start_line << " (truncated?)");
  }

  std::string read_name() {
    const size_t start = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  void read_tag(XmlEvent* e) {
    e->line = line_;
    e->attributes.clear();
    ++pos_;  // '<'
    e->kind = XmlEvent::kOpen;
    if (pos_ < text_.size() && text_[pos_] == '/') {
      e->kind = XmlEvent::kClose;
      ++pos_;
    }
    e->name = read_name();
    SOFTIK_PARSE_CHECK(!e->name.empty(), file_.where(e->line), "malformed XML: '<' not followed by a tag name");
    for (;;) {
      skip_spaces();
      expect_more(e->line);
      const char c = text_[pos_];
      if (c == '>') {
        ++pos_;
        return;
      }
      if (c == '/' && e->kind == XmlEvent::kOpen) {
        ++pos_;
        expect_more(e->line);
        SOFTIK_PARSE_CHECK(text_[pos_] == '>', file_.where(line_), "malformed XML tag <" << e->name << ">: '/' not followed by '>'");
        ++pos_;
        e->kind = XmlEvent::kEmpty;
        return;
      }
      SOFTIK_PARSE_CHECK(e->kind == XmlEvent::kOpen, file_.where(line_), "malformed XML: attributes in </" << e->name << ">");
      std::string key = read_name();
      SOFTIK_PARSE_CHECK(!key.empty(), file_.where(line_),
                         "malformed XML tag <" << e->name << ">: unexpected character '" << c << "'");
      skip_spaces();
      expect_more(e->line);
      SOFTIK_PARSE_CHECK(text_[pos_] == '=', file_.where(line_),
                         "malformed XML tag <" << e->name << ">: attribute " << key << " has no '=\"value\"'");
      advance(pos_ + 1);
      skip_spaces();
      expect_more(e->line);
      const char quote = text_[pos_];
      SOFTIK_PARSE_CHECK(quote == '"' || quote == '\'', file_.where(line_),
                         "malformed XML tag <" << e->name << ">: the value of " << key << " is not quoted");
      const size_t end = text_.find(quote, pos_ + 1);
      SOFTIK_PARSE_CHECK(end != std::string::npos, file_.eof_where(),
                         "unexpected end of file inside the XML tag started at line " << e->line << " (truncated?)");
      e->attributes.emplace_back(std::move(key), unescape(std::string_view(text_).substr(pos_ + 1, end - pos_ - 1)));
      advance(end + 1);
    }
  }

  const TextFile& file_;
  const std::string& text_;
  size_t pos_ = 0;
  long line_ = 1;
};

struct Array {
  std::string section;  // Points, Cells, PointData, CellData
  std::string name;
  int components = 1;
  bool integers = false;        // Cells arrays
  std::vector<Real> reals;      // !integers
  std::vector<long long> ints;  // integers
  std::vector<long> lines;      // line of the first value of each tuple
  long line = 0;                // of the <DataArray> tag
  size_t size() const { return integers ? ints.size() : reals.size(); }
};

const char* const kAsciiFix = "re-save the .vtu with ASCII data (ParaView: File > Save Data, Data Mode 'Ascii'; "
                              "VTK: vtkXMLUnstructuredGridWriter::SetDataModeToAscii())";

}  // namespace

MeshData read_vtu(const std::string& path) {
  TextFile file(path);
  XmlScanner xml(file);
  XmlEvent e;
  std::vector<std::pair<std::string, long>> open;  // element stack: name, line
  std::vector<Array> arrays;
  bool collecting = false;
  bool seen_root = false;
  int pieces = 0;
  int num_points = 0, num_cells = 0;
  long piece_line = 0;
  while (xml.next(&e)) {
    const Where at = file.where(e.line);
    if (e.kind == XmlEvent::kText) {
      if (!collecting || open.back().first != "DataArray") continue;
      Array& a = arrays.back();
      TextFile body(path, std::string(e.text));
      std::string_view token;
      while (body.next_token(&token)) {
        const Where w = file.where(e.line + body.where().line - 1);
        if (a.size() % static_cast<size_t>(a.components) == 0) a.lines.push_back(w.line);
        if (a.integers)
          a.ints.push_back(parse_int(token, w, "an integer of DataArray 'connectivity'/'offsets'/'types'"));
        else
          a.reals.push_back(parse_real(token, w, "a number of a DataArray"));
      }
      continue;
    }
    if (e.kind == XmlEvent::kClose) {
      SOFTIK_PARSE_CHECK(!open.empty() && open.back().first == e.name, at,
                         "malformed XML: </" << e.name << "> does not close "
                                             << (open.empty() ? std::string("any element")
                                                              : "<" + open.back().first + "> (opened at line " +
                                                                    std::to_string(open.back().second) + ")"));
      if (e.name == "DataArray") collecting = false;
      open.pop_back();
      continue;
    }
    if (!seen_root) {
      SOFTIK_PARSE_CHECK(e.name == "VTKFile", at, "expected <VTKFile> as the root element, found <" << e.name
                                                                                                 << ">: not a .vtu file");
      const std::string* type = e.attribute("type");
      SOFTIK_PARSE_CHECK(type && *type == "UnstructuredGrid", at,
                         "VTKFile type \"" << (type ? *type : std::string())
                                           << "\" is not read: softik reads UnstructuredGrid (.vtu) meshes");
      seen_root = true;
    }
    const std::string parent = open.empty() ? std::string() : open.back().first;
    if (e.name == "AppendedData") SOFTIK_PARSE_FAIL(at, "appended data is not read: " << kAsciiFix);
    if (e.name == "Piece") {
      SOFTIK_PARSE_CHECK(++pieces == 1, at, "a second <Piece> (the first at line "
                                                << piece_line << "): softik reads single-piece files; merge the "
                                                                 "pieces (ParaView: Merge Blocks) and save again");
      piece_line = e.line;
      const std::string* np = e.attribute("NumberOfPoints");
      const std::string* nc = e.attribute("NumberOfCells");
      SOFTIK_PARSE_CHECK(np && nc, at, "<Piece> needs NumberOfPoints and NumberOfCells attributes");
      num_points = parse_count(*np, at, "NumberOfPoints");
      num_cells = parse_count(*nc, at, "NumberOfCells");
    }
    if (e.name == "DataArray" && (parent == "Points" || parent == "Cells" || parent == "PointData" || parent == "CellData")) {
      const std::string* format = e.attribute("format");
      SOFTIK_PARSE_CHECK(!format || *format == "ascii", at,
                         "DataArray " << (e.attribute("Name") ? "'" + *e.attribute("Name") + "' " : std::string())
                                      << "has format \"" << *format << "\", which softik does not read: " << kAsciiFix);
      const std::string* type = e.attribute("type");
      if (!type || *type != "String") {
        Array a;
        a.section = parent;
        a.name = e.attribute("Name") ? *e.attribute("Name") : std::string();
        a.integers = parent == "Cells";
        a.line = e.line;
        if (const std::string* nc = e.attribute("NumberOfComponents"))
          a.components = parse_count(*nc, at, "NumberOfComponents");
        SOFTIK_PARSE_CHECK(a.components >= 1 && (!a.integers || a.components == 1), at,
                           "DataArray '" << a.name << "' has NumberOfComponents=\"" << a.components
                                         << "\", expected " << (a.integers ? "1 in <Cells>" : "at least 1"));
        arrays.push_back(std::move(a));
        collecting = e.kind == XmlEvent::kOpen;
      }
    }
    if (e.kind == XmlEvent::kOpen) open.emplace_back(e.name, e.line);
  }
  SOFTIK_PARSE_CHECK(seen_root, file.eof_where(), "no <VTKFile> element: not a .vtu file");
  SOFTIK_PARSE_CHECK(open.empty(), file.eof_where(),
                     "unexpected end of file inside <" << open.back().first << "> (opened at line "
                                                       << open.back().second << "): the file is truncated");
  SOFTIK_PARSE_CHECK(pieces == 1, file.eof_where(), "no <Piece> element in the file");

  auto find = [&](const char* section, const char* name) -> const Array* {
    for (const Array& a : arrays)
      if (a.section == section && (!name || a.name == name)) return &a;
    SOFTIK_PARSE_FAIL(file.where(piece_line), "the <Piece> has no " << section << " DataArray"
                                                                    << (name ? std::string(" named '") + name + "'" : ""));
  };
  const Array& points = *find("Points", nullptr);
  const Array& conn = *find("Cells", "connectivity");
  const Array& offsets = *find("Cells", "offsets");
  const Array& types = *find("Cells", "types");
  SOFTIK_PARSE_CHECK(points.components == 3, file.where(points.line),
                     "the Points DataArray has NumberOfComponents=\"" << points.components << "\", expected 3");
  auto check_size = [&](const Array& a, size_t count, const char* what) {
    SOFTIK_PARSE_CHECK(a.size() == count * static_cast<size_t>(a.components), file.where(a.line),
                       "DataArray '" << a.name << "' holds " << a.size() << " numbers, expected " << count * a.components
                                     << " (" << a.components << " per " << what << ", NumberOf"
                                     << (std::string(what) == "point" ? "Points" : "Cells") << "=\"" << count << "\")");
  };
  check_size(points, static_cast<size_t>(num_points), "point");
  check_size(offsets, static_cast<size_t>(num_cells), "cell");
  check_size(types, static_cast<size_t>(num_cells), "cell");
  for (size_t k = 0; k < points.reals.size(); ++k)
    SOFTIK_PARSE_CHECK(std::isfinite(points.reals[k]), file.where(points.lines[k / 3]),
                       "point " << k / 3 << " has the non-finite coordinate " << points.reals[k]
                                << ": fix the NaN/inf coordinates in the mesh or in the program that wrote it");
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
  SOFTIK_PARSE_CHECK(cells.offsets.back() == static_cast<long long>(conn.ints.size()), file.where(conn.line),
                     "the connectivity holds " << conn.ints.size() << " entries, but the last offset is "
                                               << cells.offsets.back());
  MeshData data;
  std::vector<int> cell_of;
  data.mesh = build_vtk_mesh(path, points.reals, std::vector<long>(points.lines), cells, &cell_of);
  for (const Array& a : arrays) {
    if (a.section == "PointData") {
      check_size(a, static_cast<size_t>(num_points), "point");
      data.point_fields.push_back({a.name, a.components, a.reals});
    } else if (a.section == "CellData") {
      check_size(a, static_cast<size_t>(num_cells), "cell");
      VtuField f{a.name, a.components, {}};
      for (size_t c = 0; c < cell_of.size(); ++c)
        if (cell_of[c] >= 0)
          f.values.insert(f.values.end(), a.reals.begin() + static_cast<long>(c) * a.components,
                          a.reals.begin() + static_cast<long>(c + 1) * a.components);
      data.cell_fields.push_back(std::move(f));
    }
  }
  return data;
}

}  // namespace softik::mesh_io
