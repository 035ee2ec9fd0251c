// A trial: one attempt of the four-arm protocol, identified by model, problem, DSL, arm and replicate,
// and what the ledger keeps of its end.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>

namespace mkb {

struct trial_key {
  std::string model;
  std::string problem;
  std::string family;
  std::string dsl;
  int arm = 0; // mkb_arm
  int replicate = 0;

  // Family and DSL follow from problem and arm within a session; identity is the rest.
  auto identity() const { return std::tie(model, problem, arm, replicate); }
  bool operator<(const trial_key &o) const { return identity() < o.identity(); }
  bool operator==(const trial_key &o) const { return identity() == o.identity(); }
  std::string id() const; // "<problem>/<dsl>/<arm>/r<replicate>"
};

struct fingerprints {
  std::string problem, dsl, contract;
  bool operator==(const fingerprints &) const = default;
};

// Agent-reported usage of one attempt, as mkb_task_add_usage_v2 sums it.
struct usage_totals {
  uint64_t input_tokens = 0, cached_input_tokens = 0, output_tokens = 0; // input includes cached
  double cost_usd = 0;
};

struct trial_result {
  trial_key key;
  fingerprints prints;
  int verdict = 13; // mkb_verdict of the final evaluation (MKB_VERDICT_NO_KERNEL until one ran)
  double time_us = NAN, baseline_us = NAN, speedup = NAN;
  // eager PyTorch's time on the final evaluation's GPU (the problem's eager_times.json): the original's
  // denominator. NaN when none is recorded for that GPU, when nothing was timed, or in an older ledger.
  double eager_us = NAN;
  double speedup_vs_eager() const { return eager_us / time_us; }
  bool skipped = false;
  std::string skill;
  int submissions_used = 0;
  int compile_checks = 0;    // free compile checks made (mkb_task_compile); 0 in an older ledger
  double seconds_used = 0;   // wall clock charged to the budget: time queued for the GPU excluded
  double gpu_wait_ms = 0;    // queued for the GPU during the attempt's submissions
  bool contended = false;    // the final evaluation's timing shared the GPU with another process
  uint64_t input_tokens = 0, cached_input_tokens = 0, output_tokens = 0; // input includes cached
  double cost_usd = 0;
  std::string final_source_hash;
  std::string final_kernel; // which kernel was graded: "latest submission", "submission <n>", "named source"
  std::string final_report_json;
  std::string ended_by;
  double unix_time = 0;
  // Set by whoever reads the ledger: recorded under other fingerprints than the latest session's, or
  // a skill arm whose source is stale. Scores leave these out unless asked (docs/SCORING.md).
  bool stale = false;

  bool passed() const { return verdict == 0; }
};

} // namespace mkb
