// Where the time of one evaluation goes, and how precise its figures are (issue: evaluate one kernel).
//
//   compile     a cold compile through the cache against a bare NVRTC call; a cache hit
//   evaluation  one evaluation with a warm worker and a cached compile: wall time by phase, against the
//               device time of the GPU work it must do
//   accuracy    the reported median against an events-only, L2-flushed loop around the same kernel in
//               this process
//   spread      the median of `mkb check` run in N separate processes
//   shared GPU  four `mkb check` processes at once against four one after another: medians, speedups
//               and wall time (they take turns through the host's GPU lock)
//
// Usage: mkb_bench_evaluation [--problem ID] [--processes N]. Needs a GPU for all but the compile part.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/statistics.hpp"
#include "cuda/compile_cache.hpp"
#include "dsl/dsl.hpp"
#include "eval/evaluator.hpp"
#include "spec/suite.hpp"
#include "spec/suite_data.hpp"
#include "worker/buffers.hpp"
#include "worker/gpu.hpp"
#include "worker/harness_kernels.hpp"
#include "worker/loaded_plan.hpp"

namespace {

using namespace mkb;
using clock_type = std::chrono::steady_clock;

std::string verdict_name_of(const evaluation_report &r);
CUdeviceptr lookup_name(const std::vector<std::string> &names, const worker::buffer_layout &layout, const std::string &name);

double ms_since(clock_type::time_point t) { return std::chrono::duration<double, std::milli>(clock_type::now() - t).count(); }

void row(const std::string &what, const std::string &figure, const std::string &target = "", bool met = true) {
  fmt::print("  {:<52} {:>22}  {}\n", what, figure, target.empty() ? "" : fmt::format("target {} {}", target, met ? "[met]" : "[MISSED]"));
}

void compile_figures(const std::string &source) {
  fmt::print("compile\n");
  constexpr int rounds = 7;
  std::vector<double> cold, bare, overhead, hits;
  for (int i = 0; i < rounds; ++i) {
    auto dir = std::filesystem::temp_directory_path() / fmt::format("mkb-bench-cache-{}-{}", getpid(), i);
    compile_cache cache(dir);
    // Alternate the order so that neither side always runs on a warmer machine.
    auto time_cold = [&] {
      auto t = clock_type::now();
      cached_compile c = cache.compile(source, "submission.cu", "sm_90a");
      cold.push_back(ms_since(t));
      if (!c.output.ok) fmt::print("  compile failed:\n{}\n", c.output.log);
    };
    auto time_bare = [&] {
      auto t = clock_type::now();
      compile_cuda(source, "submission.cu", "sm_90a");
      bare.push_back(ms_since(t));
    };
    if (i % 2) time_bare(), time_cold();
    else time_cold(), time_bare();
    // What a miss adds to NVRTC: the key and the stored entry.
    compile_output out = compile_cuda(source, "submission.cu", "sm_90a");
    auto t = clock_type::now();
    hash128 key = compile_cache::key_for({"submission.cu", source, {}, {}}, "sm_90a", {});
    cache.store(key, out);
    overhead.push_back(ms_since(t));
    for (int k = 0; k < 3; ++k) {
      t = clock_type::now();
      cache.compile(source, "submission.cu", "sm_90a");
      hits.push_back(ms_since(t));
    }
    std::filesystem::remove_all(dir);
  }
  double hit = summarize(hits).median;
  row(fmt::format("cache hit (median of {})", hits.size()), fmt::format("{:.3f} ms", hit), "< 5 ms", hit < 5);
  double c = summarize(cold).median, b = summarize(bare).median;
  row(fmt::format("cold compile through the cache (median of {})", rounds), fmt::format("{:.1f} ms", c));
  row(fmt::format("bare NVRTC compile (median of {})", rounds), fmt::format("{:.1f} ms", b));
  row("cold / bare", fmt::format("{:.3f}x", c / b), "<= 1.1x", c / b <= 1.1);
  row("cache work on a miss (key and store, median)", fmt::format("{:.2f} ms", summarize(overhead).median));
}

evaluation_report evaluation_figures(const problem &p, const std::string &source, evaluator &e) {
  fmt::print("evaluation (warm worker, cached compile)\n");
  e.evaluate(p, *find_dsl("cuda"), source); // warms the worker, the compile cache and the harness
  auto t = clock_type::now();
  evaluation_report r = e.evaluate(p, *find_dsl("cuda"), source);
  double wall = ms_since(t);
  const phase_times &ph = r.result.phases;
  row("verdict", verdict_name_of(r));
  row("wall time of mkb_evaluate", fmt::format("{:.1f} ms", wall));
  row("  compile (cache hits)", fmt::format("{:.1f} ms", ph.compile_ms));
  row("  load modules and check plans", fmt::format("{:.1f} ms", ph.load_ms));
  row("  correctness (5 draws)", fmt::format("{:.1f} ms", ph.correctness_ms));
  row("  timing (warm-up, timed, re-verified draws)", fmt::format("{:.1f} ms", ph.timing_ms));
  row("  of which input generation on the GPU", fmt::format("{:.1f} ms", ph.generation_ms));
  row("GPU work the evaluation must do (device time)", fmt::format("{:.1f} ms", ph.gpu_busy_ms));
  row("harness overhead beyond it", fmt::format("{:.1f} ms", wall - ph.gpu_busy_ms));
  row("wall / GPU work", fmt::format("{:.3f}x", wall / ph.gpu_busy_ms), "<= 1.5x", wall / ph.gpu_busy_ms <= 1.5);
  row("submission median, spread", fmt::format("{:.2f} us, CV {:.2f}%", r.time_us, 100 * r.result.submission_time.cv));
  row("timed draws", fmt::format("{}", r.result.submission_time.samples));
  return r;
}

// The same kernel timed the plain way: one context, fixed buffers, flush, event, plan, event.
double events_only_median(const problem &p, const std::string &source) {
  using namespace mkb::worker;
  gpu g(0);
  compile_cache cache(default_cache_dir());
  std::string arch = arch_for_compute_capability(g.facts().major, g.facts().minor);
  harness_kernels harness(g, cache, arch);
  prepared_submission sub = find_dsl("cuda")->prepare(source, p, plan_role::submission);
  cached_compile c = cache.compile(sub.module.source, sub.module.name, arch);
  loaded_plan plan(g, c.output.cubin, sub.plan, "submission");
  std::vector<std::string> names;
  std::vector<uint64_t> sizes;
  for (const tensor_spec &t : p.inputs) names.push_back(t.name), sizes.push_back(t.bytes());
  for (const tensor_spec &t : p.outputs)
    if (t.aliases.empty()) names.push_back(t.name), sizes.push_back(t.bytes());
  for (const resolved_scratch &s : sub.plan.scratch) names.push_back(s.name), sizes.push_back(s.bytes);
  rotating_arena arena(names, sizes, 1, 0);
  splitmix64 random(1);
  buffer_layout layout = arena.next(random);
  for (size_t i = 0; i < p.inputs.size(); ++i) harness.fill(layout.addresses[i], p.inputs[i], 1234, static_cast<uint32_t>(i));
  auto lookup = [&](const std::string &name) -> CUdeviceptr {
    for (const tensor_spec &t : p.outputs)
      if (t.name == name && !t.aliases.empty()) return lookup_name(names, layout, t.aliases);
    return lookup_name(names, layout, name);
  };
  device_memory flush(2 * static_cast<size_t>(g.facts().l2_bytes));
  event start = event::create(), end = event::create();
  std::vector<double> samples;
  for (int i = 0; i < 210; ++i) {
    check_cuda(g.cu().cuMemsetD32Async(flush.get(), 0x5a5a5a5au, flush.size() / 4, g.stream()), "flush");
    check_cuda(g.cu().cuEventRecord(start.get(), g.stream()), "event");
    plan.enqueue(g, lookup);
    check_cuda(g.cu().cuEventRecord(end.get(), g.stream()), "event");
    g.synchronize(std::chrono::seconds(10), "timing");
    float ms = 0;
    g.cu().cuEventElapsedTime(&ms, start.get(), end.get());
    if (i >= 10) samples.push_back(1000.0 * ms);
  }
  return summarize(samples).median;
}

CUdeviceptr lookup_name(const std::vector<std::string> &names, const worker::buffer_layout &layout, const std::string &name) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return layout.addresses[i];
  return 0;
}

// `count` runs of `mkb check --json`, one after another or all at once: what each printed, and the
// wall time of all of them.
struct check_runs {
  std::vector<std::string> outputs;
  double wall_ms = 0;
};

check_runs run_checks(const std::string &problem_id, const std::string &file, int count, bool at_once) {
  std::string mkb = (std::filesystem::canonical("/proc/self/exe").parent_path() / "mkb").string();
  std::string command = fmt::format("'{}' check --problem {} --dsl cuda '{}' --json", mkb, problem_id, file);
  auto read_all = [](FILE *pipe) {
    std::string out;
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    pclose(pipe);
    return out;
  };
  check_runs runs;
  auto start = clock_type::now();
  if (at_once) {
    std::vector<FILE *> pipes;
    for (int i = 0; i < count; ++i) pipes.push_back(popen(command.c_str(), "r"));
    for (FILE *pipe : pipes) runs.outputs.push_back(read_all(pipe)); // reports fit in a pipe's buffer
  } else {
    for (int i = 0; i < count; ++i) runs.outputs.push_back(read_all(popen(command.c_str(), "r")));
  }
  runs.wall_ms = ms_since(start);
  return runs;
}

// The first value of a report's own field `name` in its JSON; NaN when absent.
double json_number(const std::string &report, const std::string &name) {
  size_t at = report.find("\"" + name + "\":");
  return at == std::string::npos ? NAN : std::strtod(report.c_str() + at + name.size() + 3, nullptr);
}

std::vector<double> field_of(const check_runs &runs, const std::string &name) {
  std::vector<double> values;
  for (const std::string &out : runs.outputs)
    if (double v = json_number(out, name); std::isfinite(v)) values.push_back(v);
    else fmt::print("  a process gave no {}:\n{}\n", name, out.substr(0, 2000));
  return values;
}

double largest_deviation(const std::vector<double> &values, double reference) {
  double worst = 0;
  for (double v : values) worst = std::max(worst, std::abs(v / reference - 1));
  return worst;
}

std::string verdict_name_of(const evaluation_report &r) { return r.message.substr(0, r.message.find(':')); }

} // namespace

int main(int argc, char **argv) {
  std::string problem_id = "fused_add_rmsnorm_h4096_llama31_8b_bf16";
  int processes = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--problem") problem_id = argv[i + 1];
    if (std::string(argv[i]) == "--processes") processes = std::atoi(argv[i + 1]);
  }
  suite problems = suite::load(std::nullopt);
  const problem *p = problems.find(problem_id);
  if (!p || !p->solution_for("cuda")) {
    fmt::print(stderr, "no problem '{}' with a cuda solution\n", problem_id);
    return 2;
  }
  std::string source;
  try {
    source = suite_data::locate(std::nullopt).solution(*p, *p->solution_for("cuda"));
  } catch (const error &e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  fmt::print("mkb evaluation benchmark: {} (cuda solution)\n", problem_id);
  compile_figures(source);

  worker_pool pool(find_worker_executable(""), {0});
  worker_status status = pool.acquire()->ping();
  if (status.devices.empty()) {
    fmt::print("no GPU ({}): the evaluation, accuracy and spread figures need one\n", status.driver_error);
    return 0;
  }
  evaluation_settings settings;
  settings.cache_dir = default_cache_dir().string();
  evaluator e(pool, settings);
  evaluation_report r = evaluation_figures(*p, source, e);
  pool.stop_all();

  fmt::print("accuracy\n");
  double reference = events_only_median(*p, source);
  row("events-only, L2-flushed median (200 runs, this process)", fmt::format("{:.2f} us", reference));
  row("reported median", fmt::format("{:.2f} us", r.time_us));
  double deviation = std::abs(r.time_us / reference - 1);
  row("deviation", fmt::format("{:.2f}%", 100 * deviation), "<= 3%", deviation <= 0.03);
  double floor_us = 1e6 * p->bytes / 4.8e12;
  row("bandwidth floor (bytes / 4.8 TB/s)", fmt::format("{:.2f} us", floor_us));

  fmt::print("spread across {} processes (mkb check)\n", processes);
  std::string file = std::filesystem::temp_directory_path() / "mkb-bench-solution.cu";
  write_file_atomic(file, source);
  std::vector<double> medians = field_of(run_checks(problem_id, file, processes, false), "time_us");
  if (!medians.empty()) {
    sample_summary s = summarize(medians);
    std::string list;
    for (double m : medians) list += fmt::format("{:.2f} ", m);
    row("medians (us)", list);
    double spread = (s.max - s.min) / s.median;
    row("(max - min) / median", fmt::format("{:.3f}%", 100 * spread), "<= 0.5%", spread <= 0.005);
  }

  constexpr int sharing = 4;
  fmt::print("shared GPU: {} mkb check processes at once against {} one after another\n", sharing, sharing);
  check_runs alone = run_checks(problem_id, file, sharing, false);
  check_runs together = run_checks(problem_id, file, sharing, true);
  std::vector<double> alone_us = field_of(alone, "time_us"), alone_speedup = field_of(alone, "speedup");
  std::vector<double> together_us = field_of(together, "time_us"), together_speedup = field_of(together, "speedup");
  if (!alone_us.empty() && together_us.size() == sharing) {
    double median_dev = largest_deviation(together_us, summarize(alone_us).median);
    double speedup_dev = largest_deviation(together_speedup, summarize(alone_speedup).median);
    std::string list;
    for (size_t i = 0; i < together_us.size(); ++i) list += fmt::format("{:.2f} ({:.2f}x) ", together_us[i], together_speedup[i]);
    row("concurrent medians (us)", list);
    row("largest deviation of a concurrent median", fmt::format("{:.2f}%", 100 * median_dev), "<= 1%", median_dev <= 0.01);
    row("largest deviation of a concurrent speedup", fmt::format("{:.2f}%", 100 * speedup_dev), "<= 1%", speedup_dev <= 0.01);
    row("wall time, at once / one after another", fmt::format("{:.0f} / {:.0f} ms = {:.2f}", together.wall_ms, alone.wall_ms,
                                                                together.wall_ms / alone.wall_ms));
    std::vector<double> waits = field_of(together, "gpu_wait_ms");
    if (!waits.empty())
      row("queued for the GPU, at once (ms, each)", fmt::format("{:.0f} .. {:.0f}", *std::min_element(waits.begin(), waits.end()),
                                                             *std::max_element(waits.begin(), waits.end())));
  }
  return 0;
}
