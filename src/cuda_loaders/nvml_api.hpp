// The few NVML calls the worker uses to record clocks around timing and to see other processes' work
// on its GPU, loaded with dlopen so that a machine without NVML still evaluates (the report then says
// clocks and contention were not available).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mkb {

struct gpu_clocks {
  unsigned sm_mhz = 0;
  unsigned memory_mhz = 0;
  unsigned temperature_c = 0;
  uint64_t throttle_reasons = 0; // NVML clocks-event reason bits
};

// One of NVML's per-process utilization samples: the share of the last sampling period (about 200 ms
// on an H200) in which the process had a kernel running.
struct gpu_process_sample {
  unsigned pid = 0;
  uint64_t unix_us = 0; // when the period ended, on the host's wall clock
  unsigned sm_percent = 0;
};

class nvml_device {
public:
  // The device with this CUDA UUID ("GPU-xxxxxxxx-..."), or nullopt when NVML is missing.
  static std::optional<nvml_device> open(const std::string &uuid);
  std::optional<gpu_clocks> read() const;
  // Processes holding a compute context on the device; nullopt when NVML cannot say.
  std::optional<std::vector<unsigned>> compute_processes() const;
  // Samples of periods that ended after `since_unix_us`; nullopt when NVML cannot say.
  std::optional<std::vector<gpu_process_sample>> process_samples(uint64_t since_unix_us) const;
  // The executable's name of a process, "" when unknown.
  std::string process_name(unsigned pid) const;

private:
  void *handle_ = nullptr;
};

} // namespace mkb
