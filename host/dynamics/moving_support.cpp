// MovingSupport: x(t) = c + d(t) + R(t) (X - c) of a support's nodes (include/softik/dynamics.hpp),
// and the DynamicSolver's side of it: the supported DOFs checked and driven.
#include <cmath>

#include "host/dynamics/dynamic_solver_impl.hpp"
#include "softik/dynamics.hpp"
#include "softik/error.hpp"
#include "softik/mesh_transform.hpp"

namespace softik {

namespace {

bool finite3(const std::array<Real, 3>& v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }

}  // namespace

// d(t): linear between the path's rows, the end rows' values outside.
std::array<Real, 3> MovingSupport::offset(Real t) const {
  if (path_times.empty()) return {0, 0, 0};
  if (t <= path_times.front()) return path_offsets.front();
  if (t >= path_times.back()) return path_offsets.back();
  size_t k = 1;
  while (path_times[k] < t) ++k;  // path_times[k-1] < t <= path_times[k]
  const Real s = (t - path_times[k - 1]) / (path_times[k] - path_times[k - 1]);
  std::array<Real, 3> d{};
  for (int i = 0; i < 3; ++i) d[i] = path_offsets[k - 1][i] + s * (path_offsets[k][i] - path_offsets[k - 1][i]);
  return d;
}

namespace {

/// The support's motion at time t as one Transform: x = R X + (c + d(t) - R c), so that a step
/// turns the axis and angle into R once, not once per node.
Transform motion_at(const MovingSupport& s, Real t) {
  Transform m;
  if (!s.angle.times.empty()) m.rotation = rotation_axis_angle(s.axis, s.angle(t), "support '" + s.name + "'");
  const std::array<Real, 3> d = s.offset(t), Rc = m.rotate(s.center);
  for (int i = 0; i < 3; ++i) m.translation[static_cast<size_t>(i)] = s.center[i] + d[i] - Rc[i];
  return m;
}

}  // namespace

// x(t) = c + d(t) + R(t) (X - c).
std::array<Real, 3> MovingSupport::position(const std::array<Real, 3>& X, Real t) const {
  return motion_at(*this, t).apply(X);
}

void validate(const MovingSupport& s, int num_nodes) {
  const std::string what = "moving support '" + s.name + "'";
  SOFTIK_CHECK(!s.nodes.empty(), what << ": has no nodes; select the nodes it moves");
  for (int n : s.nodes)
    SOFTIK_CHECK(n >= 0 && n < num_nodes,
                 what << ": node " << n << " is out of range (the mesh has " << num_nodes << " nodes)");
  SOFTIK_CHECK(s.path_times.size() == s.path_offsets.size(), what << ": " << s.path_times.size() << " path times but "
                                                                  << s.path_offsets.size()
                                                                  << " offsets; give one offset per time");
  for (size_t k = 0; k < s.path_times.size(); ++k) {
    SOFTIK_CHECK(std::isfinite(s.path_times[k]) && finite3(s.path_offsets[k]),
                 what << ": path row " << k << " holds a non-finite number; give finite times and offsets");
    SOFTIK_CHECK(k == 0 || s.path_times[k] > s.path_times[k - 1],
                 what << ": path time " << s.path_times[k] << " (row " << k << ") does not follow "
                      << s.path_times[k - 1] << "; list the times in increasing order");
  }
  SOFTIK_CHECK(finite3(s.center), what << ": the rotation centre must be finite");
  if (!s.angle.times.empty()) {
    validate(s.angle, what + ": angle");
    (void)rotation_axis_angle(s.axis, 0, what + ": axis");  // a zero or non-finite axis is refused here
  }
}

void DynamicSolver::Impl::setup_supports() {
  const Mesh& mesh = assembler.mesh();
  const std::vector<int>& free = assembler.free_dof_index();
  driven.assign(x.size(), 0);
  if (loads.supports.empty()) return;
  SOFTIK_CHECK(options.rayleigh_stiffness == 0,
               "dynamics: rayleigh_stiffness with a moving support: the stiffness damping of the support's motion "
               "needs the block of K between the free and the fixed DOFs, which is not assembled; damp with "
               "rayleigh_mass instead (or the time scheme's own dissipation, backward Euler)");
  for (const MovingSupport& s : loads.supports) {
    validate(s, mesh.num_nodes());
    for (int node : s.nodes)
      for (int c = 0; c < mesh.dim; ++c) {
        const size_t dof = static_cast<size_t>(node * mesh.dim + c);
        SOFTIK_CHECK(free[dof] < 0, "dynamics: moving support '" << s.name << "': node " << node << " ("
                                                                 << "xyz"[c]
                                                                 << ") is free; a support's nodes must be fixed "
                                                                    "in every component (the Assembler's fixed_dofs)");
        driven[dof] = 1;
      }
  }
}

void DynamicSolver::Impl::drive_supports(Real time, std::vector<Real>& x_at) const {
  const Mesh& mesh = assembler.mesh();
  for (const MovingSupport& s : loads.supports) {
    const Transform motion = motion_at(s, time);
    for (int node : s.nodes) {
      const size_t p = 3 * static_cast<size_t>(node);
      const std::array<Real, 3> to = motion.apply({mesh.X[p], mesh.X[p + 1], mesh.X[p + 2]});
      for (int c = 0; c < mesh.dim; ++c) x_at[static_cast<size_t>(node * mesh.dim + c)] = to[static_cast<size_t>(c)];
    }
  }
}

}  // namespace softik
