// Edge2: the 2-node line, one element trait (the interface every trait has: element_traits.hpp).
//   Reference cell: xi in [-1, 1]; node 0 at xi = -1, node 1 at xi = 1 (VTK_LINE, Gmsh type 1).
//   Shape functions: N_0 = (1 - xi)/2, N_1 = (1 + xi)/2; dN/dxi = (-1/2, 1/2), constant (affine).
//   Stiffness rule: 1-point Gauss, xi = 0, w = 2 (exact for the constant strain).
//   Mass rule: 2-point Gauss, xi = -1/sqrt(3), +1/sqrt(3), w = 1 (exact for the quadratic N_a N_b).
// Sources: docs/method.md section 1; T. J. R. Hughes, "The Finite Element Method", Dover 2000,
// chapter 3 (isoparametric elements, Gauss quadrature).
#pragma once

#include <Eigen/Core>

#include "softik/config.hpp"
#include "softik/fem/tensor.hpp"  // VecD, MatD

namespace softik::fem {

/// 2-node line on xi in [-1, 1], 1-point Gauss rule (exact for the constant strain).
struct Edge2 {
  static constexpr int dim = 1, num_nodes = 2, num_quad = 1;
  using Xi = VecD<1>;
  SOFTIK_HD static Real reference_measure() { return 2.0; }
  SOFTIK_HD static Xi reference_node(int a) { return Xi(a == 0 ? -1.0 : 1.0); }
  SOFTIK_HD static Eigen::Matrix<Real, 2, 1> N(const Xi& xi) {
    return Eigen::Matrix<Real, 2, 1>(0.5 * (1 - xi[0]), 0.5 * (1 + xi[0]));
  }
  SOFTIK_HD static Eigen::Matrix<Real, 2, 1> dN(const Xi&) { return Eigen::Matrix<Real, 2, 1>(-0.5, 0.5); }
  SOFTIK_HD static Xi quad_point(int) { return Xi(0.0); }
  SOFTIK_HD static Real quad_weight(int) { return 2.0; }
  SOFTIK_HD static Xi center() { return Xi(0.0); }
  static constexpr bool affine = true;
  static constexpr bool own_mass_rule = false;
  static constexpr int order = 1;
  static constexpr int num_mass_quad = 2;  ///< 2-point Gauss: exact for the quadratic N_a N_b
  SOFTIK_HD static Xi mass_quad_point(int q) { return Xi(q == 0 ? -0.57735026918962576451 : 0.57735026918962576451); }
  SOFTIK_HD static Real mass_quad_weight(int) { return 1.0; }
};

}  // namespace softik::fem
