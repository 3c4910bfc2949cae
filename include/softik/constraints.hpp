// Constraints of the inverse problem (docs/method.md section 8.1, [16]): actuators,
// effectors and sensors, each contributing rows to the constraint Jacobian J at the current
// positions x.
//
// One row r of a constraint holds
//   J_r      the row of J over the mesh DOFs (sparse): the linearisation d delta_r / dx, and for an
//            actuator also the direction of its nodal force, f = J_r^T lambda_r ([16] eq. 2);
//   delta_r  its current value: for an actuator the displacement it measures (cavity volume growth
//            V - V0, cable shortening L0 - L, point displacement along its direction), for an
//            effector the weighted offset from its goal w (p - goal);
//   bounds   on lambda_r (pressure, tension, force) and on delta_r (volume growth, cable
//            displacement), and separately the per-step rate window [delta_r - rate, delta_r + rate]
//            (the "...Variation" limits of the reference implementation); the step intersects them.
// Units: lambda in force per J-unit: Pa for a cavity (J = dV/dx), N for a cable or a point force.
// Equalities (imposed pressure or volume growth, imposed cable force or displacement) are
// actuators whose lambda or delta bounds coincide. Sensors give rows that are reported, never
// solved for (their lambda is 0).
#pragma once

#include <array>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/linear_solver.hpp"
#include "softik/loads.hpp"
#include "softik/mesh.hpp"
#include "softik/point_location.hpp"

namespace softik {

namespace detail {
class PressureRows;  // host/loads/pressure_rows.hpp
}

constexpr Real kInf = std::numeric_limits<Real>::infinity();

struct Interval {
  Real lo = -kInf, hi = kInf;
  bool contains(Real v) const { return v >= lo && v <= hi; }
};

enum class ConstraintRole { Actuator, Effector, Sensor };

struct ConstraintRow {
  std::vector<std::pair<int, Real>> J;  ///< (DOF, value), DOFs of the whole mesh
  Real delta = 0;
  Interval lambda_bounds;  ///< actuators only
  Interval delta_bounds;   ///< actuators only: the absolute bounds
  Interval delta_window;   ///< actuators only: the per-step rate window around the current value
};

/// A point attached to the body: a node, or a point in a cell with its shape-function weights.
struct AttachedPoint {
  std::vector<int> nodes;
  std::vector<Real> weights;
  static AttachedPoint node(int n) { return {{n}, {1.0}}; }
  /// The cell of `mesh` containing p (PointLocator::locate), with its weights.
  static AttachedPoint at(const Mesh& mesh, const std::array<Real, 3>& p, Real tolerance);
  std::array<Real, 3> position(const std::vector<Real>& x) const;  ///< x: DOF vector of a 3D mesh
};

class Constraint {
 public:
  virtual ~Constraint() = default;
  const std::string& name() const { return name_; }
  ConstraintRole role() const { return role_; }
  virtual int num_rows() const = 0;
  /// The rows at positions x (a DOF vector of `mesh`), appended to `rows`.
  virtual void rows(const Mesh& mesh, const std::vector<Real>& x, std::vector<ConstraintRow>& out) const = 0;
  /// Called after every accepted step with the positions and this constraint's lambda values
  /// (rate windows re-centre on the new value; outputs update).
  virtual void accept(const Mesh& mesh, const std::vector<Real>& x, const Real* lambda) = 0;
  /// Adds the stiffness of this actuator's nodal force J(x)^T lambda to the free-DOF tangent K
  /// (values in assembler.pattern()): K -= lambda d2(delta)/dx2 (for a cavity the follower-load
  /// stiffness P d2V/dx2, for a cable T d2L/dx2). The default adds nothing (linear rows).
  virtual void add_stiffness(const Assembler& assembler, const std::vector<Real>& x, const Real* lambda,
                             std::vector<Real>& K) const {
    (void)assembler, (void)x, (void)lambda, (void)K;
  }
  /// Appends the part of that stiffness that is better kept out of the CSR pattern, as
  /// U C U^T (see LowRankStiffness). The default appends nothing.
  virtual void add_low_rank_stiffness(const std::vector<Real>& x, const Real* lambda, LowRankStiffness& out) const {
    (void)x, (void)lambda, (void)out;
  }
  /// Named scalar outputs ("pressure", "volume_growth", ...), in a fixed order per type.
  virtual std::vector<std::pair<std::string, Real>> outputs() const = 0;
  /// Called by InverseSolver::add with its Assembler's mesh and backend: constraints whose rows
  /// come from a surface (cavity pressure, volume) evaluate it there from then on (per-triangle
  /// kernels on the GPU with Backend::Cuda). `mesh` must outlive the constraint's use. The
  /// default does nothing.
  virtual void use_backend(const Mesh& mesh, Backend backend) { (void)mesh, (void)backend; }

 protected:
  Constraint(std::string name, ConstraintRole role) : name_(std::move(name)), role_(role) {}

 private:
  std::string name_;
  ConstraintRole role_;
};

/// Pressure in a closed cavity (docs/method.md section 6; [7]). lambda = pressure P, J = dV/dx
/// (= the nodal pressure forces per unit pressure, sum_t n_t a_t / 3), delta = V - V0 (volume growth).
struct SurfacePressureActuatorSpec {
  std::string name;
  PressureLoad cavity;  ///< surface wound out of the cavity (check_surface); `pressure` unused
  Interval pressure{-kInf, kInf};
  Interval volume_growth{-kInf, kInf};
  Real max_volume_growth_variation = kInf;  ///< per step
  bool sensor = false;                      ///< report V only, never actuate
};
std::shared_ptr<Constraint> make_surface_pressure_actuator(const Mesh& mesh, SurfacePressureActuatorSpec spec);

/// A cable through points p_0 .. p_k (attached to the body), pulled from a fixed point q in
/// space toward which the first point is drawn: length L = |p_0 - q| + sum_i |p_{i+1} - p_i|,
/// delta = L0 - L (shortening, the cable displacement), J = -dL/dx, lambda = tension (>= 0 by
/// default: a cable cannot push).
struct CableActuatorSpec {
  std::string name;
  std::array<Real, 3> pull_point{0, 0, 0};
  std::vector<AttachedPoint> points;
  Interval force{0, kInf};
  Interval displacement{-kInf, kInf};
  Real max_displacement_variation = kInf;  ///< per step
  bool sensor = false;
};
std::shared_ptr<Constraint> make_cable_actuator(const Mesh& mesh, CableActuatorSpec spec);

/// A force on a point along a unit direction (one row), or free in 3D (direction = {0,0,0}:
/// three rows along x, y, z). delta = displacement of the point along the direction.
struct ForcePointActuatorSpec {
  std::string name;
  AttachedPoint point;
  std::array<Real, 3> direction{0, 0, 0};
  Interval force{-kInf, kInf};
};
std::shared_ptr<Constraint> make_force_point_actuator(const Mesh& mesh, ForcePointActuatorSpec spec);

/// A point of the body that should reach `goal`: one row per selected axis,
/// delta_i = w_i (p_i - goal_i), J_i = w_i dp_i/dx. With max_shift > 0 the goal seen by one step
/// is moved from p toward `goal` by at most max_shift (trajectory smoothing).
struct PositionEffectorSpec {
  std::string name;
  AttachedPoint point;
  std::array<Real, 3> goal{0, 0, 0};
  std::array<bool, 3> axes{true, true, true};
  std::array<Real, 3> weights{1, 1, 1};
  Real max_shift = 0;  ///< 0: no limit
};
class PositionEffector;
std::shared_ptr<PositionEffector> make_position_effector(const Mesh& mesh, PositionEffectorSpec spec);

class PositionEffector : public Constraint {
 public:
  PositionEffector(const Mesh& mesh, PositionEffectorSpec spec);
  int num_rows() const override;
  void rows(const Mesh& mesh, const std::vector<Real>& x, std::vector<ConstraintRow>& out) const override;
  void accept(const Mesh& mesh, const std::vector<Real>& x, const Real* lambda) override;
  std::vector<std::pair<std::string, Real>> outputs() const override;
  void set_goal(const std::array<Real, 3>& goal) { spec_.goal = goal; }
  void set_max_shift(Real max_shift);  ///< >= 0 (0: no limit)
  const std::array<Real, 3>& goal() const { return spec_.goal; }
  std::array<Real, 3> position(const std::vector<Real>& x) const { return spec_.point.position(x); }

 private:
  PositionEffectorSpec spec_;
  std::array<Real, 3> current_{0, 0, 0};
};

/// A cavity whose volume should reach `target` (one row, delta = V - target).
struct VolumeEffectorSpec {
  std::string name;
  PressureLoad cavity;
  Real target = 0;
};
class VolumeEffector;
std::shared_ptr<VolumeEffector> make_volume_effector(const Mesh& mesh, VolumeEffectorSpec spec);

class VolumeEffector : public Constraint {
 public:
  VolumeEffector(const Mesh& mesh, VolumeEffectorSpec spec);
  int num_rows() const override { return 1; }
  void rows(const Mesh& mesh, const std::vector<Real>& x, std::vector<ConstraintRow>& out) const override;
  void accept(const Mesh& mesh, const std::vector<Real>& x, const Real* lambda) override;
  std::vector<std::pair<std::string, Real>> outputs() const override;
  void use_backend(const Mesh& mesh, Backend backend) override;
  void set_target(Real volume);  ///< > 0
  Real target() const { return spec_.target; }
  Real volume() const { return V_; }  ///< at the last accepted state
  Real rest_volume() const { return V0_; }

 private:
  VolumeEffectorSpec spec_;
  Real V0_ = 0, V_ = 0;
  std::shared_ptr<const detail::PressureRows> cavity_;  ///< the volume and dV/dx on the host (rebound by use_backend)
};

}  // namespace softik
