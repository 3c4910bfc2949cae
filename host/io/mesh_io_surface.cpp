// Surface readers (mesh_io.hpp): Wavefront OBJ (v and f records; faces with more than three
// vertices are fanned from their first vertex; negative indices count from the end; texture and
// normal references "v/vt/vn" are ignored) and STL, ASCII (one or more solids) or binary (told
// apart by the size: 84 + 50 n bytes; vertices merged when bit-identical, so a closed STL gives a
// closed, consistently indexed surface). Binary STL errors name the byte offset (no lines).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>

#include "host/io/mesh_io_common.hpp"

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
      for (int i = 1; i <= 3; ++i)
        s.X.push_back(parse_coordinate(tokens[static_cast<size_t>(i)], file.where(), "a vertex coordinate"));
    } else if (tokens[0] == "f") {
      SOFTIK_PARSE_CHECK(tokens.size() >= 4, file.where(),
                         "a face needs at least 3 vertices, found " << tokens.size() - 1);
      std::vector<int> v;
      for (size_t k = 1; k < tokens.size(); ++k) {
        const std::string_view ref = tokens[k].substr(0, tokens[k].find('/'));
        long long i = parse_int(ref, file.where(), "a vertex index");
        const long long n = s.num_vertices();
        if (i < 0) i = n + 1 + i;  // relative index
        SOFTIK_PARSE_CHECK(i >= 1 && i <= n, file.where(),
                           "face vertex " << tokens[k] << " refers to vertex " << i << ", but only " << n
                                          << " vertices are defined before this line "
                                             "(OBJ indices start at 1; negative ones "
                                             "count back from the last vertex)");
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

void add_triangle(SurfaceMesh& s, std::map<std::array<Real, 3>, int>& seen,
                  const std::array<std::array<Real, 3>, 3>& t) {
  s.triangles.push_back({vertex(s, seen, t[0]), vertex(s, seen, t[1]), vertex(s, seen, t[2])});
}

std::uint32_t little_endian_u32(const char* p) {
  std::uint32_t v = 0;
  for (int b = 3; b >= 0; --b) v = (v << 8) | static_cast<unsigned char>(p[b]);
  return v;
}

SurfaceMesh read_stl_binary(const std::string& path, const std::string& bytes) {
  const Where where{path, 0};
  const std::uint64_t n = little_endian_u32(bytes.data() + 80);
  SurfaceMesh s;
  std::map<std::array<Real, 3>, int> seen;
  for (std::uint64_t k = 0; k < n; ++k) {
    const std::uint64_t record = 84 + 50 * k;
    std::array<std::array<Real, 3>, 3> t;
    for (int v = 0; v < 3; ++v)
      for (int i = 0; i < 3; ++i) {
        const std::uint64_t byte = record + 12 + 12 * static_cast<std::uint64_t>(v) + 4 * static_cast<std::uint64_t>(i);
        const std::uint32_t bits = little_endian_u32(bytes.data() + byte);
        float f;
        std::memcpy(&f, &bits, 4);
        SOFTIK_PARSE_CHECK(std::isfinite(f), where,
                           "binary STL triangle " << k << " (byte " << byte << "): vertex " << v << " has a NaN/inf "
                                                  << "coordinate; fix the surface or the program that wrote it");
        t[static_cast<size_t>(v)][static_cast<size_t>(i)] = f;
      }
    add_triangle(s, seen, t);
  }
  SOFTIK_PARSE_CHECK(n > 0, where, "the binary STL file has no triangles");
  return s;
}

SurfaceMesh read_stl_ascii(TextFile& file) {
  SurfaceMesh s;
  std::map<std::array<Real, 3>, int> seen;
  std::string_view token;
  // One or more "solid name ... endsolid name" blocks.
  while (file.next_token(&token)) {
    SOFTIK_PARSE_CHECK(token == "solid", file.where(), "expected 'solid', found '" << token.substr(0, 40) << "'");
    file.expect_line("after 'solid'");  // the solid's name, if any
    for (;;) {
      token = file.expect_token("inside a solid: expected 'facet' or 'endsolid'");
      if (token == "endsolid") {
        file.expect_line("after 'endsolid'");
        break;
      }
      SOFTIK_PARSE_CHECK(token == "facet", file.where(),
                         "expected 'facet' or 'endsolid', found '" << token.substr(0, 40) << "'");
      SOFTIK_PARSE_CHECK(file.expect_token("after 'facet'") == "normal", file.where(),
                         "expected 'facet normal nx ny nz'");
      for (int i = 0; i < 3; ++i) next_real(file, "in a facet normal", "a normal component");
      SOFTIK_PARSE_CHECK(file.expect_token("in a facet") == "outer", file.where(), "expected 'outer loop'");
      SOFTIK_PARSE_CHECK(file.expect_token("in a facet") == "loop", file.where(), "expected 'outer loop'");
      std::array<std::array<Real, 3>, 3> t;
      for (int v = 0; v < 3; ++v) {
        SOFTIK_PARSE_CHECK(file.expect_token("in a facet") == "vertex", file.where(),
                           "expected 'vertex' (a facet has exactly 3 vertices), found only " << v);
        static const char* const what[3] = {"the x coordinate", "the y coordinate", "the z coordinate"};
        for (int i = 0; i < 3; ++i)
          t[static_cast<size_t>(v)][static_cast<size_t>(i)] = next_coordinate(file, "in a vertex", what[i]);
      }
      SOFTIK_PARSE_CHECK(file.expect_token("in a facet") == "endloop", file.where(),
                         "expected 'endloop' (a facet has exactly 3 vertices)");
      SOFTIK_PARSE_CHECK(file.expect_token("in a facet") == "endfacet", file.where(), "expected 'endfacet'");
      add_triangle(s, seen, t);
    }
  }
  SOFTIK_PARSE_CHECK(!s.triangles.empty(), file.eof_where(), "the STL file has no facets");
  return s;
}

}  // namespace

SurfaceMesh read_stl(const std::string& path) {
  TextFile file(path);
  const std::string& bytes = file.text();
  // Binary: an 80-byte header, a triangle count n and 50 bytes per triangle, so the size tells
  // (binary headers may start with "solid" too). Otherwise ASCII: text starting with "solid".
  const std::uint64_t n = bytes.size() >= 84 ? little_endian_u32(bytes.data() + 80) : 0;
  if (bytes.size() >= 84 && bytes.size() == 84 + 50 * n) return read_stl_binary(path, bytes);
  const size_t first = bytes.find_first_not_of(" \t\r\n");
  const bool text = bytes.find('\0') == std::string::npos;  // a binary count < 2^24 has a zero byte
  if (text && first != std::string::npos && bytes.compare(first, 5, "solid") == 0) return read_stl_ascii(file);
  SOFTIK_PARSE_CHECK(bytes.size() >= 84, (Where{path, 0}),
                     "neither an ASCII STL (which starts with 'solid') nor a binary STL ("
                         << bytes.size()
                         << " bytes, shorter than the "
                            "84-byte header)");
  SOFTIK_PARSE_FAIL((Where{path, 0}),
                    "neither an ASCII STL (which starts with 'solid') nor a binary STL: the "
                    "binary header declares "
                        << n << " triangles (" << 84 + 50 * n << " bytes) but the file has " << bytes.size()
                        << " bytes (truncated?)");
}

}  // namespace softik::mesh_io
