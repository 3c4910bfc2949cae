// Volume-controlled and gas cavities in solve_static (CavityControl, include/softik/loads.hpp;
// docs/method.md section 7, "Volume-controlled and gas cavities").
//
// Residual on the free DOFs, with P_k the pressure of pressure load k:
//   r(x) = f(x) + lambda f_ext + sum_k P_k J_k(x),   J_k = dV_k/dx,  K_T = K - sum_k P_k d2V_k/dx2.
// Volume control (P_k an unknown): c_k(x) = V_k(x) - V0_k - lambda dV_k = 0. Linearising
// r(x + dx, P + dP) = 0 and c(x + dx) = 0 gives the bordered system
//   [ K_T    -J ] [dx]   [ r ]
//   [ -J^T    0 ] [dP] = [ c ]                                                            (B1)
// Gas (Boyle): P_k = N_k(lambda) / V_k(x) - P_atm, a function of x, so dr/dx = -(K_T + c_k J_k J_k^T)
// with c_k = -dP_k/dV_k = N_k / V_k^2 (the dense rank-one stiffness). With dP_k as an auxiliary
// unknown, dP_k = -c_k J_k^T dx, i.e. -J_k^T dx - dP_k / c_k = 0: the row of (B1) with
// D_kk = 1 / c_k = V_k^2 / N_k in the corner and 0 on the right (P_k is recomputed from x).
// Eliminating dx = b + A dP with K_T b = r, K_T A = U (U = [J_k], one column per controlled
// cavity, one factorisation of K_T, m + 1 solves):
//   S dP = -(g + U^T b),   S = U^T A + D (m x m, dense),  g_k = c_k (volume), 0 (gas).      (B2)
// For one gas cavity this is Sherman-Morrison:
//   dx = b - a c J^T b / (1 + c J^T a)  (the inverse of K_T + c J J^T applied to r).
#pragma once

#include <memory>
#include <vector>

#include "host/loads/pressure_evaluator.hpp"
#include "softik/assembly.hpp"
#include "softik/linear_solver.hpp"
#include "softik/loads.hpp"

namespace softik {

class ControlledCavities {
 public:
  /// evaluators: one per loads.pressures entry; they, loads and assembler outlive this.
  ControlledCavities(const Loads& loads, const Assembler& assembler,
                     const std::vector<std::unique_ptr<PressureEvaluator>>& evaluators);

  /// Whether any load is volume- or gas-controlled.
  bool any() const { return !controlled_.empty(); }
  /// Whether any load is volume-controlled (its pressure is then an unknown of the solve).
  bool has_volume() const;

  /// The wall pressure of every pressure load at x and load factor lambda: lambda * pressure
  /// (CavityControl::Pressure), multipliers[k] (Volume), N_k(lambda) / V_k(x) - P_atm (Gas).
  std::vector<Real> pressures(const std::vector<Real>& x, Real lambda, const std::vector<Real>& multipliers) const;

  /// The gas cavities' work potential sum_k N_k(lambda) ln V_k(x) - P_atm V_k(x) (its x-gradient is
  /// sum_k P_k J_k: the load is conservative).
  Real gas_work(const std::vector<Real>& x, Real lambda) const;

  /// c_k = V_k(x) - V0_k - lambda dV_k per pressure load (0 unless volume-controlled).
  std::vector<Real> volume_residuals(const std::vector<Real>& x, Real lambda) const;
  /// Whether every |c_k| <= tolerance * V0_k.
  bool volumes_converged(const std::vector<Real>& x, Real lambda, Real tolerance) const;

  /// The Newton step (B1)-(B2) with the factorisation of K_T the solver holds (the follower-load
  /// stiffness included by the caller) and rhs = r on the free DOFs: dx (free DOFs) and dP (per
  /// pressure load; non-zero for volume-controlled ones). The gas corner terms use N(lambda_K),
  /// the volume residuals lambda. weights[k] = |J_k| / |S_kk| (force per volume) for the
  /// residual merit of a volume constraint, 0 for other loads. A singular S is a numerical Error.
  void solve(const LinearSolver& solver, const std::vector<Real>& x, Real lambda_K, Real lambda,
             const std::vector<Real>& rhs, std::vector<Real>& dx, std::vector<Real>& dP,
             std::vector<Real>& weights) const;

  /// N_k(lambda) = N0_k + lambda (gas_amount - N0_k), N0_k = P_atm V0_k.
  Real gas_amount(size_t k, Real lambda) const;
  /// V0_k: the cavity volume at the rest positions (0 for Pressure-controlled loads).
  Real rest_volume(size_t k) const { return V0_[k]; }

 private:
  Real volume(size_t k, const std::vector<Real>& x) const;
  const Loads& loads_;
  const Assembler& assembler_;
  const std::vector<std::unique_ptr<PressureEvaluator>>& evaluators_;
  std::vector<size_t> controlled_;  ///< indices of the volume- and gas-controlled loads
  std::vector<Real> V0_;            ///< rest volume per load
};

}  // namespace softik
