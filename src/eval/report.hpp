// The evaluation report of one submission: what the C API hands out as mkb_report, what the agent
// reads as feedback, and what the ledger records.
#pragma once

#include <cmath>
#include <string>

#include "model/evaluation_result.hpp"

namespace mkb {

struct problem;

struct evaluation_report {
  int verdict = 0;          // mkb_verdict
  bool counted = true;      // entered evaluation (consumes a submission)
  bool final = false;
  bool compile_check = false; // a compile check (mkb_task_compile): nothing run, nothing counted
  // REFUSED by the harness's own failure (a worker, the GPU queue, an interpreter), not the submission's.
  bool infrastructure_failure = false;
  std::string problem_id;
  std::string dsl;
  std::string source_hash;  // XXH3-128 of the submitted text
  uint64_t source_bytes = 0;
  double time_us = NAN;
  double baseline_us = NAN;
  double speedup = NAN;
  // eager PyTorch's time on the evaluation's GPU (the problem's eager_times.json), the original
  // benchmark's denominator; NaN where no record names that GPU.
  double eager_us = NAN;
  double speedup_vs_eager = NAN; // eager_us / time_us
  double speed_of_light_us = NAN;
  double fraction_of_light = NAN; // speed-of-light time / measured time
  std::string light_bound;        // "memory" or "compute", and the peaks' source
  std::string detail;             // what happened, for refusals and failures
  std::string worker_output;      // what the GPU worker printed during the evaluation (its last 64 KiB)
  evaluation_result result;       // everything the worker measured
  // Filled by the protocol layer before the report is rendered; 0 outside a task.
  uint32_t submission = 0;       // 1-based number within its task, refused ones included; 0 when final
  uint32_t submissions_left = 0; // budget after this submission
  double seconds_left = 0;
  bool in_task = false;          // renders the budget lines

  std::string message; // feedback text for the agent
  std::string json;    // every detail
};

// Fills time, both speedups and speed-of-light from `result` (the evaluator's last step).
void complete_report(evaluation_report &report, const problem &p);
// Renders the message and the JSON from the fields, once they are all known: the evaluator's caller
// renders, after the protocol layer filled in the budget. Every report has the same JSON shape.
void render_report(evaluation_report &report);

} // namespace mkb
