// The effectors of a scene's inverse problem seen from Python, for any stepper over a Model
// (InverseSolver, DynamicSimulation): by name, their goals set and read, their points' positions.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <softik/error.hpp>

#include "bindings.hpp"

namespace softik::python {

/// The index of effector `name` in the Model's built effectors, or an error listing them.
template <class P>
size_t effector_index(const P& p, const std::string& name) {
  const auto& effectors = p.model->built.effectors;
  std::string known;
  for (size_t i = 0; i < effectors.size(); ++i) {
    if (effectors[i]->name() == name) return i;
    known += (known.empty() ? "" : ", ") + effectors[i]->name();
  }
  SOFTIK_CHECK(false, "no effector named '" << name << "'; the scene's effectors are: " << known);
  return 0;
}

/// Whether effector i is a position effector (else a volume effector).
template <class P>
bool is_position(const P& p, size_t i) {
  return p.model->scene.inverse.effectors[i].type == SceneEffector::Type::Position;
}

/// A position effector's goal ((3,) array) or a volume effector's target volume.
template <class P>
void set_goal(P& p, const std::string& name, nb::handle goal) {
  const size_t i = effector_index(p, name);
  Constraint& c = *p.model->built.effectors[i];
  if (is_position(p, i)) {
    const std::vector<Real> g = real_array(goal, {3}, "the goal of effector '" + name + "'");
    static_cast<PositionEffector&>(c).set_goal({g[0], g[1], g[2]});
  } else {
    const std::vector<Real> v = real_array(goal, {}, "the target volume of effector '" + name + "'");
    static_cast<VolumeEffector&>(c).set_target(v[0]);
  }
}

/// The goal set now: (3,) array or a volume.
template <class P>
nb::object goal(const P& p, const std::string& name) {
  const size_t i = effector_index(p, name);
  const Constraint& c = *p.model->built.effectors[i];
  if (!is_position(p, i)) return nb::float_(static_cast<const VolumeEffector&>(c).target());
  const std::array<Real, 3>& g = static_cast<const PositionEffector&>(c).goal();
  return take(std::vector<Real>(g.begin(), g.end()));
}

/// Where a position effector's point is at the Model's current positions.
template <class P>
nb::object effector_position(const P& p, const std::string& name) {
  const size_t i = effector_index(p, name);
  SOFTIK_CHECK(is_position(p, i), "effector '" << name << "' is a volume effector; it has no position");
  const auto& e = static_cast<const PositionEffector&>(*p.model->built.effectors[i]);
  const std::array<Real, 3> x = e.position(p.model->x);
  return take(std::vector<Real>(x.begin(), x.end()));
}

}  // namespace softik::python
