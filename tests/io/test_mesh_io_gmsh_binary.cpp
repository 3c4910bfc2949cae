// Binary Gmsh .msh (host/io/mesh_io_gmsh_binary.cpp): files made by a converter in this test,
// which rewrites an ASCII 4.1 or 2.2 file in binary as the MSH format specification lays it out,
// read to the same mesh (nodes bit for bit, cells, groups) as the ASCII file; files written by
// meshio; damaged files refused with an Error naming the file and the section.
#include <sstream>

#include "tests/mesh_helpers.hpp"
#include "tests/mesh_io_fixtures.hpp"

namespace softik::mesh_io_test {
namespace {

std::string binary_double(double v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof v);
  return le_bytes(bits, 8);
}

int nodes_of_type(long long type) {
  switch (type) {
    case 1:
      return 2;
    case 2:
      return 3;
    case 3:
      return 4;
    case 4:
      return 4;
    case 5:
      return 8;
    case 15:
      return 1;
  }
  ADD_FAILURE() << "element type " << type;
  return 0;
}

// The whitespace-separated tokens of a section body, handed out as the MSH types.
class Tokens {
 public:
  explicit Tokens(const std::string& body) : in_(body) {}
  long long integer() {
    long long v = 0;
    EXPECT_TRUE(static_cast<bool>(in_ >> v));
    return v;
  }
  double real() {
    std::string t;
    in_ >> t;
    return std::stod(t);
  }

 private:
  std::istringstream in_;
};

// An ASCII 4.1 or 2.2 .msh rewritten as binary (file type 1, size_t of `size_bytes` bytes).
// $PhysicalNames and unknown sections stay text, as Gmsh writes them.
std::string to_binary(const std::string& ascii, int size_bytes = 8) {
  std::istringstream lines(ascii);
  std::string line, out;
  bool v41 = false;
  auto size = [&](long long v) { return le_bytes(static_cast<std::uint64_t>(v), size_bytes); };
  auto i32 = [](long long v) { return le_bytes(static_cast<std::uint64_t>(v), 4); };
  // A 4.1 $Nodes or $Elements section: its header (number of blocks, then three sizes) and each
  // block's (entity dimension and tag, `kind`: parametric or element type, count) in binary, then
  // data(dim, kind, count) for the block's data.
  auto blocks = [&](Tokens& t, auto data) {
    const long long n = t.integer();
    out += size(n);
    for (int k = 0; k < 3; ++k) out += size(t.integer());
    for (long long b = 0; b < n; ++b) {
      const long long dim = t.integer(), tag = t.integer(), kind = t.integer(), count = t.integer();
      out += i32(dim) + i32(tag) + i32(kind) + size(count);
      data(dim, kind, count);
    }
    out += "\n";
  };
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '$' || line.rfind("$End", 0) == 0) continue;
    std::string body, l;
    while (std::getline(lines, l) && l.rfind("$End", 0) != 0) body += l + "\n";
    Tokens t(body);
    out += line + "\n";
    if (line == "$MeshFormat") {
      v41 = body.rfind("4.1", 0) == 0;
      out += std::string(v41 ? "4.1" : "2.2") + " 1 " + std::to_string(size_bytes) + "\n" + i32(1) + "\n";
    } else if (line == "$Entities") {
      long long counts[4];
      for (long long& c : counts) c = t.integer();
      for (long long c : counts) out += size(c);
      for (int d = 0; d < 4; ++d)
        for (long long i = 0; i < counts[d]; ++i) {
          out += i32(t.integer());
          for (int k = 0; k < (d == 0 ? 3 : 6); ++k) out += binary_double(t.real());
          const long long physicals = t.integer();
          out += size(physicals);
          for (long long k = 0; k < physicals; ++k) out += i32(t.integer());
          if (d == 0) continue;
          const long long bounding = t.integer();
          out += size(bounding);
          for (long long k = 0; k < bounding; ++k) out += i32(t.integer());
        }
      out += "\n";
    } else if (line == "$Nodes" && v41) {
      blocks(t, [&](long long dim, long long parametric, long long count) {
        for (long long i = 0; i < count; ++i) out += size(t.integer());
        for (long long i = 0; i < count * (3 + (parametric ? dim : 0)); ++i) out += binary_double(t.real());
      });
    } else if (line == "$Elements" && v41) {
      blocks(t, [&](long long, long long type, long long count) {
        for (long long i = 0; i < count * (1 + nodes_of_type(type)); ++i) out += size(t.integer());
      });
    } else if (line == "$Nodes") {
      const long long n = t.integer();
      out += std::to_string(n) + "\n";
      for (long long i = 0; i < n; ++i) {
        out += i32(t.integer());
        for (int k = 0; k < 3; ++k) out += binary_double(t.real());
      }
      out += "\n";
    } else if (line == "$Elements") {
      // Consecutive elements of the same type and number of tags share a group header.
      const long long n = t.integer();
      out += std::to_string(n) + "\n";
      std::vector<std::vector<long long>> elements(static_cast<size_t>(n));
      for (auto& e : elements) {
        e.push_back(t.integer());  // tag
        e.push_back(t.integer());  // type
        e.push_back(t.integer());  // number of tags
        for (long long k = 0; k < e[2] + nodes_of_type(e[1]); ++k) e.push_back(t.integer());
      }
      for (size_t i = 0; i < elements.size();) {
        size_t j = i;
        while (j < elements.size() && elements[j][1] == elements[i][1] && elements[j][2] == elements[i][2]) ++j;
        out += i32(elements[i][1]) + i32(static_cast<long long>(j - i)) + i32(elements[i][2]);
        for (; i < j; ++i) {
          out += i32(elements[i][0]);
          for (size_t k = 3; k < elements[i].size(); ++k) out += i32(elements[i][k]);
        }
      }
      out += "\n";
    } else {
      out += body;  // $PhysicalNames and others: text
    }
    out += "$End" + line.substr(1) + "\n";
  }
  return out;
}

void expect_same_mesh(const Mesh& a, const Mesh& b, const std::string& what) {
  EXPECT_EQ(a.dim, b.dim) << what;
  EXPECT_EQ(a.cell_type, b.cell_type) << what;
  ASSERT_EQ(a.X.size(), b.X.size()) << what;
  EXPECT_EQ(std::memcmp(a.X.data(), b.X.data(), a.X.size() * sizeof(Real)), 0) << what << ": nodes bit for bit";
  EXPECT_EQ(a.cells, b.cells) << what;
  EXPECT_EQ(a.cell_groups, b.cell_groups) << what;
  EXPECT_EQ(a.node_groups, b.node_groups) << what;
  ASSERT_EQ(a.surface_groups.size(), b.surface_groups.size()) << what;
  for (const auto& [name, s] : a.surface_groups) {
    ASSERT_EQ(b.surface_groups.count(name), 1u) << what << ": " << name;
    EXPECT_EQ(s.triangles, b.surface_groups.at(name).triangles) << what << ": " << name;
    EXPECT_EQ(s.quads, b.surface_groups.at(name).quads) << what << ": " << name;
  }
}

// A generated tetrahedral box as ASCII Gmsh 4.1: sparse node and element tags, coordinates
// perturbed to need all 17 digits, one physical volume "body" and a physical surface "bottom".
std::string box_msh41() {
  const Mesh box = box_mesh(CellType::Tet4, {6, 3, 2}, {0.1, 0.03, 0.02});
  char buffer[96];
  std::string s =
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n2 2 \"bottom\"\n3 1 \"body\"\n"
      "$EndPhysicalNames\n$Entities\n0 0 1 1\n1 0 0 0 0.1 0.03 0 1 2 0\n1 0 0 0 0.1 0.03 0.02 1 1 0\n"
      "$EndEntities\n$Nodes\n";
  const int n = box.num_nodes(), cells = box.num_cells();
  s += "1 " + std::to_string(n) + " 7 " + std::to_string(7 + 3 * (n - 1)) + "\n3 1 0 " + std::to_string(n) + "\n";
  for (int i = 0; i < n; ++i) s += std::to_string(7 + 3 * i) + "\n";
  for (int i = 0; i < n; ++i) {
    std::snprintf(buffer, sizeof buffer, "%.17g %.17g %.17g\n", box.X[3 * i] + 1e-4 * std::sin(i),
                  box.X[3 * i + 1] * (1 + 1.0 / 3.0), box.X[3 * i + 2]);
    s += buffer;
  }
  std::vector<std::array<int, 3>> bottom;
  for (int c = 0; c < cells; ++c)  // faces of the cells on z = 0 (any three nodes there)
    for (int f = 0; f < 4; ++f) {
      std::array<int, 3> t{};
      int k = 0;
      for (int v = 0; v < 4; ++v)
        if (v != f) t[static_cast<size_t>(k++)] = box.cells[4 * static_cast<size_t>(c) + v];
      if (box.X[3 * t[0] + 2] == 0 && box.X[3 * t[1] + 2] == 0 && box.X[3 * t[2] + 2] == 0) bottom.push_back(t);
    }
  s += "$EndNodes\n$Elements\n2 " + std::to_string(cells + static_cast<int>(bottom.size())) + " 1 1000000\n";
  s += "2 1 2 " + std::to_string(bottom.size()) + "\n";
  for (size_t i = 0; i < bottom.size(); ++i)
    s += std::to_string(500000 + i) + " " + std::to_string(7 + 3 * bottom[i][0]) + " " +
         std::to_string(7 + 3 * bottom[i][1]) + " " + std::to_string(7 + 3 * bottom[i][2]) + "\n";
  s += "3 1 4 " + std::to_string(cells) + "\n";
  for (int c = 0; c < cells; ++c) {
    s += std::to_string(1000 + 11 * c);
    for (int v = 0; v < 4; ++v) s += " " + std::to_string(7 + 3 * box.cells[4 * static_cast<size_t>(c) + v]);
    s += "\n";
  }
  return s + "$EndElements\n";
}

TEST(MeshIoGmshBinary, Binary41ReadsAsItsAsciiFile) {
  const std::string cube = read_text((fs::path(SOFTIK_SOURCE_DIR) / "tests" / "data" / "unit_cube.msh").string());
  const std::string box = box_msh41();
  // Node 50 on a curve with one parametric coordinate after x y z (skipped by the reader).
  const std::string parametric = replace(kGmsh41, "0 1 0 1\n50\n1 1 1\n", "1 1 1 1\n50\n1 1 1 0.5\n");
  for (const auto& [name, ascii] : std::vector<std::pair<std::string, std::string>>{
           {"two_tets41", kGmsh41}, {"parametric41", parametric}, {"cube41", cube}, {"box41", box}})
    for (const int size_bytes : {8, 4}) {
      const std::string binary = to_binary(ascii, size_bytes);
      ASSERT_NE(binary.find("4.1 1 " + std::to_string(size_bytes) + "\n" + std::string("\x01\0\0\0\n", 5)),
                std::string::npos);
      const Mesh a = read_mesh(temp_file(name + ".msh", ascii));
      const Mesh b = read_mesh(temp_file(name + "_binary" + std::to_string(size_bytes) + ".msh", binary));
      expect_same_mesh(a, b, name + " with size_t of " + std::to_string(size_bytes) + " bytes");
      EXPECT_GT(a.num_cells(), 0);
    }
  const Mesh b = read_mesh(temp_file("box41_binary.msh", to_binary(box)));
  EXPECT_EQ(b.num_cells(), 6 * 6 * 3 * 2);
  EXPECT_EQ(b.surface_groups.at("bottom").triangles.size(), 2u * 6 * 3);
  EXPECT_NO_THROW(validate(b));
}

TEST(MeshIoGmshBinary, Binary22ReadsAsItsAsciiFile) {
  for (const auto& [name, ascii] :
       std::vector<std::pair<std::string, std::string>>{{"two_tets22", kGmsh22}, {"square22", kGmsh2d}}) {
    const std::string binary = to_binary(ascii);
    const Mesh a = read_mesh(temp_file(name + ".msh", ascii));
    const Mesh b = read_mesh(temp_file(name + "_binary.msh", binary));
    expect_same_mesh(a, b, name);
  }
}

TEST(MeshIoGmshBinary, FilesWrittenByMeshioReadAsTheAsciiCube) {
  // tests/data/unit_cube_binary{41,22}.msh: tests/data/unit_cube.msh converted by meshio 5.3.5
  // (meshio.write(path, meshio.read(msh), file_format="gmsh" or "gmsh22", binary=True)).
  const fs::path data = fs::path(SOFTIK_SOURCE_DIR) / "tests" / "data";
  const Mesh ascii = read_mesh((data / "unit_cube.msh").string());
  for (const char* name : {"unit_cube_binary41.msh", "unit_cube_binary22.msh"})
    ASSERT_NE(read_text((data / name).string()).find(" 1 8\n"), std::string::npos) << name << " is binary";
  expect_same_mesh(ascii, read_mesh((data / "unit_cube_binary22.msh").string()), "2.2");
  // meshio's 4.1 writer lists only the volume in $Entities, so the surfaces lose their physical
  // groups (its ASCII 4.1 output reads the same): nodes, cells and the volume's group remain.
  const Mesh b41 = read_mesh((data / "unit_cube_binary41.msh").string());
  EXPECT_EQ(std::memcmp(b41.X.data(), ascii.X.data(), ascii.X.size() * sizeof(Real)), 0);
  EXPECT_EQ(b41.X.size(), ascii.X.size());
  EXPECT_EQ(b41.cells, ascii.cells);
  EXPECT_EQ(b41.cell_groups, ascii.cell_groups);
  EXPECT_EQ(b41.node_groups.at("body"), ascii.node_groups.at("body"));
  EXPECT_TRUE(b41.surface_groups.empty());
}

// Reading `text` throws an Error starting with "<path>:<line>: " and containing `what`.
void expect_error(const std::string& name, const std::string& text, long line, const std::string& what) {
  const ReadFailure f = read_failure(name, text);
  if (!f.thrown) return;
  EXPECT_EQ(f.message.rfind(f.path + ":" + std::to_string(line) + ": ", 0), 0u) << name << ": " << f.message;
  EXPECT_NE(f.message.find(what), std::string::npos) << name << ": '" << what << "' in: " << f.message;
  EXPECT_EQ(f.kind, ErrorKind::Input) << name;
}

// s with the bytes at `at` replaced by `with`.
std::string patched(std::string s, size_t at, const std::string& with) { return s.replace(at, with.size(), with); }

TEST(MeshIoGmshBinary, DamagedBinarySectionsNameTheFileAndSection) {
  const std::string b41 = to_binary(kGmsh41), b22 = to_binary(kGmsh22);
  const size_t nodes = b41.find("$Nodes\n") + 7, elements = b41.find("$Elements\n") + 10;
  const size_t entities = b41.find("$Entities\n") + 10;
  // The lines an editor shows: the binary kGmsh41 has $Entities on line 12, $Nodes on 15 and
  // $Elements on 20 (its binary data holds bytes 10, '\n'); the binary kGmsh22 $Elements on 18.
  expect_error("cut_nodes.msh", b41.substr(0, nodes + 20), 15,
               "$Nodes (binary, byte " + std::to_string(nodes + 16) +
                   "): only 4 bytes are left for the 8 bytes of "
                   "the smallest node tag (is the file truncated");
  expect_error("cut_coordinates.msh", b41.substr(0, nodes + 104), 15,
               "$Nodes (binary, byte " + std::to_string(nodes + 84) +
                   "): 4 node coordinates of 24 bytes do not fit in "
                   "the 20 bytes left (is the file truncated");
  expect_error("cut_elements.msh", b41.substr(0, elements + 50), 20, "$Elements (binary, byte");
  expect_error("cut_entities.msh", b41.substr(0, entities + 20), 12, "$Entities (binary, byte");
  expect_error("cut_22.msh", b22.substr(0, b22.find("$Elements\n") + 16), 18, "$Elements (binary, byte");
  expect_error("no_end.msh", b41.substr(0, b41.find("$EndNodes")), 18, "unexpected end of file: expected $EndNodes");
  // Counts that the file cannot hold, or that disagree.
  expect_error("many_nodes.msh", patched(b41, nodes + 8, le_bytes(1ull << 40, 8)), 15,
               "the number of nodes is 1099511627776, above 2147483647");
  expect_error("block_nodes.msh", patched(b41, nodes + 32 + 12, le_bytes(6, 8)), 15,
               "node block 0 holds 6 nodes, more than the 5 left of the 5 the $Nodes header declares");
  expect_error("huge_block.msh",
               patched(patched(b41, nodes + 8, le_bytes(1u << 30, 8)), nodes + 32 + 12, le_bytes(1u << 30, 8)), 15,
               "1073741824 node tags of 8 bytes do not fit in the");
  expect_error("parametric.msh", patched(b41, nodes + 32 + 8, le_bytes(7, 4)), 15, "the parametric flag is 7");
  expect_error("physicals.msh", patched(b41, entities + 32 + 4 + 24, le_bytes(1ull << 62, 8)), 12,
               "4611686018427387904 physical tags of 4 bytes do not fit in the");
  expect_error("prism.msh", patched(b41, elements + 32 + 8, le_bytes(6, 4)), 20, "element type 6 (6-node prism)");
  expect_error("nan.msh", patched(b41, nodes + 32 + 20 + 32, std::string("\0\0\0\0\0\0\xf8\x7f", 8)), 15,
               "node tag 10 has a NaN/inf coordinate");
  expect_error("node_tag.msh", patched(b41, elements + 32 + 20 + 8, le_bytes(77, 8)), 20,
               "element 1 refers to node tag 77, which $Nodes does not define");
  expect_error("group22.msh", patched(b22, b22.find("$Elements\n") + 12 + 4, le_bytes(99, 4)), 18,
               "an element group of 99 elements, expected 1 to the 6 left of the 6 the section declares");
  // The int 1 after the format line: its byte order, or not there at all.
  expect_error("big_endian.msh", patched(b41, b41.find("\n") + 9, std::string("\0\0\0\x01", 4)), 2,
               "written on a big-endian machine");
  expect_error("no_one.msh", replace(kGmsh41, "4.1 0 8", "4.1 1 8"), 2,
               "expected the binary int 1 after the format line");
  expect_error("size_bytes.msh", replace(b41, "4.1 1 8", "4.1 1 2"), 2, "the data size is 2, expected 8 (or 4)");
}

// Every prefix and 600 random byte changes of binary 4.1 and 2.2 files read (to a mesh whose
// indices are in range) or throw softik::Error naming the file; nothing else escapes.
TEST(MeshIoGmshBinary, TruncatedAndMutatedBinaryFilesReadOrThrowError) {
  std::mt19937 rng(20261127);
  int errors = 0, reads = 0;
  for (const std::string& text : {to_binary(kGmsh41), to_binary(kGmsh22), to_binary(kGmsh41, 4)}) {
    const std::string path = (temp_dir() / "fuzz_binary.msh").string();
    std::vector<std::string> variants;
    for (size_t n = 0; n < text.size(); ++n) variants.push_back(text.substr(0, n));
    for (int k = 0; k < 600; ++k) {
      std::string t = text;
      t[rng() % t.size()] = static_cast<char>(rng() & 0xff);
      variants.push_back(t);
    }
    read_or_error(variants, path, reads, errors);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(errors, 2000);
  EXPECT_GT(reads, 100);  // changed coordinates still read
}

}  // namespace
}  // namespace softik::mesh_io_test
