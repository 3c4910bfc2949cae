// Element traits against mathematics: quadrature weights sum to the reference measure, shape
// functions interpolate (N_a(xi_b) = delta_ab, sum N = 1), gradients sum to zero and match
// finite differences of N, and the quadrature integrates the polynomials it must.
#include <gtest/gtest.h>

#include <random>

#include "softik/fem/element_traits.hpp"
#include "softik/fem/kinematics.hpp"

namespace softik::fem {
namespace {

template <class E>
class ElementTraits : public ::testing::Test {};
using AllElements = ::testing::Types<Edge2, Tri3, Quad4, Tet4, Hex8, Tet10>;
TYPED_TEST_SUITE(ElementTraits, AllElements);

template <class E>
typename E::Xi random_interior_point(std::mt19937& rng) {
  std::uniform_real_distribution<Real> u(0.05, 0.3);
  typename E::Xi xi;
  for (int i = 0; i < E::dim; ++i) xi[i] = u(rng);  // inside every reference cell used here
  return xi;
}

TYPED_TEST(ElementTraits, QuadratureWeightsSumToReferenceMeasure) {
  using E = TypeParam;
  Real sum = 0;
  for (int q = 0; q < E::num_quad; ++q) sum += E::quad_weight(q);
  EXPECT_NEAR(sum, E::reference_measure(), 1e-15);
}

TYPED_TEST(ElementTraits, ShapeFunctionsInterpolateNodes) {
  using E = TypeParam;
  for (int b = 0; b < E::num_nodes; ++b) {
    const auto N = E::N(E::reference_node(b));
    for (int a = 0; a < E::num_nodes; ++a) EXPECT_NEAR(N[a], a == b ? 1.0 : 0.0, 1e-15) << "a=" << a << " b=" << b;
  }
}

TYPED_TEST(ElementTraits, PartitionOfUnityAndZeroGradientSum) {
  using E = TypeParam;
  std::mt19937 rng(1);
  for (int trial = 0; trial < 10; ++trial) {
    const auto xi = random_interior_point<E>(rng);
    EXPECT_NEAR(E::N(xi).sum(), 1.0, 1e-14);
    const auto dN = E::dN(xi);
    for (int i = 0; i < E::dim; ++i) EXPECT_NEAR(dN.col(i).sum(), 0.0, 1e-14);
  }
}

TYPED_TEST(ElementTraits, GradientsMatchFiniteDifferences) {
  using E = TypeParam;
  std::mt19937 rng(2);
  const Real h = 1e-6;
  for (int trial = 0; trial < 5; ++trial) {
    const auto xi = random_interior_point<E>(rng);
    const auto dN = E::dN(xi);
    for (int i = 0; i < E::dim; ++i) {
      auto xp = xi, xm = xi;
      xp[i] += h;
      xm[i] -= h;
      const auto fd = ((E::N(xp) - E::N(xm)) / (2 * h)).eval();
      EXPECT_LE((fd - dN.col(i)).norm(), 1e-8 * (1 + dN.col(i).norm()));
    }
  }
}

// The rule integrates the stiffness integrand of an undistorted element exactly; checked on
// the monomial xi_0^2 for the 2-point Gauss elements (exact: 2/3 per axis) and the 4-point
// tetrahedron rule (exact: 2!/5! = 1/60 on the unit tetrahedron), and on constants for the
// 1-point simplex rules.
TYPED_TEST(ElementTraits, QuadratureIsExactForItsDegree) {
  using E = TypeParam;
  if (E::num_quad == 1) {
    Real sum = 0;
    for (int q = 0; q < E::num_quad; ++q) sum += E::quad_weight(q) * E::N(E::quad_point(q)).sum();
    EXPECT_NEAR(sum, E::reference_measure(), 1e-15);
  } else {
    const bool simplex = E::reference_measure() < 1;
    Real sum = 0;
    for (int q = 0; q < E::num_quad; ++q) sum += E::quad_weight(q) * E::quad_point(q)[0] * E::quad_point(q)[0];
    EXPECT_NEAR(sum, simplex ? 1.0 / 60.0 : E::reference_measure() / 3.0, 1e-15);
  }
}

TYPED_TEST(ElementTraits, RestDataOfScaledReferenceCell) {
  using E = TypeParam;
  NodeMatrix<E> X;
  const Real s = 2.5;
  for (int a = 0; a < E::num_nodes; ++a) X.row(a) = s * E::reference_node(a).transpose();
  RestData<E> r;
  const Real min_detJ = compute_rest_data<E>(X, r);
  EXPECT_NEAR(min_detJ, std::pow(s, E::dim), 1e-12);
  Real measure = 0;
  for (int q = 0; q < E::num_quad; ++q) {
    measure += r.w_detJ[q];
    EXPECT_LE((r.dN_dX[q] - E::dN(E::quad_point(q)) / s).norm(), 1e-14);
  }
  EXPECT_NEAR(measure, E::reference_measure() * std::pow(s, E::dim), 1e-12);
  // An inverted cell (one axis mirrored) reports a negative determinant.
  NodeMatrix<E> Xm = X;
  Xm.col(0) *= -1;
  EXPECT_LT(compute_rest_data<E>(Xm, r), 0);
}

}  // namespace
}  // namespace softik::fem
