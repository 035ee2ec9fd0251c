#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>

#include "plan/launch_plan.hpp"
#include "spec/problem.hpp"

namespace mkb {

namespace {

// A sanity bound only; what the device can really allocate is the worker's to find out.
constexpr uint64_t max_scratch_bytes = uint64_t(1) << 40;

// An expression as quoted in an error: a submission's expression can be 300 KB long.
std::string excerpt(std::string_view text) {
  constexpr size_t max_chars = 80;
  if (text.size() <= max_chars) return std::string(text);
  return fmt::format("{}...", text.substr(0, max_chars - 3));
}

class resolver {
public:
  resolver(const problem &p, int line) : lookup_(p.lookup()), line_(line) {}

  [[noreturn]] void error(const std::string &message) const { throw plan_error(line_, message); }

  expr_value value(const std::string &text, std::string_view what) const {
    try {
      return evaluate_expression(text, lookup_);
    } catch (const expression_error &e) {
      error(fmt::format("{} '{}': {} (column {})", what, excerpt(text), e.what(), e.column()));
    }
  }

  int64_t integer(const std::string &text, std::string_view what) const {
    expr_value v = value(text, what);
    if (v.is_float) error(fmt::format("{} '{}' must be an integer", what, excerpt(text)));
    return v.integer;
  }

  std::array<uint32_t, 3> dims(const std::vector<std::string> &texts, std::string_view what,
                               const std::array<int64_t, 3> &limits) const {
    std::array<uint32_t, 3> out{1, 1, 1};
    for (size_t i = 0; i < texts.size(); ++i) {
      int64_t v = integer(texts[i], what);
      if (v < 1 || v > limits[i])
        error(fmt::format("{}[{}] = '{}' is {}; it must be in [1, {}]", what, "xyz"[i], excerpt(texts[i]), v, limits[i]));
      out[i] = static_cast<uint32_t>(v);
    }
    return out;
  }

private:
  expr_lookup lookup_;
  int line_;
};

} // namespace

std::string_view plan_role_name(plan_role role) {
  switch (role) {
  case plan_role::submission: return "submission";
  case plan_role::baseline: return "baseline";
  case plan_role::anchor: return "anchor";
  }
  return "?";
}

namespace {

struct buffer_facts {
  dtype type;
  uint64_t count;
  std::string storage; // the buffer's own name: an aliased output is its input's buffer
};

bool is_matmul_operand_type(dtype t) {
  return t == dtype::bf16 || t == dtype::fp16 || t == dtype::fp32 || t == dtype::fp64;
}

resolved_matmul resolve_matmul(const plan_matmul &mm, const resolver &r,
                               const std::map<std::string, buffer_facts> &buffers) {
  auto buffer = [&](const std::string &name, std::string_view role) -> const buffer_facts & {
    auto it = buffers.find(name);
    if (it == buffers.end()) r.error(fmt::format("matmul {}({}): no tensor or scratch buffer is named '{}'", role, name, name));
    return it->second;
  };
  const buffer_facts &a = buffer(mm.a, "a"), &b = buffer(mm.b, "b"), &c = buffer(mm.c, "c");
  resolved_matmul out;
  out.a = mm.a;
  out.b = mm.b;
  out.c = mm.c;
  out.transpose_a = mm.transpose_a;
  out.transpose_b = mm.transpose_b;
  out.accumulate = mm.accumulate;
  if (a.type != b.type || !is_matmul_operand_type(a.type))
    r.error(fmt::format("matmul operands are {} and {}; they must share one dtype of bf16, fp16, fp32, fp64",
                        dtype_name(a.type), dtype_name(b.type)));
  bool widened = c.type == dtype::fp32 && (a.type == dtype::bf16 || a.type == dtype::fp16);
  if (c.type != a.type && !widened)
    r.error(fmt::format("matmul result '{}' is {}; it must be {} (or fp32 for bf16 and fp16 operands)", mm.c,
                        dtype_name(c.type), dtype_name(a.type)));
  out.operand_type = a.type;
  out.result_type = c.type;
  auto extent = [&](const std::string &text, std::string_view what) {
    int64_t v = r.integer(text, what);
    if (v < 1 || v > std::numeric_limits<int32_t>::max())
      r.error(fmt::format("matmul {}({}) = {} is out of range [1, 2^31)", what, text, v));
    return v;
  };
  out.m = extent(mm.m, "m");
  out.n = extent(mm.n, "n");
  out.k = extent(mm.k, "k");
  out.batch = extent(mm.batch, "batch");
  auto holds = [&](const buffer_facts &f, const std::string &name, int64_t rows, int64_t cols) {
    uint64_t need = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(out.batch), static_cast<uint64_t>(rows), &need) ||
        __builtin_mul_overflow(need, static_cast<uint64_t>(cols), &need) || need > f.count)
      r.error(fmt::format("matmul needs {} x {} x {} elements in '{}' but it holds {}", out.batch, rows, cols, name,
                          f.count));
  };
  holds(a, mm.a, out.m, out.k);
  holds(b, mm.b, out.k, out.n);
  holds(c, mm.c, out.m, out.n);
  if (c.storage == a.storage || c.storage == b.storage)
    r.error(fmt::format("matmul result '{}' is also an operand; write it to another buffer", mm.c));
  return out;
}

} // namespace

resolved_plan resolve_launch_plan(const launch_plan &plan, const problem &p, plan_role role) {
  resolved_plan out;
  std::map<std::string, buffer_facts> facts; // every name a plan may bind
  for (const tensor_spec &t : p.inputs) facts[t.name] = {t.type, t.count, t.name};
  for (const tensor_spec &t : p.outputs) {
    // The anchor writes floating outputs as fp64, each to its own buffer (docs/PROBLEMS.md).
    if (role == plan_role::anchor)
      facts[t.name] = {dtype_is_floating(t.type) ? dtype::fp64 : t.type, t.count, t.name};
    else
      facts[t.name] = {t.type, t.count, t.aliases.empty() ? t.name : t.aliases};
  }

  uint64_t total_scratch = 0;
  for (const plan_scratch &s : plan.scratch) {
    resolver r(p, s.line);
    if (facts.count(s.name)) r.error(fmt::format("scratch '{}' has the name of a tensor or another scratch", s.name));
    if (p.lookup()(s.name)) r.error(fmt::format("scratch '{}' has the name of a symbol", s.name));
    int64_t count = r.integer(s.count, "scratch size");
    if (count < 1) r.error(fmt::format("scratch '{}' has {} elements; it needs at least 1", s.name, count));
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(count), dtype_bytes(s.type), &bytes) ||
        (total_scratch += bytes) > max_scratch_bytes)
      r.error(fmt::format("scratch totals more than {} GiB", max_scratch_bytes >> 30));
    facts[s.name] = {s.type, static_cast<uint64_t>(count), s.name};
    out.scratch.push_back({s.name, s.type, bytes, s.zeroed});
  }

  for (const plan_launch &l : plan.launches) {
    resolver r(p, l.line);
    resolved_launch rl;
    rl.entry = l.entry;
    rl.line = l.line;
    if (l.matmul) {
      if (role == plan_role::submission)
        r.error("library steps (matmul) belong to a problem's baseline and anchor; a submission computes its own");
      rl.matmul = resolve_matmul(*l.matmul, r, facts);
      out.launches.push_back(std::move(rl));
      continue;
    }
    rl.grid = r.dims(l.grid, "grid", {std::numeric_limits<int32_t>::max(), 65535, 65535});
    rl.block = r.dims(l.block, "block", {1024, 1024, 64});
    if (uint64_t(rl.block[0]) * rl.block[1] * rl.block[2] > 1024)
      r.error(fmt::format("block has {} threads; at most 1024", uint64_t(rl.block[0]) * rl.block[1] * rl.block[2]));
    if (!l.cluster.empty()) {
      rl.cluster = r.dims(l.cluster, "cluster", {16, 16, 16});
      if (rl.cluster[0] * rl.cluster[1] * rl.cluster[2] > 16) r.error("a cluster has at most 16 blocks");
      for (int i = 0; i < 3; ++i)
        if (rl.grid[i] % rl.cluster[i] != 0)
          r.error(fmt::format("grid[{}] = {} is not a multiple of cluster[{}] = {}", "xyz"[i], rl.grid[i], "xyz"[i], rl.cluster[i]));
    }
    int64_t shared = r.integer(l.shared, "shared");
    if (shared < 0 || shared > (1 << 20)) r.error(fmt::format("shared({}) = {} bytes is out of range", l.shared, shared));
    rl.shared_bytes = static_cast<uint32_t>(shared);

    for (const plan_arg &a : l.args) {
      resolved_arg ra;
      ra.kind = a.kind;
      ra.text = a.text;
      if (a.kind == arg_kind::pointer) {
        if (!facts.count(a.text)) {
          if (p.lookup()(a.text))
            r.error(fmt::format("'{}' is a symbol, not a buffer; pass it as i32({}) or i64({})", a.text, a.text, a.text));
          r.error(fmt::format("no tensor or scratch buffer is named '{}'", a.text));
        }
        ra.buffer = a.text;
      } else {
        expr_value v = r.value(a.text, std::string(arg_kind_name(a.kind)));
        switch (a.kind) {
        case arg_kind::f32:
        case arg_kind::f64: ra.real = v.as_double(); break;
        default:
          // A whole number computed in floating point counts (a spec constant such as a pad id of -1 is
          // a double): within 2^53 it is exact.
          if (v.is_float) {
            if (!(std::fabs(v.real) <= 9007199254740992.0) || v.real != std::trunc(v.real))
              r.error(fmt::format("{}({}) = {} is not an integer", arg_kind_name(a.kind), a.text, v.real));
            v = expr_value::of(static_cast<int64_t>(v.real));
          }
          ra.integer = v.integer;
          bool fits = a.kind == arg_kind::i32   ? v.integer >= INT32_MIN && v.integer <= INT32_MAX
                      : a.kind == arg_kind::u32 ? v.integer >= 0 && v.integer <= int64_t(UINT32_MAX)
                      : a.kind == arg_kind::u64 ? v.integer >= 0
                                                : true;
          if (!fits) r.error(fmt::format("{}({}) = {} does not fit", arg_kind_name(a.kind), a.text, v.integer));
        }
      }
      rl.args.push_back(std::move(ra));
    }
    out.launches.push_back(std::move(rl));
  }
  return out;
}

} // namespace mkb

namespace mkb {

std::string check_parameter_sizes(const resolved_launch &launch, const std::vector<size_t> &sizes) {
  auto describe = [&](size_t i) {
    const resolved_arg &a = launch.args[i];
    return a.kind == arg_kind::pointer ? fmt::format("pointer '{}'", a.buffer)
                                       : fmt::format("{}({})", arg_kind_name(a.kind), a.text);
  };
  if (sizes.size() != launch.args.size())
    return fmt::format("line {}: '{}' takes {} parameters but the plan passes {}", launch.line, launch.entry,
                       sizes.size(), launch.args.size());
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != arg_kind_bytes(launch.args[i].kind))
      return fmt::format("line {}: parameter {} of '{}' is {} bytes but the plan passes {} ({} bytes)", launch.line,
                         i, launch.entry, sizes[i], describe(i), arg_kind_bytes(launch.args[i].kind));
  return {};
}

} // namespace mkb
