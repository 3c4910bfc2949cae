// Runs a scene with `explicit:` (explicit_dynamics.hpp): the body as an FEM model with lumped
// mass or as a node network built from its mesh, integrated over the duration in frames of
// frame_interval; one CSV row per frame (time, steps, energies, the stable step, pressures,
// probes) and a .vtu every outputs.every frames (displacement, velocity, von Mises of the mesh's
// cells at the nodes' positions; a network's links with their tension), collected in the .pvd;
// and <name>_history.svg: the probes' displacements and the energies against time, and the first
// pressure against the first probe's displacement (the load-displacement curve).
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
#include "host/scene/parse/scene_yaml.hpp"
#include "host/scene/run/scene_run_common.hpp"
#include "softik/error.hpp"

namespace softik::scene_detail {

namespace {

ExplicitLoads explicit_loads(const Scene& scene, const BuiltScene& built) {
  ExplicitLoads loads;
  for (size_t p = 0; p < built.loads.pressures.size(); ++p)
    loads.pressures.push_back({built.loads.pressures[p], scene.pressures[p].over_time});
  if (scene.gravity.enabled) {
    loads.gravity = scene.gravity.g;
    loads.gravity_over_time = scene.gravity.over_time;
  }
  if (!built.loads.nodal.empty()) {  // the forces: the nodal loads without gravity
    loads.nodal = built.loads.nodal;
    bool any = false;
    for (size_t k = 0; k < loads.nodal.size(); ++k) {
      if (!built.gravity.empty()) loads.nodal[k] -= built.gravity[k];
      any = any || loads.nodal[k] != 0;
    }
    if (!any) loads.nodal.clear();
  }
  return loads;
}

struct ExplicitRecorder : RunRecorder {
  using RunRecorder::RunRecorder;

  /// Per frame, for the plot: the time, the first pressure, the energies, each probe's u.
  std::vector<Real> times, loads, kinetic, potential;
  std::vector<std::vector<std::array<Real, 3>>> probe_u;

  void open() {
    open_outputs();
    csv << "frame,step,time,kinetic_energy,potential_energy,damped_energy,stable_time_step";
    for (const PressureLoad& p : built.loads.pressures) csv << ",p_" << p.name << ",volume_" << p.name;
    for (const BuiltProbe& p : built.probes) csv << ",ux_" << p.name << ",uy_" << p.name << ",uz_" << p.name;
    end_header();
  }

  void record(int frame, const ExplicitSolver& solver, Real dt_c, bool vtu_due) {
    const std::vector<Real>& x = solver.x();
    csv << frame << "," << solver.steps() << "," << solver.time() << "," << solver.kinetic_energy() << ","
        << solver.potential_energy() << "," << solver.damped_energy() << "," << dt_c;
    std::vector<Real> pressures;
    for (size_t p = 0; p < built.loads.pressures.size(); ++p)
      pressures.push_back(built.loads.pressures[p].pressure * scene.pressures[p].over_time(solver.time()));
    write_pressure_columns(csv, built, pressures, x, volume0, result);
    write_probe_columns(csv, built, x, result);
    times.push_back(solver.time());
    loads.push_back(pressures.empty() ? 0 : pressures[0]);
    kinetic.push_back(solver.kinetic_energy());
    potential.push_back(solver.potential_energy());
    probe_u.resize(built.probes.size());
    for (size_t p = 0; p < built.probes.size(); ++p) probe_u[p].push_back(result.probes[p].displacement);
    csv << "," << since(t0) << "\n";
    csv.end_row("frame " + std::to_string(frame));
    if (scene.outputs.vtu && vtu_due) save_state(frame, solver.time(), x, "velocity", solver.v());
  }

  /// <name>_history.svg: the probes' displacement components and the energies against time and,
  /// with a pressure load and a probe, the first pressure against the first probe's |u|.
  std::string plot() const {
    using io_detail::PlotSeries;
    const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
    std::vector<io_detail::PlotPanel> panels;
    const auto names = [&](const std::string& what) {
      std::vector<std::string> n;
      for (size_t k = 0; k < times.size(); ++k) n.push_back(what + ", frame " + std::to_string(k));
      return n;
    };
    if (!built.probes.empty()) {
      io_detail::PlotPanel u{scene.name + ": probe displacements", "time (s)", "displacement", {}};
      for (size_t p = 0; p < built.probes.size(); ++p)
        for (int c = 0; c < 3; ++c) {
          PlotSeries line{std::string("u") + "xyz"[c] + " " + built.probes[p].name,
                          colors[(3 * p + c) % 6],
                          0,
                          true,
                          times,
                          {},
                          {}};
          for (const auto& d : probe_u[p]) line.y.push_back(d[static_cast<size_t>(c)]);
          line.names = names(line.label);
          u.series.push_back(line);
        }
      panels.push_back(u);
    }
    io_detail::PlotPanel energy{scene.name + ": energies", "time (s)", "energy (J)", {}};
    energy.series.push_back({"kinetic", colors[0], 0, true, times, kinetic, names("kinetic")});
    energy.series.push_back({"potential", colors[1], 0, true, times, potential, names("potential")});
    panels.push_back(energy);
    if (!built.probes.empty() && !built.loads.pressures.empty()) {
      PlotSeries curve{"p_" + built.loads.pressures[0].name, colors[0], 2.5, true, {}, loads, names("load")};
      for (const auto& d : probe_u[0]) curve.x.push_back(std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
      panels.push_back({scene.name + ": load against displacement",
                        "|u| of probe " + built.probes[0].name,
                        "p_" + built.loads.pressures[0].name,
                        {curve}});
    }
    const std::string path = (std::filesystem::path(options.out_dir) / (scene.name + "_history.svg")).string();
    detail::write_atomically(path, io_detail::svg_scatter(panels, 2, 520, 380));
    return path;
  }
};

}  // namespace

void run_explicit(const Scene& scene, BuiltScene& built, const SceneRunOptions& options, Clock::time_point t0,
                  SceneRunResult& result) {
  const SceneExplicit& e = scene.explicit_dynamics;
  ExplicitRunSummary& s = result.explicit_dynamics;
  s.enabled = true;
  s.scheme = explicit_scheme_name(e.options.scheme);
  std::unique_ptr<ExplicitModel> model;
  if (e.model == SceneExplicit::Model::NodeNetwork) {
    const NodeNetwork& net = *built.network;
    s.model = "node_network";
    s.nodes = net.num_nodes();
    s.links = net.num_links();
    s.volume_cells = net.num_volume_cells();
    model = std::make_unique<NodeNetworkModel>(net, built.fixed_dofs, explicit_loads(scene, built),
                                               scene.solver.threads, scene.solver.backend);
  } else {
    s.model = "fem";
    model = std::make_unique<FemExplicitModel>(*built.assembler, e.density, explicit_loads(scene, built));
  }
  ExplicitOptions o = e.options;
  o.steps_per_frame = 1 << 30;  // frames are the advance() calls below: one stable-step check each
  ExplicitSolver solver(*model, o);
  s.time_step = solver.time_step();
  // The automatic step (time_step: 0) is known only now: the same cap as a given one (scene_yaml.hpp).
  const double steps = e.duration / solver.time_step();
  SOFTIK_CHECK(std::isfinite(steps) && steps <= kMaxExplicitSteps,
               "explicit: the stable time step " << solver.time_step() << " s would take " << steps
                                                 << " steps for duration " << e.duration << " s, above the cap of "
                                                 << kMaxExplicitSteps
                                                 << "; a stiffer law needs a shorter step: shorten explicit.duration, "
                                                    "coarsen the mesh, or add mass (density)");
  ExplicitRecorder recorder(scene, built, options, t0, result);
  recorder.open();
  recorder.record(0, solver, solver.stable_time_step(), true);
  const Clock::time_point loop_start = Clock::now();
  for (int frame = 1; frame <= e.frames; ++frame) {
    const Real t_end = std::min(e.duration, frame * e.frame_interval);
    Real dt_c = 0;
    solver.advance(t_end - solver.time(), [&](const ExplicitFrame& f) { dt_c = f.stable_time_step; });
    const bool last = frame == e.frames;
    recorder.record(frame, solver, dt_c, last || frame % scene.outputs.every == 0);
    s.stable_time_step = dt_c;
    if (options.on_progress) {
      std::ostringstream label;
      label << "t = " << std::setprecision(6) << solver.time() << ", " << solver.steps() << " steps";
      report_progress(options, "frame", frame, e.frames, loop_start, label.str());
    }
    if (options.progress && (last || frame % scene.outputs.every == 0)) {
      std::ostream& out = *options.progress;
      const std::ios::fmtflags flags = out.flags();
      out << "softik: frame " << frame << "/" << e.frames << "  t = " << std::setprecision(6) << solver.time()
          << "  steps " << solver.steps() << "  kinetic " << std::scientific << std::setprecision(3)
          << solver.kinetic_energy() << "  potential " << solver.potential_energy() << "  elapsed " << std::fixed
          << std::setprecision(2) << since(t0) << " s\n";
      out.flags(flags);
      out.flush();
    }
  }
  s.t_step = solver.steps() > 0 ? since(loop_start) / static_cast<Real>(solver.steps()) : 0;
  s.steps = solver.steps();
  s.frames = e.frames;
  s.time = solver.time();
  s.kinetic_energy = solver.kinetic_energy();
  s.potential_energy = solver.potential_energy();
  s.damped_energy = solver.damped_energy();
  s.svg_path = recorder.plot();
  result.load_steps = e.frames;
}

void write_explicit_summary(const SceneRunResult& r, std::ostream& out) {
  const ExplicitRunSummary& s = r.explicit_dynamics;
  const std::ios::fmtflags flags = out.flags();
  out << std::setprecision(6) << "softik: " << r.name << ": explicit dynamics (" << s.model << ", " << s.scheme
      << "): " << s.steps << " steps of " << s.time_step << " s to t = " << s.time << " in " << s.frames << " frames, "
      << std::fixed << std::setprecision(2) << r.seconds << " s; " << r.num_cells << " cells, " << r.num_dofs
      << " DOFs";
  if (s.model == "node_network") out << "; " << s.nodes << " nodes, " << s.links << " links";
  if (s.volume_cells > 0) out << ", " << s.volume_cells << " volume cells";
  out << "\n";
  out.unsetf(std::ios::floatfield);
  out << std::setprecision(6) << "  stable time step at the end " << s.stable_time_step << " s; mean time per step "
      << 1e6 * s.t_step << " us\n"
      << "  energy at the end: kinetic " << s.kinetic_energy << ", potential " << s.potential_energy << ", damped "
      << s.damped_energy << "\n";
  for (const PressureSummary& p : r.pressures)
    out << "  pressure " << p.name << ": p = " << p.pressure << ", volume " << p.volume << "\n";
  out << "  history plot: " << s.svg_path << "\n";
  out.flags(flags);
}

}  // namespace softik::scene_detail
