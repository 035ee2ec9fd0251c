// Trials for the report's tests: two models, four problems of two families, every arm once, speedups
// that spread the paired ratios over help, same and harm, a failure, a stale trial and a contended one.
#pragma once

#include <string>
#include <vector>

#include "mkb.h"
#include "protocol/trial.hpp"

namespace mkb::report::testing {

inline std::vector<trial_result> sample_results() {
  std::vector<trial_result> results;
  for (const char *model : {"model-x", "model <y>"})
    for (int p = 0; p < 4; ++p)
      for (int arm = MKB_ARM_SOLO_A; arm <= MKB_ARM_B2A_SKILL; ++arm) {
        trial_result r;
        bool a_side = arm == MKB_ARM_SOLO_A || arm == MKB_ARM_B2A_SKILL;
        r.key = {model, "problem_" + std::to_string(p), p < 2 ? "mlp_norm" : "moe", a_side ? "cute-dsl" : "tirx", arm, 0};
        r.verdict = p == 3 && arm == MKB_ARM_SOLO_B ? MKB_VERDICT_WRONG_ANSWER : MKB_VERDICT_PASSED;
        r.speedup = 0.6 + 0.7 * p + (arm == MKB_ARM_A2B_SKILL ? 0.9 : arm == MKB_ARM_B2A_SKILL ? -0.3 : 0);
        r.time_us = 100 / r.speedup;
        r.eager_us = 120;
        r.skill = arm <= MKB_ARM_SOLO_B ? "# Lesson\nTile by 128 rows; keep the sum in fp32.\n" : "";
        r.seconds_used = 60 + 10 * arm;
        r.cost_usd = 0.25 * (arm + 1);
        r.submissions_used = 2;
        r.contended = p == 1 && arm == MKB_ARM_SOLO_A;
        results.push_back(r);
      }
  results[5].stale = true; // model-x problem_1 solo_b
  return results;
}

} // namespace mkb::report::testing
