// Runs a scene's inverse problem (scene.inverse): visits the effectors' goals in order, with
// `steps_per_target` real-time steps per goal (InverseSolver::step) or one converged solve per
// goal (InverseSolver::solve), and records one CSV row per step (per goal when converged):
// actuator outputs, effector positions and errors, the constraint-space solver's status and
// iterations, and the time of each phase.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "host/contact/contact_setup.hpp"
#include "host/contact/initial_penetration.hpp"
#include "host/inverse/inverse_contact.hpp"
#include "host/scene/run/scene_run_common.hpp"
#include "softik/error.hpp"
#include "softik/mesh_io.hpp"
#include "softik/mesh_selection.hpp"

namespace softik {

namespace scene_detail {

namespace {

namespace fs = std::filesystem;

/// One recorded row: a real-time step, or a converged solve (times and iterations summed).
struct StepRecord {
  int step = 0, goal = 0;
  std::string status = "rest";
  int solver_iterations = 0, iterations = 0;
  Real kkt_residual = 0, equilibrium_residual = 0;
  Real t_assembly = 0, t_factorization = 0, t_solves = 0, t_constraint_solve = 0, t_update = 0;
  // with contact: of the last step
  int contacts = 0, pressed_contacts = 0;
  Real normal_force = 0;
  std::vector<Real> target_forces;

  void add(const InverseStepReport& r) {
    contacts = r.contacts;
    pressed_contacts = r.pressed_contacts;
    normal_force = r.normal_force;
    target_forces = r.target_forces;
    status = qp_status_name(r.status);
    solver_iterations += r.solver_iterations;
    ++iterations;
    kkt_residual = r.kkt_residual;
    equilibrium_residual = r.relative_residual();
    t_assembly += r.t_assembly;
    t_factorization += r.t_factorization;
    t_solves += r.t_solves;
    t_constraint_solve += r.t_constraint_solve;
    t_update += r.t_update;
  }

  /// The contact columns of the state the solver holds: after a converged solve that failed,
  /// of the increment it restored, not of the last step it tried.
  void take_contacts(const InverseSolver::ContactTotals& t) {
    contacts = t.contacts;
    pressed_contacts = t.pressed_contacts;
    normal_force = t.normal_force;
    target_forces = t.target_forces;
  }
};

class InverseRecorder {
 public:
  InverseRecorder(const Scene& scene, const BuiltScene& built, const SceneRunOptions& options, Clock::time_point t0,
                  const InverseSolver& inverse, SceneRunResult& result)
      : scene_(scene), built_(built), options_(options), t0_(t0), inverse_(inverse), result_(result) {
    result_.csv_path = file(".csv");
    csv_.open(result_.csv_path);
    csv_ << "step,goal";
    for (const auto& c : inverse_.constraints())
      for (const auto& [key, value] : c->outputs()) csv_ << "," << c->name() << "_" << key;
    for (const BuiltProbe& p : built_.probes) csv_ << ",ux_" << p.name << ",uy_" << p.name << ",uz_" << p.name;
    if (scene_.contact.enabled) csv_ << ",contacts,pressed_contacts,normal_force,max_penetration";
    for (const SceneForceTarget& t : scene_.inverse.force_targets) csv_ << ",force_" << t.target.name;
    csv_ << ",status,solver_iterations,kkt_residual,equilibrium_residual,iterations,t_assembly,t_factorization,"
            "t_solves,t_constraint_solve,t_update,seconds\n";
    csv_.end_row("the header");
    csv_ << std::setprecision(10);
    if (scene_.contact.enabled) {
      contact_ = scene_contact_options(scene_, built_);
      contact_nodes_ =
          contact::contact_candidate_nodes(built_.mesh, built_.assembler->free_dof_index(), contact_.nodes);
    }
    if (scene_.outputs.vtu) {
      result_.pvd_path = file(".pvd");
      pvd_ = std::make_unique<PvdWriter>(result_.pvd_path);
    }
  }

  /// With contact: nodes that start inside an obstacle at x, warned as the dynamic solver warns them.
  void warn_initial_penetration(const std::vector<Real>& x) {
    if (!scene_.contact.enabled) return;
    const std::string w = contact::initial_penetration_warning(
        detect_obstacle_contacts(contact_.obstacles, 0, contact_nodes_, x, contact_.contact_distance, 0.0),
        contact_.obstacles, 1e-9 * bounding_box_diagonal(built_.mesh), "the first inverse step pushes them out");
    if (w.empty()) return;
    result_.warnings.push_back(w);
    if (options_.warnings) *options_.warnings << "softik: warning: " << w << "\n";
  }

  void record(const StepRecord& r, const std::vector<Real>& x, bool vtu_due) {
    csv_ << r.step << "," << r.goal;
    for (const auto& c : inverse_.constraints())
      for (const auto& [key, value] : c->outputs()) csv_ << "," << value;
    for (const BuiltProbe& p : built_.probes) {
      const std::array<Real, 3> u = probe_displacement(built_.mesh, p, x);
      csv_ << "," << u[0] << "," << u[1] << "," << u[2];
    }
    if (scene_.contact.enabled) {
      // The penetration of the state written (x), not of the last step tried: a converged solve
      // that failed leaves x at its last converged increment.
      const Real penetration = inverse_detail::max_penetration(contact_, contact_nodes_, x);
      csv_ << "," << r.contacts << "," << r.pressed_contacts << "," << r.normal_force << "," << penetration;
    }
    for (size_t t = 0; t < scene_.inverse.force_targets.size(); ++t)
      csv_ << "," << (t < r.target_forces.size() ? r.target_forces[t] : 0.0);
    csv_ << "," << r.status << "," << r.solver_iterations << "," << r.kkt_residual << "," << r.equilibrium_residual
         << "," << r.iterations << "," << r.t_assembly << "," << r.t_factorization << "," << r.t_solves << ","
         << r.t_constraint_solve << "," << r.t_update << "," << since(t0_) << "\n";
    csv_.end_row("step " + std::to_string(r.step));
    if (pvd_ && vtu_due) write_vtu(r.step, x);
  }

 private:
  std::string file(const std::string& suffix) const {
    return (fs::path(options_.out_dir) / (scene_.name + suffix)).string();
  }

  /// Displacement, the actuators' nodal forces J_a^T lambda_a and the von Mises stress.
  void write_vtu(int step, const std::vector<Real>& x) {
    std::vector<Real> f_act(x.size(), 0);
    size_t a = 0;
    for (const auto& c : inverse_.constraints()) {
      if (c->role() != ConstraintRole::Actuator) continue;
      std::vector<ConstraintRow> rows;
      c->rows(built_.mesh, x, rows);
      for (const ConstraintRow& row : rows) {
        for (const auto& [dof, v] : row.J) f_act[static_cast<size_t>(dof)] += v * inverse_.lambda()[a];
        ++a;
      }
    }
    write_state_vtu(options_.out_dir, scene_, built_, step, step, x, "actuation_force", f_act, *pvd_);
    ++result_.vtu_files;
  }

  const Scene& scene_;
  const BuiltScene& built_;
  const SceneRunOptions& options_;
  Clock::time_point t0_;
  const InverseSolver& inverse_;
  SceneRunResult& result_;
  io_detail::CsvWriter csv_;
  std::unique_ptr<PvdWriter> pvd_;
  ContactOptions contact_;          ///< with contact: the obstacles, for the penetration of each state written
  std::vector<int> contact_nodes_;  ///< the nodes that may touch them
};

}  // namespace

Real effector_error(const Constraint& c) {
  for (const auto& [key, value] : c.outputs())
    if (key == "error") return std::abs(value);
  throw Error("effector '" + c.name() + "' reports no error output");
}

void set_effector_goal(const SceneEffector& e, Constraint& c, size_t goal) {
  if (e.type == SceneEffector::Type::Position)
    static_cast<PositionEffector&>(c).set_goal(e.goals[std::min(goal, e.goals.size() - 1)]);
  else
    static_cast<VolumeEffector&>(c).set_target(e.volumes[std::min(goal, e.volumes.size() - 1)]);
}

size_t inverse_goals(const SceneInverse& inv) {
  size_t goals = 1;
  for (const SceneEffector& e : inv.effectors)
    goals = std::max(goals, e.type == SceneEffector::Type::Position ? e.goals.size() : e.volumes.size());
  return goals;
}

void record_force_targets(const SceneInverse& inv, const std::vector<Real>& forces, InverseRunSummary& sum) {
  sum.force_targets.clear();
  for (size_t t = 0; t < inv.force_targets.size(); ++t) {
    const SceneForceTarget& f = inv.force_targets[t];
    sum.force_targets.push_back(
        {f.target.name, f.target.obstacle, f.target.force, t < forces.size() ? forces[t] : 0.0, f.tolerance});
  }
}

std::vector<EffectorSummary> effector_summaries(const SceneInverse& inv, const BuiltScene& built) {
  std::vector<EffectorSummary> out;
  for (size_t i = 0; i < built.effectors.size(); ++i) {
    EffectorSummary es;
    es.name = built.effectors[i]->name();
    es.unit = inv.effectors[i].type == SceneEffector::Type::Position ? "length" : "volume";
    es.tolerance = built.effector_tolerances[i];
    out.push_back(es);
  }
  return out;
}

void record_goal(const std::vector<std::shared_ptr<Constraint>>& effectors, InverseRunSummary& sum) {
  for (size_t i = 0; i < effectors.size(); ++i) {
    EffectorSummary& es = sum.effectors[i];
    es.final_error = effector_error(*effectors[i]);
    es.worst_error = std::max(es.worst_error, es.final_error);
    ++es.goals;
    if (es.final_error <= es.tolerance) ++es.reached;
  }
}

namespace {

/// The scene's actuators and effectors, its contact (when enabled) and its force targets, given to
/// the inverse solver in that order.
void add_inverse_problem(const Scene& scene, const BuiltScene& built, InverseSolver& inverse) {
  for (const auto& a : built.actuators) inverse.add(a);
  for (const auto& e : built.effectors) inverse.add(e);
  if (scene.contact.enabled) inverse.set_contact(scene_contact_options(scene, built));
  for (const SceneForceTarget& t : scene.inverse.force_targets) inverse.add_contact_force_target(t.target);
}

/// The summary's header: mode, method, the number of goals and an empty line per effector.
void start_summary(const SceneInverse& inv, const BuiltScene& built, bool realtime, size_t goals,
                   InverseRunSummary& sum) {
  sum.enabled = true;
  sum.mode = realtime ? "realtime" : "converged";
  sum.method = inv.options.method == InverseMethod::QP ? "qp" : "gauss_seidel";
  sum.goals = static_cast<int>(goals);
  sum.effectors = effector_summaries(inv, built);
}

/// One recorded row: a real-time step, or a converged solve (its steps summed into `rec`), with
/// the summary's counts of answers that were not optimal or did not converge and its last message.
void solve_row(InverseSolver& inverse, bool realtime, std::vector<Real>& x, StepRecord& rec, InverseRunSummary& sum) {
  if (realtime) {
    const InverseStepReport r = inverse.step(x);
    rec.add(r);
    if (r.status != QpStatus::Optimal) ++sum.not_optimal;
    if (!r.message.empty()) sum.last_message = r.message;
    return;
  }
  const InverseSolveReport r = inverse.solve(x);
  for (const InverseStepReport& sr : r.steps) {
    rec.add(sr);
    if (!sr.message.empty()) sum.last_message = sr.message;
  }
  // The answer is the last step's; steps of undone increments may be infeasible on the way.
  if (!r.steps.empty() && r.steps.back().status != QpStatus::Optimal) ++sum.not_optimal;
  if (!r.converged) {
    ++sum.unconverged;
    sum.last_message = r.message;
  }
}

/// The row's steps and phase times added to the summary (averaged per step at the end).
void add_row_times(const StepRecord& rec, InverseRunSummary& sum) {
  sum.steps += rec.iterations;
  sum.t_assembly += rec.t_assembly;
  sum.t_factorization += rec.t_factorization;
  sum.t_solves += rec.t_solves;
  sum.t_constraint_solve += rec.t_constraint_solve;
  sum.t_update += rec.t_update;
}

/// The progress callback after a row: the goal, and a converged solve's iterations.
void report_row_progress(const SceneRunOptions& options, bool realtime, size_t g, size_t goals, const StepRecord& rec,
                         int step, int total_steps, Clock::time_point loop_start) {
  std::ostringstream label;
  label << "goal " << g + 1 << "/" << goals;
  if (!realtime) label << ", " << rec.iterations << " iterations";
  report_progress(options, realtime ? "inverse step" : "goal", step, total_steps, loop_start, label.str());
}

/// The progress line after a goal (the effectors' errors, the elapsed time); the stream's format
/// is restored after it.
void print_goal_line(std::ostream& out, size_t g, size_t goals, int step, const InverseRunSummary& sum,
                     Clock::time_point t0) {
  const std::ios::fmtflags flags = out.flags();
  const std::streamsize precision = out.precision();
  out << "softik: goal " << g + 1 << "/" << goals << "  steps " << step << std::scientific << std::setprecision(3);
  for (const EffectorSummary& es : sum.effectors) out << "  error " << es.name << " " << es.final_error;
  out << "  elapsed " << std::fixed << std::setprecision(2) << since(t0) << " s\n";
  out.flags(flags);
  out.precision(precision);
  out.flush();
}

/// The run's end: the summary's times per step, the actuators' and sensors' outputs, the probes'
/// displacements at the final state x, and the steps taken.
void finish_inverse_run(const BuiltScene& built, const InverseSolver& inverse, const std::vector<Real>& x, int step,
                        SceneRunResult& result) {
  InverseRunSummary& sum = result.inverse;
  if (sum.steps > 0) {
    const Real n = sum.steps;
    sum.t_assembly /= n, sum.t_factorization /= n, sum.t_solves /= n, sum.t_constraint_solve /= n, sum.t_update /= n;
  }
  for (const auto& c : inverse.constraints())
    if (c->role() != ConstraintRole::Effector)
      sum.actuators.push_back({c->name(), c->role() == ConstraintRole::Sensor, c->outputs()});
  result.probes.clear();
  for (const BuiltProbe& p : built.probes)
    result.probes.push_back({p.name, p.point, probe_displacement(built.mesh, p, x)});
  result.load_steps = step;
  result.load_factor = 1;
}

}  // namespace

void run_inverse(const Scene& scene, BuiltScene& built, const SceneRunOptions& options, Clock::time_point t0,
                 SceneRunResult& result) {
  const SceneInverse& inv = scene.inverse;
  const bool realtime = inv.mode == SceneInverse::Mode::RealTime;
  const InverseOptions& io = inv.options;
  std::unique_ptr<LinearSolver> solver = make_linear_solver(built.linear_solver);
  InverseSolver inverse(*built.assembler, *solver, built.loads, io);
  add_inverse_problem(scene, built, inverse);

  InverseRunSummary& sum = result.inverse;
  const size_t goals = inverse_goals(inv);
  start_summary(inv, built, realtime, goals, sum);

  InverseRecorder recorder(scene, built, options, t0, inverse, result);
  std::vector<Real> x = built.mesh.rest_positions();
  recorder.warn_initial_penetration(x);
  for (size_t i = 0; i < built.effectors.size(); ++i) set_effector_goal(inv.effectors[i], *built.effectors[i], 0);
  recorder.record(StepRecord{}, x, true);
  int step = 0;
  const int total_steps = realtime ? static_cast<int>(goals) * inv.steps_per_target : static_cast<int>(goals);
  const Clock::time_point loop_start = Clock::now();
  for (size_t g = 0; g < goals; ++g) {
    for (size_t i = 0; i < built.effectors.size(); ++i) set_effector_goal(inv.effectors[i], *built.effectors[i], g);
    const int rows = realtime ? inv.steps_per_target : 1;
    for (int s = 0; s < rows; ++s) {
      StepRecord rec;
      rec.step = ++step;
      rec.goal = static_cast<int>(g);
      solve_row(inverse, realtime, x, rec, sum);
      if (scene.contact.enabled) rec.take_contacts(inverse.contact_totals());
      record_force_targets(inv, rec.target_forces, sum);
      add_row_times(rec, sum);
      recorder.record(rec, x, step == total_steps || step % scene.outputs.every == 0);
      if (options.on_progress) report_row_progress(options, realtime, g, goals, rec, step, total_steps, loop_start);
    }
    record_goal(built.effectors, sum);
    if (options.progress) print_goal_line(*options.progress, g, goals, step, sum, t0);
  }
  finish_inverse_run(built, inverse, x, step, result);
}

}  // namespace scene_detail

bool InverseRunSummary::all_reached() const {
  for (const EffectorSummary& e : effectors)
    if (e.reached < e.goals) return false;
  for (const ForceTarget& t : force_targets)
    if (!t.met()) return false;
  return true;
}

}  // namespace softik
