#include "core/expression.hpp"

#include <gtest/gtest.h>

namespace mkb {
namespace {

expr_lookup symbols() {
  return [](std::string_view name) -> std::optional<expr_value> {
    if (name == "tokens") return expr_value::of(14509);
    if (name == "hidden") return expr_value::of(4096);
    if (name == "eps") return expr_value::of_real(1e-5);
    return std::nullopt;
  };
}

TEST(Expression, IntegerArithmeticAndPrecedence) {
  EXPECT_EQ(evaluate_integer("tokens * hidden", symbols()), 14509 * 4096);
  EXPECT_EQ(evaluate_integer("2 + 3 * 4", symbols()), 14);
  EXPECT_EQ(evaluate_integer("(2 + 3) * 4", symbols()), 20);
  EXPECT_EQ(evaluate_integer("-7 / 2", symbols()), -3);
  EXPECT_EQ(evaluate_integer("17 % 5", symbols()), 2);
  EXPECT_EQ(evaluate_integer("ceil_div(tokens, 256)", symbols()), 57);
  EXPECT_EQ(evaluate_integer("round_up(10, 8)", symbols()), 16);
  EXPECT_EQ(evaluate_integer("max(3, min(9, 5))", symbols()), 5);
}

TEST(Expression, FloatPromotion) {
  expr_value v = evaluate_expression("1.0 / hidden", symbols());
  EXPECT_TRUE(v.is_float);
  EXPECT_DOUBLE_EQ(v.real, 1.0 / 4096);
  EXPECT_DOUBLE_EQ(evaluate_expression("eps * 2", symbols()).real, 2e-5);
  EXPECT_DOUBLE_EQ(evaluate_expression("1e-3", symbols()).real, 1e-3);
}

TEST(Expression, ErrorsNameTheColumn) {
  try {
    evaluate_expression("tokens * hiden", symbols());
    FAIL() << "no error";
  } catch (const expression_error &e) {
    EXPECT_EQ(e.column(), 10u);
    EXPECT_NE(std::string(e.what()).find("unknown name 'hiden'"), std::string::npos);
  }
  EXPECT_THROW(evaluate_expression("1 / 0", symbols()), expression_error);
  EXPECT_THROW(evaluate_expression("(1 + 2", symbols()), expression_error);
  EXPECT_THROW(evaluate_expression("1 +", symbols()), expression_error);
  EXPECT_THROW(evaluate_expression("2 3", symbols()), expression_error);
  EXPECT_THROW(evaluate_expression("ceil_div(1)", symbols()), expression_error);
  EXPECT_THROW(evaluate_expression("foo(1)", symbols()), expression_error);
  EXPECT_THROW(evaluate_integer("eps", symbols()), expression_error);
}

TEST(Expression, OverflowIsAnError) {
  EXPECT_THROW(evaluate_integer("9223372036854775807 + 1", symbols()), expression_error);
  EXPECT_THROW(evaluate_integer("4294967296 * 4294967296", symbols()), expression_error);
  EXPECT_THROW(evaluate_integer("99999999999999999999", symbols()), expression_error);
}

// Regression: 15,000 nested parentheses and 50,000 unary minus signs once overflowed the stack of
// the calling process (tests/fuzz/regressions/expression holds the inputs).
TEST(Expression, NestingIsBoundedWithAClearError) {
  auto nesting_error = [](const std::string &text) -> std::string {
    try {
      evaluate_expression(text, symbols());
    } catch (const expression_error &e) {
      return e.what();
    }
    return "no error";
  };
  const std::string deeper = "nests deeper than " + std::to_string(max_expression_depth) + " levels";
  EXPECT_EQ(nesting_error(std::string(15000, '(') + "1" + std::string(15000, ')')), "the expression " + deeper);
  EXPECT_EQ(nesting_error(std::string(50000, '-') + "1"), "the expression " + deeper);
  EXPECT_EQ(nesting_error(std::string(50000, '+') + "1"), "the expression " + deeper);
  std::string calls;
  for (int i = 0; i < 10000; ++i) calls += "max(1, ";
  EXPECT_EQ(nesting_error(calls + "1" + std::string(10000, ')')), "the expression " + deeper);

  // The limit itself is allowed, one more level is not; levels that close do not add up.
  const size_t limit = max_expression_depth;
  EXPECT_EQ(evaluate_integer(std::string(limit, '(') + "tokens" + std::string(limit, ')'), symbols()), 14509);
  EXPECT_EQ(evaluate_integer(std::string(limit, '-') + "1", symbols()), 1);
  EXPECT_EQ(nesting_error(std::string(limit + 1, '(') + "1" + std::string(limit + 1, ')')), "the expression " + deeper);
  std::string siblings;
  for (int i = 0; i < 1000; ++i) siblings += "(1) + ";
  EXPECT_EQ(evaluate_integer(siblings + "0", symbols()), 1000);
}

} // namespace
} // namespace mkb
