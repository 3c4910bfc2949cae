// Node-network statics and arc-length continuation (include/softik/network_statics.hpp, issue 17):
// the tangent against finite differences of the forces, a shallow truss dome (a star of n bars,
// von Mises' truss in 3D) snapping through under a dead load along its closed-form path with both
// limit points and the inertia between them, a lattice cube inflated by follower pressure past
// its pressure maximum along its closed-form path, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "softik/continuation.hpp"
#include "softik/error.hpp"
#include "softik/linear_solver.hpp"
#include "softik/mesh_generator.hpp"
#include "softik/network_statics.hpp"
#include "tests/mesh_helpers.hpp"
#include "tests/expect_refused.hpp"

namespace softik {
namespace {

// A network with hardening links on a distorted two-cell hex box.
NodeNetwork hardening_network(Real nu) {
  Mesh mesh = box_mesh(CellType::Hex8, {2, 1, 1}, {2, 1, 1});
  NetworkFromMesh from;
  from.youngs_modulus = 1000;
  from.density = 1000;
  from.body_diagonals = true;
  from.cubic_hardening = 80;
  from.poissons_ratio = nu;  // above 1/4: volume cells too
  return make_node_network(mesh, from);
}

void check_tangent(const NodeNetwork& net);

TEST(NetworkStatics, ForceIsMinusTheEnergyGradientAndTheTangentItsDerivative) {
  for (Real nu : {0.25, 0.45}) {
    const NodeNetwork net = hardening_network(nu);
    EXPECT_EQ(net.num_volume_cells() > 0, nu > 0.25);
    check_tangent(net);
  }
}

void check_tangent(const NodeNetwork& net) {
  std::vector<char> fixed(3 * static_cast<size_t>(net.num_nodes()), 0);
  fixed[0] = fixed[1] = fixed[2] = fixed[4] = 1;  // some DOFs fixed: the free numbering is exercised
  const NetworkStatics statics(net, fixed, {}, 1);
  std::vector<Real> x = net.X;
  for (size_t k = 0; k < x.size(); ++k) x[k] += 0.15 * std::sin(1.7 * static_cast<Real>(k) + 0.3);
  Real psi = 0;
  std::vector<Real> f, K;
  statics.assemble(x, &psi, &f, &K);
  EXPECT_GT(psi, 0);
  const Real h = 1e-6;
  Real f_scale = 0, K_scale = 0;
  for (Real v : f) f_scale = std::max(f_scale, std::abs(v));
  for (Real v : K) K_scale = std::max(K_scale, std::abs(v));
  const std::vector<int>& free = statics.free_dof_index();
  for (size_t j = 0; j < x.size(); ++j) {
    std::vector<Real> xp = x, xm = x, fp, fm;
    xp[j] += h, xm[j] -= h;
    Real ep = 0, em = 0;
    statics.assemble(xp, &ep, &fp, nullptr);
    statics.assemble(xm, &em, &fm, nullptr);
    EXPECT_NEAR(f[j], -(ep - em) / (2 * h), 1e-6 * f_scale) << "DOF " << j;
    if (free[j] < 0) continue;
    for (size_t i = 0; i < x.size(); ++i) {
      if (free[i] < 0) continue;
      const int slot = statics.pattern().slot(free[i], free[j]);
      const Real fd = -(fp[i] - fm[i]) / (2 * h);  // K = d^2 psi / dx^2 = -df/dx
      const Real value = slot >= 0 ? K[static_cast<size_t>(slot)] : 0.0;
      EXPECT_NEAR(value, fd, 1e-6 * K_scale) << "K(" << i << ", " << j << ")";
    }
  }
}

// The star dome: n bars of stiffness k from supports on a circle of radius a (z = 0) to an apex
// at height h, loaded downwards by lambda P_ref at the apex. With the apex at height w, bar
// length l = sqrt(a^2 + w^2) and rest length L = sqrt(a^2 + h^2), vertical equilibrium is
//   lambda P_ref = n k (L - l) w / l                                           (closed form)
// with limit points where dP/dw = 0: l*^3 = L a^2, w* = +-sqrt(l*^2 - a^2).
struct StarDome {
  int n = 3;
  Real a = 1, h = 0.2, k = 1000;
  Real L() const { return std::sqrt(a * a + h * h); }
  Real load(Real w) const {
    const Real l = std::sqrt(a * a + w * w);
    return n * k * (L() - l) * w / l;
  }
  Real limit_height() const { return std::sqrt(std::pow(L() * a * a, 2.0 / 3.0) - a * a); }
  NodeNetwork network() const {
    NodeNetwork net;
    net.X = {0, 0, h};  // the apex is node 0
    net.mass.push_back(1);
    for (int i = 0; i < n; ++i) {
      const Real t = 2 * M_PI * i / n;
      net.X.insert(net.X.end(), {a * std::cos(t), a * std::sin(t), 0});
      net.mass.push_back(1);
      net.links.push_back({i + 1, 0});
      net.parameters.push_back({k, 0, L(), 0});
    }
    return net;
  }
};

TEST(NetworkArcLength, ShallowTrussDomeSnapsThroughAlongItsClosedFormPath) {
  const StarDome dome;
  const NodeNetwork net = dome.network();
  std::vector<char> fixed(3 * static_cast<size_t>(net.num_nodes()), 1);
  fixed[0] = fixed[1] = fixed[2] = 0;  // the apex is free
  const NetworkStatics statics(net, fixed);
  Loads loads;
  const Real P_ref = 10;  // beyond the limit load: reached again only on the inverted branch
  loads.nodal.assign(3 * static_cast<size_t>(net.num_nodes()), 0.0);
  loads.nodal[2] = -P_ref;
  ArcLengthOptions o;
  o.initial_arc = 0.005;
  o.min_arc = 1e-6;
  o.max_arc = 0.01;
  o.max_steps = 400;
  o.monitored_dof = 2;
  std::vector<Real> x = net.X;
  std::vector<std::vector<Real>> positions;
  o.on_step = [&](const PathPoint&, const std::vector<Real>& xs) { positions.push_back(xs); };
  auto solver = make_linear_solver();
  const ArcLengthResult r = solve_arc_length(statics, *solver, loads, x, o);
  ASSERT_EQ(r.status, ArcLengthStatus::ReachedMaxLoadFactor) << r.message;
  const Real w_star = dome.limit_height(), P_star = dome.load(w_star);
  Real max_lambda = 0, worst = 0;
  std::vector<Real> limit_heights;
  for (size_t p = 0; p < r.path.size(); ++p) {
    const PathPoint& pt = r.path[p];
    const Real w = dome.h + pt.displacement;
    worst = std::max(worst, std::abs(pt.load_factor * P_ref - dome.load(w)));
    EXPECT_LT(std::abs(positions[p][0]) + std::abs(positions[p][1]), 1e-9) << "the apex left the axis at point " << p;
    if (w > 0) max_lambda = std::max(max_lambda, pt.load_factor);  // the rising branch before the snap
    if (pt.negative_pivots >= 0 && std::abs(std::abs(w) - w_star) > 1e-3) {
      EXPECT_EQ(pt.negative_pivots, std::abs(w) < w_star ? 1 : 0) << "point " << p << " at w = " << w;
    }
    if (pt.limit_point_passed) {
      const Real w_prev = dome.h + r.path[p - 1].displacement;
      limit_heights.push_back(w);
      EXPECT_TRUE((w_prev > w_star && w < w_star) || (w_prev > -w_star && w < -w_star))
          << "a limit point flagged between w = " << w_prev << " and " << w;
    }
    EXPECT_FALSE(pt.bifurcation_suspected) << "point " << p;
  }
  std::printf(
      "star dome: %zu points, worst |lambda P_ref - P(w)| = %.3g N (P* = %.6g N at w* = %.6g), max lambda P_ref = "
      "%.6g N, end w = %.6g\n",
      r.path.size(), worst, P_star, w_star, max_lambda * P_ref, dome.h + r.path.back().displacement);
  EXPECT_LT(worst, 1e-8 * P_ref);
  EXPECT_EQ(limit_heights.size(), 2u) << "both limit points (the maximum and the minimum of the load)";
  EXPECT_LE(max_lambda * P_ref, P_star * (1 + 1e-9));
  EXPECT_GE(max_lambda * P_ref, P_star * (1 - 1e-3));
  // The end: lambda = 1 on the inverted branch, P(w_end) = P_ref with w_end < -h.
  const Real w_end = dome.h + r.path.back().displacement;
  EXPECT_LT(w_end, -dome.h);
  EXPECT_NEAR(dome.load(w_end), P_ref, 1e-8 * P_ref);
}

// A cube lattice (Hex8 cells with face diagonals: an isotropic solid of modulus E and ratio nu)
// inflated by a follower pressure P on its whole boundary, held by 3-2-1 supports. Under a
// uniform stretch s about the fixed corner every link's tension is k L (s - 1) along its rest
// direction: the links store (s - 1)^2 (C11 + 2 C12)_links V / 2 with (C11 + 2 C12)_links = 5 mu,
// and the volume cells (nu > 1/4) kappa_v/2 (s^3 - 1)^2 V, while the pressure does the work P s^3 V.
// Stationarity in s gives the closed form
//   P(s) = 5 mu (s - 1) / s^2 + kappa_v (s^3 - 1),   kappa_v = lambda - mu;
// at nu = 1/4 (kappa_v = 0, mu = 2E/5) P = 2E (s - 1) / s^2 has its maximum E / 2 at s = 2.
struct InflatedCube {
  Real E = 1000, nu = 0.25;
  Real mu() const { return E / (2 * (1 + nu)); }
  Real kappa() const { return E * nu / ((1 + nu) * (1 - 2 * nu)) - mu(); }
  Real pressure(Real s) const { return 5 * mu() * (s - 1) / (s * s) + kappa() * (s * s * s - 1); }

  struct Run {
    ArcLengthResult result;
    Real worst_shape = 0;  ///< largest |x - s X| over the path
  };
  Run run(int max_steps, Real max_arc) const {
    const Mesh mesh = box_mesh(CellType::Hex8, {2, 2, 2});
    NetworkFromMesh from;
    from.youngs_modulus = E;
    from.poissons_ratio = nu;
    from.density = 1000;
    const NodeNetwork net = make_node_network(mesh, from);
    auto node_at = [&](Real x, Real y, Real z) {
      for (int i = 0; i < net.num_nodes(); ++i)
        if (std::abs(net.X[3 * i] - x) + std::abs(net.X[3 * i + 1] - y) + std::abs(net.X[3 * i + 2] - z) < 1e-12)
          return i;
      ADD_FAILURE() << "no node at " << x << " " << y << " " << z;
      return 0;
    };
    std::vector<char> fixed(3 * static_cast<size_t>(net.num_nodes()), 0);
    const int o = node_at(0, 0, 0), ex = node_at(1, 0, 0), ey = node_at(0, 1, 0), far = node_at(1, 1, 1);
    fixed[3 * o] = fixed[3 * o + 1] = fixed[3 * o + 2] = 1;
    fixed[3 * ex + 1] = fixed[3 * ex + 2] = 1;
    fixed[3 * ey + 2] = 1;
    PressureLoad p;
    p.name = "boundary";
    p.surface = boundary_surface(mesh);
    p.pressure = E;
    Loads loads;
    loads.pressures.push_back(p);
    const NetworkStatics statics(net, fixed, loads.pressures);
    ArcLengthOptions opt;
    opt.initial_arc = 0.05;
    opt.min_arc = 1e-6;
    opt.max_arc = max_arc;
    opt.max_steps = max_steps;
    opt.max_load_factor = 100;
    opt.monitored_dof = 3 * far;
    std::vector<Real> x = net.X;
    Run out;
    opt.on_step = [&](const PathPoint& pt, const std::vector<Real>& xs) {
      const Real s = 1 + pt.displacement;
      for (size_t k = 0; k < xs.size(); ++k)
        out.worst_shape = std::max(out.worst_shape, std::abs(xs[k] - s * net.X[k]));
    };
    auto solver = make_linear_solver();
    out.result = solve_arc_length(statics, *solver, loads, x, opt);
    return out;
  }
};

TEST(NetworkArcLength, LatticeCubeUnderFollowerPressurePassesItsPressureMaximum) {
  const InflatedCube cube;
  const InflatedCube::Run run = cube.run(80, 0.2);
  const ArcLengthResult& r = run.result;
  ASSERT_GT(r.path.size(), 10u) << r.message;
  const Real E = cube.E;
  Real worst = 0, max_P = 0, s_end = 0;
  int limits = 0;
  for (size_t k = 0; k < r.path.size(); ++k) {
    const PathPoint& pt = r.path[k];
    const Real s = 1 + pt.displacement, P = pt.load_factor * E;
    worst = std::max(worst, std::abs(P - cube.pressure(s)));
    max_P = std::max(max_P, P);
    s_end = s;
    if (pt.limit_point_passed) {
      ++limits;
      EXPECT_LT(1 + r.path[k - 1].displacement, 2);
      EXPECT_GT(s, 2);
    }
    if (pt.negative_pivots >= 0 && std::abs(s - 2) > 0.02) {
      EXPECT_EQ(pt.negative_pivots > 0, s > 2) << "stretch " << s;
    }
  }
  std::printf(
      "lattice cube: %zu points to stretch %.3f, worst |P - 2E(s-1)/s^2| = %.3g Pa, max P = %.8g Pa (E/2 = %g), "
      "worst deviation from the uniform stretch %.3g\n",
      r.path.size(), s_end, worst, max_P, E / 2, run.worst_shape);
  EXPECT_GT(s_end, 2.5) << "the path goes on past the maximum";
  EXPECT_LT(worst, 1e-7 * E);
  EXPECT_LT(run.worst_shape, 1e-8);
  EXPECT_EQ(limits, 1);
  EXPECT_LE(max_P, E / 2 * (1 + 1e-9));
  EXPECT_GE(max_P, E / 2 * (1 - 1e-3));
}

TEST(NetworkArcLength, LatticeCubeWithVolumeTermsFollowsItsClosedFormWithoutALimit) {
  InflatedCube cube;
  cube.nu = 0.45;  // kappa_v = lambda - mu: the pressure rises monotonically
  const InflatedCube::Run run = cube.run(400, 0.05);
  const ArcLengthResult& r = run.result;
  ASSERT_EQ(r.status, ArcLengthStatus::ReachedMaxLoadFactor) << r.message;
  Real worst = 0;
  for (const PathPoint& pt : r.path) {
    worst = std::max(worst, std::abs(pt.load_factor * cube.E - cube.pressure(1 + pt.displacement)));
    EXPECT_FALSE(pt.limit_point_passed);
    EXPECT_EQ(pt.negative_pivots, 0);
  }
  const Real s_end = 1 + r.path.back().displacement;
  std::printf(
      "lattice cube nu 0.45: %zu points to P = %g Pa at stretch %.4f, worst |P - P(s)| = %.3g Pa, worst deviation "
      "from the uniform stretch %.3g\n",
      r.path.size(), r.path.back().load_factor * cube.E, s_end, worst, run.worst_shape);
  EXPECT_NEAR(r.path.back().load_factor, 100, 1e-12);
  EXPECT_LT(worst, 1e-9 * 100 * cube.E);
  EXPECT_LT(run.worst_shape, 1e-8);
}

/// A downward unit force on node 0.
Loads loads_on(const NodeNetwork& net) {
  Loads loads;
  loads.nodal.assign(3 * static_cast<size_t>(net.num_nodes()), 0.0);
  loads.nodal[2] = -1;
  return loads;
}

TEST(NetworkArcLength, BadInputIsRefusedWithTheReason) {
  const StarDome dome;
  const NodeNetwork net = dome.network();
  expect_refused([&] { NetworkStatics(net, std::vector<char>(5, 0)); }, "fixed-DOF flags");
  Loads loads;
  loads.nodal.assign(3 * static_cast<size_t>(net.num_nodes()), 0.0);
  loads.nodal[2] = -1;
  ArcLengthOptions o;
  o.initial_arc = o.min_arc = o.max_arc = 0.01;
  auto solver = make_linear_solver();
  const NetworkStatics free_body(net, {});
  std::vector<Real> x = net.X;
  expect_refused([&] { solve_arc_length(free_body, *solver, loads, x, o); }, "nothing is fixed");
  // A pressure face over nodes no link joins, not given to the NetworkStatics: its stiffness
  // would fall outside the pattern.
  std::vector<char> fixed(3 * static_cast<size_t>(net.num_nodes()), 1);
  fixed[0] = fixed[1] = fixed[2] = 0;
  fixed[3] = fixed[7] = 0;  // support 1 slides in x, 2 in y: the face couples them, no link does
  PressureLoad p;
  p.name = "lid";
  p.closed = false;
  p.pressure = 1;
  p.surface.triangles.push_back({0, 1, 2});
  Loads with_pressure = loads;
  with_pressure.pressures.push_back(p);
  const NetworkStatics statics(net, fixed);
  expect_refused([&] { solve_arc_length(statics, *solver, with_pressure, x, o); },
                 "give the load to the NetworkStatics");
  // Local mechanisms: a planar two-bar truss's apex out of its plane; a straight chain's middle
  // node sideways (at rest no link resists it: their tension is zero).
  NodeNetwork planar;
  planar.X = {0, 0, 0.2, 1, 0, 0, -1, 0, 0};
  planar.mass = {1, 1, 1};
  planar.links = {{0, 1}, {0, 2}};
  planar.parameters = {{1000, 0, std::sqrt(1.04), 0}, {1000, 0, std::sqrt(1.04), 0}};
  std::vector<char> supports(9, 1);
  supports[0] = supports[1] = supports[2] = 0;
  std::vector<Real> xp = planar.X;
  expect_refused([&] { solve_arc_length(NetworkStatics(planar, supports), *solver, loads_on(planar), xp, o); },
                 "node 0 has no stiffness along (0, 1, 0)");
  NodeNetwork chain = planar;
  chain.X = {0, 0, 0, 1, 0, 0, -1, 0, 0};
  chain.parameters = {{1000, 0, 1, 0}, {1000, 0, 1, 0}};
  std::vector<Real> xc = chain.X;
  expect_refused([&] { solve_arc_length(NetworkStatics(chain, supports), *solver, loads_on(chain), xc, o); },
                 "node 0 has no stiffness along");
  supports[1] = 1;  // held sideways in y, still free in z
  expect_refused([&] { solve_arc_length(NetworkStatics(chain, supports), *solver, loads_on(chain), xc, o); },
                 "node 0 has no stiffness along (0, 0, 1)");
  p.surface.triangles[0] = {1, 2, 7};
  expect_refused([&] { NetworkStatics(net, fixed, {p}); }, "vertex 7");
}

}  // namespace
}  // namespace softik
