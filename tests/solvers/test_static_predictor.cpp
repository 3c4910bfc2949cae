// The static solver's load steps start from the converged state's tangent (static_solver.cpp,
// Newton::equilibrate): the first iteration's pressure load stiffness is the previous load's,
// so inflating a cavity factors only positive-definite tangents (one L L^T each, never the
// L D L^T fallback), and the equilibrium reached is the same. With chord steps
// (NewtonOptions::chord_contraction) iterations that keep cutting the residual keep the
// factorisation: fewer factorisations than iterations, the same converged state. Krylov steps
// (NewtonOptions::krylov_iterations) solve each iteration's own tangent with the kept factor as
// preconditioner: the iterations of full Newton, residual for residual, at fewer factorisations.
// The second-order predictor (NewtonOptions::extrapolate, host/solvers/load_predictor.hpp) starts
// each load step after the first from x(lambda) extrapolated to second order: exact on a path
// quadratic in lambda, fewer iterations on the finger, the same converged state.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "host/solvers/load_predictor.hpp"
#include "softik/actuator_generator.hpp"
#include "softik/linear_solver.hpp"
#include "softik/loads.hpp"
#include "softik/static_solver.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

/// A LinearSolver that counts what the one it wraps did.
class CountingSolver final : public LinearSolver {
 public:
  const char* name() const override { return inner_->name(); }
  void analyze(const CsrPattern& pattern) override { inner_->analyze(pattern); }
  void factorize(const std::vector<Real>& values) override {
    inner_->factorize(values);
    ++factorizations;
    indefinite += inner_->info().indefinite ? 1 : 0;
    passes += inner_->info().passes;
  }
  void solve(const Real* b, Real* x, int nrhs) const override { inner_->solve(b, x, nrhs); }
  const FactorizationInfo& info() const override { return inner_->info(); }

  int factorizations = 0, indefinite = 0, passes = 0;

 private:
  std::unique_ptr<LinearSolver> inner_ = make_linear_solver();
};

struct InflatedFinger {
  Mesh mesh;
  std::unique_ptr<Assembler> assembler;
  Loads loads;

  InflatedFinger() {
    FingerSpec spec;
    spec.cell_size = 0.004;
    mesh = make_finger(spec);
    AssemblyOptions options;
    options.formulation = Formulation::Hyperelastic;
    assembler = std::make_unique<Assembler>(mesh, std::vector<Material>{fem::NeoHookean::from_young_poisson(2e5, 0.45)},
                                            fix_nodes(mesh, mesh.node_groups.at("xmin")), options);
    PressureLoad p = cavity_load(mesh);
    p.pressure = 20e3;  // the cavity's volume grows by about 70%
    loads.pressures.push_back(p);
  }

  std::vector<Real> solve(int load_steps, CountingSolver& solver, Real chord = 0,
                          StaticResult* result = nullptr) const {
    NewtonOptions o;
    o.load_steps = load_steps;
    o.chord_contraction = chord;
    return solve(o, solver, result);
  }
  std::vector<Real> solve(const NewtonOptions& o, LinearSolver& solver, StaticResult* result = nullptr) const {
    std::vector<Real> x = mesh.rest_positions();
    const StaticResult r = solve_static(*assembler, solver, loads, x, o);
    if (result) *result = r;
    return x;
  }
};

TEST(StaticPredictor, InflatingACavityFactorsOnlyDefiniteTangents) {
  const InflatedFinger finger;
  CountingSolver solver;
  const std::vector<Real> x = finger.solve(4, solver);
  // The new pressure's load stiffness on the old geometry made each step's first tangent
  // indefinite (measured before this predictor: 4 of 4 load steps, 2 passes each).
  EXPECT_EQ(solver.indefinite, 0) << solver.factorizations << " factorisations";
  EXPECT_EQ(solver.passes, solver.factorizations);
  // The path changed, not the end: the same equilibrium as 16 smaller steps.
  CountingSolver fine;
  const std::vector<Real> x16 = finger.solve(16, fine);
  const std::vector<Real> X = finger.mesh.rest_positions();
  Real largest = 0, difference = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    largest = std::max(largest, std::abs(x[k] - X[k]));
    difference = std::max(difference, std::abs(x[k] - x16[k]));
  }
  EXPECT_GT(largest, 1e-3);  // millimetres: a large deformation
  // Both stop at a relative residual of 1e-8 (NewtonOptions): their states agree to about that.
  EXPECT_LT(difference, 1e-7 * largest) << difference / largest;
}

TEST(StaticPredictor, ChordStepsKeepTheFactorisationAndReachTheSameState) {
  const InflatedFinger finger;
  CountingSolver newton_solver, chord_solver;
  StaticResult newton, chord;
  const std::vector<Real> x = finger.solve(4, newton_solver, 0, &newton);
  const std::vector<Real> xc = finger.solve(4, chord_solver, 0.25, &chord);
  // Full Newton factorises every iteration; chord steps skip some, never an indefinite factor.
  EXPECT_EQ(newton_solver.factorizations, newton.iterations);
  EXPECT_LT(chord_solver.factorizations, newton_solver.factorizations);
  EXPECT_LT(chord_solver.factorizations, chord.iterations);
  EXPECT_EQ(chord_solver.indefinite, 0);
  // A chord step is taken only right after a step that cut the residual at least 4x.
  int chords = 0;
  for (size_t k = 1; k < chord.log.size(); ++k) {
    if (chord.log[k].factorized) continue;
    ++chords;
    ASSERT_EQ(chord.log[k].load_step, chord.log[k - 1].load_step);
    EXPECT_LE(chord.log[k].residual, 0.25 * chord.log[k - 1].residual) << "iteration " << k;
  }
  EXPECT_EQ(chords, chord.iterations - chord_solver.factorizations);
  // The same residual test ends both: states agree to the tolerance's scale.
  const std::vector<Real> X = finger.mesh.rest_positions();
  Real largest = 0, difference = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    largest = std::max(largest, std::abs(x[k] - X[k]));
    difference = std::max(difference, std::abs(x[k] - xc[k]));
  }
  EXPECT_LT(difference, 1e-6 * largest) << difference / largest;
}

/// Largest |a - b| over the largest displacement |a - X|.
Real relative_difference(const std::vector<Real>& a, const std::vector<Real>& b, const std::vector<Real>& X) {
  Real largest = 0, difference = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    largest = std::max(largest, std::abs(a[k] - X[k]));
    difference = std::max(difference, std::abs(a[k] - b[k]));
  }
  return difference / largest;
}

/// The finger solved with CHOLMOD by full Newton (krylov_iterations 0) and with `o`.
struct AgainstFullNewton {
  std::vector<Real> x_newton, x;
  StaticResult newton, result;
  AgainstFullNewton(const InflatedFinger& finger, NewtonOptions o) {
    auto solver = make_linear_solver(LinearSolverKind::Cholmod);
    NewtonOptions full = o;
    full.krylov_iterations = 0;
    x_newton = finger.solve(full, *solver, &newton);
    x = finger.solve(o, *solver, &result);
  }
};

TEST(StaticPredictor, KrylovStepsFollowFullNewtonAtFewerFactorisations) {
  if (!have_cholmod()) GTEST_SKIP() << "softik was built without CHOLMOD (Krylov steps need an L L^T factor)";
  const InflatedFinger finger;
  NewtonOptions o;
  o.load_steps = 4;
  o.krylov_iterations = 15;
  const AgainstFullNewton run(finger, o);
  const StaticResult &newton = run.newton, &krylov = run.result;
  const std::vector<Real>&x = run.x_newton, &xk = run.x;
  EXPECT_EQ(newton.factorizations, newton.iterations);
  EXPECT_EQ(newton.krylov_iterations, 0);
  // The same Newton iterations, residual for residual: each step solved its own tangent.
  ASSERT_EQ(krylov.iterations, newton.iterations);
  ASSERT_EQ(krylov.log.size(), newton.log.size());
  // A step solved to 1e-6 leaves an error of up to 1e-6 of its residual in the next one.
  std::vector<Real> first(static_cast<size_t>(o.load_steps), 0.0);
  for (const NewtonIterationLog& e : newton.log)
    first[static_cast<size_t>(e.load_step)] = std::max(first[static_cast<size_t>(e.load_step)], e.residual);
  for (size_t k = 0; k < krylov.log.size(); ++k) {
    ASSERT_EQ(krylov.log[k].load_step, newton.log[k].load_step);
    const Real slack = 1e-4 * newton.log[k].residual + 1e-5 * first[static_cast<size_t>(newton.log[k].load_step)];
    EXPECT_NEAR(krylov.log[k].residual, newton.log[k].residual, slack) << "iteration " << k;
  }
  // ... with fewer factorisations: every other iteration was a Krylov step.
  EXPECT_LT(2 * krylov.factorizations, krylov.iterations) << krylov.factorizations << " of " << krylov.iterations;
  int steps = 0;
  for (const NewtonIterationLog& e : krylov.log) {
    EXPECT_FALSE(e.krylov && e.factorized);
    steps += e.krylov ? 1 : 0;
  }
  EXPECT_EQ(steps, krylov.iterations - krylov.factorizations);
  EXPECT_GT(krylov.krylov_iterations, steps);  // more than one CG iteration per step: a new K each time
  // A step that needed more than half the cap leaves a stale factor: the next iteration factorises.
  int cg = 0, refreshed = 0;
  for (size_t k = 0; k < krylov.log.size(); ++k) {
    const NewtonIterationLog& e = krylov.log[k];
    cg += e.cg_iterations;
    EXPECT_LE(e.cg_iterations, o.krylov_iterations) << k;
    if (e.krylov) {
      EXPECT_GT(e.cg_iterations, 0) << k;
    }
    if (!e.krylov || 2 * e.cg_iterations <= o.krylov_iterations || k + 1 == krylov.log.size()) continue;
    const NewtonIterationLog& next = krylov.log[k + 1];
    if (next.step_length == 0) continue;  // the entry that ended the load step: no solve
    EXPECT_TRUE(next.factorized && !next.krylov)
        << "iteration " << k + 1 << " after " << e.cg_iterations << " CG iterations";
    ++refreshed;
  }
  EXPECT_EQ(cg, krylov.krylov_iterations);
  EXPECT_GT(refreshed, 0) << "no Krylov step needed more than half the cap: the refresh went untested";
  EXPECT_LT(relative_difference(xk, x, finger.mesh.rest_positions()), 1e-9);
}

TEST(StaticPredictor, AKrylovStepThatDoesNotConvergeFactorisesAsNewtonDoes) {
  if (!have_cholmod()) GTEST_SKIP() << "softik was built without CHOLMOD (Krylov steps need an L L^T factor)";
  const InflatedFinger finger;
  NewtonOptions o;
  o.load_steps = 2;
  o.krylov_iterations = 2;  // never enough for a relative residual of 1e-14
  o.krylov_tolerance = 1e-14;
  const AgainstFullNewton run(finger, o);
  const StaticResult& capped = run.result;
  const std::vector<Real>&x = run.x_newton, &xc = run.x;
  EXPECT_GT(capped.krylov_iterations, 0);               // tried ...
  EXPECT_EQ(capped.factorizations, capped.iterations);  // ... and every iteration factorised instead
  EXPECT_EQ(xc, x);                                     // the very operations of full Newton
}

TEST(StaticPredictor, TheExtrapolatedStepIsExactOnAQuadraticPath) {
  // x(lambda) = a + b lambda + c lambda^2 per component; the converged states x(lambda_k - h_p)
  // and x(lambda_k), the tangent step t = h x'(lambda_k): the predictor lands on x(lambda_k + h).
  std::mt19937 rng(3);
  std::uniform_real_distribution<Real> u(-1, 1);
  const int n = 7;
  std::vector<Real> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = u(rng), b[i] = u(rng), c[i] = u(rng);
  const auto path = [&](Real lambda, int i) { return a[i] + b[i] * lambda + c[i] * lambda * lambda; };
  const Real lambda = 0.6;
  for (const Real h_p : {0.1, 0.25, 0.05}) {
    for (const Real h : {0.1, 0.05, 0.2}) {
      std::vector<Real> t(n), d(n), step;
      for (int i = 0; i < n; ++i) {
        t[i] = h * (b[i] + 2 * c[i] * lambda);
        d[i] = path(lambda, i) - path(lambda - h_p, i);
      }
      detail::extrapolated_step(t, d, h / h_p, step);
      ASSERT_EQ(step.size(), t.size());
      for (int i = 0; i < n; ++i)
        EXPECT_NEAR(path(lambda, i) + step[i], path(lambda + h, i), 1e-14) << "h_p " << h_p << " h " << h << " i " << i;
    }
  }
  // On a straight path (c = 0) it is the tangent step itself, whatever the ratio of the steps.
  std::vector<Real> t{0.3, -1.2}, d{0.6, -2.4}, step;
  detail::extrapolated_step(t, d, 0.5, step);
  EXPECT_NEAR(step[0], t[0], 1e-15);
  EXPECT_NEAR(step[1], t[1], 1e-15);
}

TEST(StaticPredictor, TheSecondOrderPredictorSavesIterationsAndReachesTheSameState) {
  const InflatedFinger finger;
  NewtonOptions o;
  o.load_steps = 4;
  o.krylov_iterations = 0;  // full Newton: every iteration's residual is the predictor's effect alone
  NewtonOptions tangent = o;
  tangent.extrapolate = false;
  auto solver = make_linear_solver();
  StaticResult second, first;
  const std::vector<Real> x = finger.solve(o, *solver, &second);
  const std::vector<Real> xt = finger.solve(tangent, *solver, &first);
  EXPECT_EQ(second.step_cuts, 0);
  EXPECT_LT(second.iterations, first.iterations);
  // Every load step after the first starts closer to its equilibrium: the residual after the first
  // iteration is smaller than the tangent predictor's.
  auto after_first = [](const StaticResult& r, int step) {
    for (const NewtonIterationLog& e : r.log)
      if (e.load_step == step && e.iteration == 1) return e.residual;
    return Real(-1);
  };
  EXPECT_NEAR(after_first(second, 0), after_first(first, 0), 1e-12 * after_first(first, 0));  // no last step yet
  for (int step = 1; step < o.load_steps; ++step) {
    EXPECT_GT(after_first(second, step), 0) << step;
    EXPECT_LT(after_first(second, step), 0.7 * after_first(first, step)) << "load step " << step;
  }
  // The same residual test ends both: states agree to the tolerance's scale.
  EXPECT_LT(relative_difference(x, xt, finger.mesh.rest_positions()), 1e-7);
}

TEST(StaticPredictor, TheResidualLineSearchKeepsTheTangentPredictor) {
  // No potential to accept the extrapolated point by: the very operations of extrapolate = false.
  const InflatedFinger finger;
  NewtonOptions o;
  o.load_steps = 3;
  o.line_search = LineSearch::Residual;
  NewtonOptions tangent = o;
  tangent.extrapolate = false;
  auto solver = make_linear_solver();
  StaticResult with, without;
  EXPECT_EQ(finger.solve(o, *solver, &with), finger.solve(tangent, *solver, &without));
  EXPECT_EQ(with.iterations, without.iterations);
}

}  // namespace
}  // namespace softik
