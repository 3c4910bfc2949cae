// node_at: node n's position in a flat coordinate vector (x, y, z of node 0, then node 1, ...),
// the layout of Mesh::nodes and of every solver's state.
#pragma once

#include <cstddef>
#include <vector>

#include "softik/fem/tensor.hpp"

namespace softik {

inline fem::Vec3 node_at(const std::vector<Real>& x, int n) {
  const size_t i = 3 * static_cast<size_t>(n);
  return fem::Vec3(x[i], x[i + 1], x[i + 2]);
}

}  // namespace softik
