// Scene -> mesh, one material per cell, fixed DOFs, Loads, solver options, probes.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "host/scene/build/scene_build.hpp"
#include "host/scene/build/scene_build_warnings.hpp"
#include "host/scene/build/scene_builder.hpp"
#include "softik/actuator_generator.hpp"
#include "softik/contact.hpp"
#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/mesh_io.hpp"
#include "softik/mesh_selection.hpp"
#include "softik/mesh_transform.hpp"
#include "softik/network_io.hpp"
#include "softik/point_location.hpp"
#include "softik/scene.hpp"
#include "softik/shell_generator.hpp"
#include "softik/surface.hpp"

namespace softik::scene_build {

using scene_detail::warn_csv_size;
using scene_detail::warn_obstacles_inside;

namespace {

Mesh make_mesh(const SceneMesh& spec) {
  switch (spec.source) {
    case SceneMesh::Source::Box:
      return located(spec.where, "mesh.generator (box)", [&] { return make_box(3, spec.box_cell_type, spec.box); });
    case SceneMesh::Source::Finger:
      return located(spec.where, "mesh.generator (finger)", [&] { return make_finger(spec.finger); });
    case SceneMesh::Source::Bellows:
      return located(spec.where, "mesh.generator (bellows)", [&] { return make_bellows(spec.bellows); });
    case SceneMesh::Source::MultiCavity:
      return located(spec.where, "mesh.generator (multi_cavity)",
                     [&] { return make_multi_cavity_block(spec.multi_cavity); });
    case SceneMesh::Source::Gripper:
      return located(spec.where, "mesh.generator (gripper)", [&] { return make_gripper(spec.gripper); });
    case SceneMesh::Source::SphereShell:
      return located(spec.where, "mesh.generator (sphere_shell)", [&] {
        const SceneMesh::SphereShell& s = spec.sphere_shell;
        // 3 n^2 hexahedra per layer on (3 n^2 + 3 n + 1) nodes per sphere; six tets per hexahedron.
        const double n = s.cells, per_sphere = 3 * n * n + 3 * n + 1, hexes = 3 * n * n * s.layers;
        const double nodes = per_sphere * (s.layers + 1) * (s.cell_type == CellType::Tet10 ? 8 : 1);
        check_generated_size("sphere_shell", nodes, s.cell_type == CellType::Hex8 ? hexes : 6 * hexes, s.cell_type);
        return make_thick_sphere_octant(s.inner_radius, s.outer_radius, s.layers, s.cells, s.cell_type,
                                        s.radial_grading);
      });
    case SceneMesh::Source::File:
      break;
    case SceneMesh::Source::Network:
      fail(spec.where,
           "mesh.network: a node-network file has no cells to make a mesh of (build_scene reads it as "
           "the body itself)");
  }
  MeshData data = located(spec.where, "mesh.file", [&] { return read_mesh_data(spec.file); });
  add_cell_data_groups(data);  // regions and selections by the file's cell data ("material=2")
  for (Real& x : data.mesh.X) x *= spec.scale;
  return std::move(data.mesh);
}

/// The placed mesh of a single-body scene, or the bodies' placed meshes merged; `frames` gets
/// each body's mesh in its own frame (coordinates only), for the selections written in it.
Mesh placed_mesh(const Scene& scene, MeshParts& parts, std::vector<Mesh>& frames) {
  if (scene.bodies.empty()) {
    Mesh mesh = make_mesh(scene.mesh);
    transform_mesh(scene.mesh.transform, mesh);
    return mesh;
  }
  std::vector<NamedMesh> placed;
  for (const SceneBody& body : scene.bodies) {
    Mesh mesh = make_mesh(body.mesh);
    frames.push_back(Mesh{});
    frames.back().dim = mesh.dim;
    frames.back().X = mesh.X;
    transform_mesh(body.mesh.transform, mesh);
    placed.push_back({body.name, std::move(mesh)});
  }
  return located(scene.bodies.front().where, "bodies", [&] { return merge_meshes(placed, &parts); });
}

/// Weight of a network's nodes, mass x g per DOF.
std::vector<Real> network_weight(const NodeNetwork& net, const std::array<Real, 3>& g) {
  std::vector<Real> w(3 * static_cast<size_t>(net.num_nodes()));
  for (size_t k = 0; k < w.size(); ++k) w[k] = net.mass[k / 3] * g[k % 3];
  return w;
}

}  // namespace

const Transform& Builder::placement(int body) const {
  static const Transform identity;
  if (body >= 0) return scene.bodies[static_cast<size_t>(body)].mesh.transform;
  return scene.bodies.empty() ? scene.mesh.transform : identity;
}

std::vector<int> Builder::select(const SceneSelection& s, const std::string& what) const {
  if (s.body < 0 || s.kind == SceneSelection::Kind::Group) return select_in(out.mesh, s, what);
  // Written in a body: its own frame and numbering, its nodes only.
  const int first = out.parts.node_begin[static_cast<size_t>(s.body)];
  std::vector<int> nodes = select_in(frames[static_cast<size_t>(s.body)], s, what);
  for (int& n : nodes) n += first;
  return nodes;
}

std::vector<int> Builder::select_in(const Mesh& mesh, const SceneSelection& s, const std::string& what) const {
  std::vector<int> nodes;
  switch (s.kind) {
    case SceneSelection::Kind::Group: {
      const auto it = mesh.node_groups.find(s.group);
      if (it == mesh.node_groups.end())
        fail(s.where,
             what + ": the mesh has no node group '" + s.group + "'; its node groups: " + keys_of(mesh.node_groups));
      nodes = it->second;
      break;
    }
    case SceneSelection::Kind::Box:
      nodes = located(s.where, what, [&] { return nodes_in_box(mesh, s.min, s.max, tolerance(s.tolerance)); });
      break;
    case SceneSelection::Kind::Plane:
      nodes = located(s.where, what, [&] { return nodes_on_plane(mesh, s.point, s.normal, tolerance(s.tolerance)); });
      break;
    case SceneSelection::Kind::Sphere:
      nodes = located(s.where, what, [&] { return nodes_in_sphere(mesh, s.point, s.radius, tolerance(s.tolerance)); });
      break;
    case SceneSelection::Kind::Nodes:
      for (int n : s.nodes)
        if (n >= mesh.num_nodes())
          fail(s.where, what + ": node " + std::to_string(n) + " is out of range (the mesh has " +
                            std::to_string(mesh.num_nodes()) + " nodes, numbered from 0)");
      nodes = s.nodes;
      break;
  }
  if (nodes.empty())
    fail(s.where, what + ": selects no node; check the coordinates against the mesh (bounding-box diagonal " +
                      std::to_string(diagonal) + ") or widen 'tolerance'");
  return nodes;
}

std::vector<int> Builder::shape_cells(const SceneSelection& s) const {
  // The cells' centroids as points (a body's cells in its own frame), picked as nodes would be.
  Mesh centroids;
  int first = 0;
  if (s.body < 0) {
    centroids = cell_centroids(out.mesh);
  } else {
    const size_t b = static_cast<size_t>(s.body);
    const int node0 = out.parts.node_begin[b], cell0 = out.parts.cell_begin[b], cell1 = out.parts.cell_begin[b + 1];
    const size_t npc = static_cast<size_t>(nodes_per_cell(out.mesh.cell_type));
    Mesh own;
    own.dim = out.mesh.dim;
    own.cell_type = out.mesh.cell_type;
    own.X = frames[b].X;
    own.cells.assign(out.mesh.cells.begin() + static_cast<long>(cell0 * npc),
                     out.mesh.cells.begin() + static_cast<long>(cell1 * npc));
    for (int& n : own.cells) n -= node0;
    centroids = cell_centroids(own);
    first = cell0;
  }
  const Real tol = tolerance(s.tolerance);
  std::vector<int> picked = s.kind == SceneSelection::Kind::Sphere ? nodes_in_sphere(centroids, s.point, s.radius, tol)
                                                                   : nodes_in_box(centroids, s.min, s.max, tol);
  for (int& c : picked) c += first;
  return picked;
}

void Builder::materials() {
  const Mesh& mesh = out.mesh;
  std::vector<int> owner(static_cast<size_t>(mesh.num_cells()), -1);
  for (size_t i = 0; i < scene.materials.size(); ++i) {
    const SceneMaterial& m = scene.materials[i];
    if (m.region_shape) {
      const std::vector<int> cells = shape_cells(m.shape);
      if (cells.empty())
        fail(m.where, "materials[" + std::to_string(i) + "].region: no cell has its centroid in the " +
                          (m.shape.kind == SceneSelection::Kind::Box ? "box" : "sphere") +
                          "; check its coordinates against the mesh (bounding-box diagonal " +
                          std::to_string(diagonal) + ")");
      for (int c : cells) owner[static_cast<size_t>(c)] = static_cast<int>(i);
      continue;
    }
    if (m.region.empty()) {
      std::fill(owner.begin(), owner.end(), static_cast<int>(i));
      continue;
    }
    const auto it = mesh.cell_groups.find(m.region);
    if (it == mesh.cell_groups.end())
      fail(m.where, "materials[" + std::to_string(i) + "]: the mesh has no cell group '" + m.region +
                        "'; its cell groups: " + keys_of(mesh.cell_groups));
    for (int c : it->second) owner[static_cast<size_t>(c)] = static_cast<int>(i);
  }
  const auto missing = std::find(owner.begin(), owner.end(), -1);
  if (missing != owner.end())
    fail(scene.materials.front().where,
         "materials: cell " + std::to_string(missing - owner.begin()) +
             " is in no material region; put a material without 'region' (all cells) first, or regions that "
             "cover every cell");
  out.materials.reserve(owner.size());
  for (int i : owner) out.materials.push_back(scene.materials[static_cast<size_t>(i)].material);
}

void Builder::require_planar_components(const SceneSelection& s, const std::string& key) const {
  if (out.mesh.dim == 2 && s.components[2] && !s.components[0] && !s.components[1])
    fail(s.where, key +
                      ".components: z alone, but the mesh is 2-D (x, y only): there is no z to act on; use x "
                      "and/or y");
}

std::string Builder::set_name(const SceneSelection& s, const std::string& kind, size_t i) const {
  std::string name = s.name;
  if (name.empty() && s.kind == SceneSelection::Kind::Group) {
    name = s.group;
    std::replace(name.begin(), name.end(), '/', '.');
  }
  if (name.empty()) name = kind + std::to_string(i);
  for (const ReactionSet& other : out.reaction_sets)
    if (other.name == name) {
      if (!s.name.empty())
        fail(s.where, kind + "[" + std::to_string(i) + "].name: '" + name + "' names another fixed or prescribed set");
      return name + "_" + std::to_string(i);
    }
  return name;
}

void Builder::boundary_conditions() {
  const Mesh& mesh = out.mesh;
  out.fixed_dofs.assign(static_cast<size_t>(mesh.num_dofs()), 0);
  std::vector<int> fixed_by(static_cast<size_t>(mesh.num_dofs()), -1);  // DOF -> the fixed[] entry fixing it
  for (size_t i = 0; i < scene.fixed.size(); ++i) {
    const SceneSelection& s = scene.fixed[i];
    require_planar_components(s, "fixed[" + std::to_string(i) + "]");
    const std::vector<int> nodes = select(s, "fixed[" + std::to_string(i) + "]");
    fix_components(mesh, nodes, s.components, out.fixed_dofs);
    for (const SceneSupportMotion& m : scene.supports)
      if (m.fixed == i) {
        out.supports.push_back(m.motion);
        out.supports.back().nodes = nodes;
      }
    ReactionSet set{set_name(s, "fixed", i), {}};
    for (int n : nodes)
      for (int c = 0; c < mesh.dim; ++c)
        if (s.components[static_cast<size_t>(c)] && fixed_by[static_cast<size_t>(n * mesh.dim + c)] < 0) {
          fixed_by[static_cast<size_t>(n * mesh.dim + c)] = static_cast<int>(i);
          set.dofs.push_back(n * mesh.dim + c);
        }
    out.reaction_sets.push_back(std::move(set));
  }
  std::map<int, Real> prescribed;  // DOF -> displacement; a later entry overrides an earlier one
  for (size_t i = 0; i < scene.prescribed.size(); ++i) {
    const ScenePrescribed& p = scene.prescribed[i];
    const std::string key = "prescribed[" + std::to_string(i) + "]";
    require_planar_components(p.selection, key);
    require_planar(p.selection.where, key + ".displacement", p.displacement, "give [ux, uy, 0]");
    const std::vector<int> nodes = select(p.selection, key);
    // A DOF held at 0 by fixed[] and moved by prescribed[]: one of the two would be ignored.
    for (int n : nodes)
      for (int c = 0; c < mesh.dim; ++c) {
        const int by = fixed_by[static_cast<size_t>(n * mesh.dim + c)];
        if (p.selection.components[static_cast<size_t>(c)] && by >= 0)
          fail(p.selection.where, key + ": node " + std::to_string(n) + " (" + "xyz"[c] + ") is also fixed by fixed[" +
                                      std::to_string(by) +
                                      "]; a DOF is either fixed (held at 0) or prescribed, not both: remove it "
                                      "from one of the two selections (or use components)");
      }
    fix_components(mesh, nodes, p.selection.components, out.fixed_dofs);
    ReactionSet set{set_name(p.selection, "prescribed", i), {}};
    for (int n : nodes)
      for (int c = 0; c < mesh.dim; ++c)
        if (p.selection.components[static_cast<size_t>(c)]) {
          if (prescribed.count(n * mesh.dim + c) == 0) set.dofs.push_back(n * mesh.dim + c);
          prescribed[n * mesh.dim + c] = p.displacement[static_cast<size_t>(c)];
        }
    out.reaction_sets.push_back(std::move(set));
  }
  for (const auto& [dof, value] : prescribed) out.loads.prescribed.push_back({dof, value});
}

void Builder::require_held_bodies() const {
  if (scene.dynamics.enabled || scene.explicit_dynamics.enabled) return;
  const int dim = out.mesh.dim;
  for (size_t b = 0; b < scene.bodies.size(); ++b) {
    const auto begin = out.fixed_dofs.begin() + out.parts.node_begin[b] * dim;
    const auto end = out.fixed_dofs.begin() + out.parts.node_begin[b + 1] * dim;
    if (std::any_of(begin, end, [](char f) { return f != 0; })) continue;
    fail(scene.bodies[b].where, "bodies[" + std::to_string(b) + "] '" + scene.bodies[b].name +
                                    "': no node of it is fixed or prescribed, so it floats and the static solve's "
                                    "stiffness is singular; hold it (bodies[" +
                                    std::to_string(b) + "].fixed), or run the scene with dynamics:");
  }
}

void Builder::nodal_loads() {
  const Mesh& mesh = out.mesh;
  if (scene.forces.empty() && !scene.gravity.enabled) return;
  out.loads.nodal.assign(static_cast<size_t>(mesh.num_dofs()), 0);
  for (size_t i = 0; i < scene.forces.size(); ++i) {
    const SceneForce& f = scene.forces[i];
    require_planar_components(f.selection, "loads.forces[" + std::to_string(i) + "]");
    require_planar(f.selection.where, "loads.forces[" + std::to_string(i) + "].force", f.force, "give [Fx, Fy, 0]");
    const std::vector<int> nodes = select(f.selection, "loads.forces[" + std::to_string(i) + "]");
    const Real share = 1.0 / static_cast<Real>(nodes.size());
    for (int n : nodes)
      for (int c = 0; c < mesh.dim; ++c)
        if (f.selection.components[static_cast<size_t>(c)])
          out.loads.nodal[static_cast<size_t>(n) * mesh.dim + c] += share * f.force[static_cast<size_t>(c)];
  }
  if (scene.gravity.enabled) {
    require_planar(scene.gravity.where, "loads.gravity.g", scene.gravity.g,
                   "give g in the mesh's plane, e.g. g: [0, -9.81, 0] (the default [0, 0, -9.81] is for 3-D meshes)");
    const std::vector<Real> g = located(scene.gravity.where, "loads.gravity", [&] {
      if (!out.assembler) return network_weight(*out.network, scene.gravity.g);  // a network file's masses
      return gravity_load(*out.assembler, scene.gravity.density, scene.gravity.g);
    });
    for (size_t k = 0; k < g.size(); ++k) out.loads.nodal[k] += g[k];
    out.gravity = g;
  }
}

void Builder::contact() {
  const Mesh& mesh = out.mesh;
  for (size_t i = 0; i < scene.contact.obstacles.size(); ++i) {
    const SceneObstacle& s = scene.contact.obstacles[i];
    const std::string what = "contact.obstacles[" + std::to_string(i) + "] '" + s.obstacle.name + "'";
    Obstacle o = s.obstacle;
    if (o.shape == ObstacleShape::TriangleMesh) {
      const Obstacle read = located(s.where, what, [&] { return load_obstacle_mesh(s.file, o.name); });
      o.vertices = read.vertices;
      o.triangles = read.triangles;
      for (Real& v : o.vertices) v *= s.scale;
    }
    located(s.where, what, [&] {
      validate(o);
      return 0;
    });
    out.obstacles.push_back(std::move(o));
  }
  if (mesh.dim != 3)
    fail(scene.contact.where,
         "contact: needs a 3D mesh (Tet4 or Hex8); this mesh is " + std::to_string(mesh.dim) + "D");
  std::vector<char> chosen(static_cast<size_t>(mesh.num_nodes()), 0);
  for (size_t i = 0; i < scene.contact.nodes.size(); ++i)
    for (int n : select(scene.contact.nodes[i], "contact.nodes[" + std::to_string(i) + "]"))
      chosen[static_cast<size_t>(n)] = 1;
  for (int n = 0; n < mesh.num_nodes(); ++n)
    if (chosen[static_cast<size_t>(n)]) out.contact_nodes.push_back(n);
  warn_obstacles_inside(scene, out, diagonal);
}

namespace {

/// The node_network model's network of a mesh-built body (explicit: or continuation:).
std::shared_ptr<const NodeNetwork> mesh_network(const Scene& scene, const Mesh& mesh) {
  if (scene.explicit_dynamics.enabled && scene.explicit_dynamics.model == SceneModel::NodeNetwork)
    return located(scene.explicit_dynamics.where, "explicit.model node_network", [&] {
      return std::make_shared<const NodeNetwork>(make_node_network(mesh, scene.explicit_dynamics.network));
    });
  if (scene.continuation.enabled && scene.continuation.model == SceneModel::NodeNetwork)
    return located(scene.continuation.where, "continuation.model node_network", [&] {
      return std::make_shared<const NodeNetwork>(make_node_network(mesh, scene.continuation.network));
    });
  return nullptr;
}

}  // namespace

}  // namespace softik::scene_build

namespace softik {

namespace {

using namespace scene_build;

BuiltScene build(const Scene& scene, const DeviceAssemblyFactory* device) {
  const bool network_file = scene.mesh.source == SceneMesh::Source::Network;
  SOFTIK_CHECK(network_file || !scene.materials.empty(),
               "build_scene: the scene has no material; add a 'materials' entry");
  BuiltScene out;
  if (network_file) {
    out.network = located(scene.mesh.where, "mesh.network",
                          [&] { return std::make_shared<const NodeNetwork>(read_node_network(scene.mesh.file)); });
    out.mesh = node_mesh(*out.network);
  }
  std::vector<Mesh> frames;
  if (!network_file) out.mesh = placed_mesh(scene, out.parts, frames);
  Builder b{scene, out, bounding_box_diagonal(out.mesh), std::move(frames)};
  if (!network_file) b.materials();
  b.boundary_conditions();
  b.require_held_bodies();
  scene_detail::warn_overlapping_bodies(scene, out, b.diagonal);

  if (!network_file) {
    AssemblyOptions assembly;
    assembly.formulation = scene.formulation;
    assembly.dilatation = scene.dilatation;
    assembly.num_threads = scene.solver.threads;
    assembly.backend = scene.solver.backend;
    out.assembler = located(scene.mesh.where, "the model", [&] {
      return device ? assembly::AssemblerWithDevice::make(out.mesh, out.materials, out.fixed_dofs, assembly, *device)
                    : std::make_unique<Assembler>(out.mesh, out.materials, out.fixed_dofs, assembly);
    });
    out.network = mesh_network(scene, out.mesh);
  }
  b.nodal_loads();
  for (size_t i = 0; i < scene.pressures.size(); ++i) {
    out.loads.pressures.push_back(
        b.pressure(scene.pressures[i], "loads.pressure[" + std::to_string(i) + "] '" + scene.pressures[i].name + "'"));
    // Not given: a follower load where the formulation follows the geometry, a dead load in a
    // linear (small-displacement) analysis.
    const ScenePressure& sp = scene.pressures[i];
    PressureLoad& load = out.loads.pressures.back();
    // A follower load on the linear formulation mixes two geometries: its internal forces K u
    // act on the rest geometry, the load on the displaced wall X + u (with no rotation to carry
    // it). Fine to O(P/E), wrong beyond: the default finger inflated to 24 kPa bent down (-2.7 mm
    // at the tip) where the hyperelastic one bends up (+9.1 mm). Refused.
    if (sp.follower == 1 && scene.formulation == Formulation::LinearSmallStrain)
      fail(sp.where, "loads.pressure '" + sp.name +
                         "': follower: true with formulation: linear: the linear formulation's forces act on the rest "
                         "geometry, a follower load on the displaced wall, and beyond small displacements the two "
                         "disagree (an inflated finger bends the wrong way). Remove follower (a dead load, the linear "
                         "analysis's), or use formulation: corotational or hyperelastic for a follower load");
    load.follower = sp.follower >= 0 ? sp.follower == 1 : scene.formulation != Formulation::LinearSmallStrain;
    if (sp.load.control != CavityControl::Pressure && !load.follower)
      fail(sp.where,
           "loads.pressure '" + sp.name + "': control: " + cavity_control_name(sp.load.control) +
               " needs a follower load (the pressure acts on the deformed wall whose volume is controlled), " +
               (scene.formulation == Formulation::LinearSmallStrain
                    ? std::string("which formulation: linear does not carry; use formulation: corotational or "
                                  "hyperelastic")
                    : std::string("remove follower: false")));
  }
  b.probes();
  b.cables();
  if (scene.inverse.enabled) b.inverse();
  if (scene.contact.enabled) b.contact();
  if (scene.continuation.enabled && scene.continuation.monitor == SceneContinuation::Monitor::Nodes)
    out.monitor_nodes = b.select(scene.continuation.nodes, "continuation.monitor");

  const SceneSolver& s = scene.solver;
  out.newton = s.newton;
  const int free_dofs = static_cast<int>(std::count(out.fixed_dofs.begin(), out.fixed_dofs.end(), 0));
  out.linear_solver =
      choose_linear_solver(s.backend, out.assembler ? out.assembler->num_free_dofs() : free_dofs, s.linear_solver);
  warn_csv_size(scene, out);
  return out;
}

}  // namespace

BuiltScene build_scene(const Scene& scene) { return build(scene, nullptr); }

BuiltScene build_scene_with_device(const Scene& scene, const DeviceAssemblyFactory& device) {
  return build(scene, &device);
}

}  // namespace softik
