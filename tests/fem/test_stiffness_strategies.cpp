// The stiffness strategies of the total-Lagrangian element (fem/stiffness_strategies.hpp): for
// every law and every element, every strategy that serves them (the contraction of dP/dF, the
// GPU's; B^T CC B from S and CC; the law's closed form summed over the points) gives the same
// energy, force and K as every other, to round-off, also on cells with some points inverted; the
// strategies in S(E) give an exactly symmetric K; the CPU's default choice is the one
// stiffness_strategies.hpp names; and the closed-form laws' P equals F S.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <type_traits>

#include "softik/fem/element_traits.hpp"
#include "softik/fem/hyperelastic_element.hpp"
#include "softik/fem/materials/materials.hpp"

namespace softik::fem {
namespace {

/// The same law seen only through psi, P and dPdF: no capability detected.
template <class M>
struct ThroughDPdF {
  M law;
  Real psi(const Mat3& F) const { return law.psi(F); }
  Mat3 P(const Mat3& F) const { return law.P(F); }
  Mat9 dPdF(const Mat3& F) const { return law.dPdF(F); }
};

static_assert(has_pk2_tangent<NeoHookeanD1>::value, "NeoHookeanD1 gives S and CC");
static_assert(!has_pk2_tangent<ThroughDPdF<NeoHookeanD1>>::value, "the wrapper hides them");
static_assert(!has_pk2_tangent<StableNeoHookean>::value, "StableNeoHookean is written in dP/dF");
static_assert(closed_form_stiffness<NeoHookean>::value && closed_form_stiffness<NeoHookeanD1>::value &&
                  closed_form_stiffness<Yeoh>::value && closed_form_stiffness<ArrudaBoyce>::value,
              "the neo-Hookean and decoupled Ibar1 laws have K in closed form");
static_assert(!closed_form_stiffness<MooneyRivlin>::value && !closed_form_stiffness<ThroughDPdF<NeoHookean>>::value,
              "Mooney-Rivlin (Ibar2) and the wrapper take S and CC or dP/dF");
static_assert(tolerates_inversion<LinearElastic>::value && tolerates_inversion<StableNeoHookean>::value &&
                  !tolerates_inversion<NeoHookean>::value && !tolerates_inversion<ThroughDPdF<LinearElastic>>::value,
              "a law declares that it tolerates inversion; undeclared means it does not");
// The CPU's choice, chosen once: the closed form, else S and CC, else dP/dF; 2D cells take dP/dF.
static_assert(std::is_same<HostStiffness<NeoHookean, 3>, ClosedFormStiffness>::value, "");
static_assert(std::is_same<HostStiffness<MooneyRivlin, 3>, Pk2Stiffness>::value, "");
static_assert(std::is_same<HostStiffness<StableNeoHookean, 3>, DPdFStiffness>::value, "");
static_assert(std::is_same<HostStiffness<NeoHookean, 2>, DPdFStiffness>::value, "");
static_assert(!ClosedFormStiffness::applies<NeoHookean, 2> && !Pk2Stiffness::applies<SaintVenantKirchhoff, 2>, "");

/// Reference cell nodes, scaled and sheared so that dN/dX is not the reference one (2D cells use
/// the upper-left block).
template <class E>
NodeMatrix<E> rest_cell() {
  NodeMatrix<E> X;
  Mat3 A;
  A << 0.02, 0.004, 0.0, 0.0, 0.017, 0.003, 0.002, 0.0, 0.025;
  for (int a = 0; a < E::num_nodes; ++a) {
    Vec3 xi = Vec3::Zero();
    for (int i = 0; i < E::dim; ++i) xi[i] = E::reference_node(a)[i];
    const Vec3 r = A * xi;
    for (int i = 0; i < E::dim; ++i) X(a, i) = r[i];
  }
  return X;
}

struct Evaluation {
  Real energy = 0;
  Eigen::VectorXd force;
  Eigen::MatrixXd K;
  Real detF = 0;
};

template <class Strategy, class E, class M>
Evaluation evaluate(const M& law, const RestData<E>& rest, const NodeMatrix<E>& x) {
  ElementVector<E> f;
  ElementMatrix<E> K;
  Evaluation e;
  e.detF = hyperelastic_element<E, M, Strategy>(law, rest, x, {&e.energy, &f, &K});
  e.force = f;
  e.K = K;
  return e;
}

/// Strategy b against strategy a: the same energy, force and K to round-off.
void expect_same(const Evaluation& a, const Evaluation& b, const std::string& what) {
  ASSERT_GT(a.K.norm(), 0) << what;
  EXPECT_LE((a.K - b.K).norm(), 1e-13 * a.K.norm()) << what;
  EXPECT_LE((a.force - b.force).norm(), 1e-13 * a.force.norm() + 1e-300) << what;
  EXPECT_NEAR(a.energy, b.energy, 1e-14 * std::abs(a.energy) + 1e-300) << what;
  EXPECT_EQ(a.detF, b.detF) << what;
}

/// Every strategy that serves law M on element E against every other, on 20 random states (up to
/// ~15 % strain) and on `x_given` when it is not null.
template <class E, class M>
void expect_strategies_agree(const std::string& name, const M& law) {
  RestData<E> rest;
  ASSERT_GT(compute_rest_data<E>(rest_cell<E>(), rest), 0);
  std::mt19937 rng(5);
  std::uniform_real_distribution<Real> u(-1, 1);
  constexpr int d = E::dim;
  for (int trial = 0; trial < 20; ++trial) {
    NodeMatrix<E> x = rest_cell<E>();
    for (int a = 0; a < E::num_nodes; ++a)
      for (int i = 0; i < d; ++i) x(a, i) += 0.003 * u(rng);
    const std::string what = name + " trial " + std::to_string(trial);
    const Evaluation dpdf = evaluate<DPdFStiffness>(law, rest, x);
    ASSERT_GT(dpdf.detF, 0) << what;
    if constexpr (Pk2Stiffness::applies<M, d>) {
      const Evaluation pk2 = evaluate<Pk2Stiffness>(law, rest, x);
      expect_same(dpdf, pk2, what + ": S and CC against dP/dF");
      EXPECT_TRUE(pk2.K == pk2.K.transpose()) << what << ": S and CC give an exactly symmetric K";
      if constexpr (ClosedFormStiffness::applies<M, d>) {
        const Evaluation closed = evaluate<ClosedFormStiffness>(law, rest, x);
        expect_same(dpdf, closed, what + ": closed form against dP/dF");
        expect_same(pk2, closed, what + ": closed form against S and CC");
        EXPECT_TRUE(closed.K == closed.K.transpose()) << what << ": the closed form gives an exactly symmetric K";
      }
    }
    // A law seen through dP/dF only takes the dP/dF strategy, bit for bit.
    const Evaluation through = evaluate<HostStiffness<ThroughDPdF<M>, d>>(ThroughDPdF<M>{law}, rest, x);
    EXPECT_TRUE(through.K == dpdf.K && through.force == dpdf.force && through.energy == dpdf.energy) << what;
  }
}

template <class M>
void expect_strategies_agree_on_every_element(const std::string& name, const M& law) {
  expect_strategies_agree<Tet4>(name + " Tet4", law);
  expect_strategies_agree<Hex8>(name + " Hex8", law);
  expect_strategies_agree<Tet10>(name + " Tet10", law);
  expect_strategies_agree<Tri3>(name + " Tri3", law);
  expect_strategies_agree<Quad4>(name + " Quad4", law);
}

TEST(StiffnessStrategies, EveryStrategyAgreesWithEveryOtherForEveryLawAndElement) {
  const Real E = 2e5, nu = 0.45;
  expect_strategies_agree_on_every_element("LinearElastic", LinearElastic::from_young_poisson(E, nu));
  expect_strategies_agree_on_every_element("NeoHookean", NeoHookean::from_young_poisson(E, nu));
  expect_strategies_agree_on_every_element("NeoHookeanD1", NeoHookeanD1::from_young_poisson(E, nu));
  expect_strategies_agree_on_every_element("StableNeoHookean", StableNeoHookean::from_young_poisson(E, nu));
  expect_strategies_agree_on_every_element("SaintVenantKirchhoff", SaintVenantKirchhoff::from_young_poisson(E, nu));
  expect_strategies_agree_on_every_element("MooneyRivlin",
                                           MooneyRivlin::from_young_poisson(E, nu, Volumetric::D1Form, 0.3));
  expect_strategies_agree_on_every_element("Yeoh", Yeoh::from_constants(3e4, -2e3, 500, 3e-6));
  expect_strategies_agree_on_every_element("Yeoh log",
                                           Yeoh::from_constants(3e4, -2e3, 500, 3e-6, Volumetric::LogSquared));
  expect_strategies_agree_on_every_element("ArrudaBoyce", ArrudaBoyce::from_young_poisson(E, nu, 2.5));
  expect_strategies_agree_on_every_element("ArrudaBoyce D1",
                                           ArrudaBoyce::from_young_poisson(E, nu, 2.5, Volumetric::D1Form));
  expect_strategies_agree_on_every_element("Ogden3", Ogden<3>::from_young_poisson(E, nu, {1.3, 5.0, -2.0}));
}

/// A cell with some of its points inverted: those points add nothing in any strategy, and the
/// closed form sums the other points only (their terms kept, the left-out ones zeroed). Node `from`
/// is moved a fraction t of the way to node `to`, which inverts the points near it.
template <class E, class M>
void expect_partly_inverted_cell_sums_its_upright_points(const std::string& name, const M& law, int from, int to,
                                                         Real t) {
  RestData<E> rest;
  const NodeMatrix<E> X = rest_cell<E>();
  ASSERT_GT(compute_rest_data<E>(X, rest), 0);
  NodeMatrix<E> x = X;
  x.row(from) = X.row(from) + t * (X.row(to) - X.row(from));
  int upright = 0;
  for (int q = 0; q < E::num_quad; ++q)
    upright += embed<3>(deformation_gradient<E>(x, rest.dN_dX[q])).determinant() > 0;
  ASSERT_GT(upright, 0) << name << ": the cell must keep some upright points";
  ASSERT_LT(upright, E::num_quad) << name << ": the cell must have inverted points";
  const Evaluation dpdf = evaluate<DPdFStiffness>(law, rest, x);
  EXPECT_LE(dpdf.detF, 0) << name;
  const std::string what = name + " (" + std::to_string(upright) + " upright points)";
  const Evaluation pk2 = evaluate<Pk2Stiffness>(law, rest, x);
  const Evaluation closed = evaluate<ClosedFormStiffness>(law, rest, x);
  expect_same(dpdf, pk2, what + ": S and CC against dP/dF");
  expect_same(dpdf, closed, what + ": closed form against dP/dF");
  EXPECT_TRUE(closed.K == closed.K.transpose()) << what << ": K must be exactly symmetric";
}

TEST(StiffnessStrategies, APartlyInvertedCellSumsItsUprightPointsOnlyInEveryStrategy) {
  const NeoHookean neo = NeoHookean::from_young_poisson(2e5, 0.45);
  const Yeoh yeoh = Yeoh::from_constants(3e4, -2e3, 500, 3e-6);
  // Hex8: corner 0 towards corner 6 (7 of 8 points upright at 0.8, 4 of 8 at 1.2); Tet10: corner 0
  // towards mid-edge node 9 (3 of 4 upright).
  for (const Real t : {0.8, 1.2}) {
    expect_partly_inverted_cell_sums_its_upright_points<Hex8>("NeoHookean Hex8", neo, 0, 6, t);
    expect_partly_inverted_cell_sums_its_upright_points<Hex8>("Yeoh Hex8", yeoh, 0, 6, t);
  }
  expect_partly_inverted_cell_sums_its_upright_points<Tet10>("NeoHookean Tet10", neo, 0, 9, 1.0);
  expect_partly_inverted_cell_sums_its_upright_points<Tet10>("Yeoh Tet10", yeoh, 0, 9, 1.0);
}

/// The closed-form laws compute P from F^-T, not as F S: the two agree to round-off at strains from
/// 0 to ~40 %, compression and shear included.
template <class M>
void expect_p_is_f_s(const std::string& name, const M& law) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<Real> u(-1, 1);
  for (int trial = 0; trial < 50; ++trial) {
    Mat3 F = Mat3::Identity();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) F(i, j) += (trial % 5) * 0.1 * u(rng);
    if (F.determinant() < 0.2) continue;
    const Mat3 FS = F * law.S(F), P = law.P(F);
    EXPECT_LE((P - FS).norm(), 1e-13 * FS.norm() + 1e-12 * law.P(Mat3(2 * Mat3::Identity())).norm())
        << name << " trial " << trial;
  }
  EXPECT_LE(law.P(Mat3::Identity()).norm(), 1e-10) << name << ": no stress at rest";
}

TEST(StiffnessStrategies, ClosedFormLawsGivePEqualToFS) {
  const Real E = 2e5, nu = 0.45;
  expect_p_is_f_s("NeoHookean", NeoHookean::from_young_poisson(E, nu));
  expect_p_is_f_s("NeoHookeanD1", NeoHookeanD1::from_young_poisson(E, nu));
  expect_p_is_f_s("Yeoh", Yeoh::from_constants(3e4, -2e3, 500, 3e-6, Volumetric::JSquaredLog));
  expect_p_is_f_s("ArrudaBoyce", ArrudaBoyce::from_young_poisson(E, nu, 2.5, Volumetric::LogSquared));
}

}  // namespace
}  // namespace softik::fem
