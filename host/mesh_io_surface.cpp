// Surface readers (mesh_io.hpp): Wavefront OBJ (v and f records; faces with more than three
// vertices are fanned from their first vertex; negative indices count from the end; texture and
// normal references "v/vt/vn" are ignored) and STL, ASCII or binary (vertices merged when
// bit-identical, so a closed STL gives a closed, consistently indexed surface).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>

#include "mesh_io_common.hpp"

namespace softik::mesh_io {

SurfaceMesh read_obj(const std::string& path) {
  TextFile file(path);
  SurfaceMesh s;
  std::string_view line;
  std::vector<std::string_view> tokens;
  while (file.next_line(&line)) {
    split(line, &tokens);
    if (tokens.empty() || tokens[0][0] == '#') continue;
    if (tokens[0] == "v") {
      SOFTIK_PARSE_CHECK(tokens.size() >= 4, file.where(), "a vertex needs 3 coordinates, found " << tokens.size() - 1);
      for (int i = 1; i <= 3; ++i) s.X.push_back(parse_coordinate(tokens[static_cast<size_t>(i)], file.where(), "a vertex coordinate"));
    } else if (tokens[0] == "f") {
      SOFTIK_PARSE_CHECK(tokens.size() >= 4, file.where(), "a face needs at least 3 vertices, found " << tokens.size() - 1);
      std::vector<int> v;
      for (size_t k = 1; k < tokens.size(); ++k) {
        const std::string_view ref = tokens[k].substr(0, tokens[k].find('/'));
        long long i = parse_int(ref, file.where(), "a vertex index");
        const long long n = s.num_vertices();
        if (i < 0) i = n + 1 + i;  // relative index
        SOFTIK_PARSE_CHECK(i >= 1 && i <= n, file.where(), "face vertex " << tokens[k] << " refers to vertex " << i
                                                                          << ", but only " << n
                                                                          << " vertices are defined before this line");
        v.push_back(static_cast<int>(i - 1));
      }
      for (size_t k = 1; k + 1 < v.size(); ++k) s.triangles.push_back({v[0], v[k], v[k + 1]});
    }
    // other records (vt, vn, g, o, s, usemtl, mtllib, l) are ignored
  }
  SOFTIK_PARSE_CHECK(!s.triangles.empty(), file.eof_where(), "no faces ('f' records) in the OBJ file");
  return s;
}

namespace {

/// Index of vertex p, merged with an earlier bit-identical one.
int vertex(SurfaceMesh& s, std::map<std::array<Real, 3>, int>& seen, const std::array<Real, 3>& p) {
  const auto [it, added] = seen.emplace(p, s.num_vertices());
  if (added) s.X.insert(s.X.end(), p.begin(), p.end());
  return it->second;
}

void add_triangle(SurfaceMesh& s, std::map<std::array<Real, 3>, int>& seen, const std::array<std::array<Real, 3>, 3>& t) {
  s.triangles.push_back({vertex(s, seen, t[0]), vertex(s, seen, t[1]), vertex(s, seen, t[2])});
}

SurfaceMesh read_stl_binary(const std::string& path, const std::string& bytes) {
  const Where where{path, 0};
  SOFTIK_PARSE_CHECK(bytes.size() >= 84, where, "binary STL shorter than its 84-byte header (truncated?)");
  std::uint32_t n = 0;
  std::memcpy(&n, bytes.data() + 80, 4);
  SOFTIK_PARSE_CHECK(bytes.size() == 84 + 50ull * n, where,
                     "binary STL declares " << n << " triangles (" << 84 + 50ull * n << " bytes) but has " << bytes.size()
                                            << " bytes: the file is truncated or not an STL");
  SurfaceMesh s;
  std::map<std::array<Real, 3>, int> seen;
  for (std::uint32_t k = 0; k < n; ++k) {
    const char* rec = bytes.data() + 84 + 50ull * k + 12;  // skip the normal
    std::array<std::array<Real, 3>, 3> t;
    for (int v = 0; v < 3; ++v)
      for (int i = 0; i < 3; ++i) {
        float f;
        std::memcpy(&f, rec + 12 * v + 4 * i, 4);
        SOFTIK_PARSE_CHECK(std::isfinite(f), where, "triangle " << k << " has a NaN/inf coordinate");
        t[static_cast<size_t>(v)][static_cast<size_t>(i)] = f;
      }
    add_triangle(s, seen, t);
  }
  SOFTIK_PARSE_CHECK(n > 0, where, "the STL file has no triangles");
  return s;
}

}  // namespace

SurfaceMesh read_stl(const std::string& path) {
  TextFile file(path);
  const std::string& bytes = file.text();
  // ASCII files start with "solid" and contain "facet"; binary headers may start with "solid" too.
  const bool ascii = bytes.compare(0, 5, "solid") == 0 && bytes.find("facet") != std::string::npos;
  if (!ascii) return read_stl_binary(path, bytes);
  SurfaceMesh s;
  std::map<std::array<Real, 3>, int> seen;
  std::string_view token;
  file.expect_token("at 'solid'");
  file.expect_line("after 'solid'");  // the solid's name, if any
  while (file.next_token(&token)) {
    if (token == "endsolid") break;
    SOFTIK_PARSE_CHECK(token == "facet", file.where(), "expected 'facet' or 'endsolid', found '" << token << "'");
    SOFTIK_PARSE_CHECK(file.expect_token("after 'facet'") == "normal", file.where(), "expected 'normal'");
    for (int i = 0; i < 3; ++i) next_real(file, "in a facet normal", "a normal component");
    SOFTIK_PARSE_CHECK(file.expect_token("in a facet") == "outer", file.where(), "expected 'outer loop'");
    SOFTIK_PARSE_CHECK(file.expect_token("in a facet") == "loop", file.where(), "expected 'outer loop'");
    std::array<std::array<Real, 3>, 3> t;
    for (int v = 0; v < 3; ++v) {
      SOFTIK_PARSE_CHECK(file.expect_token("in a facet") == "vertex", file.where(),
                         "expected 'vertex' (a facet has exactly 3 vertices)");
      for (int i = 0; i < 3; ++i)
        t[static_cast<size_t>(v)][static_cast<size_t>(i)] = next_coordinate(file, "in a vertex", "a vertex coordinate");
    }
    SOFTIK_PARSE_CHECK(file.expect_token("in a facet") == "endloop", file.where(),
                       "expected 'endloop' (a facet has exactly 3 vertices)");
    SOFTIK_PARSE_CHECK(file.expect_token("in a facet") == "endfacet", file.where(), "expected 'endfacet'");
    add_triangle(s, seen, t);
  }
  SOFTIK_PARSE_CHECK(token == "endsolid", file.eof_where(), "unexpected end of file: no 'endsolid' (truncated?)");
  SOFTIK_PARSE_CHECK(!s.triangles.empty(), file.eof_where(), "the STL file has no facets");
  return s;
}

}  // namespace softik::mesh_io
