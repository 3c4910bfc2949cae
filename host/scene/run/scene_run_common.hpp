// Shared by the forward (scene_run.cpp) and inverse (scene_run_inverse.cpp) scene runners.
#pragma once

#include <array>
#include <chrono>
#include <fstream>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "host/io/csv_writer.hpp"
#include "softik/mesh_io.hpp"
#include "softik/scene.hpp"

namespace softik::scene_detail {

using Clock = std::chrono::steady_clock;
inline double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Calls options.on_progress (the caller checks that it is set) for k of `total` items finished,
/// the first of them begun at `started`.
inline void report_progress(const SceneRunOptions& options, const char* what, int k, int total,
                            Clock::time_point started, std::string label) {
  options.on_progress(make_progress_event(what, k, total, since(started), std::move(label)));
}

/// A per-node DOF vector (dim components) as a 3-component point field.
std::vector<Real> to_3d(const Mesh& mesh, const std::vector<Real>& dofs);

/// Writes <out_dir>/<scene name>_NNNN.vtu for the state x (displacement, the given nodal force
/// field, von Mises stress; in the scene's outputs.vtu_format) and adds it to the .pvd
/// collection at `time`.
void write_state_vtu(const std::string& out_dir, const Scene& scene, const BuiltScene& built, int step, Real time,
                     const std::vector<Real>& x, const std::string& force_name, const std::vector<Real>& force,
                     PvdWriter& pvd);

/// Each pressure load's cavity volume at the rest positions (0 for an open surface).
std::vector<Real> rest_volumes(const BuiltScene& built);

/// What the recorders of the static, continuation, dynamic and explicit runs share: the run's
/// scene, options and result, the CSV table and .pvd collection they write, and each pressure
/// load's rest volume.
struct RunRecorder {
  RunRecorder(const Scene& scene_, const BuiltScene& built_, const SceneRunOptions& options_, Clock::time_point t0_,
              SceneRunResult& result_)
      : scene(scene_), built(built_), options(options_), t0(t0_), result(result_) {}

  /// volume0 = rest_volumes(built); then opens <out_dir>/<scene name>.csv into `csv`
  /// (result.csv_path; an Io error naming the file when it cannot be written) and, with
  /// outputs.vtu, the .pvd collection (result.pvd_path).
  void open_outputs();
  /// Ends the CSV's header row with the column `seconds` and sets the precision of the rows.
  void end_header();
  /// write_state_vtu of x at `step` and `time` with the nodal field `force_name`, counted in
  /// result.vtu_files.
  void save_state(int step, Real time, const std::vector<Real>& x, const std::string& force_name,
                  const std::vector<Real>& force);

  const Scene& scene;
  const BuiltScene& built;
  const SceneRunOptions& options;
  Clock::time_point t0;
  SceneRunResult& result;
  io_detail::CsvWriter csv;
  std::unique_ptr<PvdWriter> pvd;
  std::vector<Real> volume0;
};
/// The CSV columns `,p_<name>,volume_<name>` of every pressure load at positions x with the given
/// wall pressures, recorded in result.pressures (volume0: rest_volumes).
void write_pressure_columns(std::ostream& csv, const BuiltScene& built, const std::vector<Real>& pressures,
                            const std::vector<Real>& x, const std::vector<Real>& volume0, SceneRunResult& result);
/// The CSV columns `,ux_<name>,uy_<name>,uz_<name>` of every probe at x, recorded in result.probes.
void write_probe_columns(std::ostream& csv, const BuiltScene& built, const std::vector<Real>& x,
                         SceneRunResult& result);
/// With outputs.reactions: the header columns `,Fx_<set>,...,Mz_<set>` of every fixed and
/// prescribed set, and a row's values from the supports' forces R (set_reactions), recorded in
/// result.reactions; nothing without.
void write_reaction_header(std::ostream& csv, const Scene& scene, const BuiltScene& built);
void write_reaction_columns(std::ostream& csv, const Scene& scene, const BuiltScene& built, const std::vector<Real>& x,
                            const std::vector<Real>& R, SceneRunResult& result);
/// The scene's `contact:` as ContactOptions (obstacles and candidate nodes from the built scene).
ContactOptions scene_contact_options(const Scene& scene, const BuiltScene& built);

/// The number of goals of the inverse problem: the longest goal sequence (1 without effectors).
size_t inverse_goals(const SceneInverse& inverse);
/// Moves an effector's goal to its goal-th (held at its last when the sequence is shorter).
void set_effector_goal(const SceneEffector& e, Constraint& c, size_t goal);
/// An effector's error at its last accepted state: the distance over its axes, or |V - target|.
Real effector_error(const Constraint& c);
/// The summaries of the scene's effectors before the first goal (name, unit, tolerance).
std::vector<EffectorSummary> effector_summaries(const SceneInverse& inverse, const BuiltScene& built);
/// The summary of each effector after a goal: its error, and whether it is within tolerance.
void record_goal(const std::vector<std::shared_ptr<Constraint>>& effectors, InverseRunSummary& summary);
/// The summary's force targets from a step's target_forces (InverseStepReport).
void record_force_targets(const SceneInverse& inverse, const std::vector<Real>& forces, InverseRunSummary& summary);
/// The summary's actuator, sensor and effector lines and its warnings (static and dynamic runs).
void write_control_lines(const InverseRunSummary& summary, std::ostream& out);

/// run_scene for a scene already built (build_scene) at time t0: the batch runner builds its
/// designs first to group them (host/batch/design_batch.hpp).
SceneRunResult run_built_scene(const Scene& scene, BuiltScene& built, const SceneRunOptions& options,
                               Clock::time_point t0);

/// Runs a scene with `inverse:` (built by build_scene; the output folder exists), writing
/// <name>.csv (one row per step), the .vtu series and filling result (scene_run_inverse.cpp).
void run_inverse(const Scene& scene, BuiltScene& built, const SceneRunOptions& options, Clock::time_point t0,
                 SceneRunResult& result);

/// Runs a scene with `dynamics:` (scene_run_dynamics.cpp): <name>.csv with one row per time
/// step, a .vtu every outputs.every steps, and the dynamics part of the result.
void run_dynamics(const Scene& scene, BuiltScene& built, const SceneRunOptions& options, Clock::time_point t0,
                  SceneRunResult& result);
/// Runs a scene with `explicit:` (scene_run_explicit.cpp): <name>.csv with one row per frame,
/// a .vtu every outputs.every frames, and the explicit part of the result.
void run_explicit(const Scene& scene, BuiltScene& built, const SceneRunOptions& options, Clock::time_point t0,
                  SceneRunResult& result);
void write_explicit_summary(const SceneRunResult& result, std::ostream& out);
/// Runs a scene with `modes:` (scene_run_modes.cpp): <name>.csv with one row per mode (its
/// frequency and eigenvalue) and with outputs.vtu one .vtu per mode (the mass-normalised shape, and
/// as `displacement` the shape scaled to 5% of the bounding-box diagonal, for ParaView's warp).
void run_modes(const Scene& scene, BuiltScene& built, const SceneRunOptions& options, Clock::time_point t0,
               SceneRunResult& result);
/// Runs a static scene with `continuation:` (scene_run_continuation.cpp): <name>.csv with one
/// row per path point, a .vtu every outputs.every points, <name>_path.svg, and the continuation
/// part of the result; and its lines of the summary.
void run_continuation(const Scene& scene, BuiltScene& built, const SceneRunOptions& options, Clock::time_point t0,
                      SceneRunResult& result);
void write_continuation_summary(const SceneRunResult& result, std::ostream& out);
/// The dynamic run's lines of the summary.
void write_dynamic_summary(const SceneRunResult& result, std::ostream& out);

}  // namespace softik::scene_detail
