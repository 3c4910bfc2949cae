// The binary sections of Gmsh .msh files (gmsh_reader.hpp), as the MSH format specification lays
// them out (file type 1; little-endian, checked by the int 1 after the format line; "size_t" has
// the format line's data-size bytes, "int" 4):
//   4.1 $Entities  size_t numPoints numCurves numSurfaces numVolumes; points: int tag, 3 doubles,
//                  size_t numPhysicals, int physicals[]; others: int tag, 6 doubles (box), size_t
//                  numPhysicals, int physicals[], size_t numBounding, int bounding[]
//   4.1 $Nodes     size_t numBlocks numNodes minTag maxTag; per block: int entityDim entityTag
//                  parametric, size_t numNodesInBlock, size_t tags[], then per node 3 doubles (and
//                  entityDim parametric coordinates when parametric)
//   4.1 $Elements  size_t numBlocks numElements minTag maxTag; per block: int entityDim entityTag
//                  elementType, size_t numElementsInBlock, then per element size_t tag, size_t nodes[]
//   2.2 $Nodes     the count as a text line, then per node: int tag, 3 doubles
//   2.2 $Elements  the count as a text line, then groups: int type, int numElements, int numTags,
//                  then per element: int tag, int tags[numTags], int nodes[]
// and the text line $End... after the data. $PhysicalNames stays text. A section that ends before
// its data does, or declares counts its bytes cannot hold, is an error naming the section.
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "host/io/gmsh_reader.hpp"
#include "host/io/vtu_binary.hpp"

namespace softik::mesh_io {
namespace {

// Reads the binary data of one section, errors naming the file, the section's line and the byte.
class Binary {
 public:
  Binary(TextFile& file, const char* section, int size_bytes)
      : file_(file), section_(section), size_bytes_(size_bytes), line_(file.where().line) {}

  Where where() const { return file_.where(line_); }

  std::string_view bytes(size_t n, const char* what) {
    std::string_view b;
    const size_t at = file_.offset();
    SOFTIK_PARSE_CHECK(file_.take_bytes(n, &b), where(),
                       section_ << " (binary, byte " << at << "): only " << file_.text().size() - at
                                << " bytes are left for the " << n << " bytes of " << what
                                << " (is the file truncated, or a count in the section wrong?)");
    return b;
  }

  long long int32(const char* what) {
    const std::uint64_t u = get_le(bytes(4, what).data(), 4);
    return static_cast<long long>(u) - ((u >> 31) & 1 ? (1LL << 32) : 0LL);
  }

  double real(const char* what) {
    const std::uint64_t u = get_le(bytes(8, what).data(), 8);
    double v = 0;
    std::memcpy(&v, &u, sizeof v);
    return v;
  }

  /// A size_t that must fit in [0, limit].
  long long size(const char* what, long long limit = LLONG_MAX) {
    const size_t at = file_.offset();
    const std::uint64_t u = get_le(bytes(static_cast<size_t>(size_bytes_), what).data(), size_bytes_);
    SOFTIK_PARSE_CHECK(u <= static_cast<std::uint64_t>(limit), where(),
                       section_ << " (binary, byte " << at << "): " << what << " is " << u << ", above " << limit
                                << " (the file is damaged, or not a binary .msh file)");
    return static_cast<long long>(u);
  }

  /// Checks that `count` items of `each` bytes fit in what is left of the file.
  void need(long long count, size_t each, const char* what) {
    const size_t left = file_.text().size() - file_.offset();
    SOFTIK_PARSE_CHECK(each == 0 || static_cast<std::uint64_t>(count) <= left / each, where(),
                       section_ << " (binary, byte " << file_.offset() << "): " << count << " " << what << " of "
                                << each << " bytes do not fit in the " << left
                                << " bytes left (is the file truncated, or a count in the section wrong?)");
  }

  /// Throws naming `what` at the current byte when cond is false.
  void check(bool cond, const std::string& what) const {
    SOFTIK_PARSE_CHECK(cond, where(), section_ << " (binary, byte " << file_.offset() << "): " << what);
  }

 private:
  TextFile& file_;
  const char* section_;
  int size_bytes_;
  long line_;
};

void read_coordinates(Binary& b, long long tag, double xyz[3]) {
  for (int i = 0; i < 3; ++i) xyz[i] = b.real("a node coordinate");
  b.check(std::isfinite(xyz[0]) && std::isfinite(xyz[1]) && std::isfinite(xyz[2]),
          "node tag " + std::to_string(tag) +
              " has a NaN/inf coordinate: fix the NaN/inf coordinates in the mesh or in the program that wrote it");
}

/// The header of a 4.1 $Nodes or $Elements section: its number of blocks and of items (at most
/// INT_MAX), then the smallest and the largest tag (`what`: the four as the errors name them).
std::pair<long long, long long> blocks_header(Binary& b, const char* const (&what)[4]) {
  const long long blocks = b.size(what[0]);
  const long long n = b.size(what[1], INT_MAX);
  b.size(what[2]);
  b.size(what[3]);
  return {blocks, n};
}

}  // namespace

void GmshReader::read_binary_one() {
  Binary b(file_, "$MeshFormat", size_bytes_);
  const std::uint64_t one = get_le(b.bytes(4, "the int 1 that gives the byte order").data(), 4);
  b.check(one != 0x01000000u,
          "the file was written on a big-endian machine, which softik does not read: re-save it "
          "as ASCII (Gmsh: Mesh.Binary = 0)");
  b.check(one == 1, "expected the binary int 1 after the format line, found " + std::to_string(one) +
                        ": the file is damaged or its format line wrongly says binary (file type 1)");
}

void GmshReader::read_entities_binary() {
  Binary b(file_, "$Entities", size_bytes_);
  long long counts[4];
  for (long long& c : counts) c = b.size("a number of entities");
  long long total = 0;
  for (int d = 0; d < 4; ++d)
    for (long long i = 0; i < counts[d]; ++i, ++total) {
      const long long tag = b.int32("an entity tag");
      b.bytes(8 * (d == 0 ? 3 : 6), d == 0 ? "a point's coordinates" : "an entity's bounding box");
      const long long num_phys = b.size("the number of physical tags");
      b.need(num_phys, 4, "physical tags");
      std::vector<long long>& phys = entity_physicals_[{d, tag}];
      for (long long k = 0; k < num_phys; ++k) phys.push_back(std::llabs(b.int32("a physical tag")));
      if (d > 0) {
        const long long bounding = b.size("the number of bounding entities");
        b.need(bounding, 4, "bounding entity tags");
        b.bytes(4 * static_cast<size_t>(bounding), "the bounding entity tags");
      }
    }
  expect_end("$EndEntities", static_cast<long>(total));
}

void GmshReader::read_nodes41_binary() {
  Binary b(file_, "$Nodes", size_bytes_);
  const auto [blocks, n] = blocks_header(
      b, {"the number of node blocks", "the number of nodes", "the smallest node tag", "the largest node tag"});
  for (long long block = 0; block < blocks; ++block) {
    const long long entity_dim = b.int32("the entity dimension");
    b.int32("the entity tag");
    const long long parametric = b.int32("the parametric flag");
    const long long count = b.size("the number of nodes in a block");
    b.check(entity_dim >= 0 && entity_dim <= 3, "node block " + std::to_string(block) + ": entity dimension " +
                                                    std::to_string(entity_dim) + " is not in 0..3");
    b.check(parametric == 0 || parametric == 1, "node block " + std::to_string(block) + ": the parametric flag is " +
                                                    std::to_string(parametric) + ", expected 0 or 1");
    b.check(count <= n - mesh_.num_nodes(), "node block " + std::to_string(block) + " holds " + std::to_string(count) +
                                                " nodes, more than the " + std::to_string(n - mesh_.num_nodes()) +
                                                " left of the " + std::to_string(n) + " the $Nodes header declares");
    b.need(count, static_cast<size_t>(size_bytes_), "node tags");
    std::vector<long long> tags(static_cast<size_t>(count));
    for (long long& tag : tags) tag = b.size("a node tag");
    const size_t parameters = parametric ? static_cast<size_t>(entity_dim) : 0;
    b.need(count, 8 * (3 + parameters), "node coordinates");
    for (long long tag : tags) {
      double xyz[3];
      read_coordinates(b, tag, xyz);
      b.bytes(8 * parameters, "a node's parametric coordinates");
      add_node(tag, xyz, b.where());
    }
  }
  b.check(mesh_.num_nodes() == n, "the $Nodes header declares " + std::to_string(n) + " nodes but its " +
                                      std::to_string(blocks) + " blocks hold " + std::to_string(mesh_.num_nodes()));
  expect_end("$EndNodes", static_cast<long>(n));
}

void GmshReader::read_elements41_binary() {
  Binary b(file_, "$Elements", size_bytes_);
  const auto [blocks, n] = blocks_header(b, {"the number of element blocks", "the number of elements",
                                             "the smallest element tag", "the largest element tag"});
  long long read = 0;
  for (long long block = 0; block < blocks; ++block) {
    const long long entity_dim = b.int32("the entity dimension");
    const long long entity_tag = b.int32("the entity tag");
    const GmshType& type = gmsh_type(b.int32("an element type"), b.where());
    const long long count = b.size("the number of elements in a block");
    b.check(count <= n - read, "element block " + std::to_string(block) + " holds " + std::to_string(count) +
                                   " elements, more than the " + std::to_string(n - read) + " left of the " +
                                   std::to_string(n) + " the $Elements header declares");
    b.need(count, static_cast<size_t>(size_bytes_) * (1 + static_cast<size_t>(type.nodes)), "elements");
    const std::vector<long long> physicals = entity_physicals(entity_dim, entity_tag);
    for (long long i = 0; i < count; ++i, ++read) {
      const long long tag = b.size("an element tag");
      long long nodes[RawElements::kMaxNodes];
      for (int k = 0; k < type.nodes; ++k) nodes[k] = b.size("a node tag");
      add_element(tag, type, nodes, physicals.data(), physicals.size(), b.where());
    }
  }
  b.check(read == n, "the $Elements header declares " + std::to_string(n) + " elements but its " +
                         std::to_string(blocks) + " blocks hold " + std::to_string(read));
  expect_end("$EndElements", static_cast<long>(n));
}

void GmshReader::read_nodes22_binary() {
  read_header_line("in $Nodes", 1, "the number of nodes");
  const int n = parse_count(tokens_[0], file_.where(), "the number of nodes");
  Binary b(file_, "$Nodes", size_bytes_);
  b.need(n, 4 + 3 * 8, "nodes (an int tag and 3 doubles)");
  for (int i = 0; i < n; ++i) {
    const long long tag = b.int32("a node tag");
    double xyz[3];
    read_coordinates(b, tag, xyz);
    add_node(tag, xyz, b.where());
  }
  expect_end("$EndNodes", n);
}

void GmshReader::read_elements22_binary() {
  read_header_line("in $Elements", 1, "the number of elements");
  const int n = parse_count(tokens_[0], file_.where(), "the number of elements");
  Binary b(file_, "$Elements", size_bytes_);
  int read = 0;
  while (read < n) {
    const GmshType& type = gmsh_type(b.int32("an element type"), b.where());
    const long long following = b.int32("the number of elements in a group");
    const long long num_tags = b.int32("the number of element tags");
    b.check(following >= 1 && following <= n - read, "an element group of " + std::to_string(following) +
                                                         " elements, expected 1 to the " + std::to_string(n - read) +
                                                         " left of the " + std::to_string(n) + " the section declares");
    b.check(num_tags >= 0, "an element group with " + std::to_string(num_tags) + " tags per element");
    b.need(following, 4 * (1 + static_cast<size_t>(num_tags) + static_cast<size_t>(type.nodes)), "elements");
    for (long long i = 0; i < following; ++i, ++read) {
      const long long tag = b.int32("an element tag");
      long long physical = 0;
      for (long long k = 0; k < num_tags; ++k) {
        const long long value = b.int32("an element tag (physical, elementary, ...)");
        if (k == 0) physical = value;
      }
      long long nodes[RawElements::kMaxNodes];
      for (int k = 0; k < type.nodes; ++k) nodes[k] = b.int32("a node tag");
      add_element(tag, type, nodes, &physical, 1, b.where());
    }
  }
  expect_end("$EndElements", n);
}

}  // namespace softik::mesh_io
