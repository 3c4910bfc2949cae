#include "softik/static_solver.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "softik/error.hpp"

namespace softik {

namespace {

Real free_norm(const std::vector<Real>& v, const std::vector<int>& free_index) {
  Real s = 0;
  for (size_t k = 0; k < v.size(); ++k)
    if (free_index[k] >= 0) s += v[k] * v[k];
  return std::sqrt(s);
}

Real model_size(const Mesh& mesh) {
  Real lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (int n = 0; n < mesh.num_nodes(); ++n)
    for (int i = 0; i < 3; ++i) {
      lo[i] = std::min(lo[i], mesh.X[3 * static_cast<size_t>(n) + i]);
      hi[i] = std::max(hi[i], mesh.X[3 * static_cast<size_t>(n) + i]);
    }
  return std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                   (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

struct Newton {
  const Assembler& assembler;
  LinearSolver& solver;
  const std::vector<Real>& f_ext;
  const NewtonOptions& options;
  StaticResult& result;
  Real size;

  /// Potential Pi = E - lambda f_ext . x over the free DOFs, for a known energy E(x).
  Real potential(Real energy, const std::vector<Real>& x, Real lambda) const {
    Real work = 0;
    for (size_t k = 0; k < x.size(); ++k)
      if (assembler.free_dof_index()[k] >= 0) work += f_ext[k] * x[k];
    return energy - lambda * work;
  }

  /// Newton iterations at load factor lambda from x; true when converged.
  bool equilibrate(std::vector<Real>& x, Real lambda, int step) {
    const std::vector<int>& free = assembler.free_dof_index();
    const int n = assembler.num_free_dofs();
    const Real scale = std::max(lambda * free_norm(f_ext, free), 1e-300);
    std::vector<Real> f, K, rhs(static_cast<size_t>(n)), dx(static_cast<size_t>(n));
    for (int it = 0; it < options.max_iterations; ++it) {
      Real energy = 0;  // needed by the line search only; assembled in the same pass as f and K
      assembler.assemble(x, options.line_search ? &energy : nullptr, &f, &K);
      for (size_t k = 0; k < x.size(); ++k)
        if (free[k] >= 0) rhs[static_cast<size_t>(free[k])] = f[k] + lambda * f_ext[k];
      Real r = 0;
      for (Real v : rhs) r += v * v;
      r = std::sqrt(r);
      NewtonIterationLog entry{step, lambda, it, r, 0, 0};
      if (r <= options.residual_tolerance * scale) {
        result.log.push_back(entry);
        return true;
      }
      solver.factorize(K);
      solver.solve(rhs.data(), dx.data(), 1);
      Real slope = 0, dx_norm = 0;  // slope = dPi/dalpha at 0 = -r . dx
      for (int k = 0; k < n; ++k) {
        slope -= rhs[static_cast<size_t>(k)] * dx[static_cast<size_t>(k)];
        dx_norm += dx[static_cast<size_t>(k)] * dx[static_cast<size_t>(k)];
      }
      dx_norm = std::sqrt(dx_norm);
      Real alpha = 1;
      std::vector<Real> trial = x;
      const Real pi0 = potential(energy, x, lambda);
      for (int cut = 0;; ++cut) {
        for (size_t k = 0; k < x.size(); ++k)
          if (free[k] >= 0) trial[k] = x[k] + alpha * dx[static_cast<size_t>(free[k])];
        if (!options.line_search || slope >= 0) break;  // no descent direction: full step
        bool accept = false;
        try {
          accept = potential(assembler.energy(trial), trial, lambda) <= pi0 + 1e-4 * alpha * slope;
        } catch (const Error&) {
          accept = false;  // the trial inverted a cell
        }
        if (accept || cut == 10) break;
        alpha *= 0.5;
      }
      x.swap(trial);
      ++result.iterations;
      entry.increment = alpha * dx_norm;
      entry.step_length = alpha;
      result.log.push_back(entry);
      if (alpha * dx_norm <= options.increment_tolerance * size) return true;
    }
    return false;
  }
};

}  // namespace

StaticResult solve_static(const Assembler& assembler, LinearSolver& solver, const std::vector<Real>& f_ext,
                          std::vector<Real>& x, const NewtonOptions& options) {
  SOFTIK_CHECK(f_ext.size() == static_cast<size_t>(assembler.num_dofs()) &&
                   x.size() == static_cast<size_t>(assembler.num_dofs()),
               "solve_static: f_ext has " << f_ext.size() << " and x " << x.size() << " entries, expected num_dofs = "
                                          << assembler.num_dofs());
  SOFTIK_CHECK(options.load_steps >= 1 && options.max_iterations >= 1,
               "solve_static: load_steps and max_iterations must be >= 1");
  for (size_t k = 0; k < f_ext.size(); ++k)
    SOFTIK_CHECK(std::isfinite(f_ext[k]), "external load on DOF " << k << " is " << f_ext[k] << ": fix the load");
  StaticResult result;
  Newton newton{assembler, solver, f_ext, options, result, model_size(assembler.mesh())};
  solver.analyze(assembler.pattern());
  Real lambda = 0, step = 1.0 / options.load_steps;
  int step_index = 0, cuts = 0;
  while (lambda < 1 - 1e-14) {
    const Real target = std::min(1.0, lambda + step);
    std::vector<Real> trial = x;
    bool ok = false;
    std::string failure = "no convergence within " + std::to_string(options.max_iterations) + " iterations";
    try {
      ok = newton.equilibrate(trial, target, step_index);
    } catch (const Error& e) {
      failure = e.what();
      if (failure.find("singular") != std::string::npos) throw;  // cutting the load cannot help
    }
    if (ok) {
      x.swap(trial);
      lambda = target;
      ++step_index;
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
      SOFTIK_CHECK(false, s.str());
    }
    step *= 0.5;
  }
  return result;
}

}  // namespace softik
