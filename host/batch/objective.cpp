// The batch objective's expressions (objective.hpp): a recursive-descent parser into a node
// list, evaluated per design.
#include "host/batch/objective.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "host/batch/batch_csv.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"

namespace softik::batch_detail {

class ExpressionParser {
 public:
  ExpressionParser(const std::string& text, const std::string& what, Expression& e) : text_(text), what_(what), e_(e) {}

  void parse(Expression::Kind kind) {
    SOFTIK_CHECK(text_.size() <= Expression::kMaxLength,
                 what_ << " '" << text_.substr(0, 40) << "...' is " << text_.size()
                       << " characters long, more than the " << Expression::kMaxLength
                       << " an expression may have: split it, or rank by a result column");
    e_.root_ = expression();
    if (kind == Expression::Kind::Comparison) {
      const char op = accept('<') ? (accept('=') ? 'l' : '<') : accept('>') ? (accept('=') ? 'g' : '>') : '\0';
      if (!op) fail("an operator (+ - * /) or a comparison (< <= > >=)");
      const int right = expression();
      e_.root_ = add({op, e_.root_, right});
    }
    skip_spaces();
    if (pos_ != text_.size())
      fail(kind == Expression::Kind::Comparison ? "an operator (+ - * /) or the end (one comparison only)"
                                                : "an operator (+ - * /) or the end");
  }

 private:
  int add(Expression::Node n) {
    e_.nodes_.push_back(n);
    return static_cast<int>(e_.nodes_.size()) - 1;
  }
  void skip_spaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skip_spaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(const std::string& expected) const {
    const std::string found = pos_ < text_.size() ? "'" + text_.substr(pos_, 12) + "'" : "the end";
    SOFTIK_CHECK(false, what_ << " '" << text_ << "': expected " << expected << " at character " << pos_ + 1
                              << ", found " << found);
    std::abort();  // not reached: SOFTIK_CHECK(false, ...) throws
  }
  /// operand ((op1 | op2) operand)*, left-associative: the sums (op1 = '+') and the products.
  int chain(int (ExpressionParser::*operand)(), char op1, char op2) {
    int left = (this->*operand)();
    for (;;) {
      const char op = accept(op1) ? op1 : accept(op2) ? op2 : '\0';
      if (!op) return left;
      const int right = (this->*operand)();
      left = add({op, left, right});
    }
  }
  int expression() { return chain(&ExpressionParser::term, '+', '-'); }
  int term() { return chain(&ExpressionParser::factor, '*', '/'); }
  /// One level deeper for the parentheses or unary minus at pos_: the parser recurses once per
  /// level, so the nesting is limited (deep nesting would overflow the stack).
  class Nest {
   public:
    explicit Nest(ExpressionParser& p) : p_(p) {
      if (++p_.depth_ > Expression::kMaxDepth) p_.fail_nesting();
    }
    ~Nest() { --p_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    ExpressionParser& p_;
  };
  [[noreturn]] void fail_nesting() const {
    SOFTIK_CHECK(false, what_ << " '" << text_.substr(0, 40) << (text_.size() > 40 ? "..." : "")
                              << "': parentheses and unary minus nested more than " << Expression::kMaxDepth
                              << " deep at character " << pos_ << "; simplify the expression");
    std::abort();  // not reached: SOFTIK_CHECK(false, ...) throws
  }
  int factor() {
    skip_spaces();
    if (accept('-')) {
      const Nest nest(*this);
      return add({'n', factor()});
    }
    if (accept('(')) {
      const Nest nest(*this);
      const int inner = expression();
      if (!accept(')')) fail("')'");
      return inner;
    }
    if (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      const char* begin = text_.c_str() + pos_;
      char* end = nullptr;
      const double v = std::strtod(begin, &end);
      if (end == begin) fail("a number");
      pos_ += static_cast<size_t>(end - begin);
      Expression::Node n{'k'};
      n.value = v;
      return add(n);
    }
    if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      const size_t begin = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
                                     text_[pos_] == '.' || text_[pos_] == '[' || text_[pos_] == ']'))
        ++pos_;
      const std::string name = text_.substr(begin, pos_ - begin);
      Expression::Node n{'c'};
      for (size_t i = 0; i < e_.columns_.size() && n.column < 0; ++i)
        if (e_.columns_[i] == name) n.column = static_cast<int>(i);
      if (n.column < 0) {
        n.column = static_cast<int>(e_.columns_.size());
        e_.columns_.push_back(name);
      }
      return add(n);
    }
    fail("a number, a column name, '(' or '-'");
  }

  const std::string& text_;
  const std::string& what_;
  Expression& e_;
  size_t pos_ = 0;
  int depth_ = 0;  ///< parentheses and unary minus open at pos_
};

Expression::Expression(const std::string& text, Kind kind, const std::string& what) {
  ExpressionParser(text, what, *this).parse(kind);
}

std::optional<double> Expression::evaluate(
    const std::function<std::optional<double>(const std::string&)>& column) const {
  std::vector<std::optional<double>> values(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) values[i] = column(columns_[i]);
  // Operands are always added before the node that uses them, so one pass in order suffices.
  std::vector<double> v(nodes_.size(), 0.0);
  std::vector<char> known(nodes_.size(), 0);  // 0: a column it reads has no value
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    const size_t a = static_cast<size_t>(n.a), b = static_cast<size_t>(n.b);
    switch (n.op) {
      case 'k':
        v[i] = n.value;
        known[i] = 1;
        break;
      case 'c':
        if (const std::optional<double>& c = values[static_cast<size_t>(n.column)]; c.has_value()) {
          v[i] = c.value();
          known[i] = 1;
        }
        break;
      case 'n':
        v[i] = -v[a];
        known[i] = known[a];
        break;
      default:
        switch (n.op) {
          case '+':
            v[i] = v[a] + v[b];
            break;
          case '-':
            v[i] = v[a] - v[b];
            break;
          case '*':
            v[i] = v[a] * v[b];
            break;
          case '/':
            v[i] = v[a] / v[b];
            break;
          case '<':
            v[i] = v[a] < v[b] ? 1 : 0;
            break;
          case '>':
            v[i] = v[a] > v[b] ? 1 : 0;
            break;
          case 'l':
            v[i] = v[a] <= v[b] ? 1 : 0;
            break;
          default:
            v[i] = v[a] >= v[b] ? 1 : 0;  // 'g'
        }
        known[i] = known[a] && known[b];
    }
  }
  const size_t r = static_cast<size_t>(root_);
  return known[r] ? std::optional<double>(v[r]) : std::nullopt;
}

}  // namespace softik::batch_detail

namespace softik {

std::vector<batch_detail::DesignValue> batch_detail::evaluate_designs(const std::string& expression,
                                                                      const BatchSpec& spec,
                                                                      const BatchResult& result) {
  const Expression e(expression);
  std::vector<DesignValue> values;
  for (size_t i = 0; i < result.designs.size() && i < spec.designs.size(); ++i) {
    const DesignResult& r = result.designs[i];
    DesignValue v;
    if (!r.ok) {
      v.why = "failed";
      values.push_back(v);
      continue;
    }
    const auto columns = design_row(spec.designs[i], r);
    std::string missing;
    const std::optional<double> value = e.evaluate([&](const std::string& name) -> std::optional<double> {
      for (const auto& [key, text] : columns)
        if (key == name) {
          if (const std::optional<double> x = parse_number(text)) return x;
          break;
        }
      if (missing.empty()) missing = name;
      return std::nullopt;
    });
    if (!value)
      v.why = "no number in column '" + missing + "'";
    else if (!std::isfinite(*value))
      v.why = "'" + expression + "' is not finite";
    else {
      v.ok = true;
      v.value = *value;
    }
    values.push_back(v);
  }
  return values;
}

BatchRanking rank_designs(const BatchSpec& spec, const BatchResult& result) {
  BatchRanking ranking;
  if (spec.objective.expression.empty()) return ranking;
  const auto values = batch_detail::evaluate_designs(spec.objective.expression, spec, result);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].ok)
      ranking.best.push_back({result.designs[i].name, values[i].value});
    else
      ranking.unranked.emplace_back(result.designs[i].name, values[i].why);
  }
  const bool maximize = spec.objective.maximize;
  std::stable_sort(ranking.best.begin(), ranking.best.end(), [maximize](const RankedDesign& a, const RankedDesign& b) {
    return maximize ? a.value > b.value : a.value < b.value;
  });
  if (ranking.best.size() > static_cast<size_t>(spec.objective.best))
    ranking.best.resize(static_cast<size_t>(spec.objective.best));
  return ranking;
}

}  // namespace softik
