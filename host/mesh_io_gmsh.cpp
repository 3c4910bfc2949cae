// Gmsh .msh reader, versions 2.2 and 4.1, ASCII (mesh_io.hpp). Sections: $MeshFormat,
// $PhysicalNames, $Entities (4.1: entity -> physical tags), $Nodes, $Elements; others skipped.
// Element types: 1 line2, 2 tri3, 3 quad4, 4 tet4, 5 hex8, 15 point (Gmsh's node order of these
// linear elements is VTK's). Physical groups become groups named by $PhysicalNames (else
// "physical_<tag>"): cells of the mesh's dimension -> cell_groups, faces of dimension dim-1 ->
// surface_groups (file winding), every group -> node_groups (all nodes of its elements).
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "mesh_io_common.hpp"

namespace softik::mesh_io {

namespace {

int element_kind(int gmsh_type, const Where& where) {
  switch (gmsh_type) {
    case 1: return static_cast<int>(CellType::Edge2);
    case 2: return static_cast<int>(CellType::Tri3);
    case 3: return static_cast<int>(CellType::Quad4);
    case 4: return static_cast<int>(CellType::Tet4);
    case 5: return static_cast<int>(CellType::Hex8);
    case 15: return RawElements::kPoint;
    default:
      SOFTIK_PARSE_FAIL(where, "unsupported Gmsh element type " << gmsh_type
                                                               << ": softik reads 1 (2-node line), 2 (3-node triangle), "
                                                                  "3 (4-node quadrangle), 4 (4-node tetrahedron), 5 "
                                                                  "(8-node hexahedron) and 15 (point); re-mesh with "
                                                                  "first-order elements (Gmsh: -order 1)");
  }
}

int kind_nodes(int kind) { return kind == RawElements::kPoint ? 1 : nodes_per_cell(static_cast<CellType>(kind)); }

struct GmshFile {
  TextFile file;
  double version = 0;
  std::map<std::pair<int, int>, std::string> names;                 // (dim, physical tag) -> name
  std::map<std::pair<int, int>, std::vector<int>> entity_physicals;  // (dim, entity tag) -> physical tags
  std::unordered_map<long long, int> node_index;                     // Gmsh node tag -> 0-based index
  std::vector<long> node_lines;
  Mesh mesh;
  RawElements raw;
  std::vector<std::vector<int>> physicals;  // per element: its physical tags
  std::vector<int> element_dim;

  explicit GmshFile(const std::string& path) : file(path) {}

  void expect_end(const char* section) {
    const std::string end = std::string("$End") + section;
    const std::string_view token = file.expect_token(("before " + end).c_str());
    SOFTIK_PARSE_CHECK(token == end, file.where(), "expected " << end << ", found '" << token << "' (wrong counts in $"
                                                               << section << "?)");
  }

  void read_format() {
    version = next_real(file, "in $MeshFormat", "the format version");
    const Where w = file.where();
    SOFTIK_PARSE_CHECK(version == 2.2 || (version >= 4.1 && version < 4.2) || version == 2.0 || version == 2.1, w,
                       "unsupported Gmsh format version " << version << ": softik reads 2.2 and 4.1 (Gmsh: File > "
                                                                        "Export, Version 4 ASCII or 2 ASCII)");
    const int binary = next_count(file, "in $MeshFormat", "the file type");
    SOFTIK_PARSE_CHECK(binary == 0, file.where(), "binary .msh files are not read: re-save the mesh as ASCII (Gmsh: "
                                                  "File > Export, format 'Version 4 ASCII')");
    next_count(file, "in $MeshFormat", "the data size");
    expect_end("MeshFormat");
  }

  void read_physical_names() {
    const int n = next_count(file, "in $PhysicalNames", "the number of physical names");
    for (int k = 0; k < n; ++k) {
      const int dim = next_count(file, "in $PhysicalNames", "a physical group dimension");
      const int tag = next_count(file, "in $PhysicalNames", "a physical tag");
      std::string_view line = file.expect_line("in $PhysicalNames");
      const size_t q0 = line.find('"'), q1 = line.rfind('"');
      SOFTIK_PARSE_CHECK(q0 != std::string_view::npos && q1 > q0, file.where(),
                         "expected a quoted physical group name after '" << dim << " " << tag << "'");
      names[{dim, tag}] = std::string(line.substr(q0 + 1, q1 - q0 - 1));
    }
    expect_end("PhysicalNames");
  }

  void read_entities() {
    int counts[4];
    for (int& c : counts) c = next_count(file, "in $Entities", "a number of entities");
    for (int dim = 0; dim < 4; ++dim)
      for (int k = 0; k < counts[dim]; ++k) {
        const int tag = next_count(file, "in $Entities", "an entity tag");
        for (int j = 0; j < (dim == 0 ? 3 : 6); ++j) next_real(file, "in $Entities", "a bound");
        const int np = next_count(file, "in $Entities", "a number of physical tags");
        std::vector<int>& phys = entity_physicals[{dim, tag}];
        for (int j = 0; j < np; ++j)
          phys.push_back(static_cast<int>(std::abs(next_int(file, "in $Entities", "a physical tag"))));
        if (dim > 0) {
          const int nb = next_count(file, "in $Entities", "a number of bounding entities");
          for (int j = 0; j < nb; ++j) next_int(file, "in $Entities", "a bounding entity tag");
        }
      }
    expect_end("Entities");
  }

  void add_node(long long tag, const Where& where) {
    SOFTIK_PARSE_CHECK(node_index.emplace(tag, static_cast<int>(node_lines.size())).second, where,
                       "node tag " << tag << " is defined twice");
    node_lines.push_back(where.line);
  }

  void read_coordinates() {
    for (int i = 0; i < 3; ++i)
      mesh.X.push_back(next_coordinate(file, "in $Nodes", "a node coordinate"));
  }

  void read_nodes() {
    if (version < 4) {
      const int n = next_count(file, "in $Nodes", "the number of nodes");
      for (int k = 0; k < n; ++k) {
        const long long tag = next_int(file, "in $Nodes", "a node tag");
        add_node(tag, file.where());
        read_coordinates();
      }
    } else {
      const int blocks = next_count(file, "in $Nodes", "the number of node blocks");
      next_count(file, "in $Nodes", "the number of nodes");
      next_int(file, "in $Nodes", "the minimum node tag");
      next_int(file, "in $Nodes", "the maximum node tag");
      for (int b = 0; b < blocks; ++b) {
        next_count(file, "in $Nodes", "an entity dimension");
        next_int(file, "in $Nodes", "an entity tag");
        const int parametric = next_count(file, "in $Nodes", "the parametric flag");
        SOFTIK_PARSE_CHECK(parametric == 0, file.where(), "parametric node coordinates are not read; export without "
                                                          "'Save parametric coordinates'");
        const int n = next_count(file, "in $Nodes", "the number of nodes in the block");
        const size_t first = node_lines.size();
        for (int k = 0; k < n; ++k) add_node(next_int(file, "in $Nodes", "a node tag"), file.where());
        for (int k = 0; k < n; ++k) {
          read_coordinates();
          node_lines[first + static_cast<size_t>(k)] = file.where().line;
        }
      }
    }
    expect_end("Nodes");
  }

  void read_element_nodes(int kind, const char* context) {
    for (int a = 0; a < kind_nodes(kind); ++a) {
      const long long tag = next_int(file, context, "a node tag");
      const auto it = node_index.find(tag);
      SOFTIK_PARSE_CHECK(it != node_index.end(), file.where(),
                         "element uses node tag " << tag << ", which $Nodes does not define");
      raw.nodes.push_back(it->second);
    }
    raw.close();
  }

  void read_elements() {
    if (version < 4) {
      const int n = next_count(file, "in $Elements", "the number of elements");
      for (int k = 0; k < n; ++k) {
        next_int(file, "in $Elements", "an element tag");
        const long line = file.where().line;
        const int type = next_count(file, "in $Elements", "an element type");
        const int kind = element_kind(type, file.where());
        const int ntags = next_count(file, "in $Elements", "the number of tags");
        std::vector<int> tags;
        for (int j = 0; j < ntags; ++j)
          tags.push_back(static_cast<int>(next_int(file, "in $Elements", "an element tag value")));
        raw.add(kind, line);
        physicals.push_back(ntags > 0 && tags[0] != 0 ? std::vector<int>{std::abs(tags[0])} : std::vector<int>{});
        read_element_nodes(kind, "in $Elements");
        SOFTIK_PARSE_CHECK(file.where().line == line, file.where(),
                           "element " << k + 1 << " of type " << type << " continues onto the next line: expected "
                                      << kind_nodes(kind) << " node tags on line " << line);
      }
    } else {
      const int blocks = next_count(file, "in $Elements", "the number of element blocks");
      next_count(file, "in $Elements", "the number of elements");
      next_int(file, "in $Elements", "the minimum element tag");
      next_int(file, "in $Elements", "the maximum element tag");
      for (int b = 0; b < blocks; ++b) {
        const int dim = next_count(file, "in $Elements", "an entity dimension");
        const int entity = static_cast<int>(next_int(file, "in $Elements", "an entity tag"));
        const int type = next_count(file, "in $Elements", "an element type");
        const int kind = element_kind(type, file.where());
        const int n = next_count(file, "in $Elements", "the number of elements in the block");
        const auto phys_it = entity_physicals.find({dim, entity});
        const std::vector<int> phys = phys_it == entity_physicals.end() ? std::vector<int>{} : phys_it->second;
        for (int k = 0; k < n; ++k) {
          next_int(file, "in $Elements", "an element tag");
          const long line = file.where().line;
          raw.add(kind, line);
          physicals.push_back(phys);
          read_element_nodes(kind, "in $Elements");
          SOFTIK_PARSE_CHECK(file.where().line == line, file.where(),
                             "an element of type " << type << " continues onto the next line: expected "
                                                   << kind_nodes(kind) << " node tags on line " << line
                                                   << " (wrong number of nodes for the element type?)");
        }
      }
    }
    expect_end("Elements");
  }

  std::string group_name(int dim, int tag) const {
    const auto it = names.find({dim, tag});
    return it != names.end() ? it->second : "physical_" + std::to_string(tag);
  }

  Mesh finish() {
    SOFTIK_PARSE_CHECK(version != 0, file.where(1), "no $MeshFormat section: this is not a Gmsh .msh file");
    SOFTIK_PARSE_CHECK(!node_lines.empty(), file.eof_where(), "no $Nodes section (or no nodes)");
    const std::vector<int> cell_of = assemble_cells(raw, node_lines, file.eof_where(), "", &mesh);
    const int dim = mesh.dim;
    std::map<std::string, std::set<int>> node_sets;
    for (int e = 0; e < raw.size(); ++e) {
      const int edim = raw.dimension(e);
      for (int tag : physicals[static_cast<size_t>(e)]) {
        const std::string name = group_name(edim, tag);
        for (int k = raw.offsets[e]; k < raw.offsets[e + 1]; ++k) node_sets[name].insert(raw.nodes[static_cast<size_t>(k)]);
        if (edim == dim) {
          mesh.cell_groups[name].push_back(cell_of[static_cast<size_t>(e)]);
        } else if (edim == dim - 1 && dim == 3) {
          const int* v = raw.nodes.data() + raw.offsets[e];
          if (raw.kind[e] == static_cast<int>(CellType::Tri3))
            mesh.surface_groups[name].triangles.push_back({v[0], v[1], v[2]});
          else if (raw.kind[e] == static_cast<int>(CellType::Quad4))
            mesh.surface_groups[name].quads.push_back({v[0], v[1], v[2], v[3]});
        }
      }
    }
    for (auto& [name, set] : node_sets) mesh.node_groups[name].assign(set.begin(), set.end());
    return std::move(mesh);
  }
};

}  // namespace

Mesh read_gmsh(const std::string& path) {
  GmshFile g(path);
  std::string_view token;
  bool nodes = false;
  while (g.file.next_token(&token)) {
    if (token == "$MeshFormat") {
      g.read_format();
    } else if (token == "$PhysicalNames") {
      g.read_physical_names();
    } else if (token == "$Entities") {
      SOFTIK_PARSE_CHECK(g.version >= 4, g.file.where(), "$Entities in a version " << g.version << " file");
      g.read_entities();
    } else if (token == "$Nodes") {
      SOFTIK_PARSE_CHECK(g.version != 0, g.file.where(), "$Nodes before $MeshFormat: this is not a Gmsh .msh file");
      g.read_nodes();
      nodes = true;
    } else if (token == "$Elements") {
      SOFTIK_PARSE_CHECK(nodes, g.file.where(), "$Elements before $Nodes");
      g.read_elements();
    } else if (!token.empty() && token[0] == '$') {
      // An unknown section ($NodeData, $Periodic, ...): skip to its $End line.
      const std::string end = "$End" + std::string(token.substr(1));
      std::string_view t;
      bool closed = false;
      while (g.file.next_token(&t))
        if (t == end) {
          closed = true;
          break;
        }
      SOFTIK_PARSE_CHECK(closed, g.file.eof_where(), "section " << token << " is not closed by " << end);
    } else {
      SOFTIK_PARSE_FAIL(g.file.where(), "expected a section header such as $Nodes, found '"
                                            << std::string(token.substr(0, 40)) << "'");
    }
  }
  return g.finish();
}

}  // namespace softik::mesh_io
