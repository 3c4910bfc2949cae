// Gmsh .msh reader (gmsh_reader.hpp): the text sections and the steps common to text and binary
// files. Element types 1 line, 2 triangle, 3 quadrangle, 4 tetrahedron, 5 hexahedron, 15 point
// (Gmsh's node order of these linear elements is VTK's), 11 10-node tetrahedron (Gmsh lists the
// mid-nodes of edges (2,3) and (1,3) in the order VTK swaps: read as VTK's) and 9 6-node
// triangle (faces of a Tet10 mesh; the same order as softik's Tri6). Text is read line by line: Gmsh writes
// one node, element or entity per line, so a wrong count is caught on its own line.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <utility>

#include "host/io/gmsh_reader.hpp"

namespace softik::mesh_io {
namespace {

constexpr GmshType kSupportedTypes[] = {{1, static_cast<int>(CellType::Edge2), 2, "line"},
                                        {2, static_cast<int>(CellType::Tri3), 3, "triangle"},
                                        {3, static_cast<int>(CellType::Quad4), 4, "quadrangle"},
                                        {4, static_cast<int>(CellType::Tet4), 4, "tetrahedron"},
                                        {5, static_cast<int>(CellType::Hex8), 8, "hexahedron"},
                                        {15, RawElements::kPoint, 1, "point"},
                                        {9, RawElements::kTri6, 6, "6-node triangle"},
                                        {11, static_cast<int>(CellType::Tet10), 10, "10-node tetrahedron"}};

// Other Gmsh types, named in the error that refuses them.
const char* unsupported_type_name(long long type) {
  constexpr std::pair<long long, const char*> kNames[] = {
      {6, "6-node prism"},        {7, "5-node pyramid"}, {8, "3-node line"},      {10, "9-node quadrangle"},
      {12, "27-node hexahedron"}, {13, "18-node prism"}, {14, "14-node pyramid"}, {16, "8-node quadrangle"},
      {17, "20-node hexahedron"}, {18, "15-node prism"}, {19, "13-node pyramid"}};
  for (const auto& [code, name] : kNames)
    if (code == type) return name;
  return "unknown to softik";
}

}  // namespace

const GmshType& gmsh_type(long long type, const Where& where) {
  for (const GmshType& t : kSupportedTypes)
    if (t.type == type) return t;
  SOFTIK_PARSE_FAIL(where, "element type " << type << " (" << unsupported_type_name(type)
                                           << ") is not supported: softik reads Gmsh element types 1 (line), 2 "
                                              "(triangle), 3 (quadrangle), 4 (tetrahedron), 5 (hexahedron), 15 "
                                              "(point), and 11 (10-node tetrahedron) with 9 (6-node triangle) for "
                                              "its faces; re-mesh with tetrahedra (Mesh.ElementOrder = 1 or 2) or "
                                              "first-order hexahedra, no prisms or pyramids");
}

Mesh GmshReader::read() {
  std::string_view line;
  while (file_.next_line(&line) && trim(line).empty()) {
  }
  SOFTIK_PARSE_CHECK(
      trim(line) == "$MeshFormat", file_.where(),
      "expected $MeshFormat at the start of a Gmsh .msh file, found '" << trim(line).substr(0, 40) << "'");
  read_format();
  while (file_.next_line(&line)) {
    const std::string_view section = trim(line);
    if (section.empty()) continue;
    SOFTIK_PARSE_CHECK(
        section[0] == '$', file_.where(),
        "expected the start of a section ($Nodes, $Elements, ...), found '" << section.substr(0, 40) << "'");
    if (section == "$PhysicalNames") {
      read_physical_names();
    } else if (section == "$Entities" && version_ == 4) {
      binary_ ? read_entities_binary() : read_entities();
    } else if (section == "$Nodes") {
      SOFTIK_PARSE_CHECK(!have_nodes_, file_.where(), "a second $Nodes section: softik reads one");
      if (version_ == 4)
        binary_ ? read_nodes41_binary() : read_nodes41();
      else
        binary_ ? read_nodes22_binary() : read_nodes22();
      have_nodes_ = true;
    } else if (section == "$Elements") {
      SOFTIK_PARSE_CHECK(!have_elements_, file_.where(), "a second $Elements section: softik reads one");
      SOFTIK_PARSE_CHECK(have_nodes_, file_.where(), "$Elements before $Nodes: the nodes must come first");
      elements_line_ = file_.where().line;
      if (version_ == 4)
        binary_ ? read_elements41_binary() : read_elements41();
      else
        binary_ ? read_elements22_binary() : read_elements22();
      have_elements_ = true;
    } else {
      skip_section(section);
    }
  }
  SOFTIK_PARSE_CHECK(have_nodes_, file_.eof_where(), "no $Nodes section in the file");
  SOFTIK_PARSE_CHECK(have_elements_, file_.eof_where(), "no $Elements section in the file");
  return build();
}

// The next line, which must not start a section ("$..."), split into tokens_.
void GmshReader::next_record(const char* context, long declared, long read) {
  const std::string_view line = file_.expect_line(context);
  split(line, &tokens_);
  SOFTIK_PARSE_CHECK(tokens_.empty() || tokens_[0][0] != '$', file_.where(),
                     "expected " << declared << " entries " << context << " as its header declares, found "
                                 << tokens_[0] << " after " << read);
}

void GmshReader::expect_end(const char* end, long declared) {
  std::string_view line;
  while (file_.next_line(&line) && trim(line).empty()) {
  }
  SOFTIK_PARSE_CHECK(!file_.at_end() || trim(line) == end, file_.eof_where(),
                     "unexpected end of file: expected " << end << " (is the file truncated?)");
  SOFTIK_PARSE_CHECK(trim(line) == end, file_.where(),
                     "expected " << end << " after the " << declared << " entries the section header declares, found '"
                                 << trim(line).substr(0, 40) << "' (is the count in the header wrong?)");
}

void GmshReader::check_fields(size_t fields, const char* expected) const {
  SOFTIK_PARSE_CHECK(tokens_.size() == fields, file_.where(),
                     "expected " << expected << ", found " << tokens_.size() << " fields");
}

void GmshReader::read_header_line(const char* context, size_t fields, const char* expected) {
  split(file_.expect_line(context), &tokens_);
  check_fields(fields, expected);
}

GmshReader::BlocksHeader GmshReader::read_blocks_header(const char* context, const char* expected,
                                                        const char* blocks_what, const char* count_what) {
  read_header_line(context, 4, expected);
  const Where at = file_.where();
  const int blocks = parse_count(tokens_[0], at, blocks_what);
  return {at, blocks, parse_count(tokens_[1], at, count_what)};
}

Where GmshReader::next_block_header(const char* context, long blocks, long b, const char* expected) {
  next_record(context, blocks, b);
  check_fields(4, expected);
  return file_.where();
}

std::vector<long long> GmshReader::entity_physicals(long long entity_dim, long long entity_tag) const {
  if (entity_dim < 0 || entity_dim > 3) return {};
  const auto it = entity_physicals_.find({static_cast<int>(entity_dim), entity_tag});
  return it != entity_physicals_.end() ? it->second : std::vector<long long>{};
}

void GmshReader::skip_section(std::string_view section) {
  const long start = file_.where().line;
  const std::string end = "$End" + std::string(section.substr(1));
  std::string_view line;
  while (file_.next_line(&line))
    if (trim(line) == end) return;
  SOFTIK_PARSE_FAIL(file_.eof_where(),
                    "unexpected end of file: section " << section << " (line " << start << ") has no " << end);
}

void GmshReader::read_format() {
  read_header_line("in $MeshFormat", 3, "'version file-type data-size' in $MeshFormat");
  const Where at = file_.where();
  const std::string_view version = tokens_[0];
  if (version == "4.1") {
    version_ = 4;
  } else if (version == "2.2" || version == "2.1" || version == "2" || version == "2.0") {
    version_ = 2;
  } else {
    SOFTIK_PARSE_FAIL(at, "Gmsh file format " << version.substr(0, 20)
                                              << " is not supported: re-save the mesh as version 4.1 or 2.2 "
                                                 "(Gmsh: File > Export, or set Mesh.MshFileVersion = 4.1)");
  }
  const long long file_type = parse_int(tokens_[1], at, "the file type (0 = ASCII, 1 = binary)");
  SOFTIK_PARSE_CHECK(file_type == 0 || file_type == 1, at,
                     "the file type is " << file_type << ", expected 0 (ASCII) or 1 (binary)");
  binary_ = file_type == 1;
  if (binary_) {
    const long long data_size = parse_int(tokens_[2], at, "the data size (the bytes of a size_t)");
    SOFTIK_PARSE_CHECK(data_size == 4 || data_size == 8, at,
                       "the data size is " << data_size
                                           << ", expected 8 (or 4): the bytes of the size_t counts "
                                              "of a binary .msh file");
    size_bytes_ = static_cast<int>(data_size);
    read_binary_one();
  }
  expect_end("$EndMeshFormat", 1);
}

void GmshReader::read_physical_names() {
  read_header_line("in $PhysicalNames", 1, "the number of physical names");
  const int n = parse_count(tokens_[0], file_.where(), "the number of physical names");
  for (int i = 0; i < n; ++i) {
    const std::string_view line = file_.expect_line("in $PhysicalNames");
    split(line, &tokens_);
    const Where at = file_.where();
    SOFTIK_PARSE_CHECK(
        tokens_.empty() || tokens_[0][0] != '$', at,
        "expected " << n << " physical names as the header declares, found " << tokens_[0] << " after " << i);
    SOFTIK_PARSE_CHECK(tokens_.size() >= 3, at,
                       "expected 'dimension tag \"name\"', found " << tokens_.size() << " fields");
    const long long dim = parse_int(tokens_[0], at, "the dimension of a physical group");
    SOFTIK_PARSE_CHECK(dim >= 0 && dim <= 3, at, "physical group dimension " << dim << " is not in 0..3");
    const long long tag = parse_int(tokens_[1], at, "a physical tag");
    const std::string_view rest =
        trim(line.substr(static_cast<size_t>(tokens_[1].data() + tokens_[1].size() - line.data())));
    SOFTIK_PARSE_CHECK(rest.size() >= 2 && rest.front() == '"' && rest.back() == '"', at,
                       "expected the physical group name in double quotes, found '" << rest.substr(0, 40) << "'");
    names_[{static_cast<int>(dim), tag}] = std::string(rest.substr(1, rest.size() - 2));
  }
  expect_end("$EndPhysicalNames", n);
}

void GmshReader::read_entities() {
  read_header_line("in $Entities", 4, "'numPoints numCurves numSurfaces numVolumes'");
  int counts[4];
  for (int d = 0; d < 4; ++d) counts[d] = parse_count(tokens_[d], file_.where(), "a number of entities");
  long total = 0;
  for (int d = 0; d < 4; ++d)
    for (int i = 0; i < counts[d]; ++i) {
      next_record("in $Entities", static_cast<long>(counts[0]) + counts[1] + counts[2] + counts[3], total++);
      const Where at = file_.where();
      // Points: tag x y z numPhysicals physicals...; others: tag box(6) numPhysicals physicals...
      // numBounding bounding...
      const size_t phys_at = d == 0 ? 4 : 7;
      SOFTIK_PARSE_CHECK(tokens_.size() > phys_at, at,
                         "expected " << (d == 0 ? "'tag x y z numPhysicalTags ...'"
                                                : "'tag minX minY minZ maxX "
                                                  "maxY maxZ numPhysicalTags ...'")
                                     << " for an entity of dimension " << d << ", found " << tokens_.size()
                                     << " fields");
      const long long tag = parse_int(tokens_[0], at, "an entity tag");
      const int num_phys = parse_count(tokens_[phys_at], at, "the number of physical tags");
      const size_t after = phys_at + 1 + static_cast<size_t>(num_phys);
      size_t expected = after;
      if (d > 0) {
        SOFTIK_PARSE_CHECK(tokens_.size() > after, at,
                           "expected " << num_phys << " physical tags and the number of bounding entities, found "
                                       << tokens_.size() - phys_at - 1 << " values");
        expected = after + 1 + static_cast<size_t>(parse_count(tokens_[after], at, "the number of bounding entities"));
      }
      SOFTIK_PARSE_CHECK(
          tokens_.size() == expected, at,
          "expected " << expected << " fields for this entity of dimension " << d << ", found " << tokens_.size());
      std::vector<long long>& phys = entity_physicals_[{d, tag}];
      for (size_t k = phys_at + 1; k < after; ++k)
        phys.push_back(std::llabs(parse_int(tokens_[k], at, "a physical tag")));
    }
  expect_end("$EndEntities", total);
}

void GmshReader::add_node_text(long long tag, size_t first_coordinate) {
  const Where at = file_.where();
  static const char* const what[3] = {"the x coordinate", "the y coordinate", "the z coordinate"};
  double xyz[3];
  for (int i = 0; i < 3; ++i) xyz[i] = parse_coordinate(tokens_[first_coordinate + i], at, what[i]);
  add_node(tag, xyz, at);
}

void GmshReader::add_node(long long tag, const double xyz[3], const Where& at) {
  const auto [it, inserted] = node_index_.emplace(tag, mesh_.num_nodes());
  SOFTIK_PARSE_CHECK(
      inserted, at,
      "node tag " << tag << " is defined twice (first at line " << node_lines_[static_cast<size_t>(it->second)] << ")");
  mesh_.X.insert(mesh_.X.end(), xyz, xyz + 3);
  node_lines_.push_back(at.line);
}

void GmshReader::read_nodes22() {
  read_header_line("in $Nodes", 1, "the number of nodes");
  const int n = parse_count(tokens_[0], file_.where(), "the number of nodes");
  for (int i = 0; i < n; ++i) {
    next_record("in $Nodes", n, i);
    SOFTIK_PARSE_CHECK(tokens_.size() == 4, file_.where(),
                       "expected a node as 'tag x y z' (4 numbers), found " << tokens_.size());
    add_node_text(parse_int(tokens_[0], file_.where(), "a node tag"), 1);
  }
  expect_end("$EndNodes", n);
}

void GmshReader::read_nodes41() {
  const auto [header, blocks, n] = read_blocks_header("in $Nodes", "'numEntityBlocks numNodes minNodeTag maxNodeTag'",
                                                      "the number of node blocks", "the number of nodes");
  for (int b = 0; b < blocks; ++b) {
    const Where at = next_block_header("in $Nodes (node block headers)", blocks, b,
                                       "a node block header 'entityDim entityTag parametric numNodesInBlock'");
    const long long entity_dim = parse_int(tokens_[0], at, "the entity dimension");
    SOFTIK_PARSE_CHECK(entity_dim >= 0 && entity_dim <= 3, at, "entity dimension " << entity_dim << " is not in 0..3");
    const long long parametric = parse_int(tokens_[2], at, "the parametric flag (0 or 1)");
    SOFTIK_PARSE_CHECK(parametric == 0 || parametric == 1, at,
                       "the parametric flag is " << parametric << ", expected 0 or 1");
    const int count = parse_count(tokens_[3], at, "the number of nodes in the block");
    SOFTIK_PARSE_CHECK(count <= n - mesh_.num_nodes(), at,
                       "this block holds " << count << " nodes, more than the " << n - mesh_.num_nodes()
                                           << " left of the " << n << " the $Nodes header declares");
    std::vector<long long> tags;
    std::vector<long> tag_lines;
    while (static_cast<int>(tags.size()) < count) {
      next_record("in $Nodes (node tags)", count, static_cast<long>(tags.size()));
      SOFTIK_PARSE_CHECK(static_cast<int>(tags.size() + tokens_.size()) <= count, file_.where(),
                         "more node tags than the " << count << " the block header declares");
      for (std::string_view t : tokens_) {
        tags.push_back(parse_int(t, file_.where(), "a node tag"));
        tag_lines.push_back(file_.where().line);
      }
    }
    const size_t values = 3 + (parametric ? static_cast<size_t>(entity_dim) : 0);
    for (int i = 0; i < count; ++i) {
      next_record("in $Nodes (node coordinates)", count, i);
      SOFTIK_PARSE_CHECK(tokens_.size() == values, file_.where(),
                         "expected " << values << " coordinates for node tag " << tags[static_cast<size_t>(i)]
                                     << " (declared at line " << tag_lines[static_cast<size_t>(i)] << "), found "
                                     << tokens_.size());
      add_node_text(tags[static_cast<size_t>(i)], 0);
    }
  }
  SOFTIK_PARSE_CHECK(
      mesh_.num_nodes() == n, header,
      "the $Nodes header declares " << n << " nodes but its " << blocks << " blocks hold " << mesh_.num_nodes());
  expect_end("$EndNodes", n);
}

void GmshReader::add_element_text(long long tag, const GmshType& type, size_t first, const long long* physicals,
                                  size_t num_physicals) {
  const Where at = file_.where();
  const size_t found = tokens_.size() - first;
  SOFTIK_PARSE_CHECK(
      found == static_cast<size_t>(type.nodes), at,
      "expected " << type.nodes << " node tags for a " << type.name << " (type " << type.type << "), found " << found);
  long long node_tags[RawElements::kMaxNodes];
  for (size_t k = 0; k < found; ++k) node_tags[k] = parse_int(tokens_[first + k], at, "a node tag");
  add_element(tag, type, node_tags, physicals, num_physicals, at);
}

void GmshReader::add_element(long long tag, const GmshType& type, const long long* node_tags,
                             const long long* physicals, size_t num_physicals, const Where& at) {
  const int e = raw_.size();
  raw_.add(type.kind, at.line);
  for (int k = 0; k < type.nodes; ++k) {
    // Gmsh's Tet10 has the mid-node of edge (2,3) at 8 and of (1,3) at 9; VTK's (softik's) swaps them.
    const int from = type.kind == static_cast<int>(CellType::Tet10) && k >= 8 ? 17 - k : k;
    const long long node_tag = node_tags[from];
    const auto it = node_index_.find(node_tag);
    SOFTIK_PARSE_CHECK(it != node_index_.end(), at,
                       "element " << tag << " refers to node tag " << node_tag << ", which $Nodes does not define");
    raw_.nodes.push_back(it->second);
  }
  raw_.close();
  int owner = e;
  // Gmsh 2.2 writes an element once per physical group it belongs to: the same element.
  const auto [it, inserted] =
      version_ == 2 ? element_index_.emplace(tag, e) : std::make_pair(element_index_.end(), true);
  if (!inserted) {
    owner = it->second;
    const bool same = raw_.kind[owner] == type.kind &&
                      std::equal(raw_.nodes.begin() + raw_.offsets[owner], raw_.nodes.begin() + raw_.offsets[owner + 1],
                                 raw_.nodes.begin() + raw_.offsets[e]);
    SOFTIK_PARSE_CHECK(same, at,
                       "element tag " << tag << " is defined twice with different types or nodes (first at line "
                                      << raw_.line[owner] << ")");
    raw_.kind.pop_back();
    raw_.line.pop_back();
    raw_.offsets.pop_back();
    raw_.nodes.resize(static_cast<size_t>(raw_.offsets.back()));
  }
  for (size_t k = 0; k < num_physicals; ++k)
    if (physicals[k] != 0) memberships_.emplace_back(owner, physicals[k]);
}

void GmshReader::read_elements22() {
  read_header_line("in $Elements", 1, "the number of elements");
  const int n = parse_count(tokens_[0], file_.where(), "the number of elements");
  for (int i = 0; i < n; ++i) {
    next_record("in $Elements", n, i);
    const Where at = file_.where();
    SOFTIK_PARSE_CHECK(
        tokens_.size() >= 3, at,
        "expected an element as 'tag type numTags tags... nodes...', found " << tokens_.size() << " fields");
    const long long tag = parse_int(tokens_[0], at, "an element tag");
    const GmshType& type = gmsh_type(parse_int(tokens_[1], at, "an element type"), at);
    const int num_tags = parse_count(tokens_[2], at, "the number of element tags");
    SOFTIK_PARSE_CHECK(tokens_.size() >= 3 + static_cast<size_t>(num_tags), at,
                       "element " << tag << " declares " << num_tags << " tags but the line has only "
                                  << tokens_.size() - 3 << " values after them");
    long long physical = 0;
    if (num_tags > 0) physical = parse_int(tokens_[3], at, "a physical tag");
    for (int k = 1; k < num_tags; ++k) parse_int(tokens_[3 + static_cast<size_t>(k)], at, "an element tag");
    add_element_text(tag, type, 3 + static_cast<size_t>(num_tags), &physical, 1);
  }
  expect_end("$EndElements", n);
}

void GmshReader::read_elements41() {
  const auto [header, blocks, n] =
      read_blocks_header("in $Elements", "'numEntityBlocks numElements minElementTag maxElementTag'",
                         "the number of element blocks", "the number of elements");
  long read = 0;
  for (int b = 0; b < blocks; ++b) {
    const Where at = next_block_header("in $Elements (element block headers)", blocks, b,
                                       "an element block header 'entityDim entityTag elementType numElementsInBlock'");
    const long long entity_dim = parse_int(tokens_[0], at, "the entity dimension");
    const long long entity_tag = parse_int(tokens_[1], at, "the entity tag");
    const GmshType& type = gmsh_type(parse_int(tokens_[2], at, "an element type"), at);
    const int count = parse_count(tokens_[3], at, "the number of elements in the block");
    SOFTIK_PARSE_CHECK(count <= n - read, at,
                       "this block holds " << count << " elements, more than the " << n - read << " left of the " << n
                                           << " the $Elements header declares");
    const std::vector<long long> physicals = entity_physicals(entity_dim, entity_tag);
    for (int i = 0; i < count; ++i, ++read) {
      next_record("in $Elements", count, i);
      add_element_text(parse_int(tokens_[0], file_.where(), "an element tag"), type, 1, physicals.data(),
                       physicals.size());
    }
  }
  SOFTIK_PARSE_CHECK(
      read == n, header,
      "the $Elements header declares " << n << " elements but its " << blocks << " blocks hold " << read);
  expect_end("$EndElements", n);
}

Mesh GmshReader::build() {
  const std::vector<int> cell_of =
      assemble_cells(raw_, node_lines_, file_.where(elements_line_),
                     "; if the body is 3D, Gmsh saved only the physical groups defined: add a Physical Volume "
                     "(or set Mesh.SaveAll = 1)",
                     &mesh_);
  std::sort(memberships_.begin(), memberships_.end());
  memberships_.erase(std::unique(memberships_.begin(), memberships_.end()), memberships_.end());
  for (const auto& [e, tag] : memberships_) {
    const int d = raw_.dimension(e);
    const auto named = names_.find({d, tag});
    const std::string name = named != names_.end() ? named->second : "physical_" + std::to_string(tag);
    const auto first = raw_.nodes.begin() + raw_.offsets[e], last = raw_.nodes.begin() + raw_.offsets[e + 1];
    std::vector<int>& nodes = mesh_.node_groups[name];
    nodes.insert(nodes.end(), first, last);
    if (d == mesh_.dim) {
      mesh_.cell_groups[name].push_back(cell_of[static_cast<size_t>(e)]);
    } else if (mesh_.dim == 3 && d == 2) {
      SurfaceGroup& surface = mesh_.surface_groups[name];
      if (last - first == 3)
        surface.triangles.push_back({first[0], first[1], first[2]});
      else if (last - first == 6)
        surface.triangles6.push_back({first[0], first[1], first[2], first[3], first[4], first[5]});
      else
        surface.quads.push_back({first[0], first[1], first[2], first[3]});
    }
  }
  for (auto* groups : {&mesh_.node_groups, &mesh_.cell_groups})
    for (auto& [name, ids] : *groups) {
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    }
  return std::move(mesh_);
}

Mesh read_gmsh(const std::string& path) { return GmshReader(path).read(); }

}  // namespace softik::mesh_io
