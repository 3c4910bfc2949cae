// The contacts' forward answers at a given actuation for the inverse step (inverse_contact.hpp):
// the frictional contact problem on the exact cone (contact_response), and the same problem on
// the QP's own 4-facet pyramid, whose answer's states are a feasible start for the pivoting
// (forward_states).
#include <cmath>
#include <vector>

#include "host/contact/contact_solvers.hpp"
#include "host/inverse/inverse_contact.hpp"

namespace softik::inverse_detail {

namespace {

/// The contacts' problem at a given actuation in contact.hpp's form, three rows per contact
/// (delta = q3 + W3 lambda3): a frictionless pair's tangent rows are decoupled unit rows with
/// mu = 0, which keeps their forces at 0. `at`: per row of the three, its contact row (-1: none).
struct ThreeRows {
  Eigen::MatrixXd W3;
  Eigen::VectorXd q3, lambda3;
  std::vector<Real> mu;
  std::vector<Eigen::Index> at;

  ThreeRows(const ContactSpace& s, const Eigen::VectorXd& lambda_a, const Eigen::VectorXd& lambda_c) {
    const StepContacts& c = s.contacts;
    const std::vector<int> crow = contact_rows(s);
    const Eigen::Index nk = static_cast<Eigen::Index>(c.points.size());
    at.assign(static_cast<size_t>(3 * nk), -1);
    for (Eigen::Index i = 0; i < nk; ++i)
      for (int k = 0; k < c.layout[static_cast<size_t>(i)].rows; ++k)
        at[static_cast<size_t>(3 * i + k)] = c.layout[static_cast<size_t>(i)].row + k;
    const Eigen::MatrixXd Wcc = s.W(crow, crow);
    const Eigen::VectorXd q = s.delta_free(crow) + s.W(crow, s.actuators) * lambda_a;
    W3 = Eigen::MatrixXd::Zero(3 * nk, 3 * nk);
    q3 = Eigen::VectorXd::Zero(3 * nk);
    lambda3 = Eigen::VectorXd::Zero(3 * nk);
    for (Eigen::Index i = 0; i < 3 * nk; ++i) {
      const Eigen::Index a = at[static_cast<size_t>(i)];
      if (a < 0) {
        W3(i, i) = W3(i - i % 3, i - i % 3);  // the normal's diagonal: a unit of the right size
        continue;
      }
      for (Eigen::Index j = 0; j < 3 * nk; ++j)
        if (at[static_cast<size_t>(j)] >= 0) W3(i, j) = Wcc(a, at[static_cast<size_t>(j)]);
      q3(i) = q(a);
      if (lambda_c.size() == static_cast<Eigen::Index>(crow.size())) lambda3(i) = lambda_c(a);
    }
    for (Eigen::Index i = 0; i < nk; ++i) mu.push_back(c.layout[static_cast<size_t>(i)].mu);
  }

  /// lambda3 back in the contact rows' layout (size rows).
  Eigen::VectorXd contact_forces(Eigen::Index rows) const {
    Eigen::VectorXd out = Eigen::VectorXd::Zero(rows);
    for (size_t i = 0; i < at.size(); ++i)
      if (at[i] >= 0) out(at[i]) = lambda3(static_cast<Eigen::Index>(i)) + 0.0;
    return out;
  }
};

}  // namespace

ContactSolverReport contact_response(const ContactSpace& s, const Eigen::VectorXd& lambda_a,
                                     const ContactSolverOptions& options, Eigen::VectorXd& lambda_c) {
  ThreeRows p(s, lambda_a, lambda_c);
  contact::check_step_compliance(p.W3, "inverse contact");
  const ContactSolverReport report = solve_frictional_contact(p.W3, p.q3, p.mu, p.lambda3, options);
  lambda_c = p.contact_forces(s.contacts.num_rows());
  return report;
}

std::vector<ContactState> forward_states(const ContactSpace& s, const Eigen::VectorXd& lambda_a, int max_sweeps) {
  const StepContacts& c = s.contacts;
  ThreeRows p(s, lambda_a, c.lambda_previous);
  const ContactSolverReport r = contact::solve_box_pyramid(p.W3, p.q3, p.mu, p.lambda3, max_sweeps);
  std::vector<ContactState> states(c.points.size());
  if (!r.converged) return {};
  const Eigen::VectorXd lambda_c = p.contact_forces(c.num_rows());
  for (size_t i = 0; i < c.points.size(); ++i) {
    const ContactRows& l = c.layout[i];
    const Real fn = lambda_c(l.row);
    if (!(fn > 0)) continue;
    states[i].normal = ContactState::kPressed;
    for (int k = 0; k < 2 && l.rows == 3; ++k) {
      const Real ft = lambda_c(l.row + 1 + k);
      if (std::abs(ft) >= (1 - 1e-9) * contact::pyramid_half_width(l.mu) * fn)
        states[i].tangent[k] = ft > 0 ? ContactState::kSlipPlus : ContactState::kSlipMinus;
    }
  }
  return states;
}

}  // namespace softik::inverse_detail
