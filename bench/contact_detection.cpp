// Contact detection between deformable surfaces (SurfaceProximity: an AABB tree over the
// triangles, refitted each call): two triangulated spheres of radius 1 whose surfaces overlap by
// 5%, every vertex of each tested against the other's triangles, vs the total triangle count
// (10k to 400k). Counters: triangles, query nodes, contacts found, ns per query node.
//
//   ./build/bench/bench_contact_detection --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <vector>

#include "softik/contact.hpp"

namespace {

using softik::Real;

/// A latitude-longitude sphere of n x 2n quads (each split in two), outward wound, centred at cx.
void add_sphere(int n, Real cx, std::vector<Real>& x, std::vector<std::array<int, 3>>& triangles, std::vector<int>& id,
                int surface, std::vector<int>& nodes, std::vector<int>& node_surface) {
  const Real pi = 3.14159265358979323846;
  const int first = static_cast<int>(x.size() / 3);
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j < 2 * n; ++j) {
      const Real theta = pi * i / n, phi = pi * j / n;
      x.insert(x.end(), {cx + std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)});
      nodes.push_back(first + i * 2 * n + j);
      node_surface.push_back(surface);
    }
  auto v = [&](int i, int j) { return first + i * 2 * n + (j % (2 * n)); };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 2 * n; ++j) {
      if (i > 0) triangles.push_back({v(i, j), v(i + 1, j), v(i, j + 1)});
      if (i < n - 1) triangles.push_back({v(i, j + 1), v(i + 1, j), v(i + 1, j + 1)});
      id.resize(triangles.size(), surface);
    }
}

void BM_SurfaceProximity(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<Real> x;
  std::vector<std::array<int, 3>> triangles;
  std::vector<int> id, nodes, node_surface;
  add_sphere(n, 0.0, x, triangles, id, 0, nodes, node_surface);
  add_sphere(n, 1.9, x, triangles, id, 1, nodes, node_surface);
  softik::SurfaceProximity proximity(triangles, id);
  size_t found = 0;
  for (auto _ : state) {
    const std::vector<softik::ContactPoint> c = proximity.detect(nodes, node_surface, x, 0.0, 0.02, 0.5);
    found = c.size();
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["triangles"] = static_cast<double>(triangles.size());
  state.counters["nodes"] = static_cast<double>(nodes.size());
  state.counters["contacts"] = static_cast<double>(found);
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(nodes.size()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Each sphere has 4 n^2 - 4 n triangles: n = 36, 80, 160, 224 give 10k, 51k, 204k, 400k in all.
BENCHMARK(BM_SurfaceProximity)->Arg(36)->Arg(80)->Arg(160)->Arg(224)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
