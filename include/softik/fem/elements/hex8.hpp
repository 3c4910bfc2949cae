// Hex8: the 8-node trilinear hexahedron, one element trait (the interface every trait has:
// element_traits.hpp).
//   Reference cell: [-1, 1]^3, corners (xi_a, eta_a, zeta_a): the bottom face (zeta = -1)
//   (-1,-1), (1,-1), (1,1), (-1,1), then the top face (zeta = 1) in the same order
//   (VTK_HEXAHEDRON, Gmsh type 5).
//   Shape functions: N_a = (1 + xi_a xi)(1 + eta_a eta)(1 + zeta_a zeta)/8; not affine.
//   Stiffness rule: 2x2x2 Gauss, xi, eta, zeta = -+1/sqrt(3), w = 1.
//   Mass rule: the same 2x2x2 Gauss points (exact for N_a N_b det J on a parallelepiped).
// Sources: docs/method.md section 1; T. J. R. Hughes, "The Finite Element Method", Dover 2000,
// chapter 3 (the trilinear hexahedron, Gauss quadrature).
#pragma once

#include <Eigen/Core>

#include "softik/config.hpp"
#include "softik/fem/tensor.hpp"  // VecD, MatD

namespace softik::fem {

/// 8-node trilinear hexahedron on [-1,1]^3, 2x2x2 Gauss rule.
struct Hex8 {
  static constexpr int dim = 3, num_nodes = 8, num_quad = 8;
  using Xi = VecD<3>;
  SOFTIK_HD static Real reference_measure() { return 8.0; }
  SOFTIK_HD static Xi reference_node(int a) {
    const Real s[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                          {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
    return Xi(s[a][0], s[a][1], s[a][2]);
  }
  SOFTIK_HD static Eigen::Matrix<Real, 8, 1> N(const Xi& xi) {
    Eigen::Matrix<Real, 8, 1> n;
    for (int a = 0; a < 8; ++a) {
      const Xi r = reference_node(a);
      n[a] = 0.125 * (1 + r[0] * xi[0]) * (1 + r[1] * xi[1]) * (1 + r[2] * xi[2]);
    }
    return n;
  }
  SOFTIK_HD static Eigen::Matrix<Real, 8, 3> dN(const Xi& xi) {
    Eigen::Matrix<Real, 8, 3> g;
    for (int a = 0; a < 8; ++a) {
      const Xi r = reference_node(a);
      const Real s0 = 1 + r[0] * xi[0], s1 = 1 + r[1] * xi[1], s2 = 1 + r[2] * xi[2];
      g(a, 0) = 0.125 * r[0] * s1 * s2;
      g(a, 1) = 0.125 * r[1] * s0 * s2;
      g(a, 2) = 0.125 * r[2] * s0 * s1;
    }
    return g;
  }
  SOFTIK_HD static Xi quad_point(int q) {
    const Real g = 0.57735026918962576451;  // 1/sqrt(3)
    return Xi((q & 1) ? g : -g, (q & 2) ? g : -g, (q & 4) ? g : -g);
  }
  SOFTIK_HD static Real quad_weight(int) { return 1.0; }
  SOFTIK_HD static Xi center() { return Xi(0.0, 0.0, 0.0); }
  static constexpr bool affine = false;
  static constexpr bool own_mass_rule = false;
  static constexpr int order = 1;
  /// 2x2x2 Gauss: exact for N_a N_b det J on a parallelepiped; on a distorted hex det J is
  /// quadratic per axis and the rule is exact to degree 3 per axis only.
  static constexpr int num_mass_quad = num_quad;
  SOFTIK_HD static Xi mass_quad_point(int q) { return quad_point(q); }
  SOFTIK_HD static Real mass_quad_weight(int q) { return quad_weight(q); }
};

}  // namespace softik::fem
