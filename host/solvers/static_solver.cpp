#include "softik/static_solver.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>

#include "host/linear/factor_pcg.hpp"
#include "host/loads/cavity_control.hpp"
#include "host/loads/pressure_evaluator.hpp"
#include "host/loads/pressure_stiffness.hpp"
#include "host/solvers/load_predictor.hpp"
#include "host/solvers/static_checks.hpp"
#include "softik/error.hpp"
#include "softik/mesh_selection.hpp"

namespace softik {

namespace {

/// NewtonOptions::krylov_iterations: a Krylov step is tried on the first iteration of a load
/// step and after an iteration that cut the residual at least this much (on the 9.8k-tet finger
/// without the stale-factor refresh, 0.1 and 0.25 left 8 of 18 factorisations, 0.5 five, 0.9 four
/// with more conjugate-gradient iterations).
constexpr Real kKrylovContraction = 0.5;

struct Newton {
  const Assembler& assembler;
  LinearSolver& solver;
  const Loads& loads;
  const NewtonOptions& options;
  LineSearch line_search;  ///< resolved (never Automatic)
  StaticResult& result;
  Real size;
  /// One per loads.pressures entry, on the assembler's backend (the GPU's per-triangle kernels
  /// with Backend::Cuda).
  std::vector<std::unique_ptr<PressureEvaluator>> pressure;
  /// The volume- and gas-controlled cavities among them (cavity_control.hpp).
  std::unique_ptr<ControlledCavities> cavities;
  /// One per loads.pressures entry: its load stiffness with the CSR slots looked up once
  /// (empty without options.pressure_stiffness).
  std::vector<std::unique_ptr<detail::PressureStiffness>> load_stiffness;

  /// The last assembly: f, K (as assembled, before the load stiffness is added) and the energy
  /// (with the energy line search) at x (empty when K was changed since). A load step ends on an
  /// assembly at its converged state, where the next load step starts.
  struct LastAssembly {
    std::vector<Real> f, K, x;
    Real energy = 0;
  } assembled;

  /// The last Krylov step needed more than half of krylov_iterations: the factor has drifted far
  /// from the tangent, and the next iteration factorises instead (on the finger at 8k, 16k and 50k
  /// free DOFs 1.2-1.45x faster than keeping the factor until CG fails; bench_finger_static).
  bool stale_factor = false;

  /// The last converged load step, for NewtonOptions::extrapolate: its free-DOF increment
  /// x_k - x_{k-1} and its load-factor step (0: no step converged yet).
  std::vector<Real> last_increment{};
  Real last_step = 0;

  /// Factorises the tangent (K on the host, or d_K on the device). A singular tangent after this
  /// solve has factorised a regular one is a state of the path, not a body held too little: a
  /// limit or bifurcation point, or a Newton iterate that strayed onto one (measured on the
  /// balloon at 0.95 p_max, where load control's iterates pass hundreds of negative pivots and one
  /// met a pivot ratio of 6.6e-13). It is a numerical failure, and the load step is cut. At the
  /// first factorisation a singular K stays bad input (nothing fixed).
  void factorize(const std::vector<Real>& K, exec::DeviceView<const Real> d_K, Real lambda) {
    try {
      if (d_K)
        solver.factorize_device(d_K);
      else
        solver.factorize(K);
    } catch (const Error& e) {
      if (result.factorizations == 0 || e.kind() != ErrorKind::Input) throw;
      std::ostringstream s;
      s << "the tangent became singular at load factor " << lambda << " after " << result.factorizations
        << " regular factorisations in this solve (" << solver.name()
        << " found a zero or tiny pivot): a limit or bifurcation point of the path, or a Newton iterate that "
           "strayed onto one. Take smaller load steps, or pass a limit point with arc-length continuation "
           "(solve_arc_length)";
      throw Error(s.str(), ErrorKind::Numerical);
    }
  }

  /// A Krylov step (NewtonOptions::krylov_iterations): K dx = rhs by conjugate gradients
  /// preconditioned with the solver's kept L L^T factorisation; false (dx unusable) when CG did
  /// not reach krylov_tolerance within krylov_iterations, and the caller factorises K.
  bool krylov_step(const std::vector<Real>& K, const std::vector<Real>& rhs, std::vector<Real>& dx,
                   NewtonIterationLog& entry) {
    const detail::FactorPcgResult pcg =
        detail::factor_pcg(assembler.pattern(), K, solver, rhs.data(), dx.data(), options.krylov_tolerance,
                           options.krylov_iterations, assembler.options().num_threads);
    result.krylov_iterations += pcg.iterations;
    entry.cg_iterations = pcg.iterations;
    stale_factor = 2 * pcg.iterations > options.krylov_iterations;
    return pcg.converged;
  }

  /// External load at factor lambda and positions x: lambda f_ext + sum_p P_p J_p(x), P_p the
  /// wall pressures (ControlledCavities::pressures: lambda * pressure for a given pressure).
  std::vector<Real> external(const std::vector<Real>& x, Real lambda, const std::vector<Real>& P) const {
    std::vector<Real> f(x.size(), 0.0);
    if (!loads.nodal.empty())
      for (size_t k = 0; k < f.size(); ++k) f[k] = lambda * loads.nodal[k];
    for (size_t k = 0; k < loads.pressures.size(); ++k) pressure[k]->add_forces(P[k], x, f);
    return f;
  }

  /// Potential Pi = E - lambda (f_ext . x + sum_p P_p V_p(x)) - sum_gas (N ln V - P_atm V) for a
  /// known energy E(x); only the free DOFs' work counts (fixed DOFs do not move within an
  /// increment). Volume-controlled cavities have none (they use the residual merit).
  Real potential(Real energy, const std::vector<Real>& x, Real lambda) const {
    Real work = 0;
    if (!loads.nodal.empty())
      for (size_t k = 0; k < x.size(); ++k)
        if (assembler.free_dof_index()[k] >= 0) work += loads.nodal[k] * x[k];
    for (const PressureLoad& p : loads.pressures)
      if (p.control == CavityControl::Pressure) work += pressure_work(p, p.pressure, assembler.mesh(), x);
    return energy - lambda * work - cavities->gas_work(x, lambda);
  }

  /// Free-DOF residual r = f + f_load at x with the volume cavities' pressures `multipliers` (and
  /// the scale its tolerance is relative to).
  Real residual(const std::vector<Real>& x, Real lambda, const std::vector<Real>& multipliers,
                const std::vector<Real>& f, std::vector<Real>& rhs, Real* scale) const {
    const std::vector<int>& free = assembler.free_dof_index();
    const std::vector<Real> f_load = external(x, lambda, cavities->pressures(x, lambda, multipliers));
    Real r = 0, load = 0, reaction = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      if (free[k] >= 0) {
        const Real v = f[k] + f_load[k];
        rhs[static_cast<size_t>(free[k])] = v;
        r += v * v;
        load += f_load[k] * f_load[k];
      } else {
        reaction += f[k] * f[k];  // the reaction forces: the scale of a displacement-driven problem
      }
    }
    if (scale) *scale = std::max(std::sqrt(load), std::sqrt(reaction));
    return std::sqrt(r);
  }

  /// The residual merit |r|^2 / 2 + sum_k (w_k c_k)^2 / 2 (c_k: the volume constraints' residuals,
  /// w_k: their weights from ControlledCavities::solve, force per volume).
  Real residual_merit(Real r, const std::vector<Real>& x, Real lambda, const std::vector<Real>& weights) const {
    Real value = 0.5 * r * r;
    if (cavities->has_volume()) {
      const std::vector<Real> c = cavities->volume_residuals(x, lambda);
      for (size_t k = 0; k < c.size(); ++k) value += 0.5 * (weights[k] * c[k]) * (weights[k] * c[k]);
    }
    return value;
  }

  /// Merit of a trial point for the line search; false when the trial is unusable (inverted cell).
  bool merit(const std::vector<Real>& trial, const std::vector<Real>& multipliers, Real lambda,
             const std::vector<Real>& weights, Real* value) const {
    try {
      if (line_search == LineSearch::Energy) {
        *value = potential(assembler.energy(trial), trial, lambda);
      } else {
        std::vector<Real> f, rhs(static_cast<size_t>(assembler.num_free_dofs()));
        assembler.assemble(trial, nullptr, &f, nullptr);
        const Real r = residual(trial, lambda, multipliers, f, rhs, nullptr);
        *value = residual_merit(r, trial, lambda, weights);
      }
      return std::isfinite(*value);
    } catch (const Error&) {
      return false;  // the trial inverted a cell
    }
  }

  /// The backtracking line search along the free-DOF step dx (and dP for the volume cavities'
  /// pressures) from x: Armijo on the resolved merit, at most 10 halvings. Returns alpha and
  /// moves x and multipliers to the accepted point.
  Real search(std::vector<Real>& x, std::vector<Real>& multipliers, const std::vector<Real>& dx,
              const std::vector<Real>& dP, Real lambda, Real merit0, Real slope,
              const std::vector<Real>& weights) const {
    const std::vector<int>& free = assembler.free_dof_index();
    Real alpha = 1;
    std::vector<Real> trial = x, trial_P = multipliers;
    for (int cut = 0;; ++cut) {
      for (size_t k = 0; k < x.size(); ++k)
        if (free[k] >= 0) trial[k] = x[k] + alpha * dx[static_cast<size_t>(free[k])];
      for (size_t k = 0; k < dP.size(); ++k) trial_P[k] = multipliers[k] + alpha * dP[k];
      if (line_search == LineSearch::None || slope >= 0) break;  // no descent direction: full step
      // Near the solution the predicted decrease -slope falls below the round-off of the
      // energy sum itself and Armijo's test compares noise: take the Newton step (it is in
      // its quadratic regime there).
      if (line_search == LineSearch::Energy && -slope <= 1e-11 * std::abs(merit0)) break;
      Real value = 0;
      const bool accept = merit(trial, trial_P, lambda, weights, &value) && value <= merit0 + 1e-4 * alpha * slope;
      if (accept || cut == 10) break;
      alpha *= 0.5;
    }
    x.swap(trial);
    multipliers.swap(trial_P);
    return alpha;
  }

  /// NewtonOptions::extrapolate: replaces the first iteration's tangent step dx by the
  /// second-order predictor (load_predictor.hpp; rho: this load step over the last one) and moves
  /// x there when that point is usable: its energy lower than at x as Armijo's test asks, or
  /// always without a line search. False (x and dx unchanged): the tangent step's line search
  /// follows. Not for the residual merit (no potential to compare) or volume-controlled cavities
  /// (their pressures are unknowns too).
  bool extrapolate(std::vector<Real>& x, std::vector<Real>& dx, const std::vector<Real>& rhs,
                   const std::vector<Real>& multipliers, Real lambda, Real merit0, Real rho) const {
    if (rho <= 0 || cavities->any() || line_search == LineSearch::Residual || last_increment.size() != dx.size())
      return false;
    std::vector<Real> q;
    detail::extrapolated_step(dx, last_increment, rho, q);
    Real slope = 0;
    for (size_t k = 0; k < q.size(); ++k) slope -= rhs[k] * q[k];
    const std::vector<int>& free = assembler.free_dof_index();
    std::vector<Real> trial = x;
    for (size_t k = 0; k < x.size(); ++k)
      if (free[k] >= 0) trial[k] = x[k] + q[static_cast<size_t>(free[k])];
    if (line_search == LineSearch::Energy) {
      Real value = 0;
      const std::vector<Real> no_weights(multipliers.size(), 0.0);
      if (!(slope < 0) || !merit(trial, multipliers, lambda, no_weights, &value) || value > merit0 + 1e-4 * slope)
        return false;
    }
    x.swap(trial);
    dx.swap(q);
    return true;
  }

  /// Newton's working vectors and history within one equilibrate() call: the free-DOF residual
  /// rhs, the step dx, the volume cavities' pressure step dP and their weights.
  struct NewtonState {
    NewtonState(size_t n, size_t m) : rhs(n), dx(n), dP(m, 0.0), weights(m, 0.0) {}
    std::vector<Real> rhs, dx, dP;
    std::vector<Real> weights;
    bool factor_kept = false;  // the solver holds a definite factorisation from this load step
    Real previous_r = 0;
  };

  /// The assembly at x of iteration `it` into `assembled`: f and the energy, and K on the host, or
  /// K left in device memory (returned) with GPU assembly and a GPU solver unless the pressure
  /// stiffness is added to it on the host (pressure_K). On the first iteration at the state the
  /// last load step ended on, the assembly there is reused.
  exec::DeviceView<const Real> assemble_iterate(const std::vector<Real>& x, int it, bool pressure_K) {
    std::vector<Real>&f = assembled.f, &K = assembled.K;
    Real& energy = assembled.energy;
    exec::DeviceView<const Real> d_K;
    if (!pressure_K && stiffness_stays_on_device(assembler, solver)) {
      assembled.x.clear();
      d_K = assembler.assemble_on_device(x, line_search == LineSearch::Energy ? &energy : nullptr, &f);
    } else if (it > 0 || x != assembled.x) {  // else the last load step ended here: the same f and K
      assembled.x.clear();                    // until this assembly has succeeded
      assembler.assemble(x, line_search == LineSearch::Energy ? &energy : nullptr, &f, &K);
      assembled.x = x;
    }
    return d_K;
  }

  /// Whether iteration `it` (residual r) may take a Krylov step (returned) and whether it keeps
  /// the factorisation (*chord). A chord step keeps this load step's factorisation while the last
  /// step cut the residual enough (assembling K costs a few percent of factorising it, so K is
  /// always assembled). In the second half of max_iterations every iteration factorises again
  /// (quadratic convergence), so a slow linear tail cannot use up the iterations. A Krylov step
  /// solves the current tangent with the kept factor as preconditioner, so any L L^T factor of
  /// this solve serves (the previous load step's too, on the first iteration).
  bool choose_chord(const NewtonState& s, int it, Real r, exec::DeviceView<const Real> d_K, bool* chord) const {
    const bool late = 2 * it >= options.max_iterations;
    const bool krylov_chord = options.krylov_iterations > 0 && !late && !d_K && !cavities->any() &&
                              solver.has_cholesky_factor() && !stale_factor &&
                              (it == 0 || r <= kKrylovContraction * s.previous_r);
    *chord = krylov_chord || (s.factor_kept && options.chord_contraction > 0 && it >= 1 && !late &&
                              r <= options.chord_contraction * s.previous_r);
    return krylov_chord;
  }

  /// The Newton direction s.dx (and s.dP) on this iteration's tangent at load factor lambda_K:
  /// the pressure load stiffness added to K unless the factorisation is kept, then a Krylov step,
  /// or a factorisation unless a chord step keeps it, and the solve (the bordered step with
  /// volume cavities). Fills entry.factorized and entry.krylov.
  void newton_direction(NewtonState& s, const std::vector<Real>& x, const std::vector<Real>& multipliers, Real r,
                        Real lambda, Real lambda_K, exec::DeviceView<const Real> d_K, bool chord, bool krylov_chord,
                        NewtonIterationLog& entry) {
    std::vector<Real>& K = assembled.K;
    if ((!chord || krylov_chord) && options.pressure_stiffness) {
      assembled.x.clear();                                                          // K is no longer the assembly's
      const std::vector<Real> P_K = cavities->pressures(x, lambda_K, multipliers);  // K_T = K - sum P d2V/dx2
      for (size_t k = 0; k < loads.pressures.size(); ++k) load_stiffness[k]->add(P_K[k], x, -1.0, K);
    }
    const bool krylov = krylov_chord && krylov_step(K, s.rhs, s.dx, entry);
    if (krylov_chord && !krylov) chord = false;  // CG did not converge: factorise this tangent
    if (!chord) {
      factorize(K, d_K, lambda_K);
      s.factor_kept = !solver.info().indefinite;
      stale_factor = false;
      ++result.factorizations;
    }
    s.previous_r = r;
    entry.factorized = !chord;
    entry.krylov = krylov;
    if (krylov) {
      // dx solves K dx = rhs to krylov_tolerance already
    } else if (cavities->any()) {
      cavities->solve(solver, x, lambda_K, lambda, s.rhs, s.dx, s.dP, s.weights);  // the bordered step (B1)-(B2)
    } else {
      solver.solve(s.rhs.data(), s.dx.data(), 1);
    }
  }

  /// The step along s.dx from x (and multipliers): the second-order predictor on the first
  /// iteration (`rho`), else the line search on the merit; logs the iteration (entry) and counts
  /// it. True when the increment is below increment_tolerance (converged).
  bool newton_update(NewtonState& s, std::vector<Real>& x, std::vector<Real>& multipliers, Real r, Real lambda, int it,
                     Real rho, NewtonIterationLog& entry, int* iterations) {
    const int n = assembler.num_free_dofs();
    Real merit0 = 0;
    if (line_search == LineSearch::Energy) merit0 = potential(assembled.energy, x, lambda);
    if (line_search == LineSearch::Residual) merit0 = residual_merit(r, x, lambda, s.weights);
    const bool extrapolated = it == 0 && extrapolate(x, s.dx, s.rhs, multipliers, lambda, merit0, rho);
    Real slope = 0, dx_norm = 0;  // slope = dPi/dalpha at 0 = -r . dx (energy merit)
    for (int k = 0; k < n; ++k) {
      slope -= s.rhs[static_cast<size_t>(k)] * s.dx[static_cast<size_t>(k)];
      dx_norm += s.dx[static_cast<size_t>(k)] * s.dx[static_cast<size_t>(k)];
    }
    dx_norm = std::sqrt(dx_norm);
    if (line_search == LineSearch::Residual)
      slope = -2 * merit0;  // d/dalpha of the merit at 0 for the Newton direction of (r, c)
    const Real alpha = extrapolated ? 1 : search(x, multipliers, s.dx, s.dP, lambda, merit0, slope, s.weights);
    ++result.iterations;
    ++*iterations;
    entry.increment = alpha * dx_norm;
    entry.step_length = alpha;
    result.log.push_back(entry);
    return alpha * dx_norm <= options.increment_tolerance * size;
  }

  /// Newton iterations at load factor lambda from x (with the volume cavities' pressures
  /// `multipliers`), the equilibrium at load factor `lambda_start`; true when converged. The
  /// first iteration's pressure load stiffness is that of lambda_start: the tangent of the
  /// converged state (positive definite on a stable path), the consistent predictor dx/dlambda;
  /// the new load's stiffness on the old geometry is often indefinite, which costs an L D L^T
  /// instead of an L L^T factorisation.
  /// `rho` > 0: the first iteration tries the second-order predictor (NewtonOptions::extrapolate)
  /// with this step rho times the last converged one.
  bool equilibrate(std::vector<Real>& x, std::vector<Real>& multipliers, Real lambda, Real lambda_start, int step,
                   int* iterations, Real* final_residual, Real rho) {
    NewtonState s(static_cast<size_t>(assembler.num_free_dofs()), multipliers.size());
    // GPU assembly + GPU solver: K stays in device memory unless the pressure stiffness is
    // added to it on the host.
    const bool pressure_K =
        options.pressure_stiffness && std::any_of(loads.pressures.begin(), loads.pressures.end(),
                                                  [](const PressureLoad& p) { return p.follower; });  // dead: none
    for (int it = 0; it < options.max_iterations; ++it) {
      const exec::DeviceView<const Real> d_K = assemble_iterate(x, it, pressure_K);
      Real scale = 0;
      const Real r = residual(x, lambda, multipliers, assembled.f, s.rhs, &scale);
      *final_residual = r;
      NewtonIterationLog entry{step, lambda, it, r, 0, 0};
      if (r <= options.residual_tolerance * std::max(scale, 1e-300) &&
          cavities->volumes_converged(x, lambda, options.residual_tolerance)) {
        result.log.push_back(entry);
        return true;
      }
      bool chord = false;
      const bool krylov_chord = choose_chord(s, it, r, d_K, &chord);
      const Real lambda_K = it == 0 ? lambda_start : lambda;
      newton_direction(s, x, multipliers, r, lambda, lambda_K, d_K, chord, krylov_chord, entry);
      if (newton_update(s, x, multipliers, r, lambda, it, rho, entry, iterations)) return true;
    }
    return false;
  }

  LoadStepReport report(const std::vector<Real>& x, const std::vector<Real>& multipliers, Real lambda, int step,
                        int iterations, Real r) const {
    LoadStepReport rep;
    rep.step = step;
    rep.load_factor = lambda;
    rep.iterations = iterations;
    rep.residual = r;
    rep.pressures = cavities->pressures(x, lambda, multipliers);
    for (const PressureLoad& p : loads.pressures)
      rep.volumes.push_back(p.closed ? surface_volume(p, assembler.mesh(), x) : 0.0);
    return rep;
  }
};

/// NewtonOptions::line_search with Automatic resolved: Energy for conservative loads; Residual
/// when an open surface carries a follower load (no potential); None (full Newton steps, as
/// arc-length continuation takes, with load-step cuts on failure) when a cavity is
/// volume-controlled: a saddle point (the pressure is a Lagrange multiplier) where Energy is
/// refused and the residual merit stalls on nearly incompressible walls (measured on the balloon).
LineSearch resolve_line_search(const Loads& loads, LineSearch requested) {
  bool open_follower = false, volume = false;
  for (const PressureLoad& p : loads.pressures) {
    open_follower = open_follower || (!p.closed && p.follower);
    volume = volume || p.control == CavityControl::Volume;
  }
  SOFTIK_CHECK(!(volume && requested == LineSearch::Energy),
               "solve_static: LineSearch::Energy cannot drive a volume-controlled cavity (its pressure is a Lagrange "
               "multiplier: the bordered system has no potential to decrease); use Automatic, Residual or None");
  if (requested != LineSearch::Automatic) return requested;
  if (volume) return LineSearch::None;
  return open_follower ? LineSearch::Residual : LineSearch::Energy;
}

}  // namespace

StaticResult solve_static(const Assembler& assembler, LinearSolver& solver, const std::vector<Real>& f_ext,
                          std::vector<Real>& x, const NewtonOptions& options) {
  SOFTIK_CHECK(f_ext.size() == static_cast<size_t>(assembler.num_dofs()),
               "solve_static: f_ext has " << f_ext.size() << " entries, expected num_dofs = " << assembler.num_dofs());
  Loads loads;
  loads.nodal = f_ext;
  return solve_static(assembler, solver, loads, x, options);
}

StaticResult solve_static(const Assembler& assembler, LinearSolver& solver, const Loads& loads, std::vector<Real>& x,
                          const NewtonOptions& options) {
  check_static_loads(*equilibrium_model(assembler), loads, x, "solve_static");
  SOFTIK_CHECK(options.load_steps >= 1 && options.max_iterations >= 1,
               "solve_static: load_steps and max_iterations must be >= 1");
  const LineSearch line_search = resolve_line_search(loads, options.line_search);
  StaticResult result;
  Newton newton{assembler, solver, loads, options, line_search, result, bounding_box_diagonal(assembler.mesh()),
                {},        {},     {},    {}};
  for (const PressureLoad& p : loads.pressures) {
    newton.pressure.push_back(make_pressure_evaluator(p, assembler.mesh(), assembler.options().backend));
    if (options.pressure_stiffness)
      newton.load_stiffness.push_back(std::make_unique<detail::PressureStiffness>(
          p, assembler.mesh(), assembler.pattern(), assembler.free_dof_index()));
  }
  newton.cavities = std::make_unique<ControlledCavities>(loads, assembler, newton.pressure);
  // The volume-controlled cavities' pressures (Lagrange multipliers), from 0 at the start.
  std::vector<Real> multipliers(loads.pressures.size(), 0.0);
  solver.analyze(assembler.pattern());
  // Prescribed DOFs move from their starting value u0 to u0 + value over the ramp.
  std::vector<Real> start(loads.prescribed.size());
  for (size_t k = 0; k < loads.prescribed.size(); ++k) start[k] = x[static_cast<size_t>(loads.prescribed[k].dof)];
  Real lambda = 0, step = 1.0 / options.load_steps;
  int step_index = 0, cuts = 0, cuts_here = 0;  // cuts_here: of the step being tried
  while (lambda < 1 - 1e-14) {
    const Real target = std::min(1.0, lambda + step);
    std::vector<Real> trial = x, trial_P = multipliers;
    for (size_t k = 0; k < loads.prescribed.size(); ++k)
      trial[static_cast<size_t>(loads.prescribed[k].dof)] = start[k] + target * loads.prescribed[k].value;
    bool ok = false;
    int iterations = 0;
    Real r = 0;
    // The second-order predictor on a step's first try only: a cut step starts from the tangent.
    const Real rho =
        options.extrapolate && cuts_here == 0 && newton.last_step > 0 ? (target - lambda) / newton.last_step : 0;
    std::string failure = "no convergence within " + std::to_string(options.max_iterations) + " iterations";
    try {
      ok = newton.equilibrate(trial, trial_P, target, lambda, step_index, &iterations, &r, rho);
      // A converged state is finite, or it is not converged (no NaN leaves softik as a result).
      if (ok && !std::all_of(trial.begin(), trial.end(), [](Real v) { return std::isfinite(v); })) {
        ok = false;
        failure = "the positions became NaN or infinite";
      }
    } catch (const Error& e) {
      failure = e.what();
      // A numerical failure (an inverted cell, a diverged state) may pass with a smaller load
      // step; bad input (a singular K: nothing fixed) and anything else cannot.
      if (e.kind() != ErrorKind::Numerical) throw;
    }
    if (ok) {
      const std::vector<int>& free = assembler.free_dof_index();
      newton.last_increment.assign(static_cast<size_t>(assembler.num_free_dofs()), 0.0);
      for (size_t k = 0; k < x.size(); ++k)
        if (free[k] >= 0) newton.last_increment[static_cast<size_t>(free[k])] = trial[k] - x[k];
      newton.last_step = target - lambda;
      cuts_here = 0;
      x.swap(trial);
      multipliers.swap(trial_P);
      lambda = target;
      ++step_index;
      if (options.on_step) options.on_step(newton.report(x, multipliers, lambda, step_index, iterations, r), x);
      continue;
    }
    ++cuts;
    ++cuts_here;
    ++result.step_cuts;
    if (cuts > options.max_step_cuts) {
      std::ostringstream s;
      s << "Newton failed at load factor " << target << " after " << options.max_step_cuts << " step cuts (" << failure
        << "); last residuals:";
      const size_t first = result.log.size() > 6 ? result.log.size() - 6 : 0;
      for (size_t k = first; k < result.log.size(); ++k) s << " " << result.log[k].residual;
      s << ". Increase load_steps, check the boundary conditions, or use a law that tolerates large strains";
      SOFTIK_CHECK_NUMERICAL(false, s.str());
    }
    step *= 0.5;
  }
  return result;
}

}  // namespace softik
