// Reading a node network from a YAML file (network_io.hpp; the format: docs/node-network-format.md).
// Every value is checked where it is read, so that errors name the file, the line and column of
// the value at fault and its key ("dome.yaml:12:5: links[3].nodes: ..."); validate(NodeNetwork)
// runs last on the whole network, its errors prefixed with the file name.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "softik/error.hpp"
#include "softik/network_io.hpp"

#include "host/io/yaml_keys.hpp"
#include "host/io/yaml_load.hpp"

namespace softik {
namespace {

namespace fs = std::filesystem;

const char* const kFormatDoc = "docs/node-network-format.md";

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) s += (i ? ", " : "") + words[i];
  return s;
}

std::string item(const std::string& what, size_t i) { return what + "[" + std::to_string(i) + "]"; }

// "a map", "a list", "'text'" or "nothing (null)": what a node holds, for messages.
std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list of " + std::to_string(node.size());
    case YAML::NodeType::Scalar:
      return "'" + node.Scalar() + "'";
    default:
      return "nothing (null)";
  }
}

// The file being read: its path, for the "<path>:<line>:<column>: " of every message.
class File {
 public:
  explicit File(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }

  std::string where(const YAML::Mark& mark) const {
    if (mark.is_null()) return path_;
    return path_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }
  std::string where(const YAML::Node& node) const { return where(node.Mark()); }

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
    throw Error(where(mark) + ": " + message, ErrorKind::Input);
  }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const { fail(node.Mark(), message); }
  [[noreturn]] void expected(const YAML::Node& node, const std::string& what, const std::string& type) const {
    fail(node, what + ": expected " + type + ", got " + describe(node));
  }

  Real number(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) expected(node, what, "a number");
    const std::string& text = node.Scalar();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
      expected(node, what, "a finite number (e.g. 1000, 0.2 or 1e-3)");
    return v;
  }

  // A number >= 0 (or > 0 when `positive`); `unit` completes the message.
  Real bounded(const YAML::Node& node, const std::string& what, bool positive, const char* unit) const {
    const Real v = number(node, what);
    if (positive ? !(v > 0) : !(v >= 0))
      fail(node, what + ": " + node.Scalar() + " must be " + (positive ? "> 0" : ">= 0") + " (" + unit + ")");
    return v;
  }

  // A node index in [0, num_nodes).
  int node_index(const YAML::Node& node, const std::string& what, int num_nodes) const {
    if (!node.IsScalar()) expected(node, what, "a node index (an integer)");
    const std::string& text = node.Scalar();
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
      expected(node, what, "a node index (an integer)");
    if (v < 0 || v >= num_nodes)
      fail(node, what + ": node " + text + " is out of range (the file has " + std::to_string(num_nodes) +
                     " nodes); node indices are 0-based: 0.." + std::to_string(num_nodes - 1));
    return static_cast<int>(v);
  }

  // A list of exactly n node indices (`shape` describes it: "[a, b]").
  std::vector<int> node_list(const YAML::Node& node, const std::string& what, size_t n, const std::string& shape,
                             int num_nodes) const {
    if (!node.IsSequence() || node.size() != n)
      expected(node, what, shape + " (" + std::to_string(n) + " node indices)");
    std::vector<int> nodes(n);
    for (size_t i = 0; i < n; ++i) nodes[i] = node_index(node[i], what, num_nodes);
    return nodes;
  }

  std::vector<YAML::Node> list(const YAML::Node& node, const std::string& what, const std::string& of) const {
    if (!node.IsSequence()) expected(node, what, "a list of " + of);
    std::vector<YAML::Node> items;
    for (size_t i = 0; i < node.size(); ++i) items.push_back(node[i]);
    return items;
  }

 private:
  std::string path_;
};

// A YAML map whose keys must all be among `allowed`, each once.
class Map {
 public:
  Map(const File& file, const YAML::Node& node, std::string what, std::vector<std::string> allowed)
      : file_(file), node_(node), what_(std::move(what)) {
    if (!node.IsMap())
      file.expected(node, what_.empty() ? "the file" : what_, "a map with keys from: " + join(allowed));
    entries_ =
        io_detail::checked_entries(node, allowed, [&](const YAML::Node& key, const std::string& k, bool duplicate) {
          if (duplicate) file.fail(key, "duplicate key '" + k + "' " + place() + "; give each key once");
          file.fail(key, "unknown key '" + (key.IsScalar() ? k : describe(key)) + "' " + place() +
                             "; allowed keys: " + join(allowed) + " (see " + kFormatDoc + ")");
        });
  }

  bool has(const std::string& key) const { return find(key) != nullptr; }
  YAML::Node at(const std::string& key) const { return *find(key); }
  YAML::Node need(const std::string& key, const std::string& hint) const {
    if (!has(key)) file_.fail(node_, "missing required key '" + key + "' " + place() + " (" + hint + ")");
    return at(key);
  }
  // "<what>.<key>" for messages ("<key>" at the top level).
  std::string name(const std::string& key) const { return what_.empty() ? key : what_ + "." + key; }
  // "in <what>", or "at the top level" (what: "").
  std::string place() const { return what_.empty() ? "at the top level" : "in " + what_; }
  std::optional<Real> bounded(const std::string& key, bool positive, const char* unit) const {
    if (!has(key)) return std::nullopt;
    return file_.bounded(at(key), name(key), positive, unit);
  }

 private:
  const YAML::Node* find(const std::string& key) const {
    for (const io_detail::MapEntry& e : entries_)
      if (e.name == key) return &e.value;
    return nullptr;
  }

  const File& file_;
  YAML::Node node_;
  std::string what_;
  std::vector<io_detail::MapEntry> entries_;
};

// The (name, value) pairs of a map of named groups, names non-empty and distinct.
std::vector<std::pair<std::string, YAML::Node>> named_entries(const File& file, const YAML::Node& node,
                                                              const std::string& what, const std::string& of) {
  if (!node.IsMap()) file.expected(node, what, "a map of name -> " + of);
  std::vector<std::pair<std::string, YAML::Node>> entries;
  std::map<std::string, int> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar() || key.Scalar().empty()) file.expected(key, what, "a non-empty name as the key");
    if (!seen.emplace(key.Scalar(), 0).second)
      file.fail(key, what + ": duplicate name '" + key.Scalar() + "'; give each name once");
    entries.emplace_back(key.Scalar(), it->second);
  }
  return entries;
}

// One value for every entry, or a list with one per entry (`count` of `entries`).
std::vector<Real> per_entry(const File& file, const YAML::Node& node, const std::string& what, size_t count,
                            const char* entries, bool positive, const char* unit) {
  if (node.IsScalar()) return std::vector<Real>(count, file.bounded(node, what, positive, unit));
  if (!node.IsSequence()) file.expected(node, what, std::string("one number, or a list of one per ") + entries);
  if (node.size() != count)
    file.fail(node, what + ": " + std::to_string(node.size()) + " values for " + std::to_string(count) + " " + entries +
                        "s; give one value (every " + entries + ") or one per " + entries);
  std::vector<Real> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = file.bounded(node[i], item(what, i), positive, unit);
  return values;
}

void read_nodes(const File& file, const YAML::Node& node, NodeNetwork& net, std::vector<YAML::Mark>& marks) {
  const std::vector<YAML::Node> items = file.list(node, "nodes", "[x, y, z] positions");
  if (items.empty()) file.fail(node, "nodes: the list is empty; give one [x, y, z] per node");
  for (size_t n = 0; n < items.size(); ++n) {
    const std::string what = item("nodes", n);
    if (!items[n].IsSequence() || items[n].size() != 3) file.expected(items[n], what, "[x, y, z] (3 numbers)");
    for (size_t i = 0; i < 3; ++i) net.X.push_back(file.number(items[n][i], item(what, i)));
    marks.push_back(items[n].Mark());
  }
  SOFTIK_CHECK(items.size() <= static_cast<size_t>(std::numeric_limits<int>::max()),
               file.path() << ": " << items.size() << " nodes; at most 2^31 - 1 are supported");
}

struct LinkDefaults {
  std::optional<Real> k;
  Real k3 = 0, c = 0;
};

LinkDefaults read_link_defaults(const File& file, const YAML::Node& node) {
  const Map m(file, node, "link_defaults", {"stiffness", "hardening", "dashpot"});
  LinkDefaults d;
  d.k = m.bounded("stiffness", false, "N/m");
  d.k3 = m.bounded("hardening", false, "N/m^3").value_or(0);
  d.c = m.bounded("dashpot", false, "N s/m").value_or(0);
  return d;
}

Real distance(const NodeNetwork& net, int a, int b) {
  Real d2 = 0;
  for (int i = 0; i < 3; ++i) {
    const Real d = net.X[3 * static_cast<size_t>(b) + i] - net.X[3 * static_cast<size_t>(a) + i];
    d2 += d * d;
  }
  return std::sqrt(d2);
}

// The links, each checked where it is written: two distinct nodes at different places, a pair
// not linked before, parameters in range; then every node must be reached by some link.
void read_links(const File& file, const YAML::Node& node, const LinkDefaults& defaults, NodeNetwork& net,
                const std::vector<YAML::Mark>& node_marks) {
  const std::vector<YAML::Node> items = file.list(node, "links", "[a, b] pairs or {nodes: [a, b], ...} maps");
  if (items.empty()) file.fail(node, "links: the list is empty; a network needs links between its nodes");
  const int N = net.num_nodes();
  std::map<std::pair<int, int>, size_t> seen;  // (min node, max node) -> link
  for (size_t l = 0; l < items.size(); ++l) {
    const std::string what = item("links", l);
    const bool compact = items[l].IsSequence();
    std::optional<Map> m;
    if (!compact) {
      if (!items[l].IsMap()) file.expected(items[l], what, "[a, b] or a map {nodes: [a, b], stiffness, ...}");
      m.emplace(file, items[l], what,
                std::vector<std::string>{"nodes", "stiffness", "rest_length", "hardening", "dashpot"});
    }
    const YAML::Node nodes_node = compact ? items[l] : m->need("nodes", "the two nodes it joins, [a, b]");
    const std::string nodes_what = compact ? what : what + ".nodes";
    const std::vector<int> ab = file.node_list(nodes_node, nodes_what, 2, "[a, b]", N);
    const int a = ab[0], b = ab[1];
    if (a == b)
      file.fail(nodes_node,
                nodes_what + ": joins node " + std::to_string(a) + " to itself; a link needs two different nodes");
    const auto inserted = seen.emplace(std::make_pair(std::min(a, b), std::max(a, b)), l);
    if (!inserted.second)
      file.fail(nodes_node, nodes_what + ": nodes " + std::to_string(a) + " and " + std::to_string(b) +
                                " are joined already by " + item("links", inserted.first->second) +
                                "; merge the two into one link");
    if (!(distance(net, a, b) > 0))
      file.fail(nodes_node, nodes_what + ": nodes " + std::to_string(a) + " and " + std::to_string(b) +
                                " are at the same place: a link of zero length has no direction; move one of "
                                "them or remove the link");
    fem::LinkParameters p;
    const std::optional<Real> k = m ? m->bounded("stiffness", false, "N/m") : std::nullopt;
    if (!k && !defaults.k)
      file.fail(items[l], what + ": no stiffness; give 'stiffness' (N/m) in this link ({nodes: [" + std::to_string(a) +
                              ", " + std::to_string(b) + "], stiffness: ...}) or in link_defaults");
    p.k = k ? *k : *defaults.k;
    p.k3 = (m ? m->bounded("hardening", false, "N/m^3") : std::nullopt).value_or(defaults.k3);
    p.c = (m ? m->bounded("dashpot", false, "N s/m") : std::nullopt).value_or(defaults.c);
    // Without rest_length: the rest distance as rest_lengths() computes it (write_node_network
    // omits exactly the rest lengths equal to it), filled in below.
    p.L = (m ? m->bounded("rest_length", true, "m") : std::nullopt).value_or(0);
    net.links.push_back({a, b});
    net.parameters.push_back(p);
  }
  const std::vector<Real> lengths = rest_lengths(net);
  for (size_t l = 0; l < net.parameters.size(); ++l)
    if (net.parameters[l].L == 0) net.parameters[l].L = lengths[l];
  std::vector<char> reached(static_cast<size_t>(N), 0);
  for (const auto& [a, b] : net.links) reached[static_cast<size_t>(a)] = reached[static_cast<size_t>(b)] = 1;
  for (int n = 0; n < N; ++n)
    if (!reached[static_cast<size_t>(n)])
      file.fail(node_marks[static_cast<size_t>(n)],
                item("nodes", static_cast<size_t>(n)) + ": node " + std::to_string(n) +
                    " belongs to no link; link it (links:) or remove it: it would move on its own");
}

void read_node_groups(const File& file, const YAML::Node& node, NodeNetwork& net) {
  for (const auto& [name, value] : named_entries(file, node, "node_groups", "a list of node indices")) {
    const std::string what = "node_groups." + name;
    std::vector<int>& group = net.node_groups[name];
    for (const YAML::Node& n : file.list(value, what, "node indices"))
      group.push_back(file.node_index(n, item(what, group.size()), net.num_nodes()));
  }
}

template <size_t n>
std::vector<std::array<int, n>> read_faces(const File& file, const YAML::Node& node, const std::string& what,
                                           const std::string& shape, int num_nodes) {
  std::vector<std::array<int, n>> faces;
  for (const YAML::Node& f : file.list(node, what, shape + " faces")) {
    const std::vector<int> v = file.node_list(f, item(what, faces.size()), n, shape, num_nodes);
    std::array<int, n> face;
    std::copy(v.begin(), v.end(), face.begin());
    faces.push_back(face);
  }
  return faces;
}

void read_surfaces(const File& file, const YAML::Node& node, NodeNetwork& net) {
  for (const auto& [name, value] : named_entries(file, node, "surfaces", "{triangles, quads}")) {
    const Map m(file, value, "surfaces." + name, {"triangles", "quads"});
    SurfaceGroup& s = net.surface_groups[name];
    if (m.has("triangles"))
      s.triangles = read_faces<3>(file, m.at("triangles"), m.name("triangles"), "[a, b, c]", net.num_nodes());
    if (m.has("quads")) s.quads = read_faces<4>(file, m.at("quads"), m.name("quads"), "[a, b, c, d]", net.num_nodes());
  }
}

void read_volume_cells(const File& file, const YAML::Node& node, NodeNetwork& net) {
  const Map m(file, node, "volume_cells", {"type", "stiffness", "cells", "rest_volume"});
  const YAML::Node type = m.need("type", "tet4 or hex8");
  if (!type.IsScalar() || (type.Scalar() != "tet4" && type.Scalar() != "hex8"))
    file.expected(type, "volume_cells.type", "tet4 or hex8");
  net.volume_cell_type = type.Scalar() == "tet4" ? CellType::Tet4 : CellType::Hex8;
  const size_t n = static_cast<size_t>(net.volume_cell_nodes());
  const std::string shape = n == 4 ? "[a, b, c, d]" : "[a, b, c, d, e, f, g, h]";
  const YAML::Node cells_node = m.need("cells", "one " + shape + " node list per cell, VTK order");
  const std::vector<YAML::Node> cells = file.list(cells_node, "volume_cells.cells", shape + " node lists");
  for (size_t c = 0; c < cells.size(); ++c) {
    const std::string what = item("volume_cells.cells", c);
    const std::vector<int> nodes = file.node_list(cells[c], what, n, shape, net.num_nodes());
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < a; ++b)
        if (nodes[a] == nodes[b])
          file.fail(cells[c],
                    what + ": lists node " + std::to_string(nodes[a]) + " twice; a cell needs distinct nodes");
    net.volume_cells.insert(net.volume_cells.end(), nodes.begin(), nodes.end());
  }
  net.volume_stiffness = per_entry(file, m.need("stiffness", "kappa (Pa): one value, or one per cell"),
                                   "volume_cells.stiffness", cells.size(), "cell", false, "Pa");
  const std::vector<Real> V = cell_volumes(net, net.X.data());
  for (size_t c = 0; c < cells.size(); ++c)
    if (!(V[c] > 0)) {
      std::ostringstream s;
      s.precision(17);
      s << item("volume_cells.cells", c) << ": the cell's volume at the rest positions is " << V[c]
        << " (m^3): it is inverted or degenerate; order its nodes as VTK does (positive volume)";
      file.fail(cells[c], s.str());
    }
  net.rest_volume = m.has("rest_volume") ? per_entry(file, m.at("rest_volume"), "volume_cells.rest_volume",
                                                     cells.size(), "cell", true, "m^3")
                                         : V;
}

NodeNetwork read_root(const File& file, const YAML::Node& root) {
  if (root.IsNull())
    throw Error(
        file.path() + ": the file is empty; a node network needs nodes, mass and links (see " + kFormatDoc + ")",
        ErrorKind::Input);
  const Map m(file, root, "", {"nodes", "mass", "link_defaults", "links", "node_groups", "surfaces", "volume_cells"});
  NodeNetwork net;
  std::vector<YAML::Mark> node_marks;
  read_nodes(file, m.need("nodes", "one [x, y, z] per node (m)"), net, node_marks);
  net.mass = per_entry(file, m.need("mass", "kg: one value for every node, or one per node"), "mass",
                       static_cast<size_t>(net.X.size() / 3), "node", true, "kg");
  const LinkDefaults defaults =
      m.has("link_defaults") ? read_link_defaults(file, m.at("link_defaults")) : LinkDefaults{};
  read_links(file, m.need("links", "[a, b] pairs or {nodes: [a, b], stiffness, ...} maps"), defaults, net, node_marks);
  if (m.has("node_groups")) read_node_groups(file, m.at("node_groups"), net);
  if (m.has("surfaces")) read_surfaces(file, m.at("surfaces"), net);
  if (m.has("volume_cells")) read_volume_cells(file, m.at("volume_cells"), net);
  return net;
}

}  // namespace

NodeNetwork read_node_network(const std::string& path) {
  std::error_code ec;
  SOFTIK_CHECK(!fs::is_directory(path, ec), path << ": is a folder, not a node-network file; give the path of a "
                                                    ".yaml node network (see "
                                                 << kFormatDoc << ")");
  std::ifstream in(path, std::ios::binary);
  SOFTIK_CHECK_IO(in.good(), path << ": cannot open the node-network file ("
                                  << (fs::exists(path, ec) ? "not readable" : "no such file") << ")");
  std::ostringstream text;
  text << in.rdbuf();
  SOFTIK_CHECK_IO(!in.bad(), path << ": cannot read the node-network file");
  const std::string content = text.str();
  const size_t nul = content.find('\0');
  SOFTIK_CHECK(nul == std::string::npos,
               path << ":" << 1 + std::count(content.begin(), content.begin() + static_cast<long>(nul), '\n')
                    << ": a NUL byte: this is not a text YAML file (a binary file, or one saved as UTF-16?); "
                       "give a node network in UTF-8 YAML (see "
                    << kFormatDoc << ")");
  const File file(path);
  io_detail::YamlLoadFailure failure;
  const std::optional<YAML::Node> loaded =
      io_detail::load_yaml_within_limits(content, io_detail::kMaxNetworkYamlBytes, failure);
  if (!loaded) file.fail(failure.mark, failure.message);
  const YAML::Node& root = *loaded;
  NodeNetwork net;
  try {
    net = read_root(file, root);
  } catch (const YAML::Exception& e) {  // yaml-cpp's own checks, should one fire while walking the tree
    file.fail(e.mark, e.msg);
  }
  try {
    validate(net);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what(), e.kind(), e.source());
  }
  return net;
}

}  // namespace softik
