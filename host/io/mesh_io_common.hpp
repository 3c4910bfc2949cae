// Shared pieces of the mesh readers (mesh_io.hpp): a text file read whole with a cursor that
// hands out lines or whitespace-separated tokens and knows their line numbers, number parsing
// that names the file and line on failure, and the step common to every volume format that
// turns the elements read (in file order) into Mesh::cells of one type.
#pragma once

#include <climits>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "softik/error.hpp"
#include "softik/mesh.hpp"
#include "softik/mesh_io.hpp"

namespace softik::mesh_io {

/// A position in an input file; prints as "path:line" (or "path" when line <= 0).
struct Where {
  std::string_view path;
  long line = 0;
};
std::ostream& operator<<(std::ostream& os, const Where& where);

/// Throws softik::Error whose message starts with "path:line: " when cond is false.
#define SOFTIK_PARSE_CHECK(cond, where, msg) SOFTIK_CHECK(cond, (where) << ": " << msg)
#define SOFTIK_PARSE_FAIL(where, msg) SOFTIK_PARSE_CHECK(false, where, msg)

/// The whole file in memory. Lines are numbered from 1; "\r\n" endings are accepted.
class TextFile {
 public:
  /// Reads `path`; throws "<path>: cannot open the file (<reason>)" when it cannot be read.
  explicit TextFile(std::string path);
  TextFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  /// The line of the last line or token handed out (1 before any).
  Where where() const { return {path_, last_line_}; }
  Where where(long line) const { return {path_, line}; }
  /// The last line of the file: where "unexpected end of file" is reported.
  Where eof_where() const { return {path_, num_lines_}; }
  bool at_end() const { return pos_ >= text_.size(); }

  /// The rest of the current line (without its line break); false at the end of the file.
  bool next_line(std::string_view* line);
  /// Like next_line, but throws "unexpected end of file <context>" at the end.
  std::string_view expect_line(const char* context);
  /// The next whitespace-separated token (crossing lines); false at the end of the file.
  bool next_token(std::string_view* token);
  std::string_view expect_token(const char* context);
  /// The next token without consuming it ("" at the end of the file).
  std::string_view peek_token() const;

  /// The byte offset of the next unread character (where binary data starts).
  size_t offset() const { return pos_; }
  /// The next n bytes as they are (binary data), moving past them and counting the line breaks
  /// among them (later lines keep the numbers an editor shows); false, consuming nothing, when
  /// fewer than n remain.
  bool take_bytes(size_t n, std::string_view* bytes);

 private:
  /// next_line or next_token (`next`), throwing "unexpected end of file <context>" at the end.
  std::string_view expect(bool (TextFile::*next)(std::string_view*), const char* context);

  std::string path_;
  std::string text_;
  size_t pos_ = 0;
  long line_ = 1;       // line of text_[pos_]
  long last_line_ = 1;  // line of the last thing handed out
  long num_lines_ = 1;
};

/// The line without leading and trailing whitespace.
std::string_view trim(std::string_view line);
/// Splits a line at whitespace into `tokens` (cleared first).
void split(std::string_view line, std::vector<std::string_view>* tokens);

/// Parses a whole token as an integer / a real number ("nan" and "inf" are accepted; a leading
/// '+' too); throws "<where>: expected <what>, found '<token>'" otherwise.
long long parse_int(std::string_view token, const Where& where, const char* what);
double parse_real(std::string_view token, const Where& where, const char* what);
/// parse_int limited to [0, INT_MAX]: counts and sizes.
int parse_count(std::string_view token, const Where& where, const char* what);
/// parse_real that refuses NaN and infinity (coordinates).
double parse_coordinate(std::string_view token, const Where& where, const char* what);

/// The next token of `file` parsed as parse_int / parse_count / parse_real / parse_coordinate do,
/// errors naming the token's own line (the token is read before its line is taken).
long long next_int(TextFile& file, const char* context, const char* what);
int next_count(TextFile& file, const char* context, const char* what);
double next_real(TextFile& file, const char* context, const char* what);
double next_coordinate(TextFile& file, const char* context, const char* what);

bool iequals(std::string_view a, std::string_view b);
/// The lower-case extension of a path including the dot (".msh"), or "".
std::string lower_extension(const std::string& path);
/// Whether the file starts (after blanks and a byte-order mark) with '<': VTK XML, whatever its
/// extension. False when it cannot be opened (the reader then names the problem).
bool is_xml_file(const std::string& path);

/// Elements as read, in file order. kind is a CellType value, kPoint for 1-node elements or
/// kTri6 for 6-node triangles (faces of Tet10 meshes: surface groups only, never cells).
struct RawElements {
  static constexpr int kPoint = -1;
  static constexpr int kTri6 = -2;
  static constexpr int kMaxNodes = 10;  ///< nodes of the largest element read (Tet10)
  std::vector<int> kind;
  std::vector<long> line;
  std::vector<int> offsets{0};  ///< nodes of element e: nodes[offsets[e] .. offsets[e+1])
  std::vector<int> nodes;       ///< 0-based node indices
  int size() const { return static_cast<int>(kind.size()); }
  int dimension(int e) const {
    return kind[e] == kPoint ? 0 : kind[e] == kTri6 ? 2 : cell_dimension(static_cast<CellType>(kind[e]));
  }
  static int kind_nodes(int k) { return k == kPoint ? 1 : k == kTri6 ? 6 : nodes_per_cell(static_cast<CellType>(k)); }
  void add(int element_kind, long element_line) {
    kind.push_back(element_kind);
    line.push_back(element_line);
  }
  void close() { offsets.push_back(static_cast<int>(nodes.size())); }  ///< after pushing its nodes
};

/// Turns the elements of the highest dimension into mesh->cells (one cell type: Tet4 or Hex8,
/// Tri3 or Quad4, Edge2) and sets mesh->dim and mesh->cell_type; mesh->X must hold the nodes.
/// Returns cell_of[e] (the cell index of element e, -1 for lower-dimensional elements). Throws
/// at `none_where` when no element has dimension >= 1, at the line of the first element of a
/// second type of the highest dimension, and, for dim < 3, at the line of the first node
/// (node_lines[n]) whose unused coordinates are not 0 (`plane_hint` is appended there).
std::vector<int> assemble_cells(const RawElements& raw, const std::vector<long>& node_lines, const Where& none_where,
                                const char* plane_hint, Mesh* mesh);

/// VTK cells as read (legacy .vtk and .vtu): cell c has VTK type types[c] and the points
/// conn[offsets[c] .. offsets[c+1]) (offsets has one entry more than types, offsets[0] = 0,
/// non-decreasing, offsets.back() == conn.size()). The *_lines give the line of each entry.
struct VtkCells {
  std::vector<long long> types, offsets{0}, conn;
  std::vector<long> type_lines, cell_lines, conn_lines;
};

/// The mesh of VTK points (X, 3 per point) and cells (mesh_io_vtk.cpp): refuses unsupported
/// types, wrong node counts and out-of-range point indices at their lines; in 3D, triangles and
/// quads go to surface_groups["vtk_faces"]. cell_of[c] is the Mesh cell of VTK cell c or -1.
Mesh build_vtk_mesh(const std::string& path, std::vector<Real> X, const std::vector<long>& point_lines,
                    const VtkCells& cells, std::vector<int>* cell_of);

// The format readers (each in its own file); read_mesh_data() dispatches on the extension.
Mesh read_gmsh(const std::string& path);
MeshData read_vtk_legacy(const std::string& path);
MeshData read_vtu(const std::string& path);
SurfaceMesh read_obj(const std::string& path);
SurfaceMesh read_stl(const std::string& path);

}  // namespace softik::mesh_io
