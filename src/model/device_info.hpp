// What the library knows of one GPU: the worker reads it from the driver and reports it in its
// answers; sessions, provenance records and `mkb doctor` show it.
#pragma once

#include <cstdint>
#include <string>

namespace mkb {

struct device_info {
  int ordinal = 0;
  std::string name;
  std::string uuid; // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  int major = 0, minor = 0;
  uint64_t memory_bytes = 0;
  int sm_count = 0;
  int l2_bytes = 0;
  int sm_clock_khz = 0;
  int memory_clock_khz = 0;
  int memory_bus_bits = 0;
  int max_shared_per_block_optin = 0;
};

} // namespace mkb
