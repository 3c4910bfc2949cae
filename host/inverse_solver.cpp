// The real-time inverse step (inverse.hpp; seed 002 Steps I-III); the converged solve is in
// inverse_converged_solve.cpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "inverse_checks.hpp"
#include "softik/error.hpp"
#include "softik/inverse.hpp"

namespace softik {

namespace {

/// Real-time steps reuse a factorisation only while the relative equilibrium residual is below
/// this (InverseOptions::reuse_factorization): far from equilibrium a stale K lets the chord
/// steps and the QP on a stale W oscillate (seen on the finger from rest: pressure swinging
/// between 5 and 27 kPa).
constexpr Real kReuseResidual = 1e-2;

using Clock = std::chrono::steady_clock;
Real seconds_since(Clock::time_point t0) { return std::chrono::duration<Real>(Clock::now() - t0).count(); }

/// The rows of every constraint at x, grouped by role, with their free-DOF Jacobian as dense
/// columns (n_free x m, column-major: J^T).
struct RowSet {
  std::vector<ConstraintRow> rows;
  std::vector<int> actuators, effectors, sensors;  ///< row indices by role
  std::vector<int> owner;                          ///< constraint of each row
  Eigen::MatrixXd Jt;                              ///< n_free x m
};

}  // namespace

InverseSolver::InverseSolver(const Assembler& assembler, LinearSolver& solver, Loads external, InverseOptions options)
    : assembler_(assembler), solver_(solver), external_(std::move(external)), options_(options) {
  SOFTIK_CHECK(assembler_.mesh().dim == 3, "InverseSolver: the inverse problem needs a 3D mesh");
  SOFTIK_CHECK(external_.prescribed.empty(),
               "InverseSolver: prescribed displacements are not supported; put the fixed DOFs at their positions in x");
  SOFTIK_CHECK(external_.nodal.empty() || external_.nodal.size() == static_cast<size_t>(assembler_.num_dofs()),
               "InverseSolver: the nodal load has " << external_.nodal.size() << " entries, expected "
                                                    << assembler_.num_dofs());
  SOFTIK_CHECK(options_.epsilon > 0 && options_.epsilon_min > 0,
               "InverseSolver: the energy weights epsilon and epsilon_min must be > 0 (they make the QP strictly convex)");
}

void InverseSolver::add(std::shared_ptr<Constraint> constraint) {
  SOFTIK_CHECK(constraint, "InverseSolver::add: null constraint");
  for (const auto& c : constraints_)
    SOFTIK_CHECK(c->name() != constraint->name(), "InverseSolver::add: two constraints are named '"
                                                      << c->name() << "'; give each a unique name");
  if (constraint->role() == ConstraintRole::Actuator) lambda_.insert(lambda_.end(), constraint->num_rows(), 0.0);
  constraints_.push_back(std::move(constraint));
  warm_ = QpActiveSet{};
}

InverseStepReport InverseSolver::step(std::vector<Real>& x) {
  SOFTIK_CHECK(options_.reuse_factorization >= 0,
               "InverseSolver: reuse_factorization must be >= 0, got " << options_.reuse_factorization);
  return step_with(x, options_.epsilon, options_.actuator_stiffness, nullptr, options_.reuse_factorization);
}

InverseStepReport InverseSolver::step_with(std::vector<Real>& x, Real epsilon, bool actuator_stiffness,
                                           const Continuation* path, int reuse) {
  const Mesh& mesh = assembler_.mesh();
  const std::vector<int>& free = assembler_.free_dof_index();
  const size_t ndof = static_cast<size_t>(assembler_.num_dofs());
  const Eigen::Index nf = assembler_.num_free_dofs();
  SOFTIK_CHECK(x.size() == ndof, "InverseSolver::step: x has " << x.size() << " entries, expected " << ndof);
  for (size_t k = 0; k < ndof; ++k)
    SOFTIK_CHECK(std::isfinite(x[k]), "InverseSolver::step: the positions x hold " << x[k] << " at DOF " << k
                                                                                   << " (node " << k / 3 << ")");
  InverseStepReport rep;

  // Assembly: f, K, external load, constraint rows.
  auto t0 = Clock::now();
  // With reuse > 0 the factorisation of an earlier step may be kept (a chord step; the rule is
  // below, once the residual is known); K is then assembled only in a second pass, when needed.
  std::vector<Real> f, K;
  // GPU assembly + GPU solver: K stays in device memory (d_K) unless the actuators' stiffness
  // is added to it on the host.
  const bool device_K = !actuator_stiffness && assembler_.keeps_stiffness_on_device(solver_);
  const Real* d_K = nullptr;
  if (device_K && reuse == 0)
    d_K = assembler_.assemble_on_device(x, nullptr, &f);
  else
    assembler_.assemble(x, nullptr, &f, reuse == 0 ? &K : nullptr);
  std::vector<Real> f_ext = external_.nodal.empty() ? std::vector<Real>(ndof, 0.0) : external_.nodal;
  for (const PressureLoad& p : external_.pressures) add_pressure_forces(p, p.pressure, mesh, x, f_ext);
  RowSet rs;
  for (size_t c = 0; c < constraints_.size(); ++c) {
    const size_t before = rs.rows.size();
    constraints_[c]->rows(mesh, x, rs.rows);
    SOFTIK_CHECK(rs.rows.size() - before == static_cast<size_t>(constraints_[c]->num_rows()),
                 "constraint '" << constraints_[c]->name() << "' returned a wrong number of rows");
    for (size_t r = before; r < rs.rows.size(); ++r) {
      rs.owner.push_back(static_cast<int>(c));
      const int ri = static_cast<int>(r);
      switch (constraints_[c]->role()) {
        case ConstraintRole::Actuator: rs.actuators.push_back(ri); break;
        case ConstraintRole::Effector: rs.effectors.push_back(ri); break;
        case ConstraintRole::Sensor: rs.sensors.push_back(ri); break;
      }
    }
  }
  if (path && path->s < 1) {  // solve()'s continuation: the problem at s (inverse.hpp)
    SOFTIK_CHECK(path->delta_start.size() == rs.rows.size() && path->lambda_start.size() == rs.actuators.size(),
                 "InverseSolver: the constraint rows changed during solve()");
    const Real s = path->s;
    // Only imposed values (equal bounds) are drawn: an inequality range such as [0, P_max] is
    // left as it is, so that an intermediate goal may use all of it.
    auto draw = [s](Interval& i, Real start) {
      if (i.lo == i.hi) i.lo = i.hi = start + s * (i.lo - start);
    };
    for (int r : rs.effectors) rs.rows[static_cast<size_t>(r)].delta -= (1 - s) * path->delta_start[static_cast<size_t>(r)];
    for (size_t a = 0; a < rs.actuators.size(); ++a) {
      ConstraintRow& row = rs.rows[static_cast<size_t>(rs.actuators[a])];
      draw(row.lambda_bounds, path->lambda_start[a]);
      draw(row.delta_bounds, path->delta_start[static_cast<size_t>(rs.actuators[a])]);
    }
  }
  // The delta bounds of a step: the absolute bounds (drawn above on a continuation path) within
  // the rate window around the current value (which is never drawn). An empty intersection makes
  // the QP infeasible, reported as such.
  for (int a : rs.actuators) {
    ConstraintRow& row = rs.rows[static_cast<size_t>(a)];
    row.delta_bounds.lo = std::max(row.delta_bounds.lo, row.delta_window.lo);
    row.delta_bounds.hi = std::min(row.delta_bounds.hi, row.delta_window.hi);
  }
  const Eigen::Index m = static_cast<Eigen::Index>(rs.rows.size());
  rs.Jt = Eigen::MatrixXd::Zero(nf, m);
  for (Eigen::Index r = 0; r < m; ++r)
    for (const auto& [dof, v] : rs.rows[static_cast<size_t>(r)].J) {
      const int row = free[static_cast<size_t>(dof)];
      if (row >= 0) rs.Jt(row, r) += v;
    }
  Eigen::VectorXd rhs(nf);
  for (size_t k = 0; k < ndof; ++k)
    if (free[k] >= 0) rhs(free[k]) = f[k] + f_ext[k];
  // Equilibrium residual with the current actuation (what solve() drives to zero).
  {
    Eigen::VectorXd eq = rhs;
    Real applied = 0;
    for (size_t a = 0; a < rs.actuators.size(); ++a) {
      eq += rs.Jt.col(rs.actuators[a]) * lambda_[a];
      applied += (rs.Jt.col(rs.actuators[a]) * lambda_[a]).squaredNorm();
    }
    Real ext = 0, reaction = 0;
    for (size_t k = 0; k < ndof; ++k) {
      if (free[k] >= 0)
        ext += f_ext[k] * f_ext[k];
      else
        reaction += f[k] * f[k];
    }
    rep.equilibrium_residual = eq.norm();
    rep.force_scale = std::max({std::sqrt(applied), std::sqrt(ext), std::sqrt(reaction)});
  }
  const Real relative_residual = rep.relative_residual();
  // Near equilibrium only (relative residual below kReuseResidual), where a chord step contracts,
  // and not after a step that let the residual grow tenfold (at the residual tolerance round-off
  // may do anything).
  const bool growing =
      relative_residual > 10 * last_relative_residual_ && relative_residual > options_.residual_tolerance;
  const bool refactor =
      reuse == 0 || !factor_valid_ || factor_age_ >= reuse || !(relative_residual < kReuseResidual) || growing;
  last_relative_residual_ = relative_residual;
  if (refactor && reuse > 0) {
    if (device_K)
      d_K = assembler_.assemble_on_device(x, nullptr, nullptr);
    else
      assembler_.assemble(x, nullptr, nullptr, &K);
  }
  rep.refactored = refactor;
  LowRankStiffness low_rank;  // K_c = U C U^T, applied by the Woodbury identity below
  if (actuator_stiffness) {
    size_t a = 0;
    for (const auto& c : constraints_)
      if (c->role() == ConstraintRole::Actuator) {
        if (refactor) c->add_stiffness(assembler_, x, lambda_.data() + a, K);
        c->add_low_rank_stiffness(x, lambda_.data() + a, low_rank);
        a += static_cast<size_t>(c->num_rows());
      }
  }
  const Eigen::Index nr = static_cast<Eigen::Index>(low_rank.columns.size());  // rank of U C U^T
  SOFTIK_CHECK(3 * low_rank.blocks.size() == low_rank.columns.size(),
               "InverseSolver: a low-rank stiffness needs one 3x3 block per three columns");
  rep.t_assembly = seconds_since(t0);

  // Factorisation (once per step) and the solves of Steps I-II, all columns in one call.
  t0 = Clock::now();
  if (!analyzed_) {
    solver_.analyze(assembler_.pattern());
    analyzed_ = true;
  }
  if (refactor) {
    factor_valid_ = false;  // until factorize() returns
    if (d_K)
      solver_.factorize_device(d_K);
    else
      solver_.factorize(K);
    factor_valid_ = true;
    factor_age_ = 0;
  }
  ++factor_age_;
  rep.t_factorization = seconds_since(t0);
  // The columns B = [rhs, J^T, U] (U: the low-rank stiffness, nr columns) and
  //   half: K = P^T L L^T P and Z = L^-1 P B   (forward solves only),  G = Z^T Z;
  //   full: Z = K^-1 B,                                               G = B^T Z;
  // either way the Gram matrix G = B^T K^-1 B.
  const bool half = options_.half_solves && solver_.has_cholesky_factor();
  rep.half_solves = half;
  t0 = Clock::now();
  const Eigen::Index nb = m + 1 + nr;
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(nf, nb), Z(nf, half ? 0 : nb);
  B.col(0) = rhs;
  B.middleCols(1, m) = rs.Jt;
  for (Eigen::Index k = 0; k < nr; ++k)
    for (const auto& [dof, v] : low_rank.columns[static_cast<size_t>(k)]) {
      const int row = free[static_cast<size_t>(dof)];
      if (row >= 0) B(row, 1 + m + k) += v;
    }
  Eigen::MatrixXd G(nb, nb);
  if (half)  // Z = L^-1 P B stays with the solver (on the device for GPU solvers), G = Z^T Z
    solver_.forward_gram(B.data(), static_cast<int>(nf), static_cast<int>(nb), G.data());
  else
    solver_.solve(B.data(), Z.data(), static_cast<int>(nb));
  rep.t_solves = seconds_since(t0);

  // Constraint space with the tangent K_t = K + U C U^T (Woodbury):
  //   a^T K_t^-1 b = a^T K^-1 b - (a^T K^-1 U) M (U^T K^-1 b),  M = (I + C U^T K^-1 U)^-1 C,
  // so W = J K_t^-1 J^T and J dx_free = J K_t^-1 rhs are blocks of G_t = G - G_:U M G_U: .
  t0 = Clock::now();
  if (!half) G = B.transpose() * Z;
  Eigen::MatrixXd M;
  if (nr > 0) {
    Eigen::MatrixXd C = Eigen::MatrixXd::Zero(nr, nr);
    for (size_t b = 0; b < low_rank.blocks.size(); ++b)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          C(static_cast<Eigen::Index>(3 * b) + i, static_cast<Eigen::Index>(3 * b) + j) =
              low_rank.blocks[b][static_cast<size_t>(3 * i + j)];
    const Eigen::MatrixXd S = Eigen::MatrixXd::Identity(nr, nr) + C * G.bottomRightCorner(nr, nr);
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(S);
    SOFTIK_CHECK(lu.rcond() > 1e-13, "InverseSolver: the tangent K + U C U^T with the cables' stiffness is singular "
                                     "(reciprocal condition of I + C U^T K^-1 U: "
                                         << lu.rcond() << "); a cable under negative tension (min_force < 0) "
                                                          "can do this: keep cable forces >= 0");
    M = lu.solve(C);
  }
  Eigen::MatrixXd Gt = G.topLeftCorner(m + 1, m + 1);
  if (nr > 0) Gt -= G.topRightCorner(m + 1, nr) * M * G.bottomLeftCorner(nr, m + 1);
  Eigen::MatrixXd W = Gt.bottomRightCorner(m, m);
  Eigen::VectorXd delta_free = Gt.col(0).tail(m);
  for (Eigen::Index r = 0; r < m; ++r) delta_free(r) += rs.rows[static_cast<size_t>(r)].delta;
  // No NaN or infinity goes on (DESIGN.md section 7): name the constraint whose row has one.
  auto row_name = [&](size_t r) {
    return "the row of constraint '" + constraints_[static_cast<size_t>(rs.owner[r])]->name() + "'";
  };
  const std::string solve_hint =
      "the solves with the stiffness matrix failed silently (a singular or badly scaled K, or a state far from "
      "equilibrium); take smaller steps or check the fixed DOFs and the material";
  for (Eigen::Index c = 0; c < m; ++c)
    inverse_detail::require_finite(W.col(c).data(), static_cast<size_t>(m), "the constraint-space compliance W",
                                   row_name, solve_hint);
  inverse_detail::require_finite(delta_free.data(), static_cast<size_t>(m), "the free violation delta_free", row_name,
                                 solve_hint);
  // Effector-actuator couplings at round-off level are zero (inverse_checks.hpp).
  const std::vector<bool> idle = inverse_detail::clean_round_off_couplings(W, rs.effectors, rs.actuators);
  rep.W.assign(W.data(), W.data() + W.size());  // symmetric: row- and column-major alike
  const Eigen::Index na = static_cast<Eigen::Index>(rs.actuators.size());
  const Eigen::Index ne = static_cast<Eigen::Index>(rs.effectors.size());
  auto pick = [&](const std::vector<int>& rows_i, const std::vector<int>& cols_j) {
    Eigen::MatrixXd out(static_cast<Eigen::Index>(rows_i.size()), static_cast<Eigen::Index>(cols_j.size()));
    for (size_t i = 0; i < rows_i.size(); ++i)
      for (size_t j = 0; j < cols_j.size(); ++j) out(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = W(rows_i[i], cols_j[j]);
    return out;
  };
  const Eigen::MatrixXd W_ea = pick(rs.effectors, rs.actuators);
  const Eigen::MatrixXd W_aa = pick(rs.actuators, rs.actuators);
  Eigen::VectorXd de_free(ne), da_free(na);
  for (Eigen::Index i = 0; i < ne; ++i) de_free(i) = delta_free(rs.effectors[static_cast<size_t>(i)]);
  for (Eigen::Index i = 0; i < na; ++i) da_free(i) = delta_free(rs.actuators[static_cast<size_t>(i)]);
  std::vector<Interval> lambda_bounds, delta_bounds;
  std::vector<std::string> actuator_names;  // per actuator row
  for (int r : rs.actuators) {
    lambda_bounds.push_back(rs.rows[static_cast<size_t>(r)].lambda_bounds);
    delta_bounds.push_back(rs.rows[static_cast<size_t>(r)].delta_bounds);
    actuator_names.push_back(constraints_[static_cast<size_t>(rs.owner[static_cast<size_t>(r)])]->name());
  }
  auto actuator_name = [&](size_t j) { return "actuator '" + actuator_names[j] + "'"; };
  Eigen::VectorXd lambda = Eigen::Map<const Eigen::VectorXd>(lambda_.data(), na);
  if (na > 0) {
    if (options_.method == InverseMethod::GaussSeidel) {
      for (Eigen::Index j = 0; j < na; ++j)
        lambda(j) = std::clamp(lambda(j), lambda_bounds[static_cast<size_t>(j)].lo, lambda_bounds[static_cast<size_t>(j)].hi);
      rep.solver_iterations = gauss_seidel_inverse(W_ea, de_free, W_aa, da_free, lambda_bounds, delta_bounds, lambda,
                                                   options_.gauss_seidel_iterations, options_.gauss_seidel_tolerance);
      rep.status = rep.solver_iterations > options_.gauss_seidel_iterations ? QpStatus::IterationLimit : QpStatus::Optimal;
      if (rep.status == QpStatus::IterationLimit)
        rep.message = "Gauss-Seidel: no convergence within " + std::to_string(options_.gauss_seidel_iterations) +
                      " sweeps (relative change of lambda above " + std::to_string(options_.gauss_seidel_tolerance) +
                      "); the actuators may be nearly redundant: use the QP method";
    } else if (std::all_of(lambda_bounds.begin(), lambda_bounds.end(), [](const Interval& b) { return b.lo == b.hi; })) {
      // Every input imposed (forward mode): nothing to optimise; only the delta bounds to check.
      for (Eigen::Index j = 0; j < na; ++j) lambda(j) = lambda_bounds[static_cast<size_t>(j)].lo;
      const Eigen::VectorXd delta_a = da_free + W_aa * lambda;
      for (Eigen::Index j = 0; j < na; ++j) {
        const Interval& db = delta_bounds[static_cast<size_t>(j)];
        if (db.contains(delta_a(j))) continue;
        std::ostringstream msg;
        msg << "actuator '" << constraints_[static_cast<size_t>(rs.owner[static_cast<size_t>(rs.actuators[static_cast<size_t>(j)])])]->name()
            << "': its imposed force/pressure " << lambda(j) << " gives displacement/volume growth " << delta_a(j)
            << ", outside its bounds [" << db.lo << ", " << db.hi << "] (rate window included)";
        rep.status = QpStatus::Infeasible;
        rep.message += (rep.message.empty() ? "" : "; ") + msg.str();
      }
    } else {
      // QP of seed 002 eq. 5 with the relative energy weight.
      QpProblem qp;
      const Eigen::MatrixXd EtE = W_ea.transpose() * W_ea;
      const Real waa = W_aa.norm();
      const Real eps_abs = (ne > 0 && EtE.norm() > 0 && waa > 0) ? epsilon * EtE.norm() / waa : 1.0;
      qp.H = EtE + eps_abs * W_aa;
      qp.g = W_ea.transpose() * de_free;
      qp.g_terms = W_ea.cwiseAbs().transpose() * de_free.cwiseAbs();  // g's round-off scale
      qp.lower.resize(na);
      qp.upper.resize(na);
      qp.A = W_aa;
      qp.a_lower.resize(na);
      qp.a_upper.resize(na);
      for (Eigen::Index j = 0; j < na; ++j) {
        const auto& lb = lambda_bounds[static_cast<size_t>(j)];
        const auto& db = delta_bounds[static_cast<size_t>(j)];
        qp.lower(j) = lb.lo;
        qp.upper(j) = lb.hi;
        qp.a_lower(j) = db.lo - da_free(j);
        qp.a_upper(j) = db.hi - da_free(j);
        const std::string& who = constraints_[static_cast<size_t>(rs.owner[static_cast<size_t>(rs.actuators[static_cast<size_t>(j)])])]->name();
        qp.variable_names.push_back(who + " force/pressure");
        qp.row_names.push_back(who + " displacement/volume growth");
      }
      QpOptions qo;
      qo.max_iterations = options_.qp_max_iterations;
      QpResult res;
      try {
        res = solve_qp(qp, qo, &warm_);
      } catch (const Error& e) {
        // W_aa = J_a K^-1 J_a^T is positive definite when K is; an indefinite tangent (a state
        // far from equilibrium, or past a limit point) can make it indefinite.
        SOFTIK_CHECK_NUMERICAL(!solver_.info().indefinite,
                               "InverseSolver: the tangent stiffness at this state is indefinite, so the "
                               "constraint-space QP is not convex ("
                                   << e.what()
                                   << "); approach the goals in smaller steps (effector max_shift, actuator rate "
                                      "limits) or use the converged solve(), which follows a continuation path");
        throw;
      }
      warm_ = res.active_set;
      rep.status = res.status;
      rep.solver_iterations = res.iterations;
      rep.kkt_residual = res.kkt.max();
      rep.message = res.message;
      if (res.status == QpStatus::Unbounded) {
        // No answer to apply: the actuation stays where it was (within its bounds), and the
        // message names the actuators that need a bound.
        for (Eigen::Index j = 0; j < na; ++j)
          lambda(j) = std::clamp(lambda(j), lambda_bounds[static_cast<size_t>(j)].lo, lambda_bounds[static_cast<size_t>(j)].hi);
        rep.message = inverse_detail::unbounded_message(res, actuator_names, lambda_bounds);
      } else {
        lambda = res.x.array() + 0.0;  // + 0.0: no "-0" pressure in the outputs
      }
    }
  }
  {
    const std::string idle_note = inverse_detail::idle_actuators_message(idle, actuator_names);
    if (!idle_note.empty()) rep.message += (rep.message.empty() ? "" : "; ") + idle_note;
  }
  inverse_detail::require_finite(lambda.data(), static_cast<size_t>(na), "the actuation lambda", actuator_name,
                                 "the constraint-space solve returned it; check the actuators' bounds");
  rep.t_constraint_solve = seconds_since(t0);

  // Step III: x <- x + K_t^-1 (rhs + J_a^T lambda_a) = x + K_t^-1 B c with c = e_0 + sum_a lambda_a e_a;
  // with the low-rank part c_U = -M G_U: c (Woodbury). Then dx = Z c on the full path, and
  // dx = P^T L^-T Z c on the half path (one backward solve of one column).
  t0 = Clock::now();
  Eigen::VectorXd c = Eigen::VectorXd::Zero(nb);
  c(0) = 1;
  for (Eigen::Index j = 0; j < na; ++j) c(1 + rs.actuators[static_cast<size_t>(j)]) = lambda(j);
  if (nr > 0) c.tail(nr) = -M * (G.bottomLeftCorner(nr, m + 1) * c.head(m + 1));
  Eigen::VectorXd dx(nf);
  if (half)
    solver_.backward_combination(c.data(), dx.data());  // P^T L^-T (Z c)
  else
    dx = Z * c;
  // Checked before anything is changed: a failed update leaves x and lambda as they were.
  std::vector<size_t> dof_of_free(static_cast<size_t>(nf));
  for (size_t k = 0; k < ndof; ++k)
    if (free[k] >= 0) dof_of_free[static_cast<size_t>(free[k])] = k;
  inverse_detail::require_finite(
      dx.data(), static_cast<size_t>(nf), "the displacement update dx",
      [&](size_t i) { return "DOF " + std::to_string(dof_of_free[i]) + " (node " + std::to_string(dof_of_free[i] / 3) + ")"; },
      solve_hint);
  std::vector<Real> x_new = x;
  for (size_t k = 0; k < ndof; ++k)
    if (free[k] >= 0) x_new[k] += dx(free[k]);
  inverse_detail::require_finite(
      x_new.data(), ndof, "the updated positions x",
      [](size_t k) { return "DOF " + std::to_string(k) + " (node " + std::to_string(k / 3) + ")"; },
      "the step is too large for double precision; bound the actuators");
  rep.effector_error = (de_free + W_ea * lambda).norm();
  const Eigen::VectorXd delta_a = da_free + W_aa * lambda;
  inverse_detail::require_finite(&rep.effector_error, 1, "the predicted effector error", [](size_t) { return std::string("the effectors"); },
                                 "the step is too large for double precision; bound the actuators");
  inverse_detail::require_finite(delta_a.data(), static_cast<size_t>(na), "the predicted actuator displacement",
                                 actuator_name, "the step is too large for double precision; bound the actuators");
  x = std::move(x_new);
  for (Eigen::Index j = 0; j < na; ++j) lambda_[static_cast<size_t>(j)] = lambda(j);
  rep.lambda = lambda_;
  rep.actuator_delta.assign(delta_a.data(), delta_a.data() + na);
  accept_all(x);  // outputs and rate windows re-centre on the new state
  // The constraints' outputs (pressures, volumes, positions, effector errors) at the new state.
  for (const auto& con : constraints_)
    for (const auto& [key, value] : con->outputs())
      SOFTIK_CHECK_NUMERICAL(std::isfinite(value), "InverseSolver: output '" << key << "' of constraint '" << con->name()
                                                                            << "' is not finite (" << value
                                                                            << ") after the step");
  rep.t_update = seconds_since(t0);
  return rep;
}

void InverseSolver::accept_all(const std::vector<Real>& x) {
  size_t a = 0;
  for (const auto& c : constraints_) {
    if (c->role() == ConstraintRole::Actuator) {
      c->accept(assembler_.mesh(), x, lambda_.data() + a);
      a += static_cast<size_t>(c->num_rows());
    } else {
      c->accept(assembler_.mesh(), x, nullptr);
    }
  }
}

}  // namespace softik
