#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <set>

#include "plan/launch_plan.hpp"
#include "spec/problem.hpp"

namespace mkb {

namespace {

// A sanity bound only; what the device can really allocate is the worker's to find out.
constexpr uint64_t max_scratch_bytes = uint64_t(1) << 40;

class resolver {
public:
  resolver(const problem &p, int line) : lookup_(p.lookup()), line_(line) {}

  [[noreturn]] void error(const std::string &message) const { throw plan_error(line_, message); }

  expr_value value(const std::string &text, std::string_view what) const {
    try {
      return evaluate_expression(text, lookup_);
    } catch (const expression_error &e) {
      error(fmt::format("{} '{}': {} (column {})", what, text, e.what(), e.column()));
    }
  }

  int64_t integer(const std::string &text, std::string_view what) const {
    expr_value v = value(text, what);
    if (v.is_float) error(fmt::format("{} '{}' must be an integer", what, text));
    return v.integer;
  }

  std::array<uint32_t, 3> dims(const std::vector<std::string> &texts, std::string_view what,
                               const std::array<int64_t, 3> &limits) const {
    std::array<uint32_t, 3> out{1, 1, 1};
    for (size_t i = 0; i < texts.size(); ++i) {
      int64_t v = integer(texts[i], what);
      if (v < 1 || v > limits[i])
        error(fmt::format("{}[{}] = '{}' is {}; it must be in [1, {}]", what, "xyz"[i], texts[i], v, limits[i]));
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

resolved_plan resolve_launch_plan(const launch_plan &plan, const problem &p) {
  resolved_plan out;
  std::set<std::string> buffers;
  for (const tensor_spec &t : p.inputs) buffers.insert(t.name);
  for (const tensor_spec &t : p.outputs) buffers.insert(t.name);

  uint64_t total_scratch = 0;
  for (const plan_scratch &s : plan.scratch) {
    resolver r(p, s.line);
    if (buffers.count(s.name)) r.error(fmt::format("scratch '{}' has the name of a tensor or another scratch", s.name));
    if (p.lookup()(s.name)) r.error(fmt::format("scratch '{}' has the name of a symbol", s.name));
    int64_t count = r.integer(s.count, "scratch size");
    if (count < 1) r.error(fmt::format("scratch '{}' has {} elements; it needs at least 1", s.name, count));
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(count), dtype_bytes(s.type), &bytes) ||
        (total_scratch += bytes) > max_scratch_bytes)
      r.error(fmt::format("scratch totals more than {} GiB", max_scratch_bytes >> 30));
    buffers.insert(s.name);
    out.scratch.push_back({s.name, bytes, s.zeroed});
  }

  for (const plan_launch &l : plan.launches) {
    resolver r(p, l.line);
    resolved_launch rl;
    rl.entry = l.entry;
    rl.line = l.line;
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
        if (!buffers.count(a.text)) {
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
          if (v.is_float) r.error(fmt::format("{}({}) is not an integer", arg_kind_name(a.kind), a.text));
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
