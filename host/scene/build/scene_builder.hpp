// The builder behind build_scene (scene_run.hpp): a scene's entries resolved against the built mesh
// into BuiltScene, member by member. Selections, materials, boundary conditions, nodal loads and
// contact: scene_build.cpp; cavities, cables, the inverse problem's constraints and probes:
// scene_build_actuators.cpp.
#pragma once

#include <array>
#include <sstream>
#include <string>
#include <vector>

#include "softik/error.hpp"
#include "softik/mesh_transform.hpp"
#include "softik/scene.hpp"

namespace softik::scene_build {

[[noreturn]] inline void fail(const SceneLocation& where, const std::string& message) {
  throw Error(where.str() + ": " + message);
}

/// Runs f(); a softik::Error it throws is re-thrown prefixed with the scene location and `what`.
template <typename F>
auto located(const SceneLocation& where, const std::string& what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    fail(where, what + ": " + e.what());
  }
}

/// "a, b, c": the names of a map's entries, for messages.
template <typename Map>
std::string keys_of(const Map& groups) {
  if (groups.empty()) return "(none)";
  std::string s;
  for (const auto& g : groups) s += (s.empty() ? "" : ", ") + g.first;
  return s;
}

struct Builder {
  const Scene& scene;
  BuiltScene& out;
  Real diagonal = 0;

  Real tolerance(Real given) const { return given >= 0 ? given : 1e-6 * diagonal; }

  std::vector<Mesh> frames;  ///< with bodies: each body's nodes in its own frame

  /// The transform that places a cavity file written in bodies[body] (-1: the scene's: the
  /// single mesh's transform, or with bodies the world frame, none).
  const Transform& placement(int body) const;

  /// The nodes a selection picks (a body's in its own frame); one that picks none is an error.
  std::vector<int> select(const SceneSelection& s, const std::string& what) const;

  /// The nodes of `mesh` (the scene's, or one body's in its own frame) that s selects.
  std::vector<int> select_in(const Mesh& mesh, const SceneSelection& s, const std::string& what) const;

  /// The cells whose centroid lies in a region's box or sphere (a body's cells, in its frame, when
  /// the region was written in a body).
  std::vector<int> shape_cells(const SceneSelection& s) const;

  /// out.materials: one material per cell, later entries overriding earlier ones.
  void materials();

  /// A 2-D mesh has x and y only: a z value that is not 0 would be dropped without a word.
  void require_planar(const SceneLocation& where, const std::string& key, const std::array<Real, 3>& v,
                      const std::string& fix) const {
    if (out.mesh.dim != 2 || v[2] == 0) return;
    std::ostringstream z;
    z << v[2];
    fail(where, key + ": has a z component (" + z.str() + ") but the mesh is 2-D (x, y only); " + fix);
  }
  /// components: [z] alone on a 2-D mesh selects nothing to fix or load.
  void require_planar_components(const SceneSelection& s, const std::string& key) const;

  /// A set's name for its reaction columns: its own, its group's ('/' of a body's group as '.'),
  /// or <kind><i>; one taken already gets _<i>.
  std::string set_name(const SceneSelection& s, const std::string& kind, size_t i) const;

  /// out.fixed_dofs, the moving supports, the reaction sets and the prescribed displacements.
  void boundary_conditions();

  /// A static solve (load ramp, inverse, continuation) needs every body held: a body without a
  /// fixed or prescribed DOF floats, its stiffness is singular. Named here rather than by the solver.
  void require_held_bodies() const;

  /// out.loads.nodal: gravity (out.gravity) and the forces.
  void nodal_loads();

  /// contact: the obstacles (mesh files read and scaled) and the nodes that can touch them.
  void contact();

  /// A checked cavity wall (surface group, or an OBJ/STL file embedded in the mesh); `what`
  /// names the scene entry in messages.
  PressureLoad pressure(const ScenePressure& p, const std::string& what);

  /// A symmetry sector of a closed cavity: every open edge in a plane x = 0, y = 0 or z = 0 and
  /// a positive volume (the origin's cone over the surface: the sector of the cavity).
  void check_sector(const PressureLoad& load, const ScenePressure& p, const std::string& what) const;

  AttachedPoint attach(const std::array<Real, 3>& p, Real given_tolerance, const SceneLocation& where,
                       const std::string& what) const {
    return located(where, what, [&] { return AttachedPoint::at(out.mesh, p, tolerance(given_tolerance)); });
  }

  /// loads.cable: the tendons pulled over time (their tension is the DynamicSolver's).
  void cables();

  /// The inverse problem's constraints (scene.inverse), with their reach tolerances.
  void inverse();

  /// out.probes: each probe located in its cell (or its node on a mesh without cells).
  void probes();

  /// A probe on a mesh without cells (a node network's nodes): the nearest node, within tol.
  BuiltProbe node_probe(const SceneProbe& p, const std::string& what, Real tol) const;
};

}  // namespace softik::scene_build
