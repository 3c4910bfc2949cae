// The objective of a batch (`objective:` in batch files, docs/batch-format.md): an arithmetic
// expression of the results table's columns, e.g. `uz_tip / pressure_cavity` or
// `-(ux_tip * ux_tip + uz_tip * uz_tip)`; and its constraints (`constraints:`), one comparison
// of two such expressions of the designs' parameters, e.g. `mesh.generator.bottom_wall <= 0.5 *
// mesh.generator.cavity_radius`.
//   comparison := expression ('<' | '<=' | '>' | '>=') expression     (Kind::Comparison: 1 or 0)
//   expression := term (('+' | '-') term)*
//   term       := factor (('*' | '/') factor)*
//   factor     := number | column | '(' expression ')' | '-' factor
//   column     := [A-Za-z_][A-Za-z0-9_.\[\]]*   (a column name of the CSV, e.g. loads.pressure[0].value)
// At most kMaxLength characters, parentheses and unary minus nested at most kMaxDepth deep.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace softik {
struct BatchSpec;
struct BatchResult;
}  // namespace softik

namespace softik::batch_detail {

class Expression {
 public:
  enum class Kind { Arithmetic, Comparison };
  /// The limits of what the parser reads (more is an error naming the limit): the recursive
  /// descent recurses once per nested '(' or unary '-', so deep nesting would overflow the stack.
  static constexpr int kMaxDepth = 100;
  static constexpr size_t kMaxLength = 10000;
  /// Parses `text` (an arithmetic expression, or one comparison whose value is 1 when it holds
  /// and 0 when not); throws softik::Error naming `what`, the position and what was expected.
  explicit Expression(const std::string& text, Kind kind = Kind::Arithmetic, const std::string& what = "objective");

  /// The column names it reads, in first-use order.
  const std::vector<std::string>& columns() const { return columns_; }

  /// Its value with `column(name)` giving each column's value (std::nullopt: the design has no
  /// such value; the result is then std::nullopt too).
  std::optional<double> evaluate(const std::function<std::optional<double>(const std::string&)>& column) const;

 private:
  struct Node {
    char op;  ///< '+', '-', '*', '/', '<', '>', 'l' (<=), 'g' (>=), 'n' (negate), 'c' (column), 'k' (constant)
    int a = -1, b = -1;  ///< operand nodes
    double value = 0;    ///< 'k'
    int column = -1;     ///< 'c': index into columns_
  };
  std::vector<Node> nodes_;
  std::vector<std::string> columns_;
  int root_ = -1;

  friend class ExpressionParser;
};

/// A design's value of an expression (evaluate_designs): ok, or why not (it failed, a column it
/// reads holds no number, the value is not finite).
struct DesignValue {
  bool ok = false;
  double value = 0;
  std::string why;
};

/// `expression` evaluated on every design's row of the results table, in the batch's order.
std::vector<DesignValue> evaluate_designs(const std::string& expression, const BatchSpec& spec,
                                          const BatchResult& result);

}  // namespace softik::batch_detail
