// DynamicSolver, the constraint half of a step (docs/method.md 9.1, [17]): the pairs near at the
// free positions (host/contact/contact_detection.hpp), the compliance W = H A^-1 H^T with the tangent A of the free
// motion, the frictional contact solve and the correction x = x_free + A^-1 H^T lambda (dynamics.hpp, contact.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <sstream>
#include <tuple>

#include "host/contact/contact_setup.hpp"
#include "host/contact/contact_solvers.hpp"
#include "host/dynamics/dynamic_solver_impl.hpp"
#include "softik/error.hpp"
#include "softik/mesh.hpp"

namespace softik {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

void DynamicSolver::Impl::warn_initial_penetration() {
  if (!has_contact()) return;
  const std::string w =
      detection.initial_penetration_warning(options.contact, t, x, size, "the first steps push them out");
  if (!w.empty()) warnings.push_back(w);
}

std::vector<int> DynamicSolver::Impl::match_previous(const std::vector<ContactPoint>& near) const {
  auto key = [](const ContactPoint& p) {
    return std::make_tuple(p.node, p.obstacle, p.triangle[0], p.triangle[1], p.triangle[2]);
  };
  std::map<std::tuple<int, int, int, int, int>, int> previous;
  for (size_t k = 0; k < contacts.size() && 3 * k + 3 <= lambda.size(); ++k)
    previous[key(contacts[k])] = static_cast<int>(k);
  std::vector<int> out;
  for (const ContactPoint& p : near) {
    const auto it = previous.find(key(p));
    out.push_back(it == previous.end() ? -1 : it->second);
  }
  return out;
}

DynamicSolver::Impl::Compliance DynamicSolver::Impl::compliance(const Matrix& B) const {
  Compliance c;
  const Eigen::Index nfree = B.rows(), nb = B.cols();
  c.W.resize(nb, nb);
  // Forward solves only with a Cholesky factor: W = Z^T Z, Z = L^-1 P H^T.
  c.half = solver.has_cholesky_factor();
  if (c.half && nb > 0) {
    solver.forward_gram(B.data(), static_cast<int>(nfree), static_cast<int>(nb), c.W.data());
  } else if (nb > 0) {
    c.Y.resize(nfree, nb);
    solver.solve(B.data(), c.Y.data(), static_cast<int>(nb));
    c.W = B.transpose() * c.Y;
    c.W = 0.5 * (c.W + c.W.transpose()).eval();
  }
  // With the cables' low-rank stiffness (Woodbury, dynamic_solver_impl.hpp): W_t = W - G M G^T,
  // G = H A^-1 U.
  if (low_rank_Y.cols() > 0 && nb > 0) {
    c.G_HU = B.transpose() * low_rank_Y;
    c.W -= c.G_HU * low_rank_M * c.G_HU.transpose();
    c.W = 0.5 * (c.W + c.W.transpose()).eval();
  }
  return c;
}

DynamicSolver::Impl::Vector DynamicSolver::Impl::correction(const Compliance& c, const Vector& coefficients) const {
  Vector dx = Vector::Zero(assembler.num_free_dofs());
  if (coefficients.size() == 0) return dx;
  if (c.half)
    solver.backward_combination(coefficients.data(), dx.data());  // P^T L^-T (Z c)
  else
    dx = c.Y * coefficients;
  if (c.G_HU.size() > 0) dx -= low_rank_Y * (low_rank_M * (c.G_HU.transpose() * coefficients));
  return dx;
}

/// The contact pairs' constraint columns: B = H^T (free DOFs x 3 per pair, column-major), the
/// free violations delta_free (3 per pair) and the friction coefficients mu (one per pair).
struct DynamicSolver::Impl::ContactColumns {
  Vector delta_free;
  Matrix B;
  std::vector<Real> mu;
};

void DynamicSolver::Impl::correct(Real h, std::vector<Real>& x_free, DynamicStepReport& report) {
  auto clock = Clock::now();
  std::vector<Vec3r> free_delta;
  std::vector<ContactPoint> near = detection.near_pairs(options.contact, t, h, x, x_free, free_delta);
  report.seconds_detection += seconds_since(clock);
  const int nc = static_cast<int>(near.size());
  // A cut step's sub-steps: the largest counts and penetration, the last forces.
  report.contacts = std::max(report.contacts, nc);
  report.active_contacts = 0;
  report.normal_force = 0;
  report.contact_force.setZero();
  Vector lambda_next = warm_start(near);
  contacts = std::move(near);
  lambda.assign(static_cast<size_t>(3 * nc), 0.0);
  deltas.assign(static_cast<size_t>(3 * nc), 0.0);
  if (nc == 0) return;
  clock = Clock::now();
  const ContactColumns columns = contact_columns(free_delta);
  std::vector<int> live;
  const Compliance compliance_live = live_compliance(columns, live);
  Matrix W;
  Vector delta_solve;
  fill_dead_rows(compliance_live.W, live, columns.delta_free, W, delta_solve);
  report.seconds_compliance += seconds_since(clock);
  solve_contact(W, delta_solve, columns.mu, lambda_next, report);
  apply_correction(compliance_live, live, lambda_next, columns, x_free);
  record_contacts(h, x_free, report);
}

/// Warm start from the previous step's forces of the same pair (the normal force only: the frame
/// may have turned); 3 per pair of `near`.
DynamicSolver::Impl::Vector DynamicSolver::Impl::warm_start(const std::vector<ContactPoint>& near) const {
  const int nc = static_cast<int>(near.size());
  const std::vector<int> before = match_previous(near);
  Vector lambda_next = Vector::Zero(3 * nc);
  for (int k = 0; k < nc; ++k)
    if (before[static_cast<size_t>(k)] >= 0)  // the normal force only: the frame may have turned
      lambda_next[3 * k] = lambda[3 * static_cast<size_t>(before[static_cast<size_t>(k)])];
  return lambda_next;
}

/// delta_free and B = H^T (nfree x 3nc, column-major) of `contacts`.
DynamicSolver::Impl::ContactColumns DynamicSolver::Impl::contact_columns(const std::vector<Vec3r>& free_delta) const {
  const std::vector<int>& free = assembler.free_dof_index();
  const int nfree = assembler.num_free_dofs();
  const int nc = static_cast<int>(contacts.size());
  ContactColumns out;
  out.delta_free.resize(3 * nc);
  out.B = Matrix::Zero(nfree, 3 * nc);
  out.mu.resize(static_cast<size_t>(nc));
  std::vector<std::pair<int, Real>> entries;
  for (int k = 0; k < nc; ++k) {
    const ContactPoint& p = contacts[static_cast<size_t>(k)];
    out.mu[static_cast<size_t>(k)] = p.friction;
    out.delta_free.segment<3>(3 * k) = free_delta[static_cast<size_t>(k)];
    for (int r = 0; r < 3; ++r) {
      entries.clear();
      contact::append_contact_row(p, r, entries);
      for (const auto& [dof, value] : entries) {
        const int row = free[static_cast<size_t>(dof)];
        if (row >= 0) out.B(row, 3 * k + r) += value;
      }
    }
  }
  return out;
}

/// W = H A^-1 H^T over the rows that can carry a force: a row that moves no free DOF (a node
/// whose normal or tangent component is fixed: a symmetry plane, a roller) and the tangent rows
/// of a frictionless pair have lambda = 0, so only the other ("live") columns of H^T are solved
/// for (a third of the work without friction). Dead rows get W_rr = 1, no coupling and
/// delta_free_r = 0, which makes the solver's lambda_r 0 (fill_dead_rows).
DynamicSolver::Impl::Compliance DynamicSolver::Impl::live_compliance(const ContactColumns& columns,
                                                                     std::vector<int>& live) const {
  const Matrix& B = columns.B;
  const int nc = static_cast<int>(columns.mu.size());
  for (int r = 0; r < 3 * nc; ++r)
    if (B.col(r).squaredNorm() > 0 && (r % 3 == 0 || columns.mu[static_cast<size_t>(r / 3)] > 0)) live.push_back(r);
  const int nb = static_cast<int>(live.size());
  Matrix B_live(B.rows(), nb);
  for (int j = 0; j < nb; ++j) B_live.col(j) = B.col(live[static_cast<size_t>(j)]);
  Compliance compliance_live = compliance(B_live);
  contact::check_step_compliance(compliance_live.W,
                                 "dynamics contact");  // a Numerical error: the step is cut and retried
  return compliance_live;
}

/// The contact problem over every row: W and delta_solve hold the live rows' compliance W_live and
/// free violations. A dead row's W_rr is a live diagonal of the same scale (its pair's normal one,
/// else the mean live one), since the solver measures each pair's residual in units of 1 / max diag.
void DynamicSolver::Impl::fill_dead_rows(const Matrix& W_live, const std::vector<int>& live, const Vector& delta_free,
                                         Matrix& W, Vector& delta_solve) const {
  const int rows = static_cast<int>(delta_free.size()), nb = static_cast<int>(live.size());
  W = Matrix::Zero(rows, rows);
  delta_solve = Vector::Zero(rows);
  std::vector<char> is_live(static_cast<size_t>(rows), 0);
  for (int i = 0; i < nb; ++i) {
    const int r = live[static_cast<size_t>(i)];
    is_live[static_cast<size_t>(r)] = 1;
    delta_solve[r] = delta_free[r];
    for (int j = 0; j < nb; ++j) W(r, live[static_cast<size_t>(j)]) = W_live(i, j);
  }
  const Real mean_diag = nb > 0 ? W_live.diagonal().mean() : Real(1);
  for (int r = 0; r < rows; ++r)
    if (!is_live[static_cast<size_t>(r)])
      W(r, r) = is_live[static_cast<size_t>(r - r % 3)] ? W(r - r % 3, r - r % 3) : mean_diag;
}

/// The frictional contact solve for lambda_next (warm-started from it), and its report: a cut
/// step's sub-steps add up their iterations, and converge only together.
void DynamicSolver::Impl::solve_contact(const Matrix& W, const Vector& delta_solve, const std::vector<Real>& mu,
                                        Vector& lambda_next, DynamicStepReport& report) const {
  const auto clock = Clock::now();
  const ContactSolverReport solve = solve_frictional_contact(W, delta_solve, mu, lambda_next, options.contact.solver);
  report.seconds_contact_solve += seconds_since(clock);
  if (report.contact_solves == 0) {
    report.contact_solve = solve;
  } else {
    report.contact_solve.converged = report.contact_solve.converged && solve.converged;
    report.contact_solve.iterations += solve.iterations;
    report.contact_solve.residual = std::max(report.contact_solve.residual, solve.residual);
  }
  ++report.contact_solves;
}

/// Correction x = x_free + A^-1 H^T lambda, and delta = delta_free + H dx for every row (the
/// dead rows' gap and slip too, which W does not hold); lambda and deltas take the step's values.
void DynamicSolver::Impl::apply_correction(const Compliance& compliance_live, const std::vector<int>& live,
                                           const Vector& lambda_next, const ContactColumns& columns,
                                           std::vector<Real>& x_free) {
  const std::vector<int>& free = assembler.free_dof_index();
  const int nb = static_cast<int>(live.size());
  Vector lambda_live(nb);
  for (int j = 0; j < nb; ++j) lambda_live[j] = lambda_next[live[static_cast<size_t>(j)]];
  const Vector dx = correction(compliance_live, lambda_live);
  for (size_t k = 0; k < x_free.size(); ++k)
    if (free[k] >= 0) x_free[k] += dx[free[k]];
  const Vector delta = columns.delta_free + columns.B.transpose() * dx;
  for (size_t r = 0; r < lambda.size(); ++r) {
    lambda[r] = lambda_next[static_cast<Eigen::Index>(r)];
    deltas[r] = delta[static_cast<Eigen::Index>(r)];
  }
}

void DynamicSolver::Impl::record_contacts(Real h, const std::vector<Real>& x_new, DynamicStepReport& report) const {
  const ContactOptions& c = options.contact;
  for (size_t k = 0; k < contacts.size(); ++k) {
    const ContactPoint& p = contacts[k];
    const Real* l = lambda.data() + 3 * k;
    if (l[0] > 0) ++report.active_contacts;
    report.normal_force += l[0];
    report.contact_force += l[0] * p.normal + l[1] * p.t1 + l[2] * p.t2;
    // The penetration at the corrected positions: an analytic obstacle's true distance (curved
    // shapes differ from the linearised delta), else the linearised gap.
    Real gap = deltas[3 * k];
    if (p.obstacle >= 0 && c.obstacles[static_cast<size_t>(p.obstacle)].shape != ObstacleShape::TriangleMesh) {
      const Vec3r at(x_new[3 * static_cast<size_t>(p.node)], x_new[3 * static_cast<size_t>(p.node) + 1],
                     x_new[3 * static_cast<size_t>(p.node) + 2]);
      gap = distance_to_obstacle(c.obstacles[static_cast<size_t>(p.obstacle)], t + h, at).distance - c.contact_distance;
    }
    report.max_penetration = std::max(report.max_penetration, -gap);
  }
}

}  // namespace softik
