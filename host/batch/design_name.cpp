// check_design_name (batch.hpp): a design's name is its folder in --out, so it must be one safe
// path component that none of the batch's own files in --out can share.
#include <string>

#include "host/io/path_component.hpp"
#include "host/scene/parse/scene_yaml.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"

namespace softik {

void check_design_name(const BatchSpec& spec, const std::string& name) {
  const std::string problem = detail::path_component_problem(name);
  SOFTIK_CHECK(problem.empty(), "design name '" << name << "' cannot name the design's output folder (" << problem
                                                << "): use letters, digits, '_', '-' or '.', not '.' or '..' alone");
  // batch_csv_path, batch_shard_csv_path and write_batch_report write <stem>.csv,
  // <stem>.shard-i-of-n.csv, <stem>.summary.csv, <stem>.*.svg (and each one's .tmp) into --out.
  const std::string stem = scene_detail::stem(spec.path);
  const bool ours = name.compare(0, stem.size() + 1, stem + ".") == 0;  // a folder named <stem> is no file of ours
  SOFTIK_CHECK(!ours, "design name '" << name << "' is taken by the batch's own files in the output folder ('" << stem
                                      << ".csv' and the other '" << stem
                                      << ".*' tables and plots): rename the design so that it does not start with '"
                                      << stem << ".'");
}

}  // namespace softik
