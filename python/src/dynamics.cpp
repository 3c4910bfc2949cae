// softik.DynamicSimulation: the time integration of a scene with `dynamics:` (its loads over time,
// cables, obstacles and contact, set up as `softik run` does), stepped from Python; every step
// updates the Model's positions and the simulation's velocities.
#include <algorithm>
#include <cmath>
#include <utility>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <softik/error.hpp>

#include "bindings.hpp"
#include "effectors.hpp"

namespace softik::python {

namespace {

struct PySimulation : ModelStepper {
  std::unique_ptr<DynamicSolver> dynamics;
  std::vector<Real> v;  ///< the velocities; never reallocated (views of it stay valid)
};

PySimulation make_simulation(nb::pointer_and_handle<Model> ref) {
  Model& m = *ref.p;
  ModelCall call(m, "Model.dynamic_simulation");
  SOFTIK_CHECK(m.scene.dynamics.enabled, "the scene '" << m.scene.name << "' has no dynamics: section "
                                                       << "(docs/scene-format.md, \"dynamics\")");
  SOFTIK_CHECK_KIND(m.built.assembler, ErrorKind::Unsupported,
                    "Model.dynamic_simulation: the scene '"
                        << m.scene.name
                        << "' is a node network read from a file "
                           "(mesh.network), which has no FEM model; its explicit: run "
                           "is softik.run_scene's (or `softik run`'s)");
  SOFTIK_CHECK(!m.has_dynamics,
               "this Model already has a DynamicSimulation, which owns its cables' state; build "
               "another softik.Model for a second one");
  PySimulation s;
  s.attach(ref);
  s.dynamics = std::make_unique<DynamicSolver>(*m.built.assembler, *s.solver, scene_dynamic_loads(m.scene, m.built),
                                               scene_dynamics_options(m.scene, m.built));
  scene_dynamic_control(m.scene, m.built, *s.dynamics);  // inverse: with dynamics: the control loop
  const std::vector<Real> X = m.built.mesh.rest_positions();
  std::copy(X.begin(), X.end(), m.x.begin());  // a dynamic run starts at rest
  s.v = s.dynamics->velocities();
  m.has_dynamics = true;
  return s;
}

/// The cables' tensions at time t and their lengths at the current state (accept() updates them).
void accept_cables(PySimulation& s, Real t) {
  const Model& m = *s.model;
  for (size_t k = 0; k < m.scene.cables.size(); ++k) {
    const Real T = scene_cable_tension(m.scene.cables[k])(t);
    m.built.cables[k]->accept(m.built.mesh, m.x, &T);
  }
}

/// One row of the history: the CLI's dynamic CSV columns without the times and contact solver.
void record(PySimulation& s, Table& t, const DynamicStepReport& r) {
  const Model& m = *s.model;
  t.add("step", r.step);
  t.add("time", r.time);
  t.add("kinetic_energy", r.kinetic_energy);
  t.add("elastic_energy", r.elastic_energy);
  for (size_t p = 0; p < m.built.loads.pressures.size(); ++p) {
    const PressureLoad& load = m.built.loads.pressures[p];
    t.add("p_" + load.name, p < r.pressures.size() ? r.pressures[p] : 0.0);
    t.add("volume_" + load.name, load.closed ? surface_volume(load, m.built.mesh, m.x) : 0.0);
  }
  for (const BuiltProbe& probe : m.built.probes) {
    const std::array<Real, 3> u = probe_displacement(m.built.mesh, probe, m.x);
    t.add("ux_" + probe.name, u[0]);
    t.add("uy_" + probe.name, u[1]);
    t.add("uz_" + probe.name, u[2]);
  }
  accept_cables(s, r.time);
  for (size_t k = 0; k < m.scene.cables.size(); ++k) {
    t.add("T_" + m.scene.cables[k].name, scene_cable_tension(m.scene.cables[k])(r.time));
    for (const auto& [key, value] : m.built.cables[k]->outputs())
      if (key == "cable_length") t.add("length_" + m.scene.cables[k].name, value);
  }
  t.add("contacts", r.contacts);
  t.add("active_contacts", r.active_contacts);
  t.add("normal_force", r.normal_force);
  t.add("max_penetration", r.max_penetration);
  t.add("newton_iterations", r.iterations);
  t.add("substeps", r.substeps);
}

DynamicStepReport step(PySimulation& s) {
  DynamicStepReport r;
  {
    nb::gil_scoped_release release;
    r = s.dynamics->step();
  }
  const std::vector<Real>& x = s.dynamics->positions();
  std::copy(x.begin(), x.end(), s.model->x.begin());
  const std::vector<Real>& v = s.dynamics->velocities();
  std::copy(v.begin(), v.end(), s.v.begin());
  return r;
}

/// The report of a step: its counts, energies and contact figures, and with control (inverse:)
/// the inputs solved (`actuation`, per actuator row), the solve's status and the effectors' error
/// predicted by the linearisation.
nb::dict report_dict(const PySimulation& s, const DynamicStepReport& r) {
  nb::dict d =
      dict_of("step", r.step, "time", r.time, "iterations", r.iterations, "residual", r.residual, "substeps",
              r.substeps, "kinetic_energy", r.kinetic_energy, "elastic_energy", r.elastic_energy, "contacts",
              r.contacts, "active_contacts", r.active_contacts, "normal_force", r.normal_force, "contact_force",
              take(std::vector<Real>{r.contact_force.x(), r.contact_force.y(), r.contact_force.z()}), "max_penetration",
              r.max_penetration, "pressures", take(std::vector<Real>(r.pressures)), "seconds", r.seconds_total);
  if (s.model->scene.inverse.enabled) {
    d["actuation"] = take(std::vector<Real>(s.dynamics->actuation()));
    d["control_status"] = std::string(qp_status_name(r.control.status));
    d["effector_error"] = r.control.effector_error;
  }
  return d;
}

/// `steps` time steps (< 0: the scene's remaining steps to its duration), the history of every
/// step (the start state first when the simulation is at time 0).
nb::dict run(PySimulation& s, int steps) {
  Table t;
  const Scene& scene = s.model->scene;
  const int done = static_cast<int>(std::lround(s.dynamics->time() / scene.dynamics.options.dt));
  if (steps < 0) steps = std::max(0, scene.dynamics.steps - done);
  if (done == 0) {
    DynamicStepReport start;
    start.kinetic_energy = s.dynamics->kinetic_energy();
    start.elastic_energy = s.dynamics->elastic_energy();
    start.substeps = 0;
    for (size_t p = 0; p < s.model->built.loads.pressures.size(); ++p)
      start.pressures.push_back(s.model->built.loads.pressures[p].pressure * scene.pressures[p].over_time(0.0));
    record(s, t, start);
  }
  for (int k = 0; k < steps; ++k) record(s, t, step(s));
  return t.to_dict();
}

}  // namespace

void bind_dynamics(nb::module_& m) {
  nb::class_<PySimulation>(m, "DynamicSimulation",
                           "The time integration of a Model's scene (Model.dynamic_simulation()); steps update the "
                           "Model's positions.")
      .def_prop_ro("time", guarded(
                               "DynamicSimulation.time", +[](const PySimulation& s) { return s.dynamics->time(); }))
      .def_prop_ro("dt", [](const PySimulation& s) { return s.model->scene.dynamics.options.dt; })
      .def_prop_ro(
          "num_steps", [](const PySimulation& s) { return s.model->scene.dynamics.steps; },
          "the scene's steps: ceil(duration / dt)")
      .def_prop_ro(
          "velocities",
          [](nb::pointer_and_handle<PySimulation> s) {
            return view(s.p->v.data(), s.p->model->built.mesh.num_nodes(), s.p->model->built.mesh.dim, s.h);
          },
          "(num_nodes, dim) float64, read-only view of the velocities, updated in place by every step")
      .def_prop_ro("kinetic_energy", guarded(
                                         "DynamicSimulation.kinetic_energy",
                                         +[](const PySimulation& s) { return s.dynamics->kinetic_energy(); }))
      .def_prop_ro("elastic_energy", guarded(
                                         "DynamicSimulation.elastic_energy",
                                         +[](const PySimulation& s) { return s.dynamics->elastic_energy(); }))
      .def_prop_ro("warnings",
                   guarded(
                       "DynamicSimulation.warnings", +[](const PySimulation& s) { return s.dynamics->warnings(); }))
      .def_prop_ro("contact_forces",
                   guarded(
                       "DynamicSimulation.contact_forces",
                       +[](const PySimulation& s) {
                         std::vector<Real> f = s.dynamics->contact_forces();
                         const size_t n = f.size() / 3;
                         return take(std::move(f), n, 3);
                       }),
                   "(contacts, 3) float64: lambda_n, lambda_t1, lambda_t2 of each contact of the last step (N)")
      .def("step",
           guarded(
               "DynamicSimulation.step", +[](PySimulation& s) { return report_dict(s, step(s)); }),
           "Advances one dt; returns the step's report.")
      .def("set_goal", guarded("DynamicSimulation.set_goal", &set_goal<PySimulation>), nb::arg("effector"),
           nb::arg("goal"),
           "With inverse: in the scene, the goal the control steers a position effector to from the next step "
           "((3,) array) or a volume effector's target volume, as a controller sets it per frame.")
      .def("goal", guarded("DynamicSimulation.goal", &goal<PySimulation>), nb::arg("effector"))
      .def("effector_position", guarded("DynamicSimulation.effector_position", &effector_position<PySimulation>),
           nb::arg("effector"), "(3,) where a position effector's point is now")
      .def_prop_ro("actuation",
                   guarded(
                       "DynamicSimulation.actuation",
                       +[](const PySimulation& s) {
                         nb::dict d;
                         size_t row = 0;
                         const std::vector<Real>& lambda = s.dynamics->actuation();
                         for (const auto& c : s.dynamics->control_constraints()) {
                           if (c->role() != ConstraintRole::Actuator) continue;
                           const size_t rows = static_cast<size_t>(c->num_rows());
                           d[c->name().c_str()] =
                               take(std::vector<Real>(lambda.begin() + static_cast<long>(row),
                                                      lambda.begin() + static_cast<long>(row + rows)));
                           row += rows;
                         }
                         return d;
                       }),
                   "{actuator: array of its inputs} solved by the last step (empty without inverse:)")
      .def("run", guarded("DynamicSimulation.run", &run), nb::arg("steps") = -1,
           "Advances `steps` steps (default: to the scene's duration); returns the history {column: array} with the "
           "columns of the CLI's CSV (without times and contact-solver figures), the start state first at time 0.");

  nb::class_<Model> model = nb::borrow<nb::class_<Model>>(m.attr("Model"));
  model.def("dynamic_simulation", &make_simulation,
            "The scene's time integration (dynamics:, contact:) on this Model, from rest at time 0 (one per Model).");
}

}  // namespace softik::python
