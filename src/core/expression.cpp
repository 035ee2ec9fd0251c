#include "core/expression.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <vector>

namespace mkb {

namespace {

class parser {
public:
  parser(std::string_view text, const expr_lookup &lookup) : text_(text), lookup_(lookup) {}

  expr_value parse_all() {
    expr_value v = parse_sum();
    skip_space();
    if (pos_ < text_.size()) error(fmt::format("unexpected '{}'", text_[pos_]));
    return v;
  }

private:
  [[noreturn]] void error(const std::string &message) const { throw expression_error(pos_ + 1, message); }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  expr_value parse_sum() {
    expr_value left = parse_product();
    for (;;) {
      if (accept('+')) left = arithmetic('+', left, parse_product());
      else if (accept('-')) left = arithmetic('-', left, parse_product());
      else return left;
    }
  }

  expr_value parse_product() {
    expr_value left = parse_unary();
    for (;;) {
      if (accept('*')) left = arithmetic('*', left, parse_unary());
      else if (accept('/')) left = arithmetic('/', left, parse_unary());
      else if (accept('%')) left = arithmetic('%', left, parse_unary());
      else return left;
    }
  }

  // One level of nesting for as long as it lives; refuses the level past max_expression_depth.
  class nesting {
  public:
    explicit nesting(parser &p) : parser_(p) {
      if (++parser_.depth_ > max_expression_depth)
        parser_.error(fmt::format("the expression nests deeper than {} levels", max_expression_depth));
    }
    ~nesting() { --parser_.depth_; }
    nesting(const nesting &) = delete;
    nesting &operator=(const nesting &) = delete;

  private:
    parser &parser_;
  };

  expr_value parse_unary() {
    if (accept('-')) {
      nesting level(*this);
      return arithmetic('-', expr_value::of(0), parse_unary());
    }
    if (accept('+')) {
      nesting level(*this);
      return parse_unary();
    }
    return parse_primary();
  }

  expr_value parse_primary() {
    skip_space();
    if (pos_ >= text_.size()) error("expression ends where a value was expected");
    if (accept('(')) {
      nesting level(*this);
      expr_value v = parse_sum();
      if (!accept(')')) error("missing ')'");
      return v;
    }
    char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return parse_number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return parse_name();
    error(fmt::format("unexpected '{}'", c));
  }

  expr_value parse_number() {
    size_t start = pos_;
    bool is_float = false;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E') {
        is_float = true;
        ++pos_;
        if ((c == 'e' || c == 'E') && pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+'))
          ++pos_;
      } else {
        break;
      }
    }
    std::string_view digits = text_.substr(start, pos_ - start);
    if (is_float) {
      double v = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (ec != std::errc() || end != digits.data() + digits.size())
        throw expression_error(start + 1, fmt::format("malformed number '{}'", digits));
      return expr_value::of_real(v);
    }
    int64_t v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size())
      throw expression_error(start + 1, fmt::format("integer '{}' out of range", digits));
    return expr_value::of(v);
  }

  expr_value parse_name() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    std::string_view name = text_.substr(start, pos_ - start);
    if (accept('(')) {
      nesting level(*this);
      std::vector<expr_value> args;
      if (!accept(')')) {
        do args.push_back(parse_sum());
        while (accept(','));
        if (!accept(')')) error("missing ')' after the arguments of " + std::string(name));
      }
      return call(start, name, args);
    }
    if (auto v = lookup_ ? lookup_(name) : std::nullopt) return *v;
    throw expression_error(start + 1, fmt::format("unknown name '{}'", name));
  }

  expr_value call(size_t start, std::string_view name, const std::vector<expr_value> &args) {
    auto need = [&](size_t n) {
      if (args.size() != n)
        throw expression_error(start + 1, fmt::format("{} takes {} arguments, not {}", name, n, args.size()));
    };
    auto need_integers = [&] {
      for (const expr_value &a : args)
        if (a.is_float) throw expression_error(start + 1, fmt::format("{} takes integers", name));
    };
    if (name == "ceil_div") {
      need(2);
      need_integers();
      if (args[1].integer <= 0) throw expression_error(start + 1, "ceil_div by a value <= 0");
      if (args[0].integer < 0) throw expression_error(start + 1, "ceil_div of a negative value");
      return expr_value::of(args[0].integer / args[1].integer + (args[0].integer % args[1].integer != 0));
    }
    if (name == "round_up") {
      need(2);
      need_integers();
      if (args[1].integer <= 0) throw expression_error(start + 1, "round_up to a value <= 0");
      expr_value q = call(start, "ceil_div", args);
      return arithmetic('*', q, args[1]);
    }
    if (name == "min" || name == "max") {
      need(2);
      bool pick_first = (args[0].as_double() < args[1].as_double()) == (name == "min");
      return pick_first ? args[0] : args[1];
    }
    throw expression_error(start + 1, fmt::format("unknown function '{}'", name));
  }

  expr_value arithmetic(char op, const expr_value &a, const expr_value &b) {
    if (a.is_float || b.is_float) {
      double x = a.as_double(), y = b.as_double();
      switch (op) {
      case '+': return expr_value::of_real(x + y);
      case '-': return expr_value::of_real(x - y);
      case '*': return expr_value::of_real(x * y);
      case '/':
        if (y == 0) error("division by zero");
        return expr_value::of_real(x / y);
      default: error("'%' needs integers");
      }
    }
    int64_t x = a.integer, y = b.integer, r = 0;
    bool overflow = false;
    switch (op) {
    case '+': overflow = __builtin_add_overflow(x, y, &r); break;
    case '-': overflow = __builtin_sub_overflow(x, y, &r); break;
    case '*': overflow = __builtin_mul_overflow(x, y, &r); break;
    case '/':
    case '%':
      if (y == 0) error("division by zero");
      if (x == INT64_MIN && y == -1) overflow = true;
      else r = op == '/' ? x / y : x % y;
      break;
    }
    if (overflow) error("integer overflow");
    return expr_value::of(r);
  }

  std::string_view text_;
  const expr_lookup &lookup_;
  size_t pos_ = 0;
  int depth_ = 0;
};

} // namespace

expr_value evaluate_expression(std::string_view text, const expr_lookup &lookup) {
  return parser(text, lookup).parse_all();
}

int64_t evaluate_integer(std::string_view text, const expr_lookup &lookup) {
  expr_value v = evaluate_expression(text, lookup);
  if (v.is_float) throw expression_error(1, fmt::format("'{}' is not an integer", text));
  return v.integer;
}

} // namespace mkb
