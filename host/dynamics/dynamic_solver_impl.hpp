// The state of a DynamicSolver (include/softik/dynamics.hpp), shared by its two halves:
// time_stepping.cpp (the free motion: one implicit step by Newton, step cuts) and
// contact_correction.cpp (docs/method.md 9.1: detection, compliance, contact solve and correction).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "host/contact/contact_detection.hpp"
#include "host/loads/pressure_evaluator.hpp"
#include "softik/dynamics.hpp"
#include "softik/inverse.hpp"

namespace softik {

struct DynamicSolver::Impl {
  using Matrix = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
  using Vector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;

  Impl(const Assembler& assembler, LinearSolver& solver, DynamicLoads loads, DynamicsOptions options);

  const Assembler& assembler;
  LinearSolver& solver;
  DynamicLoads loads;
  DynamicsOptions options;
  std::vector<std::unique_ptr<PressureEvaluator>> pressure;
  std::vector<Real> M;        ///< mass matrix values in assembler.pattern() (free DOFs)
  std::vector<Real> x, v, a;  ///< num_dofs each; v = a = 0 on fixed DOFs a support does not drive
  Real t = 0;
  int steps = 0;
  Real size = 1;  ///< bounding-box diagonal of the mesh
  /// The tangent A depends on x only through K: a linear small-strain model without follower
  /// loads or driven actuators keeps one factorisation while dt is unchanged.
  bool constant_tangent = false;
  Real factor_dt = -1;             ///< dt of the factorisation held by `solver` (< 0: none valid)
  bool factor_is_current = false;  ///< factorised within the current (sub)step
  /// The driven actuators' stiffness kept out of the CSR pattern (cables), U C U^T, applied by
  /// Woodbury: A_t^-1 b = A^-1 b - Y M U^T A^-1 b with Y = A^-1 U (free DOFs x rank) and
  /// M = (I + C U^T Y)^-1 C, both of the factorisation held (empty: rank 0).
  Matrix low_rank_Y, low_rank_M;
  std::vector<std::string> warnings;
  /// Per DOF: 1 where a moving support (loads.supports) drives it; its x, v, a follow the support.
  std::vector<char> driven;

  // Contact state of the last step.
  contact::ContactDetection detection;  ///< candidate nodes, parts, pairs (setup in the constructor)
  std::vector<ContactPoint> contacts;
  std::vector<Real> lambda, deltas;  ///< 3 per contact

  // Control (DynamicSolver::add_control): inputs solved for in every step.
  std::vector<std::shared_ptr<Constraint>> control;
  InverseOptions control_options;
  std::vector<Real> actuation;             ///< per actuator row of `control`: the input of the last step
  QpActiveSet control_warm;                ///< the last step's active set
  std::vector<signed char> contact_codes;  ///< per contact of the last step: normal, t1, t2 states
  bool has_control() const { return !control.empty(); }

  // --- time_stepping.cpp ---
  /// dv/dx and da/dx of the scheme for step h.
  void scheme_coefficients(Real h, Real* c_v, Real* c_a) const;
  /// v(x) and a(x) of the scheme from the state at the start of the step (free DOFs only).
  void velocity_acceleration(const std::vector<Real>& x_new, Real h, std::vector<Real>& v_new,
                             std::vector<Real>& a_new) const;
  /// Calls f(actuator, lambda) for every actuator with an input at time `time`: the driven ones
  /// (their function of time, one value per row) and the controlled ones (`actuation`, held over
  /// the free motion).
  template <class F>
  void for_each_actuation(Real time, F&& f) const {
    for (const DrivenActuator& d : loads.actuators) {
      const std::vector<Real> lambda_d(static_cast<size_t>(d.actuator->num_rows()), d.lambda(time));
      f(*d.actuator, lambda_d.data());
    }
    size_t a = 0;
    for (const auto& c : control)
      if (c->role() == ConstraintRole::Actuator) {
        f(*c, actuation.data() + a);
        a += static_cast<size_t>(c->num_rows());
      }
  }
  /// Checks loads.supports against the mesh and the fixed DOFs and marks `driven`.
  void setup_supports();
  /// Sets the supports' DOFs of x_at to their positions at `time`.
  void drive_supports(Real time, std::vector<Real>& x_at) const;
  /// f_ext(t, x) for all DOFs.
  std::vector<Real> external_force(Real time, const std::vector<Real>& x_at) const;
  /// y += s * M z over the free DOFs (z, y: num_dofs vectors).
  void add_mass_times(const std::vector<Real>& z, Real s, std::vector<Real>& y) const;
  /// Factorises the step tangent A = (1 + beta c_v) K + (c_a + alpha c_v) M - (load stiffness)
  /// at x_at for step h (K: the elastic tangent values there); a failure is Numerical.
  void factorize_tangent(Real h, const std::vector<Real>& x_at, const std::vector<Real>& K);
  /// dx = A_t^-1 rhs over the free DOFs with the held factorisation and the low-rank stiffness.
  void solve_tangent(const std::vector<Real>& rhs, std::vector<Real>& dx) const;
  /// The free motion of one step of length h from the current state: x_free (Newton).
  /// Returns false when it does not converge; `iterations`, `residual` report it.
  bool free_motion(Real h, std::vector<Real>& x_free, int* iterations, Real* residual, int* factorizations);
  /// One step of length h (free motion and contact correction) applied to the state;
  /// cut into halves on failure, `depth` levels deep at most.
  void advance(Real h, int depth, DynamicStepReport& report);
  /// a = M^-1 (f + f_ext - D v) at the current state (free DOFs).
  void initial_acceleration();

  // --- contact_correction.cpp ---
  /// The compliance of the constraint columns B = H^T (free DOFs x m) with the held factorisation:
  /// W = H A_t^-1 H^T (Woodbury with the cables' low-rank stiffness), and what correction() needs.
  struct Compliance {
    Matrix W, Y, G_HU;  ///< Y = A^-1 B on the full path; G_HU = H A^-1 U
    bool half = false;  ///< forward solves only (the solver keeps Z = L^-1 P B)
  };
  Compliance compliance(const Matrix& B) const;
  /// dx = A_t^-1 B c over the free DOFs, with the solves of `compliance` (c: one per column of B).
  Vector correction(const Compliance& compliance, const Vector& c) const;
  /// Per pair of `near`, the index of the same pair (node, obstacle or triangle) among the last
  /// step's contacts, -1 for a new one.
  std::vector<int> match_previous(const std::vector<ContactPoint>& near) const;
  /// The report's contact part from `contacts`, `lambda`, `deltas` at the corrected positions.
  void record_contacts(Real h, const std::vector<Real>& x_new, DynamicStepReport& report) const;
  bool has_contact() const { return detection.active(options.contact); }
  /// The pairs near at x_free (ContactDetection::near_pairs), the compliance with the held factorisation, the contact
  /// solve, and the correction of x_free in place; fills the contact part of `report`.
  void correct(Real h, std::vector<Real>& x_free, DynamicStepReport& report);
  // correct()'s phases (each commented at its definition):
  struct ContactColumns;
  Vector warm_start(const std::vector<ContactPoint>& near) const;
  ContactColumns contact_columns(const std::vector<Vec3r>& free_delta) const;
  Compliance live_compliance(const ContactColumns& columns, std::vector<int>& live) const;
  void fill_dead_rows(const Matrix& W_live, const std::vector<int>& live, const Vector& delta_free, Matrix& W,
                      Vector& delta_solve) const;
  void solve_contact(const Matrix& W, const Vector& delta_solve, const std::vector<Real>& mu, Vector& lambda_next,
                     DynamicStepReport& report) const;
  void apply_correction(const Compliance& compliance_live, const std::vector<int>& live, const Vector& lambda_next,
                        const ContactColumns& columns, std::vector<Real>& x_free);
  /// Contacts that already interpenetrate at x (warnings naming the nodes and the depth).
  void warn_initial_penetration();

  // --- control_correction.cpp ---
  /// The control step (dynamics.hpp, "Control"): the constraint rows at x_free with the contact
  /// pairs, the compliance, the constraint-space solve for the actuation and the contact forces
  /// (the inverse problem's, host/inverse/constraint_space_solve.hpp), the correction of x_free in
  /// place; fills report.control and the contact part of `report`.
  void control_correct(Real h, std::vector<Real>& x_free, DynamicStepReport& report);
  struct ControlSolve;
  /// One constraint-space solve of the control step with the given contact pairs (and their free
  /// violations): rows, compliance, the solve (report.control), the correction (not applied).
  ControlSolve solve_control(const std::vector<Real>& x_free, const std::vector<ContactPoint>& pairs,
                             const std::vector<Vec3r>& free_delta, DynamicStepReport& report);
  // solve_control()'s phases (each commented at its definition):
  void control_rows(const std::vector<Real>& x_free, ControlSolve& out, std::vector<std::string>& names) const;
  void control_contact_rows(const std::vector<ContactPoint>& pairs, const std::vector<Vec3r>& free_delta,
                            ControlSolve& out) const;
  Compliance control_compliance(ControlSolve& out, Vector& lambda_prev, Vector& delta_free,
                                std::vector<bool>& idle) const;
  void control_space_solve(ControlSolve& out, const std::vector<std::string>& names, const Vector& delta_free,
                           const std::vector<bool>& idle, const Vector& lambda_prev, DynamicStepReport& report);
  void control_correction(const Compliance& comp, const Vector& lambda_prev, const Vector& delta_free,
                          ControlSolve& out) const;
  /// The pairs (found at the step's start, at any distance) of the candidates that penetrate an
  /// obstacle or another part at x_new and are not among `pairs`.
  std::vector<ContactPoint> missed_pairs(Real h, const std::vector<Real>& x_new,
                                         const std::vector<ContactPoint>& pairs) const;
  // control_correct()'s phases (each commented at its definition):
  ControlSolve solve_control_rounds(Real h, const std::vector<Real>& x_free, std::vector<ContactPoint>& pairs,
                                    std::vector<Vec3r>& free_delta, std::vector<Real>& x_new,
                                    DynamicStepReport& report);
  void report_control(const ControlSolve& s, DynamicStepReport& report);
  void store_control_contacts(const ControlSolve& s, const std::vector<Vec3r>& free_delta, DynamicStepReport& report);
  void finish_control_report(Real h, const std::vector<Real>& x_new, const ControlSolve& s,
                             DynamicStepReport& report) const;
  /// The controlled constraints accept the new state (outputs, rate windows) after a step.
  void accept_control();
};

}  // namespace softik
