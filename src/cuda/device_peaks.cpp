#include "cuda/device_peaks.hpp"

#include <algorithm>

namespace mkb {

namespace {

struct datasheet {
  const char *name_part;
  const char *label;
  double bandwidth; // bytes/s
  double fp32, fp64, fp16, tensor_16, tensor_tf32, tensor_fp8; // FLOP/s, dense
};

// NVIDIA datasheets, SXM parts.
constexpr datasheet sheets[] = {
    {"H200", "NVIDIA H200 SXM", 4.8e12, 66.9e12, 33.5e12, 133.8e12, 989.4e12, 494.7e12, 1978.9e12},
    {"H100 80GB HBM3", "NVIDIA H100 SXM", 3.35e12, 66.9e12, 33.5e12, 133.8e12, 989.4e12, 494.7e12, 1978.9e12},
    {"B200", "NVIDIA B200", 8.0e12, 80e12, 40e12, 160e12, 2250e12, 1100e12, 4500e12},
};

double pick(const datasheet &s, spec::ComputeKind compute) {
  switch (compute) {
  // fp32-accurate products also come from tensor cores as three TF32 products (3xTF32): the bound is
  // the faster of the two, or a solution could run "above the speed of light".
  case spec::ComputeKind::fp32: return std::max(s.fp32, s.tensor_tf32 / 3);
  case spec::ComputeKind::fp64: return s.fp64;
  case spec::ComputeKind::fp16:
  case spec::ComputeKind::bf16: return s.fp16;
  case spec::ComputeKind::tensor_fp16:
  case spec::ComputeKind::tensor_bf16: return s.tensor_16;
  case spec::ComputeKind::tensor_tf32: return s.tensor_tf32;
  case spec::ComputeKind::tensor_fp8:
  case spec::ComputeKind::tensor_int8: return s.tensor_fp8;
  }
  return s.fp32;
}

} // namespace

device_peaks peaks_for(const std::string &device_name, int major, int minor, int sm_count, int sm_clock_khz,
                       int memory_clock_khz, int memory_bus_bits, spec::ComputeKind compute) {
  for (const datasheet &s : sheets)
    if (device_name.find(s.name_part) != std::string::npos)
      return {s.bandwidth, pick(s, compute), std::string("datasheet: ") + s.label};
  // Unknown part: DDR bandwidth from the memory clock and bus, FP32 from 128 lanes per SM at the
  // boost clock; tensor rates are not derivable and use 8x FP32 as a rough lower bound.
  device_peaks p;
  p.bytes_per_second = 2.0 * memory_clock_khz * 1e3 * memory_bus_bits / 8.0;
  double fp32 = 2.0 * 128 * sm_count * sm_clock_khz * 1e3;
  bool tensor = compute >= spec::ComputeKind::tensor_fp16;
  p.flops_per_second = compute == spec::ComputeKind::fp64 ? fp32 / 2 : tensor ? fp32 * 8 : fp32;
  p.source = "derived from device attributes (sm_" + std::to_string(major) + std::to_string(minor) + ")";
  return p;
}

} // namespace mkb
