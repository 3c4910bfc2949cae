// A constraint space with one frictionless contact, its last row, for white-box tests of the
// inverse step's contact solves (host/inverse/inverse_contact.hpp): W and delta_free over the
// rows, the actuator and effector rows before the contact, the actuators' bounds and names.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "host/inverse/inverse_contact.hpp"

namespace softik {
namespace inverse_test {

struct OneContactSpace {
  Eigen::MatrixXd W;
  Eigen::VectorXd delta_free;
  std::vector<int> actuators, effectors;
  std::vector<Interval> lambda_bounds, delta_bounds;
  std::vector<std::string> names;
  inverse_detail::StepContacts contacts;

  /// The contact (apart, no force carried over) is the row after the last constraint row, at
  /// `node`, named `contact_name` in messages.
  OneContactSpace(Eigen::MatrixXd W_, Eigen::VectorXd delta_free_, std::vector<int> actuators_,
                  std::vector<int> effectors_, std::vector<Interval> lambda_bounds_,
                  std::vector<Interval> delta_bounds_, std::vector<std::string> names_, int node,
                  std::string contact_name)
      : W(std::move(W_)),
        delta_free(std::move(delta_free_)),
        actuators(std::move(actuators_)),
        effectors(std::move(effectors_)),
        lambda_bounds(std::move(lambda_bounds_)),
        delta_bounds(std::move(delta_bounds_)),
        names(std::move(names_)) {
    ContactPoint point;
    point.node = node;
    contacts.points.push_back(point);
    contacts.layout.push_back(inverse_detail::ContactRows{0, 1, 0});
    contacts.names.push_back(std::move(contact_name));
    contacts.start.push_back(inverse_detail::ContactState{});
    contacts.lambda_previous = Eigen::VectorXd::Zero(1);
  }

  /// The view the solves take (it refers to this object's members).
  inverse_detail::ContactSpace space() const {
    return {W,     delta_free, actuators, effectors, static_cast<int>(W.rows()) - 1, lambda_bounds, delta_bounds,
            names, contacts};
  }
};

}  // namespace inverse_test
}  // namespace softik
