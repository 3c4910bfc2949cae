// One arc-length step: linearisation, predictor (3) and corrector (4)-(5) of
// include/softik/continuation.hpp.
#include "host/solvers/arc_length_step.hpp"

#include <algorithm>
#include <cmath>

#include "softik/error.hpp"

namespace softik {

Real arc_dot(const std::vector<Real>& a, const std::vector<Real>& b) {
  Real s = 0;
  for (size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}

ArcLengthStepper::ArcLengthStepper(const EquilibriumModel& model, LinearSolver& solver, const Loads& loads,
                                   const ArcLengthOptions& options)
    : model_(model), solver_(solver), loads_(loads), options_(options), n_(model.num_free_dofs()) {
  for (const PressureLoad& p : loads.pressures)
    pressure_.push_back(make_pressure_evaluator(p, model.nodes(), model.backend()));
  r_.assign(static_cast<size_t>(n_), 0.0);
  f_ref_.assign(static_cast<size_t>(n_), 0.0);
}

ArcLengthStepper::Linearization ArcLengthStepper::linearize(const std::vector<Real>& x, Real lambda) {
  model_.assemble(x, force_, K_);
  // f_ref(x) = f_ext + sum_p P_p J_p(x)   (1)
  load_.assign(x.size(), 0.0);
  if (!loads_.nodal.empty()) load_ = loads_.nodal;
  for (size_t k = 0; k < loads_.pressures.size(); ++k) pressure_[k]->add_forces(loads_.pressures[k].pressure, x, load_);
  const std::vector<int>& free = model_.free_dof_index();
  Linearization lin;
  for (size_t k = 0; k < x.size(); ++k) {
    const int i = free[k];
    if (i < 0) continue;
    r_[static_cast<size_t>(i)] = force_[k] + lambda * load_[k];  // r = f + lambda f_ref   (1)
    f_ref_[static_cast<size_t>(i)] = load_[k];
  }
  lin.residual = std::sqrt(arc_dot(r_, r_));
  lin.load = std::sqrt(arc_dot(f_ref_, f_ref_));
  SOFTIK_CHECK_NUMERICAL(std::isfinite(lin.residual) && std::isfinite(lin.load),
                         "the residual is not finite at load factor " << lambda);
  // K_T = K - lambda sum_p P_p d2V_p/dx2: the follower-load stiffness enters with scale -1.
  for (const PressureLoad& p : loads_.pressures)
    add_pressure_stiffness(p, lambda * p.pressure, model_.nodes(), model_.pattern(), model_.free_dof_index(), x, -1.0,
                           K_);
  solver_.factorize(K_);
  return lin;
}

bool ArcLengthStepper::converged(const Linearization& lin, Real lambda) const {
  return lin.residual <= options_.residual_tolerance * std::max<Real>(1, std::abs(lambda)) * lin.load;
}

void ArcLengthStepper::place(const ArcPoint& from, const std::vector<Real>& dx, std::vector<Real>& x) const {
  x = from.x;
  const std::vector<int>& free = model_.free_dof_index();
  for (size_t k = 0; k < x.size(); ++k)
    if (free[k] >= 0) x[k] += dx[static_cast<size_t>(free[k])];
}

void ArcLengthStepper::finish_point(const std::vector<Real>& x, Real lambda, const Linearization& lin,
                                    ArcPoint& point) {
  point.x = x;
  point.lambda = lambda;
  point.residual = lin.residual;
  point.load_norm = lin.load;
  point.negative_pivots = solver_.info().negative_pivots;
  point.tangent.assign(static_cast<size_t>(n_), 0.0);
  solver_.solve(f_ref_.data(), point.tangent.data(), 1);  // K_T dx_f = f_ref at the point
}

bool ArcLengthStepper::constraint_root(const std::vector<Real>& dx, Real dlambda, const std::vector<Real>& dx_r,
                                       const std::vector<Real>& dx_f, Real ds, Real F, Real* root) const {
  const Real c = options_.psi * options_.psi * F * F;
  std::vector<Real> u = dx;  // Dx + dx_r
  for (size_t k = 0; k < u.size(); ++k) u[k] += dx_r[k];
  // (5): a1 dl^2 + a2 dl + a3 = 0
  const Real a1 = arc_dot(dx_f, dx_f) + c;
  const Real a2 = 2 * arc_dot(dx_f, u) + 2 * c * dlambda;
  const Real a3 = arc_dot(u, u) + c * dlambda * dlambda - ds * ds;
  const Real disc = a2 * a2 - 4 * a1 * a3;
  if (!(disc >= 0) || !(a1 > 0)) return false;
  const Real q = -0.5 * (a2 + std::copysign(std::sqrt(disc), a2));  // roots q / a1 and a3 / q
  const Real roots[2] = {q / a1, q != 0 ? a3 / q : q / a1};
  // The root whose increment turns least from the current one: largest
  // Dx . (u + dl dx_f) + c Dlambda (Dlambda + dl).
  const Real base = arc_dot(dx, u) + c * dlambda * dlambda, along = arc_dot(dx, dx_f) + c * dlambda;
  *root = base + roots[0] * along >= base + roots[1] * along ? roots[0] : roots[1];
  return std::isfinite(*root);
}

StepOutcome ArcLengthStepper::correct(const ArcPoint& from, Real ds, bool fixed_load, std::vector<Real>& dx,
                                      Real& dlambda, ArcPoint& to) {
  StepOutcome outcome;
  outcome.failure = "no convergence within max_iterations";
  std::vector<Real> x, rhs(2 * static_cast<size_t>(n_)), sol(2 * static_cast<size_t>(n_));
  std::vector<Real> dx_r(static_cast<size_t>(n_)), dx_f(static_cast<size_t>(n_));
  for (int it = 0;; ++it) {
    place(from, dx, x);
    const Real lambda = from.lambda + dlambda;
    const Linearization lin = linearize(x, lambda);
    if (converged(lin, lambda)) {
      finish_point(x, lambda, lin, to);
      outcome.converged = true;
      outcome.iterations = it;
      return outcome;
    }
    if (it == options_.max_iterations) return outcome;
    // (4): one factorisation, two solves: K_T [dx_r dx_f] = [r f_ref]
    std::copy(r_.begin(), r_.end(), rhs.begin());
    std::copy(f_ref_.begin(), f_ref_.end(), rhs.begin() + n_);
    solver_.solve(rhs.data(), sol.data(), 2);
    std::copy(sol.begin(), sol.begin() + n_, dx_r.begin());
    std::copy(sol.begin() + n_, sol.end(), dx_f.begin());
    Real dl = 0;
    if (!fixed_load && !constraint_root(dx, dlambda, dx_r, dx_f, ds, from.load_norm, &dl)) {
      outcome.failure = "the arc-length constraint has no real root (the arc is too long for the path's curvature)";
      outcome.iterations = it;
      return outcome;
    }
    for (size_t k = 0; k < dx.size(); ++k) dx[k] += dx_r[k] + dl * dx_f[k];
    dlambda += dl;
    ++iterations_;
    outcome.iterations = it + 1;
  }
}

StepOutcome ArcLengthStepper::equilibrium_point(std::vector<Real> x, Real lambda, ArcPoint& point) {
  ArcPoint from;
  from.x = std::move(x);
  from.lambda = lambda;
  std::vector<Real> dx(static_cast<size_t>(n_), 0.0);
  Real dlambda = 0;
  return correct(from, 0, /*fixed_load=*/true, dx, dlambda, point);
}

StepOutcome ArcLengthStepper::arc_step(const ArcPoint& from, Real ds, int sign, ArcPoint& to, std::vector<Real>& dx,
                                       Real& dlambda) {
  // (3): Dlambda = s ds / sqrt(|dx_f|^2 + psi^2 F^2), Dx = Dlambda dx_f
  const Real c = options_.psi * options_.psi * from.load_norm * from.load_norm;
  dlambda = sign * ds / std::sqrt(arc_dot(from.tangent, from.tangent) + c);
  dx = from.tangent;
  for (Real& v : dx) v *= dlambda;
  return correct(from, ds, /*fixed_load=*/false, dx, dlambda, to);
}

StepOutcome ArcLengthStepper::fixed_load_step(const ArcPoint& from, const std::vector<Real>& dx_step, Real t,
                                              Real lambda, ArcPoint& to) {
  std::vector<Real> dx = dx_step;
  for (Real& v : dx) v *= t;
  Real dlambda = lambda - from.lambda;
  return correct(from, 0, /*fixed_load=*/true, dx, dlambda, to);
}

int ArcLengthStepper::predictor_sign(const ArcPoint& point, const std::vector<Real>& dx, Real dlambda,
                                     int previous_sign) const {
  // (3): s = sign(dx_f . Dx_prev + psi^2 F^2 Dlambda_prev)
  const Real c = options_.psi * options_.psi * point.load_norm * point.load_norm;
  const Real v = arc_dot(point.tangent, dx) + c * dlambda;
  return v > 0 ? 1 : v < 0 ? -1 : previous_sign;
}

void ArcLengthStepper::pressures_and_volumes(const ArcPoint& point, std::vector<Real>& pressures,
                                             std::vector<Real>& volumes) const {
  pressures.clear();
  volumes.clear();
  for (size_t k = 0; k < loads_.pressures.size(); ++k) {
    pressures.push_back(point.lambda * loads_.pressures[k].pressure);
    volumes.push_back(loads_.pressures[k].closed ? pressure_[k]->volume(point.x) : 0.0);
  }
}

}  // namespace softik
