// The results table of a batch (batch.hpp): a design's row and the CSV of all rows.
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "host/batch/batch_csv.hpp"
#include "host/io/atomic_file.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"

namespace softik {

using batch_detail::csv_field;
using batch_detail::format_number;

std::vector<std::pair<std::string, std::string>> design_row(const BatchDesign& design, const DesignResult& r) {
  if (!r.row.empty()) return r.row;
  std::vector<std::pair<std::string, std::string>> c;
  for (const auto& s : design.set) c.emplace_back(s.first, s.second);
  if (!r.ok) return c;
  const SceneRunResult& run = r.run;
  c.emplace_back("seconds", format_number(run.seconds));
  c.emplace_back("free_dofs", std::to_string(run.num_free_dofs));
  c.emplace_back("cells", std::to_string(run.num_cells));
  if (!run.inverse.enabled) {
    c.emplace_back("load_factor", format_number(run.load_factor));
    c.emplace_back("newton_iterations", std::to_string(run.newton_iterations));
  }
  for (const PressureSummary& p : run.pressures) {
    c.emplace_back("pressure_" + p.name, format_number(p.pressure));
    c.emplace_back("volume_" + p.name, format_number(p.volume));
  }
  for (const ProbeSummary& p : run.probes) {
    const char* axes[] = {"ux_", "uy_", "uz_"};
    for (int i = 0; i < 3; ++i) c.emplace_back(axes[i] + p.name, format_number(p.displacement[static_cast<size_t>(i)]));
  }
  if (run.inverse.enabled) {
    c.emplace_back("inverse_steps", std::to_string(run.inverse.steps));
    for (const ActuatorSummary& a : run.inverse.actuators)
      for (const auto& o : a.outputs) c.emplace_back(a.name + "_" + o.first, format_number(o.second));
    for (const EffectorSummary& e : run.inverse.effectors) {
      c.emplace_back(e.name + "_final_error", format_number(e.final_error));
      c.emplace_back(e.name + "_reached", std::to_string(e.reached) + "/" + std::to_string(e.goals));
    }
  }
  if (const std::string unmet = unmet_goals(run); !unmet.empty()) c.emplace_back("unmet_goals", unmet);
  return c;
}

std::string unmet_goals(const DesignResult& result) {
  if (!result.ok) return "";
  if (result.row.empty()) return unmet_goals(result.run);
  for (const auto& [column, value] : result.row)
    if (column == "unmet_goals") return value;
  return "";
}

void write_batch_csv(const BatchSpec& spec, const BatchResult& result, std::ostream& out,
                     const std::vector<bool>* finished) {
  SOFTIK_CHECK(result.designs.size() == spec.designs.size(), "write_batch_csv: the result has " << result.designs.size()
                                                                                                << " designs, the spec "
                                                                                                << spec.designs.size());
  SOFTIK_CHECK(!finished || finished->size() == spec.designs.size(),
               "write_batch_csv: " << finished->size() << " finished flags for " << spec.designs.size() << " designs");
  auto listed = [&](size_t i) { return !finished || (*finished)[i]; };
  std::vector<std::string> names;
  std::map<std::string, size_t> index;
  std::vector<std::map<size_t, std::string>> rows(result.designs.size());
  for (size_t i = 0; i < result.designs.size(); ++i) {
    if (!listed(i)) continue;
    for (const auto& c : design_row(spec.designs[i], result.designs[i])) {
      auto it = index.find(c.first);
      if (it == index.end()) {
        it = index.emplace(c.first, names.size()).first;
        names.push_back(c.first);
      }
      rows[i][it->second] = c.second;
    }
  }
  out << "design,status,error";
  for (const std::string& n : names) out << "," << csv_field(n);
  out << "\n";
  for (size_t i = 0; i < result.designs.size(); ++i) {
    if (!listed(i)) continue;
    const DesignResult& r = result.designs[i];
    out << csv_field(r.name) << "," << (r.ok ? "ok" : "error") << "," << csv_field(r.error);
    for (size_t k = 0; k < names.size(); ++k) {
      const auto it = rows[i].find(k);
      out << "," << (it == rows[i].end() ? std::string() : csv_field(it->second));
    }
    out << "\n";
  }
}

void write_batch_csv_file(const BatchSpec& spec, const BatchResult& result, const std::string& path,
                          const std::vector<bool>* finished) {
  std::ostringstream table;
  write_batch_csv(spec, result, table, finished);
  detail::write_atomically(path, table.str());
}

}  // namespace softik
