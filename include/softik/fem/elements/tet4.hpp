// Tet4: the 4-node linear tetrahedron, one element trait (the interface every trait has:
// element_traits.hpp).
//   Reference cell: the unit tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1) (VTK_TETRA, Gmsh type 4).
//   Shape functions: N = (1 - xi - eta - zeta, xi, eta, zeta); dN/dxi constant (affine).
//   Stiffness rule: 1 point at the centroid (1/4, 1/4, 1/4), w = 1/6 (exact for the constant strain).
//   Mass rule: 4 points of degree 2, (b, b, b) and the permutations of (a, b, b) in barycentric
//   coordinates, a = (5 + 3 sqrt 5)/20, b = (5 - sqrt 5)/20, w = 1/24 (exact for N_a N_b).
// Sources: docs/method.md section 1; T. J. R. Hughes, "The Finite Element Method", Dover 2000,
// chapter 3; the 4-point rule: P. C. Hammer, O. J. Marlowe, A. H. Stroud, "Numerical integration
// over simplexes and cones", Math. Tables Aids Comput. 10 (1956) 130-137.
#pragma once

#include <Eigen/Core>

#include "softik/config.hpp"
#include "softik/fem/tensor.hpp"  // VecD, MatD

namespace softik::fem {

/// 4-node tetrahedron on the unit reference tetrahedron; 1-point rule.
struct Tet4 {
  static constexpr int dim = 3, num_nodes = 4, num_quad = 1;
  using Xi = VecD<3>;
  SOFTIK_HD static Real reference_measure() { return 1.0 / 6.0; }
  SOFTIK_HD static Xi reference_node(int a) { return Xi(a == 1 ? 1.0 : 0.0, a == 2 ? 1.0 : 0.0, a == 3 ? 1.0 : 0.0); }
  SOFTIK_HD static Eigen::Matrix<Real, 4, 1> N(const Xi& xi) {
    return Eigen::Matrix<Real, 4, 1>(1 - xi[0] - xi[1] - xi[2], xi[0], xi[1], xi[2]);
  }
  SOFTIK_HD static Eigen::Matrix<Real, 4, 3> dN(const Xi&) {
    Eigen::Matrix<Real, 4, 3> g;
    g << -1, -1, -1, 1, 0, 0, 0, 1, 0, 0, 0, 1;
    return g;
  }
  SOFTIK_HD static Xi quad_point(int) { return Xi(0.25, 0.25, 0.25); }
  SOFTIK_HD static Real quad_weight(int) { return 1.0 / 6.0; }
  SOFTIK_HD static Xi center() { return Xi(0.25, 0.25, 0.25); }
  static constexpr bool affine = true;
  static constexpr bool own_mass_rule = false;
  static constexpr int order = 1;
  static constexpr int num_mass_quad = 4;  ///< 4-point rule, degree 2 (a = (5 + 3 sqrt 5)/20)
  SOFTIK_HD static Xi mass_quad_point(int q) {
    const Real a = 0.58541019662496845446, b = 0.13819660112501051518;
    return Xi(q == 1 ? a : b, q == 2 ? a : b, q == 3 ? a : b);
  }
  SOFTIK_HD static Real mass_quad_weight(int) { return 1.0 / 24.0; }
};

}  // namespace softik::fem
