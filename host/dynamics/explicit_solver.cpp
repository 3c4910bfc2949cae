// Symplectic Euler and velocity Verlet with a checked stable time step
// (include/softik/explicit_dynamics.hpp; docs/method.md section 12.3).
#include <cmath>
#include <sstream>

#include "softik/error.hpp"
#include "softik/explicit_dynamics.hpp"

namespace softik {

namespace {

/// Steps one advance() may take: far beyond any run, and exactly representable as a long and a double.
constexpr Real kMaxAdvanceSteps = 4.0e18;

}  // namespace

const char* explicit_scheme_name(ExplicitScheme scheme) {
  return scheme == ExplicitScheme::SymplecticEuler ? "symplectic_euler" : "velocity_verlet";
}

ExplicitSolver::ExplicitSolver(const ExplicitModel& model, ExplicitOptions options) : model_(model), options_(options) {
  const ExplicitOptions& o = options_;
  SOFTIK_CHECK(std::isfinite(o.time_step) && o.time_step >= 0,
               "explicit dynamics: time_step " << o.time_step << " must be >= 0 (0: automatic)");
  SOFTIK_CHECK(std::isfinite(o.safety) && o.safety > 0 && o.safety <= 1,
               "explicit dynamics: safety " << o.safety << " must lie in (0, 1]");
  SOFTIK_CHECK(std::isfinite(o.mass_damping) && o.mass_damping >= 0,
               "explicit dynamics: mass_damping " << o.mass_damping << " (1/s) must be >= 0");
  SOFTIK_CHECK(std::isfinite(o.global_damping) && o.global_damping >= 0,
               "explicit dynamics: global_damping " << o.global_damping << " (N s/m) must be >= 0");
  SOFTIK_CHECK(o.steps_per_frame >= 1, "explicit dynamics: steps_per_frame " << o.steps_per_frame << " must be >= 1");
  const size_t n = static_cast<size_t>(model.num_dofs());
  SOFTIK_CHECK(model.mass().size() == n && model.fixed().size() == n && model.rest_positions().size() == n,
               "explicit dynamics: the model's mass, fixed flags and positions must have " << n << " entries");
  x_ = model.rest_positions();
  v_.assign(n, 0);
  const Real dt_c = stable_time_step();
  SOFTIK_CHECK(std::isfinite(dt_c) && dt_c > 0, "explicit dynamics: the stable time step estimate is "
                                                    << dt_c << "; is every DOF fixed, or a stiffness NaN?");
  dt_ = o.time_step > 0 ? o.time_step : o.safety * dt_c;
  check_time_step(dt_c);
}

Real ExplicitSolver::stable_time_step() const {
  const ExplicitModel::Bounds b = model_.frequency_bounds(x_);
  if (!(b.omega_squared > 0)) return kInf;  // nothing stiff moves: any step is stable
  Real damping = b.damping_rate + options_.mass_damping;
  Real min_mass = kInf;
  for (size_t i = 0; i < model_.mass().size(); ++i)
    if (!model_.fixed()[i]) min_mass = std::min(min_mass, model_.mass()[i]);
  if (options_.global_damping > 0) damping += options_.global_damping / min_mass;
  const Real omega = std::sqrt(b.omega_squared);
  const Real xi = damping / (2 * omega);
  if (!std::isfinite(xi * xi)) {  // sqrt(1 + xi^2) would be inf, the step inf or NaN
    std::ostringstream os;
    os << "explicit dynamics: the damping overflows double precision: mass_damping alpha = " << options_.mass_damping
       << " 1/s, global_damping c_g = " << options_.global_damping << " N s/m (c_g / m up to "
       << options_.global_damping / min_mass
       << " 1/s) and the model's own dashpots (the links' dashpot or network.dashpot_time: up to " << b.damping_rate
       << " 1/s) give the damping ratio xi = " << xi << " at omega_max = " << omega
       << " rad/s, whose square is beyond 1.8e308; give damping of a physical size (xi = 1 is critical damping)";
    throw Error(os.str(), ErrorKind::Input);
  }
  // 2/omega (sqrt(1 + xi^2) - xi), written as a quotient: the difference cancels for a large xi
  // (it was 0 at xi ~ 1e8 and beyond).
  return (2 / omega) / (std::sqrt(1 + xi * xi) + xi);
}

void ExplicitSolver::check_time_step(Real dt_c) const {
  if (options_.force_time_step || dt_ <= dt_c) return;
  const ExplicitModel::Bounds b = model_.frequency_bounds(x_);
  std::ostringstream os;
  os << "explicit dynamics: the time step " << dt_ << " s exceeds the stable limit " << dt_c << " s at t = " << t_
     << " s (set by node " << b.node << ", omega_max <= " << std::sqrt(b.omega_squared)
     << " rad/s); an explicit scheme blows up above it. Use time_step <= " << dt_c << " (or 0 for " << options_.safety
     << " x the limit), stiffen the mass, or set force_time_step to run anyway";
  throw Error(os.str(), ErrorKind::Input);
}

void ExplicitSolver::set_state(const std::vector<Real>& x, const std::vector<Real>& v) {
  SOFTIK_CHECK(x.size() == x_.size() && v.size() == v_.size(),
               "explicit dynamics: set_state needs " << x_.size() << " positions and velocities");
  for (size_t i = 0; i < x.size(); ++i) {
    SOFTIK_CHECK(std::isfinite(x[i]) && std::isfinite(v[i]),
                 "explicit dynamics: set_state: DOF " << i << " is not finite");
    SOFTIK_CHECK(!model_.fixed()[i] || (x[i] == model_.rest_positions()[i] && v[i] == 0),
                 "explicit dynamics: set_state moves fixed DOF " << i << " (node " << i / 3 << ")");
  }
  x_ = x;
  v_ = v;
  have_a_ = false;
}

void ExplicitSolver::accelerations(Real t, const std::vector<Real>& x, const std::vector<Real>& v,
                                   std::vector<Real>& a) const {
  model_.forces(t, x, v, a);
  const std::vector<Real>& m = model_.mass();
  const std::vector<char>& fixed = model_.fixed();
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = fixed[i] ? 0 : (a[i] - (options_.mass_damping * m[i] + options_.global_damping) * v[i]) / m[i];
}

// The damping's power (alpha m + c_g) v^2 at velocity v, summed.
static Real damping_power(const ExplicitOptions& o, const std::vector<Real>& m, const std::vector<Real>& v) {
  Real P = 0;
  for (size_t i = 0; i < v.size(); ++i) P += (o.mass_damping * m[i] + o.global_damping) * v[i] * v[i];
  return P;
}

void ExplicitSolver::take_step(Real dt) {
  const size_t n = x_.size();
  const std::vector<char>& fixed = model_.fixed();
  if (!have_a_) accelerations(t_, x_, v_, a_), have_a_ = true;
  if (options_.scheme == ExplicitScheme::SymplecticEuler) {
    damped_ += dt * damping_power(options_, model_.mass(), v_);
    for (size_t i = 0; i < n; ++i)
      if (!fixed[i]) v_[i] += dt * a_[i], x_[i] += dt * v_[i];
    t_ += dt;
    accelerations(t_, x_, v_, a_);
  } else {
    for (size_t i = 0; i < n; ++i)
      if (!fixed[i]) v_[i] += Real(0.5) * dt * a_[i], x_[i] += dt * v_[i];
    damped_ += dt * damping_power(options_, model_.mass(), v_);
    t_ += dt;
    accelerations(t_, x_, v_, a_);  // velocity-dependent forces see the half-step velocity
    for (size_t i = 0; i < n; ++i)
      if (!fixed[i]) v_[i] += Real(0.5) * dt * a_[i];
  }
  ++steps_;
}

void ExplicitSolver::step() { take_step(dt_); }

void ExplicitSolver::advance(Real duration, const std::function<void(const ExplicitFrame&)>& on_frame) {
  SOFTIK_CHECK(std::isfinite(duration) && duration >= 0,
               "explicit dynamics: advance(" << duration << "): the duration must be >= 0");
  const Real t_end = t_ + duration;
  int frame = 0;
  long in_frame = 0;
  auto emit = [&] {
    model_.check_state(x_);
    const Real dt_c = stable_time_step();
    check_time_step(dt_c);
    if (on_frame) on_frame({++frame, steps_, t_, kinetic_energy(), potential_energy(), dt_c});
  };
  // Equal steps that land on t_end: a shortened last step repeated call after call would
  // alternate two step sizes, and near the stability limit such a product of steps can grow
  // (parametric resonance) although each step alone is stable.
  // The count is checked before the cast: one that overflows (a tiny step, a huge duration) would
  // otherwise integrate nothing and report t_end.
  const Real count = duration > 0 ? std::ceil(duration / dt_ * (1 - 1e-12)) : 0;
  SOFTIK_CHECK(count <= kMaxAdvanceSteps, "explicit dynamics: advancing "
                                              << duration << " s by time steps of " << dt_ << " s takes " << count
                                              << " steps, which overflows the step count (at most " << kMaxAdvanceSteps
                                              << "); give a longer time_step or a shorter duration");
  const long n = static_cast<long>(count);
  const Real dt = n > 0 ? duration / static_cast<Real>(n) : 0;
  for (long s = 0; s < n; ++s) {
    take_step(dt);
    if (++in_frame == options_.steps_per_frame) {
      in_frame = 0;
      emit();
    }
  }
  t_ = t_end;
  if (in_frame > 0) emit();
}

Real ExplicitSolver::kinetic_energy() const {
  Real T = 0;
  for (size_t i = 0; i < v_.size(); ++i) T += model_.mass()[i] * v_[i] * v_[i];
  return T / 2;
}

}  // namespace softik
