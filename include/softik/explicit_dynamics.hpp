// Explicit dynamics (docs/method.md section 12.3) of node networks (node_network.hpp)
// and of FEM bodies with lumped mass, so that the two models of one mesh can be compared.
//
// Equation of motion per DOF i (fixed DOFs do not move):
//   m_i a_i = f_i(t, x, v) - (alpha m_i + c_g) v_i
// f the model's forces (links or elements, dashpots, gravity, nodal loads, pressures
// P(t) J(x) by the per-triangle f = P/6 (p2 - p1) x (p3 - p1) on the deformed faces), alpha the
// mass-proportional damping (1/s), c_g a global damping per DOF (N s/m).
// Schemes (a(x, v) = M^-1 (f - damping)):
//   symplectic Euler   v+ = v + dt a(x, v);   x+ = x + dt v+                    (first order)
//   velocity Verlet    v* = v + dt/2 a(x, v); x+ = x + dt v*;
//                      v+ = v* + dt/2 a(x+, v*)                                (second order; the
//                      central-difference method of explicit FEM codes; velocity-dependent forces
//                      see the half-step velocity v*)
// Both are stable for an undamped linear model when dt <= 2 / omega_max, omega_max^2 the largest
// eigenvalue of M^-1 K; with damping of rate d at that frequency (xi = d / (2 omega_max)) the
// central difference limit is dt_c = (2 / omega_max)(sqrt(1 + xi^2) - xi) (Belytschko, Liu, Moran,
// "Nonlinear finite elements for continua and structures", section 6.2). softik bounds
// omega_max^2 from above by block Gershgorin (node networks: max over nodes of
// (2 sum_links |H_l| + sum_cells sum_b ||H_ib||) / m_i, fem/link.hpp and fem/cell_volume.hpp; FEM:
// max over rows of sum_j |K_ij| / m_i) and d by
// alpha + (2 sum_links c_l + c_g) / m_i, so dt_c is a safe limit. It is re-estimated at every
// output frame (large deformation and hardening links stiffen the model).
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/dynamics.hpp"
#include "softik/loads.hpp"
#include "softik/node_network.hpp"

namespace softik {

enum class ExplicitScheme { SymplecticEuler, VelocityVerlet };

/// "symplectic_euler" or "velocity_verlet".
const char* explicit_scheme_name(ExplicitScheme scheme);

/// A uniform pressure P(t) = load.pressure * over_time(t) on faces of the model's nodes.
struct ExplicitPressure {
  PressureLoad load;       ///< the surface (node indices), wound out of the cavity; closed or open
  TimeFunction over_time;  ///< empty: constant
};

struct ExplicitLoads {
  std::vector<ExplicitPressure> pressures;
  std::array<Real, 3> gravity{0, 0, 0};  ///< acceleration (m/s^2) acting on every mass
  TimeFunction gravity_over_time;        ///< empty: constant
  std::vector<Real> nodal;               ///< constant nodal forces (3 per node), or empty
};

/// What the integrator needs from a body (3 DOFs per node).
class ExplicitModel {
 public:
  virtual ~ExplicitModel() = default;
  virtual int num_dofs() const = 0;
  virtual const std::vector<Real>& rest_positions() const = 0;
  virtual const std::vector<Real>& mass() const = 0;   ///< lumped, per DOF, > 0
  virtual const std::vector<char>& fixed() const = 0;  ///< per DOF, non-zero: held at its rest position
  /// f = all forces at (t, x, v) except the integrator's damping; num_dofs entries, overwritten.
  virtual void forces(Real t, const std::vector<Real>& x, const std::vector<Real>& v, std::vector<Real>& f) const = 0;
  /// The stored energy minus the potential of the loads frozen at time t (gravity, nodal, the
  /// pressures' P V(x)): constant along an undamped motion under loads constant in time.
  virtual Real potential_energy(Real t, const std::vector<Real>& x) const = 0;
  struct Bounds {
    Real omega_squared = 0;  ///< >= the largest eigenvalue of M^-1 K at x
    Real damping_rate = 0;   ///< >= the model's own damping rate (dashpots), without alpha and c_g
    int node = -1;           ///< the node that sets omega_squared
  };
  virtual Bounds frequency_bounds(const std::vector<Real>& x) const = 0;
  /// Throws softik::Error when x is no longer a valid state (a collapsed link, an inverted cell).
  virtual void check_state(const std::vector<Real>& x) const = 0;
};

/// A node network with its fixed DOFs (empty or 3 per node) and loads.
class NodeNetworkModel final : public ExplicitModel {
 public:
  /// Validates everything: the network, the fixed DOFs, each pressure surface (check_surface:
  /// consistent winding, closed when load.closed; a surface wound into the cavity is reversed and
  /// counted in notes()), the loads' sizes and finiteness. num_threads 0: all hardware threads.
  /// Backend::Cuda gathers the link forces on the GPU (NetworkForces).
  NodeNetworkModel(const NodeNetwork& network, std::vector<char> fixed_dofs, ExplicitLoads loads, int num_threads = 0,
                   Backend backend = Backend::Cpu);
  int num_dofs() const override { return 3 * forces_.network().num_nodes(); }
  const std::vector<Real>& rest_positions() const override { return forces_.network().X; }
  const std::vector<Real>& mass() const override { return mass_; }
  const std::vector<char>& fixed() const override { return fixed_; }
  void forces(Real t, const std::vector<Real>& x, const std::vector<Real>& v, std::vector<Real>& f) const override;
  Real potential_energy(Real t, const std::vector<Real>& x) const override;
  Bounds frequency_bounds(const std::vector<Real>& x) const override;
  void check_state(const std::vector<Real>& x) const override;
  const NetworkForces& link_forces() const { return forces_; }
  const ExplicitLoads& loads() const { return loads_; }
  /// The pressure surfaces' meshes (the network's nodes, no cells), for volumes and outputs.
  const Mesh& nodes() const { return nodes_; }
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  NetworkForces forces_;
  Mesh nodes_;
  std::vector<Real> mass_;
  std::vector<char> fixed_;
  ExplicitLoads loads_;
  std::vector<std::string> notes_;
};

/// An FEM body (any element, law and formulation of the Assembler) with the row-sum lumped mass
/// of `density`. The assembler's fixed DOFs are held at rest. The assembler must outlive the model.
class FemExplicitModel final : public ExplicitModel {
 public:
  FemExplicitModel(const Assembler& assembler, Real density, ExplicitLoads loads);
  int num_dofs() const override { return assembler_.num_dofs(); }
  const std::vector<Real>& rest_positions() const override { return X_; }
  const std::vector<Real>& mass() const override { return mass_; }
  const std::vector<char>& fixed() const override { return fixed_; }
  void forces(Real t, const std::vector<Real>& x, const std::vector<Real>& v, std::vector<Real>& f) const override;
  Real potential_energy(Real t, const std::vector<Real>& x) const override;
  Bounds frequency_bounds(const std::vector<Real>& x) const override;
  void check_state(const std::vector<Real>& x) const override;

 private:
  const Assembler& assembler_;
  std::vector<Real> X_, mass_, gravity_share_;
  std::vector<char> fixed_;
  ExplicitLoads loads_;
};

struct ExplicitOptions {
  ExplicitScheme scheme = ExplicitScheme::VelocityVerlet;
  Real time_step = 0;            ///< dt (s); 0: safety * the stable estimate
  Real safety = 0.9;             ///< in (0, 1]: the automatic step is safety * dt_c
  bool force_time_step = false;  ///< run with a time_step above dt_c anyway (else softik::Error)
  Real mass_damping = 0;         ///< alpha (1/s), >= 0
  Real global_damping = 0;       ///< c_g (N s/m per DOF), >= 0
  int steps_per_frame = 100;     ///< steps between frames (stable-step re-estimates, on_frame calls)
};

/// One output frame of ExplicitSolver::advance.
struct ExplicitFrame {
  int frame = 0;
  long step = 0;  ///< time steps since the start
  Real time = 0;
  Real kinetic_energy = 0;
  Real potential_energy = 0;
  Real stable_time_step = 0;  ///< dt_c at this frame's state
};

class ExplicitSolver {
 public:
  /// Starts at rest (x = the model's rest positions, v = 0, t = 0); the model must outlive the
  /// solver. Throws softik::Error on bad
  /// options and, unless force_time_step, on a time_step above dt_c (naming dt_c, the node that
  /// sets it and the fix).
  ExplicitSolver(const ExplicitModel& model, ExplicitOptions options = {});
  /// One time step.
  void step();
  /// Steps until `duration` more seconds have passed (the last step shortened to land on it),
  /// calling on_frame after every steps_per_frame steps and at the end. Re-estimates dt_c at every
  /// frame: throws (unless force_time_step) when dt exceeds it.
  void advance(Real duration, const std::function<void(const ExplicitFrame&)>& on_frame = {});
  /// Sets the state (num_dofs entries each; fixed DOFs must keep their rest positions and v = 0).
  void set_state(const std::vector<Real>& x, const std::vector<Real>& v);
  Real time() const { return t_; }
  Real time_step() const { return dt_; }
  /// dt_c at the current state (explicit_dynamics.hpp file comment).
  Real stable_time_step() const;
  long steps() const { return steps_; }
  const std::vector<Real>& x() const { return x_; }
  const std::vector<Real>& v() const { return v_; }
  Real kinetic_energy() const;
  Real potential_energy() const { return model_.potential_energy(t_, x_); }
  /// Energy removed by alpha and c_g so far (J), integrated with the step's mean velocity.
  Real damped_energy() const { return damped_; }

 private:
  void accelerations(Real t, const std::vector<Real>& x, const std::vector<Real>& v, std::vector<Real>& a) const;
  void take_step(Real dt);
  void check_time_step(Real dt_c) const;

  const ExplicitModel& model_;
  ExplicitOptions options_;
  std::vector<Real> x_, v_, a_, f_, scratch_;
  Real t_ = 0, dt_ = 0, damped_ = 0;
  long steps_ = 0;
  bool have_a_ = false;
};

}  // namespace softik
