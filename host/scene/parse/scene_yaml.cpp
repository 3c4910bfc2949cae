#include "host/scene/parse/scene_yaml.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <sstream>

#include "host/io/yaml_load.hpp"
#include "softik/error.hpp"

namespace softik {

std::string SceneLocation::str() const {
  std::ostringstream s;
  s << path << ":" << line << ":" << column;
  return s.str();
}

namespace scene_detail {

SceneLocation location(const std::string& path, const YAML::Node& node) {
  SceneLocation where;
  where.path = path;
  const YAML::Mark mark = node.Mark();
  if (!mark.is_null()) {
    where.line = mark.line + 1;
    where.column = mark.column + 1;
  }
  return where;
}

void fail(const SceneLocation& where, const std::string& message) { throw LocatedError(where.str() + ": " + message); }

std::string num(Real v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

namespace {
void require_at(bool ok, const Map& m, const std::string& key, const std::string& message) {
  if (!ok) fail(m.where(key), m.name(key) + ": " + message);
}
}  // namespace

int step_count(const Map& m, const std::string& duration_key, Real duration, const std::string& step_key, Real step,
               double cap, const std::string& why) {
  const std::string quotient =
      m.name(duration_key) + " / " + m.name(step_key) + " = " + num(duration) + " / " + num(step);
  require_at(step <= duration, m, step_key,
             num(step) + " is longer than " + m.name(duration_key) + " (" + num(duration) +
                 "): the one step would simulate to t = " + num(step) + ", past the asked span; give " + step_key +
                 " <= " + duration_key);
  const double steps = std::ceil(duration / step - 1e-9);
  require_at(std::isfinite(steps), m, step_key,
             quotient + " overflows double precision (the step count is not finite); give a longer " + step_key +
                 " or a shorter " + duration_key);
  require_at(steps <= cap, m, step_key,
             quotient + " = " + num(steps) + " steps is above the cap of " + num(cap) + "; " + why);
  return static_cast<int>(steps);
}

YAML::Node load_yaml(const std::string& text, const std::string& path) {
  // yaml-cpp would read up to the first NUL and ignore the rest.
  const size_t nul = text.find('\0');
  SOFTIK_CHECK(nul == std::string::npos,
               path << ":" << 1 + std::count(text.begin(), text.begin() + static_cast<long>(nul), '\n')
                    << ": a NUL byte: this is not a text YAML file (a binary file, or a file saved as UTF-16?); "
                       "give a .yaml file in UTF-8 (see docs/scene-format.md)");
  io_detail::YamlLoadFailure failure;
  if (std::optional<YAML::Node> root = io_detail::load_yaml_within_limits(text, io_detail::kMaxSceneYamlBytes, failure))
    return *root;
  const YAML::Mark& m = failure.mark;
  if (m.is_null()) throw LocatedError(path + ": " + failure.message);  // the whole file
  fail(SceneLocation{path, m.line + 1, m.column + 1}, failure.message);
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "'" + node.Scalar() + "'";
    default:
      return "nothing (null)";
  }
}

namespace {
[[noreturn]] void expected(const YAML::Node& node, const std::string& path, const std::string& what,
                           const std::string& type) {
  fail(location(path, node), what + ": expected " + type + ", got " + describe(node));
}

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) s += (i ? ", " : "") + words[i];
  return s;
}
}  // namespace

Real as_number(const YAML::Node& node, const std::string& path, const std::string& what) {
  if (!node.IsScalar()) expected(node, path, what, "a number");
  const std::string& text = node.Scalar();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    expected(node, path, what, "a finite number (e.g. 2e5 or 0.45)");
  return v;
}

int as_int(const YAML::Node& node, const std::string& path, const std::string& what) {
  if (!node.IsScalar()) expected(node, path, what, "an integer");
  const std::string& text = node.Scalar();
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || v < std::numeric_limits<int>::min() ||
      v > std::numeric_limits<int>::max())
    expected(node, path, what, "an integer");
  return static_cast<int>(v);
}

bool as_bool(const YAML::Node& node, const std::string& path, const std::string& what) {
  if (node.IsScalar()) {
    const std::string& t = node.Scalar();
    if (t == "true" || t == "True" || t == "TRUE") return true;
    if (t == "false" || t == "False" || t == "FALSE") return false;
  }
  expected(node, path, what, "true or false");
}

std::string as_string(const YAML::Node& node, const std::string& path, const std::string& what) {
  if (!node.IsScalar() || node.Scalar().empty()) expected(node, path, what, "a non-empty text");
  return node.Scalar();
}

std::vector<Real> as_numbers(const YAML::Node& node, const std::string& path, const std::string& what) {
  if (!node.IsSequence()) expected(node, path, what, "a list of numbers");
  std::vector<Real> values;
  for (size_t i = 0; i < node.size(); ++i)
    values.push_back(as_number(node[i], path, what + "[" + std::to_string(i) + "]"));
  return values;
}

std::vector<Real> as_numbers(const YAML::Node& node, const std::string& path, const std::string& what, size_t n) {
  const std::string type = "a list of " + std::to_string(n) + " numbers";
  if (!node.IsSequence()) expected(node, path, what, type);
  if (node.size() != n)
    fail(location(path, node), what + ": expected " + type + ", got " + std::to_string(node.size()));
  return as_numbers(node, path, what);
}

std::array<Real, 3> as_vec3(const YAML::Node& node, const std::string& path, const std::string& what) {
  const std::vector<Real> v = as_numbers(node, path, what, 3);
  return {v[0], v[1], v[2]};
}

std::vector<std::array<Real, 3>> as_points(const YAML::Node& node, const std::string& path, const std::string& what) {
  std::vector<std::array<Real, 3>> out;
  for (const YAML::Node& p : as_list(node, path, what)) out.push_back(as_vec3(p, path, what + " entry"));
  if (out.empty()) fail(location(path, node), what + ": the list is empty");
  return out;
}

int as_choice(const YAML::Node& node, const std::string& path, const std::string& what,
              const std::vector<std::string>& choices) {
  if (node.IsScalar())
    for (size_t i = 0; i < choices.size(); ++i)
      if (node.Scalar() == choices[i]) return static_cast<int>(i);
  expected(node, path, what, "one of: " + join(choices));
}

std::vector<YAML::Node> as_list(const YAML::Node& node, const std::string& path, const std::string& what,
                                bool single_map_ok) {
  std::vector<YAML::Node> items;
  if (single_map_ok && node.IsMap()) {
    items.push_back(node);
    return items;
  }
  if (!node.IsSequence()) expected(node, path, what, single_map_ok ? "a list (or a single map)" : "a list");
  for (size_t i = 0; i < node.size(); ++i) items.push_back(node[i]);
  return items;
}

Map::Map(const YAML::Node& node, std::string path, std::string what, std::vector<std::string> allowed)
    : node_(node), path_(std::move(path)), what_(std::move(what)) {
  if (!node.IsMap()) expected(node, path_, what_, "a map with keys from: " + join(allowed));
  entries_ =
      io_detail::checked_entries(node, allowed, [&](const YAML::Node& key, const std::string& k, bool duplicate) {
        if (duplicate) fail(location(path_, key), "duplicate key '" + k + "' in " + what_ + "; give each key once");
        fail(location(path_, key), "unknown key '" + (key.IsScalar() ? k : describe(key)) + "' in " + what_ +
                                       "; allowed keys: " + join(allowed));
      });
}

bool Map::has(const std::string& key) const {
  for (const io_detail::MapEntry& e : entries_)
    if (e.name == key) return true;
  return false;
}

YAML::Node Map::at(const std::string& key) const {
  for (const io_detail::MapEntry& e : entries_)
    if (e.name == key) return e.value;
  fail(where(), what_ + ": internal error: key '" + key + "' read but not present");
}

SceneLocation Map::key_where(const std::string& key) const {
  for (const io_detail::MapEntry& e : entries_)
    if (e.name == key) return location(path_, e.key);
  return where();
}

YAML::Node Map::need(const std::string& key, const std::string& hint) const {
  if (!has(key)) fail(where(), what_ + ": missing required key '" + key + "' (" + hint + ")");
  return at(key);
}

void Map::exclusive(const std::vector<std::string>& keys, bool one_required, const std::string& hint) const {
  std::vector<std::string> present;
  for (const std::string& k : keys)
    if (has(k)) present.push_back(k);
  if (present.size() > 1)
    fail(key_where(present[1]),
         what_ + ": '" + present[0] + "' and '" + present[1] + "' cannot both be given; " + hint);
  if (present.empty() && one_required) fail(where(), what_ + ": needs one of the keys " + join(keys) + "; " + hint);
}

Real Map::number(const std::string& key, Real fallback) const {
  return has(key) ? as_number(at(key), path_, name(key)) : fallback;
}

Real Map::number(const std::string& key, const std::string& hint) const {
  return as_number(need(key, hint), path_, name(key));
}

int Map::integer(const std::string& key, int fallback) const {
  return has(key) ? as_int(at(key), path_, name(key)) : fallback;
}

bool Map::boolean(const std::string& key, bool fallback) const {
  return has(key) ? as_bool(at(key), path_, name(key)) : fallback;
}

std::string Map::string(const std::string& key, const std::string& fallback) const {
  return has(key) ? as_string(at(key), path_, name(key)) : fallback;
}

std::array<Real, 3> Map::vec3(const std::string& key, const std::array<Real, 3>& fallback) const {
  return has(key) ? as_vec3(at(key), path_, name(key)) : fallback;
}

int Map::choice(const std::string& key, const std::vector<std::string>& choices, int fallback) const {
  return has(key) ? as_choice(at(key), path_, name(key), choices) : fallback;
}

}  // namespace scene_detail
}  // namespace softik
