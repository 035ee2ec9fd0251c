// Peak rates for the fraction of speed-of-light. Datasheet figures of known parts (dense, no
// sparsity), else derived from the device's attributes; docs/CONTRACT.md says which were used.
#pragma once

#include <string>

#include "problem_generated.h"

namespace mkb {

struct device_peaks {
  double bytes_per_second = 0;
  double flops_per_second = 0; // for the problem's compute kind
  std::string source;          // "datasheet: NVIDIA H200 SXM" or "derived from attributes"
};

device_peaks peaks_for(const std::string &device_name, int major, int minor, int sm_count, int sm_clock_khz,
                       int memory_clock_khz, int memory_bus_bits, spec::ComputeKind compute);

} // namespace mkb
