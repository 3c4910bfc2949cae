// A scene's description (docs/scene-format.md): the structs parse_scene fills from a YAML file,
// one per section (mesh, materials, loads, solver, outputs, inverse, dynamics, explicit,
// continuation, contact), each entry with its place in the file for messages. Building and
// running a scene: scene_run.hpp; both come with softik/scene.hpp.
//
// Every error is a softik::Error. Errors about the scene's content start with
// "<scene path>:<line>:<column>: " (1-based) and say what was expected there: the allowed keys
// for an unknown key, the expected type for a wrong one, the missing key for an incomplete map.
// Lengths, forces and pressures are in the scene's units (SI recommended: m, N, Pa, kg/m^3).
#pragma once

#include <array>
#include <cmath>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "softik/actuator_generator.hpp"
#include "softik/assembly.hpp"
#include "softik/constraints.hpp"
#include "softik/contact.hpp"
#include "softik/continuation.hpp"
#include "softik/dynamics.hpp"
#include "softik/explicit_dynamics.hpp"
#include "softik/inverse.hpp"
#include "softik/linear_solver.hpp"
#include "softik/loads.hpp"
#include "softik/material.hpp"
#include "softik/mesh.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/mesh_io.hpp"
#include "softik/mesh_transform.hpp"
#include "softik/modes.hpp"
#include "softik/progress.hpp"
#include "softik/static_solver.hpp"

namespace softik {

/// A place in the scene file, for messages: "<path>:<line>:<column>" (1-based).
struct SceneLocation {
  std::string path;
  int line = 0;
  int column = 0;
  std::string str() const;  ///< "path:line:column"
};

/// Where the mesh comes from: a file, or one of the generators.
struct SceneMesh {
  /// Network: a node network read from a YAML list (network_io.hpp, docs/node-network-format.md):
  /// the body is that network, the mesh its nodes (no cells).
  enum class Source { File, Box, Finger, Bellows, MultiCavity, Gripper, SphereShell, Network };
  /// generator type sphere_shell: make_thick_sphere_octant (shell_generator.hpp).
  struct SphereShell {
    Real inner_radius = 0, outer_radius = 0;  ///< required
    int layers = 2;                           ///< cells through the wall
    int cells = 4;                            ///< per side of each of the octant's three patches
    CellType cell_type = CellType::Tet4;
    Real radial_grading = 1;
  };
  Source source = Source::File;
  std::string file;  ///< resolved against the scene file's folder (Source::File and Network)
  Real scale = 1;    ///< applied to the coordinates read from `file` (Source::File)
  BoxSpec box;
  CellType box_cell_type = CellType::Tet4;
  FingerSpec finger;
  BellowsSpec bellows;
  MultiCavitySpec multi_cavity;
  GripperSpec gripper;
  SphereShell sphere_shell;
  /// `transform` (mesh_transform.hpp): places the mesh, and the cavity files drawn with it, in
  /// the scene: x = t + R (s p), applied after `scale`. Identity when not given.
  Transform transform;
  SceneLocation where;
};

/// One body of a multi-body scene (`bodies:`): its mesh, placed by its transform. The body's
/// own keys (materials, fixed, prescribed, loads) are merged into the scene's lists when the
/// scene is read, their group names prefixed "<body>/" and their selections and cavity files
/// marked with the body's index: coordinates written in a body are in its own frame.
struct SceneBody {
  std::string name;  ///< unique; a safe file-name component; names "<name>/<group>" in the mesh
  SceneMesh mesh;
  SceneLocation where;
};

/// A set of nodes: a named node group, an axis-aligned box, a plane, a sphere or an explicit list.
struct SceneSelection {
  enum class Kind { Group, Box, Plane, Nodes, Sphere };
  Kind kind = Kind::Group;
  std::string group;
  std::array<Real, 3> min{0, 0, 0}, max{0, 0, 0};       ///< box corners
  std::array<Real, 3> point{0, 0, 0}, normal{0, 0, 1};  ///< plane; sphere: `point` is its centre
  Real radius = 0;                                      ///< sphere
  Real tolerance = -1;                                  ///< absolute; < 0: 1e-6 x the mesh's bounding-box diagonal
  std::vector<int> nodes;
  std::array<bool, 3> components{true, true, true};  ///< which components it fixes / loads
  /// `fixed` and `prescribed` entries: names its reaction columns (outputs.reactions); empty: the
  /// group's name, or `fixed<i>` / `prescribed<i>`.
  std::string name;
  /// Written in bodies[body] (index): box, plane and node numbers are in that body's own frame
  /// and numbering, and only its nodes are selected; -1: the scene's (world frame, all nodes).
  int body = -1;
  SceneLocation where;
};

/// One region's material: `region` is a cell group ("" = all cells). Later entries override
/// earlier ones on the cells they share.
struct SceneMaterial {
  std::string region;
  /// `region: {box: ...}` or `{sphere: ...}`: the cells whose centroid lies in the shape (in a
  /// body's frame when written in a body); `region` is then empty.
  bool region_shape = false;
  SceneSelection shape;
  std::string law;  ///< the scene's law name (linear, neo_hookean, ...)
  Material material;
  SceneLocation where;
};

/// A `fixed` entry's `motion` (dynamics only): the support's rigid motion over time, in the
/// scene's frame; its nodes are those of Scene::fixed[fixed], resolved when the scene is built.
struct SceneSupportMotion {
  size_t fixed = 0;
  MovingSupport motion;
  SceneLocation where;
};

struct ScenePrescribed {
  SceneSelection selection;
  std::array<Real, 3> displacement{0, 0, 0};  ///< at load factor 1
};

struct SceneForce {
  SceneSelection selection;
  std::array<Real, 3> force{0, 0, 0};  ///< total at load factor 1, split evenly over the nodes
};

struct ScenePressure {
  std::string name;           ///< unique; names the CSV columns p_<name>, volume_<name>, ...
  std::string surface;        ///< a surface group of the mesh, or
  std::string file;           ///< an OBJ/STL cavity embedded in the mesh (resolved path)
  Real scale = 1;             ///< applied to the file's coordinates
  Real embed_tolerance = -1;  ///< < 0: 1e-6 x the mesh's bounding-box diagonal
  /// The load as the library takes it (cavity.hpp): `pressure` (the scene's `value`, at load
  /// factor 1), `closed`, and the `control` (pressure; volume: `volume_growth` imposed, the
  /// pressure solved; gas: `gas_amount` of ideal gas at `ambient_pressure`, Boyle's law; static
  /// load-ramp runs only). Its name, surface, embedding and follower flag are set when the scene
  /// is built, from the keys above and `follower` below.
  PressureLoad load;
  /// A symmetry sector of a closed cavity: open only along the planes x = 0, y = 0, z = 0, its
  /// volume the sector's (surface `symmetry_sector`; surface groups only).
  bool symmetry_sector = false;
  bool allow_flip = true;
  /// loads.pressure `follower`: 1 a follower load, 0 a dead load (PressureLoad::follower), -1 not
  /// given: follower for the geometrically nonlinear formulations, dead for formulation: linear.
  int follower = -1;
  TimeFunction over_time;  ///< dynamics: the factor of `value` over time (empty: 1)
  /// Written in bodies[body]: its `file` is in that body's frame (moved by its transform); -1:
  /// the scene's (the single mesh's transform moves the file; with bodies: the world frame).
  int body = -1;
  SceneLocation where;
};

/// loads.cable: a tendon through points of the body, pulled from a fixed point with a tension
/// that follows a function of time (dynamics only; a static scene drives a cable as an inverse
/// actuator with a fixed force).
struct SceneCable {
  std::string name;  ///< unique among the cables; names the CSV columns T_<name>, length_<name>
  std::array<Real, 3> pull_point{0, 0, 0};
  std::vector<std::array<Real, 3>> points;  ///< on the body, from the pull side to the cable's end
  Real tolerance = -1;                      ///< point location; < 0: 1e-6 x the mesh's bounding-box diagonal
  Real force = 0;                           ///< tension (N) at factor 1, >= 0
  TimeFunction over_time;                   ///< the factor of `force` over time (empty: 1), >= 0
  SceneLocation where;
};

struct SceneGravity {
  bool enabled = false;
  Real density = 0;
  std::array<Real, 3> g{0, 0, -9.81};
  TimeFunction over_time;  ///< dynamics: the factor of g over time (empty: 1)
  SceneLocation where;
};

struct SceneProbe {
  std::string name;
  std::array<Real, 3> point{0, 0, 0};
  Real tolerance = -1;  ///< how far outside the mesh the point may be; < 0: 1e-6 x diagonal
  SceneLocation where;
};

/// NewtonOptions with the scene's defaults (10 load steps; the rest NewtonOptions' own).
inline NewtonOptions scene_newton_defaults() {
  NewtonOptions o;
  o.load_steps = 10;
  return o;
}

struct SceneSolver {
  /// The static Newton solver's options (static_solver.hpp; `solver.load_steps` ... `extrapolate`),
  /// with the scene's default of 10 load steps; on_step is set by the run, not by the scene.
  NewtonOptions newton = scene_newton_defaults();
  /// auto: choose_linear_solver(backend, free DOFs) at build time (CHOLMOD on the CPU backend;
  /// cuda-dense, cudss or cuda-pcg by size on the CUDA backend).
  LinearSolverKind linear_solver = LinearSolverKind::Automatic;
  Backend backend = Backend::Cpu;  ///< where assembly runs (the CLI's --backend overrides it)
  int threads = 0;                 ///< 0: all hardware threads
};

struct SceneOutputs {
  bool vtu = true;
  int every = 1;  ///< write a .vtu every N converged load steps (the rest state and the last always)
  VtuEncoding vtu_format = VtuEncoding::Compressed;  ///< outputs.vtu_format: compressed, binary or ascii
  std::vector<SceneProbe> probes;
  /// outputs.reactions: the force and moment every fixed and prescribed set puts on the body, per
  /// step in the CSV (static load ramps and dynamics).
  bool reactions = false;
};

/// An actuator or sensor of the inverse problem (`inverse.actuators`, constraints.hpp): a
/// pressurised cavity, a cable or a point force. Equal bounds impose the value (forward mode).
struct SceneActuator {
  enum class Type { Pressure, Cable, Force };
  Type type = Type::Pressure;
  std::string name;
  bool sensor = false;                      ///< report its displacement only, never actuate
  ScenePressure cavity;                     ///< Pressure: the cavity wall (surface group or file); `value` unused
  Interval force;                           ///< bounds on lambda: pressure (Pa) or force (N)
  Interval displacement;                    ///< bounds on delta: volume growth (m^3) or cable displacement (m)
  Real max_variation = kInf;                ///< per step, of the volume growth or cable displacement
  std::array<Real, 3> pull_point{0, 0, 0};  ///< Cable
  std::vector<std::array<Real, 3>> points;  ///< Cable: points on the body; Force: one point
  std::array<Real, 3> direction{0, 0, 0};   ///< Force: unit direction, or 0 (free in 3D)
  Real tolerance = -1;                      ///< how far outside the mesh a point may be; < 0: 1e-6 x diagonal
  SceneLocation where;
};

/// An effector (`inverse.effectors`): a point of the body that should reach a goal, or a cavity
/// that should reach a volume. Goals form a sequence (one fixed goal, waypoints, or the rows of
/// a CSV trajectory); the run visits them in order.
struct SceneEffector {
  enum class Type { Position, Volume };
  Type type = Type::Position;
  std::string name;
  std::array<Real, 3> point{0, 0, 0};  ///< Position: rest position of the point
  std::array<bool, 3> axes{true, true, true};
  std::array<Real, 3> weights{1, 1, 1};
  Real max_shift = 0;                      ///< per step; 0: no limit
  Real locate_tolerance = -1;              ///< < 0: 1e-6 x diagonal
  std::vector<std::array<Real, 3>> goals;  ///< Position: at least one
  ScenePressure cavity;                    ///< Volume: the cavity wall
  std::vector<Real> volumes;               ///< Volume: target volumes, at least one
  /// Reached when the error (distance over the selected axes, or |V - target|) is at most this;
  /// < 0: 1e-3 x the mesh's bounding-box diagonal (position) or 1e-3 x the rest volume (volume).
  Real tolerance = -1;
  SceneLocation where;
};

/// The inverse problem of a scene (`inverse:`); absent: the scene is a forward static solve.
/// A goal for the normal force on an obstacle (`inverse.force_targets`; needs `contact:`).
struct SceneForceTarget {
  ContactForceTarget target;
  Real tolerance = -1;  ///< N; < 0: 1e-4 x the force (1e-9 N for a zero force)
  SceneLocation where;
};

/// The inverse problem (`inverse:`): solved quasi-statically, or with `dynamics:` inside the
/// dynamic loop (one control step per time step, `steps_per_target` time steps per goal).
struct SceneInverse {
  enum class Mode { RealTime, Converged };
  bool enabled = false;
  Mode mode = Mode::RealTime;
  /// The solver's options as the scene sets them: method, epsilon, actuator_stiffness and
  /// reuse_factorization (real-time), max_iterations and min_increment (converged); the others
  /// keep the library's defaults.
  InverseOptions options;
  int steps_per_target = 20;  ///< real-time steps per goal of the sequence
  std::vector<SceneActuator> actuators;
  std::vector<SceneEffector> effectors;
  std::vector<SceneForceTarget> force_targets;
  SceneLocation where;
};

/// Time integration (`dynamics:`); absent: the scene is static.
struct SceneDynamics {
  bool enabled = false;
  DynamicsOptions options;  ///< everything but `contact` (SceneContact)
  Real duration = 0;
  int steps = 0;  ///< ceil(duration / dt)
  SceneLocation where;
};

/// Explicit time integration (`explicit:`, explicit_dynamics.hpp) of the body as an FEM model
/// with lumped mass or as a node network built from its mesh; absent: not explicit.
/// The body a time integration or continuation moves: the FEM mesh, or a node network (built
/// from the mesh, or read from a network file by mesh: {network: ...}).
enum class SceneModel { Fem, NodeNetwork };

struct SceneExplicit {
  using Model = SceneModel;
  bool enabled = false;
  Model model = Model::Fem;
  NetworkFromMesh network;       ///< node_network: youngs_modulus from materials[0] (law linear), density below
  bool network_options = false;  ///< `explicit.network:` was given
  ExplicitOptions options;       ///< steps_per_frame is set from frame_interval / dt at run time
  Real density = -1;             ///< < 0: loads.gravity.density (checked when the scene is read)
  Real duration = 0;
  Real frame_interval = 0;  ///< seconds between output frames (CSV rows and .vtu files)
  int frames = 0;           ///< ceil(duration / frame_interval)
  SceneLocation where;
};

/// Arc-length continuation of a static scene (`continuation:`, continuation.hpp): the load
/// factor becomes an unknown, so the path can pass limit points of the load; absent: load control.
struct SceneContinuation {
  /// What the path's abscissa is: a probe's displacement component, the mean of a component over
  /// selected nodes, or (nothing given) the root mean square of the nodes' displacements.
  enum class Monitor { RmsDisplacement, Probe, Nodes };
  bool enabled = false;
  SceneModel model = SceneModel::Fem;
  /// model node_network from the mesh: youngs_modulus and poissons_ratio from materials[0] (law
  /// linear); the masses play no part in statics (density 1 when loads.gravity gives none).
  NetworkFromMesh network;
  bool network_options = false;  ///< `continuation.network:` was given
  /// Arc lengths here are root-mean-square node displacements: the library's arcs (the norm over
  /// all DOFs) divided by sqrt(number of nodes) at run time. on_step and monitored_dof unused.
  ArcLengthOptions options;
  Monitor monitor = Monitor::RmsDisplacement;
  std::string probe;     ///< Monitor::Probe: a name of outputs.probes
  SceneSelection nodes;  ///< Monitor::Nodes
  int component = 3;     ///< 0, 1, 2: x, y, z; 3: the magnitude |u| (of the probe, or mean over the nodes)
  SceneLocation where, monitor_where;
};

/// A rigid obstacle of `contact.obstacles`; a mesh obstacle's triangles are read at build time.
struct SceneObstacle {
  Obstacle obstacle;
  std::string file;  ///< type mesh: the OBJ/STL file (resolved against the scene's folder)
  Real scale = 1;    ///< applied to the file's coordinates
  SceneLocation where;
};

/// Natural frequencies and mode shapes of the unloaded body (`modes:`, modes.hpp) instead of a
/// load ramp; absent: not computed.
struct SceneModes {
  bool enabled = false;
  ModesOptions options;  ///< density from modes.density, else loads.gravity.density
  SceneLocation where;
};

/// Contact (`contact:`), solved in the dynamic loop or inside a (static) inverse problem.
struct SceneContact {
  bool enabled = false;
  std::vector<SceneObstacle> obstacles;
  std::vector<SceneSelection> nodes;  ///< which nodes can touch obstacles (empty: the boundary)
  /// The contact options of the solvers (contact.hpp): between_parts, friction between parts
  /// (body_friction), distance (contact_distance), alarm_distance, tolerance, solver; its
  /// obstacles and nodes are made from `obstacles` and `nodes` when the scene is built.
  ContactOptions options;
  SceneLocation where;
};

struct Scene {
  std::string path;  ///< the scene file (as given)
  std::string name;  ///< `name:` or the file's stem; names the outputs
  std::string description;
  SceneMesh mesh;                 ///< the single body (`mesh:`); unused with `bodies:`
  std::vector<SceneBody> bodies;  ///< `bodies:` (empty: the single body `mesh:`)
  Formulation formulation = Formulation::Hyperelastic;
  SceneLocation formulation_where;
  /// `dilatation:` pointwise | cell_mean | nodal_mean (AssemblyOptions::dilatation).
  fem::Dilatation dilatation = fem::Dilatation::Pointwise;
  SceneLocation dilatation_where;
  std::vector<SceneMaterial> materials;
  std::vector<SceneSelection> fixed;
  std::vector<SceneSupportMotion> supports;  ///< the `fixed` entries with a `motion`
  std::vector<ScenePrescribed> prescribed;
  std::vector<ScenePressure> pressures;
  std::vector<SceneCable> cables;
  SceneGravity gravity;
  std::vector<SceneForce> forces;
  SceneSolver solver;
  SceneOutputs outputs;
  SceneInverse inverse;
  SceneDynamics dynamics;
  SceneExplicit explicit_dynamics;  ///< `explicit:`
  SceneContinuation continuation;
  SceneContact contact;
  SceneModes modes;
};

/// Reads and checks a scene file (strict: unknown keys, wrong types, missing required keys and
/// invalid material parameters are errors naming the line and column).
Scene parse_scene(const std::string& path);
/// The same from YAML text; `path` is used in messages and to resolve relative file names.
Scene parse_scene_string(const std::string& yaml, const std::string& path);

}  // namespace softik
