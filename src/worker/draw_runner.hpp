// The two kinds of draw an evaluation runs on the GPU. A checked draw runs the submission with every
// check around it (guards, input digests), then the baseline and the anchor on pristine inputs, and
// judges the outputs. A timed draw runs one role with nothing around it but fresh inputs, poisoned
// outputs and a flushed L2, between two events.
#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <utility>
#include <vector>

#include "model/evaluation_result.hpp"
#include "worker/draw_workspace.hpp"
#include "worker/event_pool.hpp"
#include "worker/input_generator.hpp"
#include "worker/loaded_plan.hpp"
#include "worker/verdicts.hpp"

namespace mkb::worker {

// The start and end events of one queued timed run.
using timed_span = std::pair<const event *, const event *>;

class draw_runner {
public:
  // `loaded` holds the three roles' plans in role order. `layout_seed` draws the buffers' addresses.
  draw_runner(gpu &g, harness_kernels &harness, const problem_instance &problem, const std::array<loaded_plan, 3> &loaded,
              const input_generator &generator, uint64_t layout_seed, std::chrono::milliseconds timeout,
              evaluation_result &result);

  // Runs the submission on draw `seed` with every check; throws evaluation_failure with the verdict
  // when a check fails. With `timed`, the run itself is timed (after an L2 flush) and its time in
  // microseconds returned.
  std::optional<double> checked(const draw_label &label, bool timed);
  // Queues a timed run of `role` on draw `seed` and returns its span (read it once completed).
  timed_span timed(int role, uint64_t seed);
  // Queues the baseline and the anchor of draw `seed` on fresh buffers, for the audit; the anchor's
  // outputs are then in the workspace.
  void reference_and_anchor(uint64_t seed);

  // Device time of the timed runs so far (all their work, and their input generation), then forgets them.
  double take_busy_ms();
  double take_generation_ms();

  gpu &device() { return *g_; }
  harness_kernels &harness() { return *harness_; }
  const draw_workspace &workspace() const { return workspace_; }
  output_judge &judge() { return judge_; }
  event_pool &events() { return events_; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  // Writing twice the L2 evicts everything a previous draw left there.
  void flush_l2() const;

private:
  void generate_inputs(uint64_t seed, bool writable_only);
  void hash_inputs(int which, uint64_t hash_seed);
  void run(int role);
  void queue_reference_and_anchor(uint64_t seed);

  gpu *g_;
  harness_kernels *harness_;
  const problem_instance *problem_;
  const std::array<loaded_plan, 3> *loaded_;
  const input_generator *generator_;
  std::chrono::milliseconds timeout_;
  evaluation_result *result_;
  splitmix64 layout_random_;
  draw_workspace workspace_;
  output_judge judge_;
  device_memory flush_;
  event_pool events_;
  std::vector<timed_span> busy_spans_, generation_spans_;
};

} // namespace mkb::worker
