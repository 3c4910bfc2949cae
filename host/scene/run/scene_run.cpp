// Runs a scene: builds it, solves the static problem by load steps and writes the CSV table,
// the .vtu files and the .pvd collection as the steps converge.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "host/scene/run/scene_run_common.hpp"
#include "softik/error.hpp"
#include "softik/mesh_io.hpp"
#include "softik/network_io.hpp"
#include "softik/scene.hpp"

namespace softik {

std::array<Real, 3> probe_displacement(const Mesh& mesh, const BuiltProbe& p, const std::vector<Real>& x) {
  std::array<Real, 3> u{0, 0, 0};
  for (size_t k = 0; k < p.nodes.size(); ++k)
    for (int i = 0; i < mesh.dim; ++i) {
      const size_t n = static_cast<size_t>(p.nodes[k]);
      u[static_cast<size_t>(i)] += p.weights[k] * (x[n * mesh.dim + i] - mesh.X[3 * n + i]);
    }
  return u;
}

namespace scene_detail {

std::vector<Real> to_3d(const Mesh& mesh, const std::vector<Real>& dofs) {
  std::vector<Real> v(3 * static_cast<size_t>(mesh.num_nodes()), 0);
  for (int n = 0; n < mesh.num_nodes(); ++n)
    for (int i = 0; i < mesh.dim; ++i) v[3 * static_cast<size_t>(n) + i] = dofs[static_cast<size_t>(n) * mesh.dim + i];
  return v;
}

/// Removes what an earlier run of the same scene wrote into out_dir (<name>.csv, <name>.pvd,
/// <name>_NNNN.vtu, <name>_path.svg), so that a rerun with fewer steps leaves no stale .vtu for ParaView to load.
/// Any other file in the folder is the user's and is left alone.
static void remove_previous_outputs(const std::string& out_dir, const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(out_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    bool ours = file == name + ".csv" || file == name + ".pvd" || file == name + "_path.svg";
    if (!ours && file.size() > name.size() + 5 && file.compare(0, name.size() + 1, name + "_") == 0 &&
        file.compare(file.size() - 4, 4, ".vtu") == 0) {
      const std::string digits = file.substr(name.size() + 1, file.size() - name.size() - 5);
      ours = digits.size() >= 4 && digits.find_first_not_of("0123456789") == std::string::npos;
    }
    if (!ours || !it->is_regular_file()) continue;
    std::error_code removed;
    fs::remove(it->path(), removed);
    SOFTIK_CHECK_IO(!removed, "cannot remove the previous output '" << it->path().string() << "': " << removed.message()
                                                                    << "; check that the --out folder is writable");
  }
  SOFTIK_CHECK_IO(!ec, "cannot list the output folder '" << out_dir << "': " << ec.message());
}

std::vector<Real> rest_volumes(const BuiltScene& built) {
  const std::vector<Real> X = built.mesh.rest_positions();
  std::vector<Real> volume0;
  for (const PressureLoad& p : built.loads.pressures)
    volume0.push_back(p.closed ? surface_volume(p, built.mesh, X) : 0.0);
  return volume0;
}

void write_pressure_columns(std::ostream& csv, const BuiltScene& built, const std::vector<Real>& pressures,
                            const std::vector<Real>& x, const std::vector<Real>& volume0, SceneRunResult& result) {
  result.pressures.clear();
  for (size_t p = 0; p < built.loads.pressures.size(); ++p) {
    const PressureLoad& load = built.loads.pressures[p];
    const Real V = load.closed ? surface_volume(load, built.mesh, x) : 0.0;
    csv << "," << pressures[p] << "," << V;
    result.pressures.push_back({load.name, pressures[p], volume0[p], V});
  }
}

void write_probe_columns(std::ostream& csv, const BuiltScene& built, const std::vector<Real>& x,
                         SceneRunResult& result) {
  result.probes.clear();
  for (const BuiltProbe& p : built.probes) {
    const std::array<Real, 3> u = probe_displacement(built.mesh, p, x);
    csv << "," << u[0] << "," << u[1] << "," << u[2];
    result.probes.push_back({p.name, p.point, u});
  }
}

void write_reaction_header(std::ostream& csv, const Scene& scene, const BuiltScene& built) {
  if (!scene.outputs.reactions) return;
  for (const ReactionSet& s : built.reaction_sets)
    for (const char* c : {"Fx_", "Fy_", "Fz_", "Mx_", "My_", "Mz_"}) csv << "," << c << s.name;
}

void write_reaction_columns(std::ostream& csv, const Scene& scene, const BuiltScene& built, const std::vector<Real>& x,
                            const std::vector<Real>& R, SceneRunResult& result) {
  if (!scene.outputs.reactions) return;
  result.reactions.clear();
  const std::vector<std::array<Real, 6>> r = set_reactions(built, x, R);
  for (size_t s = 0; s < r.size(); ++s) {
    for (Real v : r[s]) csv << "," << v;
    result.reactions.push_back({built.reaction_sets[s].name, {r[s][0], r[s][1], r[s][2]}, {r[s][3], r[s][4], r[s][5]}});
  }
}

void write_state_vtu(const std::string& out_dir, const Scene& scene, const BuiltScene& built, int step, Real time,
                     const std::vector<Real>& x, const std::string& force_name, const std::vector<Real>& force,
                     PvdWriter& pvd) {
  const Mesh& mesh = built.mesh;
  std::vector<Real> u(x.size());
  for (int n = 0; n < mesh.num_nodes(); ++n)
    for (int i = 0; i < mesh.dim; ++i)
      u[static_cast<size_t>(n) * mesh.dim + i] =
          x[static_cast<size_t>(n) * mesh.dim + i] - mesh.X[3 * static_cast<size_t>(n) + i];
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "_%04d.vtu", step);
  const std::string vtu = scene.name + suffix;
  const std::string file = (std::filesystem::path(out_dir) / vtu).string();
  const std::vector<VtuField> point_fields{{"displacement", 3, to_3d(mesh, u)}, {force_name, 3, to_3d(mesh, force)}};
  if (built.network)  // the links as lines, with their tension and strain
    write_network_vtu(file, *built.network, x, point_fields, VtuOptions{scene.outputs.vtu_format});
  else {
    const std::vector<Real> von_mises = built.assembler->von_mises(x);
    // write_vtu refuses any non-finite value; a stress that is not finite while the positions are
    // means cells the step drove past where the law is defined: say so, with the step.
    const bool finite_state = std::all_of(x.begin(), x.end(), [](Real v) { return std::isfinite(v); });
    for (size_t c = 0; c < von_mises.size() && finite_state; ++c)
      SOFTIK_CHECK_NUMERICAL(std::isfinite(von_mises[c]),
                             file << ": not written: step " << step << " left cell " << c
                                  << " inverted or degenerate (its von Mises stress is " << von_mises[c]
                                  << "): the step drove the body past where its law is defined. Bound the actuators "
                                     "(max_pressure, max_force), limit each step's goal (an effector's max_shift), "
                                     "or take smaller load or time steps");
    write_vtu(file, mesh, x, point_fields, {{"von_mises", 1, von_mises}}, VtuOptions{scene.outputs.vtu_format});
  }
  pvd.add(time, vtu);
  pvd.write();
}

void RunRecorder::open_outputs() {
  volume0 = rest_volumes(built);
  result.csv_path = (std::filesystem::path(options.out_dir) / (scene.name + ".csv")).string();
  csv.open(result.csv_path);
  if (scene.outputs.vtu) {
    result.pvd_path = (std::filesystem::path(options.out_dir) / (scene.name + ".pvd")).string();
    pvd = std::make_unique<PvdWriter>(result.pvd_path);
  }
}

void RunRecorder::end_header() {
  csv << ",seconds\n";
  csv.end_row("the header");
  csv << std::setprecision(10);
}

void RunRecorder::save_state(int step, Real time, const std::vector<Real>& x, const std::string& force_name,
                             const std::vector<Real>& force) {
  write_state_vtu(options.out_dir, scene, built, step, time, x, force_name, force, *pvd);
  ++result.vtu_files;
}

}  // namespace scene_detail

namespace {

namespace fs = std::filesystem;
using namespace scene_detail;

/// The load increments a static run will have taken, estimated after k converged ones reached
/// `load_factor` from `previous`: k plus the increments of the last one's size still needed to
/// reach 1 (solve_static's step cuts only ever shrink the increment, so the estimate never drops;
/// without cuts it is solver.load_steps). k when the load factor is 1, as solve_static stops.
int load_steps_estimate(int k, Real load_factor, Real previous) {
  if (load_factor >= 1 - 1e-14) return k;
  const Real increment = load_factor - previous;
  if (!(increment > 0)) return k + 1;
  return k + std::max(1, static_cast<int>(std::ceil((1 - load_factor) / increment - 1e-6)));
}

/// Everything one run writes, step by step.
struct Recorder : RunRecorder {
  using RunRecorder::RunRecorder;

  Clock::time_point loop_start = Clock::now();  ///< the load steps' start (progress events)
  Real previous_load_factor = 0;

  void open() {
    const std::vector<Real> X = built.mesh.rest_positions();
    open_outputs();
    csv << "step,load_factor";
    for (const PressureLoad& p : built.loads.pressures)
      csv << ",p_" << p.name << ",volume_" << p.name << ",volume_growth_" << p.name;
    for (const BuiltProbe& p : built.probes) csv << ",ux_" << p.name << ",uy_" << p.name << ",uz_" << p.name;
    write_reaction_header(csv, scene, built);
    csv << ",newton_iterations,residual";
    end_header();
    record(0, 0, std::vector<Real>(built.loads.pressures.size(), 0.0), 0, 0, X, true);
  }

  void write_vtu(int step, Real load_factor, const std::vector<Real>& pressures, const std::vector<Real>& x) {
    std::vector<Real> f_pressure(x.size(), 0);
    for (size_t p = 0; p < built.loads.pressures.size(); ++p)
      add_pressure_forces(built.loads.pressures[p], pressures[p], built.mesh, x, f_pressure);
    save_state(step, load_factor, x, "pressure_force", f_pressure);
  }

  /// One CSV row (and a .vtu when due) for a converged state; `pressures`: the wall pressure of
  /// each load (given, or solved by a volume or gas control: LoadStepReport::pressures).
  void record(int step, Real load_factor, const std::vector<Real>& pressures, int iterations, Real residual,
              const std::vector<Real>& x, bool vtu_due) {
    const Mesh& mesh = built.mesh;
    result.pressures.clear();
    csv << step << "," << load_factor;
    for (size_t p = 0; p < built.loads.pressures.size(); ++p) {
      const PressureLoad& load = built.loads.pressures[p];
      const Real V = load.closed ? surface_volume(load, mesh, x) : 0.0;
      csv << "," << pressures[p] << "," << V << "," << V - volume0[p];
      result.pressures.push_back({load.name, pressures[p], volume0[p], V});
    }
    write_probe_columns(csv, built, x, result);
    if (scene.outputs.reactions)
      write_reaction_columns(csv, scene, built, x, static_reactions(built, x, load_factor, pressures), result);
    csv << "," << iterations << "," << residual << "," << since(t0) << "\n";
    csv.end_row("step " + std::to_string(step));
    if (scene.outputs.vtu && vtu_due) write_vtu(step, load_factor, pressures, x);
    result.load_steps = step;
    result.load_factor = load_factor;
  }

  void on_step(const LoadStepReport& r, const std::vector<Real>& x) {
    const bool last = r.load_factor >= 1 - 1e-12;
    record(r.step, r.load_factor, r.pressures, r.iterations, r.residual, x, last || r.step % scene.outputs.every == 0);
    if (options.on_progress) {
      std::ostringstream label;
      label << "load factor " << std::setprecision(4) << r.load_factor << ", " << r.iterations << " Newton iterations";
      report_progress(options, "load step", r.step, load_steps_estimate(r.step, r.load_factor, previous_load_factor),
                      loop_start, label.str());
    }
    previous_load_factor = r.load_factor;
    if (options.progress) {
      std::ostream& out = *options.progress;
      const std::ios::fmtflags flags = out.flags();
      out << "softik: step " << r.step << "/" << scene.solver.newton.load_steps << "  load factor " << std::fixed
          << std::setprecision(4) << r.load_factor << "  Newton iterations " << r.iterations << "  residual "
          << std::scientific << std::setprecision(3) << r.residual << "  elapsed " << std::fixed << std::setprecision(2)
          << since(t0) << " s\n";
      out.flags(flags);
      out.flush();
    }
  }
};

}  // namespace

SceneRunResult run_scene(const Scene& scene, const SceneRunOptions& options) {
  SOFTIK_CHECK(!options.out_dir.empty(), "run_scene: no output folder given; set SceneRunOptions::out_dir (--out DIR)");
  const Clock::time_point t0 = Clock::now();
  BuiltScene built = build_scene(scene);
  return scene_detail::run_built_scene(scene, built, options, t0);
}

SceneRunResult scene_detail::run_built_scene(const Scene& scene, BuiltScene& built, const SceneRunOptions& options,
                                             Clock::time_point t0) {
  SOFTIK_CHECK(!options.out_dir.empty(), "run_scene: no output folder given; set SceneRunOptions::out_dir (--out DIR)");
  SceneRunResult result;
  result.name = scene.name;
  result.warnings = built.warnings;
  result.num_dofs = built.mesh.num_dofs();
  result.num_free_dofs = static_cast<int>(std::count(built.fixed_dofs.begin(), built.fixed_dofs.end(), 0));
  result.num_cells = built.mesh.num_cells();  // 0 for a network file's nodes
  if (options.warnings)
    for (const std::string& w : built.warnings) *options.warnings << "softik: warning: " << w << "\n";
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  SOFTIK_CHECK_IO(!ec && fs::is_directory(options.out_dir),
                  "cannot create the output folder '" << options.out_dir << "': " << ec.message());
  remove_previous_outputs(options.out_dir, scene.name);

  if (scene.explicit_dynamics.enabled || scene.dynamics.enabled) {
    if (scene.explicit_dynamics.enabled)
      run_explicit(scene, built, options, t0, result);
    else
      run_dynamics(scene, built, options, t0, result);
    result.seconds = since(t0);
    return result;
  }
  if (scene.modes.enabled) {
    run_modes(scene, built, options, t0, result);
    result.seconds = since(t0);
    return result;
  }
  if (scene.continuation.enabled) {
    run_continuation(scene, built, options, t0, result);
    result.seconds = since(t0);
    return result;
  }
  if (scene.inverse.enabled) {
    run_inverse(scene, built, options, t0, result);
    result.seconds = since(t0);
    return result;
  }
  Recorder recorder(scene, built, options, t0, result);
  recorder.open();
  recorder.loop_start = Clock::now();
  std::vector<Real> x = built.mesh.rest_positions();
  NewtonOptions newton = built.newton;
  newton.on_step = [&](const LoadStepReport& r, const std::vector<Real>& xs) { recorder.on_step(r, xs); };
  std::unique_ptr<LinearSolver> solver = make_linear_solver(built.linear_solver);
  const StaticResult solved = solve_static(*built.assembler, *solver, built.loads, x, newton);
  result.newton_iterations = solved.iterations;
  result.step_cuts = solved.step_cuts;
  result.factorizations = solved.factorizations;
  result.krylov_iterations = solved.krylov_iterations;
  result.seconds = since(t0);
  return result;
}

namespace {

/// The forward run's first lines: load steps, Newton iterations, cavity pressures and volumes.
void write_forward_summary(const SceneRunResult& r, std::ostream& out) {
  const std::ios::fmtflags flags = out.flags();
  out << std::setprecision(4);
  out << "softik: " << r.name << ": " << r.load_steps << " load steps (load factor " << r.load_factor << "), "
      << r.newton_iterations << " Newton iterations (" << r.factorizations << " factorisations";
  if (r.krylov_iterations > 0) out << ", " << r.krylov_iterations << " Krylov iterations";
  out << "), " << r.step_cuts << " step cuts, " << std::fixed << std::setprecision(2) << r.seconds << " s; "
      << r.num_cells << " cells, " << r.num_dofs << " DOFs (" << r.num_free_dofs << " free)\n";
  out.flags(flags);
  out << std::setprecision(6);
  for (const PressureSummary& p : r.pressures) {
    out << "  pressure " << p.name << ": p = " << p.pressure;
    if (p.volume0 != 0)
      out << ", volume " << p.volume0 << " -> " << p.volume << " (growth " << p.volume - p.volume0 << ", "
          << std::showpos << 100 * (p.volume - p.volume0) / p.volume0 << std::noshowpos << " %)";
    out << "\n";
  }
}

/// The inverse run's lines of the summary: actuators, effectors (reached or not), phase times.
void write_inverse_summary(const SceneRunResult& r, std::ostream& out) {
  const InverseRunSummary& s = r.inverse;
  out << std::setprecision(4);
  out << "softik: " << r.name << ": inverse problem (" << s.mode << ", " << s.method << "): " << s.goals
      << (s.goals == 1 ? " goal, " : " goals, ") << s.steps << (s.mode == "realtime" ? " steps, " : " iterations, ")
      << std::fixed << std::setprecision(2) << r.seconds << " s; " << r.num_cells << " cells, " << r.num_dofs
      << " DOFs (" << r.num_free_dofs << " free)\n";
  out.unsetf(std::ios::floatfield);
  out << std::setprecision(6);
  write_control_lines(s, out);
  out << std::fixed << std::setprecision(3) << "  mean time per step (ms): assembly " << 1e3 * s.t_assembly
      << ", factorisation " << 1e3 * s.t_factorization << ", solves " << 1e3 * s.t_solves << ", QP "
      << 1e3 * s.t_constraint_solve << ", update " << 1e3 * s.t_update << "\n";
  out.unsetf(std::ios::floatfield);
}

}  // namespace

void scene_detail::write_control_lines(const InverseRunSummary& s, std::ostream& out) {
  const std::ios::fmtflags flags = out.flags();
  const std::streamsize precision = out.precision();
  out.unsetf(std::ios::floatfield);
  out << std::setprecision(6);
  for (const ActuatorSummary& a : s.actuators) {
    out << (a.sensor ? "  sensor " : "  actuator ") << a.name << ":";
    for (size_t k = 0; k < a.outputs.size(); ++k)
      out << (k ? ", " : " ") << a.outputs[k].first << " = " << a.outputs[k].second;
    out << "\n";
  }
  for (const EffectorSummary& e : s.effectors)
    out << "  effector " << e.name << ": " << (e.reached == e.goals ? "reached" : "NOT reached") << " " << e.reached
        << "/" << e.goals << " goals; final error " << std::setprecision(3) << e.final_error << ", worst "
        << e.worst_error << " (tolerance " << e.tolerance << ", " << e.unit << " units)\n"
        << std::setprecision(6);
  for (const InverseRunSummary::ForceTarget& t : s.force_targets)
    out << "  force target " << t.name << " on '" << t.obstacle << "': " << (t.met() ? "met" : "NOT met")
        << "; normal force " << t.force << " N, target " << t.target << " N (tolerance " << t.tolerance << " N)\n";
  if (s.not_optimal > 0)
    out << "  warning: " << s.not_optimal << (s.mode == "converged" ? " goal(s)" : " step(s)")
        << " without an optimal constraint-space solution; last: " << s.last_message << "\n";
  if (s.unconverged > 0)
    out << "  warning: " << s.unconverged << " goal(s) whose converged solve did not converge; last: " << s.last_message
        << "\n";
  out.flags(flags);
  out.precision(precision);
}

/// The modes run's lines: the frequencies found, lowest first.
void write_modes_summary(const SceneRunResult& r, std::ostream& out) {
  out << "softik: " << r.name << ": " << r.frequencies.size() << " natural modes (shift-invert Lanczos), "
      << r.num_cells << " cells, " << r.num_dofs << " DOFs (" << r.num_free_dofs << " free), " << std::setprecision(3)
      << r.seconds << " s\n"
      << std::setprecision(6);
  for (size_t k = 0; k < r.frequencies.size(); ++k) out << "  mode " << k + 1 << ": f = " << r.frequencies[k] << "\n";
}

void write_summary(const SceneRunResult& r, std::ostream& out) {
  const std::ios::fmtflags flags = out.flags();
  const std::streamsize precision = out.precision();
  if (r.explicit_dynamics.enabled)
    write_explicit_summary(r, out);
  else if (r.dynamics.enabled)
    write_dynamic_summary(r, out);
  else if (r.inverse.enabled)
    write_inverse_summary(r, out);
  else if (r.continuation.enabled)
    write_continuation_summary(r, out);
  else if (!r.frequencies.empty())
    write_modes_summary(r, out);
  else
    write_forward_summary(r, out);
  out << std::setprecision(6);
  for (const ProbeSummary& p : r.probes) {
    const auto& u = p.displacement;
    out << "  probe " << p.name << " at (" << p.point[0] << ", " << p.point[1] << ", " << p.point[2]
        << "): displacement (" << u[0] << ", " << u[1] << ", " << u[2]
        << "), |u| = " << std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) << "\n";
  }
  for (const ReactionSummary& s : r.reactions)
    out << "  reaction " << s.name << ": force (" << s.force[0] << ", " << s.force[1] << ", " << s.force[2]
        << "), moment (" << s.moment[0] << ", " << s.moment[1] << ", " << s.moment[2] << ")\n";
  out << "  outputs: " << r.csv_path;
  if (!r.pvd_path.empty()) out << ", " << r.pvd_path << " (" << r.vtu_files << " .vtu files)";
  out << "\n";
  out.flags(flags);
  out.precision(precision);
}

}  // namespace softik
