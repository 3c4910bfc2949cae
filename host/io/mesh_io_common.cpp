// Shared pieces of the mesh readers (mesh_io_common.hpp) and the dispatch on file extensions.
#include "host/io/mesh_io_common.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

namespace softik::mesh_io {

std::ostream& operator<<(std::ostream& os, const Where& where) {
  os << where.path;
  if (where.line > 0) os << ':' << where.line;
  return os;
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// A token as shown in an error: at most 40 characters, non-printable bytes as '?'.
std::string shown(std::string_view token) {
  std::string s;
  for (size_t i = 0; i < token.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    s += (c >= 32 && c < 127) ? static_cast<char>(c) : '?';
  }
  if (token.size() > 40) s += "...";
  return s;
}

std::string read_whole_file(const std::string& path) {
  std::error_code ec;
  SOFTIK_PARSE_CHECK(!std::filesystem::is_directory(path, ec), Where{path}, "cannot open the file (it is a directory)");
  std::ifstream in(path, std::ios::binary);
  SOFTIK_PARSE_CHECK(in.good(), Where{path}, "cannot open the file (" << std::strerror(errno) << ")");
  std::ostringstream s;
  s << in.rdbuf();
  SOFTIK_PARSE_CHECK(!in.bad(), Where{path}, "cannot read the file (" << std::strerror(errno) << ")");
  return s.str();
}

}  // namespace

TextFile::TextFile(std::string path) : TextFile(path, read_whole_file(path)) {}

TextFile::TextFile(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {
  long newlines = 0;
  for (char c : text_) newlines += c == '\n' ? 1 : 0;
  num_lines_ = newlines + ((!text_.empty() && text_.back() != '\n') ? 1 : 0);
  if (num_lines_ < 1) num_lines_ = 1;
}

bool TextFile::next_line(std::string_view* line) {
  if (pos_ >= text_.size()) {
    last_line_ = num_lines_;
    return false;
  }
  size_t end = text_.find('\n', pos_);
  if (end == std::string::npos) end = text_.size();
  size_t stop = end;
  if (stop > pos_ && text_[stop - 1] == '\r') --stop;
  *line = std::string_view(text_).substr(pos_, stop - pos_);
  last_line_ = line_;
  if (end < text_.size()) {
    pos_ = end + 1;
    ++line_;
  } else {
    pos_ = end;
  }
  return true;
}

std::string_view TextFile::expect_line(const char* context) { return expect(&TextFile::next_line, context); }

bool TextFile::next_token(std::string_view* token) {
  while (pos_ < text_.size() && is_space(text_[pos_])) {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }
  if (pos_ >= text_.size()) {
    last_line_ = num_lines_;
    return false;
  }
  const size_t start = pos_;
  while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
  *token = std::string_view(text_).substr(start, pos_ - start);
  last_line_ = line_;
  return true;
}

std::string_view TextFile::expect_token(const char* context) { return expect(&TextFile::next_token, context); }

std::string_view TextFile::expect(bool (TextFile::*next)(std::string_view*), const char* context) {
  std::string_view item;
  SOFTIK_PARSE_CHECK((this->*next)(&item), eof_where(),
                     "unexpected end of file " << context << " (is the file truncated?)");
  return item;
}

std::string_view TextFile::peek_token() const {
  size_t p = pos_;
  while (p < text_.size() && is_space(text_[p])) ++p;
  const size_t start = p;
  while (p < text_.size() && !is_space(text_[p])) ++p;
  return std::string_view(text_).substr(start, p - start);
}

bool TextFile::take_bytes(size_t n, std::string_view* bytes) {
  if (n > text_.size() - pos_) return false;
  *bytes = std::string_view(text_).substr(pos_, n);
  for (char c : *bytes) line_ += c == '\n' ? 1 : 0;
  pos_ += n;
  last_line_ = line_;
  return true;
}

std::string_view trim(std::string_view line) {
  size_t begin = 0, end = line.size();
  while (begin < end && is_space(line[begin])) ++begin;
  while (end > begin && is_space(line[end - 1])) --end;
  return line.substr(begin, end - begin);
}

void split(std::string_view line, std::vector<std::string_view>* tokens) {
  tokens->clear();
  size_t p = 0;
  while (p < line.size()) {
    while (p < line.size() && is_space(line[p])) ++p;
    const size_t start = p;
    while (p < line.size() && !is_space(line[p])) ++p;
    if (p > start) tokens->push_back(line.substr(start, p - start));
  }
}

long long parse_int(std::string_view token, const Where& where, const char* what) {
  std::string_view t = token;
  if (t.size() > 1 && t[0] == '+') t.remove_prefix(1);
  long long value = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  SOFTIK_PARSE_CHECK(ec == std::errc() && ptr == t.data() + t.size() && !t.empty(), where,
                     "expected " << what << " (an integer), found '" << shown(token) << "'");
  return value;
}

double parse_real(std::string_view token, const Where& where, const char* what) {
  std::string_view t = token;
  if (t.size() > 1 && t[0] == '+') t.remove_prefix(1);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  SOFTIK_PARSE_CHECK(ec != std::errc::result_out_of_range, where,
                     what << " '" << shown(token) << "' is out of the range of double precision numbers");
  SOFTIK_PARSE_CHECK(ec == std::errc() && ptr == t.data() + t.size() && !t.empty(), where,
                     "expected " << what << " (a number), found '" << shown(token) << "'");
  return value;
}

int parse_count(std::string_view token, const Where& where, const char* what) {
  const long long n = parse_int(token, where, what);
  SOFTIK_PARSE_CHECK(n >= 0 && n <= INT_MAX, where, what << " must be in [0, " << INT_MAX << "], found " << n);
  return static_cast<int>(n);
}

double parse_coordinate(std::string_view token, const Where& where, const char* what) {
  const double value = parse_real(token, where, what);
  SOFTIK_PARSE_CHECK(std::isfinite(value), where,
                     what << " is '" << shown(token)
                          << "', not a finite number: fix the NaN/inf coordinates "
                             "in the mesh or in the program that wrote it");
  return value;
}

long long next_int(TextFile& file, const char* context, const char* what) {
  const std::string_view token = file.expect_token(context);
  return parse_int(token, file.where(), what);
}

int next_count(TextFile& file, const char* context, const char* what) {
  const std::string_view token = file.expect_token(context);
  return parse_count(token, file.where(), what);
}

double next_real(TextFile& file, const char* context, const char* what) {
  const std::string_view token = file.expect_token(context);
  return parse_real(token, file.where(), what);
}

double next_coordinate(TextFile& file, const char* context, const char* what) {
  const std::string_view token = file.expect_token(context);
  return parse_coordinate(token, file.where(), what);
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

bool is_xml_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[64] = {};
  in.read(head, sizeof head);
  const std::streamsize n = in.gcount();
  std::streamsize i = 0;
  if (n >= 3 && static_cast<unsigned char>(head[0]) == 0xEF && static_cast<unsigned char>(head[1]) == 0xBB &&
      static_cast<unsigned char>(head[2]) == 0xBF)
    i = 3;
  while (i < n && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  return i < n && head[i] == '<';
}

std::vector<int> assemble_cells(const RawElements& raw, const std::vector<long>& node_lines, const Where& none_where,
                                const char* plane_hint, Mesh* mesh) {
  int dim = 0;
  int first = -1;
  for (int e = 0; e < raw.size(); ++e)
    if (raw.dimension(e) > dim) {
      dim = raw.dimension(e);
      first = e;
    }
  SOFTIK_PARSE_CHECK(dim >= 1, none_where,
                     "no cells: the file has no line, triangle, quadrangle, tetrahedron or hexahedron elements");
  const int kind = raw.kind[static_cast<size_t>(first)];
  SOFTIK_PARSE_CHECK(kind != RawElements::kTri6, (Where{none_where.path, raw.line[first]}),
                     "the highest-dimensional elements are 6-node triangles: softik reads quadratic triangles as the "
                     "faces of 10-node tetrahedra only (no 2D quadratic meshes); give the volume cells");
  const CellType type = static_cast<CellType>(kind);
  std::vector<int> cell_of(static_cast<size_t>(raw.size()), -1);
  mesh->cells.clear();
  int num_cells = 0;
  for (int e = 0; e < raw.size(); ++e) {
    if (raw.dimension(e) != dim) continue;
    SOFTIK_PARSE_CHECK(raw.kind[e] == kind, (Where{none_where.path, raw.line[e]}),
                       "a " << cell_type_name(static_cast<CellType>(raw.kind[e])) << " cell among "
                            << cell_type_name(type) << " cells (the first at line " << raw.line[first]
                            << "): only one cell type per mesh is supported; convert the mesh to a single "
                               "element type (e.g. all tetrahedra)");
    cell_of[static_cast<size_t>(e)] = num_cells++;
    mesh->cells.insert(mesh->cells.end(), raw.nodes.begin() + raw.offsets[e], raw.nodes.begin() + raw.offsets[e + 1]);
  }
  mesh->dim = dim;
  mesh->cell_type = type;
  static const char* const axis = "xyz";
  for (int n = 0; n < mesh->num_nodes(); ++n)
    for (int i = dim; i < 3; ++i) {
      const Real value = mesh->X[3 * static_cast<size_t>(n) + i];
      SOFTIK_PARSE_CHECK(value == 0, (Where{none_where.path, node_lines[static_cast<size_t>(n)]}),
                         "node " << n << " has " << axis[i] << " = " << value << ", but the mesh's cells are " << dim
                                 << "D (" << cell_type_name(type) << "), which softik places "
                                 << (dim == 2 ? "in the z = 0 plane" : "on the x axis") << plane_hint);
    }
  return cell_of;
}

}  // namespace softik::mesh_io

namespace softik {

MeshData read_mesh_data(const std::string& path) {
  const std::string ext = mesh_io::lower_extension(path);
  if (ext == ".msh") {
    MeshData data;
    data.mesh = mesh_io::read_gmsh(path);
    return data;
  }
  if (ext == ".vtk") return mesh_io::is_xml_file(path) ? mesh_io::read_vtu(path) : mesh_io::read_vtk_legacy(path);
  if (ext == ".vtu") return mesh_io::read_vtu(path);
  SOFTIK_PARSE_FAIL(mesh_io::Where{path}, "unsupported mesh format '"
                                              << ext
                                              << "': read_mesh reads .msh (Gmsh 2.2/4.1, ASCII or binary), "
                                                 ".vtk (VTK legacy ASCII) and .vtu (VTK XML, ASCII or binary); "
                                                 "read .obj/.stl "
                                                 "surfaces with read_surface");
}

int add_cell_data_groups(MeshData& data) {
  Mesh& mesh = data.mesh;
  const int cells = mesh.num_cells(), npc = nodes_per_cell(mesh.cell_type);
  int added = 0;
  for (const VtuField& f : data.cell_fields) {
    if (f.components != 1 || static_cast<int>(f.values.size()) != cells) continue;
    std::map<long long, std::vector<int>> by_value;
    bool integral = true;
    for (int c = 0; c < cells && integral; ++c) {
      const Real v = f.values[static_cast<size_t>(c)];
      integral = std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15;
      if (integral) by_value[static_cast<long long>(v)].push_back(c);
      if (by_value.size() > 1000) integral = false;
    }
    if (!integral) continue;
    for (const auto& [value, members] : by_value) {
      const std::string name = f.name + "=" + std::to_string(value);
      if (mesh.cell_groups.count(name) || mesh.node_groups.count(name)) continue;
      std::vector<int> nodes;
      for (int c : members) nodes.insert(nodes.end(), mesh.cell(c), mesh.cell(c) + npc);
      std::sort(nodes.begin(), nodes.end());
      nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
      mesh.cell_groups[name] = members;
      mesh.node_groups[name] = std::move(nodes);
      ++added;
    }
  }
  return added;
}

Mesh read_mesh(const std::string& path) { return read_mesh_data(path).mesh; }

SurfaceMesh read_surface(const std::string& path) {
  const std::string ext = mesh_io::lower_extension(path);
  if (ext == ".obj") return mesh_io::read_obj(path);
  if (ext == ".stl") return mesh_io::read_stl(path);
  SOFTIK_PARSE_FAIL(mesh_io::Where{path}, "unsupported surface format '"
                                              << ext
                                              << "': read_surface reads .obj and .stl (ASCII or binary); "
                                                 "read volume meshes with read_mesh");
}

}  // namespace softik
