// Batches of designs from Python: softik.BatchSpec (a batch file, or designs built in Python as
// overrides of a base scene's keys) and softik.run_batch, `softik batch` with its results table as
// {column: NumPy array} (the same columns as the CLI's CSV).
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <softik/batch.hpp>
#include <softik/error.hpp>

#include "bindings.hpp"

namespace softik::python {

namespace {

struct PyBatchResult {
  BatchSpec spec;
  BatchResult result;
  std::string csv_path;
};

/// str(value).
std::string text(nb::handle value) {
  nb::object s = nb::steal(PyObject_Str(value.ptr()));
  if (!s.is_valid()) throw nb::python_error();
  return nb::cast<std::string>(s);
}

/// A Python value as the YAML text of an override: strings as written, booleans as true/false,
/// anything else (numbers, lists of numbers) as str() writes it.
std::string yaml_text(nb::handle value) {
  if (nb::isinstance<nb::bool_>(value)) return nb::cast<bool>(value) ? "true" : "false";
  if (nb::isinstance<nb::str>(value)) return nb::cast<std::string>(value);
  return text(value);
}

void construct(BatchSpec* self, const std::string& scene, nb::list designs, int workers, bool vtu,
               const std::string& path, const std::string& lockstep, int lockstep_designs) {
  BatchSpec spec;
  spec.path = path;
  spec.scene_path = scene;
  SOFTIK_CHECK(workers >= 0, "workers must be >= 0 (0: one per hardware thread), got " << workers);
  spec.workers = workers;
  spec.vtu = vtu;
  SOFTIK_CHECK(lockstep == "auto" || lockstep == "on" || lockstep == "off",
               "lockstep must be 'auto', 'on' or 'off', got '" << lockstep << "'");
  spec.lockstep = lockstep == "on" ? BatchLockstep::On : lockstep == "off" ? BatchLockstep::Off : BatchLockstep::Auto;
  SOFTIK_CHECK(lockstep_designs >= 1 && lockstep_designs <= 4096,
               "lockstep_designs: the designs assembled together per wave, 1 to 4096, got " << lockstep_designs);
  spec.lockstep_designs = lockstep_designs;
  std::set<std::string> names;
  for (nb::handle item : designs) {
    SOFTIK_CHECK(nb::isinstance<nb::dict>(item), "each design must be a dict {'name': str, 'set': {path: value}}");
    nb::dict d = nb::borrow<nb::dict>(item);
    SOFTIK_CHECK(d.contains("name"), "a design has no 'name'");
    BatchDesign design;
    design.name = text(d["name"]);
    check_design_name(spec, design.name);  // the rule of batch files (softik/batch.hpp)
    SOFTIK_CHECK(names.insert(design.name).second, "two designs are named '" << design.name << "'");
    if (d.contains("set")) {
      SOFTIK_CHECK(nb::isinstance<nb::dict>(d["set"]),
                   "design '" << design.name << "': 'set' must be a dict {path: value}");
      for (auto [key, value] : nb::borrow<nb::dict>(d["set"])) design.set.emplace_back(text(key), yaml_text(value));
    }
    spec.designs.push_back(design);
  }
  SOFTIK_CHECK(!spec.designs.empty(), "a batch needs at least one design");
  for (const BatchDesign& design : spec.designs) design_scene(spec, design);  // typos fail before anything runs
  new (self) BatchSpec(std::move(spec));
}

PyBatchResult run(const BatchSpec& spec, const std::string& out_dir, std::optional<int> workers,
                  std::optional<std::string> backend, nb::handle progress, bool resume,
                  std::optional<std::pair<int, int>> shard) {
  BatchRunOptions options;
  options.out_dir = out_dir;
  options.resume = resume;
  options.on_progress = progress_callback(progress);
  if (workers) {
    SOFTIK_CHECK(*workers >= 0, "workers must be >= 0 (0: one per hardware thread), got " << *workers);
    options.workers = *workers;
  }
  if (backend) {
    options.has_backend = true;
    options.backend = parse_backend(*backend);
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  SOFTIK_CHECK_IO(!ec && std::filesystem::is_directory(out_dir),
                  "cannot create the output folder '" << out_dir << "': " << (ec ? ec.message() : "not a folder"));
  PyBatchResult r;
  r.spec = shard ? batch_shard(spec, shard->first, shard->second) : spec;
  r.csv_path = shard ? batch_shard_csv_path(out_dir, spec, shard->first, shard->second) : batch_csv_path(out_dir, spec);
  options.csv_path = r.csv_path;
  {
    nb::gil_scoped_release release;
    r.result = run_batch(r.spec, options);
  }
  return r;
}

std::string csv_text(const PyBatchResult& r) {
  std::ostringstream out;
  write_batch_csv(r.spec, r.result, out);
  return out.str();
}

nb::list designs(const PyBatchResult& r) {
  nb::list out;
  for (const DesignResult& d : r.result.designs) {
    nb::dict o;
    o["name"] = d.name;
    o["ok"] = d.ok;
    o["error"] = d.error;
    o["error_kind"] = d.ok ? std::string() : std::string(error_kind_name(d.error_kind));
    double seconds = d.run.seconds;  // a resumed design's: its row's
    for (const auto& [column, value] : d.row)
      if (column == "seconds") seconds = std::strtod(value.c_str(), nullptr);
    o["seconds"] = seconds;
    o["unmet_goals"] = unmet_goals(d);
    o["csv_path"] = d.run.csv_path;
    o["resumed"] = d.resumed;
    out.append(o);
  }
  return out;
}

nb::dict pareto(const PyBatchResult& r) {
  SOFTIK_CHECK(r.spec.pareto.size() == 2, "the batch has no 'pareto:' (two objectives)");
  const BatchPareto p = pareto_front(r.spec, r.result);
  auto points = [](const std::vector<ParetoPoint>& list) {
    nb::list out;
    for (const ParetoPoint& q : list) out.append(nb::make_tuple(q.name, q.x, q.y));
    return out;
  };
  nb::dict o;
  o["front"] = points(p.front);
  o["dominated"] = points(p.dominated);
  o["unranked"] = nb::cast(p.unranked);
  return o;
}

nb::dict best(const PyBatchResult& r) {
  SOFTIK_CHECK(!r.spec.objective.expression.empty(), "the batch has no 'objective:'");
  const BatchRanking ranking = rank_designs(r.spec, r.result);
  nb::list list;
  for (const RankedDesign& d : ranking.best) list.append(nb::make_tuple(d.name, d.value));
  nb::dict o;
  o["best"] = list;
  o["unranked"] = nb::cast(ranking.unranked);
  return o;
}

std::string report_stem(const PyBatchResult& r) { return r.csv_path.substr(0, r.csv_path.size() - 4); }

}  // namespace

void bind_batch(nb::module_& m) {
  nb::class_<BatchSpec>(m, "BatchSpec",
                        "Designs of one base scene, each a set of overrides of its keys (include/softik/batch.hpp); "
                        "softik.load_batch reads a batch file.")
      .def("__init__", &construct, nb::arg("scene"), nb::arg("designs"), nb::arg("workers") = 0, nb::arg("vtu") = false,
           nb::arg("path") = "batch", nb::arg("lockstep") = "auto", nb::arg("lockstep_designs") = 64,
           "designs: [{'name': str, 'set': {'loads.pressure[0].value': 12000, ...}}]; values are YAML text or "
           "Python numbers. `path` names the batch in messages and its table (<stem>.csv). Every design's "
           "overrides are checked against the scene here. lockstep ('auto', 'on', 'off') and lockstep_designs: "
           "designs of one mesh topology sharing their assembly passes (docs/batch-format.md)")
      .def_ro("path", &BatchSpec::path)
      .def_ro("scene_path", &BatchSpec::scene_path)
      .def_ro("workers", &BatchSpec::workers)
      .def_ro("vtu", &BatchSpec::vtu)
      .def_prop_ro("lockstep",
                   [](const BatchSpec& s) {
                     return std::string(s.lockstep == BatchLockstep::On    ? "on"
                                        : s.lockstep == BatchLockstep::Off ? "off"
                                                                           : "auto");
                   })
      .def_ro("lockstep_designs", &BatchSpec::lockstep_designs)
      .def_ro("constraints", &BatchSpec::constraints)
      .def_ro("dropped", &BatchSpec::dropped, "swept or sampled designs left out by the constraints")

      .def_prop_ro(
          "designs",
          [](const BatchSpec& s) {
            nb::list out;
            for (const BatchDesign& d : s.designs) {
              nb::dict set;
              for (const auto& [key, value] : d.set) set[key.c_str()] = value;
              nb::dict o;
              o["name"] = d.name;
              o["set"] = set;
              out.append(o);
            }
            return out;
          },
          "[{'name', 'set': {path: YAML text}}], listed designs first, then the sweep's product")
      .def(
          "scene",
          [](const BatchSpec& s, int i) {
            SOFTIK_CHECK(i >= 0 && i < static_cast<int>(s.designs.size()), "design index " << i << " is out of range");
            return design_scene(s, s.designs[static_cast<size_t>(i)]);
          },
          nb::arg("index"), "The base scene with design `index`'s overrides (a softik.Scene).");

  m.def("load_batch", &parse_batch, nb::arg("path"),
        "Reads a batch file (docs/scene-format.md, \"Batches of designs\").");

  nb::class_<PyBatchResult>(m, "BatchResult", "What softik.run_batch did: one result per design.")
      .def_ro("csv_path", &PyBatchResult::csv_path, "the results table written as the designs finished")
      .def_prop_ro("seconds", [](const PyBatchResult& r) { return r.result.seconds; })
      .def_prop_ro("workers", [](const PyBatchResult& r) { return r.result.workers; })
      .def_prop_ro("backend", [](const PyBatchResult& r) { return std::string(backend_name(r.result.backend)); })
      .def_prop_ro("designs_per_second", [](const PyBatchResult& r) { return r.result.designs_per_second(); })
      .def_prop_ro(
          "lockstep",
          [](const PyBatchResult& r) {
            nb::dict d;
            d["waves"] = r.result.lockstep.waves;
            d["groups"] = r.result.lockstep.groups;
            d["passes"] = r.result.lockstep.passes;
            d["design_passes"] = r.result.lockstep.design_passes;
            return d;
          },
          "what lockstep evaluation did: {'waves', 'groups', 'passes', 'design_passes'} (all 0 when off)")
      .def_prop_ro(
          "resumed", [](const PyBatchResult& r) { return r.result.resumed; },
          "designs whose rows were kept from the table (run_batch(..., resume=True))")
      .def("best", &best, "The batch's objective: {'best': [(name, value)], 'unranked': [(name, reason)]}, best first")
      .def("pareto", &pareto,
           "The batch's two pareto objectives: {'front': [(name, x, y)], 'dominated': [...], 'unranked': [(name, "
           "reason)]}, the front ordered by the first objective, best first")
      .def(
          "write_report", [](const PyBatchResult& r) { return write_batch_report(r.spec, r.result, report_stem(r)); },
          "Writes <stem>.summary.csv and, with an objective or pareto, the SVG plots and pareto.csv next to the "
          "table; returns their paths (docs/batch-format.md, \"What a batch writes\")")
      .def_prop_ro("designs", &designs,
                   "[{'name', 'ok', 'error', 'error_kind', 'seconds', 'unmet_goals', 'csv_path'}] in the spec's order")
      .def("csv", &csv_text, "The results table as CSV text (what `softik batch` writes)")
      .def(
          "table",
          [](const PyBatchResult& r) { return nb::module_::import_("softik.table").attr("parse_csv")(csv_text(r)); },
          "The results table as {column: NumPy array}: numbers as float64, text (name, status, error) as str");

  const char* doc =
      "Runs every design as `softik batch` does (each writes into out_dir/<design>/; a failing "
      "design is recorded with its error), writing the table out_dir/<batch stem>.csv. `progress`, "
      "if given, is called once per finished design (k: designs finished, in any order), one call "
      "at a time, with a dict {'what', 'k', 'total', 'elapsed', 'eta', 'label', 'last'}; an "
      "exception it raises starts no further design and reaches the caller. resume=True keeps the "
      "rows with status ok of the table already in out_dir and runs only the other designs. shard=(i, n) "
      "runs shard i of n into its own table (`softik batch --shard i/n`; then merge_batch_shards).";
  m.def("run_batch", &run, nb::arg("spec"), nb::arg("out_dir"), nb::arg("workers") = nb::none(),
        nb::arg("backend") = nb::none(), nb::arg("progress") = nb::none(), nb::arg("resume") = false,
        nb::arg("shard") = nb::none(), doc);
  m.def(
      "run_batch",
      [](const std::string& path, const std::string& out_dir, std::optional<int> workers,
         std::optional<std::string> backend, nb::handle progress, bool resume,
         std::optional<std::pair<int, int>> shard) {
        return run(parse_batch(path), out_dir, workers, backend, progress, resume, shard);
      },
      nb::arg("spec"), nb::arg("out_dir"), nb::arg("workers") = nb::none(), nb::arg("backend") = nb::none(),
      nb::arg("progress") = nb::none(), nb::arg("resume") = false, nb::arg("shard") = nb::none(), doc);
  m.def(
      "merge_batch_shards",
      [](const BatchSpec& spec, const std::string& dir, int n) {
        const std::string path = batch_csv_path(dir, spec);
        merge_batch_shards(spec, dir, n, path);
        return path;
      },
      nb::arg("spec"), nb::arg("dir"), nb::arg("n"),
      "Joins the tables of shards 0..n-1 in `dir` into dir/<batch stem>.csv (`softik batch --merge n`); returns its "
      "path.");
}

}  // namespace softik::python
