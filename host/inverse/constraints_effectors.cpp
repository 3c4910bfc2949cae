// Effectors of the inverse problem (constraints.hpp) and attached points.
#include <cmath>

#include "host/loads/pressure_rows.hpp"
#include "softik/constraints.hpp"
#include "softik/error.hpp"

namespace softik {

AttachedPoint AttachedPoint::at(const Mesh& mesh, const std::array<Real, 3>& p, Real tolerance) {
  const PointLocation loc = locate_point(mesh, p, tolerance);
  AttachedPoint a;
  for (int k = 0; k < loc.num_weights; ++k) {
    a.nodes.push_back(loc.nodes[static_cast<size_t>(k)]);
    a.weights.push_back(loc.weights[static_cast<size_t>(k)]);
  }
  return a;
}

std::array<Real, 3> AttachedPoint::position(const std::vector<Real>& x) const {
  std::array<Real, 3> p{0, 0, 0};
  for (size_t k = 0; k < nodes.size(); ++k)
    for (size_t i = 0; i < 3; ++i) p[i] += weights[k] * x[3 * static_cast<size_t>(nodes[k]) + i];
  return p;
}

PositionEffector::PositionEffector(const Mesh& mesh, PositionEffectorSpec spec)
    : Constraint(spec.name, ConstraintRole::Effector), spec_(std::move(spec)) {
  SOFTIK_CHECK(mesh.dim == 3, name() << ": position effectors need a 3D mesh");
  SOFTIK_CHECK(!spec_.point.nodes.empty() && spec_.point.nodes.size() == spec_.point.weights.size(),
               name() << ": the effector point needs as many weights as nodes");
  for (int n : spec_.point.nodes)
    SOFTIK_CHECK(n >= 0 && n < mesh.num_nodes(), name() << ": node " << n << " is not a mesh node");
  int axes = 0;
  for (size_t i = 0; i < 3; ++i) {
    SOFTIK_CHECK(std::isfinite(spec_.goal[i]), name() << ": goal component " << i << " is not finite");
    SOFTIK_CHECK(std::isfinite(spec_.weights[i]) && spec_.weights[i] > 0,
                 name() << ": weight " << i << " = " << spec_.weights[i] << " must be > 0");
    axes += spec_.axes[i] ? 1 : 0;
  }
  SOFTIK_CHECK(axes > 0, name() << ": select at least one axis");
  SOFTIK_CHECK(spec_.max_shift >= 0, name() << ": max_shift must be >= 0 (0: no limit)");
  current_ = spec_.point.position(mesh.rest_positions());
}

int PositionEffector::num_rows() const {
  return (spec_.axes[0] ? 1 : 0) + (spec_.axes[1] ? 1 : 0) + (spec_.axes[2] ? 1 : 0);
}

void PositionEffector::rows(const Mesh&, const std::vector<Real>& x, std::vector<ConstraintRow>& out) const {
  const std::array<Real, 3> p = spec_.point.position(x);
  // The goal seen by this step: moved from p toward the goal by at most max_shift.
  std::array<Real, 3> goal = spec_.goal;
  if (spec_.max_shift > 0) {
    Real d2 = 0;
    for (size_t i = 0; i < 3; ++i)
      if (spec_.axes[i]) d2 += (goal[i] - p[i]) * (goal[i] - p[i]);
    const Real d = std::sqrt(d2);
    if (d > spec_.max_shift)
      for (size_t i = 0; i < 3; ++i) goal[i] = p[i] + (goal[i] - p[i]) * spec_.max_shift / d;
  }
  for (size_t i = 0; i < 3; ++i) {
    if (!spec_.axes[i]) continue;
    ConstraintRow r;
    const Real w = spec_.weights[i];
    for (size_t k = 0; k < spec_.point.nodes.size(); ++k)
      r.J.emplace_back(3 * spec_.point.nodes[k] + static_cast<int>(i), w * spec_.point.weights[k]);
    r.delta = w * (p[i] - goal[i]);
    out.push_back(std::move(r));
  }
}

void PositionEffector::accept(const Mesh&, const std::vector<Real>& x, const Real*) {
  current_ = spec_.point.position(x);
}

void PositionEffector::set_max_shift(Real max_shift) {
  SOFTIK_CHECK(max_shift >= 0, name() << ": max_shift must be >= 0 (0: no limit), got " << max_shift);
  spec_.max_shift = max_shift;
}

std::vector<std::pair<std::string, Real>> PositionEffector::outputs() const {
  Real e2 = 0;
  for (size_t i = 0; i < 3; ++i)
    if (spec_.axes[i]) e2 += (current_[i] - spec_.goal[i]) * (current_[i] - spec_.goal[i]);
  return {{"x", current_[0]},        {"y", current_[1]},        {"z", current_[2]},      {"goal_x", spec_.goal[0]},
          {"goal_y", spec_.goal[1]}, {"goal_z", spec_.goal[2]}, {"error", std::sqrt(e2)}};
}

std::shared_ptr<PositionEffector> make_position_effector(const Mesh& mesh, PositionEffectorSpec spec) {
  return std::make_shared<PositionEffector>(mesh, std::move(spec));
}

VolumeEffector::VolumeEffector(const Mesh& mesh, VolumeEffectorSpec spec)
    : Constraint(spec.name, ConstraintRole::Effector), spec_(std::move(spec)) {
  set_target(spec_.target);
  V0_ = V_ = surface_volume(spec_.cavity, mesh, mesh.rest_positions());
  SOFTIK_CHECK(V_ > 0, name() << ": the cavity's rest volume is " << V_
                              << "; the surface must be closed and wound out of the cavity");
  cavity_ = std::make_shared<const detail::PressureRows>(spec_.cavity, mesh);
}

void VolumeEffector::set_target(Real volume) {
  SOFTIK_CHECK(std::isfinite(volume) && volume > 0,
               name() << ": target volume " << volume << " must be positive and finite");
  spec_.target = volume;
}

void VolumeEffector::rows(const Mesh&, const std::vector<Real>& x, std::vector<ConstraintRow>& out) const {
  ConstraintRow r;
  r.delta = cavity_->volume_and_jacobian(x, r.J) - spec_.target;
  out.push_back(std::move(r));
}

void VolumeEffector::accept(const Mesh&, const std::vector<Real>& x, const Real*) { V_ = cavity_->volume(x); }

/// The rows of any backend are evaluated on the host (pressure_rows.hpp); this rebinds them to the
/// solver's mesh.
void VolumeEffector::use_backend(const Mesh& mesh, Backend) {
  cavity_ = std::make_shared<const detail::PressureRows>(spec_.cavity, mesh);
}

std::vector<std::pair<std::string, Real>> VolumeEffector::outputs() const {
  return {{"volume", V_}, {"target", spec_.target}, {"error", V_ - spec_.target}};
}

std::shared_ptr<VolumeEffector> make_volume_effector(const Mesh& mesh, VolumeEffectorSpec spec) {
  return std::make_shared<VolumeEffector>(mesh, std::move(spec));
}

}  // namespace softik
