// Sharing the worker's GPU with other processes (docs/CONTRACT.md, "Shared GPUs"): libmkb's own
// evaluations take turns through the host's GPU lock; the contention watch sees everything else.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/queue_lock.hpp"
#include "cuda_loaders/nvml_api.hpp"

namespace mkb::worker {

// Waits for the host's lock on the GPU `uuid`, in `lock_dir` (empty: the built-in folder). A folder that
// cannot be used is an infrastructure failure (evaluation_failure, REFUSED).
queue_lock take_gpu_turn(const std::string &lock_dir, const std::string &uuid);

struct contention_seen {
  bool checked = false;          // false: NVML could not tell (`unavailable` says why)
  std::string unavailable;
  std::vector<std::string> busy; // "pid 571 (python3): 99% of the SM time in a 200 ms period"
  bool contended() const { return !busy.empty(); }
};

class contention_watch {
public:
  explicit contention_watch(const std::string &device_uuid);
  // Marks the start of a timing phase.
  void begin();
  // What other processes ran on the GPU since begin(). When another process holds a context on the
  // GPU, first waits until NVML's sampling period covering the phase's end has closed.
  contention_seen finish();

private:
  std::optional<nvml_device> nvml_;
  uint64_t begin_us_ = 0;
};

} // namespace mkb::worker
