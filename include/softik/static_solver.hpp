// Static equilibrium by Newton-Raphson on the free DOFs:
//   find x with  r(x) = f(x) + lambda (f_ext + sum_p P_p J_p(x)) = 0  on the free DOFs,
// f = -dE/dx the elastic force (Assembler), f_ext nodal loads (gravity included), P_p the
// pressures of the Loads' cavity surfaces with their follower forces P J_p(x) (docs/method.md section 6,
// J_p = dV_p/dx for a closed surface), prescribed displacements of fixed DOFs ramped the same
// way. The load factor lambda goes from 0 to 1 in `load_steps` increments. Each iteration solves
//   (K - lambda sum_p P_p dJ_p/dx) dx = r       (the load stiffness only with pressure_stiffness)
// and takes x += alpha dx, alpha from a backtracking line search (Armijo) on the potential
//   Pi(x) = E(x) - lambda (f_ext . x + sum_p P_p V_p(x))      (LineSearch::Energy), or on
// |r|^2 (LineSearch::Residual, for non-conservative loads: open pressure surfaces).
// Converged when |r_free| <= residual_tolerance * |lambda * load_free| or the increment is below
// increment_tolerance * model size. An increment that does not converge (or inverts a cell) is
// cut in half, at most max_step_cuts times; then softik::Error reports the load factor and the
// residual history.
//
// Controlled cavities (PressureLoad::control, loads.hpp): a volume-controlled cavity's pressure is
// an unknown (a Lagrange multiplier) with the constraint V(x) - V0 = lambda * volume_growth, and a
// gas cavity's is N(lambda)/V(x) - P_atm; each iteration then solves the bordered system of
// host/loads/cavity_control.hpp with the same factorisation of the tangent (m + 1 solves for m
// such cavities), converges when also |V - V_target| <= residual_tolerance * V0. With a
// volume-controlled cavity the Automatic line search takes full Newton steps (Energy is refused:
// a saddle point; Residual adds the weighted volume errors to |r|^2), with gas cavities it is
// the potential with the gas's N ln V - P_atm V.
#pragma once

#include <functional>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/linear_solver.hpp"
#include "softik/loads.hpp"

namespace softik {

enum class LineSearch {
  None,       ///< full Newton steps
  Energy,     ///< Armijo on the potential (conservative loads)
  Residual,   ///< Armijo on |r|^2 / 2
  Automatic,  ///< Energy unless an open pressure surface makes the load non-conservative
};

/// What one converged load increment produced (passed to NewtonOptions::on_step).
struct LoadStepReport {
  int step = 0;          ///< converged increments so far, from 1
  Real load_factor = 0;  ///< lambda
  int iterations = 0;    ///< Newton iterations of this increment
  Real residual = 0;     ///< final |r_free|
  /// The wall pressure per pressure load: lambda * pressure (given), the solved pressure
  /// (volume-controlled), N / V - P_atm (gas, gauge)
  std::vector<Real> pressures;
  std::vector<Real> volumes;  ///< cavity volume per pressure load (0 for open surfaces)
};

struct NewtonOptions {
  int max_iterations = 30;           ///< per load increment
  Real residual_tolerance = 1e-8;    ///< converged when |r_free| <= tol * |lambda f_ext_free|
  Real increment_tolerance = 1e-12;  ///< or when |dx| <= tol * (bounding-box diagonal of the mesh)
  LineSearch line_search = LineSearch::Automatic;
  /// Add the follower-load stiffness -lambda P dJ/dx to the tangent (quadratic convergence under
  /// pressure). Entries that fall outside the elastic pattern (embedded surfaces) are dropped.
  bool pressure_stiffness = true;
  int load_steps = 1;
  int max_step_cuts = 6;
  /// Chord steps: an iteration whose residual is at most `chord_contraction` times the one
  /// before keeps the last factorisation of its load step instead of factorising its tangent;
  /// a weaker cut, an indefinite factor, or the second half of max_iterations factorises. 0:
  /// full Newton (every iteration factorises: quadratic convergence). Chord steps converge
  /// linearly but cost no factorisation; the residual test that ends the load step is the same,
  /// so the state meets the same tolerance (the full Newton's last step usually goes far below
  /// it). On the 9.8k-tet finger 0.25 is 1.5x faster, 0.5 1.7x (bench/RESULTS.md,
  /// BM_FingerStaticSolveChord).
  Real chord_contraction = 0;
  /// Krylov steps: an iteration solves its tangent system K dx = r by conjugate gradients
  /// preconditioned with the solver's last L L^T factorisation (of an earlier iteration or load
  /// step of this solve), up to krylov_iterations iterations (each one solve with the factor and
  /// one product with K), to a relative residual of krylov_tolerance; where CG does not get there,
  /// the iteration factorises K as full Newton does. Tried on the first iteration of a load step
  /// and after an iteration that halved the residual. The step is Newton's to within
  /// krylov_tolerance, so the iterations and the converged state are full Newton's (the finger:
  /// the same iteration counts, tip displacement equal to 10 digits) at a third of the
  /// factorisations, 1.5-1.7x faster (bench/RESULTS.md, BM_FingerStaticSolveKrylov).
  /// A Krylov step that needed more than half of krylov_iterations makes the next iteration
  /// factorise (the factor has drifted from the tangent).
  /// Needs a solver with an L L^T factor (has_cholesky_factor(): CHOLMOD, the GPU Cholesky
  /// solvers) and K on the host; not for volume-controlled cavities (bordered systems). 0: off.
  int krylov_iterations = 15;
  Real krylov_tolerance = 1e-6;
  /// Second-order predictor: the first iteration of a load step after the first moves to
  /// x_k + (1 + rho) t - rho^2 (x_k - x_{k-1}) instead of x_k + t (t: the tangent step, rho: this
  /// load step over the last one), x(lambda) extrapolated to second order from the tangent and
  /// the last step. Taken where its energy falls as the line search asks (else the tangent step
  /// is searched as before), not with the residual line search, volume-controlled cavities, or
  /// on the retry of a cut step. The converged state is the same (the same tolerances); on the
  /// 9.8k-tet finger 16 instead of 18 iterations and 5 instead of 6 factorisations
  /// (bench/RESULTS.md). false: the tangent predictor alone.
  bool extrapolate = true;
  /// Called after every converged increment with the report and the positions.
  std::function<void(const LoadStepReport&, const std::vector<Real>& x)> on_step;
};

/// One Newton iteration, for logs and convergence checks.
struct NewtonIterationLog {
  int load_step = 0;
  Real load_factor = 0;
  int iteration = 0;
  Real residual = 0;       ///< |f + lambda f_ext| on the free DOFs before the update
  Real increment = 0;      ///< |alpha dx|
  Real step_length = 1;    ///< alpha
  bool factorized = true;  ///< false: a chord or Krylov step kept the factorisation
  bool krylov = false;     ///< a Krylov step (NewtonOptions::krylov_iterations) solved the tangent system
  int cg_iterations = 0;   ///< conjugate-gradient iterations tried by this iteration's Krylov step (0: none)
};

struct StaticResult {
  int iterations = 0;  ///< total over all increments (cut ones included)
  int step_cuts = 0;
  int factorizations = 0;     ///< numeric factorisations of the tangent
  int krylov_iterations = 0;  ///< conjugate-gradient iterations of the Krylov steps (tried ones included)
  std::vector<NewtonIterationLog> log;
};

/// Solves for the equilibrium positions x (num_dofs entries, updated in place; fixed DOFs keep
/// their values, i.e. prescribed positions). f_ext: num_dofs entries (entries on fixed DOFs are
/// ignored). The solver is analysed on the assembler's pattern here.
StaticResult solve_static(const Assembler& assembler, LinearSolver& solver, const std::vector<Real>& f_ext,
                          std::vector<Real>& x, const NewtonOptions& options = {});

/// The general form: nodal loads, pressures and prescribed displacements (all ramped).
/// Prescribed DOFs must be fixed in the assembler; x holds the starting positions (fixed DOFs at
/// their rest values plus any displacement already applied).
StaticResult solve_static(const Assembler& assembler, LinearSolver& solver, const Loads& loads, std::vector<Real>& x,
                          const NewtonOptions& options = {});

}  // namespace softik
