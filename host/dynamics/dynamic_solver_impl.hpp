// The state of a DynamicSolver (include/softik/dynamics.hpp), shared by its two halves:
// time_stepping.cpp (the free motion: one implicit step by Newton, step cuts) and
// contact_correction.cpp (seed 003's detection, compliance, contact solve and correction).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "host/assembly/pressure_evaluator.hpp"
#include "softik/dynamics.hpp"

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
  std::vector<Real> M;  ///< mass matrix values in assembler.pattern() (free DOFs)
  std::vector<Real> x, v, a;  ///< num_dofs each; v = a = 0 on fixed DOFs
  Real t = 0;
  int steps = 0;
  Real size = 1;  ///< bounding-box diagonal of the mesh
  /// The tangent A depends on x only through K: a linear small-strain model without follower
  /// loads or driven actuators keeps one factorisation while dt is unchanged.
  bool constant_tangent = false;
  Real factor_dt = -1;     ///< dt of the factorisation held by `solver` (< 0: none valid)
  bool factor_is_current = false;  ///< factorised within the current (sub)step
  /// The driven actuators' stiffness kept out of the CSR pattern (cables), U C U^T, applied by
  /// Woodbury: A_t^-1 b = A^-1 b - Y M U^T A^-1 b with Y = A^-1 U (free DOFs x rank) and
  /// M = (I + C U^T Y)^-1 C, both of the factorisation held (empty: rank 0).
  Matrix low_rank_Y, low_rank_M;
  std::vector<std::string> warnings;

  // Contact state of the last step.
  std::vector<int> contact_nodes;        ///< candidate nodes (with a free DOF)
  std::vector<int> node_part;            ///< part (connected component) of every mesh node
  std::unique_ptr<SurfaceProximity> proximity;  ///< between_parts only
  std::vector<int> proximity_nodes, proximity_node_part;
  std::vector<Real> part_edge;           ///< mean boundary edge length per part
  std::vector<ContactPoint> contacts;
  std::vector<Real> lambda, deltas;      ///< 3 per contact

  // --- time_stepping.cpp ---
  /// dv/dx and da/dx of the scheme for step h.
  void scheme_coefficients(Real h, Real* c_v, Real* c_a) const;
  /// v(x) and a(x) of the scheme from the state at the start of the step (free DOFs only).
  void velocity_acceleration(const std::vector<Real>& x_new, Real h, std::vector<Real>& v_new,
                             std::vector<Real>& a_new) const;
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
  void setup_contact();
  bool has_contact() const;
  /// Contact between parts is one pass (two passes give near-equal rows for matching surfaces,
  /// a near-singular W): a node of one part is tested against the triangles of another when its
  /// part is the finer (smaller mean boundary edge), or for equal sizes the later part.
  bool slave_of(int node_part_id, int triangle_part_id) const;
  /// The pairs that may touch within the step of length h (detected at the start, kept when their
  /// free violation is within the alarm distance) and their free violations (normal, t1, t2).
  std::vector<ContactPoint> near_pairs(Real h, const std::vector<Real>& x_free, std::vector<Vec3r>& free_delta) const;
  /// near_pairs, the compliance with the held factorisation, the contact solve, and the
  /// correction of x_free in place; fills the contact part of `report`.
  void correct(Real h, std::vector<Real>& x_free, DynamicStepReport& report);
  /// Contacts that already interpenetrate at x (warnings naming the nodes and the depth).
  void warn_initial_penetration();
};

}  // namespace softik
