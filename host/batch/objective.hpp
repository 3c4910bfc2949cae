// The objective of a batch (`objective:` in batch files, docs/batch-format.md): an arithmetic
// expression of the results table's columns, e.g. `uz_tip / pressure_cavity` or
// `-(ux_tip * ux_tip + uz_tip * uz_tip)`.
//   expression := term (('+' | '-') term)*
//   term       := factor (('*' | '/') factor)*
//   factor     := number | column | '(' expression ')' | '-' factor
//   column     := [A-Za-z_][A-Za-z0-9_.\[\]]*   (a column name of the CSV, e.g. loads.pressure[0].value)
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace softik::batch_detail {

class Expression {
 public:
  /// Parses `text`; throws softik::Error naming the position and what was expected.
  explicit Expression(const std::string& text);

  /// The column names it reads, in first-use order.
  const std::vector<std::string>& columns() const { return columns_; }

  /// Its value with `column(name)` giving each column's value (std::nullopt: the design has no
  /// such value; the result is then std::nullopt too).
  std::optional<double> evaluate(const std::function<std::optional<double>(const std::string&)>& column) const;

 private:
  struct Node {
    char op;            ///< '+', '-', '*', '/', 'n' (negate), 'c' (column), 'k' (constant)
    int a = -1, b = -1; ///< operand nodes
    double value = 0;   ///< 'k'
    int column = -1;    ///< 'c': index into columns_
  };
  std::vector<Node> nodes_;
  std::vector<std::string> columns_;
  int root_ = -1;

  friend class ExpressionParser;
};

}  // namespace softik::batch_detail
