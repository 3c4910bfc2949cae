// What the batch tests share (test_batch*.cpp): the base scene their batch files override, and
// the text of the softik::Error a call throws.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "host/batch/batch_csv.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"
#include "tests/scene_test_support.hpp"

namespace softik {

/// kBlock with its cavity inflated to 6 kPa in 2 load steps and a probe at the free end.
inline const std::string kBatchBase = kBlock + R"(loads: {pressure: {name: cavity, surface: cavity0, value: 6000}}
solver: {load_steps: 2}
outputs: {vtu: false, probes: [{name: tip, point: [0.03, 0.006, 0.006]}]}
)";

/// A fresh scratch folder (fresh_dir) holding the batches' base scene, kBatchBase, as block.yaml.
inline fs::path batch_dir(const std::string& name) {
  const fs::path dir = fresh_dir(name);
  write_file(dir / "block.yaml", kBatchBase);
  return dir;
}

/// Writes dir/b.yaml: a batch of the scene dir/block.yaml (batch_dir) with `keys` after its
/// `scene` key; returns the file's path.
inline fs::path write_block_batch(const fs::path& dir, const std::string& keys) {
  write_file(dir / "b.yaml", "scene: block.yaml\n" + keys);
  return dir / "b.yaml";
}

/// The sweep of the lockstep tests (tests/batch/test_batch_lockstep.cpp,
/// tests/cuda/test_cuda_lockstep.cpp): two block lengths (cell counts) x two widths (the same
/// cells, other rest positions) x two materials x two pressures, 16 designs in two groups.
inline const std::string kLockstepSweep = R"(sweep:
  mesh.generator.size[0]: [0.03, 0.036]
  mesh.generator.size[1]: [0.0125, 0.013]
  materials.young: [1.0e5, 4.0e5]
  loads.pressure.value: [3000, 9000]
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

/// The message parse_batch throws for the batch file dir/b.yaml holding `text`, or "(no error)".
inline std::string batch_file_error(const fs::path& dir, const std::string& text) {
  write_file(dir / "b.yaml", text);
  return batch_error_of([&] { parse_batch((dir / "b.yaml").string()); });
}

/// A batch file's text (or the part of it a test varies) and a part of the error it gives.
struct BatchErrorCase {
  const char* text;
  const char* expected;
};

}  // namespace softik
