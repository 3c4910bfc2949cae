// Newton-Raphson static solver: one iteration for linear elasticity, quadratic convergence on a
// hyperelastic cantilever, load stepping, equilibrium at the solution, and clear failures.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "softik/mesh_generator.hpp"
#include "softik/static_solver.hpp"
#include "tests/mesh_helpers.hpp"

namespace softik {
namespace {

struct Cantilever {
  Mesh mesh;
  std::vector<Real> f_ext;
};

/// 4 x 1 x 1 beam clamped at x = 0 with a downward load on the nodes of its free end.
Cantilever cantilever(CellType type, Real total_load) {
  Cantilever c;
  c.mesh = box_mesh(type, {8, 2, 2}, {4.0, 1.0, 1.0});
  c.f_ext.assign(static_cast<size_t>(c.mesh.num_dofs()), 0.0);
  const auto& end = c.mesh.node_groups.at("xmax");
  for (int n : end) c.f_ext[3 * static_cast<size_t>(n) + 2] = -total_load / static_cast<Real>(end.size());
  return c;
}

/// The cantilever's assembler, clamped at x = 0.
Assembler clamped(const Cantilever& c, Formulation formulation, const Material& material) {
  AssemblyOptions options;
  options.formulation = formulation;
  return Assembler(c.mesh, {material}, fix_nodes(c.mesh, c.mesh.node_groups.at("xmin")), options);
}

TEST(StaticSolver, LinearElasticityConvergesInOneIteration) {
  const Cantilever c = cantilever(CellType::Hex8, 1.0);
  const Assembler assembler =
      clamped(c, Formulation::LinearSmallStrain, fem::LinearElastic::from_young_poisson(1e3, 0.3));
  auto solver = make_linear_solver();
  std::vector<Real> x = c.mesh.rest_positions();
  const StaticResult r = solve_static(assembler, *solver, c.f_ext, x);
  EXPECT_EQ(r.iterations, 1);
  EXPECT_EQ(r.step_cuts, 0);
  ASSERT_EQ(r.log.size(), 2u);
  EXPECT_LE(r.log.back().residual, 1e-10 * r.log.front().residual);
}

TEST(StaticSolver, HyperelasticCantileverConvergesQuadratically) {
  const Real load = 3.0;  // linear theory: tip deflection 0.77, about a fifth of the length
  const Cantilever c = cantilever(CellType::Hex8, load);
  const Assembler assembler = clamped(c, Formulation::Hyperelastic, fem::NeoHookean::from_young_poisson(1e3, 0.3));
  auto solver = make_linear_solver();
  std::vector<Real> x = c.mesh.rest_positions();
  NewtonOptions newton;
  newton.residual_tolerance = 1e-11;
  const StaticResult r = solve_static(assembler, *solver, c.f_ext, x, newton);
  for (const auto& e : r.log)
    std::printf("step %d lambda %.2f it %d residual %.3e alpha %.3f\n", e.load_step, e.load_factor, e.iteration,
                e.residual, e.step_length);
  // Equilibrium: elastic force balances the load on every free DOF.
  const std::vector<Real> f = assembler.force(x);
  Real residual = 0;
  for (size_t k = 0; k < x.size(); ++k)
    if (assembler.free_dof_index()[k] >= 0) residual = std::max(residual, std::abs(f[k] + c.f_ext[k]));
  EXPECT_LE(residual, 1e-9 * load);
  // A real large deflection (tip moves down by more than 10% of the length).
  const int tip = c.mesh.node_groups.at("xmax").front();
  EXPECT_LT(x[3 * static_cast<size_t>(tip) + 2] - c.mesh.X[3 * static_cast<size_t>(tip) + 2], -0.4);
  // Quadratic convergence: once the relative residual is below 1e-2, each iteration squares it
  // (up to a modest constant).
  int quadratic_checks = 0;
  for (size_t k = 0; k + 1 < r.log.size(); ++k) {
    const Real rk = r.log[k].residual / load, rn = r.log[k + 1].residual / load;
    if (r.log[k].load_step != r.log[k + 1].load_step || rk > 1e-2 || rn < 1e-12) continue;
    EXPECT_LE(rn, 10 * rk * rk) << "iteration " << k;
    ++quadratic_checks;
  }
  EXPECT_GE(quadratic_checks, 1);
}

TEST(StaticSolver, LoadSteppingReachesTheSameEquilibrium) {
  const Cantilever c = cantilever(CellType::Tet4, 3.0);
  const Assembler assembler = clamped(c, Formulation::Hyperelastic, fem::NeoHookean::from_young_poisson(1e3, 0.3));
  auto solver = make_linear_solver();
  std::vector<Real> one = c.mesh.rest_positions(), four = one;
  NewtonOptions newton;
  newton.residual_tolerance = 1e-11;
  solve_static(assembler, *solver, c.f_ext, one, newton);
  newton.load_steps = 4;
  const StaticResult r = solve_static(assembler, *solver, c.f_ext, four, newton);
  EXPECT_EQ(r.log.back().load_factor, 1.0);
  Real diff = 0;
  for (size_t k = 0; k < one.size(); ++k) diff = std::max(diff, std::abs(one[k] - four[k]));
  EXPECT_LE(diff, 1e-8);
}

TEST(StaticSolver, NothingFixedIsASingularStiffness) {
  const Cantilever c = cantilever(CellType::Tet4, 1.0);
  const Assembler assembler(c.mesh, {fem::LinearElastic::from_young_poisson(1e3, 0.3)}, {});
  auto solver = make_linear_solver();
  std::vector<Real> x = c.mesh.rest_positions();
  try {
    solve_static(assembler, *solver, c.f_ext, x);
    ADD_FAILURE() << "a free-floating body must be reported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("singular"), std::string::npos) << e.what();
  }
}

/// A solver that reports its `singular_at`-th factorisation (counted from 1) singular, the way
/// the real ones do (detail::throw_singular), and otherwise is the default solver.
class SingularOnce final : public LinearSolver {
 public:
  explicit SingularOnce(int singular_at) : inner_(make_linear_solver()), singular_at_(singular_at) {}
  const char* name() const override { return inner_->name(); }
  void analyze(const CsrPattern& pattern) override { inner_->analyze(pattern); }
  void factorize(const std::vector<Real>& values) override {
    if (++count_ == singular_at_) detail::throw_singular(name(), 1e-14, -1);
    inner_->factorize(values);
  }
  void solve(const Real* b, Real* x, int nrhs) const override { inner_->solve(b, x, nrhs); }
  const FactorizationInfo& info() const override { return inner_->info(); }
  bool has_cholesky_factor() const override { return inner_->has_cholesky_factor(); }
  void solve_forward(const Real* b, Real* z, int nrhs) const override { inner_->solve_forward(b, z, nrhs); }
  void solve_backward(const Real* z, Real* x, int nrhs) const override { inner_->solve_backward(z, x, nrhs); }
  int count() const { return count_; }

 private:
  std::unique_ptr<LinearSolver> inner_;
  int singular_at_, count_ = 0;
};

// A tangent that turns singular on the way (a limit point, or a Newton iterate that strayed onto
// one) is a failed load step, cut and retried; a singular tangent at the first factorisation is
// still the body held too little (ErrorKind::Input).
TEST(StaticSolver, ASingularTangentOnTheWayCutsTheLoadStep) {
  const Cantilever c = cantilever(CellType::Hex8, 3.0);
  const Assembler assembler = clamped(c, Formulation::Hyperelastic, fem::NeoHookean::from_young_poisson(1e3, 0.3));
  NewtonOptions newton;
  newton.residual_tolerance = 1e-11;
  newton.load_steps = 2;
  std::vector<Real> reference = c.mesh.rest_positions();
  auto plain = make_linear_solver();
  const StaticResult plain_result = solve_static(assembler, *plain, c.f_ext, reference, newton);
  ASSERT_EQ(plain_result.step_cuts, 0);
  ASSERT_GE(plain_result.factorizations, 3);

  SingularOnce midway(2);
  std::vector<Real> x = c.mesh.rest_positions();
  const StaticResult r = solve_static(assembler, midway, c.f_ext, x, newton);
  EXPECT_EQ(r.step_cuts, 1);
  EXPECT_GT(midway.count(), plain_result.factorizations);
  Real diff = 0;
  for (size_t k = 0; k < x.size(); ++k) diff = std::max(diff, std::abs(x[k] - reference[k]));
  EXPECT_LE(diff, 1e-8) << "the same equilibrium after the cut";

  // The error of a solve from rest with `solver` that must fail, with its kind and text.
  auto failure = [&](LinearSolver& solver, const NewtonOptions& options) {
    std::vector<Real> start = c.mesh.rest_positions();
    try {
      solve_static(assembler, solver, c.f_ext, start, options);
    } catch (const Error& e) {
      return std::make_pair(e.kind(), std::string(e.what()));
    }
    ADD_FAILURE() << "the solve must fail";
    return std::make_pair(ErrorKind::Internal, std::string());
  };
  // Without step cuts the failure says what happened and what to do.
  SingularOnce uncut(2);
  NewtonOptions no_cuts = newton;
  no_cuts.max_step_cuts = 0;
  const auto [uncut_kind, uncut_text] = failure(uncut, no_cuts);
  EXPECT_EQ(uncut_kind, ErrorKind::Numerical) << uncut_text;
  EXPECT_NE(uncut_text.find("tangent became singular"), std::string::npos) << uncut_text;
  EXPECT_NE(uncut_text.find("arc-length"), std::string::npos) << uncut_text;

  SingularOnce first(1);
  const auto [first_kind, first_text] = failure(first, newton);
  EXPECT_EQ(first_kind, ErrorKind::Input) << first_text;
  EXPECT_NE(first_text.find("not held against rigid motion"), std::string::npos) << first_text;
}

TEST(StaticSolver, BadInputIsAnError) {
  const Cantilever c = cantilever(CellType::Tet4, 1.0);
  const Assembler assembler(c.mesh, {fem::LinearElastic::from_young_poisson(1e3, 0.3)},
                            fix_nodes(c.mesh, c.mesh.node_groups.at("xmin")));
  auto solver = make_linear_solver();
  std::vector<Real> x = c.mesh.rest_positions();
  std::vector<Real> nan_load = c.f_ext;
  nan_load[5] = std::nan("");
  EXPECT_THROW(solve_static(assembler, *solver, nan_load, x), Error);
  EXPECT_THROW(solve_static(assembler, *solver, std::vector<Real>(4), x), Error);
}

}  // namespace
}  // namespace softik
