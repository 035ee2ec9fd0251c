#include "cuda/compile_cache.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/files.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

constexpr const char *kernel = "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n";

module_code code(std::string source, std::string name = "k.cu") { return {std::move(name), std::move(source), {}, {}}; }

TEST(CompileCache, KeyCoversSourceNameArchHeadersIncludesAndPtx) {
  hash128 base = compile_cache::key_for(code(kernel), "sm_90a", {});
  EXPECT_EQ(base, compile_cache::key_for(code(kernel), "sm_90a", {}));
  EXPECT_NE(base, compile_cache::key_for(code(std::string(kernel) + " "), "sm_90a", {}));
  EXPECT_NE(base, compile_cache::key_for(code(kernel, "j.cu"), "sm_90a", {}));
  EXPECT_NE(base, compile_cache::key_for(code(kernel), "sm_80", {}));
  EXPECT_NE(base, compile_cache::key_for(code(kernel), "sm_100a", {}));
  EXPECT_NE(base, compile_cache::key_for(code(kernel), "sm_90a", {{"h.cuh", "x"}}));
  module_code with_include = code(kernel);
  with_include.include_dirs = {"/opt/cutlass/include"};
  EXPECT_NE(base, compile_cache::key_for(with_include, "sm_90a", {}));
  module_code units{"k", "", {}, {"a", "bc"}}, moved{"k", "", {}, {"ab", "c"}};
  EXPECT_NE(compile_cache::key_for(units, "sm_90a", {}), compile_cache::key_for(moved, "sm_90a", {}));
}

TEST(CompileCache, MissThenHit) {
  testing::temp_dir dir;
  compile_cache cache(dir.path());
  cached_compile first = cache.compile(kernel, "k.cu", "sm_90a");
  ASSERT_TRUE(first.output.ok) << first.output.log;
  EXPECT_FALSE(first.cache_hit);
  cached_compile second = cache.compile(kernel, "k.cu", "sm_90a");
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.output.cubin, first.output.cubin);
  EXPECT_EQ(second.output.ptx, first.output.ptx);
}

TEST(CompileCache, CompileErrorsAreCachedWithTheirLog) {
  testing::temp_dir dir;
  compile_cache cache(dir.path());
  cached_compile first = cache.compile("this is not CUDA", "bad.cu", "sm_90a");
  EXPECT_FALSE(first.output.ok);
  cached_compile second = cache.compile("this is not CUDA", "bad.cu", "sm_90a");
  EXPECT_TRUE(second.cache_hit);
  EXPECT_FALSE(second.output.ok);
  EXPECT_EQ(second.output.log, first.output.log);
}

TEST(CompileCache, TornOrForeignEntriesAreMisses) {
  testing::temp_dir dir;
  compile_cache cache(dir.path());
  cached_compile first = cache.compile(kernel, "k.cu", "sm_90a");
  std::string entry = read_file(cache.path_for(first.key));
  write_file_atomic(cache.path_for(first.key), entry.substr(0, entry.size() / 2));
  EXPECT_FALSE(cache.load(first.key).has_value());
  entry[entry.size() / 2] ^= 0x40;
  write_file_atomic(cache.path_for(first.key), entry);
  EXPECT_FALSE(cache.load(first.key).has_value());
  cached_compile again = cache.compile(kernel, "k.cu", "sm_90a");
  EXPECT_FALSE(again.cache_hit);
  EXPECT_TRUE(cache.load(first.key).has_value()); // rewritten whole
}

TEST(CompileCache, SeveralProcessesAtOnce) {
  testing::temp_dir dir;
  // Four processes compile the same and different kernels into one cache at the same moment.
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      compile_cache cache(dir.path());
      std::string source = std::string(kernel) + (i % 2 ? "// variant\n" : "");
      cached_compile c = cache.compile(source, "k.cu", "sm_90a");
      _exit(c.output.ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  compile_cache cache(dir.path());
  EXPECT_TRUE(cache.compile(kernel, "k.cu", "sm_90a").cache_hit);
  EXPECT_TRUE(cache.compile(std::string(kernel) + "// variant\n", "k.cu", "sm_90a").cache_hit);
  // Exactly two entries, and no temporary file left.
  size_t files = 0;
  for (auto &e : std::filesystem::recursive_directory_iterator(dir.path()))
    if (e.is_regular_file()) {
      ++files;
      EXPECT_EQ(e.path().extension(), ".bin") << e.path();
    }
  EXPECT_EQ(files, 2u);
}

} // namespace
} // namespace mkb
