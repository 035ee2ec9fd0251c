// A session's configuration: mkb_open_options after defaults and validation (api/open_options makes
// it from the ABI struct).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/build_info.hpp"
#include "cuda/nvrtc_compiler.hpp"

namespace mkb {

struct session_config {
  std::optional<std::string> suite_path;
  std::string dsl_a, dsl_b; // empty: the default pair
  std::vector<std::string> problem_patterns;
  std::vector<std::string> families;
  std::vector<std::string> trial_patterns; // globs over trial ids; empty: every trial
  std::vector<std::string> directions;     // "a_to_b", "b_to_a"; empty: both
  uint32_t shard_index = 0, shard_count = 1; // plan only this share of the trials (plan_setup.hpp)
  uint32_t replicates = 1;
  uint32_t budget_seconds = 2400;
  uint32_t budget_submissions = 10;
  uint32_t budget_source_bytes = 300000;
  uint32_t skill_max_bytes = 65536;
  std::string model = "unknown";
  std::optional<std::string> ledger_path;
  std::optional<std::vector<int>> gpus; // nullopt: every visible GPU
  uint64_t seed = 0;
  bool compile_only = false;
  bool rerun_stale = false;
  bool sandbox = true; // Python DSL frontends run confined (MKB_OPEN_NO_SANDBOX clears it)
  std::string worker_path;
  std::string cache_dir;
  std::string python = default_python(); // the recorded interpreter unless the options name one
  std::string gpu_lock_dir; // empty: the built-in folder
  // One compilation (NVRTC, a Python DSL's frontend). Not an option: agents get the contract's 120 s;
  // `mkb suite validate` gives the suite's own solutions longer, so that a loaded machine cannot fail
  // a sound problem.
  std::chrono::seconds compile_limit{120};
  std::string target_arch = default_target_arch; // what compile-only sessions compile for
};

} // namespace mkb
