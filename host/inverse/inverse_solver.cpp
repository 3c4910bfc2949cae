// The real-time inverse step (inverse.hpp; docs/method.md 8.2, Steps I-III); the converged solve is in
// inverse_converged_solve.cpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>

#include "host/inverse/constraint_space_solve.hpp"
#include "host/inverse/inverse_checks.hpp"
#include "host/inverse/inverse_contact.hpp"
#include "host/inverse/kept_columns.hpp"
#include "host/linear/woodbury.hpp"
#include "host/loads/pressure_evaluator.hpp"
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

}  // namespace

InverseSolver::InverseSolver(const Assembler& assembler, LinearSolver& solver, Loads external, InverseOptions options)
    : assembler_(assembler), solver_(solver), external_(std::move(external)), options_(options) {
  SOFTIK_CHECK(assembler_.mesh().dim == 3, "InverseSolver: the inverse problem needs a 3D mesh");
  SOFTIK_CHECK(external_.prescribed.empty(),
               "InverseSolver: prescribed displacements are not supported; put the fixed DOFs at their positions in x");
  SOFTIK_CHECK(
      external_.nodal.empty() || external_.nodal.size() == static_cast<size_t>(assembler_.num_dofs()),
      "InverseSolver: the nodal load has " << external_.nodal.size() << " entries, expected " << assembler_.num_dofs());
  SOFTIK_CHECK(
      options_.epsilon > 0 && options_.epsilon_min > 0,
      "InverseSolver: the energy weights epsilon and epsilon_min must be > 0 (they make the QP strictly convex)");
  for (const PressureLoad& p : external_.pressures) {
    SOFTIK_CHECK_KIND(p.control == CavityControl::Pressure, ErrorKind::Unsupported,
                      "InverseSolver: external pressure load '"
                          << p.name << "' has control = " << cavity_control_name(p.control)
                          << "; the inverse solver's external loads are given pressures (solve_static handles it)");
    external_pressure_.push_back(make_pressure_evaluator(p, assembler_.mesh(), assembler_.options().backend));
  }
}

void InverseSolver::add(std::shared_ptr<Constraint> constraint) {
  SOFTIK_CHECK(constraint, "InverseSolver::add: null constraint");
  for (const auto& c : constraints_)
    SOFTIK_CHECK(c->name() != constraint->name(),
                 "InverseSolver::add: two constraints are named '" << c->name() << "'; give each a unique name");
  constraint->use_backend(assembler_.mesh(), assembler_.options().backend);
  if (constraint->role() == ConstraintRole::Actuator) lambda_.insert(lambda_.end(), constraint->num_rows(), 0.0);
  constraints_.push_back(std::move(constraint));
  warm_ = QpActiveSet{};
}

InverseStepReport InverseSolver::step(std::vector<Real>& x) {
  SOFTIK_CHECK(options_.reuse_factorization >= 0,
               "InverseSolver: reuse_factorization must be >= 0, got " << options_.reuse_factorization);
  return step_with(x, options_.epsilon, options_.actuator_stiffness, nullptr, options_.reuse_factorization);
}

namespace detail {

/// One real-time step (InverseSolver::step_with) as docs/method.md 8.2 writes it, one function per step:
///   assemble()                the state at x: f(x), K(x), the external load and the constraint
///                             rows J, delta (drawn along solve()'s continuation path);
///   free_configuration()      Steps I-II: factorise K once, and solve with the columns
///                             B = [f + f_ext, J^T, U] for the Gram matrix G = B^T K^-1 B;
///   constraint_space()        the projection: W = J K_t^-1 J^T and delta_free (Woodbury with the
///                             cables' low-rank stiffness K_t = K + U C U^T);
///   solve_constraint_problem() the QP (or Gauss-Seidel, or the imposed inputs) for lambda_a;
///   correct()                 Step III: x <- x + K_t^-1 (f + f_ext + J_a^T lambda_a).
class InverseStep {
 public:
  InverseStep(InverseSolver& solver, Real epsilon, bool actuator_stiffness, const InverseSolver::Continuation* path,
              int reuse)
      : s_(solver),
        epsilon_(epsilon),
        actuator_stiffness_(actuator_stiffness),
        path_(path),
        reuse_(reuse),
        free_(solver.assembler_.free_dof_index()),
        ndof_(static_cast<size_t>(solver.assembler_.num_dofs())),
        nf_(solver.assembler_.num_free_dofs()) {}

  InverseStepReport run(std::vector<Real>& x) {
    SOFTIK_CHECK(x.size() == ndof_, "InverseSolver::step: x has " << x.size() << " entries, expected " << ndof_);
    for (size_t k = 0; k < ndof_; ++k)
      SOFTIK_CHECK(std::isfinite(x[k]), "InverseSolver::step: the positions x hold " << x[k] << " at DOF " << k
                                                                                     << " (node " << k / 3 << ")");
    auto t0 = Clock::now();
    try {
      assemble(x);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Numerical) throw;
      explain_inadmissible(e, x);
    }
    rep_.t_assembly = seconds_since(t0);
    free_configuration();  // times itself: factorisation and solves
    t0 = Clock::now();
    constraint_space();
    solve_constraint_problem();
    rep_.t_constraint_solve = seconds_since(t0);
    t0 = Clock::now();
    correct(x);
    rep_.t_update = seconds_since(t0);
    return rep_;
  }

 private:
  /// The assembler refused x (an inverted cell): rethrows with what drove the body there, the
  /// actuation and the bounds it lacks (inverse_checks.hpp), instead of the static solver's advice.
  [[noreturn]] void explain_inadmissible(const Error& e, const std::vector<Real>& x) const {
    std::vector<std::string> names;
    std::vector<Interval> bounds;
    try {
      std::vector<ConstraintRow> rows;
      for (const auto& c : s_.constraints_) {
        if (c->role() != ConstraintRole::Actuator) continue;
        rows.clear();
        c->rows(s_.assembler_.mesh(), x, rows);
        for (const ConstraintRow& r : rows) {
          names.push_back(c->name());
          bounds.push_back(r.lambda_bounds);
        }
      }
    } catch (const Error&) {
      throw e;  // the rows cannot be evaluated there either: the assembler's words alone
    }
    SOFTIK_CHECK_NUMERICAL(false, inverse_detail::inadmissible_state_message(e.what(), names, s_.lambda_, bounds));
    throw e;  // not reached
  }

  // ---- assemble(): the system at x ---------------------------------------------------------
  void assemble(const std::vector<Real>& x) {
    const Assembler& assembler = s_.assembler_;
    // With reuse > 0 the factorisation of an earlier step may be kept (a chord step; the rule is
    // below, once the residual is known); K is then assembled only in a second pass, when needed.
    // GPU assembly + GPU solver: K stays in device memory (d_K_) unless the actuators' stiffness
    // is added to it on the host.
    device_K_ = !actuator_stiffness_ && stiffness_stays_on_device(assembler, s_.solver_);
    if (device_K_ && reuse_ == 0)
      d_K_ = assembler.assemble_on_device(x, nullptr, &f_);
    else
      assembler.assemble(x, nullptr, &f_, reuse_ == 0 ? &K_ : nullptr);
    f_ext_ = s_.external_.nodal.empty() ? std::vector<Real>(ndof_, 0.0) : s_.external_.nodal;
    for (size_t k = 0; k < s_.external_.pressures.size(); ++k)
      s_.external_pressure_[k]->add_forces(s_.external_.pressures[k].pressure, x, f_ext_);
    gather_rows(x);
    equilibrium();
    decide_refactorisation(x);
  }

  /// The rows of every constraint at x, grouped by role, drawn along the continuation path,
  /// with their delta bounds clipped to the rate windows and their free-DOF Jacobian J^T.
  void gather_rows(const std::vector<Real>& x) {
    const Mesh& mesh = s_.assembler_.mesh();
    for (size_t c = 0; c < s_.constraints_.size(); ++c) {
      const size_t before = rows_.size();
      s_.constraints_[c]->rows(mesh, x, rows_);
      SOFTIK_CHECK(rows_.size() - before == static_cast<size_t>(s_.constraints_[c]->num_rows()),
                   "constraint '" << s_.constraints_[c]->name() << "' returned a wrong number of rows");
      for (size_t r = before; r < rows_.size(); ++r) {
        owner_.push_back(static_cast<int>(c));
        const int ri = static_cast<int>(r);
        switch (s_.constraints_[c]->role()) {
          case ConstraintRole::Actuator:
            actuators_.push_back(ri);
            break;
          case ConstraintRole::Effector:
            effectors_.push_back(ri);
            break;
          case ConstraintRole::Sensor:
            break;
        }
      }
    }
    if (path_ && path_->s < 1) {  // solve()'s continuation: the problem at s (inverse.hpp)
      SOFTIK_CHECK(path_->delta_start.size() == rows_.size() && path_->lambda_start.size() == actuators_.size(),
                   "InverseSolver: the constraint rows changed during solve()");
      const Real s = path_->s;
      // Only imposed values (equal bounds) are drawn: an inequality range such as [0, P_max] is
      // left as it is, so that an intermediate goal may use all of it.
      auto draw = [s](Interval& i, Real start) {
        if (i.lo == i.hi) i.lo = i.hi = start + s * (i.lo - start);
      };
      for (int r : effectors_)
        rows_[static_cast<size_t>(r)].delta -= (1 - s) * path_->delta_start[static_cast<size_t>(r)];
      for (size_t a = 0; a < actuators_.size(); ++a) {
        ConstraintRow& row = rows_[static_cast<size_t>(actuators_[a])];
        draw(row.lambda_bounds, path_->lambda_start[a]);
        draw(row.delta_bounds, path_->delta_start[static_cast<size_t>(actuators_[a])]);
      }
    }
    // The delta bounds of a step: the absolute bounds (drawn above on a continuation path) within
    // the rate window around the current value (which is never drawn). An empty intersection
    // makes the QP infeasible, reported as such.
    for (int a : actuators_) {
      ConstraintRow& row = rows_[static_cast<size_t>(a)];
      row.delta_bounds.lo = std::max(row.delta_bounds.lo, row.delta_window.lo);
      row.delta_bounds.hi = std::min(row.delta_bounds.hi, row.delta_window.hi);
    }
    // Contacts (set_contact): their rows after the constraints', detected within the alarm
    // distance widened by the last step's largest motion.
    first_contact_ = static_cast<int>(rows_.size());
    if (s_.has_contact_) {
      std::vector<int> reach;
      for (const ContactForceTarget& t : s_.force_targets_) reach.push_back(s_.obstacle_index(t.obstacle));
      contacts_ = inverse_detail::detect_step_contacts(s_.contact_, s_.contact_nodes_, x,
                                                       s_.contact_.alarm_distance + s_.last_motion_, reach,
                                                       s_.contacts_, s_.contact_lambda_, s_.contact_state_, rows_);
    }
    m_ = static_cast<Eigen::Index>(rows_.size());
    for (int r : actuators_) actuator_names_.push_back(constraint_of(static_cast<size_t>(r)).name());
  }

  /// rhs = f + f_ext on the free DOFs, and the equilibrium residual with the current actuation
  /// (what solve() drives to zero) against its force scale.
  void equilibrium() {
    rhs_.resize(nf_);
    Real ext = 0, reaction = 0;
    for (size_t k = 0; k < ndof_; ++k) {
      const int row = free_[k];
      if (row >= 0) {
        rhs_(row) = f_[k] + f_ext_[k];
        ext += f_ext_[k] * f_ext_[k];
      } else {
        reaction += f_[k] * f_[k];
      }
    }
    // eq = rhs + J_a^T lambda_a + J_c^T lambda_c: the rows touch few DOFs.
    Eigen::VectorXd eq = rhs_;
    Real applied = 0;
    auto apply = [&](Eigen::Index r, Real lambda) {
      add_row(r, lambda, eq);
      applied += lambda * lambda * row_squared_norm(r);
    };
    for (size_t a = 0; a < actuators_.size(); ++a) apply(actuators_[a], s_.lambda_[a]);
    for (Eigen::Index r = 0; r < contacts_.lambda_previous.size(); ++r)
      apply(first_contact_ + r, contacts_.lambda_previous(r));
    rep_.equilibrium_residual = eq.norm();
    rep_.force_scale = std::max({std::sqrt(applied), std::sqrt(ext), std::sqrt(reaction)});
  }

  /// v += scale * (column r of J^T on the free DOFs), from the row's sparse J.
  template <class Vector>
  void add_row(Eigen::Index r, Real scale, Vector&& v) const {
    for (const auto& [dof, value] : rows_[static_cast<size_t>(r)].J) {
      const int row = free_[static_cast<size_t>(dof)];
      if (row >= 0) v(row) += scale * value;
    }
  }

  /// |column r of J^T on the free DOFs|^2 (entries of one DOF summed first, as in the column).
  Real row_squared_norm(Eigen::Index r) const {
    std::vector<std::pair<int, Real>> column;
    for (const auto& [dof, value] : rows_[static_cast<size_t>(r)].J) {
      const int row = free_[static_cast<size_t>(dof)];
      if (row >= 0) column.emplace_back(row, value);
    }
    auto by_row = [](const auto& a, const auto& b) { return a.first < b.first; };
    if (!std::is_sorted(column.begin(), column.end(), by_row)) std::sort(column.begin(), column.end(), by_row);
    Real sum = 0;
    for (size_t i = 0; i < column.size();) {
      Real entry = 0;
      const int row = column[i].first;
      for (; i < column.size() && column[i].first == row; ++i) entry += column[i].second;
      sum += entry * entry;
    }
    return sum;
  }

  /// Whether this step factorises K (else an earlier factor is reused: a chord step), K's second
  /// assembly when it does, and the actuators' stiffness (into K, and as U C U^T).
  void decide_refactorisation(const std::vector<Real>& x) {
    const Real relative_residual = rep_.relative_residual();
    // Near equilibrium only (relative residual below kReuseResidual), where a chord step
    // contracts, and not after a step that let the residual grow tenfold (at the residual
    // tolerance round-off may do anything).
    const bool growing =
        relative_residual > 10 * s_.last_relative_residual_ && relative_residual > s_.options_.residual_tolerance;
    refactor_ = reuse_ == 0 || !s_.factor_valid_ || s_.factor_age_ >= reuse_ || !(relative_residual < kReuseResidual) ||
                growing;
    s_.last_relative_residual_ = relative_residual;
    if (refactor_ && reuse_ > 0) {
      if (device_K_)
        d_K_ = s_.assembler_.assemble_on_device(x, nullptr, nullptr);
      else
        s_.assembler_.assemble(x, nullptr, nullptr, &K_);
    }
    rep_.refactored = refactor_;
    if (actuator_stiffness_) {
      size_t a = 0;
      for (const auto& c : s_.constraints_)
        if (c->role() == ConstraintRole::Actuator) {
          if (refactor_) c->add_stiffness(s_.assembler_, x, s_.lambda_.data() + a, K_);
          c->add_low_rank_stiffness(x, s_.lambda_.data() + a, low_rank_);
          a += static_cast<size_t>(c->num_rows());
        }
    }
    nr_ = static_cast<Eigen::Index>(low_rank_.columns.size());  // rank of U C U^T
    SOFTIK_CHECK(3 * low_rank_.blocks.size() == low_rank_.columns.size(),
                 "InverseSolver: a low-rank stiffness needs one 3x3 block per three columns");
  }

  // ---- free_configuration(): Steps I-II --------------------------------------------------------
  /// Factorisation (once per step, unless reused) and the solves with B = [rhs, J^T, U], all
  /// columns in one call:
  ///   half: K = P^T L L^T P and Z = L^-1 P B   (forward solves only),  G = Z^T Z;
  ///   full: Z = K^-1 B,                                               G = B^T Z;
  /// either way the Gram matrix G = B^T K^-1 B.
  void free_configuration() {
    auto t0 = Clock::now();
    LinearSolver& solver = s_.solver_;
    if (!s_.analyzed_) {
      solver.analyze(s_.assembler_.pattern());
      s_.analyzed_ = true;
    }
    if (refactor_) {
      s_.factor_valid_ = false;  // until factorize() returns
      if (d_K_)
        solver.factorize_device(d_K_);
      else
        solver.factorize(K_);
      s_.factor_valid_ = true;
      s_.factor_age_ = 0;
    }
    ++s_.factor_age_;
    rep_.t_factorization = seconds_since(t0);
    half_ = s_.options_.half_solves && solver.has_cholesky_factor();
    rep_.half_solves = half_;
    t0 = Clock::now();
    nb_ = m_ + 1 + nr_;
    B_ = Eigen::MatrixXd::Zero(nf_, nb_);
    Z_.resize(nf_, half_ ? 0 : nb_);
    B_.col(0) = rhs_;
    for (Eigen::Index r = 0; r < m_; ++r) add_row(r, 1.0, B_.col(1 + r));  // J^T
    for (Eigen::Index k = 0; k < nr_; ++k)
      for (const auto& [dof, v] : low_rank_.columns[static_cast<size_t>(k)]) {
        const int row = free_[static_cast<size_t>(dof)];
        if (row >= 0) B_(row, 1 + m_ + k) += v;
      }
    G_.resize(nb_, nb_);
    // While a factorisation is kept, the chord steps reuse the constraint rows' solves
    // (kept_columns.hpp): forward solves on a host solver's half path, full solves on the full
    // path (a GPU solver without a Cholesky factor: cuDSS). A GPU solver's half path keeps Z on
    // the device instead (forward_gram).
    keep_ = reuse_ > 0 && (!half_ || !solver.accepts_device_values());
    if (!keep_) s_.kept_rows_ = -1;
    if (keep_)
      rep_.kept_columns = inverse_detail::solve_with_kept_columns(
          solver, half_ ? inverse_detail::KeptSolve::Forward : inverse_detail::KeptSolve::Full, refactor_,
          first_contact_, inverse_detail::KeptColumns{s_.kept_Jt_, s_.kept_Z_, s_.kept_rows_}, B_, Z_, G_);
    else if (half_)  // Z = L^-1 P B stays with the solver (on the device for GPU solvers), G = Z^T Z
      solver.forward_gram(B_.data(), static_cast<int>(nf_), static_cast<int>(nb_), G_.data());
    else
      solver.solve(B_.data(), Z_.data(), static_cast<int>(nb_));
    rep_.t_solves = seconds_since(t0);
  }

  // ---- constraint_space(): the projection ------------------------------------------------------
  /// With the tangent K_t = K + U C U^T (Woodbury):
  ///   a^T K_t^-1 b = a^T K^-1 b - (a^T K^-1 U) M (U^T K^-1 b),  M = (I + C U^T K^-1 U)^-1 C,
  /// so W = J K_t^-1 J^T and J dx_free = J K_t^-1 rhs are blocks of G_t = G - G_:U M G_U: .
  void constraint_space() {
    if (!half_) {  // G = B^T Z over blocks of rows: B and Z are read once (nb columns of n_free rows each)
      constexpr Eigen::Index kRows = 256;
      G_.setZero();
      for (Eigen::Index r0 = 0; r0 < nf_; r0 += kRows) {
        const Eigen::Index rows = std::min(kRows, nf_ - r0);
        G_.noalias() += B_.middleRows(r0, rows).transpose() * Z_.middleRows(r0, rows);
      }
    }
    if (nr_ > 0) {
      M_ = detail::woodbury_middle(
          detail::low_rank_blocks(low_rank_), G_.bottomRightCorner(nr_, nr_), ErrorKind::Input,
          "InverseSolver: the tangent K + U C U^T with the cables' stiffness is singular",
          "; a cable under negative tension (min_force < 0) can do this: keep cable forces >= 0");
    }
    Eigen::MatrixXd Gt = G_.topLeftCorner(m_ + 1, m_ + 1);
    if (nr_ > 0) Gt -= G_.topRightCorner(m_ + 1, nr_) * M_ * G_.bottomLeftCorner(nr_, m_ + 1);
    W_ = Gt.bottomRightCorner(m_, m_);
    delta_free_ = Gt.col(0).tail(m_);
    for (Eigen::Index r = 0; r < m_; ++r) delta_free_(r) += rows_[static_cast<size_t>(r)].delta;
    // No NaN or infinity goes on (docs/method.md section 8.2): name the constraint whose row has one.
    auto row_name = [&](size_t r) {
      return r < static_cast<size_t>(first_contact_) ? "the row of constraint '" + constraint_of(r).name() + "'"
                                                     : "the row of the " + contacts_.names[contact_of(r)];
    };
    for (Eigen::Index c = 0; c < m_; ++c)
      inverse_detail::require_finite(W_.col(c).data(), static_cast<size_t>(m_), "the constraint-space compliance W",
                                     row_name, kSolveHint);
    inverse_detail::require_finite(delta_free_.data(), static_cast<size_t>(m_), "the free violation delta_free",
                                   row_name, kSolveHint);
    // Effector-actuator couplings at round-off level are zero (inverse_checks.hpp).
    idle_ = inverse_detail::clean_round_off_couplings(W_, effectors_, actuators_);
    rep_.W.assign(W_.data(), W_.data() + W_.size());  // symmetric: row- and column-major alike
  }

  // ---- solve_constraint_problem(): lambda_a --------------------------------------------------
  /// The QP, Gauss-Seidel, the imposed inputs, or with contacts the complementarity problem
  /// (constraint_space_solve.hpp).
  void solve_constraint_problem() {
    const Eigen::Index na = static_cast<Eigen::Index>(actuators_.size());
    for (int r : actuators_) {
      lambda_bounds_.push_back(rows_[static_cast<size_t>(r)].lambda_bounds);
      delta_bounds_.push_back(rows_[static_cast<size_t>(r)].delta_bounds);
    }
    const inverse_detail::ContactSpace space{
        W_,       delta_free_, actuators_, effectors_, first_contact_, lambda_bounds_, delta_bounds_, actuator_names_,
        contacts_};
    const inverse_detail::ConstraintSpaceSettings settings{
        s_.options_, s_.contact_,    s_.force_targets_,           s_.constraints_,
        epsilon_,    s_.model_size_, s_.solver_.info().indefinite};
    inverse_detail::ConstraintSpaceAnswer answer = inverse_detail::solve_constraint_space(
        space, settings, idle_, Eigen::Map<const Eigen::VectorXd>(s_.lambda_.data(), na), s_.warm_, rep_);
    lambda_ = std::move(answer.lambda_a);
    lambda_c_ = std::move(answer.lambda_c);
    contact_states_ = std::move(answer.states);
  }

  // ---- correct(): Step III ---------------------------------------------------------------------
  /// x <- x + K_t^-1 (rhs + J_a^T lambda_a) = x + K_t^-1 B c with c = e_0 + sum_a lambda_a e_a; with
  /// the low-rank part c_U = -M G_U: c (Woodbury). Then dx = Z c on the full path, and
  /// dx = P^T L^-T Z c on the half path (one backward solve of one column). Everything is checked
  /// before anything changes: a failed update leaves x and lambda as they were.
  void correct(std::vector<Real>& x) {
    const Eigen::Index na = lambda_.size();
    Eigen::VectorXd c = Eigen::VectorXd::Zero(nb_);
    c(0) = 1;
    for (Eigen::Index j = 0; j < na; ++j) c(1 + actuators_[static_cast<size_t>(j)]) = lambda_(j);
    for (Eigen::Index r = 0; r < lambda_c_.size(); ++r) c(1 + first_contact_ + r) = lambda_c_(r);
    if (nr_ > 0) c.tail(nr_) = -M_ * (G_.bottomLeftCorner(nr_, m_ + 1) * c.head(m_ + 1));
    Eigen::VectorXd dx(nf_);
    if (keep_ && half_) {
      const Eigen::VectorXd z = Z_ * c;
      s_.solver_.solve_backward(z.data(), dx.data(), 1);  // P^T L^-T (Z c)
    } else if (half_)
      s_.solver_.backward_combination(c.data(), dx.data());  // P^T L^-T (Z c)
    else
      dx = Z_ * c;
    inverse_detail::require_finite(
        dx.data(), static_cast<size_t>(nf_), "the displacement update dx",
        [&](size_t i) {  // the DOF of free row i (looked up on failure only)
          const size_t dof =
              static_cast<size_t>(std::find(free_.begin(), free_.end(), static_cast<int>(i)) - free_.begin());
          return "DOF " + std::to_string(dof) + " (node " + std::to_string(dof / 3) + ")";
        },
        kSolveHint);
    std::vector<Real> x_new = x;
    for (size_t k = 0; k < ndof_; ++k)
      if (free_[k] >= 0) x_new[k] += dx(free_[k]);
    const std::string too_large = "the step is too large for double precision; bound the actuators";
    inverse_detail::require_finite(
        x_new.data(), ndof_, "the updated positions x",
        [](size_t k) { return "DOF " + std::to_string(k) + " (node " + std::to_string(k / 3) + ")"; }, too_large);
    // The linearised constraint values after the step: delta = delta_free + W (lambda_a, lambda_c).
    const Eigen::VectorXd delta = delta_free_ + W_ * c.segment(1, m_);
    Eigen::VectorXd delta_a(na);
    for (Eigen::Index j = 0; j < na; ++j) delta_a(j) = delta(actuators_[static_cast<size_t>(j)]);
    Real error2 = 0;
    for (int e : effectors_) error2 += delta(e) * delta(e);
    rep_.effector_error = std::sqrt(error2);
    inverse_detail::require_finite(
        &rep_.effector_error, 1, "the predicted effector error", [](size_t) { return std::string("the effectors"); },
        too_large);
    inverse_detail::require_finite(delta_a.data(), static_cast<size_t>(na), "the predicted actuator displacement",
                                   actuator_name(), too_large);
    if (s_.has_contact_) accept_contacts(x, x_new);
    x = std::move(x_new);
    for (Eigen::Index j = 0; j < na; ++j) s_.lambda_[static_cast<size_t>(j)] = lambda_(j);
    rep_.lambda = s_.lambda_;
    rep_.actuator_delta.assign(delta_a.data(), delta_a.data() + na);
    s_.accept_all(x);  // outputs and rate windows re-centre on the new state
    // The constraints' outputs (pressures, volumes, positions, effector errors) at the new state.
    for (const auto& con : s_.constraints_)
      for (const auto& [key, value] : con->outputs())
        SOFTIK_CHECK_NUMERICAL(std::isfinite(value), "InverseSolver: output '" << key << "' of constraint '"
                                                                               << con->name() << "' is not finite ("
                                                                               << value << ") after the step");
  }

  /// The contacts of the step become the solver's (contact_outcome: the report, the penetration
  /// at the new positions, the largest node motion that widens the next detection).
  void accept_contacts(const std::vector<Real>& x, const std::vector<Real>& x_new) {
    inverse_detail::contact_outcome(contacts_, lambda_c_, contact_states_, s_.contact_, s_.contact_nodes_, x, x_new,
                                    s_.contact_lambda_, s_.contact_state_, rep_, s_.last_motion_);
    s_.contacts_ = contacts_.points;
  }

  // ---- helpers -------------------------------------------------------------------------------
  const Constraint& constraint_of(size_t row) const { return *s_.constraints_[static_cast<size_t>(owner_[row])]; }
  /// The contact whose row is `row` (row >= first_contact_).
  size_t contact_of(size_t row) const {
    const int r = static_cast<int>(row) - first_contact_;
    size_t i = 0;
    while (i + 1 < contacts_.layout.size() && contacts_.layout[i + 1].row <= r) ++i;
    return i;
  }
  std::function<std::string(size_t)> actuator_name() const {
    return [this](size_t j) { return "actuator '" + actuator_names_[j] + "'"; };
  }

  static constexpr const char* kSolveHint =
      "the solves with the stiffness matrix failed silently (a singular or badly scaled K, or a state far from "
      "equilibrium); take smaller steps or check the fixed DOFs and the material";

  InverseSolver& s_;
  const Real epsilon_;
  const bool actuator_stiffness_;
  const InverseSolver::Continuation* path_;
  const int reuse_;
  const std::vector<int>& free_;
  const size_t ndof_;
  const Eigen::Index nf_;
  InverseStepReport rep_;
  // assemble()
  std::vector<Real> f_, K_, f_ext_;
  bool device_K_ = false;
  exec::DeviceView<const Real> d_K_;  ///< K in device memory (GPU assembly + GPU solver)
  std::vector<ConstraintRow> rows_;
  std::vector<int> actuators_, effectors_;   ///< row indices by role
  std::vector<int> owner_;                   ///< constraint of each row
  std::vector<std::string> actuator_names_;  ///< per actuator row
  Eigen::Index m_ = 0;
  Eigen::VectorXd rhs_;
  bool refactor_ = true;
  int first_contact_ = 0;  ///< the first contact row (rows after it are contacts')
  inverse_detail::StepContacts contacts_;
  LowRankStiffness low_rank_;  ///< K_c = U C U^T
  Eigen::Index nr_ = 0;
  // free_configuration()
  bool half_ = false;
  bool keep_ = false;  ///< kept constraint columns (Z_ holds Z = L^-1 P B on the half path, K^-1 B on the full)
  Eigen::Index nb_ = 0;
  Eigen::MatrixXd B_, Z_, G_;
  // constraint_space()
  Eigen::MatrixXd M_, W_;
  Eigen::VectorXd delta_free_;
  std::vector<bool> idle_;
  // solve_constraint_problem()
  std::vector<Interval> lambda_bounds_, delta_bounds_;
  Eigen::VectorXd lambda_;
  Eigen::VectorXd lambda_c_;  ///< contact forces, per contact row
  std::vector<inverse_detail::ContactState> contact_states_;
};

}  // namespace detail

InverseStepReport InverseSolver::step_with(std::vector<Real>& x, Real epsilon, bool actuator_stiffness,
                                           const Continuation* path, int reuse) {
  return detail::InverseStep(*this, epsilon, actuator_stiffness, path, reuse).run(x);
}

void InverseSolver::accept_all(const std::vector<Real>& x) {
  inverse_detail::accept_constraints(constraints_, assembler_.mesh(), x, lambda_.data());
}

}  // namespace softik
