// A scene built into the library's objects (BuiltScene: mesh, materials, Assembler, loads,
// constraints, obstacles) and run (run_scene: a static load ramp or arc-length continuation, an
// inverse problem, time integration), with what a run reports (SceneRunResult and its summaries)
// and writes (<out>/<name>.csv, .vtu, .pvd). The description it starts from: scene_description.hpp.
#pragma once

#include <array>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "softik/scene_description.hpp"

namespace softik {

/// A probe located in the mesh: its displacement is sum_k weights[k] * u[nodes[k]].
struct BuiltProbe {
  std::string name;
  std::array<Real, 3> point{0, 0, 0};
  int cell = -1;
  std::vector<int> nodes;
  std::vector<Real> weights;
};

/// The probe's displacement at positions x (num_dofs of `mesh`, its built mesh):
/// sum_k weights[k] (x - X)[nodes[k]].
std::array<Real, 3> probe_displacement(const Mesh& mesh, const BuiltProbe& probe, const std::vector<Real>& x);

/// A scene turned into the objects the solver takes.
/// A fixed or prescribed set's DOFs (those it holds that no earlier set holds), for its reaction.
struct ReactionSet {
  std::string name;
  std::vector<int> dofs;
};

struct BuiltScene {
  Mesh mesh;                        ///< placed (transforms applied); with bodies: all of them, merged (merge_meshes)
  MeshParts parts;                  ///< with bodies: where each body's nodes and cells start in `mesh`; else empty
  std::vector<Material> materials;  ///< one per cell
  std::vector<char> fixed_dofs;     ///< num_dofs entries, fixed and prescribed DOFs non-zero
  std::unique_ptr<Assembler> assembler;  ///< null when the body is a network read from a file
  /// The node network of a node_network model (explicit: or continuation:), built from the mesh
  /// or read from the network file (then `mesh` holds its nodes without cells); null otherwise.
  std::shared_ptr<const NodeNetwork> network;
  Loads loads;           ///< nodal (forces + gravity), pressures, prescribed
  NewtonOptions newton;  ///< without on_step (run_scene sets it)
  LinearSolverKind linear_solver = LinearSolverKind::Automatic;
  std::vector<BuiltProbe> probes;
  /// The inverse problem's constraints, in the scene's order (actuators, then effectors);
  /// empty without `inverse:`. effectors[i] belongs to scene.inverse.effectors[i].
  std::vector<std::shared_ptr<Constraint>> actuators;
  std::vector<std::shared_ptr<Constraint>> effectors;
  std::vector<Real> effector_tolerances;            ///< resolved reach tolerances, per effector
  std::vector<Real> gravity;                        ///< the gravity part of loads.nodal (empty without gravity)
  std::vector<std::shared_ptr<Constraint>> cables;  ///< loads.cable, in the scene's order
  std::vector<Obstacle> obstacles;                  ///< contact.obstacles, mesh files read
  std::vector<int> contact_nodes;                   ///< contact.nodes resolved (empty: the boundary)
  std::vector<MovingSupport> supports;              ///< the `fixed` entries with a motion, nodes resolved
  std::vector<ReactionSet> reaction_sets;           ///< every fixed and prescribed entry, in the scene's order
  std::vector<int> monitor_nodes;                   ///< continuation.monitor's node selection resolved
  std::vector<std::string> warnings;                ///< e.g. a flipped cavity surface
};

/// The force and the moment each fixed and prescribed set puts on the body, (Fx, Fy, Fz, Mx, My,
/// Mz) per set: F = sum of R_k over the set's DOFs k, M = sum over its nodes of (x_n - c) x R_n about
/// c, the mean position of its nodes at x. R (num_dofs) is the force the supports put on each DOF:
/// in statics R = -(f + f_ext), the elastic force and the loads at x (static_reactions).
std::vector<std::array<Real, 6>> set_reactions(const BuiltScene& built, const std::vector<Real>& x,
                                               const std::vector<Real>& R);
/// R = -(f + f_ext) on the fixed DOFs (0 elsewhere) of a static state: the elastic force, the
/// nodal loads at `load_factor` and the pressures `pressures` (one per loads.pressures) at x.
std::vector<Real> static_reactions(const BuiltScene& built, const std::vector<Real>& x, Real load_factor,
                                   const std::vector<Real>& pressures);

/// Builds the mesh (file or generator), one material per cell, the fixed-DOF mask, the loads
/// and the solver options. Errors name the scene location of the offending entry.
BuiltScene build_scene(const Scene& scene);

struct SceneRunOptions {
  std::string out_dir;  ///< created if missing
  /// A log line per converged load step, inverse goal or saved time step (null: quiet); the
  /// `softik` program uses on_progress instead.
  std::ostream* progress = nullptr;
  std::ostream* warnings = nullptr;  ///< "softik: warning: ..." lines (null: dropped)
  /// Called after every load step (static), time step (dynamic), inverse step (real-time) or
  /// goal (converged inverse) with k of N and an ETA (progress.hpp); empty: not called.
  ProgressCallback on_progress = {};
};

struct PressureSummary {
  std::string name;
  Real pressure = 0;  ///< at the last converged step
  Real volume0 = 0;   ///< rest volume (0 for open surfaces)
  Real volume = 0;
};

/// A fixed or prescribed set's reaction at the end of a run (outputs.reactions): the force and the
/// moment about its nodes' centroid that the support puts on the body.
struct ReactionSummary {
  std::string name;
  std::array<Real, 3> force{0, 0, 0};
  std::array<Real, 3> moment{0, 0, 0};
};

struct ProbeSummary {
  std::string name;
  std::array<Real, 3> point{0, 0, 0};
  std::array<Real, 3> displacement{0, 0, 0};
};

/// An actuator's outputs at the end of an inverse run (Constraint::outputs()).
struct ActuatorSummary {
  std::string name;
  bool sensor = false;
  std::vector<std::pair<std::string, Real>> outputs;
};

/// How close an effector came to its goals: the error at the end of each goal of the sequence.
struct EffectorSummary {
  std::string name;
  std::string unit;  ///< "length" or "volume"
  Real tolerance = 0;
  Real final_error = 0;        ///< at the end of the run, against the last goal
  Real worst_error = 0;        ///< the largest end-of-goal error over the sequence
  int goals = 0, reached = 0;  ///< goals visited, and those ended within tolerance
};

/// What an inverse run did (scene with `inverse:`).
struct InverseRunSummary {
  bool enabled = false;
  std::string mode, method;
  int steps = 0;  ///< inverse steps (real-time) or solve() iterations (converged), all goals
  int goals = 0;
  int not_optimal = 0;       ///< real-time: steps, converged: goals whose constraint-space answer was not Optimal
  std::string last_message;  ///< the last infeasibility / iteration-limit / non-convergence explanation
  int unconverged = 0;       ///< converged mode: goals whose solve() did not converge
  /// Mean seconds per step, by phase.
  Real t_assembly = 0, t_factorization = 0, t_solves = 0, t_constraint_solve = 0, t_update = 0;
  std::vector<ActuatorSummary> actuators;
  std::vector<EffectorSummary> effectors;
  /// inverse.force_targets at the end of the run: the normal force reached (as the last step's
  /// linearised constraint-space solve gives it) against the target.
  struct ForceTarget {
    std::string name, obstacle;
    Real target = 0, force = 0, tolerance = 0;
    bool met() const { return std::abs(force - target) <= tolerance; }
  };
  std::vector<ForceTarget> force_targets;
  /// Every effector reached all its goals and every force target is met.
  bool all_reached() const;
};

/// What a dynamic run did (scene with `dynamics:`).
struct DynamicRunSummary {
  bool enabled = false;
  std::string scheme;
  int steps = 0;
  Real time = 0;
  int cut_steps = 0;  ///< steps that were cut into sub-steps
  int newton_iterations = 0;
  int factorizations = 0;
  Real kinetic_energy = 0, elastic_energy = 0;  ///< at the end
  int max_contacts = 0;
  Real max_penetration = 0;  ///< over all steps, after the correction
  int unconverged_contact_solves = 0;
  Real last_contact_residual = 0;
  Real normal_force = 0;  ///< at the end
  /// Mean seconds per step: whole step, detection, compliance, contact solve.
  Real t_step = 0, t_detection = 0, t_compliance = 0, t_contact_solve = 0;
};

/// What an explicit run did (scene with `explicit:`).
struct ExplicitRunSummary {
  bool enabled = false;
  std::string model, scheme;
  long steps = 0;
  int frames = 0;
  Real time = 0;
  Real time_step = 0, stable_time_step = 0;                          ///< dt, and dt_c at the end
  Real kinetic_energy = 0, potential_energy = 0, damped_energy = 0;  ///< at the end
  int nodes = 0, links = 0;                                          ///< node_network
  int volume_cells = 0;  ///< node_network: cells with a volume term (poisson > 0.25)
  Real t_step = 0;       ///< mean seconds per time step
  std::string svg_path;  ///< `NAME_history.svg` (NAME: the scene name): probes and energies against time, load against
                         ///< displacement
};

/// What a continuation run did (scene with `continuation:`).
struct ContinuationRunSummary {
  /// A limit point of the load, between two path points: the extremum of the parabola through
  /// the three points around it (load and monitored displacement as functions of the arc).
  struct Limit {
    int step = 0;           ///< the path point after it (PathPoint::limit_point_passed)
    Real load_factor = 0;   ///< the estimate at the extremum
    Real load = 0;          ///< the plotted load there (pressure or load factor)
    Real displacement = 0;  ///< the monitored displacement there
  };
  bool enabled = false;
  std::string status;   ///< arc_length_status_name
  bool failed = false;  ///< ArcLengthStatus::StepFailed (unmet_goals reports it)
  std::string message;  ///< what ended the continuation
  int points = 0;       ///< path points, the starting point included
  Real min_load_factor = 0, max_load_factor = 0;
  std::string load_label, monitor_label;  ///< the plot's axes
  std::vector<Limit> limits;
  int bifurcations = 0;  ///< points with bifurcation_suspected
  int iterations = 0, step_cuts = 0;
  std::string svg_path;
  int nodes = 0, links = 0, volume_cells = 0;  ///< model node_network
};

struct SceneRunResult {
  std::string name;
  int num_dofs = 0, num_free_dofs = 0, num_cells = 0;
  int load_steps = 0;         ///< converged increments
  int newton_iterations = 0;  ///< over all increments, cut ones included
  int step_cuts = 0;
  int factorizations = 0;     ///< numeric factorisations of the tangent (static solves)
  int krylov_iterations = 0;  ///< conjugate-gradient iterations of Krylov steps (solver.krylov_iterations)
  Real load_factor = 0;       ///< of the last converged increment (1 on success)
  double seconds = 0;         ///< wall time of the solve (outputs included)
  std::vector<PressureSummary> pressures;
  std::vector<ProbeSummary> probes;
  std::vector<ReactionSummary> reactions;  ///< outputs.reactions
  std::string csv_path, pvd_path;
  int vtu_files = 0;
  InverseRunSummary inverse;
  DynamicRunSummary dynamics;
  ExplicitRunSummary explicit_dynamics;
  ContinuationRunSummary continuation;
  std::vector<Real> frequencies;  ///< modes: the natural frequencies found, ascending
  std::vector<std::string> warnings;
};

/// Builds and solves the scene, writing into options.out_dir: <name>.csv (one row for the rest
/// state and one per converged load step), and with outputs.vtu <name>_NNNN.vtu per output step
/// plus <name>.pvd. Rows and files are flushed as the steps converge, so a failed run leaves what
/// it had. Throws softik::Error (the Newton solver's report on non-convergence).
SceneRunResult run_scene(const Scene& scene, const SceneRunOptions& options);

/// The time integration a scene with `dynamics:` describes, as `run_scene` sets it up (for
/// embedding users and the Python module stepping it themselves): the loads over time (gravity
/// and the other nodal forces, pressures with their factors, cables with their tensions) ...
DynamicLoads scene_dynamic_loads(const Scene& scene, const BuiltScene& built);
/// ... the options (time scheme, damping, contact with the built obstacles) ...
DynamicsOptions scene_dynamics_options(const Scene& scene, const BuiltScene& built);
/// ... and with `inverse:`, its control: the scene's actuators and effectors added to `dyn`
/// (DynamicSolver::add_control) with its method and epsilon, the effectors at their first goal.
void scene_dynamic_control(const Scene& scene, const BuiltScene& built, DynamicSolver& dyn);
/// ... and a cable's tension over time: force x over_time (the constant force without a table).
TimeFunction scene_cable_tension(const SceneCable& cable);

/// A human-readable summary of a run (the CLI prints it at the end).
void write_summary(const SceneRunResult& result, std::ostream& out);

/// Whether an inverse run met its goals: empty when every effector ended each goal within its
/// tolerance and every converged solve converged; otherwise why not, one line per effector
/// (by how much it missed: final and worst error against the tolerance) and the solver's last
/// explanation (an infeasible or unbounded QP, a bound, non-convergence); for a continuation run
/// that ended with ArcLengthStatus::StepFailed, why (its outputs hold the path so far). A forward run that
/// returns has met its goal (a failed Newton solve throws ErrorKind::Numerical). The CLI exits
/// with status 2 when this is not empty.
std::string unmet_goals(const SceneRunResult& result);

}  // namespace softik
