// Batch files (batch.hpp): the reader, the designs it lists, sweeps and samples, their
// constraints, and each design's scene (the base scene's YAML tree with its overrides).
#include "softik/batch.hpp"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <unordered_set>

#include "host/batch/batch_csv.hpp"
#include "host/batch/objective.hpp"
#include "host/batch/overrides.hpp"
#include "host/batch/sampling.hpp"
#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik {

using namespace scene_detail;
using batch_detail::apply_override;
using batch_detail::format_number;

namespace {

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  SOFTIK_CHECK(in, "cannot open " << what << " '" << path << "': no such file or not readable");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The text of a scalar/list/map node as YAML (flow style), for the CSV and the override.
std::string yaml_text(const YAML::Node& node) {
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << node;
  return e.c_str();
}

/// Fails at `key` when override path `key` is malformed or overlaps one of `earlier` (the same
/// node, or one inside the other: which value wins would depend on their order).
void check_override_path(const YAML::Node& key, const std::string& path, const std::string& what,
                         const std::string& text, const std::vector<std::string>& earlier) {
  try {
    (void)batch_detail::split_path(text);
    for (const std::string& seen : earlier)
      if (batch_detail::paths_overlap(seen, text)) {
        const bool same = batch_detail::split_path(seen).size() == batch_detail::split_path(text).size();
        fail(location(path, key), what + ": override '" + text + "' " +
                                      (seen == text ? "is given twice"
                                       : same       ? "names the same node as '" + seen + "'"
                                                    : "overlaps '" + seen + "' (one lies inside the other)") +
                                      ": set each value once");
      }
  } catch (const Error& e) {
    if (std::string(e.what()).rfind(path + ":", 0) == 0) throw;
    fail(location(path, key), what + ": " + e.what());
  }
}

/// Reads `set:` or `sweep:` keys (override paths) in file order; `earlier`: paths set elsewhere
/// for the same designs, which these may not overlap.
std::vector<std::pair<std::string, YAML::Node>> override_entries(const YAML::Node& node, const std::string& path,
                                                                 const std::string& what,
                                                                 std::vector<std::string> earlier = {}) {
  if (!node.IsMap())
    fail(location(path, node), what + ": expected a map of override paths to values, got " + describe(node));
  std::vector<std::pair<std::string, YAML::Node>> out;
  for (const auto& kv : node) {
    const std::string key = as_string(kv.first, path, what + " key");
    check_override_path(kv.first, path, what, key, earlier);
    earlier.push_back(key);
    out.emplace_back(key, kv.second);
  }
  return out;
}

/// The base scene's tree (a copy) with a design's overrides applied.
YAML::Node design_tree(const YAML::Node& base, const BatchSpec& spec, const BatchDesign& design) {
  YAML::Node root = YAML::Clone(base);
  for (const auto& s : design.set) {
    try {
      apply_override(root, s.first, load_yaml(s.second, spec.path));
    } catch (const Error& e) {
      throw Error(spec.path + ": design '" + design.name + "': " + e.what(), e.kind());
    }
  }
  return root;
}

Scene design_scene_of_tree(const YAML::Node& root, const BatchSpec& spec, const BatchDesign& design) {
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

}  // namespace

Scene design_scene(const BatchSpec& spec, const BatchDesign& design) {
  const YAML::Node base = load_yaml(read_file(spec.scene_path, "base scene"), spec.scene_path);
  return design_scene_of_tree(design_tree(base, spec, design), spec, design);
}

namespace {

/// The first of `constraints:` a design's scene tree violates; -1 when all hold. A constraint that
/// reads a path the design's scene has no number at is an error (a typo, or a key the scene lacks).
int violated(const std::vector<batch_detail::Expression>& constraints, const BatchSpec& spec, const YAML::Node& tree,
             const BatchDesign& design) {
  for (size_t c = 0; c < constraints.size(); ++c) {
    std::string missing;
    const std::optional<double> holds = constraints[c].evaluate([&](const std::string& name) -> std::optional<double> {
      const YAML::Node node = batch_detail::node_at(tree, name);
      if (node && node.IsScalar())
        if (const std::optional<double> v = batch_detail::parse_number(node.Scalar())) return v;
      if (missing.empty()) missing = name;
      return std::nullopt;
    });
    SOFTIK_CHECK(holds.has_value(), spec.path << ": constraint '" << spec.constraints[c] << "' reads '" << missing
                                              << "', which the scene of design '" << design.name
                                              << "' has no number at (a scene key, e.g. mesh.generator.cell_size)");
    if (*holds == 0) return static_cast<int>(c);
  }
  return -1;
}

}  // namespace

namespace {

/// `sample:` (docs/batch-format.md): `count` designs named sample0, sample1, ... whose override
/// values fill the box of `ranges` (path -> [lo, hi], each mapped linearly from [0, 1)) by a
/// Latin hypercube or the Sobol' sequence (host/batch/sampling.hpp), from `seed`; `set` holds
/// overrides every sampled design shares.
void add_sample(const YAML::Node& node, const std::string& path, size_t max_designs,
                std::vector<BatchDesign>& designs) {
  const Map m(node, path, "sample", {"method", "count", "seed", "ranges", "set"});
  const bool sobol = m.choice("method", {"latin_hypercube", "sobol"}, 0) == 1;
  const int count = m.integer("count", 0);
  if (count < 1 || static_cast<size_t>(count) > max_designs)
    fail(m.has("count") ? m.where("count") : m.where(), "sample.count: the number of designs, 1 to max_designs (" +
                                                            std::to_string(max_designs) + "; got " +
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
        if (batch_detail::paths_overlap(r.first, e.first))
          fail(location(path, e.second),
               "sample.set." + e.first + ": " +
                   (r.first == e.first ? std::string("also in sample.ranges") : "overlaps sample.ranges." + r.first) +
                   "; give it in one of them");
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

namespace {

/// `designs:`: the listed designs, each with its name and `set`.
void add_listed(const Map& m, const std::string& path, std::vector<BatchDesign>& designs) {
  const std::vector<YAML::Node> list = as_list(m.at("designs"), path, "designs");
  for (size_t i = 0; i < list.size(); ++i) {
    const Map d(list[i], path, item("designs", i), {"name", "set"});
    BatchDesign design;
    design.name = as_string(d.need("name", "the design's name (its output folder and CSV row)"), path, d.name("name"));
    try {
      BatchSpec spec;  // the rule needs the batch file's name only (its stem's files)
      spec.path = path;
      check_design_name(spec, design.name);
    } catch (const Error& e) {
      fail(d.where("name"), d.name("name") + ": " + e.what());
    }
    if (d.has("set"))
      for (const auto& e : override_entries(d.at("set"), path, d.name("set")))
        design.set.emplace_back(e.first, yaml_text(e.second));
    designs.push_back(design);
  }
}

/// `sweep:`: one design per combination of the axes' values, the last axis varying fastest.
void add_sweep(const YAML::Node& node, const std::string& path, size_t max_designs, std::vector<BatchDesign>& designs) {
  const auto axes = override_entries(node, path, "sweep");
  if (axes.empty()) fail(location(path, node), "sweep: give at least one override path -> list of values");
  std::vector<std::vector<std::string>> values;
  size_t count = 1;
  for (const auto& a : axes) {
    if (!a.second.IsSequence() || a.second.size() == 0)
      fail(location(path, a.second),
           "sweep." + a.first + ": expected a non-empty list of values, got " + describe(a.second));
    std::vector<std::string> v;
    for (const auto& n : a.second) v.push_back(yaml_text(n));
    count *= v.size();
    if (count > max_designs)
      fail(location(path, node), "sweep: more than max_designs (" + std::to_string(max_designs) +
                                     ") combinations; raise max_designs, or split the sweep");
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
    designs.push_back(design);
  }
}

/// `objective:` (with `best`) or an entry of `pareto:` (without).
BatchObjective read_objective(const YAML::Node& node, const std::string& path, const std::string& what,
                              bool with_best) {
  const Map o(node, path, what,
              with_best ? std::vector<std::string>{"expression", "goal", "best"}
                        : std::vector<std::string>{"expression", "goal"});
  BatchObjective objective;
  objective.expression =
      as_string(o.need("expression", "an expression of the results' columns"), path, what + ".expression");
  try {
    (void)batch_detail::Expression(objective.expression);
  } catch (const Error& e) {
    fail(o.where("expression"), what + ".expression: " + e.what());
  }
  objective.maximize = o.choice("goal", {"max", "min"}, 0) == 0;
  if (with_best) {
    objective.best = o.integer("best", 5);
    if (objective.best < 1) fail(o.where("best"), what + ".best: the number of designs to report, >= 1");
  }
  return objective;
}

/// The batch's settings: the base scene, backend, workers, vtu, lockstep and max_designs.
void read_settings(const Map& m, const std::string& path, BatchSpec& spec) {
  spec.scene_path =
      resolve(path, as_string(m.need("scene", "the base scene file, relative to the batch file"), path, "scene"));
  if (m.has("backend")) {
    spec.has_backend = true;
    spec.backend = m.choice("backend", {"cpu", "cuda"}, 0) == 0 ? Backend::Cpu : Backend::Cuda;
  }
  spec.workers = m.integer("workers", 0);
  if (spec.workers < 0) fail(m.where("workers"), "workers: must be >= 0 (0: one per hardware thread)");
  spec.vtu = m.boolean("vtu", false);
  if (m.has("lockstep")) {
    const int mode = m.choice("lockstep", {"auto", "on", "off"}, 0);
    spec.lockstep = mode == 0 ? BatchLockstep::Auto : mode == 1 ? BatchLockstep::On : BatchLockstep::Off;
  }
  spec.lockstep_designs = m.integer("lockstep_designs", spec.lockstep_designs);
  if (spec.lockstep_designs < 1 || spec.lockstep_designs > 4096)
    fail(m.where("lockstep_designs"),
         "lockstep_designs: the designs assembled together per wave, 1 to 4096 (each "
         "runs on a thread of its own)");
  const int max_designs = m.integer("max_designs", static_cast<int>(spec.max_designs));
  if (max_designs < 1) fail(m.where("max_designs"), "max_designs: the most designs the batch may have, >= 1");
  spec.max_designs = static_cast<size_t>(max_designs);
}

/// The designs: listed, then swept, then sampled, at most max_designs. Returns how many are
/// listed (those come first; a constraint may only leave out the others).
size_t read_designs(const Map& m, const YAML::Node& root, const std::string& path, BatchSpec& spec) {
  if (!m.has("designs") && !m.has("sweep") && !m.has("sample"))
    fail(location(path, root),
         "the batch file needs 'designs' (a list of {name, set}), 'sweep' (override path -> "
         "list of values) and/or 'sample' (a space-filling sample of ranges)");
  if (m.has("designs")) add_listed(m, path, spec.designs);
  const size_t listed = spec.designs.size();
  if (m.has("sweep")) add_sweep(m.at("sweep"), path, spec.max_designs, spec.designs);
  if (m.has("sample")) add_sample(m.at("sample"), path, spec.max_designs, spec.designs);
  if (spec.designs.size() > spec.max_designs)
    fail(location(path, root), "the batch has " + std::to_string(spec.designs.size()) +
                                   " designs, more than max_designs (" + std::to_string(spec.max_designs) +
                                   "): raise max_designs, or split the batch");
  return listed;
}

/// `objective:` and `pareto:` (two objectives).
void read_objectives(const Map& m, const std::string& path, BatchSpec& spec) {
  if (m.has("objective")) spec.objective = read_objective(m.at("objective"), path, "objective", true);
  if (m.has("pareto")) {
    const std::vector<YAML::Node> list = as_list(m.at("pareto"), path, "pareto");
    if (list.size() != 2)
      fail(m.where("pareto"), "pareto: expected two objectives, [{expression, goal}, {expression, goal}], got " +
                                  std::to_string(list.size()));
    for (size_t i = 0; i < 2; ++i) spec.pareto.push_back(read_objective(list[i], path, item("pareto", i), false));
  }
}

/// `constraints:`: each entry's text into spec.constraints, and its parsed comparison.
std::vector<batch_detail::Expression> read_constraints(const Map& m, const std::string& path, BatchSpec& spec) {
  std::vector<batch_detail::Expression> constraints;
  if (m.has("constraints")) {
    for (const YAML::Node& c : as_list(m.at("constraints"), path, "constraints")) {
      const std::string text = as_string(c, path, "constraints entry");
      try {
        constraints.emplace_back(text, batch_detail::Expression::Kind::Comparison, "constraint");
      } catch (const Error& e) {
        fail(location(path, c), std::string("constraints: ") + e.what());
      }
      spec.constraints.push_back(text);
    }
  }
  return constraints;
}

/// Design names must be unique (they name the output folders).
void check_unique_design_names(const BatchSpec& spec, const std::string& path) {
  std::unordered_set<std::string> names;
  for (const BatchDesign& d : spec.designs)
    SOFTIK_CHECK(names.insert(d.name).second, path << ": two designs are named '" << d.name
                                                   << "': names must be unique (they name the output folders)");
}

/// Every design's scene is built and checked before anything runs; constraints leave out designs
/// (not the `listed` first ones: a listed design that violates one is an error).
void keep_valid_designs(const std::vector<batch_detail::Expression>& constraints, size_t listed,
                        const std::string& path, BatchSpec& spec) {
  const YAML::Node base = load_yaml(read_file(spec.scene_path, "base scene"), spec.scene_path);
  std::vector<BatchDesign> kept;
  for (size_t k = 0; k < spec.designs.size(); ++k) {
    const BatchDesign& d = spec.designs[k];
    const YAML::Node tree = design_tree(base, spec, d);
    if (const int c = violated(constraints, spec, tree, d); c >= 0) {
      SOFTIK_CHECK(k >= listed, path << ": design '" << d.name << "' violates the constraint '"
                                     << spec.constraints[static_cast<size_t>(c)]
                                     << "': change its values, or the constraint");
      ++spec.dropped;
      continue;
    }
    (void)design_scene_of_tree(tree, spec, d);
    kept.push_back(d);
  }
  SOFTIK_CHECK(!kept.empty(),
               path << ": the batch has no design to run"
                    << (spec.dropped > 0 ? ": all " + std::to_string(spec.dropped) + " violate the constraints"
                                         : std::string(" (designs: [] is empty)")));
  spec.designs = std::move(kept);
}

}  // namespace

BatchSpec parse_batch_string(const std::string& yaml, const std::string& path) {
  const YAML::Node root = load_yaml(yaml, path);
  BatchSpec spec;
  spec.path = path;
  const Map m(root, path, "batch",
              {"scene", "backend", "workers", "vtu", "designs", "sweep", "sample", "objective", "pareto", "constraints",
               "max_designs", "lockstep", "lockstep_designs"});
  read_settings(m, path, spec);
  const size_t listed = read_designs(m, root, path, spec);
  read_objectives(m, path, spec);
  const std::vector<batch_detail::Expression> constraints = read_constraints(m, path, spec);
  check_unique_design_names(spec, path);
  keep_valid_designs(constraints, listed, path, spec);
  return spec;
}

BatchSpec parse_batch(const std::string& path) { return parse_batch_string(read_file(path, "batch file"), path); }

}  // namespace softik
