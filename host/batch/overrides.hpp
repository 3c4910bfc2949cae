// Override paths of batch designs (docs/batch-format.md): "materials[0].young" or
// "materials.0.young" names a node of a scene's YAML tree, keys separated by '.', list entries
// by [i] or .i.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace softik::batch_detail {

/// One step of an override path: a map key or a list index.
struct PathStep {
  std::string key;
  int index = -1;  ///< >= 0: a list entry
};

/// "materials[0].young", "materials.0.young" -> {materials, 0, young}; throws softik::Error on an
/// empty key, an unclosed '[', a non-numeric index or a path that starts with an index.
std::vector<PathStep> split_path(const std::string& path);

/// Sets the node at `path` in `root` to `value` (a parsed YAML value), adding a missing last map
/// key; errors name the path and the node that does not fit it.
void apply_override(YAML::Node root, const std::string& path, const YAML::Node& value);

/// The node at `path` in `root`, or an undefined node (false in a bool context) when `root` has
/// none there; `root` is not changed.
YAML::Node node_at(const YAML::Node& root, const std::string& path);

/// Whether two override paths name the same node or one lies inside the other
/// ("materials[0]" and "materials.0.young": yes; "materials[0].young" and "materials[1].young":
/// no), so that setting both in one design would depend on their order.
bool paths_overlap(const std::string& a, const std::string& b);

}  // namespace softik::batch_detail
