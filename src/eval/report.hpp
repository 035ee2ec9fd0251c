// The evaluation report of one submission: what the C API hands out as mkb_report, what the agent
// reads as feedback, and what the ledger records.
#pragma once

#include <cmath>
#include <string>

#include "wire/codec.hpp"

namespace mkb {

struct problem;

struct evaluation_report {
  int verdict = 0;          // mkb_verdict
  bool counted = true;      // entered evaluation (consumes a submission)
  bool final = false;
  std::string problem_id;
  std::string dsl;
  std::string source_hash;  // XXH3-128 of the submitted text
  uint64_t source_bytes = 0;
  double time_us = NAN;
  double baseline_us = NAN;
  double speedup = NAN;
  double speed_of_light_us = NAN;
  double fraction_of_light = NAN; // speed-of-light time / measured time
  std::string light_bound;        // "memory" or "compute", and the peaks' source
  std::string detail;             // what happened, for refusals and failures
  std::string worker_output;      // what the GPU worker printed during the evaluation (its last 64 KiB)
  wire::evaluation_result result; // everything the worker measured
  // Budget after this submission (filled by the protocol layer; 0 outside a task).
  uint32_t submissions_left = 0;
  double seconds_left = 0;

  std::string message; // feedback text for the agent
  std::string json;    // every detail
};

// Fills time, speedup and speed-of-light from `result`, then the message and the JSON.
void finish_report(evaluation_report &report, const problem &p);

} // namespace mkb
