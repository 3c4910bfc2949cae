// Arc-length continuation (Riks 1979; Crisfield 1981, the spherical form) of static equilibrium
// under follower pressure and nodal loads (docs/method.md section 11), for FEM bodies and node
// networks. Where solve_static drives
// the load factor lambda from 0 to 1 (load control, which cannot pass a maximum of the load), the
// load factor here is an unknown: each step finds (x, lambda) with
//   r(x, lambda) = f(x) + lambda f_ref(x) = 0        on the free DOFs,           (1)
//   f_ref(x) = f_ext + sum_p P_p J_p(x)               (P_p: the Loads' pressures, J_p = dV_p/dx)
// on a sphere of radius ds about the last converged point (x_n, lambda_n):
//   |Dx|^2 + psi^2 Dlambda^2 F^2 = ds^2,  Dx = x - x_n, Dlambda = lambda - lambda_n,  (2)
// F = |f_ref(x_n)| (free DOFs, fixed within a step); psi = 0 is the cylindrical variant.
//
// Tangent  K_T = K(x) - lambda sum_p P_p d2V_p/dx2  (the elastic stiffness with the follower-load
// stiffness, as solve_static's), so that dr = -K_T dx + f_ref dlambda.
// Predictor (from the converged point): K_T dx_f = f_ref, Dlambda = s ds / sqrt(|dx_f|^2 + psi^2 F^2),
// Dx = Dlambda dx_f, with the sign s of (dx_f . Dx_prev + psi^2 F^2 Dlambda_prev) (the previous
// step's increment; +1 on the first step): the path keeps its direction and turns back in
// lambda at a limit point.                                                         (3)
// Corrector (bordering: two solves with one factorisation per iteration):
//   K_T dx_r = r,  K_T dx_f = f_ref,  dx = dx_r + dlambda dx_f,                     (4)
// dlambda from (2) at the new point: a1 dlambda^2 + a2 dlambda + a3 = 0 with
//   a1 = |dx_f|^2 + psi^2 F^2,  a2 = 2 dx_f.(Dx + dx_r) + 2 psi^2 F^2 Dlambda,
//   a3 = |Dx + dx_r|^2 + psi^2 F^2 Dlambda^2 - ds^2;                               (5)
// of the two roots the one whose new increment makes the smaller angle with the old one
// (largest Dx_old . Dx_new + psi^2 F^2 Dlambda_old Dlambda_new). No real root: the step fails.
// Converged when |r_free| <= residual_tolerance * max(1, |lambda|) * |f_ref_free|.
// Arc adaptation after a converged step of n iterations:
//   ds <- clamp(ds sqrt(desired_iterations / max(n, 1)), min_arc, max_arc);        (6)
// a step that does not converge (max_iterations, no real root, an inverted cell) is retried
// with ds / 2, and when that falls below min_arc the continuation stops with
// ArcLengthStatus::StepFailed and a message (no exception: the path so far is the result).
//
// Stability (inertia): the tangent at every converged point is factored (it gives the next
// predictor); its number of negative pivots in L D L^T (FactorizationInfo::negative_pivots,
// Sylvester's law of inertia: the number of negative eigenvalues) is reported. Between two
// points where the count changes, a critical point was crossed: a limit point when the sign of
// dlambda/ds of the path (the predictor sign s of (3)) changes too, a bifurcation point
// (suspected: the path went straight through it) when it does not.
//
// Units: arc lengths are in the units of x (with psi > 0 the load term is psi * Dlambda * F,
// in force units: choose psi so that psi F is comparable to a displacement scale, or psi = 0).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/linear_solver.hpp"
#include "softik/loads.hpp"

namespace softik {

struct PathPoint;

struct ArcLengthOptions {
  Real initial_arc = 0;        ///< ds of the first step (units of x); must be > 0
  Real min_arc = 0;            ///< a failed step is cut down to this at most; > 0
  Real max_arc = 0;            ///< adaptation never exceeds this; >= initial_arc >= min_arc
  int desired_iterations = 4;  ///< corrector iterations per step the adaptation (6) aims at
  int max_iterations = 20;     ///< corrector iterations per attempt
  int max_steps = 100;         ///< converged steps at most
  Real max_load_factor = 1;    ///< stop once lambda reaches it (lambda is clipped to it, see below)
  Real psi = 0;                ///< load scaling in the constraint (2); 0: cylindrical arc length
  Real residual_tolerance = 1e-8;
  /// The DOF whose displacement x[dof] - X[dof] PathPoint::displacement reports; -1: the norm of
  /// the free DOFs' displacement.
  int monitored_dof = -1;
  /// Called after every converged step (and once for the starting point) with its point and x.
  std::function<void(const PathPoint&, const std::vector<Real>& x)> on_step;
};

/// One converged point of the equilibrium path.
struct PathPoint {
  int step = 0;                 ///< 0: the starting point
  Real load_factor = 0;         ///< lambda
  std::vector<Real> pressures;  ///< lambda * P per pressure load
  std::vector<Real> volumes;    ///< cavity volume per pressure load (0 for open surfaces)
  Real displacement = 0;        ///< see ArcLengthOptions::monitored_dof
  Real arc = 0;  ///< ds of the step that reached this point (0 at the start and for a point placed at max_load_factor)
  int iterations = 0;  ///< corrector iterations of that step
  Real residual = 0;   ///< |r_free| at this point
  /// Negative pivots of the tangent K_T at this point (its negative eigenvalues); -1 when the
  /// linear solver does not report them.
  int negative_pivots = -1;
  /// The count changed since the previous point and dlambda/ds changed sign: a limit point of
  /// the load factor lies between the previous point and this one.
  bool limit_point_passed = false;
  /// The count changed without a change of sign of dlambda/ds: the path went through a
  /// bifurcation point between the previous point and this one.
  bool bifurcation_suspected = false;
};

enum class ArcLengthStatus {
  ReachedMaxLoadFactor,  ///< lambda reached max_load_factor
  ReachedMaxSteps,       ///< max_steps converged steps
  StepFailed,            ///< a step did not converge even with ds cut to min_arc
};

const char* arc_length_status_name(ArcLengthStatus status);

struct ArcLengthResult {
  ArcLengthStatus status = ArcLengthStatus::ReachedMaxSteps;
  std::string message;          ///< what ended the continuation, in words
  std::vector<PathPoint> path;  ///< the starting point, then one per converged step
  int iterations = 0;           ///< corrector iterations over all attempts (failed ones included)
  int step_cuts = 0;            ///< attempts retried with a halved arc
};

/// Follows the equilibrium path of `loads` (nodal loads and pressures, scaled by the load factor
/// lambda) from x (num_dofs entries; an equilibrium at lambda = 0, e.g. the rest positions;
/// fixed DOFs keep their values) until lambda reaches options.max_load_factor or
/// options.max_steps steps are done, or a step fails. On return x holds the last converged
/// point. The step that would pass max_load_factor is replaced by a load-controlled Newton
/// solve at lambda = max_load_factor (the last point then sits exactly there) when the path
/// is rising in lambda there. Prescribed displacements are not supported (an Error: use
/// solve_static). Bad options, a singular problem (nothing fixed) and non-finite loads are
/// softik::Error naming the field. The solver is analysed on the assembler's pattern here.
ArcLengthResult solve_arc_length(const Assembler& assembler, LinearSolver& solver, const Loads& loads,
                                 std::vector<Real>& x, const ArcLengthOptions& options);

class NetworkStatics;

/// The same for a node network (network_statics.hpp; docs/method.md section 12.5): its links'
/// forces and stiffness in place of the elements', the loads over its nodes (network.nodes()).
/// Pressure loads must have been given to the NetworkStatics (their stiffness couples the
/// faces' vertices; an Error otherwise). Checks its input as the FEM version does, and refuses a
/// start where a node has a direction no link resists (NetworkStatics::check_mechanisms).
ArcLengthResult solve_arc_length(const NetworkStatics& network, LinearSolver& solver, const Loads& loads,
                                 std::vector<Real>& x, const ArcLengthOptions& options);

}  // namespace softik
