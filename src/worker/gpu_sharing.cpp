#include "worker/gpu_sharing.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "core/error.hpp"
#include "worker/failure.hpp"

namespace mkb::worker {

namespace {

// NVML closes a per-process utilization period about every 200 ms (seen on an H200, driver 580); a
// period that covers the end of timing has closed once this much more has passed.
constexpr std::chrono::milliseconds sampling_settle{250};

uint64_t unix_us_now() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

} // namespace

queue_lock take_gpu_turn(const std::string &lock_dir, const std::string &uuid) {
  try {
    return queue_lock::acquire(lock_dir.empty() ? builtin_gpu_lock_dir() : std::filesystem::path(lock_dir), uuid);
  } catch (const error &e) {
    throw infrastructure_failure(e.what());
  }
}

contention_watch::contention_watch(const std::string &device_uuid) : nvml_(nvml_device::open(device_uuid)) {}

void contention_watch::begin() { begin_us_ = unix_us_now(); }

contention_seen contention_watch::finish() {
  contention_seen seen;
  if (!nvml_) {
    seen.unavailable = "NVML is not available";
    return seen;
  }
  auto processes = nvml_->compute_processes();
  if (!processes) {
    seen.unavailable = "NVML cannot list the GPU's processes";
    return seen;
  }
  const unsigned self = static_cast<unsigned>(::getpid());
  if (std::find(processes->begin(), processes->end(), self) == processes->end()) {
    // NVML speaks of process ids in another PID namespace (a container): ours cannot be told apart.
    seen.unavailable = "NVML does not list this worker among the GPU's processes (another PID namespace?)";
    return seen;
  }
  seen.checked = true;
  if (processes->size() == 1) return seen; // no other context on the GPU: nothing else can have run

  std::this_thread::sleep_for(sampling_settle);
  auto samples = nvml_->process_samples(begin_us_);
  if (!samples) {
    seen.checked = false;
    seen.unavailable = "NVML gives no per-process utilization on this GPU";
    return seen;
  }
  std::map<unsigned, unsigned> busiest; // pid -> highest SM share seen
  for (const gpu_process_sample &s : *samples)
    if (s.pid != self && s.sm_percent > 0) busiest[s.pid] = std::max(busiest[s.pid], s.sm_percent);
  for (const auto &[pid, percent] : busiest) {
    std::string name = nvml_->process_name(pid);
    seen.busy.push_back(fmt::format("pid {}{}: kernels {}% of a sampling period", pid, name.empty() ? "" : " (" + name + ")", percent));
  }
  return seen;
}

} // namespace mkb::worker
