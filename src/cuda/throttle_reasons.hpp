// Names of NVML's clocks-event (throttle) reason bits, which reports print. Apart from the NVML
// loader (cuda_loaders/nvml_api), which only the worker links: the library renders what the worker read.
#pragma once

#include <cstdint>
#include <string>

namespace mkb {

// Human-readable names of the throttle reason bits: "sw_power_cap, hw_slowdown".
std::string describe_throttle_reasons(uint64_t reasons);

} // namespace mkb
