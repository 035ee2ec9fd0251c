// src/cuda/device_peaks.cpp: the bound is never below a rate a correct solution can reach.
#include <gtest/gtest.h>

#include "cuda/device_peaks.hpp"

namespace mkb {
namespace {

device_peaks h200(spec::ComputeKind compute) { return peaks_for("NVIDIA H200", 9, 0, 132, 1980000, 3201000, 6144, compute); }

TEST(DevicePeaks, KnownPartsUseTheirDatasheet) {
  EXPECT_EQ(h200(spec::ComputeKind::tensor_bf16).flops_per_second, 989.4e12);
  EXPECT_EQ(h200(spec::ComputeKind::bf16).bytes_per_second, 4.8e12);
  EXPECT_EQ(h200(spec::ComputeKind::fp64).flops_per_second, 33.5e12);
  EXPECT_EQ(h200(spec::ComputeKind::fp32).source, "datasheet: NVIDIA H200 SXM");
}

TEST(DevicePeaks, Fp32IsBoundedByThreeTf32ProductsWhenThatIsFaster) {
  // 3xTF32 on tensor cores is fp32-accurate and beats CUDA-core FP32 (66.9 TFLOP/s) on Hopper.
  EXPECT_DOUBLE_EQ(h200(spec::ComputeKind::fp32).flops_per_second, 494.7e12 / 3);
}

TEST(DevicePeaks, UnknownPartsAreDerivedFromTheirAttributes) {
  device_peaks p = peaks_for("Some Future GPU", 12, 0, 100, 2000000, 1000000, 4096, spec::ComputeKind::fp32);
  EXPECT_DOUBLE_EQ(p.flops_per_second, 2.0 * 128 * 100 * 2e9);
  EXPECT_DOUBLE_EQ(p.bytes_per_second, 2.0 * 1e9 * 4096 / 8);
  EXPECT_NE(p.source.find("sm_120"), std::string::npos);
}

} // namespace
} // namespace mkb
