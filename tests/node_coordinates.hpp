// node_at: node n's position in a flat coordinate vector (x, y, z of node 0, then node 1, ...),
// the layout of Mesh::nodes and of every solver's state; x_resultant: the x force on a face.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "softik/fem/tensor.hpp"

namespace softik {

inline fem::Vec3 node_at(const std::vector<Real>& x, int n) {
  const size_t i = 3 * static_cast<size_t>(n);
  return fem::Vec3(x[i], x[i + 1], x[i + 2]);
}

/// The sum of the x components of the nodal forces f over the nodes whose coordinate `axis` in X
/// is `at` (to 1e-12): the x resultant on that face.
inline Real x_resultant(const std::vector<Real>& X, const std::vector<Real>& f, int axis, Real at) {
  Real sum = 0;
  for (size_t i = 0; 3 * i < X.size(); ++i)
    if (std::abs(X[3 * i + static_cast<size_t>(axis)] - at) < 1e-12) sum += f[3 * i];
  return sum;
}

}  // namespace softik
