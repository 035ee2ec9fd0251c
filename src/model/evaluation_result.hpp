// What one evaluation found: the verdict and its evidence, the timings and where the time went. The
// worker fills it, the codec carries it, the report renders it and the ledger records it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/device_info.hpp"

namespace mkb {

struct timing_stats {
  int samples = 0;
  double median_us = 0, min_us = 0, max_us = 0, q1_us = 0, q3_us = 0, mean_us = 0, cv = 0;
  std::vector<float> times_us;
};

struct mismatch_info {
  bool present = false;
  std::string output;
  int draw = 0;       // correctness draw, or -1 for a re-verified timed draw
  int timed_draw = -1;
  std::string kind;   // "value", "nan", "unwritten", "integer"
  uint64_t flat_index = 0;
  std::vector<int64_t> coords;
  double value = 0, anchor = 0, allowance = 0, excess = 0;
};

struct output_check {
  std::string name;
  double max_error = 0, allowance = 0, reference_error = 0, anchor_max = 0;
  bool passed = false;
};

struct degenerate_check {
  std::string output, kind;
  double error = 0, allowance = 0;
  bool failed = false;
};

struct sensitivity_check {
  std::string output;
  bool draws_differ = false;
  std::vector<int> constant_axes;
};

struct audit_result {
  bool present = false;
  std::vector<degenerate_check> degenerate;
  std::vector<sensitivity_check> sensitivity;
  double empty_launch_us = 0;
  int baseline_launches = 0;
};

struct clock_info {
  bool available = false;
  unsigned sm_mhz_before = 0, sm_mhz_after = 0, memory_mhz = 0, temperature_c = 0;
  uint64_t throttle_reasons = 0;
};

struct phase_times {
  double compile_ms = 0, load_ms = 0, correctness_ms = 0, timing_ms = 0, total_ms = 0, gpu_busy_ms = 0, generation_ms = 0;
};

struct contention_info {
  bool checked = false;
  std::string unavailable;
  bool contended = false;
  int discarded_timings = 0;
  std::vector<std::string> busy;
};

struct compile_info {
  std::string role;
  bool cache_hit = false;
  double milliseconds = 0;
  std::string log;
};

struct evaluation_result {
  int verdict = 0; // mkb_verdict
  std::string detail;
  std::string stage;
  mismatch_info mismatch;
  std::vector<output_check> checks;
  timing_stats submission_time, baseline_time;
  uint64_t seed = 0;
  std::vector<uint64_t> draw_seeds;
  std::vector<int> reverified;
  clock_info clocks;
  phase_times phases;
  std::vector<compile_info> compiles;
  device_info device;
  bool infrastructure_error = false;
  bool worker_must_exit = false;
  audit_result audit;
  double gpu_wait_ms = 0;
  contention_info contention;
};

} // namespace mkb
