// The launch plan of a CUDA C++ submission (docs/SUBMISSION.md): which entries to launch, in which
// order, with which shapes and arguments, and which scratch buffers to provide. Parsed from the
// submission's `/* mkb:plan ... */` block, then resolved against a problem's symbols and tensors.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "spec/dtype.hpp"

namespace mkb {

struct problem;

enum class arg_kind { pointer, i32, i64, u32, u64, f32, f64 };
std::string_view arg_kind_name(arg_kind kind);
size_t arg_kind_bytes(arg_kind kind);

struct plan_arg {
  arg_kind kind = arg_kind::pointer;
  std::string text; // pointer: the buffer name; scalars: the expression
};

struct plan_launch {
  std::string entry;
  std::vector<std::string> grid, block, cluster; // 1 to 3 expressions each; cluster may be empty
  std::string shared = "0";
  std::vector<plan_arg> args;
  int line = 0;
};

struct plan_scratch {
  std::string name;
  dtype type = dtype::fp32;
  std::string count; // elements
  bool zeroed = false;
  int line = 0;
};

struct launch_plan {
  std::vector<plan_scratch> scratch;
  std::vector<plan_launch> launches;
};

// A malformed plan, with the 1-based line in the submission.
class plan_error : public std::runtime_error {
public:
  plan_error(int line, const std::string &message) : std::runtime_error(message), line_(line) {}
  int line() const { return line_; }

private:
  int line_;
};

// Finds the one plan block in `submission` and parses it.
launch_plan parse_launch_plan(std::string_view submission);

// ---- Resolved against a problem -------------------------------------------------------------------

struct resolved_arg {
  arg_kind kind = arg_kind::pointer;
  std::string buffer; // pointer
  int64_t integer = 0;
  double real = 0;
  std::string text;
};

struct resolved_launch {
  std::string entry;
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1}, cluster{0, 0, 0};
  uint32_t shared_bytes = 0;
  std::vector<resolved_arg> args;
  int line = 0;
};

struct resolved_scratch {
  std::string name;
  uint64_t bytes = 0;
  bool zeroed = false;
};

struct resolved_plan {
  std::vector<resolved_scratch> scratch;
  std::vector<resolved_launch> launches;
};

enum class plan_role { submission, baseline, anchor };
std::string_view plan_role_name(plan_role role);

// Evaluates every expression and checks every name and limit; throws plan_error.
resolved_plan resolve_launch_plan(const launch_plan &plan, const problem &p);

} // namespace mkb

namespace mkb {

// Compares a launch's arguments with the parameter sizes of the compiled entry (from
// cuFuncGetParamInfo, or from PTX without a GPU). Returns an explanation of the first difference,
// or an empty string when they agree.
std::string check_parameter_sizes(const resolved_launch &launch, const std::vector<size_t> &sizes);

} // namespace mkb
