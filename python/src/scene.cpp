// Scenes from Python: softik.Scene (parse_scene, parse_scene_string) and softik.run_scene, the
// CLI's `softik run` (the CSV, .vtu and .pvd outputs) with its summary as softik.RunResult.
#include <memory>
#include <sstream>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"

namespace softik::python {

namespace {

const char* scene_kind(const Scene& scene) {
  return scene.dynamics.enabled ? "dynamic" : scene.inverse.enabled ? "inverse" : "static";
}

nb::dict outputs_dict(const std::vector<std::pair<std::string, Real>>& outputs) {
  nb::dict d;
  for (const auto& [key, value] : outputs) d[key.c_str()] = value;
  return d;
}

nb::object inverse_summary(const InverseRunSummary& s) {
  if (!s.enabled) return nb::none();
  nb::dict d =
      dict_of("mode", s.mode, "method", s.method, "steps", s.steps, "goals", s.goals, "not_optimal", s.not_optimal,
              "unconverged", s.unconverged, "last_message", s.last_message, "all_reached", s.all_reached());
  nb::dict actuators, effectors;
  for (const ActuatorSummary& a : s.actuators) {
    nb::dict o = outputs_dict(a.outputs);
    o["sensor"] = a.sensor;
    actuators[a.name.c_str()] = o;
  }
  for (const EffectorSummary& e : s.effectors)
    effectors[e.name.c_str()] = dict_of("unit", e.unit, "tolerance", e.tolerance, "final_error", e.final_error,
                                        "worst_error", e.worst_error, "goals", e.goals, "reached", e.reached);
  d["actuators"] = actuators;
  d["effectors"] = effectors;
  d["seconds_per_step"] = phase_seconds(s);
  return std::move(d);
}

nb::object dynamic_summary(const DynamicRunSummary& s) {
  if (!s.enabled) return nb::none();
  return dict_of("scheme", s.scheme, "steps", s.steps, "time", s.time, "cut_steps", s.cut_steps, "newton_iterations",
                 s.newton_iterations, "factorizations", s.factorizations, "kinetic_energy", s.kinetic_energy,
                 "elastic_energy", s.elastic_energy, "max_contacts", s.max_contacts, "max_penetration",
                 s.max_penetration, "unconverged_contact_solves", s.unconverged_contact_solves, "normal_force",
                 s.normal_force);
}

}  // namespace

ProgressCallback progress_callback(nb::handle progress) {
  if (progress.is_none()) return {};
  SOFTIK_CHECK(PyCallable_Check(progress.ptr()), "progress must be a callable taking one dict (or None), got a "
                                                     << nb::type_name(progress.type()).c_str());
  // The callable is released with the GIL held, wherever the last copy of the callback goes.
  std::shared_ptr<nb::object> fn(new nb::object(nb::borrow(progress)), [](nb::object* o) {
    nb::gil_scoped_acquire gil;
    delete o;
  });
  return [fn](const ProgressEvent& e) {
    nb::gil_scoped_acquire gil;  // run_scene and run_batch run without it, batches on worker threads
    (*fn)(dict_of("what", e.what, "k", e.k, "total", e.total, "elapsed", e.elapsed, "eta", e.eta, "label", e.label,
                  "last", e.last));
  };
}

void bind_scene(nb::module_& m) {
  nb::class_<Scene>(m, "Scene",
                    "A scene file read and checked (docs/scene-format.md); softik.load_scene or "
                    "softik.Scene.from_string make one.")
      .def_prop_ro(
          "name", [](const Scene& s) { return s.name; }, "`name:` or the file's stem; names the outputs")
      .def_prop_ro("path", [](const Scene& s) { return s.path; })
      .def_prop_ro("description", [](const Scene& s) { return s.description; })
      .def_prop_ro("kind", &scene_kind, "'static', 'inverse' (an inverse: section) or 'dynamic' (dynamics:)")
      .def_prop_ro("load_steps", [](const Scene& s) { return s.solver.newton.load_steps; })
      .def_prop_ro("dynamic_steps", [](const Scene& s) { return s.dynamics.steps; })
      .def_static("from_string", &parse_scene_string, nb::arg("yaml"), nb::arg("path") = "<string>.yaml",
                  "A scene from YAML text; `path` names it in messages and resolves relative file names.")
      .def("__repr__", [](const Scene& s) {
        return "<softik.Scene '" + s.name + "' (" + scene_kind(s) + ") from " + s.path + ">";
      });

  m.def("load_scene", &parse_scene, nb::arg("path"),
        "Reads and checks a scene file (strict: errors name the file, line and column).");

  nb::class_<SceneRunResult>(m, "RunResult", "What softik.run_scene did: the summary `softik run` prints.")
      .def_ro("name", &SceneRunResult::name)
      .def_ro("num_dofs", &SceneRunResult::num_dofs)
      .def_ro("num_free_dofs", &SceneRunResult::num_free_dofs)
      .def_ro("num_cells", &SceneRunResult::num_cells)
      .def_ro("load_steps", &SceneRunResult::load_steps, "converged load steps (inverse: steps; dynamic: time steps)")
      .def_ro("newton_iterations", &SceneRunResult::newton_iterations)
      .def_ro("step_cuts", &SceneRunResult::step_cuts)
      .def_ro("load_factor", &SceneRunResult::load_factor)
      .def_ro("seconds", &SceneRunResult::seconds)
      .def_ro("csv_path", &SceneRunResult::csv_path)
      .def_ro("pvd_path", &SceneRunResult::pvd_path)
      .def_ro("vtu_files", &SceneRunResult::vtu_files)
      .def_ro("warnings", &SceneRunResult::warnings)
      .def_prop_ro(
          "pressures",
          [](const SceneRunResult& r) {
            nb::dict d;
            for (const PressureSummary& p : r.pressures)
              d[p.name.c_str()] = dict_of("pressure", p.pressure, "volume0", p.volume0, "volume", p.volume);
            return d;
          },
          "{cavity: {'pressure', 'volume0', 'volume'}} at the last step")
      .def_prop_ro(
          "probes",
          [](const SceneRunResult& r) {
            nb::dict d;
            for (const ProbeSummary& p : r.probes)
              d[p.name.c_str()] = take(std::vector<Real>(p.displacement.begin(), p.displacement.end()));
            return d;
          },
          "{probe: displacement (3,)} at the last step")
      .def_prop_ro(
          "inverse", [](const SceneRunResult& r) { return inverse_summary(r.inverse); },
          "the inverse run's summary (dict), None for other scenes")
      .def_prop_ro(
          "dynamics", [](const SceneRunResult& r) { return dynamic_summary(r.dynamics); },
          "the dynamic run's summary (dict), None for other scenes")
      .def_prop_ro("unmet_goals", &unmet_goals, "why an inverse run missed its goals ('' when it did not)")
      .def(
          "summary",
          [](const SceneRunResult& r) {
            std::ostringstream out;
            write_summary(r, out);
            return out.str();
          },
          "The summary `softik run` prints");

  const auto run = [](const Scene& scene, const std::string& out_dir, nb::handle progress) {
    SceneRunOptions options;
    options.out_dir = out_dir;
    options.on_progress = progress_callback(progress);
    nb::gil_scoped_release release;
    return run_scene(scene, options);
  };
  const char* doc =
      "Runs the scene as `softik run` does: writes <out_dir>/<name>.csv (read it with softik.read_table) "
      "and, with outputs.vtu, the .vtu/.pvd files; returns the summary. `progress`, if given, is called "
      "after every load, time or inverse step with a dict {'what', 'k', 'total', 'elapsed', 'eta', "
      "'label', 'last'}; an exception it raises stops the run.";
  m.def("run_scene", run, nb::arg("scene"), nb::arg("out_dir"), nb::arg("progress") = nb::none(), doc);
  m.def(
      "run_scene",
      [run](const std::string& path, const std::string& out_dir, nb::handle progress) {
        return run(parse_scene(path), out_dir, progress);
      },
      nb::arg("scene"), nb::arg("out_dir"), nb::arg("progress") = nb::none(), doc);
}

}  // namespace softik::python
