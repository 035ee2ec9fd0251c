// The timing phase (docs/CONTRACT.md, Timing): warm-up draws, then timed draws of the submission and
// the baseline interleaved, each on fresh inputs after an L2 flush, a few of the submission's chosen
// in secret beforehand and verified again; extended while the medians are not yet precise enough, and
// repeated (a bounded number of times) while another process's kernels shared the GPU.
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include "model/evaluation_request.hpp"
#include "model/evaluation_result.hpp"
#include "worker/draw_runner.hpp"

namespace mkb::worker {

// When to stop timing: after the planned draws once both medians are precise enough, else after
// more batches, never past the maximum. A median is precise enough when its relative standard error,
// estimated from the IQR, is within a fifth of the target spread: the range of five independent
// medians is about 2.3 standard errors, and separate processes add a little of their own.
class stopping_criterion {
public:
  stopping_criterion(int planned, int maximum, double target_rel_spread)
      : target_(planned), maximum_(std::max(planned, maximum)), target_rel_spread_(target_rel_spread) {}

  // How many draws to take now; grows when `extend` asked for more.
  int target() const { return target_; }
  // After `target()` draws: true when timing should go on (the target has grown by a batch).
  bool extend(const std::vector<std::vector<double> *> &samples);
  bool precise(const std::vector<double> &samples) const;

  // Timing extends in batches of this many draws.
  static constexpr int batch = 25;

private:
  int target_;
  int maximum_;
  double target_rel_spread_;
};

// Times the submission (and the baseline) into `result`: submission_time, baseline_time, reverified,
// clocks, contention, and the timing phase's share of phases. `starting` is called as each timing
// begins. Throws evaluation_failure when a re-verified draw fails.
void time_submission(draw_runner &runner, const run_settings &settings, uint64_t seed, evaluation_result &result,
                     const std::function<void()> &starting);

} // namespace mkb::worker
