// Runs a scene with `dynamics:` (and `contact:`): the DynamicSolver's steps over the duration,
// one CSV row per step (time, energies, pressures, probes, contact forces, iterations) and a .vtu
// (displacement, velocity, von Mises) every outputs.every steps, collected in the .pvd.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "host/scene/run/scene_run_common.hpp"
#include "softik/error.hpp"

namespace softik {

/// The cable's tension over time: force x over_time (the constant force without a table).
TimeFunction scene_cable_tension(const SceneCable& c) {
  TimeFunction f = c.over_time;
  if (f.times.empty()) {
    f.times = {0};
    f.values = {1};
  }
  for (Real& v : f.values) v *= c.force;
  return f;
}

DynamicLoads scene_dynamic_loads(const Scene& scene, const BuiltScene& built) {
  DynamicLoads loads;
  if (!built.gravity.empty()) loads.nodal.push_back({built.gravity, scene.gravity.over_time});
  if (!built.loads.nodal.empty()) {  // the forces: the nodal loads without gravity, constant in time
    std::vector<Real> forces = built.loads.nodal;
    bool any = false;
    for (size_t k = 0; k < forces.size(); ++k) {
      if (!built.gravity.empty()) forces[k] -= built.gravity[k];
      any = any || forces[k] != 0;
    }
    if (any) loads.nodal.push_back({forces, {}});
  }
  loads.pressures = built.loads.pressures;
  for (const ScenePressure& p : scene.pressures) loads.pressure_factors.push_back(p.over_time);
  for (size_t k = 0; k < scene.cables.size(); ++k)
    loads.actuators.push_back({built.cables[k], scene_cable_tension(scene.cables[k])});
  loads.supports = built.supports;
  return loads;
}

void scene_dynamic_control(const Scene& scene, const BuiltScene& built, DynamicSolver& dyn) {
  const SceneInverse& inv = scene.inverse;
  if (!inv.enabled) return;
  dyn.control_options().method = inv.options.method;
  dyn.control_options().epsilon = inv.options.epsilon;
  for (const auto& a : built.actuators) dyn.add_control(a);
  for (const auto& e : built.effectors) dyn.add_control(e);
  for (size_t i = 0; i < built.effectors.size(); ++i)
    scene_detail::set_effector_goal(inv.effectors[i], *built.effectors[i], 0);
}

DynamicsOptions scene_dynamics_options(const Scene& scene, const BuiltScene& built) {
  DynamicsOptions o = scene.dynamics.options;
  o.pressure_stiffness = scene.solver.newton.pressure_stiffness;
  if (scene.contact.enabled) o.contact = scene_detail::scene_contact_options(scene, built);
  return o;
}

}  // namespace softik

namespace softik::scene_detail {

namespace {

/// The length the cable reported at its last accept().
Real cable_length(const Constraint& cable) {
  for (const auto& [name, value] : cable.outputs())
    if (name == "cable_length") return value;
  return 0;
}

struct DynamicRecorder : RunRecorder {
  const std::vector<std::shared_ptr<Constraint>>& control;  ///< the controlled constraints (empty: none)

  void open() {
    open_outputs();
    csv << "step,time,kinetic_energy,elastic_energy";
    for (const PressureLoad& p : built.loads.pressures) csv << ",p_" << p.name << ",volume_" << p.name;
    for (const BuiltProbe& p : built.probes) csv << ",ux_" << p.name << ",uy_" << p.name << ",uz_" << p.name;
    for (const SceneCable& c : scene.cables) csv << ",T_" << c.name << ",length_" << c.name;
    write_reaction_header(csv, scene, built);
    csv << ",contacts,active_contacts,normal_force,contact_fx,contact_fy,contact_fz,max_penetration,"
           "contact_iterations,contact_residual";
    // Control (inverse: with dynamics:): the constraints' outputs and the step's solve.
    for (const auto& c : control)
      for (const auto& [key, value] : c->outputs()) csv << "," << c->name() << "_" << key;
    if (scene.inverse.enabled) csv << ",goal,control_status,control_iterations,effector_error_predicted";
    csv << ",newton_iterations,substeps";
    end_header();
  }

  void record(const DynamicStepReport& r, const DynamicSolver& dyn, int goal, bool vtu_due) {
    const std::vector<Real>& x = dyn.positions();
    csv << r.step << "," << r.time << "," << r.kinetic_energy << "," << r.elastic_energy;
    std::vector<Real> pressures(built.loads.pressures.size(), 0.0);
    for (size_t p = 0; p < pressures.size() && p < r.pressures.size(); ++p) pressures[p] = r.pressures[p];
    write_pressure_columns(csv, built, pressures, x, volume0, result);
    write_probe_columns(csv, built, x, result);
    for (size_t k = 0; k < scene.cables.size(); ++k) {
      const Real T = softik::scene_cable_tension(scene.cables[k])(r.time);
      built.cables[k]->accept(built.mesh, x, &T);
      csv << "," << T << "," << cable_length(*built.cables[k]);
    }
    if (scene.outputs.reactions) write_reaction_columns(csv, scene, built, x, dyn.reactions(), result);
    csv << "," << r.contacts << "," << r.active_contacts << "," << r.normal_force << "," << r.contact_force.x() << ","
        << r.contact_force.y() << "," << r.contact_force.z() << "," << r.max_penetration << ","
        << r.contact_solve.iterations << "," << r.contact_solve.residual;
    for (const auto& c : control)
      for (const auto& [key, value] : c->outputs()) csv << "," << value;
    if (scene.inverse.enabled)
      csv << "," << goal << "," << (r.step > 0 ? qp_status_name(r.control.status) : "rest") << ","
          << r.control.solver_iterations << "," << r.control.effector_error;
    csv << "," << r.iterations << "," << r.substeps << "," << since(t0) << "\n";
    csv.end_row("step " + std::to_string(r.step));
    if (scene.outputs.vtu && vtu_due) save_state(r.step, r.time, x, "velocity", dyn.velocities());
  }
};

}  // namespace

ContactOptions scene_contact_options(const Scene& scene, const BuiltScene& built) {
  ContactOptions o = scene.contact.options;
  o.obstacles = built.obstacles;
  o.nodes = built.contact_nodes;
  return o;
}

namespace {

/// The solver's warnings (at its construction) into the result, and to options.warnings.
void take_solver_warnings(const DynamicSolver& dyn, const SceneRunOptions& options, SceneRunResult& result) {
  for (const std::string& w : dyn.warnings()) {
    result.warnings.push_back(w);
    if (options.warnings) *options.warnings << "softik: warning: " << w << "\n";
  }
}

/// Control: the inverse problem's actuators and effectors solved in every step (dynamics.hpp),
/// the effectors at their first goal, and the control's summary header.
void add_dynamic_control(const Scene& scene, const BuiltScene& built, size_t goals, DynamicSolver& dyn,
                         InverseRunSummary& control) {
  const SceneInverse& inv = scene.inverse;
  softik::scene_dynamic_control(scene, built, dyn);
  control.enabled = true;
  control.mode = "dynamic";
  control.method = inv.options.method == InverseMethod::QP ? "qp" : "gauss_seidel";
  control.goals = static_cast<int>(goals);
  control.effectors = effector_summaries(inv, built);
}

/// The row of the initial state (step 0): its energies and the pressures at t = 0.
DynamicStepReport initial_report(const Scene& scene, const BuiltScene& built, const DynamicSolver& dyn) {
  DynamicStepReport start;
  start.kinetic_energy = dyn.kinetic_energy();
  start.elastic_energy = dyn.elastic_energy();
  start.substeps = 0;
  for (size_t p = 0; p < built.loads.pressures.size(); ++p)
    start.pressures.push_back(built.loads.pressures[p].pressure * scene.pressures[p].over_time(0.0));
  return start;
}

/// The control's counts after a step; a goal is judged at the end of its window (the last goal at
/// the end of the run).
void count_control_step(const SceneInverse& inv, const BuiltScene& built, const DynamicStepReport& r, int step,
                        size_t goal, size_t goals, bool last, InverseRunSummary& control) {
  ++control.steps;
  if (r.control.status != QpStatus::Optimal) ++control.not_optimal;
  if (!r.control.message.empty()) control.last_message = r.control.message;
  const bool window_ends = goal + 1 < goals ? step % inv.steps_per_target == 0 : last;
  if (window_ends) record_goal(built.effectors, control);
}

/// The step's figures added to the run's summary (the times averaged per step at the end).
void add_step_to_summary(const DynamicStepReport& r, DynamicRunSummary& s) {
  s.steps = r.step;
  s.time = r.time;
  s.cut_steps += r.substeps > 1 ? 1 : 0;
  s.newton_iterations += r.iterations;
  s.factorizations += r.factorizations;
  s.kinetic_energy = r.kinetic_energy;
  s.elastic_energy = r.elastic_energy;
  s.max_contacts = std::max(s.max_contacts, r.contacts);
  s.max_penetration = std::max(s.max_penetration, r.max_penetration);
  if (r.contacts > 0 && !r.contact_solve.converged) ++s.unconverged_contact_solves;
  s.last_contact_residual = r.contact_solve.residual;
  s.normal_force = r.normal_force;
  s.t_step += r.seconds_total;
  s.t_detection += r.seconds_detection;
  s.t_compliance += r.seconds_compliance;
  s.t_contact_solve += r.seconds_contact_solve;
}

/// The progress callback after a step: its time, Newton iterations and contacts.
void report_step_progress(const SceneRunOptions& options, const DynamicStepReport& r, int step, int steps,
                          Clock::time_point loop_start) {
  std::ostringstream label;
  label << "t = " << std::setprecision(6) << r.time << ", " << r.iterations << " Newton iterations";
  if (r.contacts > 0) label << ", " << r.active_contacts << " contacts";
  report_progress(options, "time step", step, steps, loop_start, label.str());
}

/// The progress line of a step written out (time, iterations, contacts, energies, elapsed time);
/// the stream's flags are restored after it.
void print_step_line(std::ostream& out, const DynamicStepReport& r, int step, int steps, Clock::time_point t0) {
  const std::ios::fmtflags flags = out.flags();
  out << "softik: step " << step << "/" << steps << "  t = " << std::setprecision(6) << r.time << "  Newton iterations "
      << r.iterations << "  contacts " << r.active_contacts << "/" << r.contacts << "  kinetic " << std::scientific
      << std::setprecision(3) << r.kinetic_energy << "  elastic " << r.elastic_energy << "  elapsed " << std::fixed
      << std::setprecision(2) << since(t0) << " s\n";
  out.flags(flags);
  out.flush();
}

/// The run's end: the controlled actuators' and sensors' outputs, the times per step, and the
/// result's step counts.
void finish_dynamic_run(const SceneInverse& inv, const DynamicSolver& dyn, SceneRunResult& result) {
  DynamicRunSummary& s = result.dynamics;
  if (inv.enabled)
    for (const auto& c : dyn.control_constraints())
      if (c->role() != ConstraintRole::Effector)
        result.inverse.actuators.push_back({c->name(), c->role() == ConstraintRole::Sensor, c->outputs()});
  if (s.steps > 0) {
    s.t_step /= s.steps;
    s.t_detection /= s.steps;
    s.t_compliance /= s.steps;
    s.t_contact_solve /= s.steps;
  }
  result.load_steps = s.steps;
  result.newton_iterations = s.newton_iterations;
  result.step_cuts = s.cut_steps;
}

}  // namespace

void run_dynamics(const Scene& scene, BuiltScene& built, const SceneRunOptions& options, Clock::time_point t0,
                  SceneRunResult& result) {
  std::unique_ptr<LinearSolver> solver = make_linear_solver(built.linear_solver);
  DynamicSolver dyn(*built.assembler, *solver, softik::scene_dynamic_loads(scene, built),
                    softik::scene_dynamics_options(scene, built));
  take_solver_warnings(dyn, options, result);
  DynamicRunSummary& s = result.dynamics;
  s.enabled = true;
  s.scheme = time_scheme_name(scene.dynamics.options.scheme);
  const SceneInverse& inv = scene.inverse;
  InverseRunSummary& control = result.inverse;
  const size_t goals = inv.enabled ? inverse_goals(inv) : 0;
  if (inv.enabled) add_dynamic_control(scene, built, goals, dyn, control);
  DynamicRecorder recorder{{scene, built, options, t0, result}, dyn.control_constraints()};
  recorder.open();
  recorder.record(initial_report(scene, built, dyn), dyn, 0, true);
  const int every = scene.outputs.every;
  const Clock::time_point loop_start = Clock::now();
  for (int step = 1; step <= scene.dynamics.steps; ++step) {
    // The goal of this step: steps_per_target time steps per goal, the last one held.
    const size_t goal = goals > 0 ? std::min(static_cast<size_t>((step - 1) / inv.steps_per_target), goals - 1) : 0;
    for (size_t i = 0; i < built.effectors.size(); ++i) set_effector_goal(inv.effectors[i], *built.effectors[i], goal);
    const DynamicStepReport r = dyn.step();
    const bool last = step == scene.dynamics.steps;
    recorder.record(r, dyn, static_cast<int>(goal), last || step % every == 0);
    if (inv.enabled) count_control_step(inv, built, r, step, goal, goals, last, control);
    add_step_to_summary(r, s);
    if (options.on_progress) report_step_progress(options, r, step, scene.dynamics.steps, loop_start);
    if (options.progress && (last || step % every == 0))
      print_step_line(*options.progress, r, step, scene.dynamics.steps, t0);
  }
  finish_dynamic_run(inv, dyn, result);
}

void write_dynamic_summary(const SceneRunResult& r, std::ostream& out) {
  const DynamicRunSummary& s = r.dynamics;
  const std::ios::fmtflags flags = out.flags();
  out << std::setprecision(6);
  out << "softik: " << r.name << ": dynamics (" << s.scheme << "): " << s.steps << " steps to t = " << s.time << ", "
      << s.newton_iterations << " Newton iterations, " << s.factorizations << " factorisations, " << s.cut_steps
      << " cut steps, " << std::fixed << std::setprecision(2) << r.seconds << " s; " << r.num_cells << " cells, "
      << r.num_dofs << " DOFs (" << r.num_free_dofs << " free)\n";
  out.unsetf(std::ios::floatfield);
  out << std::setprecision(6) << "  energy at the end: kinetic " << s.kinetic_energy << ", elastic " << s.elastic_energy
      << "\n";
  if (s.max_contacts > 0 || s.unconverged_contact_solves > 0)
    out << "  contact: up to " << s.max_contacts << " contacts, normal force at the end " << s.normal_force
        << ", largest penetration " << s.max_penetration << ", " << s.unconverged_contact_solves
        << " unconverged contact solves\n";
  out << std::fixed << std::setprecision(3) << "  mean time per step (ms): " << 1e3 * s.t_step << " (detection "
      << 1e3 * s.t_detection << ", compliance " << 1e3 * s.t_compliance << ", contact solve " << 1e3 * s.t_contact_solve
      << ")\n";
  out.flags(flags);
  for (const PressureSummary& p : r.pressures)
    out << "  pressure " << p.name << ": p = " << p.pressure << ", volume " << p.volume << "\n";
  if (r.inverse.enabled) {
    out << "  control (" << r.inverse.method << ", one constraint-space solve per time step): " << r.inverse.goals
        << (r.inverse.goals == 1 ? " goal\n" : " goals\n");
    write_control_lines(r.inverse, out);
  }
}

}  // namespace softik::scene_detail
