// Quad4: the 4-node bilinear quadrilateral, one element trait (the interface every trait has:
// element_traits.hpp).
//   Reference cell: [-1, 1]^2, corners (xi_a, eta_a) = (-1,-1), (1,-1), (1,1), (-1,1)
//   (VTK_QUAD, Gmsh type 3).
//   Shape functions: N_a = (1 + xi_a xi)(1 + eta_a eta)/4; not affine (det J varies in the cell).
//   Stiffness rule: 2x2 Gauss, xi, eta = -+1/sqrt(3), w = 1.
//   Mass rule: the same 2x2 Gauss points, exact for N_a N_b det J (degree 3 per axis).
// Sources: docs/method.md section 1; T. J. R. Hughes, "The Finite Element Method", Dover 2000,
// chapter 3 (the bilinear quadrilateral, Gauss quadrature).
#pragma once

#include <Eigen/Core>

#include "softik/config.hpp"
#include "softik/fem/tensor.hpp"  // VecD, MatD

namespace softik::fem {

/// 4-node bilinear quadrilateral on [-1,1]^2, 2x2 Gauss rule.
struct Quad4 {
  static constexpr int dim = 2, num_nodes = 4, num_quad = 4;
  using Xi = VecD<2>;
  SOFTIK_HD static Real reference_measure() { return 4.0; }
  SOFTIK_HD static Xi reference_node(int a) {
    const Real s[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    return Xi(s[a][0], s[a][1]);
  }
  SOFTIK_HD static Eigen::Matrix<Real, 4, 1> N(const Xi& xi) {
    Eigen::Matrix<Real, 4, 1> n;
    for (int a = 0; a < 4; ++a) {
      const Xi r = reference_node(a);
      n[a] = 0.25 * (1 + r[0] * xi[0]) * (1 + r[1] * xi[1]);
    }
    return n;
  }
  SOFTIK_HD static Eigen::Matrix<Real, 4, 2> dN(const Xi& xi) {
    Eigen::Matrix<Real, 4, 2> g;
    for (int a = 0; a < 4; ++a) {
      const Xi r = reference_node(a);
      g(a, 0) = 0.25 * r[0] * (1 + r[1] * xi[1]);
      g(a, 1) = 0.25 * r[1] * (1 + r[0] * xi[0]);
    }
    return g;
  }
  SOFTIK_HD static Xi quad_point(int q) {
    const Real g = 0.57735026918962576451;  // 1/sqrt(3)
    return Xi((q & 1) ? g : -g, (q & 2) ? g : -g);
  }
  SOFTIK_HD static Real quad_weight(int) { return 1.0; }
  SOFTIK_HD static Xi center() { return Xi(0.0, 0.0); }
  static constexpr bool affine = false;
  static constexpr bool own_mass_rule = false;
  static constexpr int order = 1;
  static constexpr int num_mass_quad = num_quad;  ///< 2x2 Gauss: exact for N_a N_b det J (degree 3 per axis)
  SOFTIK_HD static Xi mass_quad_point(int q) { return quad_point(q); }
  SOFTIK_HD static Real mass_quad_weight(int q) { return quad_weight(q); }
};

}  // namespace softik::fem
