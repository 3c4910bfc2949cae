// The key check of a strict YAML map, shared by the scene reader (host/scene/parse/scene_yaml.cpp) and
// the node-network reader (network_yaml.cpp): every key must be one of the allowed ones, each
// given once. Each reader words its own error.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace softik::io_detail {

/// One key of a map: its text ("" when the key is not a scalar), the key's node and its value.
struct MapEntry {
  std::string name;
  YAML::Node key, value;
};

/// The entries of `map` in order. `bad(key, name, duplicate)` is called for a key not in
/// `allowed` (duplicate false) or given a second time (true); it must throw.
template <class Bad>
std::vector<MapEntry> checked_entries(const YAML::Node& map, const std::vector<std::string>& allowed, const Bad& bad) {
  std::vector<MapEntry> entries;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    const std::string name = key.IsScalar() ? key.Scalar() : std::string();
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) bad(key, name, false);
    for (const MapEntry& e : entries)
      if (e.name == name) bad(key, name, true);
    entries.push_back({name, key, it->second});
  }
  return entries;
}

}  // namespace softik::io_detail
