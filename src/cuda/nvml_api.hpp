// The few NVML calls the worker uses to record clocks around timing, loaded with dlopen so that a
// machine without NVML still evaluates (the report then says clocks were not available).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace mkb {

struct gpu_clocks {
  unsigned sm_mhz = 0;
  unsigned memory_mhz = 0;
  unsigned temperature_c = 0;
  uint64_t throttle_reasons = 0; // NVML clocks-event reason bits
};

class nvml_device {
public:
  // The device with this CUDA UUID ("GPU-xxxxxxxx-..."), or nullopt when NVML is missing.
  static std::optional<nvml_device> open(const std::string &uuid);
  std::optional<gpu_clocks> read() const;

private:
  void *handle_ = nullptr;
};

// Human-readable names of the throttle reason bits: "sw_power_cap, hw_slowdown".
std::string describe_throttle_reasons(uint64_t reasons);

} // namespace mkb
