// Element traits: one struct per element type holding its reference nodes, shape functions
// N(xi), their gradients dN/dxi and a quadrature rule. Everything else (deformation gradient,
// forces, stiffness) is generic over the trait (docs/method.md section 1; SOFA's Elasticity plugin).
// One header per trait in fem/elements/ (edge2, tri3, quad4, tet4, hex8, tet10), each with its
// shape functions, rules and sources; this header includes them all, and tensor.hpp's VecD<d>
// and MatD<d> (the d-vectors and d x d matrices of a d-dimensional element).
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

#include "softik/fem/elements/edge2.hpp"
#include "softik/fem/elements/hex8.hpp"
#include "softik/fem/elements/quad4.hpp"
#include "softik/fem/elements/tet10.hpp"
#include "softik/fem/elements/tet4.hpp"
#include "softik/fem/elements/tri3.hpp"
#include "softik/fem/tensor.hpp"  // VecD, MatD
