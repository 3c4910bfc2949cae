// Element traits: one struct per element type holding its reference nodes, shape functions
// N(xi), their gradients dN/dxi and a quadrature rule. Everything else (deformation gradient,
// forces, stiffness) is generic over the trait (docs/method.md section 1; SOFA's Elasticity plugin).
//
// Interface of a trait E:
//   E::dim, E::num_nodes, E::num_quad            compile-time sizes
//   E::reference_measure()                       length/area/volume of the reference cell
//   E::reference_node(a)                         xi of node a
//   E::N(xi)       -> Matrix<num_nodes,1>        shape functions
//   E::dN(xi)      -> Matrix<num_nodes,dim>      row a = dN_a/dxi
//   E::quad_point(q), E::quad_weight(q)          quadrature (weights sum to reference_measure)
//   E::center()                                  xi at which the corotational rotation is taken
//   E::affine                                    whether the reference map is affine (det J constant)
//   E::num_mass_quad, E::mass_quad_point(q),     a rule for N_a N_b det J (consistent mass), exact on
//   E::mass_quad_weight(q)                       affine cells; a non-affine element's is its stiffness rule
//                                                unless E::own_mass_rule (then det J is kept per mass point)
//   E::own_mass_rule                             the mass rule has its own points on a non-affine cell
//   E::order                                     polynomial order (1 linear, 2 quadratic: HRZ lumping)
// Node orderings follow VTK/Gmsh.
#pragma once

#include <Eigen/Core>

#include "softik/config.hpp"

namespace softik::fem {

template <int d>
using VecD = Eigen::Matrix<Real, d, 1>;
template <int d>
using MatD = Eigen::Matrix<Real, d, d>;

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