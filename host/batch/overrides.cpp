// Override paths of batch designs (overrides.hpp).
#include "host/batch/overrides.hpp"

#include <algorithm>

#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik::batch_detail {

using scene_detail::describe;

std::vector<PathStep> split_path(const std::string& path) {
  std::vector<PathStep> steps;
  std::string token;
  auto flush = [&] {
    if (token.empty()) return;
    const bool digits = std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
    PathStep s;
    SOFTIK_CHECK(!digits || steps.empty() || token.size() <= 9,
                 "list index " << token << " in override path '" << path << "' is too large");
    if (digits && !steps.empty())
      s.index = std::stoi(token);
    else
      s.key = token;
    steps.push_back(s);
    token.clear();
  };
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '.') {
      SOFTIK_CHECK(!token.empty() || (i > 0 && path[i - 1] == ']'), "empty key in override path '" << path << "'");
      flush();
    } else if (c == '[') {
      flush();
      const size_t close = path.find(']', i);
      SOFTIK_CHECK(close != std::string::npos && close > i + 1, "unclosed '[' in override path '" << path << "'");
      const std::string number = path.substr(i + 1, close - i - 1);
      SOFTIK_CHECK(std::all_of(number.begin(), number.end(), [](char d) { return d >= '0' && d <= '9'; }),
                   "list index '" << number << "' in override path '" << path << "' is not a number");
      SOFTIK_CHECK(number.size() <= 9, "list index " << number << " in override path '" << path << "' is too large");
      PathStep s;
      s.index = std::stoi(number);
      steps.push_back(s);
      i = close;
    } else {
      token += c;
    }
  }
  flush();
  SOFTIK_CHECK(!steps.empty() && steps.front().index < 0, "override path '" << path << "' must start with a key");
  return steps;
}

// yaml-cpp nodes are references: reset() re-points `cursor` without writing the tree.
void apply_override(YAML::Node root, const std::string& path, const YAML::Node& value) {
  const std::vector<PathStep> steps = split_path(path);
  YAML::Node cursor;
  cursor.reset(root);
  std::string where;
  for (size_t k = 0; k < steps.size(); ++k) {
    const PathStep& s = steps[k];
    const bool last = k + 1 == steps.size();
    if (s.index >= 0) {
      SOFTIK_CHECK(cursor.IsSequence(), "override '" << path << "': " << (where.empty() ? "the scene" : where) << " is "
                                                     << describe(cursor) << ", not a list");
      SOFTIK_CHECK(static_cast<size_t>(s.index) < cursor.size(), "override '" << path << "': " << where << " has "
                                                                              << cursor.size() << " entries, no ["
                                                                              << s.index << "]");
      if (last) {
        cursor[static_cast<size_t>(s.index)] = value;
        return;
      }
      YAML::Node next = cursor[static_cast<size_t>(s.index)];
      cursor.reset(next);
      where += "[" + std::to_string(s.index) + "]";
    } else {
      SOFTIK_CHECK(cursor.IsMap() || (last && cursor.IsNull()),
                   "override '" << path << "': " << (where.empty() ? "the scene" : where) << " is " << describe(cursor)
                                << ", not a map with key '" << s.key << "'");
      if (last) {
        cursor[s.key] = value;
        return;
      }
      SOFTIK_CHECK(cursor[s.key].IsDefined() && !cursor[s.key].IsNull(),
                   "override '" << path << "': " << (where.empty() ? "the scene" : where) << " has no key '" << s.key
                                << "' (overrides may add only the last key of a path)");
      YAML::Node next = cursor[s.key];
      cursor.reset(next);
      where += (where.empty() ? "" : ".") + s.key;
    }
  }
}

YAML::Node node_at(const YAML::Node& root, const std::string& path) {
  YAML::Node cursor;
  cursor.reset(root);
  for (const PathStep& s : split_path(path)) {
    const YAML::Node& here = cursor;  // const access: operator[] must not add keys
    YAML::Node next;
    if (s.index >= 0) {
      if (!here.IsSequence() || static_cast<size_t>(s.index) >= here.size())
        return YAML::Node(YAML::NodeType::Undefined);
      next.reset(here[static_cast<size_t>(s.index)]);
    } else {
      if (!here.IsMap() || !here[s.key]) return YAML::Node(YAML::NodeType::Undefined);
      next.reset(here[s.key]);
    }
    cursor.reset(next);
  }
  return cursor;
}

bool paths_overlap(const std::string& a, const std::string& b) {
  const std::vector<PathStep> x = split_path(a), y = split_path(b);
  const size_t n = std::min(x.size(), y.size());
  for (size_t k = 0; k < n; ++k)
    if (x[k].key != y[k].key || x[k].index != y[k].index) return false;
  return true;
}

}  // namespace softik::batch_detail
