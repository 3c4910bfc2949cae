// The dense QP solver (qp.hpp): KKT conditions on many random strictly convex problems, equality
// with a brute-force enumeration of active sets on small ones, degenerate constraints, warm starts
// (fewer iterations, same answer), the iteration limit and bad input. Infeasible problems:
// test_qp_infeasible.cpp.
#include "tests/qp_test_support.hpp"

namespace softik::qp_test {
namespace {

TEST(Qp, RandomProblemsMeetTheKktConditions) {
  std::mt19937 rng(7);
  struct Size {
    int n, m, count;
  };
  const std::vector<Size> sizes = {{1, 0, 20},  {1, 3, 40},   {2, 2, 60},   {3, 5, 60},   {5, 3, 60},    {8, 8, 60},
                                   {12, 4, 40}, {12, 24, 40}, {20, 40, 30}, {30, 10, 20}, {50, 100, 10}, {100, 200, 4}};
  int total = 0, active_total = 0;
  Real worst = 0;
  for (const Size& s : sizes)
    for (int trial = 0; trial < s.count; ++trial) {
      const Real cond = trial % 3 == 0 ? 1e-3 : 0.1;
      const QpProblem p = random_problem(rng, s.n, s.m, cond);
      const QpResult r = solve_qp(p);
      ASSERT_EQ(r.status, QpStatus::Optimal) << "n " << s.n << " m " << s.m << " trial " << trial << ": " << r.message;
      const Kkt k = kkt_of(p, r);
      EXPECT_LE(k.max(), 1e-9) << "n " << s.n << " m " << s.m << " trial " << trial << ": " << describe(k);
      EXPECT_LE(r.kkt.max(), 1e-9);
      EXPECT_NEAR(r.kkt.max(), k.max(), 1e-12 + 1e-6 * k.max());  // the solver reports what it achieved
      EXPECT_LE(max_abs(r.row_violation), 1e-9 * std::max<Real>(1, max_abs(p.A * r.x)));
      for (signed char a : r.active_set.rows) active_total += a != 0;
      worst = std::max(worst, k.max());
      ++total;
    }
  std::printf("QP: %d random problems, largest KKT residual %.2e, %d active rows in all\n", total, worst, active_total);
}

TEST(Qp, SmallProblemsEqualBruteForceEnumeration) {
  std::mt19937 rng(11);
  int trials = 0;
  for (int n = 1; n <= 4; ++n)
    for (int m = 0; m <= 4; ++m)
      for (int t = 0; t < 16; ++t) {
        const QpProblem p = random_problem(rng, n, m, t % 2 ? 0.1 : 0.01);
        const QpResult r = solve_qp(p);
        ASSERT_EQ(r.status, QpStatus::Optimal) << "n " << n << " m " << m << " trial " << t;
        const Eigen::VectorXd x = brute_force(p);
        ASSERT_EQ(x.size(), n) << "n " << n << " m " << m << " trial " << t;
        EXPECT_LE(max_abs(r.x - x), 1e-9 * std::max<Real>(1, max_abs(x))) << "n " << n << " m " << m << " trial " << t;
        ++trials;
      }
  EXPECT_EQ(trials, 4 * 5 * 16);
}

TEST(Qp, DegenerateConstraintsAreHandled) {
  // min 1/2 |x - (2, 2)|^2 with the row x1 + x2 <= 1 twice, the row x1 <= 0.25 parallel to the
  // bound x1 <= 0.25, the equality x1 - x2 = -0.5 twice and a zero row in [-1, 1].
  // Optimum: x = (0.25, 0.75), the point of the equality line on x1 + x2 = 1.
  QpProblem p;
  p.H = Eigen::MatrixXd::Identity(2, 2);
  p.g = Eigen::Vector2d(-2, -2);
  p.lower = Eigen::Vector2d(-kInf, -kInf);
  p.upper = Eigen::Vector2d(0.25, kInf);
  p.A.resize(0, 2);
  add_row(p, Eigen::RowVector2d(1, 1), -kInf, 1);
  add_row(p, Eigen::RowVector2d(1, 1), -kInf, 1);
  add_row(p, Eigen::RowVector2d(1, 0), -kInf, 0.25);
  add_row(p, Eigen::RowVector2d(1, -1), -0.5, -0.5);
  add_row(p, Eigen::RowVector2d(1, -1), -0.5, -0.5);
  add_row(p, Eigen::RowVector2d(0, 0), -1, 1);
  const QpResult r = solve_qp(p);
  ASSERT_EQ(r.status, QpStatus::Optimal) << r.message;
  EXPECT_NEAR(r.x(0), 0.25, 1e-14);
  EXPECT_NEAR(r.x(1), 0.75, 1e-14);
  EXPECT_LE(kkt_of(p, r).max(), 1e-12) << describe(kkt_of(p, r));
  // A fixed variable (lower == upper) and a zero row with the range [0, 0].
  QpProblem f = one_d(2, -8, 1.5, 1.5);
  add_row(f, Eigen::RowVectorXd::Zero(1), 0, 0);
  const QpResult fr = solve_qp(f);
  ASSERT_EQ(fr.status, QpStatus::Optimal);
  EXPECT_EQ(fr.x(0), 1.5);
  EXPECT_NEAR(fr.mu_x(0), 2 * 1.5 - 8, 1e-14);  // H x + g = mu at the bound
  // No constraint active: the unconstrained minimiser, zero multipliers, no iteration.
  QpProblem in = one_d(4, -2, -10, 10);
  add_row(in, Eigen::RowVectorXd::Constant(1, 3.0), -100, 100);
  const QpResult ir = solve_qp(in);
  EXPECT_EQ(ir.status, QpStatus::Optimal);
  EXPECT_EQ(ir.iterations, 0);
  EXPECT_NEAR(ir.x(0), 0.5, 1e-15);
  EXPECT_EQ(ir.mu_x(0), 0.0);
  EXPECT_EQ(ir.mu_a(0), 0.0);
  // n = 1, m = 0, no bounds at all (empty lower/upper vectors and a 0 x 0 A).
  QpProblem bare;
  bare.H = Eigen::MatrixXd::Constant(1, 1, 4.0);
  bare.g = Eigen::VectorXd::Constant(1, -2.0);
  const QpResult br = solve_qp(bare);
  EXPECT_EQ(br.status, QpStatus::Optimal);
  EXPECT_NEAR(br.x(0), 0.5, 1e-15);
  EXPECT_EQ(br.mu_a.size(), 0);
  // n = 1 at a bound.
  const QpResult at = solve_qp(one_d(1, -5, -1, 2));
  EXPECT_EQ(at.x(0), 2.0);
  EXPECT_NEAR(at.mu_x(0), 2 - 5, 1e-15);
  EXPECT_EQ(at.active_set.variables[0], QpActiveSet::kAtUpper);
}

/// True when `a` and every choice of up to n - 1 of `normals` form a matrix whose smallest
/// singular value is at least 0.05 of its largest.
bool well_separated(const std::vector<Eigen::RowVectorXd>& normals, const Eigen::RowVectorXd& a) {
  const int k = static_cast<int>(normals.size()), n = static_cast<int>(a.size());
  for (int mask = 0; mask < (1 << k); ++mask) {
    std::vector<Eigen::RowVectorXd> rows{a};
    for (int j = 0; j < k; ++j)
      if (mask >> j & 1) rows.push_back(normals[static_cast<size_t>(j)]);
    if (static_cast<int>(rows.size()) > n) continue;
    Eigen::MatrixXd M(rows.size(), n);
    for (size_t j = 0; j < rows.size(); ++j) M.row(static_cast<Eigen::Index>(j)) = rows[j];
    const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(M).singularValues();
    if (sv.minCoeff() < 0.05 * sv.maxCoeff()) return false;
  }
  return true;
}

TEST(Qp, DegenerateVerticesEqualBruteForce) {
  // Every row and some bounds pass through one point x* (more constraints meet there than there
  // are variables: primal degeneracy), rows are one- or two-sided or equalities there, and the
  // unconstrained minimiser is random: the solution equals the brute-force one.
  std::mt19937 rng(43);
  std::uniform_real_distribution<Real> u(-1, 1);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + trial % 3, m = 1 + trial % 4;
    QpProblem p = random_problem(rng, n, 0);
    const Eigen::VectorXd xs = Eigen::VectorXd::NullaryExpr(n, [&] { return u(rng); });
    p.g = -p.H * (xs + Eigen::VectorXd::NullaryExpr(n, [&] { return u(rng); }));
    for (int i = 0; i < n; ++i) {
      p.lower(i) = trial % 2 ? xs(i) : -kInf;
      p.upper(i) = trial % 4 == 3 ? xs(i) + 1 : kInf;
    }
    std::vector<Eigen::RowVectorXd> normals;
    for (int i = 0; i < n; ++i) normals.push_back(Eigen::RowVectorXd::Unit(n, i));
    for (int r = 0; r < m; ++r) {
      // Degenerate, not ill-conditioned: every n of the normals (bounds included) stay well apart,
      // else both the solver and the brute force only agree to cond * round-off.
      Eigen::RowVectorXd a;
      do a = Eigen::RowVectorXd::NullaryExpr(n, [&] { return u(rng); });
      while (!well_separated(normals, a));
      normals.push_back(a);
      const Real v = a.dot(xs);
      const int kind = (trial + r) % 4;
      add_row(p, a, kind == 1 ? -kInf : v, kind == 0 ? kInf : kind == 3 ? v : v + 0.5);
    }
    const QpResult r = solve_qp(p);
    ASSERT_EQ(r.status, QpStatus::Optimal) << "trial " << trial << ": " << r.message;
    const Eigen::VectorXd x = brute_force(p);
    ASSERT_EQ(x.size(), n);
    EXPECT_LE(max_abs(r.x - x), 1e-9 * std::max<Real>(1, max_abs(x))) << "trial " << trial;
    EXPECT_LE(kkt_of(p, r).max(), 1e-9) << "trial " << trial << ": " << describe(kkt_of(p, r));
  }
}

TEST(Qp, DuplicatedConstraintsDoNotChangeTheAnswer) {
  // Random problems with every row repeated (once scaled by 2.5), and rows that repeat the
  // variable bounds: the solution is that of the original problem, the KKT conditions hold.
  std::mt19937 rng(41);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + trial % 7, m = 1 + trial % 5;
    const QpProblem p = random_problem(rng, n, m);
    QpProblem d = p;
    for (int r = 0; r < m; ++r) {
      const Real s = r % 2 ? 2.5 : 1.0;
      add_row(d, s * p.A.row(r), s * p.a_lower(r), s * p.a_upper(r));
    }
    for (int i = 0; i < n; ++i) add_row(d, Eigen::RowVectorXd::Unit(n, i), p.lower(i), p.upper(i));
    const QpResult a = solve_qp(p), b = solve_qp(d);
    ASSERT_EQ(b.status, QpStatus::Optimal) << "trial " << trial << ": " << b.message;
    EXPECT_LE(max_abs(a.x - b.x), 1e-9 * std::max<Real>(1, max_abs(a.x))) << "trial " << trial;
    EXPECT_LE(kkt_of(d, b).max(), 1e-9) << "trial " << trial << ": " << describe(kkt_of(d, b));
  }
}

TEST(Qp, SoftikShapedProblemsAreSolvedAndScaleFree) {
  // The shape of docs/method.md 8.3: H = W_ea^T W_ea + eps W_aa with more actuators than effector
  // rows (W_ea^T W_ea singular, eps = 1e-3 relative), rows A = W_aa with volume-growth ranges.
  // In SI units (pressures ~1e4 Pa, volumes ~1e-6 m^3) and in scaled units the same answer.
  std::mt19937 rng(53);
  std::uniform_real_distribution<Real> u(-1, 1);
  for (int trial = 0; trial < 30; ++trial) {
    const int na = 2 + trial % 6, ne = 1 + trial % 3;
    const Eigen::MatrixXd Wea = 1e-9 * Eigen::MatrixXd::NullaryExpr(ne, na, [&] { return u(rng); });
    const Eigen::MatrixXd B = Eigen::MatrixXd::NullaryExpr(na, na, [&] { return u(rng); });
    const Eigen::MatrixXd Waa = 1e-10 * (B * B.transpose() + 0.1 * Eigen::MatrixXd::Identity(na, na));
    const Eigen::VectorXd de = 1e-3 * Eigen::VectorXd::NullaryExpr(ne, [&] { return u(rng); });
    QpProblem p;
    const Eigen::MatrixXd EtE = Wea.transpose() * Wea;
    p.H = EtE + 1e-3 * EtE.norm() / Waa.norm() * Waa;
    p.g = Wea.transpose() * de;
    p.lower = Eigen::VectorXd::Constant(na, 0.0);
    p.upper = Eigen::VectorXd::Constant(na, 5e4);
    p.A = Waa;
    p.a_lower = Eigen::VectorXd::Constant(na, -kInf);
    p.a_upper = Eigen::VectorXd::Constant(na, 2e-6);
    const QpResult r = solve_qp(p);
    ASSERT_EQ(r.status, QpStatus::Optimal) << r.message;
    EXPECT_LE(kkt_of(p, r).max(), 1e-9) << "trial " << trial << ": " << describe(kkt_of(p, r));
    QpProblem s = p;  // kPa and cm^3: x' = x / 1e3, rows' = rows * 1e6
    s.H = p.H * 1e6;
    s.g = p.g * 1e3;
    s.lower /= 1e3;
    s.upper /= 1e3;
    s.A = p.A * 1e9;
    s.a_upper *= 1e6;
    const QpResult rs = solve_qp(s);
    ASSERT_EQ(rs.status, QpStatus::Optimal);
    EXPECT_LE(max_abs(rs.x * 1e3 - r.x), 1e-9 * max_abs(r.x) + 1e-12) << "trial " << trial;
    EXPECT_EQ(rs.active_set.rows, r.active_set.rows);
    // Mixed units (pressures next to cable forces): variable i measured in units 10^e_i,
    // x' = D^-1 x with D = diag(10^e_i). Each component is found to its own relative accuracy.
    const Eigen::VectorXd e = Eigen::VectorXd::NullaryExpr(na, [&] { return std::round(3 * u(rng)); });
    const Eigen::VectorXd D = e.unaryExpr([](Real v) { return std::pow(10.0, v); });
    QpProblem mixed = p;
    mixed.H = D.asDiagonal() * p.H * D.asDiagonal();
    mixed.g = D.asDiagonal() * p.g;
    mixed.A = p.A * D.asDiagonal();
    mixed.lower = p.lower.cwiseQuotient(D);
    mixed.upper = p.upper.cwiseQuotient(D);
    const QpResult rm = solve_qp(mixed);
    ASSERT_EQ(rm.status, QpStatus::Optimal);
    EXPECT_LE(kkt_of(mixed, rm).max(), 1e-9) << "trial " << trial << ": " << describe(kkt_of(mixed, rm));
    EXPECT_EQ(rm.active_set.rows, r.active_set.rows) << "trial " << trial;
    EXPECT_EQ(rm.active_set.variables, r.active_set.variables) << "trial " << trial;
    for (int i = 0; i < na; ++i) EXPECT_NEAR(rm.x(i) * D(i), r.x(i), 1e-9 * max_abs(r.x)) << "trial " << trial;
  }
}

TEST(Qp, WarmStartFromThePreviousActiveSetSavesIterations) {
  // Each "simulation step" perturbs g (relative size `change`) and widens some row ranges
  // slightly; the warm start from the previous active set gives the cold answer in fewer
  // iterations (active-set changes).
  std::mt19937 rng(5);
  std::uniform_real_distribution<Real> u(-1, 1);
  struct Case {
    int n, m, count;
    Real change;
  };
  for (const Case& c : std::vector<Case>{{10, 8, 40, 1e-3},
                                         {10, 8, 40, 5e-2},
                                         {30, 60, 15, 1e-3},
                                         {30, 60, 15, 5e-2},
                                         {100, 200, 3, 1e-3},
                                         {100, 200, 3, 5e-2}}) {
    long cold_total = 0, warm_total = 0;
    double cold_s = 0, warm_s = 0;
    const int steps = 5;
    for (int trial = 0; trial < c.count; ++trial) {
      QpProblem p = random_problem(rng, c.n, c.m);
      QpResult prev = solve_qp(p);
      ASSERT_EQ(prev.status, QpStatus::Optimal);
      for (int step = 0; step < steps; ++step) {
        p.g += c.change * max_abs(p.g) * Eigen::VectorXd::NullaryExpr(c.n, [&] { return u(rng); });
        for (Eigen::Index r = 0; r < p.A.rows(); ++r)
          if (p.a_lower(r) < p.a_upper(r) && std::isfinite(p.a_upper(r)))
            p.a_upper(r) += 0.1 * c.change * std::abs(u(rng));
        const auto t0 = std::chrono::steady_clock::now();
        const QpResult cold = solve_qp(p);
        const auto t1 = std::chrono::steady_clock::now();
        const QpResult warm = solve_qp(p, {}, &prev.active_set);
        const auto t2 = std::chrono::steady_clock::now();
        cold_s += std::chrono::duration<double>(t1 - t0).count();
        warm_s += std::chrono::duration<double>(t2 - t1).count();
        ASSERT_EQ(cold.status, QpStatus::Optimal);
        ASSERT_EQ(warm.status, QpStatus::Optimal);
        EXPECT_TRUE(warm.warm_started);
        EXPECT_FALSE(cold.warm_started);
        EXPECT_LE(max_abs(cold.x - warm.x), 1e-9 * std::max<Real>(1, max_abs(cold.x)));
        EXPECT_LE(kkt_of(p, warm).max(), 1e-9);
        cold_total += cold.iterations;
        warm_total += warm.iterations;
        prev = warm;
      }
    }
    const int solves = steps * c.count;
    std::printf(
        "QP n %3d m %3d, g changed by %.0e per step, %3d solves: iterations per solve cold %.1f warm %.1f; "
        "time per solve cold %.3f ms warm %.3f ms\n",
        c.n, c.m, c.change, solves, double(cold_total) / solves, double(warm_total) / solves, 1e3 * cold_s / solves,
        1e3 * warm_s / solves);
    EXPECT_LT(warm_total * (c.change < 1e-2 ? 10 : 2), cold_total) << "n " << c.n << " change " << c.change;
  }
}

TEST(Qp, AnyWarmSetGivesTheColdAnswer) {
  // Wrong sizes: cold start. Every entry at its upper side (sides that are infinite ignored,
  // dependent ones skipped, negative multipliers dropped): the same answer as cold.
  std::mt19937 rng(61);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 3 + trial % 8, m = 2 + trial % 9;
    const QpProblem p = random_problem(rng, n, m);
    const QpResult cold = solve_qp(p);
    QpActiveSet all_upper, all_lower, wrong;
    all_upper.variables.assign(static_cast<size_t>(n), QpActiveSet::kAtUpper);
    all_upper.rows.assign(static_cast<size_t>(m), QpActiveSet::kAtUpper);
    all_lower.variables.assign(static_cast<size_t>(n), QpActiveSet::kAtLower);
    all_lower.rows.assign(static_cast<size_t>(m), QpActiveSet::kAtLower);
    wrong.variables.assign(static_cast<size_t>(n + 1), QpActiveSet::kAtUpper);
    for (const QpActiveSet* w : {&all_upper, &all_lower, &wrong}) {
      const QpResult r = solve_qp(p, {}, w);
      ASSERT_EQ(r.status, QpStatus::Optimal);
      EXPECT_EQ(r.warm_started, w != &wrong);
      EXPECT_LE(max_abs(r.x - cold.x), 1e-9 * std::max<Real>(1, max_abs(cold.x))) << "trial " << trial;
      EXPECT_LE(kkt_of(p, r).max(), 1e-9);
    }
  }
  QpProblem p = one_d(1, 0, 0, 1);
  QpActiveSet bad;
  bad.variables = {3};
  EXPECT_THROW(solve_qp(p, {}, &bad), Error);
}

TEST(Qp, IterationLimitIsReported) {
  std::mt19937 rng(71);
  const QpProblem p = random_problem(rng, 30, 60);
  const QpResult full = solve_qp(p);
  ASSERT_EQ(full.status, QpStatus::Optimal);
  ASSERT_GT(full.iterations, 3);
  QpOptions o;
  o.max_iterations = 3;
  const QpResult r = solve_qp(p, o);
  EXPECT_EQ(r.status, QpStatus::IterationLimit);
  EXPECT_LE(r.iterations, 3);
  EXPECT_NE(r.message.find("iteration limit"), std::string::npos);
  EXPECT_GT(r.kkt.primal, 1e-9);  // not a solution, and the residuals say so
  EXPECT_TRUE(((r.x.array() >= p.lower.array()) && (r.x.array() <= p.upper.array())).all());  // clamped
  o.max_iterations = 0;
  EXPECT_EQ(solve_qp(p, o).status, QpStatus::IterationLimit);
  o.max_iterations = full.iterations;
  EXPECT_EQ(solve_qp(p, o).status, QpStatus::Optimal);
}

TEST(Qp, BadInputIsAnError) {
  auto message = [](const QpProblem& p) -> std::string {
    try {
      solve_qp(p);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  QpProblem p;
  p.H = Eigen::MatrixXd::Identity(2, 2);
  p.g = Eigen::VectorXd::Zero(2);
  p.lower = Eigen::Vector2d(0, 1);
  p.upper = Eigen::Vector2d(1, 0);
  p.variable_names = {"cavity0 pressure", "cavity1 pressure"};
  EXPECT_NE(message(p).find("cavity1 pressure"), std::string::npos) << message(p);
  p.upper = Eigen::Vector2d(1, 2);
  EXPECT_EQ(message(p), "no error");
  QpProblem q = p;
  q.H(0, 1) = std::nan("");
  EXPECT_NE(message(q).find("NaN"), std::string::npos);
  q = p;
  q.g(1) = kInf;
  EXPECT_NE(message(q).find("NaN or infinity"), std::string::npos);
  q = p;
  q.A = Eigen::MatrixXd::Ones(1, 2);
  q.A(0, 0) = kInf;
  q.a_lower = Eigen::VectorXd::Zero(1);
  q.a_upper = Eigen::VectorXd::Ones(1);
  EXPECT_NE(message(q).find("constraint matrix A"), std::string::npos);
  q = p;
  q.H << 1, 2, 2, 1;  // indefinite (semi-definite Hessians are solved: test_qp_semidefinite.cpp)
  EXPECT_NE(message(q).find("not positive semi-definite"), std::string::npos) << message(q);
  q.H << -1, 0, 0, 0;  // negative curvature on a variable of its own
  EXPECT_NE(message(q).find("not positive semi-definite"), std::string::npos) << message(q);
  q.H << 1, 0.5, 0, 1;  // not symmetric
  EXPECT_NE(message(q).find("not symmetric"), std::string::npos);
  q = p;
  q.g = Eigen::VectorXd::Zero(3);
  EXPECT_NE(message(q).find("g have n entries"), std::string::npos);
  q = p;
  q.A = Eigen::MatrixXd::Ones(2, 2);
  q.a_lower = Eigen::VectorXd::Zero(1);
  q.a_upper = Eigen::VectorXd::Zero(2);
  EXPECT_NE(message(q).find("m entries"), std::string::npos);
  q = p;
  q.lower(0) = std::nan("");
  EXPECT_NE(message(q).find("cavity0 pressure"), std::string::npos);
  q = p;
  q.g_terms = Eigen::VectorXd::Constant(2, -1.0);
  EXPECT_NE(message(q).find("g_terms"), std::string::npos);
  q = p;
  q.variable_names = {"only one"};
  EXPECT_NE(message(q).find("variable names"), std::string::npos);
  q = p;
  q.A = Eigen::MatrixXd::Ones(1, 2);
  q.a_lower = Eigen::VectorXd::Constant(1, kInf);  // a lower bound of +inf
  q.a_upper = Eigen::VectorXd::Constant(1, kInf);
  q.row_names = {"cavity0 volume growth"};
  EXPECT_NE(message(q).find("cavity0 volume growth"), std::string::npos);
}

}  // namespace
}  // namespace softik::qp_test
