#include "eval/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/json_writer.hpp"
#include "cuda/device_peaks.hpp"
#include "cuda/throttle_reasons.hpp"
#include "core/names.hpp"
#include "mkb.h"
#include "spec/problem.hpp"

namespace mkb {

namespace {

std::string format_us(double us) {
  if (!std::isfinite(us)) return "-";
  if (us >= 10000) return fmt::format("{:.2f} ms", us / 1000);
  return fmt::format("{:.2f} us", us);
}

std::string spread_line(const char *label, const timing_stats &t) {
  return fmt::format("  {:<10} median {:>10}  min {:>10}  IQR {} .. {}  CV {:.2f}%  ({} draws)\n", label,
                     format_us(t.median_us), format_us(t.min_us), format_us(t.q1_us), format_us(t.q3_us), 100 * t.cv,
                     t.samples);
}

void write_timing(json_writer &j, const char *name, const timing_stats &t) {
  j.key(name).begin_object();
  j.field("samples", t.samples).field("median_us", t.median_us).field("min_us", t.min_us).field("max_us", t.max_us);
  j.field("q1_us", t.q1_us).field("q3_us", t.q3_us).field("mean_us", t.mean_us).field("cv", t.cv);
  j.key("times_us").begin_array();
  for (float v : t.times_us) j.value(static_cast<double>(v));
  j.end_array().end_object();
}

std::string render_message(const evaluation_report &r) {
  const evaluation_result &e = r.result;
  std::string m;
  std::string verdict = verdict_name(r.verdict);
  for (char &c : verdict) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (r.verdict == MKB_VERDICT_PASSED) {
    // The original's denominator first: only the comparison with eager PyTorch is the paper's.
    std::string eager =
        std::isfinite(r.eager_us)
            ? fmt::format("{:.3f}x eager PyTorch on {} ({}, the original's denominator)", r.speedup_vs_eager,
                          e.device.name, format_us(r.eager_us))
            : fmt::format("no eager PyTorch time is recorded for {}: speedup_vs_eager is absent", e.device.name);
    m += fmt::format("{}: correct on every draw; {}; {:.3f}x the baseline's speed ({} vs {})\n", verdict, eager,
                     r.speedup, format_us(r.time_us), format_us(r.baseline_us));
    m += spread_line("submission", e.submission_time);
    m += spread_line("baseline", e.baseline_time);
    if (std::isfinite(r.fraction_of_light))
      m += fmt::format("  speed-of-light {} ({}): the submission runs at {:.1f}% of it\n", format_us(r.speed_of_light_us),
                       r.light_bound, 100 * r.fraction_of_light);
    const contention_info &c = e.contention;
    if (c.contended)
      m += fmt::format("  CONTENDED: other processes ran kernels on this GPU while it was timed, {} times running, so "
                       "these times may be too long: {}\n",
                       c.discarded_timings + 1, fmt::join(c.busy, "; "));
    else if (c.discarded_timings > 0)
      m += fmt::format("  timed {} times: another process used the GPU during the first {}\n", c.discarded_timings + 1,
                       c.discarded_timings);
    if (e.clocks.available)
      m += fmt::format("  SM clock {} MHz before timing, {} MHz after; throttling: {}\n", e.clocks.sm_mhz_before,
                       e.clocks.sm_mhz_after, describe_throttle_reasons(e.clocks.throttle_reasons));
    else
      m += "  SM clock: not available (no NVML)\n";
  } else {
    const char *note = r.compile_check           ? " (a compile check: no submission spent)"
                       : r.counted || r.final ? ""
                                              : " (not counted against the budget)";
    m += fmt::format("{}{}: {}\n", verdict, note, r.detail);
  }
  if (e.gpu_wait_ms >= 1000)
    m += fmt::format("Queued {:.1f} s for the GPU behind other evaluations (not charged to the budget).\n", e.gpu_wait_ms / 1000);
  if (r.verdict != MKB_VERDICT_COMPILE_ERROR) // a compile error's log is already in the detail
    for (const compile_info &c : e.compiles)
      if (c.role == "submission" && !c.log.empty()) m += "compiler warnings:\n" + c.log + "\n";
  if (r.in_task && r.final) m += "This final evaluation is the attempt's record.\n";
  else if (r.in_task && r.compile_check)
    m += fmt::format("Compile check. Budget: {} submissions left, {:.0f} s left.\n", r.submissions_left, r.seconds_left);
  else if (r.in_task)
    m += fmt::format("Submission {}. Budget: {} submissions left, {:.0f} s left.\n", r.submission, r.submissions_left,
                     r.seconds_left);
  return m;
}

} // namespace

void complete_report(evaluation_report &r, const problem &p) {
  const evaluation_result &e = r.result;
  if (r.verdict == MKB_VERDICT_PASSED && e.submission_time.samples > 0) {
    r.time_us = e.submission_time.median_us;
    r.baseline_us = e.baseline_time.samples > 0 ? e.baseline_time.median_us : NAN;
    r.speedup = r.baseline_us / r.time_us;
    const device_info &d = e.device;
    if (const eager_time *eager = p.eager_time_for(d.name)) {
      r.eager_us = eager->eager_us;
      r.speedup_vs_eager = r.eager_us / r.time_us;
    }
    device_peaks peaks = peaks_for(d.name, d.major, d.minor, d.sm_count, d.sm_clock_khz, d.memory_clock_khz,
                                   d.memory_bus_bits, p.compute);
    double memory_us = peaks.bytes_per_second > 0 ? 1e6 * p.bytes / peaks.bytes_per_second : 0;
    double compute_us = peaks.flops_per_second > 0 ? 1e6 * p.flops / peaks.flops_per_second : 0;
    r.speed_of_light_us = std::max(memory_us, compute_us);
    if (r.speed_of_light_us > 0) {
      r.fraction_of_light = r.speed_of_light_us / r.time_us;
      r.light_bound = fmt::format("{}-bound, {}", memory_us >= compute_us ? "memory" : "compute", peaks.source);
    }
  }
}

void render_report(evaluation_report &r) {
  const evaluation_result &e = r.result;
  r.message = render_message(r);

  json_writer j;
  j.begin_object();
  j.field("verdict", verdict_name(r.verdict)).field("counted", r.counted).field("final", r.final);
  j.field("compile_check", r.compile_check);
  j.field("problem", r.problem_id).field("dsl", r.dsl).field("source_hash", r.source_hash).field("source_bytes", r.source_bytes);
  j.field("detail", r.detail).field("stage", e.stage);
  j.field("time_us", r.time_us).field("eager_us", r.eager_us).field("speedup_vs_eager", r.speedup_vs_eager);
  j.field("baseline_us", r.baseline_us).field("speedup", r.speedup);
  j.field("speed_of_light_us", r.speed_of_light_us).field("fraction_of_speed_of_light", r.fraction_of_light);
  j.field("speed_of_light_bound", r.light_bound);
  j.field("infrastructure_failure", r.infrastructure_failure);
  j.field("submission", r.submission).field("submissions_left", r.submissions_left).field("seconds_left", r.seconds_left);
  write_timing(j, "submission_time", e.submission_time);
  write_timing(j, "baseline_time", e.baseline_time);
  j.key("checks").begin_array();
  for (const output_check &c : e.checks)
    j.begin_object().field("output", c.name).field("max_error", c.max_error).field("allowance", c.allowance)
        .field("reference_error", c.reference_error).field("anchor_max", c.anchor_max).field("passed", c.passed).end_object();
  j.end_array();
  if (e.mismatch.present) {
    const mismatch_info &m = e.mismatch;
    j.key("first_mismatch").begin_object().field("output", m.output).field("draw", m.draw).field("timed_draw", m.timed_draw);
    j.field("kind", m.kind).field("flat_index", m.flat_index).key("coords").begin_array();
    for (int64_t c : m.coords) j.value(c);
    j.end_array().field("value", m.value).field("anchor", m.anchor).field("allowance", m.allowance).field("excess", m.excess);
    j.end_object();
  }
  j.field("seed", e.seed).key("draw_seeds").begin_array();
  for (uint64_t s : e.draw_seeds) j.value(s);
  j.end_array().key("reverified_timed_draws").begin_array();
  for (int d : e.reverified) j.value(d);
  j.end_array();
  j.key("clocks").begin_object().field("available", e.clocks.available).field("sm_mhz_before", e.clocks.sm_mhz_before);
  j.field("sm_mhz_after", e.clocks.sm_mhz_after).field("memory_mhz", e.clocks.memory_mhz);
  j.field("temperature_c", e.clocks.temperature_c).field("throttle_reasons", describe_throttle_reasons(e.clocks.throttle_reasons));
  j.end_object();
  j.field("gpu_wait_ms", e.gpu_wait_ms);
  j.key("contention").begin_object().field("checked", e.contention.checked).field("unavailable", e.contention.unavailable);
  j.field("contended", e.contention.contended).field("discarded_timings", e.contention.discarded_timings).key("busy").begin_array();
  for (const std::string &seen : e.contention.busy) j.value(seen);
  j.end_array().end_object();
  const phase_times &ph = e.phases;
  j.key("phases_ms").begin_object().field("compile", ph.compile_ms).field("load", ph.load_ms);
  j.field("correctness", ph.correctness_ms).field("timing", ph.timing_ms).field("total", ph.total_ms);
  j.field("gpu_busy", ph.gpu_busy_ms).field("input_generation", ph.generation_ms).end_object();
  j.key("compiles").begin_array();
  for (const compile_info &c : e.compiles)
    j.begin_object().field("role", c.role).field("cache_hit", c.cache_hit).field("ms", c.milliseconds).field("log", c.log).end_object();
  j.end_array();
  j.key("device").begin_object().field("name", e.device.name).field("uuid", e.device.uuid);
  j.field("compute_capability", fmt::format("{}.{}", e.device.major, e.device.minor)).field("sm_count", e.device.sm_count);
  j.field("l2_bytes", e.device.l2_bytes).field("memory_bytes", e.device.memory_bytes).end_object();
  if (!r.worker_output.empty()) j.field("worker_output", r.worker_output);
  j.field("message", r.message);
  j.end_object();
  r.json = j.take();
}

} // namespace mkb
