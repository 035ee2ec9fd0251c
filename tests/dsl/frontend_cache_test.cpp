// src/dsl/frontend_cache.cpp through a real Triton frontend: a prepared submission is answered from
// the cache the second time (proved by an interpreter that cannot start), any other submission is
// not, and neither failed compilations nor damaged entries are ever served.
#include <gtest/gtest.h>

#include "core/files.hpp"
#include "dsl/dsl.hpp"
#include "spec/file_source.hpp"
#include "spec/problem.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

std::string triton_times(const char *factor) {
  return std::string(R"(import triton
import triton.language as tl

@triton.jit
def times(x_ptr, y_ptr, n, BLOCK: tl.constexpr = 128):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * )") +
         factor + R"(, mask=offs < n)

MKB_PLAN = """/* mkb:plan
launch times grid(ceil_div(n, 128)) block(128) args(x, y, i32(n))
*/"""
)";
}

class FrontendCache : public ::testing::Test {
protected:
  void SetUp() override {
    triton_ = find_dsl("triton");
    ASSERT_NE(triton_, nullptr);
    if (std::string why; !triton_->usable(&why)) GTEST_SKIP() << "triton is not usable here: " << why;
    testing::write_problem(dir_, "test", "tiny", testing::tiny_spec());
    problem_ = load_problem(directory_source(dir_.path()), "test/tiny");
    env_.cache_dir = (cache_.path() / "cache").string();
    offline_ = env_;
    offline_.python = (cache_.path() / "no-such-python").string();
  }

  std::vector<std::filesystem::path> entries() const {
    std::vector<std::filesystem::path> found;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(cache_.path() / "cache" / "frontend", ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); ++it)
      if (it->is_regular_file()) found.push_back(it->path());
    return found;
  }

  const dsl *triton_ = nullptr;
  testing::temp_dir dir_, cache_;
  problem problem_;
  frontend_environment env_, offline_;
};

TEST_F(FrontendCache, ThePreparedSubmissionIsAnsweredWithoutRunningTheFrontendAgain) {
  prepared_submission first = triton_->prepare(triton_times("2.0"), problem_, plan_role::submission, env_);
  ASSERT_EQ(entries().size(), 1u);
  prepared_submission again = triton_->prepare(triton_times("2.0"), problem_, plan_role::submission, offline_);
  EXPECT_EQ(again.module.ptx, first.module.ptx);
  EXPECT_EQ(again.plan.launches[0].entry, first.plan.launches[0].entry);
  EXPECT_EQ(again.plan.launches[0].args.size(), first.plan.launches[0].args.size());
  // Another submission is not in the cache: the frontend must run, and cannot.
  EXPECT_THROW(triton_->prepare(triton_times("3.0"), problem_, plan_role::submission, offline_), submission_error);
}

TEST_F(FrontendCache, CodeForOneArchitectureIsNeverServedForAnother) {
  prepared_submission hopper = triton_->prepare(triton_times("2.0"), problem_, plan_role::submission, env_);
  frontend_environment blackwell = offline_;
  blackwell.arch = "sm_100a";
  EXPECT_THROW(triton_->prepare(triton_times("2.0"), problem_, plan_role::submission, blackwell), submission_error);
  blackwell.python = env_.python;
  prepared_submission compiled = triton_->prepare(triton_times("2.0"), problem_, plan_role::submission, blackwell);
  EXPECT_EQ(entries().size(), 2u);
  EXPECT_NE(compiled.module.ptx[0].find(".target sm_100a"), std::string::npos);
  EXPECT_NE(hopper.module.ptx[0].find(".target sm_90a"), std::string::npos);
}

TEST_F(FrontendCache, FailedCompilationsAreNotRemembered) {
  EXPECT_THROW(triton_->prepare(triton_times("undefined_name"), problem_, plan_role::submission, env_), compile_failure);
  EXPECT_TRUE(entries().empty());
}

TEST_F(FrontendCache, ADamagedEntryIsAMissNotAnAnswer) {
  triton_->prepare(triton_times("2.0"), problem_, plan_role::submission, env_);
  ASSERT_EQ(entries().size(), 1u);
  std::string bytes = *try_read_file(entries()[0]);
  bytes[bytes.size() / 2] ^= 0x20;
  write_file_atomic(entries()[0], bytes);
  EXPECT_THROW(triton_->prepare(triton_times("2.0"), problem_, plan_role::submission, offline_), submission_error);
  EXPECT_NO_THROW(triton_->prepare(triton_times("2.0"), problem_, plan_role::submission, env_)); // and is replaced
  EXPECT_NO_THROW(triton_->prepare(triton_times("2.0"), problem_, plan_role::submission, offline_));
}

} // namespace
} // namespace mkb
