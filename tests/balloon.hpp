// The inflated thick sphere octant ("the balloon") shared by the continuation tests
// (test_arc_length.cpp) and the volume-controlled cavity tests (test_cavity_control.cpp): the
// incompressible neo-Hookean pressure curve with its maximum, and the FE model.
#pragma once

#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/loads.hpp"
#include "softik/mesh_selection.hpp"
#include "softik/shell_generator.hpp"

namespace softik::balloon_test {

// ---------------------------------------------------------------------------------------------
// The incompressible neo-Hookean thick sphere (Ogden, "Non-linear elastic deformations", 1984,
// the inflation of a spherical shell; Haughton & Ogden 1978). With r^3 - a^3 = R^3 - A^3 and the
// hoop stretch l = r/R (radial stretch l^-2), W(l) = mu/2 (l^-4 + 2 l^2 - 3) and the radial
// equilibrium d(sigma_r)/dr = 2 (sigma_t - sigma_r)/r, sigma_t - sigma_r = l W'(l)/2, with
// dr/r = -dl / (l (l^3 - 1)), give
//   p = int_{l_b}^{l_a} W'(l) / (l^3 - 1) dl,   W'(l) / (l^3 - 1) = 2 mu (l^-2 + l^-5),
//   p(l_a) = 2 mu [(1/l_b + 1/(4 l_b^4)) - (1/l_a + 1/(4 l_a^4))],  l_b^3 = 1 + (l_a^3 - 1) A^3/B^3,
// (thin limit: p ~ 2 mu (B - A)/A (l^-1 - l^-7), maximal at l = 7^(1/6)).
inline Real balloon_pressure(Real mu, Real ratio /* B/A */, Real la) {
  const Real lb = std::cbrt(1 + (la * la * la - 1) / (ratio * ratio * ratio));
  const auto g = [](Real l) { return 1 / l + 1 / (4 * l * l * l * l); };
  return 2 * mu * (g(lb) - g(la));
}

/// The maximum of f on [a, b] (golden-section search; f unimodal there): {argmax, max}.
template <class F>
inline std::pair<Real, Real> golden_max(F f, Real a, Real b) {
  const Real g = (std::sqrt(5.0) - 1) / 2;
  for (int k = 0; k < 200; ++k) {
    const Real c = b - g * (b - a), d = a + g * (b - a);
    if (f(c) > f(d))
      b = d;
    else
      a = c;
  }
  return {(a + b) / 2, f((a + b) / 2)};
}

struct Balloon {
  Mesh mesh;
  std::unique_ptr<Assembler> assembler;
  Loads loads;
  Real V0 = 0;  ///< the octant cavity's rest volume
  /// Inner stretch from the cavity volume: l_a = (V / V0)^(1/3) (every inner node moves to l_a A
  /// in the exact solution, so the ratio of the faceted volumes is l_a^3 too).
  Real stretch(Real volume) const { return std::cbrt(volume / V0); }
};

/// Octant of a thick sphere A = 1, B = ratio, symmetry conditions on the cut planes, decoupled
/// neo-Hookean mu = 1 with bulk modulus K = bulk_over_mu * mu, inner pressure P = mu at load 1.
inline Balloon balloon(Real ratio, int nr, int n, CellType type, fem::Dilatation dilatation, Real bulk_over_mu) {
  Balloon b;
  b.mesh = make_thick_sphere_octant(1.0, ratio, nr, n, type);
  std::vector<char> fixed;
  fix_components(b.mesh, b.mesh.node_groups.at("x0"), {true, false, false}, fixed);
  fix_components(b.mesh, b.mesh.node_groups.at("y0"), {false, true, false}, fixed);
  fix_components(b.mesh, b.mesh.node_groups.at("z0"), {false, false, true}, fixed);
  AssemblyOptions options;
  options.formulation = Formulation::Hyperelastic;
  options.dilatation = dilatation;
  const Real mu = 1;
  b.assembler = std::make_unique<Assembler>(
      b.mesh, std::vector<Material>{fem::NeoHookeanD1::from_constants(mu / 2, 2 / (bulk_over_mu * mu))}, fixed,
      options);
  // The octant's inner wall. With the symmetry planes through the centre its cone volume
  // sum p1.(p2 x p3)/6 is the octant of the cavity and the load is conservative (the open rim's
  // extra terms act normal to the symmetry planes, on fixed DOFs): closed = true.
  b.loads.pressures.push_back(PressureLoad{"inner", b.mesh.surface_groups.at("inner"), {}, mu, /*closed*/ true});
  b.V0 = surface_volume(b.loads.pressures[0], b.mesh, b.mesh.rest_positions());
  return b;
}

/// The maximum of a path of pressures p over stretches la whose largest p is at index m (0 < m <
/// size - 2): the top of the cubic through the four points nearest it, {stretch, pressure}.
inline std::pair<Real, Real> path_maximum(const std::vector<Real>& la, const std::vector<Real>& p, size_t m) {
  const size_t first = p[m - 1] > p[m + 1] ? m - 2 : m - 1;
  const auto cubic = [&](Real l) {
    Real s = 0;
    for (size_t i = first; i < first + 4; ++i) {
      Real w = p[i];
      for (size_t j = first; j < first + 4; ++j)
        if (j != i) w *= (l - la[j]) / (la[i] - la[j]);
      s += w;
    }
    return s;
  };
  return golden_max(cubic, la[m - 1], la[m + 1]);
}

}  // namespace softik::balloon_test
