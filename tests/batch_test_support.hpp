// What the batch tests share (test_batch*.cpp): the base scene their batch files override, and
// the text of the softik::Error a call throws.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "host/batch/batch_csv.hpp"
#include "scene_test_support.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"

namespace softik {

/// kBlock with its cavity inflated to 6 kPa in 2 load steps and a probe at the free end.
inline const std::string kBatchBase = kBlock + R"(loads: {pressure: {name: cavity, surface: cavity0, value: 6000}}
solver: {load_steps: 2}
outputs: {vtu: false, probes: [{name: tip, point: [0.03, 0.006, 0.006]}]}
)";

/// A results table's cells (row 0: the header).
using Table = std::vector<std::vector<std::string>>;

/// The cells of the CSV file at `file` (batch_csv.hpp's reader).
inline Table cells(const fs::path& file) { return batch_detail::read_csv(read_file(file), file.string()); }

/// `table` as CSV text (batch_csv.hpp's quoting).
inline std::string csv_text(const Table& table) {
  std::string text;
  for (const auto& row : table) {
    for (size_t c = 0; c < row.size(); ++c) text += (c ? "," : "") + batch_detail::csv_field(row[c]);
    text += "\n";
  }
  return text;
}

/// Writes `yaml` to dir/<name>.yaml and runs that batch into dir/<name>/, its table kept at
/// dir/<name>/b.csv; `options` gives the rest (backend, workers, ...).
inline BatchResult run_batch_text(const fs::path& dir, const std::string& name, const std::string& yaml,
                                  BatchRunOptions options = {}) {
  write_file(dir / (name + ".yaml"), yaml);
  options.out_dir = (dir / name).string();
  options.csv_path = (dir / name / "b.csv").string();
  return run_batch(parse_batch((dir / (name + ".yaml")).string()), options);
}

/// The message of the softik::Error `f` throws, or "(no error)".
inline std::string batch_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace softik
