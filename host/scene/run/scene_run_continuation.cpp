// Runs a scene with `continuation:` (continuation.hpp): the static equilibrium path of the
// scene's loads by arc-length continuation, through limit points of the load, for the FEM body
// or its node network (model: node_network; network_statics.hpp). One CSV row per
// converged path point (load factor, pressures and volumes, the monitored displacement, the
// tangent's inertia and what it tells, corrector iterations, probes), a .vtu every
// outputs.every points into the .pvd (time = the point's number: the load goes up and down), and
// <name>_path.svg: the load (the first pressure, or the load factor) against the monitored
// displacement, limit points marked.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "host/io/atomic_file.hpp"
#include "host/io/svg_plot.hpp"
#include "host/scene/run/scene_run_common.hpp"
#include "softik/error.hpp"
#include "softik/network_statics.hpp"

namespace softik::scene_detail {

namespace {

/// A converged point as the plot and the limit estimate need it.
struct PlotPoint {
  int step = 0;
  Real load_factor = 0, load = 0, displacement = 0;
  Real s = 0;  ///< cumulative arc length along the path (the parameter of the limit estimate)
  bool limit = false, bifurcation = false;
};

/// The extremum of the load factor near path point m by the parabola through points m-1, m, m+1
/// in the arc parameter s; the point m itself where that parabola has no extremum between them.
ContinuationRunSummary::Limit estimate_extremum(const std::vector<PlotPoint>& path, size_t m, Real load_per_factor) {
  const PlotPoint& p = path[m];
  ContinuationRunSummary::Limit limit{path[m].step, p.load_factor, p.load, p.displacement};
  if (m == 0 || m + 1 >= path.size()) return limit;
  const PlotPoint &a = path[m - 1], &c = path[m + 1];
  if (!(a.s < p.s && p.s < c.s)) return limit;
  // Quadratic Lagrange interpolation in s; its derivative's zero for the load factor.
  const auto quadratic = [&](Real ya, Real yb, Real yc, Real s) {
    return ya * (s - p.s) * (s - c.s) / ((a.s - p.s) * (a.s - c.s)) +
           yb * (s - a.s) * (s - c.s) / ((p.s - a.s) * (p.s - c.s)) +
           yc * (s - a.s) * (s - p.s) / ((c.s - a.s) * (c.s - p.s));
  };
  const Real d1 = (p.load_factor - a.load_factor) / (p.s - a.s), d2 = (c.load_factor - p.load_factor) / (c.s - p.s);
  const Real curvature = (d2 - d1) / (c.s - a.s);
  if (curvature == 0) return limit;
  const Real s = 0.5 * (a.s + p.s) - d1 / (2 * curvature);
  if (!(s > a.s && s < c.s)) return limit;
  limit.load_factor = quadratic(a.load_factor, p.load_factor, c.load_factor, s);
  limit.load = load_per_factor != 0 ? load_per_factor * limit.load_factor : limit.load_factor;
  limit.displacement = quadratic(a.displacement, p.displacement, c.displacement, s);
  return limit;
}

struct ContinuationRecorder : RunRecorder {
  using RunRecorder::RunRecorder;

  Real arc_scale = 1;                 ///< the library's arcs per scene arc: sqrt(number of nodes)
  const BuiltProbe* probe = nullptr;  ///< Monitor::Probe
  std::vector<PlotPoint> path;
  int last_vtu = -1;
  Clock::time_point loop_start = Clock::now();

  Real load_per_factor() const { return built.loads.pressures.empty() ? 0 : built.loads.pressures[0].pressure; }

  /// The component (or the magnitude) of a displacement.
  Real component(const std::array<Real, 3>& u) const {
    const int c = scene.continuation.component;
    return c < 3 ? u[static_cast<size_t>(c)] : std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  }

  Real monitored(const std::vector<Real>& x) const {
    const Mesh& mesh = built.mesh;
    const auto u_of = [&](int n) {
      std::array<Real, 3> u{0, 0, 0};
      for (int i = 0; i < mesh.dim; ++i)
        u[static_cast<size_t>(i)] = x[static_cast<size_t>(n) * mesh.dim + i] - mesh.X[3 * static_cast<size_t>(n) + i];
      return u;
    };
    switch (scene.continuation.monitor) {
      case SceneContinuation::Monitor::Probe:
        return component(probe_displacement(mesh, *probe, x));
      case SceneContinuation::Monitor::Nodes: {
        Real sum = 0;
        for (int n : built.monitor_nodes) sum += component(u_of(n));
        return sum / static_cast<Real>(built.monitor_nodes.size());
      }
      case SceneContinuation::Monitor::RmsDisplacement:
        break;
    }
    Real sum = 0;
    for (int n = 0; n < mesh.num_nodes(); ++n) {
      const std::array<Real, 3> u = u_of(n);
      sum += u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    }
    return std::sqrt(sum / mesh.num_nodes());
  }

  std::string monitor_label() const {
    const SceneContinuation& c = scene.continuation;
    const std::string what = c.component < 3 ? std::string("u") + "xyz"[c.component] : std::string("|u|");
    switch (c.monitor) {
      case SceneContinuation::Monitor::Probe:
        return what + " of probe " + c.probe;
      case SceneContinuation::Monitor::Nodes:
        return "mean " + what + " of " + std::to_string(built.monitor_nodes.size()) + " monitored nodes";
      case SceneContinuation::Monitor::RmsDisplacement:
        break;
    }
    return "root-mean-square node displacement";
  }

  void open() {
    open_outputs();
    csv << "step,load_factor";
    for (const PressureLoad& p : built.loads.pressures) csv << ",p_" << p.name << ",volume_" << p.name;
    csv << ",monitor_displacement,arc,negative_pivots,limit_point,bifurcation_suspected,iterations,residual";
    for (const BuiltProbe& p : built.probes) csv << ",ux_" << p.name << ",uy_" << p.name << ",uz_" << p.name;
    end_header();
  }

  void write_vtu(int step, Real load_factor, const std::vector<Real>& x) {
    std::vector<Real> f_pressure(x.size(), 0);
    for (const PressureLoad& p : built.loads.pressures)
      add_pressure_forces(p, load_factor * p.pressure, built.mesh, x, f_pressure);
    save_state(step, step, x, "pressure_force", f_pressure);
    last_vtu = step;
  }

  void record(const PathPoint& p, const std::vector<Real>& x) {
    const Real u = monitored(x);
    csv << p.step << "," << p.load_factor;
    result.pressures.clear();
    for (size_t k = 0; k < built.loads.pressures.size(); ++k) {
      csv << "," << p.pressures[k] << "," << p.volumes[k];
      result.pressures.push_back({built.loads.pressures[k].name, p.pressures[k], volume0[k], p.volumes[k]});
    }
    csv << "," << u << "," << p.arc / arc_scale << "," << p.negative_pivots << "," << p.limit_point_passed << ","
        << p.bifurcation_suspected << "," << p.iterations << "," << p.residual;
    write_probe_columns(csv, built, x, result);
    csv << "," << since(t0) << "\n";
    csv.end_row("point " + std::to_string(p.step));
    const Real s = path.empty() ? 0 : path.back().s + (p.arc > 0 ? p.arc : 0);
    path.push_back({p.step, p.load_factor, p.pressures.empty() ? p.load_factor : p.pressures[0], u, s,
                    p.limit_point_passed, p.bifurcation_suspected});
    if (scene.outputs.vtu && p.step % scene.outputs.every == 0) write_vtu(p.step, p.load_factor, x);
    result.load_steps = p.step;
    result.load_factor = p.load_factor;
    progress(p, u);
  }

  void progress(const PathPoint& p, Real u) const {
    if (options.on_progress && p.step > 0) {
      std::ostringstream label;
      label << "load factor " << std::setprecision(4) << p.load_factor << ", " << p.iterations << " iterations";
      report_progress(options, "path point", p.step, scene.continuation.options.max_steps, loop_start, label.str());
    }
    if (!options.progress) return;
    std::ostream& out = *options.progress;
    const std::ios::fmtflags flags = out.flags();
    out << "softik: point " << p.step << "/" << scene.continuation.options.max_steps << "  load factor "
        << std::setprecision(6) << p.load_factor << "  displacement " << u << "  negative pivots " << p.negative_pivots
        << (p.limit_point_passed ? "  LIMIT POINT" : "") << (p.bifurcation_suspected ? "  BIFURCATION?" : "")
        << "  iterations " << p.iterations << "  elapsed " << std::fixed << std::setprecision(2) << since(t0) << " s\n";
    out.flags(flags);
    out.flush();
  }

  /// The summary's path figures, the limit estimates and the plot.
  void finish(ContinuationRunSummary& s) {
    s.points = static_cast<int>(path.size());
    s.load_label = built.loads.pressures.empty() ? "load factor" : "p_" + built.loads.pressures[0].name;
    s.monitor_label = monitor_label();
    s.min_load_factor = s.max_load_factor = path.empty() ? 0 : path.front().load_factor;
    io_detail::PlotSeries line{"path", "#1f77b4", 2.5, true, {}, {}, {}};
    io_detail::PlotSeries limits{"limit point", "#d62728", 5, false, {}, {}, {}};
    io_detail::PlotSeries forks{"bifurcation suspected", "#ff7f0e", 5, false, {}, {}, {}};
    for (size_t k = 0; k < path.size(); ++k) {
      const PlotPoint& p = path[k];
      s.min_load_factor = std::min(s.min_load_factor, p.load_factor);
      s.max_load_factor = std::max(s.max_load_factor, p.load_factor);
      line.x.push_back(p.displacement);
      line.y.push_back(p.load);
      line.names.push_back("point " + std::to_string(p.step));
      if (p.bifurcation) {
        ++s.bifurcations;
        forks.x.push_back(p.displacement);
        forks.y.push_back(p.load);
        forks.names.push_back("bifurcation suspected before point " + std::to_string(p.step));
      }
      if (!p.limit || k == 0) continue;
      // The extremum lies between points k-1 and k: estimate it around the more extreme of them.
      const bool maximum =
          k >= 2 ? path[k - 1].load_factor >= path[k - 2].load_factor : p.load_factor < path[k - 1].load_factor;
      const bool later = maximum ? p.load_factor > path[k - 1].load_factor : p.load_factor < path[k - 1].load_factor;
      s.limits.push_back(estimate_extremum(path, later ? k : k - 1, load_per_factor()));
      s.limits.back().step = p.step;
      limits.x.push_back(s.limits.back().displacement);
      limits.y.push_back(s.limits.back().load);
      limits.names.push_back("limit point between points " + std::to_string(p.step - 1) + " and " +
                             std::to_string(p.step));
    }
    const io_detail::PlotPanel panel{scene.name + ": equilibrium path (arc-length continuation)",
                                     s.monitor_label,
                                     s.load_label,
                                     {line, limits, forks}};
    s.svg_path = (std::filesystem::path(options.out_dir) / (scene.name + "_path.svg")).string();
    detail::write_atomically(s.svg_path, io_detail::svg_scatter({panel}, 1, 640, 460));
  }
};

}  // namespace

void run_continuation(const Scene& scene, BuiltScene& built, const SceneRunOptions& options, Clock::time_point t0,
                      SceneRunResult& result) {
  ContinuationRunSummary& s = result.continuation;
  s.enabled = true;
  ContinuationRecorder recorder(scene, built, options, t0, result);
  recorder.arc_scale = std::sqrt(static_cast<Real>(built.mesh.num_nodes()));
  for (const BuiltProbe& p : built.probes)
    if (p.name == scene.continuation.probe) recorder.probe = &p;
  recorder.open();
  ArcLengthOptions o = scene.continuation.options;
  o.initial_arc *= recorder.arc_scale;
  o.min_arc *= recorder.arc_scale;
  o.max_arc *= recorder.arc_scale;
  o.monitored_dof = -1;
  o.on_step = [&](const PathPoint& p, const std::vector<Real>& x) { recorder.record(p, x); };
  std::vector<Real> x = built.mesh.rest_positions();
  std::unique_ptr<LinearSolver> solver = make_linear_solver(built.linear_solver);
  recorder.loop_start = Clock::now();
  ArcLengthResult r;
  if (scene.continuation.model == SceneModel::NodeNetwork) {
    const NetworkStatics statics(*built.network, built.fixed_dofs, built.loads.pressures, scene.solver.threads);
    s.nodes = built.network->num_nodes();
    s.links = built.network->num_links();
    s.volume_cells = built.network->num_volume_cells();
    r = solve_arc_length(statics, *solver, built.loads, x, o);
  } else {
    r = solve_arc_length(*built.assembler, *solver, built.loads, x, o);
  }
  if (scene.outputs.vtu && !r.path.empty() && recorder.last_vtu != r.path.back().step)
    recorder.write_vtu(r.path.back().step, r.path.back().load_factor, x);  // the last point, always
  s.status = arc_length_status_name(r.status);
  s.failed = r.status == ArcLengthStatus::StepFailed;
  s.message = r.message;
  s.iterations = r.iterations;
  s.step_cuts = r.step_cuts;
  result.newton_iterations = r.iterations;
  result.step_cuts = r.step_cuts;
  recorder.finish(s);
}

void write_continuation_summary(const SceneRunResult& r, std::ostream& out) {
  const ContinuationRunSummary& s = r.continuation;
  const std::ios::fmtflags flags = out.flags();
  out << std::setprecision(6) << "softik: " << r.name << ": arc-length continuation: " << s.status << ", " << s.points
      << " path points, " << s.iterations << " corrector iterations, " << s.step_cuts << " step cuts, " << std::fixed
      << std::setprecision(2) << r.seconds << " s; " << r.num_cells << " cells, " << r.num_dofs << " DOFs ("
      << r.num_free_dofs << " free)";
  if (s.links > 0)
    out << "; node network of " << s.nodes << " nodes, " << s.links << " links, " << s.volume_cells << " volume cells";
  out << "\n";
  out.unsetf(std::ios::floatfield);
  out << std::setprecision(6) << "  " << s.message << "\n"
      << "  load factor from " << s.min_load_factor << " to " << s.max_load_factor << "; load axis " << s.load_label
      << ", displacement axis " << s.monitor_label << "\n";
  if (s.limits.empty()) out << "  limit points: none\n";
  for (const ContinuationRunSummary::Limit& l : s.limits)
    out << "  limit point between points " << l.step - 1 << " and " << l.step << ": " << s.load_label << " = " << l.load
        << " (load factor " << l.load_factor << ") at displacement " << l.displacement << "\n";
  if (s.bifurcations > 0)
    out << "  bifurcation suspected at " << s.bifurcations
        << " point(s): the tangent's inertia changed without a turn of the load (the bifurcation_suspected column)\n";
  for (const PressureSummary& p : r.pressures)
    out << "  pressure " << p.name << " at the last point: p = " << p.pressure << ", volume " << p.volume0 << " -> "
        << p.volume << "\n";
  out << "  path plot: " << s.svg_path << "\n";
  out.flags(flags);
}

}  // namespace softik::scene_detail
