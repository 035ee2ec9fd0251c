#include "core/expression.hpp"
#include "fuzz_targets.hpp"

namespace mkb::fuzz {

void expression(bytes data) {
  expr_lookup lookup = [](std::string_view name) -> std::optional<expr_value> {
    if (name == "tokens") return expr_value::of(14509);
    if (name == "hidden") return expr_value::of(4096);
    if (name == "big") return expr_value::of(INT64_MAX);
    if (name == "eps") return expr_value::of_real(1e-5);
    return std::nullopt;
  };
  try {
    evaluate_expression(as_text(data), lookup);
  } catch (const expression_error &) {
  }
}

} // namespace mkb::fuzz
