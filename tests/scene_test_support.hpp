// Helpers shared by the scene tests (test_scene.cpp, test_scene_inverse.cpp): scratch folders,
// files, CSV tables and positions in scene text.
#pragma once

#include <sys/wait.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "softik/error.hpp"
#include "softik/scene.hpp"

namespace softik {
namespace fs = std::filesystem;

inline fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("softik_scene_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

inline void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// "line:column" (1-based) of the first occurrence of `token` in `text`.
inline std::string position_of(const std::string& text, const std::string& token) {
  const size_t pos = text.find(token);
  if (pos == std::string::npos) return "token '" + token + "' not in the scene text";
  const size_t line_start = text.rfind('\n', pos);
  const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
  const size_t column = line_start == std::string::npos ? pos + 1 : pos - line_start;
  return std::to_string(line) + ":" + std::to_string(column);
}

inline std::vector<std::vector<std::string>> read_csv(const fs::path& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

/// The index of the column `name` in a CSV header row (a failure, and past the end, without it).
inline size_t column(const std::vector<std::string>& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  EXPECT_NE(it, header.end()) << name;
  return static_cast<size_t>(it - header.begin());
}

/// What reading and building the scene `yaml` says ("s.yaml" names it in messages): the error's
/// message, or "(no error)".
inline std::string scene_build_error(const std::string& yaml) {
  try {
    (void)softik::build_scene(softik::parse_scene_string(yaml, "s.yaml"));
  } catch (const softik::Error& e) {
    return e.what();
  }
  return "(no error)";
}

/// The message of the error reading the scene `yaml` gives ("s.yaml" names it in messages); none,
/// after a failure showing `shown` (the part of the text a test varies), when it reads.
inline std::optional<std::string> scene_parse_failure(const std::string& yaml, const std::string& shown) {
  try {
    (void)softik::parse_scene_string(yaml, "s.yaml");
  } catch (const softik::Error& e) {
    return std::string(e.what());
  }
  ADD_FAILURE() << "accepted:\n" << shown;
  return std::nullopt;
}

/// A scene text (parsed as "s.yaml") and words its build error must contain.
struct SceneErrorCase {
  std::string yaml, words;
};

/// Each case's scene must fail to build, with an error located in its file ("s.yaml:...") that
/// contains the case's words.
template <class Cases>
void expect_scene_build_errors(const Cases& cases) {
  for (const SceneErrorCase& c : cases) {
    const std::string e = scene_build_error(c.yaml);
    EXPECT_NE(e.find(c.words), std::string::npos) << "scene:\n" << c.yaml << "error: " << e;
    EXPECT_EQ(e.find("s.yaml:"), 0u) << e;
  }
}

#ifdef SOFTIK_CLI_PATH
/// Runs the softik program with `arguments`; returns its exit status (-1 if it did not exit).
inline int run_cli(const std::string& arguments, const fs::path& stderr_file,
                   const fs::path& stdout_file = "/dev/null") {
  const std::string command =
      std::string(SOFTIK_CLI_PATH) + " " + arguments + " >" + stdout_file.string() + " 2>" + stderr_file.string();
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
#endif

/// A 0.03 x 0.012 x 0.012 block of 10 x 4 x 4 Hex8 with one centred cavity
/// [0.006, 0.024] x [0.003, 0.009]^2, clamped at x = 0: inflating it elongates the block along x
/// (the end face centre moves along +x only, by symmetry).
inline const std::string kBlock = R"(mesh:
  generator:
    type: multi_cavity
    size: [0.03, 0.012, 0.012]
    cavities: [[0.006, 0.003, 0.003, 0.018, 0.006, 0.006]]
    cell_size: 0.003
    cell_type: hex8
materials: {law: neo_hookean, young: 1.0e5, poisson: 0.45}
fixed: [{group: xmin}]
)";

}  // namespace softik
