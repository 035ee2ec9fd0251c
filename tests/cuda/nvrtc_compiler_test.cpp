#include "cuda/nvrtc_compiler.hpp"

#include <gtest/gtest.h>

#include "cuda/ptx_entries.hpp"

namespace mkb {
namespace {

TEST(NvrtcCompiler, CompilesToCubinAndPtxForHopper) {
  compile_output out = compile_cuda(R"(
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cooperative_groups.h>
#include <cuda/std/cstdint>
extern "C" __global__ void k(const __nv_bfloat16 *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __bfloat162float(x[i]);
})",
                                    "k.cu", "sm_90a");
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_GT(out.cubin.size(), 0u);
  EXPECT_NE(out.ptx.find(".target sm_90a"), std::string::npos);
  auto entries = ptx_entry_parameters(out.ptx);
  ASSERT_TRUE(entries.count("k"));
  EXPECT_EQ(entries["k"], (std::vector<size_t>{8, 8, 4}));
}

TEST(NvrtcCompiler, ErrorsComeBackVerbatim) {
  compile_output out = compile_cuda("extern \"C\" __global__ void k() { undefined_thing(); }\n", "bad.cu", "sm_90a");
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("bad.cu(1)"), std::string::npos) << out.log;
  EXPECT_NE(out.log.find("undefined_thing"), std::string::npos) << out.log;
}

TEST(NvrtcCompiler, NoDeviceSideLaunches) {
  // Without relocatable device code a kernel cannot launch another: the locked options forbid it.
  compile_output out = compile_cuda(R"(
extern "C" __global__ void child() {}
extern "C" __global__ void parent() { child<<<1, 1>>>(); })",
                                    "launch.cu", "sm_90a");
  EXPECT_FALSE(out.ok) << "a device-side launch compiled";
}

TEST(NvrtcCompiler, LockedOptionsAndArch) {
  std::vector<std::string> options = locked_compile_options("sm_90a");
  EXPECT_EQ(options.front(), "--gpu-architecture=sm_90a");
  for (const std::string &o : options) EXPECT_EQ(o.find("-rdc"), std::string::npos);
  EXPECT_EQ(arch_for_compute_capability(9, 0), "sm_90a");
  EXPECT_EQ(arch_for_compute_capability(8, 9), "sm_89");
  EXPECT_EQ(arch_for_compute_capability(10, 0), "sm_100a");
}

TEST(NvrtcCompiler, TargetArchitecturesAreCheckedAgainstThisNvrtc) {
  EXPECT_EQ(target_arch_problem("sm_90a"), "");
  EXPECT_EQ(target_arch_problem("sm_100a"), "");
  EXPECT_EQ(target_arch_problem("sm_89"), "");
  for (const char *malformed : {"", "90a", "sm90a", "sm_", "sm_9", "sm_90b", "sm_9x", "sm_1000", "compute_90a"})
    EXPECT_NE(target_arch_problem(malformed).find("is not an architecture"), std::string::npos) << malformed;
  EXPECT_NE(target_arch_problem("sm_80a").find("no arch-specific variant: use sm_80"), std::string::npos);
  std::string unknown = target_arch_problem("sm_99");
  EXPECT_NE(unknown.find("cannot compile for sm_99"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("sm_90"), std::string::npos) << unknown; // it lists what it knows
}

} // namespace
} // namespace mkb
