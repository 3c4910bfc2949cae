// Tri3: the 3-node linear triangle, one element trait (the interface every trait has:
// element_traits.hpp).
//   Reference cell: the unit triangle (0,0), (1,0), (0,1) (VTK_TRIANGLE, Gmsh type 2).
//   Shape functions: N = (1 - xi - eta, xi, eta); dN/dxi constant (affine: det J constant).
//   Stiffness rule: 1 point at the centroid (1/3, 1/3), w = 1/2 (exact for the constant strain).
//   Mass rule: 3 points (1/6, 1/6), (2/3, 1/6), (1/6, 2/3), w = 1/6, degree 2 (exact for N_a N_b).
// Sources: docs/method.md section 1; T. J. R. Hughes, "The Finite Element Method", Dover 2000,
// chapter 3; the mass rule: G. Strang, G. Fix, "An Analysis of the Finite Element Method", 1973.
#pragma once

#include <Eigen/Core>

#include "softik/config.hpp"
#include "softik/fem/tensor.hpp"  // VecD, MatD

namespace softik::fem {

/// 3-node triangle on the unit reference triangle (0,0),(1,0),(0,1); 1-point rule.
struct Tri3 {
  static constexpr int dim = 2, num_nodes = 3, num_quad = 1;
  using Xi = VecD<2>;
  SOFTIK_HD static Real reference_measure() { return 0.5; }
  SOFTIK_HD static Xi reference_node(int a) { return Xi(a == 1 ? 1.0 : 0.0, a == 2 ? 1.0 : 0.0); }
  SOFTIK_HD static Eigen::Matrix<Real, 3, 1> N(const Xi& xi) {
    return Eigen::Matrix<Real, 3, 1>(1 - xi[0] - xi[1], xi[0], xi[1]);
  }
  SOFTIK_HD static Eigen::Matrix<Real, 3, 2> dN(const Xi&) {
    Eigen::Matrix<Real, 3, 2> g;
    g << -1, -1, 1, 0, 0, 1;
    return g;
  }
  SOFTIK_HD static Xi quad_point(int) { return Xi(1.0 / 3.0, 1.0 / 3.0); }
  SOFTIK_HD static Real quad_weight(int) { return 0.5; }
  SOFTIK_HD static Xi center() { return Xi(1.0 / 3.0, 1.0 / 3.0); }
  static constexpr bool affine = true;
  static constexpr bool own_mass_rule = false;
  static constexpr int order = 1;
  static constexpr int num_mass_quad = 3;  ///< Strang-Fix 3-point rule, degree 2
  SOFTIK_HD static Xi mass_quad_point(int q) {
    return Xi(q == 1 ? 2.0 / 3.0 : 1.0 / 6.0, q == 2 ? 2.0 / 3.0 : 1.0 / 6.0);
  }
  SOFTIK_HD static Real mass_quad_weight(int) { return 1.0 / 6.0; }
};

}  // namespace softik::fem
