// One arc-length step (include/softik/continuation.hpp, equations (1)-(5)): the linearisation at
// (x, lambda) and the predictor-corrector iterations. Private to host/solvers/; the driver is
// arc_length.cpp.
#pragma once

#include <memory>
#include <vector>

#include "host/loads/pressure_evaluator.hpp"
#include "host/solvers/equilibrium_model.hpp"
#include "softik/continuation.hpp"

namespace softik {

/// A converged point of the path with what the next predictor needs.
struct ArcPoint {
  std::vector<Real> x;  ///< positions, num_dofs
  Real lambda = 0;
  std::vector<Real> tangent;  ///< dx_f = K_T^-1 f_ref at this point (free DOFs): dx/dlambda of the path
  Real load_norm = 0;         ///< F = |f_ref_free| at this point
  Real residual = 0;          ///< |r_free|
  int negative_pivots = -1;   ///< of K_T at this point
};

/// How one attempt ended.
struct StepOutcome {
  bool converged = false;
  int iterations = 0;
  const char* failure = "";  ///< why not, when not converged
};

class ArcLengthStepper {
 public:
  ArcLengthStepper(const EquilibriumModel& model, LinearSolver& solver, const Loads& loads,
                   const ArcLengthOptions& options);

  /// Linearises and factorises at (x, lambda) and fills `point` (tangent, inertia, residual);
  /// true when (x, lambda) is an equilibrium to the tolerance. A fixed-lambda Newton solve from x
  /// when it is not (the starting point), within max_iterations.
  StepOutcome equilibrium_point(std::vector<Real> x, Real lambda, ArcPoint& point);

  /// One step of arc ds from `from` along the predictor sign `sign` (+1, -1) and the previous
  /// increment (dx_prev: free DOFs, dlambda_prev). On success `to` is the new point and
  /// dx / dlambda its increment.
  StepOutcome arc_step(const ArcPoint& from, Real ds, int sign, ArcPoint& to, std::vector<Real>& dx, Real& dlambda);

  /// Newton at the fixed load factor `lambda` from `from` moved by the fraction t of the
  /// increment (dx, dlambda) of a step (the step that passed max_load_factor).
  StepOutcome fixed_load_step(const ArcPoint& from, const std::vector<Real>& dx, Real t, Real lambda, ArcPoint& to);

  /// The predictor sign of (3) at `point` for a path that arrived with increment (dx, dlambda).
  int predictor_sign(const ArcPoint& point, const std::vector<Real>& dx, Real dlambda, int previous_sign) const;

  /// Pressures (lambda P) and cavity volumes of the loads at a point.
  void pressures_and_volumes(const ArcPoint& point, std::vector<Real>& pressures, std::vector<Real>& volumes) const;

  int num_free() const { return n_; }
  /// Corrector iterations over all attempts so far.
  int iterations() const { return iterations_; }

 private:
  struct Linearization {
    Real residual = 0;  ///< |r_free|
    Real load = 0;      ///< |f_ref_free|
  };
  /// Assembles r = f + lambda f_ref and f_ref on the free DOFs at (x, lambda) and factorises K_T.
  Linearization linearize(const std::vector<Real>& x, Real lambda);
  bool converged(const Linearization& lin, Real lambda) const;
  /// Iterations (4)-(5) from the predicted increment (dx, dlambda) of the point `from`; with
  /// `fixed_load` dlambda stays as it is (Newton at fixed load). Fills `to` on convergence.
  StepOutcome correct(const ArcPoint& from, Real ds, bool fixed_load, std::vector<Real>& dx, Real& dlambda,
                      ArcPoint& to);
  /// The correction dlambda of (5) for the increment (dx, dlambda) and the solves dx_r, dx_f;
  /// false when (5) has no real root.
  bool constraint_root(const std::vector<Real>& dx, Real dlambda, const std::vector<Real>& dx_r,
                       const std::vector<Real>& dx_f, Real ds, Real F, Real* root) const;
  /// x = from + dx on the free DOFs.
  void place(const ArcPoint& from, const std::vector<Real>& dx, std::vector<Real>& x) const;
  /// Factorised at the current point: the tangent and inertia of a converged point.
  void finish_point(const std::vector<Real>& x, Real lambda, const Linearization& lin, ArcPoint& point);

  const EquilibriumModel& model_;
  LinearSolver& solver_;
  const Loads& loads_;
  const ArcLengthOptions& options_;
  std::vector<std::unique_ptr<PressureEvaluator>> pressure_;
  int n_ = 0;
  int iterations_ = 0;
  std::vector<Real> r_, f_ref_;  ///< free DOFs, of the last linearize()
  std::vector<Real> force_, load_, K_;
};

/// Dot product of two free-DOF vectors.
Real arc_dot(const std::vector<Real>& a, const std::vector<Real>& b);

}  // namespace softik
