// The building blocks baselines are written with (src/worker/device/mkb_ops.cuh), compiled by NVRTC as a
// problem's code is and run on a real GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/compile_cache.hpp"
#include "cuda/nvrtc_compiler.hpp"
#include "support/gpu_presence.hpp"
#include "support/temp_dir.hpp"
#include "worker/device_headers.hpp"
#include "worker/gpu.hpp"
#include "worker/loaded_plan.hpp"

namespace mkb::worker {
namespace {

class MkbOpsGpu : public ::testing::Test {
protected:
  void SetUp() override { MKB_REQUIRE_GPU(); }

  // Compiles `source` (which includes mkb_ops.cuh) for this GPU and loads it.
  loaded_module load(gpu &g, const std::string &source) {
    const std::string arch = arch_for_compute_capability(g.facts().major, g.facts().minor);
    cached_compile compiled = compile_cache(cache_dir_.path()).compile(source, "blocks.cu", arch, problem_headers());
    EXPECT_TRUE(compiled.output.ok) << compiled.output.log;
    return loaded_module(g, compiled.output.cubin, "the test");
  }

  testing::temp_dir cache_dir_;
};

// The map's own loop must not shadow the expression's names: a baseline's parameter `k` (the top-k) was
// once the loop's unroll counter, and its gathers read out of bounds.
TEST_F(MkbOpsGpu, AMapSeesItsParametersNotItsOwnCounters) {
  gpu g(0);
  loaded_module module = load(g, "#include \"mkb_ops.cuh\"\n"
                                 "MKB_MAP(row_of, float, (const float *x, unsigned k, unsigned base, unsigned values),"
                                 " x[(unsigned)i / k] + base + values)\n");
  CUfunction f = module.function("row_of");
  ASSERT_NE(f, nullptr);
  constexpr long long n = 5000;
  constexpr unsigned k = 8, base = 1000, values = 20000;
  std::vector<float> rows(n / k + 1);
  for (size_t r = 0; r < rows.size(); ++r) rows[r] = static_cast<float>(r);
  device_memory x(rows.size() * sizeof(float)), out(n * sizeof(float));
  check_cuda(g.cu().cuMemcpyHtoDAsync(x.get(), rows.data(), rows.size() * sizeof(float), g.stream()), "copy");
  CUdeviceptr out_ptr = out.get(), x_ptr = x.get();
  unsigned k_arg = k, base_arg = base, values_arg = values;
  long long n_arg = n;
  void *params[] = {&out_ptr, &x_ptr, &k_arg, &base_arg, &values_arg, &n_arg};
  CUlaunchConfig config{};
  config.gridDimX = (n + 1023) / 1024;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 256;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = g.stream();
  check_cuda(g.cu().cuLaunchKernelEx(&config, f, params, nullptr), "launch");
  std::vector<float> got(n);
  check_cuda(g.cu().cuMemcpyDtoHAsync(got.data(), out.get(), n * sizeof(float), g.stream()), "copy");
  g.synchronize(std::chrono::seconds(10), "row_of");
  for (long long i = 0; i < n; ++i)
    ASSERT_EQ(got[i], static_cast<float>(i / k + base + values)) << "element " << i;
}

} // namespace
} // namespace mkb::worker
