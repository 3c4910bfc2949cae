// The Gmsh .msh reader (mesh_io.hpp), formats 2.2 and 4.1, ASCII or binary. Its text sections and
// the common steps are in mesh_io_gmsh.cpp, the binary $Entities, $Nodes and $Elements in
// mesh_io_gmsh_binary.cpp. Sections: $MeshFormat, $PhysicalNames (always text), $Entities (4.1:
// entity -> physical tags), $Nodes, $Elements; others are skipped to their $End line.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "host/io/mesh_io_common.hpp"

namespace softik::mesh_io {

/// A Gmsh element type softik reads.
struct GmshType {
  int type;
  int kind;  ///< CellType value or RawElements::kPoint
  int nodes;
  const char* name;
};

/// The supported type `type`; throws at `where` naming an unsupported one.
const GmshType& gmsh_type(long long type, const Where& where);

class GmshReader {
 public:
  explicit GmshReader(const std::string& path) : file_(path) {}
  Mesh read();

 private:
  // ---- text (mesh_io_gmsh.cpp) ----
  void next_record(const char* context, long declared, long read);
  /// Throws unless tokens_ holds `fields` fields (`expected` names them).
  void check_fields(size_t fields, const char* expected) const;
  /// The next line split into tokens_ (`context`: "in $Nodes"), checked by check_fields.
  void read_header_line(const char* context, size_t fields, const char* expected);
  /// A 4.1 $Nodes or $Elements section's header line ('numEntityBlocks numX minXTag maxXTag':
  /// `expected`): where it is, its number of blocks (`blocks_what`) and of items (`count_what`).
  struct BlocksHeader {
    Where at;
    int blocks, count;
  };
  BlocksHeader read_blocks_header(const char* context, const char* expected, const char* blocks_what,
                                  const char* count_what);
  /// The next block's header line of a 4.1 section, checked by check_fields(4, expected): where it is.
  Where next_block_header(const char* context, long blocks, long b, const char* expected);
  void expect_end(const char* end, long declared);
  void skip_section(std::string_view section);
  void read_format();
  void read_physical_names();
  void read_entities();
  void read_nodes22();
  void read_nodes41();
  void read_elements22();
  void read_elements41();
  /// A node whose tag is given and whose coordinates are tokens_[first..first+2].
  void add_node_text(long long tag, size_t first_coordinate);
  /// An element whose node tags are tokens_[first..] (as many as the type has).
  void add_element_text(long long tag, const GmshType& type, size_t first, const long long* physicals,
                        size_t num_physicals);
  // ---- binary (mesh_io_gmsh_binary.cpp) ----
  void read_binary_one();  ///< the int 1 after the format line: the file's byte order
  void read_entities_binary();
  void read_nodes22_binary();
  void read_nodes41_binary();
  void read_elements22_binary();
  void read_elements41_binary();
  // ---- common ----
  /// The physical tags of the entity (entity_dim, entity_tag) from $Entities (none when unknown).
  std::vector<long long> entity_physicals(long long entity_dim, long long entity_tag) const;
  /// A node with its coordinates (finite: checked by the caller), read at `at`.
  void add_node(long long tag, const double xyz[3], const Where& at);
  /// An element of `type` with type.nodes node tags; `physicals` are its physical tags.
  void add_element(long long tag, const GmshType& type, const long long* node_tags, const long long* physicals,
                   size_t num_physicals, const Where& at);
  Mesh build();

  TextFile file_;
  std::vector<std::string_view> tokens_;
  int version_ = 0;
  bool binary_ = false;
  int size_bytes_ = 8;  ///< binary: bytes of a size_t (the format line's data-size)
  bool have_nodes_ = false, have_elements_ = false;
  long elements_line_ = 0;
  std::map<std::pair<int, long long>, std::string> names_;
  std::map<std::pair<int, long long>, std::vector<long long>> entity_physicals_;
  std::unordered_map<long long, int> node_index_;
  std::unordered_map<long long, int> element_index_;  // 2.2: element tag -> element
  std::vector<long> node_lines_;
  Mesh mesh_;
  RawElements raw_;
  std::vector<std::pair<int, long long>> memberships_;  // (element, physical tag)
};

}  // namespace softik::mesh_io
