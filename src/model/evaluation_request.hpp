// One evaluation as the worker receives it: the problem, the code and launch plan of each of the three
// roles, how many draws of each kind, and the secret seed (docs/CONTRACT.md is the procedure).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/problem_instance.hpp"
#include "plan/launch_plan.hpp"

namespace mkb {

struct module_source {
  std::string name;                      // file name for compiler messages
  std::string source;                    // CUDA C++ (or, with ptx, the submission's own text)
  std::vector<std::string> include_dirs; // from the DSL's configuration
  std::vector<std::string> ptx;          // units to link instead of compiling source
};

// The code of one role and the plan that launches it.
struct role_code {
  module_source module;
  resolved_plan plan;
};

// How many draws of each kind an evaluation makes; the defaults are the contract's (docs/CONTRACT.md).
struct draw_counts {
  int correctness_draws = 5;
  int warmup_draws = 10;
  int timed_draws = 50;
  int max_timed_draws = 200;
  int reverify_draws = 3;
  double target_rel_spread = 0.005; // extend timing while the median's spread exceeds this
};

// The library always sends its own.
struct run_settings {
  draw_counts draws;
  bool time_baseline = true;
  bool compile_only = false;
  int launch_timeout_ms = 10000;
  std::string cache_dir;
  std::string arch;          // compile-only target; empty: the device's own
  bool audit = false;        // after a passing evaluation, audit the problem (mkb suite validate)
  std::string gpu_lock_dir;  // the host's GPU lock folder; empty: the built-in one
  int contention_retries = 2; // timings thrown away because another process used the GPU
};

struct evaluation_request {
  problem_instance problem;
  role_code submission, baseline, anchor;
  run_settings settings;
  uint64_t seed = 0; // secret; each draw's seed derives from it
};

} // namespace mkb
