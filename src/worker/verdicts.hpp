// The checks of a judged draw: the comparison of every output with the anchor (docs/CONTRACT.md, the
// anchor rule), and the turning of the harness's statistics into a verdict with the evidence a
// reader needs (the first failing element, its coordinates, value and allowance).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "model/evaluation_result.hpp"
#include "model/problem_instance.hpp"
#include "worker/draw_workspace.hpp"
#include "worker/harness_kernels.hpp"

namespace mkb::worker {

// Which draw a check is about: a correctness draw, or a timed draw verified again.
struct draw_label {
  int draw = -1;       // correctness draw, or -1
  int timed_draw = -1; // re-verified timed draw, or -1
  uint64_t seed = 0;

  bool reverified() const { return timed_draw >= 0; }
  std::string text() const; // "draw 3", "timed draw 17 (re-verified)"
};

// The anchor rule's allowance for output `t`: three times the larger of the reference's error and one
// machine epsilon of the anchor's largest magnitude.
double allowance_of(const stat_block &s, const tensor_spec &t);

class output_judge {
public:
  output_judge(gpu &g, harness_kernels &harness, const problem_instance &problem, const draw_workspace &workspace,
               std::chrono::milliseconds timeout, evaluation_result &result);

  // Statistics blocks: one per output, then one for the guards, then one per input.
  size_t guard_block() const { return problem_->outputs.size(); }
  size_t input_block(size_t i) const { return guard_block() + 1 + i; }
  size_t block_count() const { return input_block(problem_->inputs.size()); }

  // Queues the comparison of the submission's output `o` with the anchor (and the baseline) into
  // statistics block `o`.
  void compare_output(size_t o) const;
  // Turns one draw's statistics into a verdict: returns when the draw passed, else throws
  // evaluation_failure with the evidence (and records it in the result's mismatch). Accumulates each
  // output's errors into the result's checks.
  void judge(const std::vector<stat_block> &stats, const draw_label &label);

private:
  [[noreturn]] void report_mismatch(size_t o, double allowance, const draw_label &label);
  [[noreturn]] void report_exact_mismatch(size_t o, const stat_block &s, const draw_label &label);
  void record_mismatch(size_t o, const draw_label &label, uint64_t flat_index);
  output_check &check_for(const std::string &name);
  double read_element(CUdeviceptr base, uint64_t index, dtype type) const;

  gpu *g_;
  harness_kernels *harness_;
  const problem_instance *problem_;
  const draw_workspace *workspace_;
  std::chrono::milliseconds timeout_;
  evaluation_result *result_;
};

} // namespace mkb::worker
