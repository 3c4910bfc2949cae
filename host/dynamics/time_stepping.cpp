// DynamicSolver, the free motion: one implicit step by Newton, and step cuts (dynamics.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "host/dynamics/dynamic_solver_impl.hpp"
#include "host/linear/woodbury.hpp"
#include "softik/error.hpp"
#include "softik/mesh_selection.hpp"

namespace softik {

namespace {

bool finite(Real v) { return std::isfinite(v); }

void check_options(const DynamicsOptions& o) {
  SOFTIK_CHECK(finite(o.dt) && o.dt > 0, "dynamics: dt = " << o.dt << "; give a positive, finite time step");
  SOFTIK_CHECK(
      finite(o.density) && o.density > 0,
      "dynamics: density = " << o.density << "; give the mass density, positive (e.g. 1070 kg/m^3 for silicone)");
  SOFTIK_CHECK(finite(o.rayleigh_mass) && o.rayleigh_mass >= 0,
               "dynamics: rayleigh_mass (alpha) = " << o.rayleigh_mass << "; damping must be >= 0");
  SOFTIK_CHECK(finite(o.rayleigh_stiffness) && o.rayleigh_stiffness >= 0,
               "dynamics: rayleigh_stiffness (beta) = " << o.rayleigh_stiffness << "; damping must be >= 0");
  if (o.scheme == TimeScheme::Newmark) {
    SOFTIK_CHECK(
        finite(o.newmark_gamma) && o.newmark_gamma >= 0.5 && o.newmark_gamma <= 1,
        "dynamics: newmark gamma = " << o.newmark_gamma << "; it must lie in [0.5, 1] (0.5: no numerical damping)");
    const Real beta_min = 0.25 * (o.newmark_gamma + 0.5) * (o.newmark_gamma + 0.5);
    SOFTIK_CHECK(finite(o.newmark_beta) && o.newmark_beta >= beta_min - 1e-15 && o.newmark_beta <= 0.5,
                 "dynamics: newmark beta = " << o.newmark_beta << " with gamma = " << o.newmark_gamma
                                             << " is not unconditionally stable; give beta in [(gamma + 1/2)^2 / 4 = "
                                             << beta_min << ", 0.5] (beta = 1/4, gamma = 1/2: the trapezoidal rule)");
  }
  SOFTIK_CHECK(o.max_iterations >= 1, "dynamics: max_iterations = " << o.max_iterations << "; give at least 1");
  SOFTIK_CHECK(o.max_step_cuts >= 0, "dynamics: max_step_cuts = " << o.max_step_cuts << "; give 0 or more");
  SOFTIK_CHECK(finite(o.residual_tolerance) && o.residual_tolerance > 0,
               "dynamics: residual_tolerance = " << o.residual_tolerance << "; give a positive number");
}

}  // namespace

DynamicSolver::Impl::Impl(const Assembler& assembler_, LinearSolver& solver_, DynamicLoads loads_,
                          DynamicsOptions options_)
    : assembler(assembler_), solver(solver_), loads(std::move(loads_)), options(std::move(options_)) {
  check_options(options);
  const Mesh& mesh = assembler.mesh();
  const size_t n = static_cast<size_t>(assembler.num_dofs());
  for (size_t l = 0; l < loads.nodal.size(); ++l) {
    const NodalLoad& load = loads.nodal[l];
    SOFTIK_CHECK(load.values.size() == n, "dynamics: nodal load " << l << " has " << load.values.size()
                                                                  << " entries, expected num_dofs = " << n);
    for (size_t k = 0; k < n; ++k)
      SOFTIK_CHECK(finite(load.values[k]), "dynamics: nodal load " << l << " on DOF " << k << " is " << load.values[k]);
    validate(load.factor, "dynamics: the time function of nodal load " + std::to_string(l));
  }
  SOFTIK_CHECK(loads.pressure_factors.size() <= loads.pressures.size(),
               "dynamics: " << loads.pressure_factors.size() << " pressure time functions for "
                            << loads.pressures.size() << " pressure loads");
  loads.pressure_factors.resize(loads.pressures.size());
  for (size_t p = 0; p < loads.pressures.size(); ++p) {
    const PressureLoad& load = loads.pressures[p];
    SOFTIK_CHECK(finite(load.pressure), "dynamics: pressure load '" << load.name << "' is " << load.pressure);
    SOFTIK_CHECK_KIND(load.control == CavityControl::Pressure, ErrorKind::Unsupported,
                      "dynamics: pressure load '"
                          << load.name << "' has control = " << cavity_control_name(load.control)
                          << "; dynamics drives given pressures only (solve_static handles it)");
    validate(loads.pressure_factors[p], "dynamics: the time function of pressure '" + load.name + "'");
    pressure.push_back(make_pressure_evaluator(load, mesh, assembler.options().backend));
  }
  for (const DrivenActuator& d : loads.actuators) {
    SOFTIK_CHECK(d.actuator != nullptr, "dynamics: a driven actuator is null");
    SOFTIK_CHECK(d.actuator->role() == ConstraintRole::Actuator,
                 "dynamics: '" << d.actuator->name() << "' is not an actuator; only actuators can be driven");
    validate(d.lambda, "dynamics: the time function of actuator '" + d.actuator->name() + "'");
  }
  M = assembler.mass_matrix(options.density, options.lumped_mass);
  size = std::max(bounding_box_diagonal(mesh), 1e-300);
  bool follower = false;
  for (const PressureLoad& p : loads.pressures) follower = follower || (p.follower && options.pressure_stiffness);
  constant_tangent =
      assembler.options().formulation == Formulation::LinearSmallStrain && !follower && loads.actuators.empty();
  x = mesh.rest_positions();
  v.assign(n, 0.0);
  a.assign(n, 0.0);
  setup_supports();
  drive_supports(t, x);
  solver.analyze(assembler.pattern());
  detection.setup(assembler.mesh(), assembler.free_dof_index(), options.contact, size);
  initial_acceleration();
  warn_initial_penetration();
}

void DynamicSolver::Impl::scheme_coefficients(Real h, Real* c_v, Real* c_a) const {
  if (options.scheme == TimeScheme::Newmark) {
    *c_a = 1.0 / (options.newmark_beta * h * h);
    *c_v = options.newmark_gamma / (options.newmark_beta * h);
  } else {
    *c_v = 1.0 / h;
    *c_a = 1.0 / (h * h);
  }
}

void DynamicSolver::Impl::velocity_acceleration(const std::vector<Real>& x_new, Real h, std::vector<Real>& v_new,
                                                std::vector<Real>& a_new) const {
  const std::vector<int>& free = assembler.free_dof_index();
  v_new.assign(x.size(), 0.0);
  a_new.assign(x.size(), 0.0);
  const Real beta = options.newmark_beta, gamma = options.newmark_gamma;
  for (size_t k = 0; k < x.size(); ++k) {
    if (free[k] < 0 && !driven[k]) continue;
    if (options.scheme == TimeScheme::Newmark) {
      // a = (x - x_n - h v_n)/(beta h^2) - (1/(2 beta) - 1) a_n;  v = v_n + h((1 - gamma) a_n + gamma a)
      a_new[k] = (x_new[k] - x[k] - h * v[k]) / (beta * h * h) - (0.5 / beta - 1.0) * a[k];
      v_new[k] = v[k] + h * ((1.0 - gamma) * a[k] + gamma * a_new[k]);
    } else {
      // v = (x - x_n)/h;  a = (v - v_n)/h
      v_new[k] = (x_new[k] - x[k]) / h;
      a_new[k] = (v_new[k] - v[k]) / h;
    }
  }
}

std::vector<Real> DynamicSolver::Impl::external_force(Real time, const std::vector<Real>& x_at) const {
  std::vector<Real> f(x_at.size(), 0.0);
  for (const NodalLoad& load : loads.nodal) {
    const Real g = load.factor(time);
    for (size_t k = 0; k < f.size(); ++k) f[k] += g * load.values[k];
  }
  for (size_t p = 0; p < loads.pressures.size(); ++p)
    pressure[p]->add_forces(loads.pressures[p].pressure * loads.pressure_factors[p](time), x_at, f);
  std::vector<ConstraintRow> rows;
  for_each_actuation(time, [&](const Constraint& actuator, const Real* lambda) {
    rows.clear();
    actuator.rows(assembler.mesh(), x_at, rows);
    for (size_t r = 0; r < rows.size(); ++r)
      for (const auto& [dof, value] : rows[r].J) f[static_cast<size_t>(dof)] += value * lambda[r];
  });
  return f;
}

namespace {

/// y += s * K z over the free DOFs for CSR values K (z, y: num_dofs vectors).
void add_csr_times(const Assembler& assembler, const std::vector<Real>& K, const std::vector<Real>& z, Real s,
                   std::vector<Real>& y) {
  const std::vector<int>& free = assembler.free_dof_index();
  const CsrPattern& p = assembler.pattern();
  std::vector<Real> zf(static_cast<size_t>(p.rows)), yf(static_cast<size_t>(p.rows), 0.0);
  for (size_t k = 0; k < free.size(); ++k)
    if (free[k] >= 0) zf[static_cast<size_t>(free[k])] = z[k];
  for (int r = 0; r < p.rows; ++r)
    for (int e = p.row_ptr[static_cast<size_t>(r)]; e < p.row_ptr[static_cast<size_t>(r) + 1]; ++e)
      yf[static_cast<size_t>(r)] += K[static_cast<size_t>(e)] * zf[static_cast<size_t>(p.col[static_cast<size_t>(e)])];
  for (size_t k = 0; k < free.size(); ++k)
    if (free[k] >= 0) y[k] += s * yf[static_cast<size_t>(free[k])];
}

}  // namespace

void DynamicSolver::Impl::add_mass_times(const std::vector<Real>& z, Real s, std::vector<Real>& y) const {
  add_csr_times(assembler, M, z, s, y);
}

namespace {

Real free_norm(const std::vector<int>& free, const std::vector<Real>& y) {
  Real s = 0;
  for (size_t k = 0; k < y.size(); ++k)
    if (free[k] >= 0) s += y[k] * y[k];
  return std::sqrt(s);
}

/// Finite velocities whose damping forces (or their norm) do not fit a double: the damping
/// coefficients are beyond any physical size. Cutting the step would only raise the velocities'
/// weight, so this is the scene's error (Input), not the step's.
void check_damping_forces(const DynamicsOptions& options, Real t, const std::vector<int>& free,
                          const std::vector<Real>& v_new, const std::vector<Real>& damping) {
  if (finite(free_norm(free, damping))) return;
  Real v_max = 0;
  for (size_t k = 0; k < v_new.size(); ++k) {
    if (free[k] < 0) continue;
    if (!finite(v_new[k])) return;  // the motion itself blew up: not the damping's doing
    v_max = std::max(v_max, std::abs(v_new[k]));
  }
  std::ostringstream os;
  os << "dynamics: the Rayleigh damping forces alpha M v + beta K v overflow double precision at t = " << t
     << " (rayleigh mass alpha = " << options.rayleigh_mass << " 1/s, stiffness beta = " << options.rayleigh_stiffness
     << " s, velocities up to " << v_max
     << "): their norm is beyond 1.8e308. Give damping of a physical size (alpha = 2 zeta omega, beta = 2 zeta / "
        "omega for a damping ratio zeta at the frequency omega)";
  throw Error(os.str(), ErrorKind::Input);
}

}  // namespace

void DynamicSolver::Impl::factorize_tangent(Real h, const std::vector<Real>& x_at, const std::vector<Real>& K) {
  Real c_v = 0, c_a = 0;
  scheme_coefficients(h, &c_v, &c_a);
  const Real alpha = options.rayleigh_mass, beta = options.rayleigh_stiffness, t1 = t + h;
  // A = (1 + beta c_v) K + (c_a + alpha c_v) M - (load stiffness)
  std::vector<Real> A(K.size());
  for (size_t e = 0; e < K.size(); ++e) A[e] = (1.0 + beta * c_v) * K[e] + (c_a + alpha * c_v) * M[e];
  if (options.pressure_stiffness)
    for (size_t p = 0; p < loads.pressures.size(); ++p)
      add_pressure_stiffness(loads.pressures[p], loads.pressures[p].pressure * loads.pressure_factors[p](t1), assembler,
                             x_at, -1.0, A);
  for_each_actuation(
      t1, [&](const Constraint& actuator, const Real* lambda) { actuator.add_stiffness(assembler, x_at, lambda, A); });
  try {
    solver.factorize(A);
  } catch (const Error& e) {  // A = K + M/dt^2 + ... is positive definite unless the iterate went bad
    SOFTIK_CHECK_NUMERICAL(false, "the step's tangent could not be factorised (" << e.what() << ")");
  }
  // The cables' stiffness T (I - e e^T) / |e| couples points that share no cell: U C U^T.
  LowRankStiffness low_rank;
  for_each_actuation(t1, [&](const Constraint& actuator, const Real* lambda) {
    actuator.add_low_rank_stiffness(x_at, lambda, low_rank);
  });
  const Eigen::Index nr = static_cast<Eigen::Index>(low_rank.columns.size()), nf = assembler.num_free_dofs();
  low_rank_Y.resize(nf, nr);
  low_rank_M.resize(nr, nr);
  if (nr > 0) {
    const std::vector<int>& free = assembler.free_dof_index();
    Matrix U = Matrix::Zero(nf, nr);
    for (Eigen::Index k = 0; k < nr; ++k)
      for (const auto& [dof, value] : low_rank.columns[static_cast<size_t>(k)])
        if (free[static_cast<size_t>(dof)] >= 0) U(free[static_cast<size_t>(dof)], k) += value;
    solver.solve(U.data(), low_rank_Y.data(), static_cast<int>(nr));
    low_rank_M =
        detail::woodbury_middle(detail::low_rank_blocks(low_rank), U.transpose() * low_rank_Y, ErrorKind::Numerical,
                                "the step's tangent with the cables' stiffness is singular", "");
  }
  factor_is_current = true;
  factor_dt = constant_tangent ? h : -1;
}

void DynamicSolver::Impl::solve_tangent(const std::vector<Real>& rhs, std::vector<Real>& dx) const {
  solver.solve(rhs.data(), dx.data(), 1);
  if (low_rank_Y.cols() == 0) return;
  Eigen::Map<Vector> d(dx.data(), static_cast<Eigen::Index>(dx.size()));
  const Vector Uty =
      low_rank_Y.transpose() * Eigen::Map<const Vector>(rhs.data(), static_cast<Eigen::Index>(rhs.size()));
  d -= low_rank_Y * (low_rank_M * Uty);
}

bool DynamicSolver::Impl::free_motion(Real h, std::vector<Real>& x_free, int* iterations, Real* residual,
                                      int* factorizations) {
  const std::vector<int>& free = assembler.free_dof_index();
  const size_t n = x.size();
  Real c_v = 0, c_a = 0;
  scheme_coefficients(h, &c_v, &c_a);
  const Real alpha = options.rayleigh_mass, beta = options.rayleigh_stiffness, t1 = t + h;
  // Predictor: constant velocity (backward Euler), constant acceleration (Newmark).
  x_free = x;
  for (size_t k = 0; k < n; ++k)
    if (free[k] >= 0) x_free[k] += h * v[k] + (options.scheme == TimeScheme::Newmark ? 0.5 * h * h * a[k] : 0.0);
  drive_supports(t1, x_free);
  factor_is_current = constant_tangent && factor_dt == h;
  std::vector<Real> f, K, v_new, a_new, r(n), rhs(static_cast<size_t>(assembler.num_free_dofs())), dx(rhs.size());
  for (int it = 0; it < options.max_iterations; ++it) {
    const bool need_K = !factor_is_current || !constant_tangent || beta > 0;
    assembler.assemble(x_free, nullptr, &f, need_K ? &K : nullptr);
    velocity_acceleration(x_free, h, v_new, a_new);
    const std::vector<Real> f_ext = external_force(t1, x_free);
    // r = f + f_ext - M a - alpha M v - beta K v
    std::vector<Real> inertia(n, 0.0), damping(n, 0.0);
    add_mass_times(a_new, 1.0, inertia);
    if (alpha > 0) add_mass_times(v_new, alpha, damping);
    if (beta > 0) add_csr_times(assembler, K, v_new, beta, damping);
    check_damping_forces(options, t, free, v_new, damping);
    for (size_t k = 0; k < n; ++k) r[k] = f[k] + f_ext[k] - inertia[k] - damping[k];
    const Real scale =
        free_norm(free, f) + free_norm(free, f_ext) + free_norm(free, inertia) + free_norm(free, damping);
    *residual = free_norm(free, r);
    if (!finite(*residual)) return false;
    if (*residual <= options.residual_tolerance * scale || *residual == 0) return true;
    if (!(factor_is_current && constant_tangent)) {
      factorize_tangent(h, x_free, K);
      ++*factorizations;
    }
    for (size_t k = 0; k < n; ++k)
      if (free[k] >= 0) rhs[static_cast<size_t>(free[k])] = r[k];
    solve_tangent(rhs, dx);
    Real step = 0;
    for (size_t k = 0; k < n; ++k)
      if (free[k] >= 0) {
        const Real d = dx[static_cast<size_t>(free[k])];
        x_free[k] += d;
        step += d * d;
      }
    ++*iterations;
    if (!finite(step)) return false;
    if (std::sqrt(step) <= options.increment_tolerance * size) return true;
  }
  return false;
}

void DynamicSolver::Impl::advance(Real h, int depth, DynamicStepReport& report) {
  std::vector<Real> x_free;
  bool ok = false;
  std::string failure = "no convergence within " + std::to_string(options.max_iterations) + " Newton iterations";
  try {
    ok = free_motion(h, x_free, &report.iterations, &report.residual, &report.factorizations);
    if (ok && (has_contact() || has_control())) {
      if (!factor_is_current) {  // converged without a factorisation in this step: the compliance needs one
        std::vector<Real> K;
        assembler.assemble(x_free, nullptr, nullptr, &K);
        factorize_tangent(h, x_free, K);
        ++report.factorizations;
      }
      if (has_control())
        control_correct(h, x_free, report);
      else
        correct(h, x_free, report);
    }
    if (ok && !std::all_of(x_free.begin(), x_free.end(), [](Real value) { return std::isfinite(value); })) {
      ok = false;
      failure = "the positions became NaN or infinite";
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Numerical) throw;
    failure = e.what();
    ok = false;
  }
  if (ok) {
    std::vector<Real> v_new, a_new;
    velocity_acceleration(x_free, h, v_new, a_new);
    x.swap(x_free);
    v.swap(v_new);
    a.swap(a_new);
    t += h;
    accept_control();
    ++report.substeps;
    return;
  }
  factor_dt = -1;
  SOFTIK_CHECK_NUMERICAL(depth < options.max_step_cuts,
                         "dynamics: the step at t = " << t << " failed with dt = " << h << " after "
                                                      << options.max_step_cuts << " cuts (" << failure
                                                      << "); reduce dt, add damping, or check the loads");
  advance(0.5 * h, depth + 1, report);
  advance(0.5 * h, depth + 1, report);
}

void DynamicSolver::Impl::initial_acceleration() {
  const std::vector<int>& free = assembler.free_dof_index();
  const size_t n = x.size();
  std::vector<Real> f, K;
  assembler.assemble(x, nullptr, &f, options.rayleigh_stiffness > 0 ? &K : nullptr);
  std::vector<Real> rhs = external_force(t, x);
  for (size_t k = 0; k < n; ++k) rhs[k] += f[k];
  add_mass_times(v, -options.rayleigh_mass, rhs);
  if (options.rayleigh_stiffness > 0) add_csr_times(assembler, K, v, -options.rayleigh_stiffness, rhs);
  std::vector<Real> b(static_cast<size_t>(assembler.num_free_dofs())), y(b.size());
  for (size_t k = 0; k < n; ++k)
    if (free[k] >= 0) b[static_cast<size_t>(free[k])] = rhs[k];
  std::unique_ptr<LinearSolver> mass_solver = make_linear_solver();
  mass_solver->analyze(assembler.pattern());
  mass_solver->factorize(M);
  mass_solver->solve(b.data(), y.data(), 1);
  a.assign(n, 0.0);
  for (size_t k = 0; k < n; ++k)
    if (free[k] >= 0) a[k] = y[static_cast<size_t>(free[k])];
}

// --- DynamicSolver ---

DynamicSolver::DynamicSolver(const Assembler& assembler, LinearSolver& solver, DynamicLoads loads,
                             DynamicsOptions options)
    : impl_(std::make_unique<Impl>(assembler, solver, std::move(loads), std::move(options))) {}
DynamicSolver::~DynamicSolver() = default;
DynamicSolver::DynamicSolver(DynamicSolver&&) noexcept = default;
DynamicSolver& DynamicSolver::operator=(DynamicSolver&&) noexcept = default;

void DynamicSolver::set_state(const std::vector<Real>& x, const std::vector<Real>& v, Real time) {
  const size_t n = static_cast<size_t>(impl_->assembler.num_dofs());
  SOFTIK_CHECK(x.size() == n && v.size() == n, "DynamicSolver::set_state: x and v need num_dofs = "
                                                   << n << " entries, got " << x.size() << " and " << v.size());
  SOFTIK_CHECK(finite(time), "DynamicSolver::set_state: time = " << time);
  for (size_t k = 0; k < n; ++k)
    SOFTIK_CHECK(finite(x[k]) && finite(v[k]),
                 "DynamicSolver::set_state: DOF " << k << " has x = " << x[k] << ", v = " << v[k]);
  impl_->x = x;
  impl_->v = v;
  const std::vector<int>& free = impl_->assembler.free_dof_index();
  for (size_t k = 0; k < n; ++k)
    if (free[k] < 0) impl_->v[k] = 0;
  impl_->t = time;
  impl_->factor_dt = -1;
  impl_->contacts.clear();
  impl_->lambda.clear();
  impl_->deltas.clear();
  impl_->contact_codes.clear();
  impl_->accept_control();
  impl_->initial_acceleration();
  impl_->warn_initial_penetration();
}

const std::vector<Real>& DynamicSolver::positions() const { return impl_->x; }
const std::vector<Real>& DynamicSolver::velocities() const { return impl_->v; }
Real DynamicSolver::time() const { return impl_->t; }
const std::vector<ContactPoint>& DynamicSolver::contacts() const { return impl_->contacts; }
const std::vector<Real>& DynamicSolver::contact_forces() const { return impl_->lambda; }
const std::vector<Real>& DynamicSolver::contact_deltas() const { return impl_->deltas; }
const std::vector<std::string>& DynamicSolver::warnings() const { return impl_->warnings; }

std::vector<Real> DynamicSolver::reactions() const {
  const Impl& s = *impl_;
  std::vector<Real> f;
  s.assembler.assemble(s.x, nullptr, &f, nullptr);
  const std::vector<Real> f_ext = s.external_force(s.t, s.x);
  const std::vector<int>& free = s.assembler.free_dof_index();
  std::vector<Real> R(f.size(), 0.0);
  for (size_t k = 0; k < f.size(); ++k)
    if (free[k] < 0) R[k] = -(f[k] + f_ext[k]);
  return R;
}

Real DynamicSolver::kinetic_energy() const {
  std::vector<Real> Mv(impl_->v.size(), 0.0);
  impl_->add_mass_times(impl_->v, 1.0, Mv);
  Real e = 0;
  for (size_t k = 0; k < Mv.size(); ++k) e += 0.5 * impl_->v[k] * Mv[k];
  return e;
}

Real DynamicSolver::elastic_energy() const { return impl_->assembler.energy(impl_->x); }

DynamicStepReport DynamicSolver::step() {
  const auto start = std::chrono::steady_clock::now();
  DynamicStepReport report;
  report.substeps = 0;
  // A step that fails leaves the state where it began (its sub-steps may have advanced it).
  const std::vector<Real> x0 = impl_->x, v0 = impl_->v, a0 = impl_->a;
  const Real t0 = impl_->t;
  const std::vector<ContactPoint> contacts0 = impl_->contacts;
  const std::vector<Real> lambda0 = impl_->lambda, deltas0 = impl_->deltas;
  const std::vector<Real> actuation0 = impl_->actuation;
  const std::vector<signed char> codes0 = impl_->contact_codes;
  try {
    impl_->advance(impl_->options.dt, 0, report);
  } catch (...) {
    impl_->x = x0;
    impl_->v = v0;
    impl_->a = a0;
    impl_->t = t0;
    impl_->contacts = contacts0;
    impl_->lambda = lambda0;
    impl_->deltas = deltas0;
    impl_->actuation = actuation0;
    impl_->contact_codes = codes0;
    impl_->accept_control();  // the constraints' outputs and windows back at the step's start
    impl_->factor_dt = -1;
    throw;
  }
  ++impl_->steps;
  report.step = impl_->steps;
  report.time = impl_->t;
  report.kinetic_energy = kinetic_energy();
  report.elastic_energy = elastic_energy();
  for (size_t p = 0; p < impl_->loads.pressures.size(); ++p)
    report.pressures.push_back(impl_->loads.pressures[p].pressure * impl_->loads.pressure_factors[p](impl_->t));
  report.seconds_total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace softik
