// The four arms over the suite's two first problems on a real GPU, with scripted submissions: the
// protocol, the ledger and the scores running on real evaluations.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/files.hpp"
#include "mkb.h"
#include "protocol/session.hpp"
#include "support/gpu_presence.hpp"
#include "support/paths.hpp"
#include "support/stored_solutions.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

// What each arm submits: the suite's fast solution, a slower correct kernel, or a wrong one.
std::string scripted_source(const task &t) {
  std::string hostile = testing::source_dir() + "/tests/gpu/hostile/";
  const std::string fast = testing::stored_solution_source(t.target(), "cuda");
  if (t.key().problem == "fused_add_rmsnorm_h4096_llama31_8b_bf16")
    return t.key().arm == MKB_ARM_SOLO_A || t.key().arm == MKB_ARM_B2A_SKILL ? read_file(hostile + "correct_simple.cu") : fast;
  return t.key().arm == MKB_ARM_SOLO_B ? read_file(hostile + "routing_wrong_tie_break.cu") : fast;
}

TEST(ProtocolGpu, FourArmsOverTwoProblems) {
  MKB_REQUIRE_GPU();
  testing::temp_dir dir;
  session_config c;
  c.worker_path = testing::real_worker();
  c.gpus = std::vector<int>{0};
  c.cache_dir = default_cache_dir().string();
  c.dsl_a = c.dsl_b = "cuda";
  c.problem_patterns = {"fused_add_rmsnorm_h4096_llama31_8b_bf16", "topk_softmax_routing_mixtral_8x7b_bf16"};
  c.model = "scripted-h200";
  c.ledger_path = (dir.path() / "run.ledger").string();
  session s(c);
  int finished = 0;
  for (;;) {
    bool done = false;
    auto tasks = s.next_tasks(std::chrono::milliseconds(100), 4, &done);
    if (done) break;
    for (auto &t : tasks) {
      evaluation_report r = t->submit(scripted_source(*t));
      std::printf("%s: %s", t->id().c_str(), r.message.c_str());
      if (t->key().arm <= MKB_ARM_SOLO_B) t->submit_skill("Fuse everything into one pass; rows fit in registers.");
      evaluation_report final = t->finalize("agent");
      std::printf("  final: %s", final.message.c_str());
      ++finished;
    }
  }
  EXPECT_EQ(finished, 8);
  std::string table = s.score(true, false);
  std::printf("%s", table.c_str());
  EXPECT_NE(table.find("2 paired comparisons"), std::string::npos);
  ledger_contents l = ledger::read(dir.path() / "run.ledger");
  ASSERT_EQ(l.finished.size(), 8u);
  for (const trial_result &r : l.finished) {
    bool wrong = r.key.problem == "topk_softmax_routing_mixtral_8x7b_bf16" && r.key.arm == MKB_ARM_SOLO_B;
    EXPECT_EQ(r.verdict, wrong ? MKB_VERDICT_WRONG_ANSWER : MKB_VERDICT_PASSED) << r.key.id();
  }
}

// The original benchmark's pair, the default, on real evaluations: each arm submits the stored
// solution in its DSL.
TEST(ProtocolGpu, FourArmsWithTheOriginalPair) {
  MKB_REQUIRE_GPU();
  for (const char *name : {"cute-dsl", "tirx"}) {
    std::string why;
    if (!find_dsl(name)->usable(&why)) GTEST_SKIP() << name << " is not usable here: " << why;
  }
  testing::temp_dir dir;
  session_config c;
  c.worker_path = testing::real_worker();
  c.gpus = std::vector<int>{0};
  c.cache_dir = default_cache_dir().string();
  c.problem_patterns = {"fused_add_rmsnorm_h4096_llama31_8b_bf16", "topk_softmax_routing_mixtral_8x7b_bf16"};
  c.model = "scripted-h200";
  c.ledger_path = (dir.path() / "run.ledger").string();
  session s(c); // the default pair
  EXPECT_EQ(s.dsl_a(), "cute-dsl");
  EXPECT_EQ(s.dsl_b(), "tirx");
  int finished = 0;
  for (;;) {
    bool done = false;
    auto tasks = s.next_tasks(std::chrono::milliseconds(100), 4, &done);
    if (done) break;
    for (auto &t : tasks) {
      ASSERT_NE(t->target().solution_for(t->key().dsl), nullptr) << t->id();
      evaluation_report r = t->submit(testing::stored_solution_source(t->target(), t->key().dsl));
      std::printf("%s: %s", t->id().c_str(), r.message.c_str());
      EXPECT_EQ(r.verdict, MKB_VERDICT_PASSED) << t->id();
      if (t->key().arm <= MKB_ARM_SOLO_B) t->submit_skill("Fuse everything into one pass; rows fit in registers.");
      t->finalize("agent");
      ++finished;
    }
  }
  EXPECT_EQ(finished, 8);
  std::string table = s.score(true, false);
  std::printf("%s", table.c_str());
  EXPECT_NE(table.find("A to B (cute-dsl -> tirx), against the baseline: 2 paired comparisons"), std::string::npos) << table;
}

} // namespace
} // namespace mkb
