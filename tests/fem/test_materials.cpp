// Material laws, PK2 -> PK1 conversion, symmetric eigen-solver, SPD projection, polar decomposition.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "softik/error.hpp"
#include "softik/fem/materials/materials.hpp"
#include "softik/fem/sym_eigen3.hpp"

namespace softik::fem {
namespace {

constexpr Real kE = 10.0;  // Young's modulus of every test law

/// A law behind std::function so that all laws run through the same checks.
struct LawCase {
  std::string name;
  Real nu;  ///< the (kE, nu) the law was built from (small-strain limit)
  std::function<Real(const Mat3&)> psi;
  std::function<Mat3(const Mat3&)> P;
  std::function<Mat9(const Mat3&)> dPdF;
  bool objective = true;
};

template <class M>
LawCase make_case(const std::string& name, Real nu, const M& m, bool objective = true) {
  return {name,
          nu,
          [m](const Mat3& F) { return m.psi(F); },
          [m](const Mat3& F) { return m.P(F); },
          [m](const Mat3& F) { return m.dPdF(F); },
          objective};
}

/// A decoupled law with every term of decoupled_cc, W12 and W22 included (no shipped law has
/// them): W = c1 x + c2 y + c11 x^2/2 + c12 x y + c22 y^2/2 with x = Ibar1 - 3, y = Ibar2 - 3,
/// and U = (J - 1)^2 / D1; written in S(E) like the shipped laws (pk2_and_tangent).
struct PolynomialInvariants {
  Real c1, c2, c11, c12, c22, D1;
  IsochoricDerivatives derivatives(const IsochoricKinematics& k) const {
    const Real x = k.I1bar - 3, y = k.I2bar - 3;
    IsochoricDerivatives w;
    w.W1 = c1 + c11 * x + c12 * y;
    w.W2 = c2 + c12 * x + c22 * y;
    w.W11 = c11;
    w.W12 = c12;
    w.W22 = c22;
    return w;
  }
  Real psi(const Mat3& F) const {
    const IsochoricKinematics k = isochoric_kinematics(F);
    const Real x = k.I1bar - 3, y = k.I2bar - 3;
    return c1 * x + c2 * y + c11 * x * x / 2 + c12 * x * y + c22 * y * y / 2 +
           volumetric_term(Volumetric::D1Form, D1, k.J).U;
  }
  Mat3 P(const Mat3& F) const {
    Mat9 CC;
    return F * pk2_and_tangent(F, CC);
  }
  Mat3 pk2_and_tangent(const Mat3& F, Mat9& CC) const {
    const IsochoricKinematics k = isochoric_kinematics(F);
    const IsochoricDerivatives w = derivatives(k);
    const VolumetricTerm u = volumetric_term(Volumetric::D1Form, D1, k.J);
    CC = decoupled_cc(k, w, u);
    return decoupled_pk2(k, w, u);
  }
  Mat9 dPdF(const Mat3& F) const { return dPdF_from_pk2_law(*this, F); }
};

std::vector<LawCase> all_laws() {
  const Real nu = 0.3, nu2 = 0.45;
  const Real mu = kE / (2 * (1 + nu)), D1 = 2 / (kE / (3 * (1 - 2 * nu)));
  std::vector<LawCase> c;
  c.push_back(make_case("LinearElastic", nu, LinearElastic::from_young_poisson(kE, nu), false));
  c.push_back(make_case("SaintVenantKirchhoff", nu, SaintVenantKirchhoff::from_young_poisson(kE, nu)));
  c.push_back(make_case("NeoHookean", nu, NeoHookean::from_young_poisson(kE, nu)));
  c.push_back(make_case("NeoHookeanD1", nu2, NeoHookeanD1::from_young_poisson(kE, nu2)));
  c.push_back(make_case("StableNeoHookean", nu, StableNeoHookean::from_young_poisson(kE, nu)));
  c.push_back(make_case("MooneyRivlinD1", nu2, MooneyRivlin::from_young_poisson(kE, nu2, Volumetric::D1Form, 0.4)));
  c.push_back(make_case("MooneyRivlinLogJ", nu, MooneyRivlin::from_young_poisson(kE, nu, Volumetric::LogSquared, 0.3)));
  c.push_back(make_case("Ogden2", nu, Ogden<2>::from_young_poisson(kE, nu, {1.3, 5.0})));
  c.push_back(make_case("Ogden2NegativeAlpha", nu2,
                        Ogden<2>::from_young_poisson(kE, nu2, {2.5, -2.0}, Volumetric::LogSquared)));
  c.push_back(make_case("Ogden3", nu, Ogden<3>::from_constants({0.6 * mu, 0.5 * mu, -0.1 * mu}, {1.3, 5.0, -2.0}, D1)));
  c.push_back(make_case("Yeoh", nu, Yeoh::from_constants(mu / 2, 0.1 * mu, 0.02 * mu, D1)));
  c.push_back(
      make_case("YeohLogJ", nu, Yeoh::from_constants(mu / 2, -0.05 * mu, 0.01 * mu, D1, Volumetric::LogSquared)));
  c.push_back(make_case("ArrudaBoyce", nu, ArrudaBoyce::from_young_poisson(kE, nu, 2.5)));
  c.push_back(make_case("ArrudaBoyceD1", nu2, ArrudaBoyce::from_young_poisson(kE, nu2, 4.0, Volumetric::D1Form)));
  // Small-strain shear modulus 2 (W1 + W2) = 2 (c1 + c2) = mu.
  c.push_back(make_case("PolynomialInvariants", nu,
                        PolynomialInvariants{0.3 * mu, 0.2 * mu, 0.1 * mu, 0.05 * mu, 0.08 * mu, D1}));
  return c;
}

Real rel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& ref, Real floor = 0) {
  return (a - ref).norm() / std::max(ref.norm(), floor);
}

Mat3 random_rotation(std::mt19937& rng) {
  std::normal_distribution<Real> n(0, 1);
  Eigen::Quaterniond q(n(rng), n(rng), n(rng), n(rng));
  return q.normalized().toRotationMatrix();
}

/// Central differences of a scalar (gradient) or 3x3 (Jacobian, flat convention) function of F.
Mat3 fd_gradient(const std::function<Real(const Mat3&)>& f, const Mat3& F, Real h) {
  Mat3 g;
  for (int k = 0; k < 9; ++k) {
    Mat3 dF = Mat3::Zero();
    dF(k % 3, k / 3) = h;
    g(k % 3, k / 3) = (f(F + dF) - f(F - dF)) / (2 * h);
  }
  return g;
}

Mat9 fd_jacobian(const std::function<Mat3(const Mat3&)>& f, const Mat3& F, Real h) {
  Mat9 A;
  for (int k = 0; k < 9; ++k) {
    Mat3 dF = Mat3::Zero();
    dF(k % 3, k / 3) = h;
    A.col(k) = vec(f(F + dF) - f(F - dF)) / (2 * h);
  }
  return A;
}

/// F = I, a uniaxial stretch (two coincident stretches) and random well-conditioned F.
std::vector<Mat3> test_gradients() {
  std::vector<Mat3> Fs{Mat3::Identity(), Vec3(1.3, 0.93, 0.93).asDiagonal(), Vec3(0.8, 1.1, 1.1).asDiagonal()};
  std::mt19937 rng(7);
  std::uniform_real_distribution<Real> u(-1, 1);
  while (Fs.size() < 9) {
    Mat3 F = Mat3::Identity();
    for (int k = 0; k < 9; ++k) F(k % 3, k / 3) += 0.3 * u(rng);
    if (F.determinant() > 0.4) Fs.push_back(F);
  }
  Fs.push_back(random_rotation(rng) * Vec3(1.2, 0.9, 0.9).asDiagonal());  // rotated, coincident
  return Fs;
}

void PrintTo(const LawCase& c, std::ostream* os) { *os << c.name; }

class MaterialsLaw : public ::testing::TestWithParam<LawCase> {};

TEST_P(MaterialsLaw, StressIsFiniteDifferenceOfEnergy) {
  const LawCase& law = GetParam();
  const Real mu = kE / (2 * (1 + law.nu));
  for (const Mat3& F : test_gradients()) {
    const Mat3 fd = fd_gradient(law.psi, F, 1e-6 * std::max(1.0, F.cwiseAbs().maxCoeff()));
    EXPECT_LE(rel(fd, law.P(F), mu), 1e-6) << law.name << " at F =\n" << F;
  }
}

TEST_P(MaterialsLaw, TangentIsFiniteDifferenceOfStress) {
  const LawCase& law = GetParam();
  const Real mu = kE / (2 * (1 + law.nu));
  for (const Mat3& F : test_gradients()) {
    const Mat9 fd = fd_jacobian(law.P, F, 1e-6 * std::max(1.0, F.cwiseAbs().maxCoeff()));
    const Mat9 A = law.dPdF(F);
    EXPECT_LE(rel(fd, A, mu), 1e-6) << law.name << " at F =\n" << F;
    EXPECT_LE(rel(A.transpose(), A), 1e-12) << law.name << ": hyperelastic tangent must be symmetric";
  }
}

TEST_P(MaterialsLaw, RestStateIsStressAndEnergyFree) {
  const LawCase& law = GetParam();
  const Real mu = kE / (2 * (1 + law.nu));
  EXPECT_LE(std::abs(law.psi(Mat3::Identity())), 1e-14 * mu) << law.name;
  EXPECT_LE(law.P(Mat3::Identity()).norm(), 1e-13 * mu) << law.name;
}

TEST_P(MaterialsLaw, FrameIndifference) {
  const LawCase& law = GetParam();
  if (!law.objective) GTEST_SKIP() << law.name << " is a small-strain law (not frame indifferent)";
  std::mt19937 rng(11);
  for (const Mat3& F : test_gradients()) {
    const Mat3 Q = random_rotation(rng);
    const Real scale = kE * (1 + (F - Mat3::Identity()).squaredNorm());
    EXPECT_LE(std::abs(law.psi(Q * F) - law.psi(F)), 1e-13 * scale) << law.name;
    EXPECT_LE(rel(law.P(Q * F), Q * law.P(F), kE), 1e-12) << law.name;
  }
}

TEST_P(MaterialsLaw, SmallStrainLimitIsLinearElasticity) {
  const LawCase& law = GetParam();
  const Mat9 C = LinearElastic::from_young_poisson(kE, law.nu).elasticity_tensor();
  EXPECT_LE(rel(law.dPdF(Mat3::Identity()), C), 1e-9) << law.name;
}

INSTANTIATE_TEST_SUITE_P(Materials, MaterialsLaw, ::testing::ValuesIn(all_laws()),
                         [](const ::testing::TestParamInfo<LawCase>& i) { return i.param.name; });

// Uniaxial stretch F = diag(l, t, t): the principal PK1 stresses P_a = dpsi/dlambda_a,
// differentiated by hand from psi(lambda_1, lambda_2, lambda_3) with lambda = (l, t, t).
TEST(Materials, NeoHookeanUniaxialAnalytic) {
  const NeoHookean m = NeoHookean::from_lame(3.0, 2.0);
  for (const auto& [l, t] : {std::pair<Real, Real>{1.3, 0.9}, {0.7, 1.05}, {2.0, 0.8}}) {
    // psi = mu/2 (l^2 + 2 t^2 - 3) - mu log J + lambda/2 (log J)^2, J = l t^2
    //   P_11 = mu (l - 1/l) + lambda log(J) / l,   P_22 = P_33 = mu (t - 1/t) + lambda log(J) / t
    const Real lJ = std::log(l * t * t);
    const Vec3 expected(m.mu * (l - 1 / l) + m.lambda * lJ / l, m.mu * (t - 1 / t) + m.lambda * lJ / t,
                        m.mu * (t - 1 / t) + m.lambda * lJ / t);
    const Mat3 P = m.P(Vec3(l, t, t).asDiagonal());
    EXPECT_LE(rel(P, Mat3(expected.asDiagonal())), 1e-13);
  }
}

TEST(Materials, MooneyRivlinUniaxialAnalytic) {
  for (Volumetric v : {Volumetric::D1Form, Volumetric::LogSquared}) {
    const MooneyRivlin m = MooneyRivlin::from_constants(0.7, 0.2, 0.05, v);
    for (const auto& [l, t] : {std::pair<Real, Real>{1.3, 0.9}, {0.7, 1.05}, {2.0, 0.8}}) {
      // I1 = l^2 + 2 t^2, I2 = 2 l^2 t^2 + t^4, J = l t^2;
      // dI1/dl = 2 l, dI2/dl = 4 l t^2, dJ/dl = t^2;  dI1/dt2 = 2 t, dI2/dt2 = 2 t (l^2 + t^2), dJ/dt2 = l t
      // d(J^-2/3)/dl = -2/3 J^-2/3 / l (and / t for the second stretch), likewise J^-4/3.
      //   P_11 = C10 J^-2/3 (2 l - 2/3 I1 / l) + C01 J^-4/3 (4 l t^2 - 4/3 I2 / l) + U'(J) t^2
      //   P_22 = C10 J^-2/3 (2 t - 2/3 I1 / t) + C01 J^-4/3 (2 t (l^2 + t^2) - 4/3 I2 / t) + U'(J) l t
      // U'(J) = 2 (J - 1)/D1 (D1Form) or kappa log(J) / J, kappa = 2/D1 (LogSquared).
      const Real I1 = l * l + 2 * t * t, I2 = 2 * l * l * t * t + t * t * t * t, J = l * t * t;
      const Real a = std::pow(J, -2.0 / 3.0), b = a * a;
      const Real dU = v == Volumetric::D1Form ? 2 * (J - 1) / m.D1 : (2 / m.D1) * std::log(J) / J;
      const Real P11 =
          m.C10 * a * (2 * l - 2.0 / 3 * I1 / l) + m.C01 * b * (4 * l * t * t - 4.0 / 3 * I2 / l) + dU * t * t;
      const Real P22 = m.C10 * a * (2 * t - 2.0 / 3 * I1 / t) +
                       m.C01 * b * (2 * t * (l * l + t * t) - 4.0 / 3 * I2 / t) + dU * l * t;
      const Mat3 P = m.P(Vec3(l, t, t).asDiagonal());
      EXPECT_LE(rel(P, Mat3(Vec3(P11, P22, P22).asDiagonal())), 1e-13);
    }
  }
}

TEST(Materials, OgdenUniaxialAnalytic) {
  const Ogden<2> m = Ogden<2>::from_constants({1.5, 0.3}, {1.3, -2.0}, 0.1);
  for (const auto& [l, t] : {std::pair<Real, Real>{1.3, 0.9}, {0.7, 1.05}}) {
    // lb_a = J^-1/3 lambda_a, Tb = sum_a lb_a^alpha;  P_a = sum_p 2 mu_p / alpha_p (lb_a^alpha_p - Tb/3) / lambda_a
    //                                                       + U'(J) J / lambda_a,  U' = 2 (J - 1) / D1
    const Real J = l * t * t, lam[3] = {l, t, t};
    Vec3 expected;
    for (int a = 0; a < 3; ++a) {
      expected[a] = 2 * (J - 1) / m.D1 * J / lam[a];
      for (int p = 0; p < 2; ++p) {
        Real Tb = 0;
        for (Real x : lam) Tb += std::pow(std::cbrt(1 / J) * x, m.alpha[p]);
        expected[a] += 2 * m.mu[p] / m.alpha[p] * (std::pow(std::cbrt(1 / J) * lam[a], m.alpha[p]) - Tb / 3) / lam[a];
      }
    }
    EXPECT_LE(rel(m.P(Vec3(l, t, t).asDiagonal()), Mat3(expected.asDiagonal())), 1e-13);
  }
}

TEST(Materials, StableNeoHookeanIsDefinedWhenInverted) {
  const StableNeoHookean m = StableNeoHookean::from_young_poisson(kE, 0.3);
  const Mat3 F = Vec3(-0.5, 1.0, 1.0).asDiagonal();  // J < 0
  EXPECT_TRUE(std::isfinite(m.psi(F)) && m.P(F).allFinite() && m.dPdF(F).allFinite());
}

TEST(Materials, ParameterValidation) {
  const Real nan = std::numeric_limits<Real>::quiet_NaN();
  const auto all_yp = [&](Real E, Real nu) {
    EXPECT_THROW(LinearElastic::from_young_poisson(E, nu), Error) << E << " " << nu;
    EXPECT_THROW(SaintVenantKirchhoff::from_young_poisson(E, nu), Error);
    EXPECT_THROW(NeoHookean::from_young_poisson(E, nu), Error);
    EXPECT_THROW(NeoHookeanD1::from_young_poisson(E, nu), Error);
    EXPECT_THROW(StableNeoHookean::from_young_poisson(E, nu), Error);
    EXPECT_THROW(MooneyRivlin::from_young_poisson(E, nu), Error);
    EXPECT_THROW(Ogden<2>::from_young_poisson(E, nu, {2.0, -2.0}), Error);
    EXPECT_THROW(Yeoh::from_young_poisson(E, nu), Error);
    EXPECT_THROW(ArrudaBoyce::from_young_poisson(E, nu, 5.0), Error);
  };
  const Real inf = std::numeric_limits<Real>::infinity();
  for (const auto& [E, nu] :
       {std::pair<Real, Real>{1, 0.5}, {1, 0.6}, {1, -1}, {-1, 0.3}, {0, 0.3}, {nan, 0.3}, {1, nan}, {inf, 0.3}})
    all_yp(E, nu);
  std::string msg;  // the message names the parameter and its valid range
  try {
    NeoHookean::from_young_poisson(1.0, 0.5);
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_TRUE(msg.find("nu = 0.5") != std::string::npos && msg.find("-1 < nu < 0.5") != std::string::npos) << msg;
  EXPECT_THROW(LinearElastic::from_lame(1.0, -1.0), Error);
  EXPECT_THROW(NeoHookean::from_lame(-1.0, 1.0), Error);  // bulk modulus 1/3 - 1 < 0
  EXPECT_THROW(StableNeoHookean::from_lame(nan, 1.0), Error);
  EXPECT_THROW(NeoHookeanD1::from_constants(1.0, 0.0), Error);
  EXPECT_THROW(NeoHookeanD1::from_constants(-1.0, 0.1), Error);
  EXPECT_THROW(MooneyRivlin::from_constants(0.1, -0.2, 0.1), Error);
  EXPECT_THROW(MooneyRivlin::from_constants(0.1, 0.2, -0.1), Error);
  EXPECT_THROW(MooneyRivlin::from_constants(0.1, nan, 0.1), Error);
  EXPECT_THROW(Ogden<2>::from_constants({1.0, 1.0}, {2.0, 0.0}, 0.1), Error);
  EXPECT_THROW(Ogden<2>::from_constants({-1.0, 0.5}, {2.0, 3.0}, 0.1), Error);
  EXPECT_THROW(Yeoh::from_constants(0.0, 0.1, 0.1, 0.1), Error);
  EXPECT_THROW(ArrudaBoyce::from_constants(1.0, 0.0, 0.1), Error);
  EXPECT_THROW(ArrudaBoyce::from_constants(1.0, 3.0, nan), Error);
  EXPECT_NO_THROW(MooneyRivlin::from_constants(0.3, -0.1, 0.1));  // negative C01 is a valid fit
}

// ---- pk2_to_pk1 -----------------------------------------------------------------------------

TEST(Materials, PK2ToPK1MatchesDirectTangentForSVK) {
  // SVK written directly in F: P = F (lambda tr E I + 2 mu E); the generic conversion must agree
  // with finite differences of that P (independent of the S/CC route).
  const Real lambda = 1.7, mu = 0.9;
  const auto P = [&](const Mat3& F) {
    const Mat3 E = 0.5 * (F.transpose() * F - Mat3::Identity());
    return Mat3(F * (lambda * E.trace() * Mat3::Identity() + 2 * mu * E));
  };
  const Mat3 I = Mat3::Identity();
  const Mat9 CC = lambda * outer9(I, I) + 2 * mu * odot9(I, I);
  for (const Mat3& F : test_gradients()) {
    const Mat9 fd = fd_jacobian(P, F, 1e-6);
    const Mat3 E = 0.5 * (F.transpose() * F - I);
    const Mat3 S = lambda * E.trace() * I + 2 * mu * E;
    EXPECT_LE(rel(dPdF_from_pk2(F, S, CC), fd), 1e-8);
    EXPECT_LE(rel(pk1_from_pk2(F, S), P(F), 1.0), 1e-15);
  }
}

// ---- symmetric eigen-solver, SPD projection, polar decomposition -----------------------------

template <int N>
void check_eigen(const Eigen::Matrix<Real, N, N>& A) {
  Eigen::Matrix<Real, N, 1> w;
  Eigen::Matrix<Real, N, N> V;
  sym_eigen<N>(A, w, V);
  const Real s = std::max(A.norm(), 1e-300);
  EXPECT_LE((V * w.asDiagonal() * V.transpose() - A).norm() / s, 1e-12 * N / 3.0);
  EXPECT_LE((V.transpose() * V - Eigen::Matrix<Real, N, N>::Identity()).norm(), 1e-13 * N);
  for (int i = 0; i + 1 < N; ++i) EXPECT_LE(w[i], w[i + 1]);
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix<Real, N, N>> ref(A);
  EXPECT_LE((w - ref.eigenvalues()).norm() / s, 1e-13 * N);
}

TEST(SymEigen, RandomSymmetric3) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<Real> u(-1, 1);
  for (int k = 0; k < 200; ++k) {
    Mat3 B;
    for (int i = 0; i < 9; ++i) B(i % 3, i / 3) = u(rng) * std::pow(10.0, 3 * u(rng));
    check_eigen<3>(Mat3(B + B.transpose()));
  }
}

TEST(SymEigen, RepeatedEigenvalues) {
  std::mt19937 rng(5);
  check_eigen<3>(Mat3::Identity());
  check_eigen<3>(Mat3::Zero());
  check_eigen<3>(Mat3(Vec3(2, 2, 5).asDiagonal()));
  for (int k = 0; k < 20; ++k) {
    const Mat3 Q = random_rotation(rng);
    check_eigen<3>(Mat3(Q * Vec3(2, 2, 5).asDiagonal() * Q.transpose()));
    check_eigen<3>(Mat3(Q * Vec3(-1, 3, 3).asDiagonal() * Q.transpose()));
    check_eigen<3>(Mat3(Q * Vec3(4, 4, 4 + 1e-9).asDiagonal() * Q.transpose()));
  }
  Vec3 w;
  Mat3 V;
  sym_eigen3(Vec3(2, 5, 2).asDiagonal(), w, V);
  EXPECT_EQ(w, Vec3(2, 2, 5));  // exact on diagonal input, ascending
}

template <int N>
void check_generic(std::mt19937& rng) {
  std::uniform_real_distribution<Real> u(-1, 1);
  using M = Eigen::Matrix<Real, N, N>;
  for (int k = 0; k < 5; ++k) {
    M B;
    for (int i = 0; i < N * N; ++i) B(i % N, i / N) = u(rng);
    check_eigen<N>(M(B + B.transpose()));
    // SPD input comes back unchanged; indefinite input becomes the nearest PSD matrix.
    const M spd = B * B.transpose() + 0.1 * M::Identity();
    M A = spd;
    project_spd<N>(A);
    EXPECT_EQ(A, spd);
    const M sym = B + B.transpose();
    A = sym;
    project_spd<N>(A, 1e-3);
    Eigen::SelfAdjointEigenSolver<M> es(sym);
    const M expected = es.eigenvectors() * es.eigenvalues().cwiseMax(1e-3).asDiagonal() * es.eigenvectors().transpose();
    EXPECT_LE((A - expected).norm() / expected.norm(), 1e-12);
    EXPECT_LE((A - A.transpose()).norm(), 0.0);
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<M>(A).eigenvalues().minCoeff(), 1e-3 - 1e-12);
  }
}

TEST(SymEigen, GenericSizesAndProjectSpd) {
  std::mt19937 rng(9);
  check_generic<3>(rng);
  check_generic<9>(rng);
  check_generic<12>(rng);
  check_generic<24>(rng);
}

void check_polar(const Mat3& F) {
  Mat3 R, S;
  polar_decomposition(F, R, S);
  const Real s = F.norm();
  EXPECT_LE((R.transpose() * R - Mat3::Identity()).norm(), 1e-13) << F;
  EXPECT_NEAR(R.determinant(), 1.0, 1e-13) << F;
  EXPECT_EQ(S, S.transpose());
  EXPECT_LE((R * S - F).norm() / s, 1e-12) << F;
  if (F.determinant() > 0) {
    EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat3>(S).eigenvalues().minCoeff(), 0) << F;
    const Eigen::SelfAdjointEigenSolver<Mat3> es(F.transpose() * F);  // R = F (F^T F)^(-1/2)
    const Real cond = std::sqrt(es.eigenvalues()[2] / es.eigenvalues()[0]);
    EXPECT_LE((R - F * es.operatorInverseSqrt()).norm(), 1e-13 * cond * cond) << F;
  }
}

TEST(Polar, Decomposition3) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<Real> u(-1, 1);
  check_polar(Mat3::Identity());
  for (int k = 0; k < 100; ++k) {
    Mat3 F;
    for (int i = 0; i < 9; ++i) F(i % 3, i / 3) = u(rng);
    check_polar(F);  // either sign of det F
    const Mat3 Q = random_rotation(rng);
    check_polar(Q);
    check_polar(Mat3(Q * Vec3(1e-3, 1.0, 1e2).asDiagonal() * random_rotation(rng)));  // ill-conditioned
    check_polar(Mat3(Q * Vec3(1.3, 0.9, 0.9).asDiagonal()));                          // repeated stretches
  }
  Mat3 R, S, Q = random_rotation(rng);
  polar_decomposition(Q, R, S);
  EXPECT_LE((R - Q).norm(), 1e-14);
  EXPECT_LE((S - Mat3::Identity()).norm(), 1e-14);
}

TEST(Polar, NearRotationsReachRoundOff) {
  // The strains of a soft body (F = Q (I + E), E symmetric, 1e-9 to 0.3): the iteration stops as
  // soon as its step is below 1e-8, which must still leave R at round-off from the exact polar
  // factor Q, and S at round-off from I + E.
  std::mt19937 rng(23);
  std::uniform_real_distribution<Real> u(-1, 1);
  for (Real size : {1e-9, 1e-6, 1e-4, 1e-2, 0.1, 0.3}) {
    for (int k = 0; k < 50; ++k) {
      Mat3 E;
      for (int i = 0; i < 9; ++i) E(i % 3, i / 3) = u(rng);
      E = (0.5 * size / E.norm()) * (E + E.transpose()).eval();
      const Mat3 Q = random_rotation(rng);
      const Mat3 F = Q * (Mat3::Identity() + E);
      Mat3 R, S;
      polar_decomposition(F, R, S);
      EXPECT_LE((R - Q).norm(), 2e-15) << "|E| = " << size;
      EXPECT_LE((S - Mat3::Identity() - E).norm(), 4e-15) << "|E| = " << size;
    }
  }
}

TEST(Polar, Decomposition2) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<Real> u(-1, 1);
  for (int k = 0; k < 100; ++k) {
    Eigen::Matrix2d F, R, S;
    F << u(rng), u(rng), u(rng), u(rng);
    polar_decomposition2(F, R, S);
    EXPECT_LE((R.transpose() * R - Eigen::Matrix2d::Identity()).norm(), 1e-15);
    EXPECT_NEAR(R.determinant(), 1.0, 1e-15);
    EXPECT_EQ(S, S.transpose());
    EXPECT_LE((R * S - F).norm() / F.norm(), 1e-14);
    if (F.determinant() > 0) {
      EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>(S).eigenvalues().minCoeff(), 0);
    }
  }
}

}  // namespace
}  // namespace softik::fem
