// softik.InverseSolver: the inverse problem of a scene with `inverse:` (its actuators, effectors and
// options, as `softik run` sets them up) stepped from Python: goals set from NumPy, step() (one
// real-time step) or solve() (converged), the actuation and every constraint's outputs, and run(),
// the scene's own goal sequence with the rows of the CLI's CSV.
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <softik/error.hpp>

#include "bindings.hpp"
#include "effectors.hpp"

namespace softik::python {

namespace {

/// The inverse solver and the Model whose state it steps.
struct PyInverse : ModelStepper {
  std::unique_ptr<InverseSolver> inverse;
};

PyInverse make_inverse(nb::pointer_and_handle<Model> ref, std::optional<std::string> method,
                       std::optional<Real> epsilon, std::optional<int> reuse_factorization,
                       std::optional<bool> actuator_stiffness, std::optional<int> max_iterations) {
  Model& m = *ref.p;
  ModelCall call(m, "Model.inverse_solver");
  const SceneInverse& inv = m.scene.inverse;
  SOFTIK_CHECK(inv.enabled, "the scene '"
                                << m.scene.name << "' has no inverse: section; its actuators and "
                                << "effectors define the inverse problem (docs/scene-format.md, \"inverse\")");
  SOFTIK_CHECK_KIND(m.built.assembler, ErrorKind::Unsupported,
                    "Model.inverse_solver: the scene '" << m.scene.name
                                                        << "' is a node network read from a file "
                                                           "(mesh.network), which has no FEM model to invert");
  SOFTIK_CHECK(!m.has_inverse,
               "this Model already has an InverseSolver, which owns its actuators' and effectors' "
               "state; build another softik.Model for a second one");
  InverseOptions io = inv.options;  // as the scene runner uses them
  if (method) {
    SOFTIK_CHECK(*method == "qp" || *method == "gauss_seidel",
                 "method must be 'qp' or 'gauss_seidel', got '" << *method << "'");
    io.method = *method == "qp" ? InverseMethod::QP : InverseMethod::GaussSeidel;
  }
  if (epsilon) {
    SOFTIK_CHECK(std::isfinite(*epsilon) && *epsilon >= 0, "epsilon must be >= 0, got " << *epsilon);
    io.epsilon = *epsilon;
  }
  if (reuse_factorization) {
    SOFTIK_CHECK(*reuse_factorization >= 0, "reuse_factorization must be >= 0, got " << *reuse_factorization);
    io.reuse_factorization = *reuse_factorization;
  }
  if (actuator_stiffness) io.actuator_stiffness = *actuator_stiffness;
  if (max_iterations) {
    SOFTIK_CHECK(*max_iterations > 0, "max_iterations must be > 0, got " << *max_iterations);
    io.max_iterations = *max_iterations;
  }
  PyInverse p;
  p.attach(ref);
  p.inverse = std::make_unique<InverseSolver>(*m.built.assembler, *p.solver, m.built.loads, io);
  for (const auto& a : m.built.actuators) p.inverse->add(a);
  for (const auto& e : m.built.effectors) p.inverse->add(e);
  m.has_inverse = true;
  return p;
}

void set_max_shift(PyInverse& p, const std::string& name, Real max_shift) {
  const size_t i = effector_index(p, name);
  SOFTIK_CHECK(is_position(p, i), "effector '" << name << "' is a volume effector; max_shift moves position goals");
  SOFTIK_CHECK(std::isfinite(max_shift) && max_shift >= 0, "max_shift must be >= 0 (0: no limit), got " << max_shift);
  static_cast<PositionEffector&>(*p.model->built.effectors[i]).set_max_shift(max_shift);
}

int num_goals(const PyInverse& p) {
  size_t goals = 1;
  for (const SceneEffector& e : p.model->scene.inverse.effectors)
    goals = std::max(goals, e.type == SceneEffector::Type::Position ? e.goals.size() : e.volumes.size());
  return static_cast<int>(goals);
}

/// Every effector to goal g of its sequence in the scene (its last one past its end), as `softik run`.
void use_scene_goal(PyInverse& p, int g) {
  SOFTIK_CHECK(g >= 0 && g < num_goals(p), "goal index " << g << " is outside the scene's 0.." << num_goals(p) - 1);
  const SceneInverse& inv = p.model->scene.inverse;
  for (size_t i = 0; i < inv.effectors.size(); ++i) {
    const SceneEffector& e = inv.effectors[i];
    Constraint& c = *p.model->built.effectors[i];
    if (e.type == SceneEffector::Type::Position)
      static_cast<PositionEffector&>(c).set_goal(e.goals[std::min(static_cast<size_t>(g), e.goals.size() - 1)]);
    else
      static_cast<VolumeEffector&>(c).set_target(e.volumes[std::min(static_cast<size_t>(g), e.volumes.size() - 1)]);
  }
}

InverseStepReport step(PyInverse& p) {
  std::vector<Real> x = p.model->x;  // the solver may move its buffer; the Model's stays put
  InverseStepReport r;
  {
    nb::gil_scoped_release release;
    r = p.inverse->step(x);
  }
  std::copy(x.begin(), x.end(), p.model->x.begin());
  return r;
}

InverseSolveReport solve(PyInverse& p) {
  std::vector<Real> x = p.model->x;
  InverseSolveReport r;
  {
    nb::gil_scoped_release release;
    r = p.inverse->solve(x);
  }
  std::copy(x.begin(), x.end(), p.model->x.begin());
  return r;
}

nb::dict outputs_of(const PyInverse& p, bool effectors) {
  nb::dict d;
  for (const auto& c : p.inverse->constraints()) {
    if ((c->role() == ConstraintRole::Effector) != effectors) continue;
    nb::dict o;
    for (const auto& [key, value] : c->outputs()) o[key.c_str()] = value;
    d[c->name().c_str()] = o;
  }
  return d;
}

Real effector_error(const Constraint& c) {
  for (const auto& [key, value] : c.outputs())
    if (key == "error") return std::abs(value);
  return 0;
}

/// One row of run()'s table: the CLI's inverse CSV columns without the times.
void record(const PyInverse& p, Table& t, int step, int goal, const std::string& status, int solver_iterations,
            Real kkt, Real residual, int iterations) {
  t.add("step", step);
  t.add("goal", goal);
  for (const auto& c : p.inverse->constraints())
    for (const auto& [key, value] : c->outputs()) t.add(c->name() + "_" + key, value);
  for (const BuiltProbe& probe : p.model->built.probes) {
    const std::array<Real, 3> u = probe_displacement(p.model->built.mesh, probe, p.model->x);
    t.add("ux_" + probe.name, u[0]);
    t.add("uy_" + probe.name, u[1]);
    t.add("uz_" + probe.name, u[2]);
  }
  t.add("status", status);
  t.add("solver_iterations", solver_iterations);
  t.add("kkt_residual", kkt);
  t.add("equilibrium_residual", residual);
  t.add("iterations", iterations);
}

/// The scene's goal sequence as `softik run` visits it: steps_per_target real-time steps per goal,
/// or one converged solve per goal.
nb::dict run(PyInverse& p) {
  const SceneInverse& inv = p.model->scene.inverse;
  const bool realtime = inv.mode == SceneInverse::Mode::RealTime;
  Table t;
  use_scene_goal(p, 0);
  record(p, t, 0, 0, "rest", 0, 0, 0, 0);
  int steps = 0;
  for (int g = 0; g < num_goals(p); ++g) {
    use_scene_goal(p, g);
    for (int s = 0; s < (realtime ? inv.steps_per_target : 1); ++s) {
      if (realtime) {
        const InverseStepReport r = step(p);
        record(p, t, ++steps, g, qp_status_name(r.status), r.solver_iterations, r.kkt_residual, r.relative_residual(),
               1);
      } else {
        const InverseSolveReport r = solve(p);
        int solver_iterations = 0;
        for (const InverseStepReport& sr : r.steps) solver_iterations += sr.solver_iterations;
        const InverseStepReport last = r.steps.empty() ? InverseStepReport{} : r.steps.back();
        record(p, t, ++steps, g, r.steps.empty() ? "rest" : qp_status_name(last.status), solver_iterations,
               last.kkt_residual, last.relative_residual(), static_cast<int>(r.steps.size()));
      }
    }
  }
  return t.to_dict();
}

void bind_reports(nb::module_& m) {
  nb::class_<InverseStepReport>(m, "InverseStepReport", "What one inverse step did (include/softik/inverse.hpp).")
      .def_prop_ro(
          "status", [](const InverseStepReport& r) { return std::string(qp_status_name(r.status)); },
          "of the constraint-space solve: 'optimal', 'infeasible', ...")
      .def_ro("solver_iterations", &InverseStepReport::solver_iterations)
      .def_ro("kkt_residual", &InverseStepReport::kkt_residual)
      .def_ro("message", &InverseStepReport::message, "what went wrong or needs attention ('' when nothing)")
      .def_ro("equilibrium_residual", &InverseStepReport::equilibrium_residual)
      .def_ro("force_scale", &InverseStepReport::force_scale)
      .def_prop_ro("relative_residual", &InverseStepReport::relative_residual)
      .def_prop_ro(
          "actuation", [](const InverseStepReport& r) { return take(std::vector<Real>(r.lambda)); },
          "(actuator rows,) lambda after the step: Pa for a cavity, N for a cable or force")
      .def_prop_ro(
          "actuator_delta", [](const InverseStepReport& r) { return take(std::vector<Real>(r.actuator_delta)); },
          "(actuator rows,) linearised actuator displacements after the step")
      .def_ro("effector_error", &InverseStepReport::effector_error, "|delta_e| predicted by the linearisation")
      .def_prop_ro(
          "W",
          [](const InverseStepReport& r) {
            const size_t m = static_cast<size_t>(std::lround(std::sqrt(static_cast<double>(r.W.size()))));
            return take(std::vector<Real>(r.W), m, m);
          },
          "(rows, rows) the constraint-space compliance J K^-1 J^T of the step")
      .def_ro("half_solves", &InverseStepReport::half_solves)
      .def_ro("refactored", &InverseStepReport::refactored)
      .def_ro("continuation", &InverseStepReport::continuation)
      .def_prop_ro("seconds", &phase_seconds<InverseStepReport>,
                   "{phase: seconds}: assembly, factorization, solves, constraint_solve, update")
      .def("__repr__", [](const InverseStepReport& r) {
        return std::string("<softik.InverseStepReport ") + qp_status_name(r.status) + ", effector error " +
               std::to_string(r.effector_error) + ">";
      });

  nb::class_<InverseSolveReport>(m, "InverseSolveReport", "What a converged inverse solve did.")
      .def_ro("converged", &InverseSolveReport::converged)
      .def_ro("iterations", &InverseSolveReport::iterations)
      .def_ro("increments", &InverseSolveReport::increments)
      .def_ro("cuts", &InverseSolveReport::cuts)
      .def_ro("message", &InverseSolveReport::message, "why it did not converge ('' when it did)")
      .def_ro("steps", &InverseSolveReport::steps, "the InverseStepReport of every step");
}

}  // namespace

void bind_inverse(nb::module_& m) {
  bind_reports(m);
  nb::class_<PyInverse>(m, "InverseSolver",
                        "The inverse problem of a Model's scene (Model.inverse_solver()): steps update the Model's "
                        "positions; goals come from the scene until set_goal changes them.")
      .def_prop_ro(
          "mode",
          [](const PyInverse& p) {
            return std::string(p.model->scene.inverse.mode == SceneInverse::Mode::RealTime ? "realtime" : "converged");
          })
      .def_prop_ro("steps_per_target", [](const PyInverse& p) { return p.model->scene.inverse.steps_per_target; })
      .def_prop_ro("num_goals", &num_goals, "the length of the scene's goal sequence")
      .def_prop_ro("actuator_names",
                   [](const PyInverse& p) {
                     std::vector<std::string> names;
                     for (const auto& c : p.model->built.actuators) names.push_back(c->name());
                     return names;
                   })
      .def_prop_ro("effector_names",
                   [](const PyInverse& p) {
                     std::vector<std::string> names;
                     for (const auto& c : p.model->built.effectors) names.push_back(c->name());
                     return names;
                   })
      .def("set_goal", guarded("InverseSolver.set_goal", &set_goal<PyInverse>), nb::arg("effector"), nb::arg("goal"),
           "A position effector's goal ((3,) array, the scene's units) or a volume effector's target volume.")
      .def("goal", guarded("InverseSolver.goal", &goal<PyInverse>), nb::arg("effector"))
      .def("effector_position", guarded("InverseSolver.effector_position", &effector_position<PyInverse>),
           nb::arg("effector"), "(3,) where a position effector's point is at the Model's current positions")
      .def("set_max_shift", guarded("InverseSolver.set_max_shift", &set_max_shift), nb::arg("effector"),
           nb::arg("max_shift"), "The most a step moves the goal it sees from the point toward the goal (0: no limit)")
      .def("use_scene_goal", guarded("InverseSolver.use_scene_goal", &use_scene_goal), nb::arg("index"),
           "Every effector to goal `index` of its sequence in the scene (its last goal past its end).")
      .def("step", guarded("InverseSolver.step", &step),
           "One real-time step (InverseSolver::step) from the Model's positions.")
      .def("solve", guarded("InverseSolver.solve", &solve),
           "Steps until converged (InverseSolver::solve) from the Model's positions.")
      .def("run", guarded("InverseSolver.run", &run),
           "The scene's goal sequence as `softik run` visits it; returns the CLI CSV's columns (without times) "
           "as {column: array}, the rest row first.")
      .def_prop_ro("actuation",
                   guarded(
                       "InverseSolver.actuation",
                       +[](const PyInverse& p) { return take(std::vector<Real>(p.inverse->lambda())); }),
                   "(actuator rows,) the current lambda, in the order of actuator_names")
      .def_prop_ro("actuators",
                   guarded(
                       "InverseSolver.actuators", +[](const PyInverse& p) { return outputs_of(p, false); }),
                   "{actuator or sensor: {output: value}} at the last accepted state")
      .def_prop_ro("effectors",
                   guarded(
                       "InverseSolver.effectors", +[](const PyInverse& p) { return outputs_of(p, true); }),
                   "{effector: {output: value}}: position or volume, goal, error")
      .def_prop_ro("effector_errors",
                   guarded(
                       "InverseSolver.effector_errors",
                       +[](const PyInverse& p) {
                         nb::dict d;
                         for (const auto& c : p.model->built.effectors) d[c->name().c_str()] = effector_error(*c);
                         return d;
                       }),
                   "{effector: |error|} at the last accepted state (distance over its axes, or |V - target|)")
      .def_prop_ro("effector_tolerances", [](const PyInverse& p) {
        nb::dict d;
        for (size_t i = 0; i < p.model->built.effectors.size(); ++i)
          d[p.model->built.effectors[i]->name().c_str()] = p.model->built.effector_tolerances[i];
        return d;
      });

  nb::class_<Model> model = nb::borrow<nb::class_<Model>>(m.attr("Model"));
  model.def("inverse_solver", &make_inverse, nb::arg("method") = nb::none(), nb::arg("epsilon") = nb::none(),
            nb::arg("reuse_factorization") = nb::none(), nb::arg("actuator_stiffness") = nb::none(),
            nb::arg("max_iterations") = nb::none(),
            "The scene's inverse problem as an InverseSolver on this Model (one per Model); arguments override "
            "the scene's inverse: options.");
}

}  // namespace softik::python
