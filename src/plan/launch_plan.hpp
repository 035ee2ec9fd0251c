// The launch plan of a CUDA C++ submission (docs/SUBMISSION.md): which entries to launch, in which
// order, with which shapes and arguments, and which scratch buffers to provide. Parsed from the
// submission's `/* mkb:plan ... */` block, then resolved against a problem's symbols and tensors.
// A problem's baseline and anchor may also run library steps (a cuBLAS matmul); submissions may not.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
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

// `matmul c(C) a(A) b(B) m(M) n(N) k(K) [batch(Z)] [transpose_a] [transpose_b] [accumulate]`:
// for each z, C_z (+)= A_z B_z over row-major buffers; A_z is M x K (stored K x M with transpose_a),
// B_z is K x N (stored N x K with transpose_b, the layout of an nn.Linear weight).
struct plan_matmul {
  std::string c, a, b;         // buffer names
  std::string m, n, k, batch = "1";
  bool transpose_a = false, transpose_b = false, accumulate = false;
};

// One step of a plan: a kernel launch, or a library step when `matmul` is set.
struct plan_launch {
  std::optional<plan_matmul> matmul;
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

struct resolved_matmul {
  std::string c, a, b;
  dtype operand_type = dtype::fp32, result_type = dtype::fp32;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool transpose_a = false, transpose_b = false, accumulate = false;
};

struct resolved_launch {
  std::optional<resolved_matmul> matmul; // a library step instead of a kernel launch
  std::string entry;                     // "matmul" for the library step
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1}, cluster{0, 0, 0};
  uint32_t shared_bytes = 0;
  std::vector<resolved_arg> args;
  int line = 0;
};

struct resolved_scratch {
  std::string name;
  dtype type = dtype::fp32;
  uint64_t bytes = 0;
  bool zeroed = false;
};

struct resolved_plan {
  std::vector<resolved_scratch> scratch;
  std::vector<resolved_launch> launches;
};

enum class plan_role { submission, baseline, anchor };
std::string_view plan_role_name(plan_role role);

// Evaluates every expression and checks every name and limit; throws plan_error. Library steps are
// refused in a submission's plan.
resolved_plan resolve_launch_plan(const launch_plan &plan, const problem &p, plan_role role);

} // namespace mkb

namespace mkb {

// Compares a launch's arguments with the parameter sizes of the compiled entry (from
// cuFuncGetParamInfo, or from PTX without a GPU). Returns an explanation of the first difference,
// or an empty string when they agree.
std::string check_parameter_sizes(const resolved_launch &launch, const std::vector<size_t> &sizes);

} // namespace mkb
