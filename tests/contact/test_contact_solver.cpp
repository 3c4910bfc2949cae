// solve_frictional_contact() and frictional_contact_residual() (contact.hpp) against the
// Signorini-Coulomb conditions: random SPD compliances W = B B^T + c I with random free
// displacements and friction coefficients, closed-form single contacts, PGS vs Direct on
// frictionless problems, warm starts, unconverged reports and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "host/contact/contact_solvers.hpp"
#include "softik/contact.hpp"
#include "softik/error.hpp"

namespace softik {
namespace {

using MatrixXr = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
using VectorXr = Eigen::Matrix<Real, Eigen::Dynamic, 1>;

struct Problem {
  MatrixXr W;
  VectorXr delta_free;
  std::vector<Real> mu;
};

// n contacts, W = B B^T / (3n) + 0.2 I (units of compliance ~1), delta_free in [-1, 1].
Problem random_problem(int n, unsigned seed, Real mu_max) {
  std::mt19937 rng(seed);
  std::normal_distribution<Real> g;
  std::uniform_real_distribution<Real> u(-1, 1), m(0, mu_max);
  Problem p;
  MatrixXr B(3 * n, 3 * n);
  for (int i = 0; i < 3 * n; ++i)
    for (int j = 0; j < 3 * n; ++j) B(i, j) = g(rng);
  p.W = B * B.transpose() / (3 * n) + 0.2 * MatrixXr::Identity(3 * n, 3 * n);
  p.delta_free.resize(3 * n);
  for (int i = 0; i < 3 * n; ++i) p.delta_free[i] = u(rng);
  for (int i = 0; i < n; ++i) p.mu.push_back(m(rng));
  return p;
}

// The Signorini-Coulomb conditions of contact.hpp at lambda, to tolerance tol.
void expect_solution(const Problem& p, const VectorXr& lambda, Real tol) {
  const VectorXr delta = p.delta_free + p.W * lambda;
  for (size_t i = 0; i < p.mu.size(); ++i) {
    const Eigen::Index k = 3 * Eigen::Index(i);
    const Real ln = lambda[k], dn = delta[k];
    const Eigen::Matrix<Real, 2, 1> lt = lambda.segment<2>(k + 1), dt = delta.segment<2>(k + 1);
    EXPECT_GE(ln, -tol) << "contact " << i;
    EXPECT_GE(dn, -tol) << "contact " << i;
    EXPECT_NEAR(ln * dn, 0, tol) << "contact " << i;
    EXPECT_LE(lt.norm(), p.mu[i] * ln * (1 + tol) + tol) << "contact " << i;
    if (lt.norm() < p.mu[i] * ln * (1 - 1e-6)) {
      EXPECT_LT(dt.norm(), tol) << "stick contact " << i;
    } else if (dt.norm() > tol) {
      // Slip: lambda_t = -mu lambda_n delta_t / |delta_t|.
      EXPECT_LT((lt + p.mu[i] * ln * dt / dt.norm()).norm(), tol * (1 + ln)) << "slip contact " << i;
    }
  }
}

TEST(ContactSolver, SingleFrictionlessContactIsClosedForm) {
  // A block pressed 2 mm into the floor: lambda_n = -delta_n / W_nn.
  MatrixXr W = MatrixXr::Identity(3, 3) * 1e-3;
  W(0, 0) = 4e-3;
  VectorXr delta_free(3), lambda;
  delta_free << -2e-3, 1e-3, 0;
  const ContactSolverReport r = solve_frictional_contact(W, delta_free, {0.0}, lambda);
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(lambda[0], 0.5, 1e-14);
  EXPECT_EQ(lambda[1], 0);
  EXPECT_EQ(lambda[2], 0);
  EXPECT_LE(r.residual, 1e-12);
  // Separating: no force.
  delta_free[0] = 1e-3;
  solve_frictional_contact(W, delta_free, {0.5}, lambda);
  EXPECT_EQ(lambda.norm(), 0);
}

TEST(ContactSolver, SingleContactStickAndSlipAreClosedForm) {
  // W = diag(1, 2, 2): pressed by 1 (lambda_n = 1) with a tangential push of 0.5 needing
  // lambda_t = 0.25: sticks for mu = 0.5, slips for mu = 0.1 (lambda_t = -0.1, delta_t = 0.3).
  MatrixXr W = MatrixXr::Zero(3, 3);
  W.diagonal() << 1, 2, 2;
  VectorXr delta_free(3), lambda;
  delta_free << -1, -0.5, 0;
  solve_frictional_contact(W, delta_free, {0.5}, lambda);
  EXPECT_NEAR(lambda[0], 1, 1e-14);
  EXPECT_NEAR(lambda[1], 0.25, 1e-14);
  solve_frictional_contact(W, delta_free, {0.1}, lambda);
  EXPECT_NEAR(lambda[0], 1, 1e-14);
  EXPECT_NEAR(lambda[1], 0.1, 1e-14);
  EXPECT_NEAR(lambda[2], 0, 1e-14);
}

TEST(ContactSolver, GaussSeidelSatisfiesSignoriniCoulombOnRandomProblems) {
  for (unsigned seed = 1; seed <= 6; ++seed) {
    const Problem p = random_problem(12, seed, 0.8);
    VectorXr lambda;
    const ContactSolverReport r = solve_frictional_contact(p.W, p.delta_free, p.mu, lambda);
    ASSERT_TRUE(r.converged) << "seed " << seed << " residual " << r.residual;
    EXPECT_LE(r.residual, 1e-12);
    EXPECT_NEAR(frictional_contact_residual(p.W, p.delta_free, p.mu, lambda), r.residual, 1e-15);
    expect_solution(p, lambda, 1e-9);
  }
}

TEST(ContactSolver, GaussSeidelAndDirectAgreeWithoutFriction) {
  for (unsigned seed = 10; seed < 14; ++seed) {
    Problem p = random_problem(10, seed, 0);
    VectorXr gs, direct;
    ContactSolverOptions options;
    const ContactSolverReport rg = solve_frictional_contact(p.W, p.delta_free, p.mu, gs, options);
    options.method = ContactSolverMethod::Direct;
    const ContactSolverReport rd = solve_frictional_contact(p.W, p.delta_free, p.mu, direct, options);
    ASSERT_TRUE(rg.converged);
    ASSERT_TRUE(rd.converged);
    EXPECT_LE(rd.residual, 1e-12);
    EXPECT_LT((gs - direct).norm(), 1e-9 * (1 + direct.norm())) << "seed " << seed;
    expect_solution(p, direct, 1e-10);
  }
}

TEST(ContactSolver, DirectPyramidStaysInTheConeAndIsComplementary) {
  const Problem p = random_problem(6, 21, 0.6);
  VectorXr lambda;
  ContactSolverOptions options;
  options.method = ContactSolverMethod::Direct;
  const ContactSolverReport r = solve_frictional_contact(p.W, p.delta_free, p.mu, lambda, options);
  ASSERT_TRUE(r.converged);
  const VectorXr delta = p.delta_free + p.W * lambda;
  for (size_t i = 0; i < p.mu.size(); ++i) {
    const Eigen::Index k = 3 * Eigen::Index(i);
    EXPECT_GE(lambda[k], -1e-12);
    EXPECT_GE(delta[k], -1e-10);
    EXPECT_NEAR(lambda[k] * delta[k], 0, 1e-10);
    EXPECT_LE(lambda.segment<2>(k + 1).norm(), p.mu[i] * lambda[k] * (1 + 1e-12) + 1e-12);
  }
  // The 8-facet pyramid is close to the disc: the exact-cone residual is small, not zero.
  VectorXr exact;
  solve_frictional_contact(p.W, p.delta_free, p.mu, exact);
  EXPECT_LT((lambda - exact).norm(), 0.2 * exact.norm());
}

TEST(ContactSolver, WarmStartConvergesInFewerSweeps) {
  Problem p = random_problem(15, 33, 0.5);
  VectorXr lambda;
  const ContactSolverReport cold = solve_frictional_contact(p.W, p.delta_free, p.mu, lambda);
  ASSERT_TRUE(cold.converged);
  p.delta_free *= 1.001;
  VectorXr zero;
  const ContactSolverReport again_cold = solve_frictional_contact(p.W, p.delta_free, p.mu, zero);
  const ContactSolverReport warm = solve_frictional_contact(p.W, p.delta_free, p.mu, lambda);
  ASSERT_TRUE(warm.converged);
  EXPECT_LT(warm.iterations, again_cold.iterations);
  EXPECT_LT((lambda - zero).norm(), 1e-9 * lambda.norm());
}

TEST(ContactSolver, UnconvergedSolveIsReportedNotThrown) {
  const Problem p = random_problem(12, 4, 0.5);
  VectorXr lambda;
  ContactSolverOptions options;
  options.max_iterations = 1;
  const ContactSolverReport r = solve_frictional_contact(p.W, p.delta_free, p.mu, lambda, options);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 1);
  EXPECT_GT(r.residual, options.tolerance);
  EXPECT_EQ(r.residual, frictional_contact_residual(p.W, p.delta_free, p.mu, lambda));
}

TEST(ContactSolver, ResidualIsZeroOnlyAtSolutions) {
  MatrixXr W = MatrixXr::Identity(3, 3);
  VectorXr delta_free(3), lambda(3);
  delta_free << -1, 0, 0;
  lambda << 1, 0, 0;
  EXPECT_EQ(frictional_contact_residual(W, delta_free, {0.3}, lambda), 0);
  lambda << 0.5, 0, 0;  // still penetrating by 0.5
  EXPECT_NEAR(frictional_contact_residual(W, delta_free, {0.3}, lambda), 0.5, 1e-15);
  lambda << 1, 0.5, 0;  // outside the cone
  EXPECT_GT(frictional_contact_residual(W, delta_free, {0.3}, lambda), 0.1);
}

TEST(ContactSolver, AFrictionlessSeparatedContactWithoutSlipIsSolved) {
  // lambda = 0 with a positive gap and exactly zero tangential motion: the cone of mu = 0 is the
  // half-line lambda_t = 0, lambda_n >= 0, and (-rho gap, 0, 0) projects to its apex (a sign of
  // zero once made -rho gap count as inside the cone, and the solve as never converging).
  MatrixXr W = MatrixXr::Identity(3, 3) * 1e-3;
  VectorXr delta_free(3), lambda = VectorXr::Zero(3);
  delta_free << 2e-3, 0, 0;
  EXPECT_EQ(frictional_contact_residual(W, delta_free, {0.0}, lambda), 0);
  const ContactSolverReport r = solve_frictional_contact(W, delta_free, {0.0}, lambda);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(lambda.norm(), 0);
}

TEST(ContactSolver, BadInputThrows) {
  const Problem p = random_problem(2, 1, 0.3);
  VectorXr lambda;
  EXPECT_THROW(solve_frictional_contact(p.W, p.delta_free, {0.3}, lambda), Error);
  EXPECT_THROW(solve_frictional_contact(p.W, p.delta_free.head(5), p.mu, lambda), Error);
  EXPECT_THROW(solve_frictional_contact(p.W, p.delta_free, {0.3, -0.1}, lambda), Error);
  VectorXr nan_free = p.delta_free;
  nan_free[2] = NAN;
  EXPECT_THROW(solve_frictional_contact(p.W, nan_free, p.mu, lambda), Error);
  MatrixXr W = p.W;
  W(4, 4) = 0;
  EXPECT_THROW(solve_frictional_contact(W, p.delta_free, p.mu, lambda), Error);
}

// A compliance built from a step's tangent that stopped being positive definite (a
// hyperelastic grasp) is a numerical failure, not bad input: it once exited 1 with advice about
// free DOFs. The dynamic and inverse contact loops check their W with check_step_compliance.
TEST(ContactSolver, AStepComplianceThatIsNotPositiveIsANumericalFailure) {
  const Problem p = random_problem(2, 1, 0.3);
  EXPECT_NO_THROW(contact::check_step_compliance(p.W, "dynamics contact"));
  for (const Real bad : {Real(0), Real(-1e-3), Real(NAN)}) {
    MatrixXr W = p.W;
    W(3, 3) = bad;
    try {
      contact::check_step_compliance(W, "dynamics contact");
      ADD_FAILURE() << "no error for W(3, 3) = " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Numerical) << e.what();
      const std::string m = e.what();
      EXPECT_EQ(m.find("dynamics contact: the contact compliance"), 0u) << m;
      EXPECT_NE(m.find(std::isnan(bad) ? "NaN or inf" : "W(3, 3) = "), std::string::npos) << m;
      if (!std::isnan(bad)) {
        EXPECT_NE(m.find("contact 1, normal row"), std::string::npos) << m;
      }
      EXPECT_NE(m.find("smaller time or load step"), std::string::npos) << m;
      EXPECT_EQ(m.find("free DOF"), std::string::npos) << m;
    }
  }
}

}  // namespace
}  // namespace softik
