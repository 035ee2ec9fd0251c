// Integer and floating expressions over named values, as written in specs ("tokens * hidden") and
// launch plans ("ceil_div(tokens, 4)"). Grammar (docs/SUBMISSION.md):
//   expr := term (('+' | '-') term)* ;  term := unary (('*' | '/' | '%') unary)*
//   unary := '-' unary | primary ;      primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
// Integers are int64 with overflow checked; '/' on integers truncates and fails on zero. A float
// anywhere makes the result float. Functions: ceil_div, min, max, round_up.
// Expressions come from submissions, so nesting (parentheses, calls, unary signs) is bounded: the
// parser recurses once per level, and unbounded input would exhaust the caller's stack.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mkb {

// Far beyond any real plan or spec (they nest a few levels); small enough to stay well within the
// stack of any thread an agent calls from.
inline constexpr int max_expression_depth = 256;

struct expr_value {
  bool is_float = false;
  int64_t integer = 0;
  double real = 0;
  double as_double() const { return is_float ? real : static_cast<double>(integer); }
  static expr_value of(int64_t v) { return {false, v, 0}; }
  static expr_value of_real(double v) { return {true, 0, v}; }
};

using expr_lookup = std::function<std::optional<expr_value>(std::string_view name)>;

// Thrown with the 1-based column of the offending token in the expression text.
class expression_error : public std::runtime_error {
public:
  expression_error(size_t column, const std::string &message)
      : std::runtime_error(message), column_(column) {}
  size_t column() const { return column_; }

private:
  size_t column_;
};

expr_value evaluate_expression(std::string_view text, const expr_lookup &lookup);

// Requires an integer result.
int64_t evaluate_integer(std::string_view text, const expr_lookup &lookup);

} // namespace mkb
