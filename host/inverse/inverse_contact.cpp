// Contacts inside the inverse step (inverse_contact.hpp).
#include "host/inverse/inverse_contact.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "host/contact/contact_setup.hpp"
#include "softik/error.hpp"
#include "softik/mesh_selection.hpp"

namespace softik::inverse_detail {

namespace {

/// Candidates kept near an out-of-reach obstacle of a force target (detect_step_contacts).
constexpr size_t kReach = 4;

}  // namespace

std::vector<int> contact_rows(const ContactSpace& s) {
  std::vector<int> out;
  for (int r = 0; r < s.contacts.num_rows(); ++r) out.push_back(s.first_contact + r);
  return out;
}

StepContacts detect_step_contacts(const ContactOptions& options, const std::vector<int>& nodes,
                                  const std::vector<Real>& x, Real alarm, const std::vector<int>& reach,
                                  const std::vector<ContactPoint>& previous, const std::vector<Real>& previous_lambda,
                                  const std::vector<signed char>& previous_state, std::vector<ConstraintRow>& rows) {
  StepContacts out;
  std::map<std::pair<int, int>, size_t> before;
  for (size_t i = 0; i < previous.size(); ++i) before[{previous[i].node, previous[i].obstacle}] = i;
  std::vector<Real> lambda;
  int row = 0;
  std::vector<ContactPoint> found =
      detect_obstacle_contacts(options.obstacles, 0, nodes, x, options.contact_distance, alarm);
  // An obstacle a force target names but no candidate is near: its kReach nearest candidates, at
  // any distance, so that the target has a contact to approach.
  for (int o : reach) {
    if (std::any_of(found.begin(), found.end(), [o](const ContactPoint& p) { return p.obstacle == o; })) continue;
    const Obstacle& obstacle = options.obstacles[static_cast<size_t>(o)];
    std::vector<std::pair<Real, int>> ranked;  // (distance, node)
    for (int n : nodes) {
      const size_t d = 3 * static_cast<size_t>(n);
      ranked.emplace_back(distance_to_obstacle(obstacle, 0, Vec3r(x[d], x[d + 1], x[d + 2])).distance, n);
    }
    const size_t keep = std::min<size_t>(kReach, ranked.size());
    std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end());
    std::vector<int> nearest;
    Real farthest = 0;
    for (size_t k = 0; k < keep; ++k) {
      nearest.push_back(ranked[k].second);
      farthest = std::max(farthest, ranked[k].first);
    }
    for (ContactPoint& p : detect_obstacle_contacts({obstacle}, 0, nearest, x, options.contact_distance,
                                                    std::max<Real>(0, farthest - options.contact_distance) * 1.001)) {
      p.obstacle = o;
      found.push_back(p);
    }
  }
  for (const ContactPoint& p : found) {
    ContactRows layout;
    layout.row = row;
    layout.mu = p.friction;
    layout.rows = p.friction > 0 ? 3 : 1;
    row += layout.rows;
    const Vec3r* axes[3] = {&p.normal, &p.t1, &p.t2};
    for (int k = 0; k < layout.rows; ++k) {
      ConstraintRow r;
      contact::append_contact_row(p, k, r.J);
      r.delta = k == 0 ? p.gap : 0;
      rows.push_back(std::move(r));
    }
    ContactState state;
    Vec3r force = Vec3r::Zero();
    const auto it = before.find({p.node, p.obstacle});
    if (it != before.end()) {
      const ContactPoint& q = previous[it->second];
      const Real* l = previous_lambda.data() + 3 * it->second;
      force = l[0] * q.normal + l[1] * q.t1 + l[2] * q.t2;
      if (previous_state[3 * it->second] == ContactState::kPressed) state.normal = ContactState::kPressed;
    } else if (p.gap < 0) {
      state.normal = ContactState::kPressed;
    }
    for (int k = 0; k < layout.rows; ++k) lambda.push_back(force.dot(*axes[k]));
    out.start.push_back(state);
    out.layout.push_back(layout);
    out.names.push_back("contact of node " + std::to_string(p.node) + " with '" +
                        options.obstacles[static_cast<size_t>(p.obstacle)].name + "'");
    out.points.push_back(p);
  }
  out.lambda_previous = Eigen::Map<const Eigen::VectorXd>(lambda.data(), static_cast<Eigen::Index>(lambda.size()));
  return out;
}

void contact_outcome(const StepContacts& c, const Eigen::VectorXd& lambda_c, const std::vector<ContactState>& states,
                     const ContactOptions& options, const std::vector<int>& nodes, const std::vector<Real>& x,
                     const std::vector<Real>& x_new, std::vector<Real>& forces, std::vector<signed char>& codes,
                     InverseStepReport& rep, Real& motion) {
  rep.max_penetration = max_penetration(options, nodes, x_new);
  Real motion2 = 0;
  for (size_t k = 0; k + 2 < x.size(); k += 3) {
    Real d2 = 0;
    for (size_t i = 0; i < 3; ++i) d2 += (x_new[k + i] - x[k + i]) * (x_new[k + i] - x[k + i]);
    motion2 = std::max(motion2, d2);
  }
  motion = std::sqrt(motion2);
  const size_t nk = c.points.size();
  forces.assign(3 * nk, 0.0);
  codes.assign(3 * nk, 0);
  for (size_t i = 0; i < nk; ++i) {
    for (int k = 0; k < c.layout[i].rows; ++k) forces[3 * i + static_cast<size_t>(k)] = lambda_c(c.layout[i].row + k);
    codes[3 * i] = states[i].normal;
    codes[3 * i + 1] = states[i].tangent[0];
    codes[3 * i + 2] = states[i].tangent[1];
  }
  add_force_totals(forces, codes, rep.pressed_contacts, rep.normal_force);
  rep.contacts = static_cast<int>(nk);
}

void add_force_totals(const std::vector<Real>& forces, const std::vector<signed char>& codes, int& pressed,
                      Real& normal_force) {
  for (size_t i = 0; 3 * i < forces.size() && 3 * i < codes.size(); ++i) {
    normal_force += forces[3 * i];
    if (codes[3 * i] == ContactState::kPressed) ++pressed;
  }
}

Real max_penetration(const ContactOptions& options, const std::vector<int>& nodes, const std::vector<Real>& x, Real t) {
  Real worst = 0;
  for (int n : nodes) {
    const size_t d = 3 * static_cast<size_t>(n);
    const Vec3r p(x[d], x[d + 1], x[d + 2]);
    for (const Obstacle& o : options.obstacles)
      worst = std::max(worst, options.contact_distance - distance_to_obstacle(o, t, p).distance);
  }
  return worst;
}

}  // namespace softik::inverse_detail

namespace softik {

void InverseSolver::set_contact(ContactOptions options) {
  SOFTIK_CHECK(!options.between_parts,
               "InverseSolver: contact between parts of the mesh is not available in a static inverse problem (a free "
               "part has no equilibrium without inertia); use a DynamicSolver, or fix the other part and model it as "
               "an obstacle");
  const Mesh& mesh = assembler_.mesh();
  model_size_ = bounding_box_diagonal(mesh);
  contact::prepare_contact_options(mesh, options, model_size_);
  contact_nodes_ = contact::contact_candidate_nodes(mesh, assembler_.free_dof_index(), options.nodes);
  contact_ = std::move(options);
  has_contact_ = !contact_.obstacles.empty();
  contacts_.clear();
  contact_lambda_.clear();
  contact_state_.clear();
  last_motion_ = 0;
  for (const ContactForceTarget& t : force_targets_) obstacle_index(t.obstacle);
}

void InverseSolver::add_contact_force_target(ContactForceTarget target) {
  inverse_detail::check_force_target(target, force_targets_);
  if (has_contact_) obstacle_index(target.obstacle);
  force_targets_.push_back(std::move(target));
}

InverseSolver::ContactTotals InverseSolver::contact_totals() const {
  ContactTotals t;
  t.contacts = static_cast<int>(contacts_.size());
  t.target_forces.assign(force_targets_.size(), 0.0);
  std::vector<int> target_obstacle;
  for (const ContactForceTarget& f : force_targets_)
    target_obstacle.push_back(has_contact_ ? obstacle_index(f.obstacle) : -2);
  inverse_detail::add_force_totals(contact_lambda_, contact_state_, t.pressed_contacts, t.normal_force);
  for (size_t i = 0; i < contacts_.size() && 3 * i < contact_lambda_.size(); ++i)
    for (size_t k = 0; k < target_obstacle.size(); ++k)
      if (contacts_[i].obstacle == target_obstacle[k]) t.target_forces[k] += contact_lambda_[3 * i];
  return t;
}

int InverseSolver::obstacle_index(const std::string& name) const {
  return inverse_detail::obstacle_named(contact_, name, "call set_contact first");
}

namespace inverse_detail {

void check_force_target(const ContactForceTarget& target, const std::vector<ContactForceTarget>& existing) {
  SOFTIK_CHECK(std::isfinite(target.force) && target.force >= 0,
               "contact force target '" << target.name << "': force = " << target.force
                                        << " N; a contact can only push: give a force >= 0");
  SOFTIK_CHECK(std::isfinite(target.weight) && target.weight >= 0,
               "contact force target '" << target.name << "': weight = " << target.weight
                                        << "; give a weight >= 0 (m/N; 0: the contacts' own compliance)");
  for (const ContactForceTarget& t : existing)
    SOFTIK_CHECK(t.name != target.name,
                 "two contact force targets are named '" << t.name << "'; give each its own name");
}

int obstacle_named(const ContactOptions& options, const std::string& name, const std::string& when_none) {
  std::string known;
  for (size_t i = 0; i < options.obstacles.size(); ++i) {
    if (options.obstacles[i].name == name) return static_cast<int>(i);
    known += (known.empty() ? "'" : ", '") + options.obstacles[i].name + "'";
  }
  throw Error("contact force target on obstacle '" + name + "': no obstacle has that name (" +
              (known.empty() ? "no obstacles: " + when_none : "known: " + known) + ")");
}

}  // namespace inverse_detail

}  // namespace softik
