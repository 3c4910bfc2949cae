// The objective of a batch (`objective:`, host/batch/objective.hpp, rank_designs): expressions
// of the results' columns (precedence, parentheses, unary minus, missing columns, syntax errors
// with their position), and the ranking of a real batch against its own CSV values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "host/batch/objective.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"
#include "tests/batch_test_support.hpp"

namespace softik {
namespace {

using batch_detail::Expression;

std::optional<double> eval(const std::string& text, const std::map<std::string, double>& columns) {
  return Expression(text).evaluate([&](const std::string& name) -> std::optional<double> {
    const auto it = columns.find(name);
    return it == columns.end() ? std::nullopt : std::optional<double>(it->second);
  });
}

TEST(BatchObjective, ExpressionsFollowArithmeticPrecedence) {
  const std::map<std::string, double> c = {{"uz_tip", 2.0}, {"pressure_cavity", 8.0}, {"loads.pressure[0].value", 3.0}};
  EXPECT_EQ(eval("1 + 2 * 3", c), 7.0);
  EXPECT_EQ(eval("(1 + 2) * 3", c), 9.0);
  EXPECT_EQ(eval("8 / 4 / 2", c), 1.0);  // left to right
  EXPECT_EQ(eval("10 - 4 - 3", c), 3.0);
  EXPECT_EQ(eval("-uz_tip * -3", c), 6.0);
  EXPECT_EQ(eval("-(uz_tip - pressure_cavity)", c), 6.0);
  EXPECT_EQ(eval("uz_tip / pressure_cavity", c), 0.25);
  EXPECT_EQ(eval("loads.pressure[0].value * 1e3", c), 3000.0);
  EXPECT_EQ(eval(" 2.5e-1 ", c), 0.25);
  EXPECT_FALSE(eval("uz_tip + ux_tip", c).has_value());  // a column the design does not have
  const Expression e("uz_tip * uz_tip + pressure_cavity / uz_tip");
  EXPECT_EQ(e.columns(), (std::vector<std::string>{"uz_tip", "pressure_cavity"}));
  EXPECT_TRUE(std::isinf(*eval("1 / (uz_tip - 2)", c)));  // evaluates; rank_designs leaves it out
}

TEST(BatchObjective, SyntaxErrorsSayWhereAndWhatWasExpected) {
  const std::map<std::string, std::string> cases = {
      {"uz_tip +", "expected a number, a column name, '(' or '-' at character 9, found the end"},
      {"(uz_tip", "expected ')' at character 8"},
      {"uz_tip uz_tip", "expected an operator (+ - * /) or the end at character 8, found 'uz_tip'"},
      {"", "at character 1"},
      {"2 ^ 3", "at character 3, found '^ 3'"},
  };
  for (const auto& [text, message] : cases) {
    std::string error = "(no error)";
    try {
      (void)Expression(text);
    } catch (const Error& e) {
      error = e.what();
    }
    EXPECT_NE(error.find(message), std::string::npos) << "'" << text << "' -> " << error;
  }
}

// Deep nesting crashed the recursive parser (a stack overflow, SIGSEGV) at a few ten thousand
// levels; now it is an error naming the limit, while nesting up to the limit still parses.
TEST(BatchObjective, NestingAndLengthAreLimited) {
  const auto error_of = [](const std::string& text) {
    try {
      (void)Expression(text, Expression::Kind::Comparison, "constraint");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const size_t deep = 4000;  // within the length limit: the nesting is what is refused
  EXPECT_NE(error_of(std::string(deep, '(') + "1" + std::string(deep, ')') + " < 2").find("nested more than 100 deep"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(deep, '-') + "1 < 2").find("nested more than 100 deep"), std::string::npos);
  EXPECT_NE(error_of("1 < " + std::string(deep, '-') + "x").find("constraint '1 < ---"), std::string::npos);
  const int limit = Expression::kMaxDepth;
  EXPECT_EQ(eval(std::string(static_cast<size_t>(limit), '(') + "uz_tip" + std::string(static_cast<size_t>(limit), ')'),
                 {{"uz_tip", 2.0}}),
            2.0);
  EXPECT_EQ(eval(std::string(static_cast<size_t>(limit), '-') + "3", {}), 3.0);  // an even count of minus signs
  EXPECT_NE(error_of(std::string(static_cast<size_t>(limit) + 1, '-') + "3 < 1").find("nested more than"),
            std::string::npos);
  // Long but flat: a sum of many terms is refused past kMaxLength characters, read below it.
  std::string sum = "1";
  while (sum.size() + 2 <= Expression::kMaxLength) sum += "+1";
  EXPECT_EQ(eval(sum, {}), static_cast<double>((sum.size() + 1) / 2));
  EXPECT_NE(error_of(sum + "+1+1 < 1").find("characters long, more than the 10000"), std::string::npos);
}

/// A batch of the inflated block at three pressures (and one design that cannot run) ranked by
/// `objective`, against the values its own CSV columns give.
TEST(BatchObjective, RankingOrdersTheDesignsByTheirOwnColumns) {
  const fs::path dir = batch_dir("batch_objective");
  const std::string designs = R"(scene: block.yaml
workers: 2
designs:
  - {name: broken, set: {materials.young: 1.0e-9}}
sweep:
  loads.pressure.value: [2000, 6000, 4000]
)";
  write_file(dir / "b.yaml", designs + "objective: {expression: '-uz_tip / pressure_cavity', goal: min, best: 2}\n");
  const BatchSpec spec = parse_batch((dir / "b.yaml").string());
  EXPECT_EQ(spec.objective.expression, "-uz_tip / pressure_cavity");
  EXPECT_FALSE(spec.objective.maximize);
  EXPECT_EQ(spec.objective.best, 2);
  BatchRunOptions options;
  options.out_dir = (dir / "out").string();
  const BatchResult result = run_batch(spec, options);
  std::map<std::string, double> uz, p;
  for (const DesignResult& d : result.designs)
    if (d.ok) {
      ASSERT_EQ(d.run.probes.size(), 1u);
      uz[d.name] = d.run.probes[0].displacement[2];
      p[d.name] = d.run.pressures.at(0).pressure;
    }
  ASSERT_EQ(uz.size(), 3u) << "the three pressures solve";
  const BatchRanking ranking = rank_designs(spec, result);
  ASSERT_EQ(ranking.best.size(), 2u);  // best: 2
  // min of -uz/p: the largest lift per pascal first, each value the expression of its columns.
  std::vector<std::pair<double, std::string>> expected;
  for (const auto& [name, u] : uz) expected.push_back({-u / p[name], name});
  std::sort(expected.begin(), expected.end());
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(ranking.best[k].name, expected[k].second);
    EXPECT_NEAR(ranking.best[k].value, expected[k].first, 1e-9 * std::abs(expected[k].first));
  }
  ASSERT_EQ(ranking.unranked.size(), 1u);
  EXPECT_EQ(ranking.unranked[0].first, "broken");
  EXPECT_EQ(ranking.unranked[0].second, "failed");

  // A column no design has: every design is unranked, with the column named.
  BatchSpec other = spec;
  other.objective.expression = "uz_probe_that_is_not_there";
  other.objective.maximize = true;
  const BatchRanking none = rank_designs(other, result);
  EXPECT_TRUE(none.best.empty());
  ASSERT_EQ(none.unranked.size(), 4u);
  EXPECT_EQ(none.unranked[1].second, "no number in column 'uz_probe_that_is_not_there'");
  // By the pressure column itself (an override column): max gives 6000 first.
  other.objective.expression = "loads.pressure.value";
  other.objective.best = 5;
  const BatchRanking by_pressure = rank_designs(other, result);
  ASSERT_EQ(by_pressure.best.size(), 3u);
  EXPECT_EQ(by_pressure.best[0].value, 6000.0);
  EXPECT_EQ(by_pressure.best[2].value, 2000.0);

  // Bad objectives are named with their line in the batch file.
  for (const auto& [objective, message] : std::map<std::string, std::string>{
           {"{expression: 'uz_tip +'}", "objective.expression: objective 'uz_tip +': expected"},
           {"{expression: uz_tip, goal: biggest}", "biggest"},
           {"{expression: uz_tip, best: 0}", "objective.best: the number of designs to report, >= 1"},
           {"{goal: max}", "missing required key 'expression'"}}) {
    write_file(dir / "b.yaml", designs + "objective: " + objective + "\n");
    const std::string error = batch_error_of([&] { (void)parse_batch((dir / "b.yaml").string()); });
    EXPECT_NE(error.find(message), std::string::npos) << objective << " -> " << error;
    EXPECT_NE(error.find("b.yaml:"), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace softik
