// A cavity's pressure on the body (softik/cavity.hpp): volume, forces, actuator column and load
// stiffness, through the per-triangle bodies of pressure_kernel.hpp.
#include "softik/cavity.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "host/loads/pressure_kernel.hpp"
#include "host/loads/pressure_rows.hpp"
#include "host/loads/pressure_stiffness.hpp"
#include "softik/error.hpp"
#include "softik/fem/pressure_load.hpp"

namespace softik {

namespace {

using fem::Mat9;
using fem::Vec3;

/// The nodes and weights that carry vertex v of a pressure surface: the node itself, or the
/// embedding's cell nodes with their shape-function weights.
struct VertexMap {
  const PressureLoad& load;
  const Mesh& mesh;

  int count() const { return load.embedding.empty() ? 1 : load.embedding.nodes_per_vertex; }
  int node(int v, int k) const {
    return load.embedding.empty() ? v : load.embedding.nodes[static_cast<size_t>(v) * count() + k];
  }
  Real weight(int v, int k) const {
    return load.embedding.empty() ? 1.0 : load.embedding.weights[static_cast<size_t>(v) * count() + k];
  }
  int num_vertices() const { return load.embedding.empty() ? mesh.num_nodes() : load.embedding.num_vertices(); }
};

/// Checks the load against the mesh (3D, indices in range, embedding consistent) once per call.
VertexMap checked_map(const PressureLoad& load, const Mesh& mesh, const std::vector<Real>& x) {
  SOFTIK_CHECK(mesh.dim == 3, "pressure load '" << load.name << "': pressure surfaces need a 3D mesh, this one is "
                                                << mesh.dim << "D");
  SOFTIK_CHECK(x.size() == static_cast<size_t>(mesh.num_dofs()),
               "pressure load '" << load.name << "': x has " << x.size() << " entries, expected " << mesh.num_dofs());
  const SurfaceEmbedding& e = load.embedding;
  if (!e.empty()) {
    SOFTIK_CHECK(e.weights.size() == e.nodes.size() && e.nodes.size() % static_cast<size_t>(e.nodes_per_vertex) == 0,
                 "pressure load '" << load.name << "': the surface embedding has " << e.nodes.size() << " nodes and "
                                   << e.weights.size() << " weights for " << e.nodes_per_vertex
                                   << " nodes per vertex; rebuild it with embed_surface()");
    for (int n : e.nodes)
      SOFTIK_CHECK(n >= 0 && n < mesh.num_nodes(),
                   "pressure load '" << load.name << "': embedding node " << n << " is not a mesh node");
  }
  VertexMap map{load, mesh};
  const int nv = map.num_vertices();
  auto check = [&](int v) {
    SOFTIK_CHECK(v >= 0 && v < nv, "pressure load '" << load.name << "': surface vertex " << v << " is out of range ("
                                                     << nv << " vertices)");
  };
  for (const auto& t : load.surface.triangles)
    for (int v : t) check(v);
  for (const auto& q : load.surface.quads)
    for (int v : q) check(v);
  for (const auto& t : load.surface.triangles6)
    for (int v : t) check(v);
  return map;
}

/// The load's surface at positions x as the per-triangle kernels read it (host views into
/// `list`, the load's embedding and x).
assembly::PressureSurface<exec::Space::Host> host_surface(const PressureLoad& load, const assembly::TriangleList& list,
                                                          const std::vector<Real>& x) {
  assembly::PressureSurface<exec::Space::Host> s;
  s.num_triangles = list.num_flat();
  s.num_quadratic = list.size() - list.num_flat();
  s.triangles = {list.vertices.data(), list.vertices.size()};
  s.quadratic = {list.quadratic.data(), list.quadratic.size()};
  s.triangle_weight = {list.weights.data(), list.weights.size()};
  s.nodes_per_vertex = load.embedding.nodes_per_vertex;
  s.nodes = {load.embedding.nodes.data(), load.embedding.nodes.size()};
  s.weights = {load.embedding.weights.data(), load.embedding.weights.size()};
  s.x = {x.data(), x.size()};
  return s;
}

}  // namespace

namespace detail {

PressureRows::PressureRows(const PressureLoad& load, const Mesh& mesh)
    : load_(load),
      num_dofs_(mesh.num_dofs()),
      X_(load.follower ? std::vector<Real>{} : mesh.X),
      list_(assembly::expand_triangles(load.surface)) {
  const VertexMap map = checked_map(load_, mesh, mesh.X);
  std::vector<char> reached(static_cast<size_t>(mesh.num_nodes()), 0);
  auto reach = [&](int v) {
    for (int k = 0; k < map.count(); ++k) reached[static_cast<size_t>(map.node(v, k))] = 1;
  };
  for (int v : list_.vertices) reach(v);
  for (int v : list_.quadratic) reach(v);
  for (size_t n = 0; n < reached.size(); ++n)
    if (reached[n])
      for (int i = 0; i < 3; ++i) dofs_.push_back(3 * static_cast<int>(n) + i);
  dense_.assign(static_cast<size_t>(num_dofs_), 0.0);
  face_volume_.resize(static_cast<size_t>(list_.size()));
}

void PressureRows::check_size(const std::vector<Real>& x) const {
  SOFTIK_CHECK(x.size() == static_cast<size_t>(num_dofs_),
               "pressure load '" << load_.name << "': x has " << x.size() << " entries, expected " << num_dofs_);
}

Real PressureRows::volume(const std::vector<Real>& x) const {
  check_size(x);
  forall(exec::Serial{}, list_.size(),
         assembly::TriangleVolume<exec::Space::Host>{host_surface(load_, list_, x),
                                                     {face_volume_.data(), face_volume_.size()}});
  Real V = 0;
  for (Real v : face_volume_) V += v;  // fixed order, as surface_volume
  return V;
}

Real PressureRows::volume_and_jacobian(const std::vector<Real>& x, std::vector<std::pair<int, Real>>& J) const {
  const Real V = volume(x);
  // dV/dx = the forces per unit pressure, at the rest positions for a dead load (pressure_jacobian).
  const std::vector<Real>& at = load_.follower ? x : X_;
  forall(exec::Serial{}, list_.size(),
         assembly::TrianglePressureForces<assembly::Scatter::Coloured, exec::Space::Host>{
             host_surface(load_, list_, at), 1.0, {dense_.data(), dense_.size()}});
  J.clear();
  for (int dof : dofs_) {
    Real& v = dense_[static_cast<size_t>(dof)];
    if (v != 0) J.emplace_back(dof, v);
    v = 0;
  }
  return V;
}

}  // namespace detail

const char* cavity_control_name(CavityControl control) {
  constexpr const char* kNames[] = {"pressure", "volume", "gas"};  // in CavityControl's order
  const int k = static_cast<int>(control);
  return k >= 0 && k < int(std::size(kNames)) ? kNames[k] : "unknown";
}

Real surface_volume(const PressureLoad& load, const Mesh& mesh, const std::vector<Real>& x) {
  (void)checked_map(load, mesh, x);
  const assembly::TriangleList list = assembly::expand_triangles(load.surface);
  std::vector<Real> V_t(static_cast<size_t>(list.size()));
  forall(exec::Serial{}, list.size(),
         assembly::TriangleVolume<exec::Space::Host>{host_surface(load, list, x), {V_t.data(), V_t.size()}});
  Real V = 0;
  for (Real v : V_t) V += v;  // fixed order
  return V;
}

const std::vector<Real>& pressure_positions(const PressureLoad& load, const Mesh& mesh, const std::vector<Real>& x) {
  if (load.follower) return x;
  SOFTIK_CHECK(mesh.X.size() == x.size(), "pressure load '" << load.name << "': x has " << x.size()
                                                            << " entries, the mesh's rest positions " << mesh.X.size());
  return mesh.X;
}

Real pressure_work(const PressureLoad& load, Real P, const Mesh& mesh, const std::vector<Real>& x) {
  if (load.follower) return P * surface_volume(load, mesh, x);
  const std::vector<Real> J0 = pressure_jacobian(load, mesh, x);  // dV/dx at the rest positions
  Real w = 0;
  for (size_t k = 0; k < x.size(); ++k) w += J0[k] * x[k];
  return P * w;
}

void add_pressure_forces(const PressureLoad& load, Real P, const Mesh& mesh, const std::vector<Real>& x_given,
                         std::vector<Real>& f) {
  SOFTIK_CHECK(std::isfinite(P), "pressure load '" << load.name << "': pressure " << P << " is not finite");
  SOFTIK_CHECK(f.size() == x_given.size(),
               "add_pressure_forces: f has " << f.size() << " entries, expected " << x_given.size());
  const std::vector<Real>& x = pressure_positions(load, mesh, x_given);
  (void)checked_map(load, mesh, x);
  const assembly::TriangleList list = assembly::expand_triangles(load.surface);
  forall(exec::Serial{}, list.size(),
         assembly::TrianglePressureForces<assembly::Scatter::Coloured, exec::Space::Host>{
             host_surface(load, list, x), P, {f.data(), f.size()}});
}

std::vector<Real> pressure_jacobian(const PressureLoad& load, const Mesh& mesh, const std::vector<Real>& x) {
  std::vector<Real> J(x.size(), 0.0);
  add_pressure_forces(load, 1.0, mesh, x, J);  // f = P J: the forces per unit pressure
  return J;
}

long add_pressure_stiffness(const PressureLoad& load, Real P, const Assembler& assembler, const std::vector<Real>& x,
                            Real scale, std::vector<Real>& K_values) {
  return add_pressure_stiffness(load, P, assembler.mesh(), assembler.pattern(), assembler.free_dof_index(), x, scale,
                                K_values);
}

long add_pressure_stiffness(const PressureLoad& load, Real P, const Mesh& mesh, const CsrPattern& pattern,
                            const std::vector<int>& free, const std::vector<Real>& x, Real scale,
                            std::vector<Real>& K_values) {
  if (!load.follower) return 0;  // a dead load: no load stiffness
  return detail::PressureStiffness(load, mesh, pattern, free).add(P, x, scale, K_values);
}

namespace detail {

template <class Fn>
void PressureStiffness::for_each_entry(const int* v, int nv, Fn&& fn) const {
  const VertexMap map{load_, mesh_};
  for (int va = 0; va < nv; ++va)
    for (int vb = 0; vb < nv; ++vb)
      for (int ka = 0; ka < map.count(); ++ka)
        for (int kb = 0; kb < map.count(); ++kb) {
          const Real w = map.weight(v[va], ka) * map.weight(v[vb], kb);
          if (w == 0) continue;
          const int na = map.node(v[va], ka), nb = map.node(v[vb], kb);
          for (int i = 0; i < 3; ++i) {
            const int row = free_[3 * static_cast<size_t>(na) + i];
            if (row < 0) continue;
            for (int j = 0; j < 3; ++j) {
              const int col = free_[3 * static_cast<size_t>(nb) + j];
              if (col >= 0) fn(3 * va + i, 3 * vb + j, w, row, col);
            }
          }
        }
}

PressureStiffness::PressureStiffness(const PressureLoad& load, const Mesh& mesh, const CsrPattern& pattern,
                                     const std::vector<int>& free_dof_index)
    : load_(load),
      mesh_(mesh),
      free_(free_dof_index),
      nnz_(pattern.nnz()),
      list_(assembly::expand_triangles(load.surface)) {
  (void)checked_map(load, mesh, mesh.X);
  SOFTIK_CHECK(free_.size() == static_cast<size_t>(mesh.num_dofs()),
               "pressure load '" << load.name << "': free_dof_index has " << free_.size() << " entries, expected "
                                 << mesh.num_dofs());
  if (!load.follower) return;  // a dead load: no load stiffness, no slots
  const assembly::PressureSurface<exec::Space::Host> surface = host_surface(load, list_, mesh.X);
  for (int t = 0; t < list_.size(); ++t) {
    int v[6];
    Vec3 p[6];
    const int nv = assembly::face_vertices(surface, t, v, p);
    for_each_entry(v, nv, [&](int, int, Real, int row, int col) { slots_.push_back(pattern.slot(row, col)); });
  }
}

long PressureStiffness::add(Real P, const std::vector<Real>& x, Real scale, std::vector<Real>& K_values) const {
  if (!load_.follower) return 0;  // a dead load: no load stiffness
  SOFTIK_CHECK(K_values.size() == static_cast<size_t>(nnz_),
               "add_pressure_stiffness: K has " << K_values.size() << " values, the pattern " << nnz_);
  SOFTIK_CHECK(x.size() == static_cast<size_t>(mesh_.num_dofs()),
               "pressure load '" << load_.name << "': x has " << x.size() << " entries, expected " << mesh_.num_dofs());
  const assembly::PressureSurface<exec::Space::Host> surface = host_surface(load_, list_, x);
  long dropped = 0;
  size_t next = 0;
  // One face's element matrix K (nv vertices, 3 nv rows), symmetrised, through the vertex map.
  auto scatter = [&](const int* v, int nv, const auto& K) {
    for_each_entry(v, nv, [&](int r, int c, Real w, int, int) {
      const Real value = w * Real(0.5) * scale * (K(r, c) + K(c, r));
      const int slot = slots_[next++];
      if (slot >= 0)
        K_values[static_cast<size_t>(slot)] += value;
      else if (value != 0)
        ++dropped;
    });
  };
  for (int t = 0; t < list_.size(); ++t) {
    int v[6];
    Vec3 p[6];
    if (assembly::face_vertices(surface, t, v, p) == 6) {
      fem::Mat18 K;
      fem::tri6_pressure_stiffness(P, p, K);
      scatter(v, 6, K);
    } else {
      Mat9 K;
      fem::triangle_pressure_stiffness(list_.weights[static_cast<size_t>(t)] * P, p[0], p[1], p[2], K);
      scatter(v, 3, K);
    }
  }
  return dropped;
}

}  // namespace detail

}  // namespace softik
