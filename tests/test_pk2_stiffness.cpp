// The element stiffness from S and CC (fem/pk2_stiffness.hpp, taken by hyperelastic_element for
// 3D cells of laws with pk2_and_tangent on the host), or in closed form from F (NeoHookean and the
// decoupled Ibar1 laws, materials/decoupled_i1.hpp), against the contraction of dP/dF (the GPU's
// StiffnessForm::FromDPdF), for every law written in S(E) and every 3D element, also on cells with
// some points inverted; its exact symmetry; and the closed-form laws' P against F S.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "softik/fem/element_traits.hpp"
#include "softik/fem/hyperelastic_element.hpp"
#include "softik/fem/materials/materials.hpp"

namespace softik::fem {
namespace {

/// The same law seen only through psi, P and dPdF: hyperelastic_element contracts dP/dF.
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

/// Reference cell nodes, scaled and sheared so that dN/dX is not the reference one.
template <class E>
NodeMatrix<E> rest_cell() {
  NodeMatrix<E> X;
  Mat3 A;
  A << 0.02, 0.004, 0.0, 0.0, 0.017, 0.003, 0.002, 0.0, 0.025;
  for (int a = 0; a < E::num_nodes; ++a) X.row(a) = (A * E::reference_node(a)).transpose();
  return X;
}

template <class E, class M>
void expect_same_element(const std::string& name, const M& law) {
  RestData<E> rest;
  ASSERT_GT(compute_rest_data<E>(rest_cell<E>(), rest), 0);
  std::mt19937 rng(5);
  std::uniform_real_distribution<Real> u(-1, 1);
  for (int trial = 0; trial < 20; ++trial) {
    NodeMatrix<E> x = rest_cell<E>();
    for (int a = 0; a < E::num_nodes; ++a)
      for (int i = 0; i < 3; ++i) x(a, i) += 0.003 * u(rng);  // up to ~15 % strain
    ElementVector<E> f_new, f_ref;
    ElementMatrix<E> K_new, K_ref;
    Real e_new = 0, e_ref = 0;
    const Real detF = hyperelastic_element<E>(law, rest, x, {&e_new, &f_new, &K_new});
    ASSERT_GT(detF, 0) << name;
    hyperelastic_element<E>(ThroughDPdF<M>{law}, rest, x, {&e_ref, &f_ref, &K_ref});
    EXPECT_LE((K_new - K_ref).norm(), 1e-13 * K_ref.norm()) << name << " trial " << trial;
    EXPECT_LE((f_new - f_ref).norm(), 1e-13 * f_ref.norm()) << name << " trial " << trial;
    EXPECT_EQ(e_new, e_ref) << name;
    EXPECT_TRUE(K_new == K_new.transpose()) << name << ": K must be exactly symmetric";
    // The GPU's form (StiffnessForm::FromDPdF) is the contraction of dP/dF itself, bit for bit.
    ElementVector<E> f_dpdf;
    ElementMatrix<E> K_dpdf;
    Real e_dpdf = 0;
    hyperelastic_element<E, M, StiffnessForm::FromDPdF>(law, rest, x, {&e_dpdf, &f_dpdf, &K_dpdf});
    EXPECT_TRUE(K_dpdf == K_ref && f_dpdf == f_ref && e_dpdf == e_ref) << name << ": FromDPdF takes the dP/dF path";
  }
}

template <class M>
void expect_same_on_every_3d_element(const std::string& name, const M& law) {
  expect_same_element<Tet4>(name + " Tet4", law);
  expect_same_element<Hex8>(name + " Hex8", law);
  expect_same_element<Tet10>(name + " Tet10", law);
}

TEST(Pk2Stiffness, EqualsTheContractionOfDPdFForEveryLawAndElement) {
  const Real E = 2e5, nu = 0.45;
  expect_same_on_every_3d_element("NeoHookean", NeoHookean::from_young_poisson(E, nu));
  expect_same_on_every_3d_element("NeoHookeanD1", NeoHookeanD1::from_young_poisson(E, nu));
  expect_same_on_every_3d_element("SaintVenantKirchhoff", SaintVenantKirchhoff::from_young_poisson(E, nu));
  expect_same_on_every_3d_element("MooneyRivlin", MooneyRivlin::from_young_poisson(E, nu, Volumetric::D1Form, 0.3));
  expect_same_on_every_3d_element("Yeoh", Yeoh::from_constants(3e4, -2e3, 500, 3e-6));
  expect_same_on_every_3d_element("Yeoh log", Yeoh::from_constants(3e4, -2e3, 500, 3e-6, Volumetric::LogSquared));
  expect_same_on_every_3d_element("ArrudaBoyce", ArrudaBoyce::from_young_poisson(E, nu, 2.5));
  expect_same_on_every_3d_element("ArrudaBoyce D1", ArrudaBoyce::from_young_poisson(E, nu, 2.5, Volumetric::D1Form));
  expect_same_on_every_3d_element("Ogden3", Ogden<3>::from_young_poisson(E, nu, {1.3, 5.0, -2.0}));
}

/// A cell with some of its points inverted: those points add nothing, as on the dP/dF path, and the
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
  ElementVector<E> f_new, f_ref;
  ElementMatrix<E> K_new, K_ref;
  Real e_new = 0, e_ref = 0;
  EXPECT_LE((hyperelastic_element<E>(law, rest, x, {&e_new, &f_new, &K_new})), 0) << name;
  hyperelastic_element<E>(ThroughDPdF<M>{law}, rest, x, {&e_ref, &f_ref, &K_ref});
  ASSERT_GT(K_ref.norm(), 0) << name;
  EXPECT_LE((K_new - K_ref).norm(), 1e-13 * K_ref.norm()) << name << " (" << upright << " upright points)";
  EXPECT_LE((f_new - f_ref).norm(), 1e-13 * f_ref.norm()) << name;
  EXPECT_TRUE(K_new == K_new.transpose()) << name << ": K must be exactly symmetric";
}

TEST(Pk2Stiffness, ClosedFormOfAPartlyInvertedCellSumsItsUprightPointsOnly) {
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

TEST(Pk2Stiffness, ClosedFormLawsGivePEqualToFS) {
  const Real E = 2e5, nu = 0.45;
  expect_p_is_f_s("NeoHookean", NeoHookean::from_young_poisson(E, nu));
  expect_p_is_f_s("NeoHookeanD1", NeoHookeanD1::from_young_poisson(E, nu));
  expect_p_is_f_s("Yeoh", Yeoh::from_constants(3e4, -2e3, 500, 3e-6, Volumetric::JSquaredLog));
  expect_p_is_f_s("ArrudaBoyce", ArrudaBoyce::from_young_poisson(E, nu, 2.5, Volumetric::LogSquared));
}

}  // namespace
}  // namespace softik::fem
