// Runs a scene with `explicit:` (explicit_dynamics.hpp): the body as an FEM model with lumped
// mass or as a node network built from its mesh, integrated over the duration in frames of
// frame_interval; one CSV row per frame (time, steps, energies, the stable step, pressures,
// probes) and a .vtu every outputs.every frames (displacement, velocity, von Mises of the mesh's
// cells at the nodes' positions), collected in the .pvd.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "host/scene/scene_run_common.hpp"
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

struct ExplicitRecorder {
  const Scene& scene;
  const BuiltScene& built;
  const SceneRunOptions& options;
  Clock::time_point t0;
  SceneRunResult& result;
  std::ofstream csv;
  std::unique_ptr<PvdWriter> pvd;
  std::vector<Real> volume0;

  void open() {
    volume0 = rest_volumes(built);
    open_outputs(scene, options, result, csv, pvd);
    csv << "frame,step,time,kinetic_energy,potential_energy,damped_energy,stable_time_step";
    for (const PressureLoad& p : built.loads.pressures) csv << ",p_" << p.name << ",volume_" << p.name;
    for (const BuiltProbe& p : built.probes) csv << ",ux_" << p.name << ",uy_" << p.name << ",uz_" << p.name;
    csv << ",seconds\n" << std::setprecision(10);
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
    csv << "," << since(t0) << "\n";
    csv.flush();
    SOFTIK_CHECK_IO(csv, "writing '" << result.csv_path << "' failed (" << std::strerror(errno)
                                     << "): is the disk full? The rows of the frames before are in the file");
    if (scene.outputs.vtu && vtu_due) {
      write_state_vtu(options.out_dir, scene, built, frame, solver.time(), x, "velocity", solver.v(), *pvd);
      ++result.vtu_files;
    }
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
    const NodeNetwork net = make_node_network(built.mesh, e.network);
    s.model = "node_network";
    s.nodes = net.num_nodes();
    s.links = net.num_links();
    model = std::make_unique<NodeNetworkModel>(net, built.fixed_dofs, explicit_loads(scene, built), scene.solver.threads,
                                               scene.solver.backend);
  } else {
    s.model = "fem";
    model = std::make_unique<FemExplicitModel>(*built.assembler, e.density, explicit_loads(scene, built));
  }
  ExplicitOptions o = e.options;
  o.steps_per_frame = 1 << 30;  // frames are the advance() calls below: one stable-step check each
  ExplicitSolver solver(*model, o);
  s.time_step = solver.time_step();
  ExplicitRecorder recorder{scene, built, options, t0, result, {}, nullptr, {}};
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
      out << "softik: frame " << frame << "/" << e.frames << "  t = " << std::setprecision(6) << solver.time() << "  steps "
          << solver.steps() << "  kinetic " << std::scientific << std::setprecision(3) << solver.kinetic_energy()
          << "  potential " << solver.potential_energy() << "  elapsed " << std::fixed << std::setprecision(2) << since(t0)
          << " s\n";
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
  result.load_steps = e.frames;
}

void write_explicit_summary(const SceneRunResult& r, std::ostream& out) {
  const ExplicitRunSummary& s = r.explicit_dynamics;
  const std::ios::fmtflags flags = out.flags();
  out << std::setprecision(6) << "softik: " << r.name << ": explicit dynamics (" << s.model << ", " << s.scheme << "): "
      << s.steps << " steps of " << s.time_step << " s to t = " << s.time << " in " << s.frames << " frames, "
      << std::fixed << std::setprecision(2) << r.seconds << " s; " << r.num_cells << " cells, " << r.num_dofs << " DOFs";
  if (s.model == "node_network") out << "; " << s.nodes << " nodes, " << s.links << " links";
  out << "\n";
  out.unsetf(std::ios::floatfield);
  out << std::setprecision(6) << "  stable time step at the end " << s.stable_time_step << " s; mean time per step "
      << 1e6 * s.t_step << " us\n"
      << "  energy at the end: kinetic " << s.kinetic_energy << ", potential " << s.potential_energy << ", damped "
      << s.damped_energy << "\n";
  for (const PressureSummary& p : r.pressures) out << "  pressure " << p.name << ": p = " << p.pressure << ", volume " << p.volume << "\n";
  out.flags(flags);
}

}  // namespace softik::scene_detail
