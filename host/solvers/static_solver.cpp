#include "softik/static_solver.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "host/assembly/pressure_evaluator.hpp"
#include "host/solvers/static_checks.hpp"
#include "softik/error.hpp"
#include "softik/mesh_selection.hpp"

namespace softik {

namespace {

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

  /// External load at factor lambda and positions x: lambda (f_ext + sum_p P_p J_p(x)).
  std::vector<Real> external(const std::vector<Real>& x, Real lambda) const {
    std::vector<Real> f(x.size(), 0.0);
    if (!loads.nodal.empty())
      for (size_t k = 0; k < f.size(); ++k) f[k] = lambda * loads.nodal[k];
    for (size_t k = 0; k < loads.pressures.size(); ++k) pressure[k]->add_forces(lambda * loads.pressures[k].pressure, x, f);
    return f;
  }

  /// Potential Pi = E - lambda (f_ext . x + sum_p P_p V_p(x)) for a known energy E(x); only the
  /// free DOFs' work counts (fixed DOFs do not move within an increment).
  Real potential(Real energy, const std::vector<Real>& x, Real lambda) const {
    Real work = 0;
    if (!loads.nodal.empty())
      for (size_t k = 0; k < x.size(); ++k)
        if (assembler.free_dof_index()[k] >= 0) work += loads.nodal[k] * x[k];
    for (const PressureLoad& p : loads.pressures) work += pressure_work(p, p.pressure, assembler.mesh(), x);
    return energy - lambda * work;
  }

  /// Free-DOF residual r = f + f_load at x (and the scale its tolerance is relative to).
  Real residual(const std::vector<Real>& x, Real lambda, const std::vector<Real>& f, std::vector<Real>& rhs,
                Real* scale) const {
    const std::vector<int>& free = assembler.free_dof_index();
    const std::vector<Real> f_load = external(x, lambda);
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

  /// Merit of a trial point for the line search; false when the trial is unusable (inverted cell).
  bool merit(const std::vector<Real>& trial, Real lambda, Real* value) const {
    try {
      if (line_search == LineSearch::Energy) {
        *value = potential(assembler.energy(trial), trial, lambda);
      } else {
        std::vector<Real> f, rhs(static_cast<size_t>(assembler.num_free_dofs()));
        assembler.assemble(trial, nullptr, &f, nullptr);
        const Real r = residual(trial, lambda, f, rhs, nullptr);
        *value = 0.5 * r * r;
      }
      return std::isfinite(*value);
    } catch (const Error&) {
      return false;  // the trial inverted a cell
    }
  }

  /// Newton iterations at load factor lambda from x, the equilibrium at load factor
  /// `lambda_start`; true when converged. The first iteration's pressure load stiffness is that
  /// of lambda_start: the tangent of the converged state (positive definite on a stable path),
  /// the consistent predictor dx/dlambda; the new load's stiffness on the old geometry is often
  /// indefinite, which costs an L D L^T instead of an L L^T factorisation.
  bool equilibrate(std::vector<Real>& x, Real lambda, Real lambda_start, int step, int* iterations, Real* final_residual) {
    const std::vector<int>& free = assembler.free_dof_index();
    const int n = assembler.num_free_dofs();
    std::vector<Real> f, K, rhs(static_cast<size_t>(n)), dx(static_cast<size_t>(n));
    bool factor_kept = false;  // the solver holds a definite factorisation from this load step
    Real previous_r = 0;
    for (int it = 0; it < options.max_iterations; ++it) {
      Real energy = 0;  // needed by the energy line search only; assembled in the same pass as f and K
      // GPU assembly + GPU solver: K stays in device memory unless the pressure stiffness is
      // added to it on the host.
      const bool pressure_K = options.pressure_stiffness &&
                              std::any_of(loads.pressures.begin(), loads.pressures.end(),
                                          [](const PressureLoad& p) { return p.follower; });  // dead: none
      const Real* d_K = nullptr;
      if (!pressure_K && assembler.keeps_stiffness_on_device(solver))
        d_K = assembler.assemble_on_device(x, line_search == LineSearch::Energy ? &energy : nullptr, &f);
      else
        assembler.assemble(x, line_search == LineSearch::Energy ? &energy : nullptr, &f, &K);
      Real scale = 0;
      const Real r = residual(x, lambda, f, rhs, &scale);
      *final_residual = r;
      NewtonIterationLog entry{step, lambda, it, r, 0, 0};
      if (r <= options.residual_tolerance * std::max(scale, 1e-300)) {
        result.log.push_back(entry);
        return true;
      }
      // A chord step keeps this load step's factorisation while the last step cut the residual
      // enough (assembling K costs a few percent of factorising it, so K is always assembled).
      // In the second half of max_iterations every iteration factorises again (quadratic
      // convergence), so a slow linear tail cannot use up the iterations.
      const bool chord = factor_kept && options.chord_contraction > 0 && it >= 1 && 2 * it < options.max_iterations &&
                         r <= options.chord_contraction * previous_r;
      if (!chord) {
        const Real lambda_K = it == 0 ? lambda_start : lambda;
        if (options.pressure_stiffness)
          for (const PressureLoad& p : loads.pressures) add_pressure_stiffness(p, lambda_K * p.pressure, assembler, x, -1.0, K);
        if (d_K)
          solver.factorize_device(d_K);
        else
          solver.factorize(K);
        factor_kept = !solver.info().indefinite;
      }
      previous_r = r;
      entry.factorized = !chord;
      solver.solve(rhs.data(), dx.data(), 1);
      Real slope = 0, dx_norm = 0;  // slope = dPi/dalpha at 0 = -r . dx (energy merit)
      for (int k = 0; k < n; ++k) {
        slope -= rhs[static_cast<size_t>(k)] * dx[static_cast<size_t>(k)];
        dx_norm += dx[static_cast<size_t>(k)] * dx[static_cast<size_t>(k)];
      }
      dx_norm = std::sqrt(dx_norm);
      Real merit0 = 0;
      if (line_search == LineSearch::Energy) merit0 = potential(energy, x, lambda);
      if (line_search == LineSearch::Residual) {
        merit0 = 0.5 * r * r;
        slope = -r * r;  // d/dalpha |r(x + alpha dx)|^2 / 2 at 0 = -|r|^2 for the Newton direction
      }
      Real alpha = 1;
      std::vector<Real> trial = x;
      for (int cut = 0;; ++cut) {
        for (size_t k = 0; k < x.size(); ++k)
          if (free[k] >= 0) trial[k] = x[k] + alpha * dx[static_cast<size_t>(free[k])];
        if (line_search == LineSearch::None || slope >= 0) break;  // no descent direction: full step
        // Near the solution the predicted decrease -slope falls below the round-off of the
        // energy sum itself and Armijo's test compares noise: take the Newton step (it is in
        // its quadratic regime there).
        if (line_search == LineSearch::Energy && -slope <= 1e-11 * std::abs(merit0)) break;
        Real value = 0;
        const bool accept = merit(trial, lambda, &value) && value <= merit0 + 1e-4 * alpha * slope;
        if (accept || cut == 10) break;
        alpha *= 0.5;
      }
      x.swap(trial);
      ++result.iterations;
      ++*iterations;
      entry.increment = alpha * dx_norm;
      entry.step_length = alpha;
      result.log.push_back(entry);
      if (alpha * dx_norm <= options.increment_tolerance * size) return true;
    }
    return false;
  }

  LoadStepReport report(const std::vector<Real>& x, Real lambda, int step, int iterations, Real r) const {
    LoadStepReport rep;
    rep.step = step;
    rep.load_factor = lambda;
    rep.iterations = iterations;
    rep.residual = r;
    for (const PressureLoad& p : loads.pressures) {
      rep.pressures.push_back(lambda * p.pressure);
      rep.volumes.push_back(p.closed ? surface_volume(p, assembler.mesh(), x) : 0.0);
    }
    return rep;
  }
};

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
  check_static_loads(assembler, loads, x, "solve_static");
  SOFTIK_CHECK(options.load_steps >= 1 && options.max_iterations >= 1,
               "solve_static: load_steps and max_iterations must be >= 1");
  LineSearch line_search = options.line_search;
  if (line_search == LineSearch::Automatic) {
    line_search = LineSearch::Energy;
    for (const PressureLoad& p : loads.pressures)
      if (!p.closed && p.follower) line_search = LineSearch::Residual;  // an open surface's follower load has no potential
  }
  StaticResult result;
  Newton newton{assembler, solver, loads, options, line_search, result, bounding_box_diagonal(assembler.mesh()), {}};
  for (const PressureLoad& p : loads.pressures)
    newton.pressure.push_back(make_pressure_evaluator(p, assembler.mesh(), assembler.options().backend));
  solver.analyze(assembler.pattern());
  // Prescribed DOFs move from their starting value u0 to u0 + value over the ramp.
  std::vector<Real> start(loads.prescribed.size());
  for (size_t k = 0; k < loads.prescribed.size(); ++k) start[k] = x[static_cast<size_t>(loads.prescribed[k].dof)];
  Real lambda = 0, step = 1.0 / options.load_steps;
  int step_index = 0, cuts = 0;
  while (lambda < 1 - 1e-14) {
    const Real target = std::min(1.0, lambda + step);
    std::vector<Real> trial = x;
    for (size_t k = 0; k < loads.prescribed.size(); ++k)
      trial[static_cast<size_t>(loads.prescribed[k].dof)] = start[k] + target * loads.prescribed[k].value;
    bool ok = false;
    int iterations = 0;
    Real r = 0;
    std::string failure = "no convergence within " + std::to_string(options.max_iterations) + " iterations";
    try {
      ok = newton.equilibrate(trial, target, lambda, step_index, &iterations, &r);
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
      x.swap(trial);
      lambda = target;
      ++step_index;
      if (options.on_step) options.on_step(newton.report(x, lambda, step_index, iterations, r), x);
      continue;
    }
    ++cuts;
    ++result.step_cuts;
    if (cuts > options.max_step_cuts) {
      std::ostringstream s;
      s << "Newton failed at load factor " << target << " after " << options.max_step_cuts
        << " step cuts (" << failure << "); last residuals:";
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
