// Device printf on a real GPU (issue 14): a kernel that prints from thousands of threads on every
// launch gets its verdict, its output arrives in the report (the last 64 KiB, as `worker_output`),
// and none of it reaches the caller's own stdout or stderr.
#include <gtest/gtest.h>

#include "core/files.hpp"
#include "core/names.hpp"
#include "core/output_tail.hpp"
#include "eval/evaluator.hpp"
#include "mkb.h"
#include "spec/suite.hpp"
#include "support/captured_stdio.hpp"
#include "support/gpu_presence.hpp"
#include "support/paths.hpp"
#include "support/stored_solutions.hpp"

namespace mkb {
namespace {

TEST(WorkerOutputGpu, DevicePrintfGoesToTheReportNotToTheCaller) {
  MKB_REQUIRE_GPU();
  suite problems = suite::load(std::nullopt);
  const problem &p = *problems.find("fused_add_rmsnorm_h4096_llama31_8b_bf16");
  // The suite's solution, printing from every thread of its first eight blocks on every launch.
  std::string source = testing::stored_solution_source(p, "cuda");
  size_t body = source.find("float eps) {");
  ASSERT_NE(body, std::string::npos);
  source.insert(body + 12, "\n  if (blockIdx.x < 8) printf(\"mkb-device-printf block %d thread %d\\n\", (int)blockIdx.x, (int)threadIdx.x);\n");

  worker_pool pool(testing::real_worker(), {0});
  evaluation_settings settings;
  settings.cache_dir = default_cache_dir().string();
  evaluator e(pool, settings);
  testing::captured_stdio caller;
  evaluation_report r = e.evaluate(p, *find_dsl("cuda"), source);
  std::string reached_caller = caller.text();

  EXPECT_EQ(r.verdict, MKB_VERDICT_PASSED) << r.message;
  EXPECT_EQ(reached_caller.find("mkb-device-printf"), std::string::npos) << last_bytes_of(reached_caller, 2000);
  EXPECT_NE(r.worker_output.find("mkb-device-printf block "), std::string::npos) << r.worker_output.substr(0, 2000);
  EXPECT_NE(r.worker_output.find(" earlier bytes dropped]"), std::string::npos); // far more than 64 KiB was printed
  EXPECT_LE(r.worker_output.size(), output_tail::default_capacity + 64);
  EXPECT_NE(r.json.find("\"worker_output\":"), std::string::npos);
  std::printf("---- device printf: %s, %zu bytes of worker output kept\n", verdict_name(r.verdict), r.worker_output.size());
}

} // namespace
} // namespace mkb
