// Tet10: the 10-node quadratic tetrahedron, one element trait (the interface every trait has:
// element_traits.hpp; docs/method.md section 1, "Quadratic tetrahedra").
//   Reference cell: Tet4's unit tetrahedron; corners 0-3, then the mid-nodes of the edges (0,1),
//   (1,2), (0,2), (0,3), (1,3), (2,3) (VTK_QUADRATIC_TETRA; Gmsh type 11 swaps the last two).
//   Shape functions, in the barycentric coordinates L_0 = 1 - xi - eta - zeta, L_1 = xi, L_2 = eta,
//   L_3 = zeta: N_a = L_a (2 L_a - 1) at corner a, N = 4 L_i L_j at edge (i, j); not affine.
//   Stiffness rule: Tet4's 4-point mass rule, degree 2. Mass rule: Walkington's 14-point rule of
//   degree 5, det J kept per mass point (own_mass_rule).
// Sources: Abaqus C3D10 (the stiffness rule); N. J. Walkington, "Quadrature on simplices of
// arbitrary dimension", Carnegie Mellon University, 2000 (docs/method.md [27]; the mass rule).
#pragma once

#include <Eigen/Core>

#include "softik/config.hpp"
#include "softik/fem/elements/tet4.hpp"
#include "softik/fem/tensor.hpp"  // VecD, MatD

namespace softik::fem {

/// 10-node quadratic tetrahedron on the unit reference tetrahedron (VTK node order: corners
/// 0-3, then the edge mid-nodes of (0,1), (1,2), (0,2), (0,3), (1,3), (2,3); Gmsh swaps the last
/// two). With the barycentric coordinates L0 = 1 - xi - eta - zeta, L1 = xi, L2 = eta, L3 = zeta:
///   corner a:        N_a = L_a (2 L_a - 1)
///   edge (i, j):     N   = 4 L_i L_j
/// Stiffness: the 4-point rule of degree 2 (exact for B^T D B on a straight-sided cell; the rule
/// of Abaqus C3D10 and most codes). Mass: the 14-point rule of degree 5 with positive weights
/// (Walkington), exact for N_a N_b = degree 4 on straight-sided cells, its own det J per point on
/// curved ones (own_mass_rule).
struct Tet10 {
  static constexpr int dim = 3, num_nodes = 10, num_quad = 4;
  using Xi = VecD<3>;
  SOFTIK_HD static Real reference_measure() { return 1.0 / 6.0; }
  /// Corner c of edge e (the mid-node 4 + e sits between edge_corner(e, 0) and edge_corner(e, 1)).
  SOFTIK_HD static int edge_corner(int e, int k) {
    const int c[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}};
    return c[e][k];
  }
  SOFTIK_HD static Xi reference_node(int a) {
    if (a < 4) return Tet4::reference_node(a);
    return Real(0.5) * (Tet4::reference_node(edge_corner(a - 4, 0)) + Tet4::reference_node(edge_corner(a - 4, 1)));
  }
  SOFTIK_HD static Eigen::Matrix<Real, 10, 1> N(const Xi& xi) {
    const Real L[4] = {1 - xi[0] - xi[1] - xi[2], xi[0], xi[1], xi[2]};
    Eigen::Matrix<Real, 10, 1> n;
    for (int a = 0; a < 4; ++a) n[a] = L[a] * (2 * L[a] - 1);
    for (int e = 0; e < 6; ++e) n[4 + e] = 4 * L[edge_corner(e, 0)] * L[edge_corner(e, 1)];
    return n;
  }
  /// dN/dxi_k = sum_c dN/dL_c dL_c/dxi_k with dL_0/dxi = (-1, -1, -1), dL_c/dxi_k = delta_{c, k+1}.
  SOFTIK_HD static Eigen::Matrix<Real, 10, 3> dN(const Xi& xi) {
    const Real L[4] = {1 - xi[0] - xi[1] - xi[2], xi[0], xi[1], xi[2]};
    const Real dL[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    Eigen::Matrix<Real, 10, 3> g;
    for (int k = 0; k < 3; ++k) {
      for (int a = 0; a < 4; ++a) g(a, k) = (4 * L[a] - 1) * dL[a][k];
      for (int e = 0; e < 6; ++e) {
        const int i = edge_corner(e, 0), j = edge_corner(e, 1);
        g(4 + e, k) = 4 * (dL[i][k] * L[j] + L[i] * dL[j][k]);
      }
    }
    return g;
  }
  /// 4-point rule, degree 2: (b, b, b) and the permutations of (a, b, b), a = (5 + 3 sqrt 5)/20.
  SOFTIK_HD static Xi quad_point(int q) { return Tet4::mass_quad_point(q); }
  SOFTIK_HD static Real quad_weight(int) { return 1.0 / 24.0; }
  SOFTIK_HD static Xi center() { return Xi(0.25, 0.25, 0.25); }
  static constexpr bool affine = false;
  static constexpr bool own_mass_rule = true;
  static constexpr int order = 2;
  /// Walkington's 14-point rule of degree 5: 4 points (a1, a1, a1, 1 - 3 a1), 4 points
  /// (a2, a2, a2, 1 - 3 a2) and the 6 permutations of (b, b, 1/2 - b, 1/2 - b), in barycentric
  /// coordinates; the weights sum to 1/6.
  static constexpr int num_mass_quad = 14;
  SOFTIK_HD static Xi mass_quad_point(int q) {
    const Real a1 = 0.0927352503108912264, a2 = 0.3108859192633006097;
    const Real b = 0.0455037041256496494, c = 0.5 - b;
    if (q < 8) {
      const Real a = q < 4 ? a1 : a2, r = 1 - 3 * a;
      const int k = q % 4;  // which barycentric coordinate is 1 - 3a (0: L0)
      return Xi(k == 1 ? r : a, k == 2 ? r : a, k == 3 ? r : a);
    }
    // The 6 ways to give two of (L0, L1, L2, L3) the value c and the other two b.
    const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    const int i = pairs[q - 8][0], j = pairs[q - 8][1];
    Real L[4] = {b, b, b, b};
    L[i] = c;
    L[j] = c;
    return Xi(L[1], L[2], L[3]);
  }
  SOFTIK_HD static Real mass_quad_weight(int q) {
    return q < 4 ? 0.0122488405193936582 : q < 8 ? 0.0187813209530026417 : 0.0070910034628469110;
  }
};

}  // namespace softik::fem
