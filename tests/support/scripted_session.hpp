// A scripted agent for protocol tests: sessions on the worker TEST DOUBLE (tests/doubles), which
// compiles for real and answers verdicts and times from directives in each submission.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "mkb.h"
#include "protocol/session.hpp"
#include "spec/problem.hpp"
#include "support/paths.hpp"
#include "support/stored_solutions.hpp"
#include "support/temp_dir.hpp"

namespace mkb::testing {

inline session_config scripted_config(const testing::temp_dir &dir, bool with_ledger = true) {
  session_config c;
  c.worker_path = testing::worker_double();
  c.gpus = std::vector<int>{0};
  c.cache_dir = (dir.path() / "cache").string();
  c.model = "scripted";
  c.dsl_a = c.dsl_b = "cuda";
  // Two problems keep the protocol's figures fixed as the suite grows.
  c.problem_patterns = {"fused_add_rmsnorm_h4096_llama31_8b_bf16", "topk_softmax_routing_mixtral_8x7b_bf16"};
  if (with_ledger) c.ledger_path = (dir.path() / "run.ledger").string();
  // The double takes the host's GPU lock as the real worker does: a folder of the test's own.
  std::filesystem::create_directories(dir.path() / "locks");
  c.gpu_lock_dir = (dir.path() / "locks").string();
  return c;
}

// The lock the worker double takes for its one pretend GPU.
inline constexpr const char *double_gpu = "GPU-00000000-0000-0000-0000-000000000000";

// A kernel for the task's problem whose time the double reports as `time_us` (baseline 100 us).
inline std::string kernel(const task &t, double time_us, const std::string &more = "") {
  return stored_solution_source(t.target(), "cuda") + fmt::format("\n// mkb-double: time_us={} baseline_us=100 {}\n", time_us, more);
}

// The scripted agent: one submission whose time depends on problem and arm, a skill in SOLO_A only.
inline void play(task &t) {
  double time = 10.0 + 7.0 * t.key().arm + (t.key().problem.size() % 5);
  evaluation_report r = t.submit(kernel(t, time));
  ASSERT_EQ(r.verdict, MKB_VERDICT_PASSED) << r.message;
  if (t.key().arm == MKB_ARM_SOLO_A) t.submit_skill("Use one block per row and 16-byte loads.");
  t.finalize("agent");
}

// Plays every task to the end; stops (returns false) after `limit` finished tasks.
inline bool play_all(session &s, int limit = 1 << 30) {
  int finished = 0;
  while (finished < limit) {
    bool done = false;
    auto tasks = s.next_tasks(std::chrono::milliseconds(100), 1, &done);
    if (done) return true;
    for (auto &t : tasks) {
      play(*t);
      ++finished;
    }
  }
  return false;
}

} // namespace mkb::testing
