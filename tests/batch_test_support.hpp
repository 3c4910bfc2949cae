// What the batch tests share (test_batch*.cpp): the base scene their batch files override, and
// the text of the softik::Error a call throws.
#pragma once

#include <functional>
#include <string>

#include "scene_test_support.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"

namespace softik {

/// kBlock with its cavity inflated to 6 kPa in 2 load steps and a probe at the free end.
inline const std::string kBatchBase = kBlock + R"(loads: {pressure: {name: cavity, surface: cavity0, value: 6000}}
solver: {load_steps: 2}
outputs: {vtu: false, probes: [{name: tip, point: [0.03, 0.006, 0.006]}]}
)";

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
