// Writing a node network as YAML (network_io.hpp; the format: docs/node-network-format.md), so
// that read_node_network gives back the same network bit for bit: numbers in the shortest
// decimal form that reads back to the same double, rest lengths and rest volumes written only
// where they differ from what the reader computes from the rest positions (the same functions,
// rest_lengths and cell_volumes), link parameters only where they differ from link_defaults.
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "host/io/atomic_file.hpp"
#include "softik/error.hpp"
#include "softik/network_io.hpp"

namespace softik {
namespace {

// The same double, bit for bit (0 and -0 differ: both must read back as written).
bool same(Real a, Real b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void put(std::string& out, Real v) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}

void put(std::string& out, long long v) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}

// "[a, b, c]" on one line.
template <class Container>
void put_list(std::string& out, const Container& values) {
  out += '[';
  size_t i = 0;
  for (const auto& v : values) {
    if (i++) out += ", ";
    put(out, static_cast<long long>(v));
  }
  out += ']';
}

// A flow list of node indices, wrapped every 16 entries (continuation lines indented by `indent`).
void put_wrapped(std::string& out, const std::vector<int>& nodes, const std::string& indent) {
  out += '[';
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i) out += (i % 16 == 0) ? ",\n" + indent : std::string(", ");
    put(out, static_cast<long long>(nodes[i]));
  }
  out += ']';
}

// The value that most entries hold (bit for bit; the first such in order of first appearance).
Real most_common(const std::vector<Real>& values) {
  std::map<std::uint64_t, std::pair<size_t, size_t>> counts;  // bits -> (count, first index)
  for (size_t i = 0; i < values.size(); ++i) {
    std::uint64_t bits;
    std::memcpy(&bits, &values[i], sizeof bits);
    auto& entry = counts.try_emplace(bits, 0, i).first->second;
    ++entry.first;
  }
  size_t best = 0, best_count = 0;
  for (const auto& [bits, entry] : counts)
    if (entry.first > best_count || (entry.first == best_count && entry.second < best)) {
      best_count = entry.first;
      best = entry.second;
    }
  return values.empty() ? 0 : values[best];
}

bool all_same(const std::vector<Real>& values) {
  for (const Real v : values)
    if (!same(v, values.front())) return false;
  return true;
}

// One value when all are the same, else a block list of one per line.
void put_per_entry(std::string& out, const std::string& key, const std::vector<Real>& values, const char* indent) {
  out += std::string(indent) + key + ":";
  if (!values.empty() && all_same(values)) {
    out += ' ';
    put(out, values.front());
    out += '\n';
    return;
  }
  out += values.empty() ? " []\n" : "\n";
  for (const Real v : values) {
    out += std::string(indent) + "  - ";
    put(out, v);
    out += '\n';
  }
}

// A group name as a YAML key: plain when it cannot be read as anything else, else double-quoted.
std::string yaml_key(const std::string& name) {
  bool plain = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (const char ch : name)
    plain = plain && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.');
  std::string lower;
  for (const char ch : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* word : {"null", "true", "false", "yes", "no", "on", "off", "y", "n"}) plain = plain && lower != word;
  if (plain) return name;
  std::string quoted = "\"";
  for (const char ch : name) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      quoted += '\\';
      quoted += ch;
    } else if (u < 0x20 || u == 0x7f) {
      const char* hex = "0123456789abcdef";
      quoted += "\\x";
      quoted += hex[u >> 4];
      quoted += hex[u & 15];
    } else {
      quoted += ch;
    }
  }
  return quoted + "\"";
}

// What validate(NodeNetwork) leaves to the file: the groups' and surfaces' nodes and names.
void check_groups(const std::string& path, const NodeNetwork& net) {
  const int N = net.num_nodes();
  const auto check_node = [&](int n, const char* kind, const std::string& name) {
    SOFTIK_CHECK(n >= 0 && n < N, path << ": " << kind << " '" << name << "' names node " << n << ", outside 0.."
                                       << N - 1 << "; remove it from the " << kind);
  };
  for (const auto& [name, nodes] : net.node_groups) {
    SOFTIK_CHECK(!name.empty(), path << ": a node group has an empty name; name it");
    for (const int n : nodes) check_node(n, "node group", name);
  }
  for (const auto& [name, s] : net.surface_groups) {
    SOFTIK_CHECK(!name.empty(), path << ": a surface has an empty name; name it");
    SOFTIK_CHECK(s.triangles6.empty(), path << ": surface '" << name << "' holds " << s.triangles6.size()
                                            << " quadratic triangles; a node network's surfaces hold triangles and "
                                               "quads only");
    for (const auto& t : s.triangles)
      for (const int n : t) check_node(n, "surface", name);
    for (const auto& q : s.quads)
      for (const int n : q) check_node(n, "surface", name);
  }
}

void write_links(std::string& out, const NodeNetwork& net) {
  std::vector<Real> k, k3, c;
  for (const fem::LinkParameters& p : net.parameters) {
    k.push_back(p.k);
    k3.push_back(p.k3);
    c.push_back(p.c);
  }
  const Real k_default = most_common(k), k3_default = most_common(k3), c_default = most_common(c);
  out += "link_defaults:\n  stiffness: ";
  put(out, k_default);
  out += "\n  hardening: ";
  put(out, k3_default);
  out += "\n  dashpot: ";
  put(out, c_default);
  out += "\nlinks:\n";
  const std::vector<Real> lengths = rest_lengths(net);
  for (size_t l = 0; l < net.links.size(); ++l) {
    const fem::LinkParameters& p = net.parameters[l];
    std::string fields;
    const auto field = [&](const char* key, Real v, Real fallback) {
      if (same(v, fallback)) return;
      fields += std::string(", ") + key + ": ";
      put(fields, v);
    };
    field("stiffness", p.k, k_default);
    field("rest_length", p.L, lengths[l]);
    field("hardening", p.k3, k3_default);
    field("dashpot", p.c, c_default);
    out += "  - ";
    if (fields.empty()) {
      put_list(out, net.links[l]);
    } else {
      out += "{nodes: ";
      put_list(out, net.links[l]);
      out += fields + "}";
    }
    out += '\n';
  }
}

void write_groups(std::string& out, const NodeNetwork& net) {
  if (!net.node_groups.empty()) {
    out += "node_groups:\n";
    for (const auto& [name, nodes] : net.node_groups) {
      out += "  " + yaml_key(name) + ": ";
      put_wrapped(out, nodes, "    ");
      out += '\n';
    }
  }
  if (!net.surface_groups.empty()) {
    out += "surfaces:\n";
    for (const auto& [name, s] : net.surface_groups) {
      out += "  " + yaml_key(name) + ":" + (s.empty() ? " {}\n" : "\n");
      const auto faces = [&](const char* key, const auto& list) {
        if (list.empty()) return;
        out += std::string("    ") + key + ":\n";
        for (const auto& f : list) {
          out += "      - ";
          put_list(out, f);
          out += '\n';
        }
      };
      faces("triangles", s.triangles);
      faces("quads", s.quads);
    }
  }
}

void write_volume_cells(std::string& out, const NodeNetwork& net) {
  if (net.num_volume_cells() == 0) return;
  const size_t n = static_cast<size_t>(net.volume_cell_nodes());
  out += std::string("volume_cells:\n  type: ") + (net.volume_cell_type == CellType::Tet4 ? "tet4" : "hex8") + "\n";
  put_per_entry(out, "stiffness", net.volume_stiffness, "  ");
  const std::vector<Real> V = cell_volumes(net, net.X.data());
  bool computed = true;
  for (size_t c = 0; c < V.size(); ++c) computed = computed && same(V[c], net.rest_volume[c]);
  if (!computed) put_per_entry(out, "rest_volume", net.rest_volume, "  ");
  out += "  cells:\n";
  for (size_t c = 0; c < net.volume_stiffness.size(); ++c) {
    out += "    - ";
    put_list(out, std::vector<int>(net.volume_cells.begin() + static_cast<long>(n * c),
                                   net.volume_cells.begin() + static_cast<long>(n * (c + 1))));
    out += '\n';
  }
}

}  // namespace

void write_node_network(const std::string& path, const NodeNetwork& network) {
  try {
    validate(network);
  } catch (const Error& e) {
    throw Error(path + ": cannot write this network: " + e.what(), e.kind(), e.source());
  }
  SOFTIK_CHECK(network.num_nodes() > 0, path << ": cannot write a node network without nodes");
  check_groups(path, network);
  std::string out = "# softik node network (docs/node-network-format.md): " + std::to_string(network.num_nodes()) +
                    " nodes, " + std::to_string(network.num_links()) + " links";
  if (network.num_volume_cells() > 0)
    out += ", " + std::to_string(network.num_volume_cells()) +
           (network.num_volume_cells() == 1 ? " volume cell" : " volume cells");
  out += "\nnodes:\n";
  for (int i = 0; i < network.num_nodes(); ++i) {
    out += "  - [";
    for (int d = 0; d < 3; ++d) {
      if (d) out += ", ";
      put(out, network.X[3 * static_cast<size_t>(i) + d]);
    }
    out += "]\n";
  }
  put_per_entry(out, "mass", network.mass, "");
  write_links(out, network);
  write_groups(out, network);
  write_volume_cells(out, network);
  detail::write_atomically(path, out);
}

}  // namespace softik
