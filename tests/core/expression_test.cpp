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

} // namespace
} // namespace mkb
