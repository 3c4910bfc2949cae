// Loading a YAML document within limits, shared by the scene and batch readers
// (host/scene/parse/scene_yaml.cpp) and the node-network reader (network_yaml.cpp); each reader words
// the location of the failure its own way.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

namespace softik::io_detail {

/// What stopped a document from loading: where (null: the whole file) and what, for the message.
struct YamlLoadFailure {
  YAML::Mark mark = YAML::Mark::null_mark();
  std::string message;
};

/// The most bytes a scene or batch file may have (its meshes are files of their own).
constexpr std::size_t kMaxSceneYamlBytes = std::size_t{64} << 20;
/// The most bytes a node-network file may have (it lists every node and link).
constexpr std::size_t kMaxNetworkYamlBytes = std::size_t{1} << 30;

/// YAML::Load(text), or std::nullopt with `failure` filled when the text is longer than
/// `max_bytes`, nests lists and maps deeper than yaml-cpp's recursion limit (about 500 levels;
/// it calls that a "bad file"), or is not valid YAML ("YAML syntax error: ...").
std::optional<YAML::Node> load_yaml_within_limits(const std::string& text, std::size_t max_bytes,
                                                  YamlLoadFailure& failure);

}  // namespace softik::io_detail
