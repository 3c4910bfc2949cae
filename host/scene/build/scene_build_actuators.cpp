// build_scene's cavities (checked surfaces or embedded files), cables, the inverse problem's
// actuators and effectors, and probes (scene_builder.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "host/scene/build/scene_build_warnings.hpp"
#include "host/scene/build/scene_builder.hpp"
#include "softik/actuator_generator.hpp"
#include "softik/contact.hpp"
#include "softik/error.hpp"
#include "softik/mesh_io.hpp"
#include "softik/mesh_selection.hpp"
#include "softik/mesh_transform.hpp"
#include "softik/point_location.hpp"
#include "softik/scene.hpp"
#include "softik/surface.hpp"

namespace softik::scene_build {

using scene_detail::warn_projected_vertices;

PressureLoad Builder::pressure(const ScenePressure& p, const std::string& what) {
  const Mesh& mesh = out.mesh;
  if (mesh.dim != 3)
    fail(p.where, what + ": pressure loads need a 3D mesh; this mesh is " + std::to_string(mesh.dim) + "D");
  PressureLoad load = p.load;  // pressure, closed, control: as the scene gives them
  load.name = p.name;
  SurfaceReport report;
  if (!p.surface.empty()) {
    const auto it = mesh.surface_groups.find(p.surface);
    if (it == mesh.surface_groups.end())
      fail(p.where, what + ": the mesh has no surface group '" + p.surface +
                        "'; its surface groups: " + keys_of(mesh.surface_groups));
    load.surface = located(p.where, what, [&] {
      return check_surface(mesh, it->second, p.name, p.load.closed && !p.symmetry_sector, p.allow_flip, &report);
    });
    if (p.symmetry_sector) check_sector(load, p, what);
  } else {
    SurfaceMesh cavity = located(p.where, what, [&] { return read_surface(p.file); });
    for (Real& x : cavity.X) x *= p.scale;
    transform_points(placement(p.body), cavity.X);
    Mesh vertices;  // the cavity's own vertices, for check_surface
    vertices.dim = 3;
    vertices.X = cavity.X;
    SurfaceGroup surface;
    surface.triangles = cavity.triangles;
    load.surface = located(
        p.where, what, [&] { return check_surface(vertices, surface, p.name, p.load.closed, p.allow_flip, &report); });
    load.embedding = located(p.where, what + " (embedding '" + p.file + "' in the mesh)",
                             [&] { return embed_surface(mesh, cavity.X, tolerance(p.embed_tolerance)); });
    warn_projected_vertices(load, p, what, vertices, tolerance(p.embed_tolerance), diagonal, out);
  }
  if (report.flipped > 0)
    out.warnings.push_back(p.where.str() + ": " + what + ": the surface was wound into the cavity; reversed " +
                           std::to_string(report.flipped) +
                           " faces so that a positive pressure inflates it (allow_flip: false makes this an error)");
  return load;
}

void Builder::check_sector(const PressureLoad& load, const ScenePressure& p, const std::string& what) const {
  const Mesh& mesh = out.mesh;
  std::map<std::pair<int, int>, int> uses;
  const auto face = [&](const int* v, int n) {
    for (int k = 0; k < n; ++k) ++uses[std::minmax(v[k], v[(k + 1) % n])];
  };
  for (const auto& t : load.surface.triangles) face(t.data(), 3);
  for (const auto& q : load.surface.quads) face(q.data(), 4);
  for (const auto& t : load.surface.triangles6) face(t.data(), 3);  // the corners
  const Real tol = 1e-9 * diagonal;
  for (const auto& [edge, count] : uses) {
    if (count != 1) continue;
    const Real* a = &mesh.X[3 * static_cast<size_t>(edge.first)];
    const Real* b = &mesh.X[3 * static_cast<size_t>(edge.second)];
    bool on_plane = false;
    for (int i = 0; i < 3; ++i) on_plane = on_plane || (std::abs(a[i]) <= tol && std::abs(b[i]) <= tol);
    if (!on_plane)
      fail(p.where, what + ": symmetry_sector: the open edge " + std::to_string(edge.first) + "-" +
                        std::to_string(edge.second) +
                        " does not lie in a plane x = 0, y = 0 or z = 0; a sector "
                        "is open only along those planes (or use closed: false)");
  }
  if (!(surface_volume(load, mesh, mesh.rest_positions()) > 0))
    fail(p.where, what +
                      ": symmetry_sector: the sector's volume is not positive: the surface is wound into the "
                      "cavity or the cavity does not lie on the positive side of its symmetry planes");
}

void Builder::cables() {
  for (size_t i = 0; i < scene.cables.size(); ++i) {
    const SceneCable& c = scene.cables[i];
    const std::string what = "loads.cable[" + std::to_string(i) + "] '" + c.name + "'";
    if (out.mesh.dim != 3) fail(c.where, what + ": a cable needs a 3D mesh");
    CableActuatorSpec spec;
    spec.name = c.name;
    spec.pull_point = c.pull_point;
    for (size_t k = 0; k < c.points.size(); ++k)
      spec.points.push_back(attach(c.points[k], c.tolerance, c.where, what + " point " + std::to_string(k)));
    out.cables.push_back(located(c.where, what, [&] { return make_cable_actuator(out.mesh, spec); }));
  }
}

void Builder::inverse() {
  const Mesh& mesh = out.mesh;
  const SceneInverse& inv = scene.inverse;
  if (mesh.dim != 3) fail(inv.where, "inverse: the inverse problem needs a 3D mesh");
  if (!scene.prescribed.empty())
    fail(scene.prescribed.front().selection.where,
         "prescribed: displacements cannot be prescribed in an inverse scene (the inverse step keeps fixed DOFs at "
         "their rest positions); fix those nodes instead, or drive them with a force actuator");
  for (size_t i = 0; i < inv.actuators.size(); ++i) {
    const SceneActuator& a = inv.actuators[i];
    const std::string what = "inverse.actuators[" + std::to_string(i) + "] '" + a.name + "'";
    std::shared_ptr<Constraint> c;
    if (a.type == SceneActuator::Type::Pressure) {
      SurfacePressureActuatorSpec spec;
      spec.name = a.name;
      spec.cavity = pressure(a.cavity, what);
      spec.pressure = a.force;
      spec.volume_growth = a.displacement;
      spec.max_volume_growth_variation = a.max_variation;
      spec.sensor = a.sensor;
      c = located(a.where, what, [&] { return make_surface_pressure_actuator(mesh, spec); });
    } else if (a.type == SceneActuator::Type::Cable) {
      CableActuatorSpec spec;
      spec.name = a.name;
      spec.pull_point = a.pull_point;
      for (size_t k = 0; k < a.points.size(); ++k)
        spec.points.push_back(attach(a.points[k], a.tolerance, a.where, what + " point " + std::to_string(k)));
      spec.force = a.force;
      spec.displacement = a.displacement;
      spec.max_displacement_variation = a.max_variation;
      spec.sensor = a.sensor;
      c = located(a.where, what, [&] { return make_cable_actuator(mesh, spec); });
    } else {
      ForcePointActuatorSpec spec;
      spec.name = a.name;
      spec.point = attach(a.points.front(), a.tolerance, a.where, what + " point");
      spec.direction = a.direction;
      spec.force = a.force;
      c = located(a.where, what, [&] { return make_force_point_actuator(mesh, spec); });
    }
    out.actuators.push_back(c);
  }
  for (size_t i = 0; i < inv.effectors.size(); ++i) {
    const SceneEffector& e = inv.effectors[i];
    const std::string what = "inverse.effectors[" + std::to_string(i) + "] '" + e.name + "'";
    if (e.type == SceneEffector::Type::Position) {
      PositionEffectorSpec spec;
      spec.name = e.name;
      spec.point = attach(e.point, e.locate_tolerance, e.where, what + " point");
      spec.goal = e.goals.front();
      spec.axes = e.axes;
      spec.weights = e.weights;
      spec.max_shift = e.max_shift;
      out.effectors.push_back(located(e.where, what, [&] { return make_position_effector(mesh, spec); }));
      out.effector_tolerances.push_back(e.tolerance >= 0 ? e.tolerance : 1e-3 * diagonal);
    } else {
      VolumeEffectorSpec spec;
      spec.name = e.name;
      spec.cavity = pressure(e.cavity, what);
      spec.target = e.volumes.front();
      auto v = located(e.where, what, [&] { return make_volume_effector(mesh, spec); });
      out.effector_tolerances.push_back(e.tolerance >= 0 ? e.tolerance : 1e-3 * v->rest_volume());
      out.effectors.push_back(v);
    }
  }
}

void Builder::probes() {
  const Mesh& mesh = out.mesh;
  for (const SceneProbe& p : scene.outputs.probes) {
    const std::string what = "outputs.probes '" + p.name + "'";
    const Real tol = tolerance(p.tolerance);
    if (mesh.num_cells() == 0) {  // a network's nodes: the probe is the node at the point
      out.probes.push_back(node_probe(p, what, tol));
      continue;
    }
    // locate_point throws (naming the point and its distance) when p is farther than tol from the mesh
    const PointLocation loc = located(p.where, what, [&] { return locate_point(mesh, p.point, tol); });
    BuiltProbe probe;
    probe.name = p.name;
    probe.point = p.point;
    probe.cell = loc.cell;
    for (int k = 0; k < loc.num_weights; ++k) {
      probe.nodes.push_back(loc.nodes[k]);
      probe.weights.push_back(loc.weights[k]);
    }
    out.probes.push_back(probe);
  }
}

BuiltProbe Builder::node_probe(const SceneProbe& p, const std::string& what, Real tol) const {
  const Mesh& mesh = out.mesh;
  int best = -1;
  Real best_d2 = 0;
  for (int n = 0; n < mesh.num_nodes(); ++n) {
    Real d2 = 0;
    for (int i = 0; i < 3; ++i)
      d2 += std::pow(mesh.X[3 * static_cast<size_t>(n) + i] - p.point[static_cast<size_t>(i)], 2);
    if (best < 0 || d2 < best_d2) best = n, best_d2 = d2;
  }
  if (best < 0 || std::sqrt(best_d2) > tol) {
    std::ostringstream s;
    s << what << ": no node of the network lies within " << tol << " of the point (the nearest is "
      << std::sqrt(best_d2) << " away); a network's probe is one of its nodes: give its position, or widen 'tolerance'";
    fail(p.where, s.str());
  }
  BuiltProbe probe;
  probe.name = p.name;
  probe.point = p.point;
  probe.cell = -1;
  probe.nodes = {best};
  probe.weights = {1.0};
  return probe;
}

}  // namespace softik::scene_build
