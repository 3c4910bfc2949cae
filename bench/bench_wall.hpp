// The contacts of the inverse-step benchmarks with contacts (bench/inverse_step.cpp,
// bench/cuda_inverse_step.cpp; issue 16 item 5): a wall 0.5 mm above the finger's top face
// (z = 20 mm), and the n top-face nodes nearest the tip (largest x) as contact candidates, every
// one a contact of every step (alarm distance 10 mm).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "softik/contact.hpp"
#include "softik/mesh.hpp"

/// The options, or false when the top face has fewer than n nodes.
inline bool wall_over_tip(const softik::Mesh& mesh, int n, softik::ContactOptions& options) {
  std::vector<int> top;
  for (int v = 0; v < mesh.num_nodes(); ++v)
    if (mesh.X[3 * static_cast<std::size_t>(v) + 2] > 0.02 - 1e-9) top.push_back(v);
  if (static_cast<int>(top.size()) < n) return false;
  std::sort(top.begin(), top.end(), [&](int a, int b) {
    return mesh.X[3 * static_cast<std::size_t>(a)] > mesh.X[3 * static_cast<std::size_t>(b)];
  });
  softik::Obstacle wall;
  wall.name = "wall";
  wall.center = softik::Vec3r(0, 0, 0.0205);
  wall.normal = softik::Vec3r(0, 0, -1);
  options = softik::ContactOptions{};
  options.obstacles.push_back(wall);
  options.nodes.assign(top.begin(), top.begin() + n);
  options.alarm_distance = 0.01;
  return true;
}
