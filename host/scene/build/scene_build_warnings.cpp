// The warnings build_scene gives about what a scene asks for but probably does not mean
// (scene_build_warnings.hpp): obstacles no node can reach, cavities moved onto the mesh, CSV tables
// of gigabytes.
#include "host/scene/build/scene_build_warnings.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <vector>

#include "host/scene/run/scene_run_common.hpp"
#include "softik/contact.hpp"
#include "softik/point_location.hpp"

namespace softik::scene_detail {

namespace {

/// Points on an obstacle's surface (at offset zero): a sphere's 14 poles and diagonals, a box's
/// corners and face centres, a cylinder's cap centres and rims, a mesh's vertices. None for a
/// plane, which no body contains.
std::vector<Vec3r> surface_samples(const Obstacle& o) {
  std::vector<Vec3r> points;
  switch (o.shape) {
    case ObstacleShape::Plane:
      break;
    case ObstacleShape::Sphere:
      for (int i = 0; i < 3; ++i)
        for (int sign : {-1, 1}) points.push_back(o.center + sign * o.radius * Vec3r::Unit(i));
      for (int k = 0; k < 8; ++k)
        points.push_back(o.center + o.radius / std::sqrt(3.0) * Vec3r(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1));
      break;
    case ObstacleShape::Box:
      for (int k = 0; k < 8; ++k)
        points.push_back(
            o.center + o.rotation * o.half_extents.cwiseProduct(Vec3r(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1)));
      for (int i = 0; i < 3; ++i)
        for (int sign : {-1, 1}) points.push_back(o.center + sign * o.half_extents[i] * o.rotation.col(i));
      break;
    case ObstacleShape::Cylinder: {
      const Vec3r a = o.axis, u = a.unitOrthogonal(), v = a.cross(u);
      for (int sign : {-1, 1}) {
        const Vec3r cap = o.center + sign * o.half_length * a;
        points.push_back(cap);
        for (const Vec3r& r : {u, v, Vec3r(-u), Vec3r(-v)}) points.push_back(cap + o.radius * r);
      }
      break;
    }
    case ObstacleShape::TriangleMesh:
      for (size_t k = 0; k + 2 < o.vertices.size(); k += 3)
        points.emplace_back(o.vertices[k], o.vertices[k + 1], o.vertices[k + 2]);
      break;
  }
  return points;
}

}  // namespace

void warn_obstacles_inside(const Scene& scene, BuiltScene& out, Real diagonal) {
  const Mesh& mesh = out.mesh;
  if (mesh.num_cells() == 0 || scene.contact.obstacles.empty()) return;
  const PointLocator locator(mesh);
  const Real slack = 1e-9 * diagonal;
  for (size_t i = 0; i < out.obstacles.size(); ++i) {
    const Obstacle& o = out.obstacles[i];
    const std::vector<Vec3r> samples = surface_samples(o);
    if (samples.empty()) continue;
    std::vector<Real> times = o.path_times;
    if (times.empty()) times.push_back(0);
    bool inside = true;
    for (Real t : times) {
      const Vec3r shift = o.offset(t);
      for (const Vec3r& q : samples) {
        const Vec3r p = q + shift;
        if (locator.nearest({p[0], p[1], p[2]}).distance > slack) {
          inside = false;
          break;
        }
      }
      if (!inside) break;
    }
    if (!inside) continue;
    // Nodes chosen by contact.nodes inside it (interior nodes) can still touch it.
    bool reached = false;
    for (int n : out.contact_nodes) {
      const Vec3r X(mesh.X[3 * static_cast<size_t>(n)], mesh.X[3 * static_cast<size_t>(n) + 1],
                    mesh.X[3 * static_cast<size_t>(n) + 2]);
      reached = reached || distance_to_obstacle(o, 0, X).distance <= 0;
    }
    if (reached) continue;
    std::ostringstream w;
    w << scene.contact.obstacles[i].where.str() << ": contact: obstacle '" << o.name << "' ("
      << obstacle_shape_name(o.shape) << ") lies entirely inside the body"
      << (o.path_times.empty() ? "" : " at every point of its path")
      << ": contact keeps the body's boundary nodes out of obstacles, and none can reach it, so it has no effect. "
         "Move it outside the body";
    out.warnings.push_back(w.str());
  }
}

void warn_projected_vertices(const PressureLoad& load, const ScenePressure& p, const std::string& what,
                             const Mesh& cavity, Real embed_tolerance, Real diagonal, BuiltScene& out) {
  const SurfaceEmbedding& e = load.embedding;
  const Mesh& mesh = out.mesh;
  const int V = e.num_vertices();
  int moved = 0;
  Real largest = 0;
  for (int v = 0; v < V; ++v) {  // each vertex's embedded position (its cell's shape functions) against its own
    Real d2 = 0;
    for (int i = 0; i < 3; ++i) {
      Real x = 0;
      for (int a = 0; a < e.nodes_per_vertex; ++a) {
        const size_t k = static_cast<size_t>(v) * static_cast<size_t>(e.nodes_per_vertex) + static_cast<size_t>(a);
        x += e.weights[k] * mesh.X[3 * static_cast<size_t>(e.nodes[k]) + i];
      }
      d2 += (x - e.vertex_X[3 * static_cast<size_t>(v) + i]) * (x - e.vertex_X[3 * static_cast<size_t>(v) + i]);
    }
    const Real d = std::sqrt(d2);
    if (d > 1e-9 * diagonal) ++moved;  // beyond round-off: the vertex lay outside every cell
    largest = std::max(largest, d);
  }
  if (moved == 0) return;
  std::ostringstream w;
  w << p.where.str() << ": " << what << ": " << moved << " of " << V << " vertices of '" << p.file
    << "' lie outside the mesh and were moved onto it (within embed_tolerance " << embed_tolerance
    << "), the farthest by " << largest;
  if (p.load.closed) {
    PressureLoad own = load;  // the file's surface on its own vertices, as given
    own.embedding = SurfaceEmbedding{};
    const Real V0 = surface_volume(own, cavity, cavity.X), V1 = surface_volume(load, mesh, mesh.X);
    w << "; the cavity's rest volume changes by " << 100 * (V1 - V0) / std::abs(V0) << "% (" << V0 << " -> " << V1
      << ")";
  }
  w << ". Move the cavity inside the mesh (or the mesh's wall around it) to keep its shape";
  out.warnings.push_back(w.str());
}

void warn_csv_size(const Scene& scene, BuiltScene& out) {
  const double pressures = static_cast<double>(out.loads.pressures.size());
  const double probes = 3.0 * static_cast<double>(out.probes.size());
  double constraint_outputs = 0;
  for (const auto* list : {&out.actuators, &out.effectors})
    for (const auto& c : *list) constraint_outputs += static_cast<double>(c->outputs().size());
  double rows = 1 + static_cast<double>(scene.solver.newton.load_steps), columns = 5 + 3 * pressures + probes;
  std::string from = "solver.load_steps = " + std::to_string(scene.solver.newton.load_steps);
  SceneLocation where = scene.mesh.where;
  if (scene.explicit_dynamics.enabled) {
    const SceneExplicit& e = scene.explicit_dynamics;
    rows = 1 + static_cast<double>(e.frames);
    columns = 8 + 2 * pressures + probes;
    from = "explicit.duration / explicit.frame_interval = " + std::to_string(e.frames) + " frames";
    where = e.where;
  } else if (scene.dynamics.enabled) {
    rows = 1 + static_cast<double>(scene.dynamics.steps);
    columns = 16 + 2 * pressures + probes + 2 * static_cast<double>(scene.cables.size()) +
              (scene.inverse.enabled ? 4 + constraint_outputs : 0);
    from = "dynamics.duration / dynamics.dt = " + std::to_string(scene.dynamics.steps) + " steps";
    where = scene.dynamics.where;
  } else if (scene.continuation.enabled) {
    rows = 1 + static_cast<double>(scene.continuation.options.max_steps);
    columns = 10 + 2 * pressures + probes;
    from = "continuation.max_steps = " + std::to_string(scene.continuation.options.max_steps);
    where = scene.continuation.where;
  } else if (scene.inverse.enabled) {
    const size_t goals = inverse_goals(scene.inverse);
    const bool realtime = scene.inverse.mode == SceneInverse::Mode::RealTime;
    rows = 1 + static_cast<double>(goals) * (realtime ? scene.inverse.steps_per_target : 1);
    columns = 14 + constraint_outputs + probes + (scene.contact.enabled ? 4 : 0) +
              static_cast<double>(scene.inverse.force_targets.size());
    from = std::to_string(goals) + " goals" +
           (realtime ? " x inverse.steps_per_target = " + std::to_string(scene.inverse.steps_per_target) : "");
    where = scene.inverse.where;
  }
  const double bytes = rows * columns * 16;
  if (bytes <= kCsvWarnBytes) return;
  std::ostringstream w;
  w << where.str() << ": outputs: the CSV table " << scene.name << ".csv will take about " << std::setprecision(3)
    << bytes / 1e9 << " GB (" << static_cast<long long>(rows) << " rows from " << from << ", x " << columns
    << " columns, x ~16 bytes a value); check that the disk has room, or ask for fewer steps";
  out.warnings.push_back(w.str());
}

}  // namespace softik::scene_detail
