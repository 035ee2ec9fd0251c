#include "plan/launch_plan.hpp"

#include <fmt/format.h>

#include <cctype>
#include <set>

#include "core/text.hpp"

namespace mkb {

namespace {

constexpr std::string_view plan_open = "/* mkb:plan";
constexpr std::string_view plan_close = "*/";

struct statement {
  std::string text;
  int line;
};

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Splits the plan body into statements: a statement starts at column 0 and continues on the
// following indented lines. '#' starts a comment line.
std::vector<statement> split_statements(std::string_view body, int first_line) {
  std::vector<statement> statements;
  int line = first_line;
  size_t start = 0;
  while (start <= body.size()) {
    size_t end = body.find('\n', start);
    if (end == std::string_view::npos) end = body.size();
    std::string_view raw = body.substr(start, end - start);
    std::string_view content = trim(raw);
    if (!content.empty() && content.front() != '#') {
      bool continuation = std::isspace(static_cast<unsigned char>(raw.front()));
      if (continuation && !statements.empty()) {
        statements.back().text += ' ';
        statements.back().text += content;
      } else if (continuation) {
        throw plan_error(line, "an indented line continues a statement, but none came before it");
      } else {
        statements.push_back({std::string(content), line});
      }
    }
    ++line;
    start = end + 1;
  }
  return statements;
}

class statement_reader {
public:
  explicit statement_reader(const statement &s) : text_(s.text), line_(s.line) {}

  [[noreturn]] void error(const std::string &message) const { throw plan_error(line_, message); }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }
  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c, std::string_view where) {
    if (!accept(c)) error(fmt::format("expected '{}' {}", c, where));
  }
  std::string name(std::string_view what) {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    if (start == pos_) error(fmt::format("expected {}", what));
    return std::string(text_.substr(start, pos_ - start));
  }
  // An expression up to the next ',' or unbalanced ')' or ']' at depth 0.
  std::string expression(std::string_view what) {
    skip_space();
    size_t start = pos_;
    int depth = 0;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '(') ++depth;
      else if (c == ')' || c == ']') {
        if (depth == 0) break;
        --depth;
      } else if (c == ',' && depth == 0) break;
      ++pos_;
    }
    std::string_view e = trim(text_.substr(start, pos_ - start));
    if (e.empty()) error(fmt::format("expected {}", what));
    return std::string(e);
  }
  // "(" expr {"," expr} ")" with 1..max_count expressions.
  std::vector<std::string> expression_list(std::string_view clause, size_t max_count) {
    expect('(', fmt::format("after '{}'", clause));
    std::vector<std::string> list;
    do list.push_back(expression(fmt::format("a value in {}(...)", clause)));
    while (accept(','));
    expect(')', fmt::format("to close {}(...)", clause));
    if (list.size() > max_count) error(fmt::format("{}(...) takes at most {} values", clause, max_count));
    return list;
  }
  int line() const { return line_; }

private:
  std::string_view text_;
  int line_;
  size_t pos_ = 0;
};

arg_kind scalar_kind(std::string_view word, bool *ok) {
  *ok = true;
  if (word == "i32") return arg_kind::i32;
  if (word == "i64") return arg_kind::i64;
  if (word == "u32") return arg_kind::u32;
  if (word == "u64") return arg_kind::u64;
  if (word == "f32") return arg_kind::f32;
  if (word == "f64") return arg_kind::f64;
  *ok = false;
  return arg_kind::pointer;
}

plan_launch parse_launch(statement_reader &r) {
  plan_launch launch;
  launch.line = r.line();
  launch.entry = r.name("the entry name after 'launch'");
  bool seen_grid = false, seen_block = false, seen_args = false, seen_shared = false, seen_cluster = false;
  auto once = [&](bool &seen, std::string_view clause) {
    if (seen) r.error(fmt::format("'{}' appears twice in one launch", clause));
    seen = true;
  };
  while (!r.at_end()) {
    std::string clause = r.name("a clause: grid, block, shared, cluster or args");
    if (clause == "grid") {
      once(seen_grid, clause);
      launch.grid = r.expression_list(clause, 3);
    } else if (clause == "block") {
      once(seen_block, clause);
      launch.block = r.expression_list(clause, 3);
    } else if (clause == "cluster") {
      once(seen_cluster, clause);
      launch.cluster = r.expression_list(clause, 3);
    } else if (clause == "shared") {
      once(seen_shared, clause);
      launch.shared = r.expression_list(clause, 1).front();
    } else if (clause == "args") {
      once(seen_args, clause);
      r.expect('(', "after 'args'");
      if (!r.accept(')')) {
        do {
          std::string word = r.name("an argument: a buffer name or i32(...), f32(...), ...");
          bool is_scalar = false;
          arg_kind kind = scalar_kind(word, &is_scalar);
          if (is_scalar && r.accept('(')) {
            std::string e = r.expression(fmt::format("a value in {}(...)", word));
            r.expect(')', fmt::format("to close {}(...)", word));
            launch.args.push_back({kind, e});
          } else {
            launch.args.push_back({arg_kind::pointer, word});
          }
        } while (r.accept(','));
        r.expect(')', "to close args(...)");
      }
    } else {
      r.error(fmt::format("unknown clause '{}' (expected grid, block, shared, cluster or args)", clause));
    }
  }
  if (!seen_grid) r.error(fmt::format("launch of '{}' has no grid(...)", launch.entry));
  if (!seen_block) r.error(fmt::format("launch of '{}' has no block(...)", launch.entry));
  if (!seen_args) r.error(fmt::format("launch of '{}' has no args(...); write args() for none", launch.entry));
  return launch;
}

plan_launch parse_matmul(statement_reader &r) {
  plan_launch step;
  step.line = r.line();
  step.entry = "matmul";
  plan_matmul &mm = step.matmul.emplace();
  std::set<std::string> seen;
  while (!r.at_end()) {
    std::string clause = r.name("a clause: c, a, b, m, n, k, batch, transpose_a, transpose_b or accumulate");
    if (!seen.insert(clause).second) r.error(fmt::format("'{}' appears twice in one matmul", clause));
    auto operand = [&]() {
      r.expect('(', fmt::format("after '{}'", clause));
      std::string name = r.name(fmt::format("a buffer name in {}(...)", clause));
      r.expect(')', fmt::format("to close {}(...)", clause));
      return name;
    };
    if (clause == "c") mm.c = operand();
    else if (clause == "a") mm.a = operand();
    else if (clause == "b") mm.b = operand();
    else if (clause == "m") mm.m = r.expression_list(clause, 1).front();
    else if (clause == "n") mm.n = r.expression_list(clause, 1).front();
    else if (clause == "k") mm.k = r.expression_list(clause, 1).front();
    else if (clause == "batch") mm.batch = r.expression_list(clause, 1).front();
    else if (clause == "transpose_a") mm.transpose_a = true;
    else if (clause == "transpose_b") mm.transpose_b = true;
    else if (clause == "accumulate") mm.accumulate = true;
    else r.error(fmt::format("unknown matmul clause '{}' (expected c, a, b, m, n, k, batch, transpose_a, transpose_b "
                             "or accumulate)", clause));
  }
  for (std::string_view required : {"c", "a", "b", "m", "n", "k"})
    if (!seen.count(std::string(required))) r.error(fmt::format("matmul has no {}(...)", required));
  return step;
}

plan_scratch parse_scratch(statement_reader &r) {
  plan_scratch s;
  s.line = r.line();
  s.name = r.name("the scratch buffer's name");
  std::string type_name = r.name("the scratch buffer's dtype");
  auto type = parse_dtype(type_name);
  if (!type) r.error(fmt::format("unknown dtype '{}'", type_name));
  s.type = *type;
  r.expect('[', "before the element count");
  s.count = r.expression("the element count");
  r.expect(']', "after the element count");
  if (!r.at_end()) {
    std::string word = r.name("'zeroed' or the end of the statement");
    if (word != "zeroed") r.error(fmt::format("unexpected '{}' (only 'zeroed' may follow)", word));
    s.zeroed = true;
  }
  if (!r.at_end()) r.error("unexpected text after the scratch statement");
  return s;
}

} // namespace

std::string_view arg_kind_name(arg_kind kind) {
  switch (kind) {
  case arg_kind::pointer: return "pointer";
  case arg_kind::i32: return "i32";
  case arg_kind::i64: return "i64";
  case arg_kind::u32: return "u32";
  case arg_kind::u64: return "u64";
  case arg_kind::f32: return "f32";
  case arg_kind::f64: return "f64";
  }
  return "?";
}

size_t arg_kind_bytes(arg_kind kind) {
  switch (kind) {
  case arg_kind::i32:
  case arg_kind::u32:
  case arg_kind::f32: return 4;
  default: return 8;
  }
}

launch_plan parse_launch_plan(std::string_view submission) {
  size_t open = submission.find(plan_open);
  if (open == std::string_view::npos)
    throw plan_error(1, "no launch plan: the submission needs one '/* mkb:plan ... */' block");
  size_t body_start = open + plan_open.size();
  size_t close = submission.find(plan_close, body_start);
  int open_line = line_of(submission, open);
  if (close == std::string_view::npos) throw plan_error(open_line, "the plan block is never closed with '*/'");
  if (submission.find(plan_open, close) != std::string_view::npos)
    throw plan_error(line_of(submission, submission.find(plan_open, close)), "a second plan block; give exactly one");

  std::string_view body = submission.substr(body_start, close - body_start);
  // The opening line may continue after the marker only with whitespace.
  size_t first_newline = body.find('\n');
  if (first_newline == std::string_view::npos || !trim(body.substr(0, first_newline)).empty())
    throw plan_error(open_line, "put the plan's statements on the lines after '/* mkb:plan'");
  body.remove_prefix(first_newline + 1);

  launch_plan plan;
  for (const statement &s : split_statements(body, open_line + 1)) {
    statement_reader r(s);
    std::string keyword = r.name("'launch' or 'scratch'");
    if (keyword == "launch") plan.launches.push_back(parse_launch(r));
    else if (keyword == "scratch") plan.scratch.push_back(parse_scratch(r));
    else if (keyword == "matmul") plan.launches.push_back(parse_matmul(r));
    else r.error(fmt::format("unknown statement '{}' (expected 'launch' or 'scratch')", keyword));
  }
  if (plan.launches.empty()) throw plan_error(open_line, "the plan launches nothing");
  return plan;
}

} // namespace mkb
