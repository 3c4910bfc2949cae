// Batch evaluation of scene designs (batch.hpp): the batch file reader, YAML-tree overrides,
// the concurrent runner and the one-row-per-design CSV.
#include "softik/batch.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include "host/batch/batch_csv.hpp"
#include "host/batch/objective.hpp"
#include "host/batch/sampling.hpp"
#include "host/io/atomic_file.hpp"
#include "host/solvers/blas_threads.hpp"
#include "host/scene/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik {

using namespace scene_detail;
using batch_detail::csv_field;

namespace {

/// One step of an override path: a map key or a list index.
struct PathStep {
  std::string key;
  int index = -1;  ///< >= 0: a list entry
};

/// "materials[0].young", "materials.0.young" -> {materials, 0, young}.
std::vector<PathStep> split_path(const std::string& path) {
  std::vector<PathStep> steps;
  std::string token;
  auto flush = [&] {
    if (token.empty()) return;
    const bool digits = std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
    PathStep s;
    if (digits && !steps.empty()) s.index = std::stoi(token);
    else s.key = token;
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

/// Sets the node at `path` in `root` to `value` (a parsed YAML value), adding a missing last
/// map key. yaml-cpp nodes are references: reset() re-points `cursor` without writing the tree.
void apply_override(YAML::Node root, const std::string& path, const YAML::Node& value) {
  const std::vector<PathStep> steps = split_path(path);
  YAML::Node cursor;
  cursor.reset(root);
  std::string where;
  for (size_t k = 0; k < steps.size(); ++k) {
    const PathStep& s = steps[k];
    const bool last = k + 1 == steps.size();
    if (s.index >= 0) {
      SOFTIK_CHECK(cursor.IsSequence(), "override '" << path << "': " << (where.empty() ? "the scene" : where)
                                                     << " is " << describe(cursor) << ", not a list");
      SOFTIK_CHECK(static_cast<size_t>(s.index) < cursor.size(),
                   "override '" << path << "': " << where << " has " << cursor.size() << " entries, no [" << s.index << "]");
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

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  SOFTIK_CHECK(in, "cannot open " << what << " '" << path << "': no such file or not readable");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

YAML::Node load_yaml(const std::string& text, const std::string& path) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    SceneLocation where{path, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1};
    fail(where, "YAML syntax error: " + e.msg);
  }
}

/// The text of a scalar/list/map node as YAML (flow style), for the CSV and the override.
std::string yaml_text(const YAML::Node& node) {
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << node;
  return e.c_str();
}

/// Reads `set:` or `sweep:` keys (override paths) in file order.
std::vector<std::pair<std::string, YAML::Node>> override_entries(const YAML::Node& node, const std::string& path,
                                                                 const std::string& what) {
  if (!node.IsMap()) fail(location(path, node), what + ": expected a map of override paths to values, got " + describe(node));
  std::vector<std::pair<std::string, YAML::Node>> out;
  for (const auto& kv : node) {
    const std::string key = as_string(kv.first, path, what + " key");
    for (const auto& seen : out)
      if (seen.first == key) fail(location(path, kv.first), what + ": override '" + key + "' is given twice");
    out.emplace_back(key, kv.second);
  }
  return out;
}

std::string format_number(Real v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

/// One design's columns (name, value) in a fixed order.
std::vector<std::pair<std::string, std::string>> design_columns(const BatchDesign& design, const DesignResult& r) {
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
  return c;
}

}  // namespace

namespace {

/// The results table kept at BatchRunOptions::csv_path while a batch runs (batch.hpp).
class LiveTable {
 public:
  LiveTable(const BatchSpec& spec, const BatchResult& result, const std::string& path, const std::vector<bool>& finished)
      : spec_(spec), result_(result), path_(path), finished_(finished) {}

  /// After a design finished (the caller holds the lock): `done` designs have, of all.
  void update(size_t done) {
    if (path_.empty()) return;
    const auto now = std::chrono::steady_clock::now();
    const bool last = done == spec_.designs.size();
    // Rewriting the table costs its length: every design for small batches, once a second beyond.
    if (!last && done > 1000 && now - written_at_ < std::chrono::seconds(1)) return;
    try {
      write_batch_csv_file(spec_, result_, path_, &finished_);
      rows_ = done;
      written_at_ = now;
      failure_.clear();
    } catch (const Error& e) {
      failure_ = e.what();
    }
  }

  /// Throws the last failure, if the final table could not be written.
  void check() const {
    if (failure_.empty()) return;
    SOFTIK_CHECK_IO(false, failure_ << ". " << (rows_ > 0 ? "'" + path_ + "' keeps the " + std::to_string(rows_) +
                                                             " design rows written before the failure"
                                                       : "No row could be written")
                                    << " of " << spec_.designs.size()
                                    << "; each design's own outputs are in its folder next to it");
  }

 private:
  const BatchSpec& spec_;
  const BatchResult& result_;
  std::string path_;
  const std::vector<bool>& finished_;
  size_t rows_ = 0;
  std::chrono::steady_clock::time_point written_at_{};
  std::string failure_;
};

}  // namespace

Scene design_scene(const BatchSpec& spec, const BatchDesign& design) {
  const YAML::Node root = load_yaml(read_file(spec.scene_path, "base scene"), spec.scene_path);
  for (const auto& s : design.set) {
    try {
      apply_override(root, s.first, load_yaml(s.second, spec.path));
    } catch (const Error& e) {
      throw Error(spec.path + ": design '" + design.name + "': " + e.what(), e.kind());
    }
  }
  try {
    return parse_scene_node(root, spec.scene_path);
  } catch (const Error& e) {
    std::string overrides;
    for (const auto& s : design.set) overrides += (overrides.empty() ? "" : ", ") + s.first + " = " + s.second;
    throw Error(std::string(e.what()) + " (in design '" + design.name + "' of " + spec.path +
                    (overrides.empty() ? std::string(")") : ", overrides: " + overrides + ")"),
                e.kind());
  }
}

namespace {

/// `sample:` (docs/batch-format.md): `count` designs named sample0, sample1, ... whose override
/// values fill the box of `ranges` (path -> [lo, hi], each mapped linearly from [0, 1)) by a
/// Latin hypercube or the Sobol' sequence (host/batch/sampling.hpp), from `seed`; `set` holds
/// overrides every sampled design shares.
void add_sample(const YAML::Node& node, const std::string& path, std::vector<BatchDesign>& designs) {
  const Map m(node, path, "sample", {"method", "count", "seed", "ranges", "set"});
  const bool sobol = m.choice("method", {"latin_hypercube", "sobol"}, 0) == 1;
  const int count = m.integer("count", 0);
  if (count < 1 || count > 1000000)
    fail(m.has("count") ? m.where("count") : m.where(), "sample.count: the number of designs, 1 to 1000000 (got " +
                                                             std::to_string(count) + ")");
  const int seed = m.integer("seed", 0);
  if (seed < 0) fail(m.where("seed"), "sample.seed: must be >= 0");
  const auto ranges = override_entries(m.need("ranges", "override path -> [lo, hi]"), path, "sample.ranges");
  if (ranges.empty()) fail(m.where("ranges"), "sample.ranges: give at least one override path -> [lo, hi]");
  std::vector<std::pair<Real, Real>> box;
  for (const auto& [key, value] : ranges) {
    const std::string what = "sample.ranges." + key;
    const std::vector<Real> lohi = as_numbers(value, path, what);
    if (lohi.size() != 2 || !std::isfinite(lohi[0]) || !std::isfinite(lohi[1]) || !(lohi[0] < lohi[1]))
      fail(location(path, value), what + ": expected [lo, hi] with finite lo < hi, got " + describe(value));
    box.emplace_back(lohi[0], lohi[1]);
  }
  const int d = static_cast<int>(box.size());
  if (sobol && d > batch_detail::kSobolMaxDimensions)
    fail(m.where("ranges"), "sample.ranges: " + std::to_string(d) + " parameters; method sobol supports up to " +
                                std::to_string(batch_detail::kSobolMaxDimensions) + " (latin_hypercube has no limit)");
  const std::vector<double> u = sobol ? batch_detail::sobol(count, d, static_cast<std::uint64_t>(seed))
                                      : batch_detail::latin_hypercube(count, d, static_cast<std::uint64_t>(seed));
  std::vector<std::pair<std::string, std::string>> held;  // `set`: the same for every sampled design
  if (m.has("set"))
    for (const auto& e : override_entries(m.at("set"), path, "sample.set")) {
      for (const auto& r : ranges)
        if (r.first == e.first)
          fail(location(path, e.second), "sample.set." + e.first + ": also in sample.ranges; give it in one of them");
      held.emplace_back(e.first, yaml_text(e.second));
    }
  for (int i = 0; i < count; ++i) {
    BatchDesign design;
    design.name = "sample" + std::to_string(i);
    design.set = held;
    for (int j = 0; j < d; ++j) {
      const auto [lo, hi] = box[static_cast<size_t>(j)];
      const Real v = lo + (hi - lo) * u[static_cast<size_t>(i) * static_cast<size_t>(d) + static_cast<size_t>(j)];
      design.set.emplace_back(ranges[static_cast<size_t>(j)].first, format_number(v));
    }
    designs.push_back(design);
  }
}

}  // namespace

BatchSpec parse_batch_string(const std::string& yaml, const std::string& path) {
  const YAML::Node root = load_yaml(yaml, path);
  BatchSpec spec;
  spec.path = path;
  const Map m(root, path, "batch", {"scene", "backend", "workers", "vtu", "designs", "sweep", "sample", "objective"});
  spec.scene_path = resolve(path, as_string(m.need("scene", "the base scene file, relative to the batch file"), path, "scene"));
  if (m.has("backend")) {
    spec.has_backend = true;
    spec.backend = m.choice("backend", {"cpu", "cuda"}, 0) == 0 ? Backend::Cpu : Backend::Cuda;
  }
  spec.workers = m.integer("workers", 0);
  if (spec.workers < 0) fail(m.where("workers"), "workers: must be >= 0 (0: one per hardware thread)");
  spec.vtu = m.boolean("vtu", false);
  if (!m.has("designs") && !m.has("sweep") && !m.has("sample"))
    fail(location(path, root), "the batch file needs 'designs' (a list of {name, set}), 'sweep' (override path -> "
                               "list of values) and/or 'sample' (a space-filling sample of ranges)");
  if (m.has("designs")) {
    const std::vector<YAML::Node> list = as_list(m.at("designs"), path, "designs");
    for (size_t i = 0; i < list.size(); ++i) {
      const Map d(list[i], path, item("designs", i), {"name", "set"});
      BatchDesign design;
      design.name = as_string(d.need("name", "the design's name (its output folder and CSV row)"), path, d.name("name"));
      check_name(d.at("name"), path, d.name("name"), design.name);
      if (d.has("set"))
        for (const auto& e : override_entries(d.at("set"), path, d.name("set"))) design.set.emplace_back(e.first, yaml_text(e.second));
      spec.designs.push_back(design);
    }
  }
  if (m.has("sweep")) {
    const auto axes = override_entries(m.at("sweep"), path, "sweep");
    std::vector<std::vector<std::string>> values;
    size_t count = 1;
    for (const auto& a : axes) {
      if (!a.second.IsSequence() || a.second.size() == 0)
        fail(location(path, a.second), "sweep." + a.first + ": expected a non-empty list of values, got " + describe(a.second));
      std::vector<std::string> v;
      for (const auto& n : a.second) v.push_back(yaml_text(n));
      count *= v.size();
      SOFTIK_CHECK(count <= 1000000, path << ": the sweep has more than a million designs; split it");
      values.push_back(v);
    }
    for (size_t k = 0; k < count; ++k) {
      BatchDesign design;
      design.name = "sweep" + std::to_string(k);
      size_t rest = k;
      for (size_t a = axes.size(); a-- > 0;) {  // last axis varies fastest
        const size_t n = values[a].size();
        design.set.emplace(design.set.begin(), axes[a].first, values[a][rest % n]);
        rest /= n;
      }
      spec.designs.push_back(design);
    }
  }
  if (m.has("sample")) add_sample(m.at("sample"), path, spec.designs);
  if (m.has("objective")) {
    const Map o(m.at("objective"), path, "objective", {"expression", "goal", "best"});
    spec.objective.expression = as_string(o.need("expression", "an expression of the results' columns"), path,
                                          "objective.expression");
    try {
      (void)batch_detail::Expression(spec.objective.expression);
    } catch (const Error& e) {
      fail(o.where("expression"), std::string("objective.expression: ") + e.what());
    }
    spec.objective.maximize = o.choice("goal", {"max", "min"}, 0) == 0;
    spec.objective.best = o.integer("best", 5);
    if (spec.objective.best < 1) fail(o.where("best"), "objective.best: the number of designs to report, >= 1");
  }
  for (size_t i = 0; i < spec.designs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      SOFTIK_CHECK(spec.designs[i].name != spec.designs[j].name,
                   path << ": two designs are named '" << spec.designs[i].name << "': names must be unique (they name the "
                        << "output folders)");
  for (const BatchDesign& d : spec.designs) (void)design_scene(spec, d);  // fail before anything runs
  return spec;
}

BatchRanking rank_designs(const BatchSpec& spec, const BatchResult& result) {
  BatchRanking ranking;
  if (spec.objective.expression.empty()) return ranking;
  const batch_detail::Expression objective(spec.objective.expression);
  for (size_t i = 0; i < result.designs.size() && i < spec.designs.size(); ++i) {
    const DesignResult& r = result.designs[i];
    if (!r.ok) {
      ranking.unranked.emplace_back(r.name, "failed");
      continue;
    }
    const auto columns = design_columns(spec.designs[i], r);
    std::string missing;
    const std::optional<double> value = objective.evaluate([&](const std::string& name) -> std::optional<double> {
      for (const auto& [key, text] : columns)
        if (key == name) {
          char* end = nullptr;
          const double v = std::strtod(text.c_str(), &end);
          if (end != text.c_str() && *end == '\0') return v;
          break;
        }
      if (missing.empty()) missing = name;
      return std::nullopt;
    });
    if (!value)
      ranking.unranked.emplace_back(r.name, "no number in column '" + missing + "'");
    else if (!std::isfinite(*value))
      ranking.unranked.emplace_back(r.name, "the objective is not finite");
    else
      ranking.best.push_back({r.name, *value});
  }
  const bool maximize = spec.objective.maximize;
  std::stable_sort(ranking.best.begin(), ranking.best.end(), [maximize](const RankedDesign& a, const RankedDesign& b) {
    return maximize ? a.value > b.value : a.value < b.value;
  });
  if (ranking.best.size() > static_cast<size_t>(spec.objective.best))
    ranking.best.resize(static_cast<size_t>(spec.objective.best));
  return ranking;
}

BatchSpec parse_batch(const std::string& path) {
  return parse_batch_string(read_file(path, "batch file"), path);
}

BatchResult run_batch(const BatchSpec& spec, const BatchRunOptions& options) {
  SOFTIK_CHECK(!options.out_dir.empty(), "run_batch needs an output folder (BatchRunOptions::out_dir)");
  BatchResult result;
  result.designs.resize(spec.designs.size());
  const bool override_backend = options.has_backend || spec.has_backend;
  result.backend = options.has_backend ? options.backend : spec.backend;
  if (!override_backend && !spec.designs.empty())  // the scenes' own (design 0's, for the summary)
    result.backend = design_scene(spec, spec.designs.front()).solver.backend;
  require_backend(result.backend);
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int workers = options.workers >= 0 ? options.workers : spec.workers;
  if (workers == 0) workers = hardware;
  workers = std::max(1, std::min<int>(workers, static_cast<int>(spec.designs.size())));
  result.workers = workers;
  // Each design's assembly gets an equal share of the cores unless its scene sets solver.threads.
  const int threads_per_design = std::max(1, hardware / workers);

  // Each worker's factorisations would otherwise start a full set of BLAS threads, oversubscribing
  // the cores (measured, 2 cores, 16 finger designs: 2 workers 9.4 s with OpenBLAS's default, 2.4 s
  // with one BLAS thread each).
  const detail::ScopedBlasThreadCap blas(threads_per_design);
  std::atomic<size_t> next{0};
  std::mutex progress_mutex;  // guards finished, finished_count, table, the progress stream and callback
  std::vector<bool> finished(spec.designs.size(), false);
  size_t finished_count = 0;
  std::exception_ptr callback_error;  // the first exception of options.on_progress: no design starts after it
  LiveTable table(spec, result, options.csv_path, finished);
  const auto start = std::chrono::steady_clock::now();
  auto worker = [&] {
    for (size_t i = next++; i < spec.designs.size(); i = next++) {
      const BatchDesign& design = spec.designs[i];
      DesignResult& r = result.designs[i];
      r.name = design.name;
      bool scene_made = false;  // design_scene's errors name the design and its overrides already
      try {
        Scene scene = design_scene(spec, design);
        scene_made = true;
        if (override_backend) scene.solver.backend = result.backend;
        if (scene.solver.threads == 0) scene.solver.threads = threads_per_design;
        scene.outputs.vtu = spec.vtu;
        SceneRunOptions run;
        run.out_dir = options.out_dir + "/" + design.name;
        r.run = run_scene(scene, run);
        r.ok = true;
      } catch (const std::exception& e) {
        r.error = e.what();
        const auto* error = dynamic_cast<const Error*>(&e);
        r.error_kind = error ? error->kind() : ErrorKind::Internal;
        std::string overrides;
        for (const auto& s : design.set) overrides += (overrides.empty() ? "" : ", ") + s.first + " = " + s.second;
        if (!overrides.empty() && scene_made) r.error += " (design overrides: " + overrides + ")";
      }
      const std::lock_guard<std::mutex> lock(progress_mutex);
      finished[i] = true;
      ++finished_count;
      table.update(finished_count);
      if (options.progress) {
        *options.progress << "softik: design " << design.name << ": "
                          << (r.ok ? "ok, " + format_number(r.run.seconds) + " s" : "error: " + r.error) << "\n";
      }
      if (options.on_progress && !callback_error) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        try {
          options.on_progress(make_progress_event("design", static_cast<int>(finished_count),
                                                  static_cast<int>(spec.designs.size()), elapsed,
                                                  design.name + (r.ok ? ": ok" : ": error")));
        } catch (...) {
          callback_error = std::current_exception();
          next = spec.designs.size();  // the workers take no further design
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int w = 1; w < workers; ++w) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (callback_error) std::rethrow_exception(callback_error);
  if (spec.designs.empty()) table.update(0);
  table.check();
  return result;
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
    for (const auto& c : design_columns(spec.designs[i], result.designs[i])) {
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
