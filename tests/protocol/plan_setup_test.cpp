// What a configuration plans: trials and directions selected, and fingerprints that move with what
// shapes an attempt.
#include "protocol/plan_setup.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"
#include "dsl/dsl.hpp"
#include "mkb.h"
#include "spec/suite.hpp"

namespace mkb {
namespace {

class PlanSetup : public ::testing::Test {
protected:
  PlanSetup() : problems_(suite::load(std::nullopt)) {
    config_.dsl_a = "cuda";
    config_.dsl_b = "cute";
    config_.replicates = 2;
    config_.problem_patterns = {"fused_add_rmsnorm_h4096_llama31_8b_bf16"};
  }

  std::set<std::string> planned_ids() {
    session_plan planned = make_session_plan(config_, problems_.select(config_.problem_patterns, {}), *find_dsl("cuda"),
                                             *find_dsl("cute"), evaluation_settings{});
    std::set<std::string> ids;
    for (const planned_trial &t : planned.plan->trials()) ids.insert(t.key.id());
    return ids;
  }

  suite problems_;
  session_config config_;
};

TEST_F(PlanSetup, EverythingByDefault) { EXPECT_EQ(planned_ids().size(), 8u); }

TEST_F(PlanSetup, ATrialGlobKeepsMatchingTrialsAndTheSourcesTheyNeed) {
  config_.trial_patterns = {"*/a2b_skill/r1"};
  EXPECT_EQ(planned_ids(), (std::set<std::string>{"fused_add_rmsnorm_h4096_llama31_8b_bf16/cuda/solo_a/r1",
                                                  "fused_add_rmsnorm_h4096_llama31_8b_bf16/cute/a2b_skill/r1"}));
  config_.trial_patterns = {"*/solo_?/r0"};
  EXPECT_EQ(planned_ids().size(), 2u);
}

TEST_F(PlanSetup, ADirectionIsItsSkillArmAndBothSolos) {
  config_.directions = {"b_to_a"};
  std::set<std::string> ids = planned_ids();
  EXPECT_EQ(ids.size(), 6u);
  for (const std::string &id : ids) EXPECT_EQ(id.find("a2b_skill"), std::string::npos) << id;
}

// Shards: the union of a configuration's shards is its plan, no trial twice, a problem and
// replicate's arms in one shard (a skill arm with the solo whose skill it gets), sizes within a unit.
TEST_F(PlanSetup, ShardsPartitionThePlanKeepingEachProblemAndReplicateTogether) {
  config_.problem_patterns = {"*"};
  config_.replicates = 3;
  config_.directions = {"a_to_b"};
  std::set<std::string> whole = planned_ids();
  ASSERT_EQ(whole.size(), 30u * 3 * 3) << "30 problems, 3 replicates, both solos and one skill arm";
  for (uint32_t count : {2u, 4u, 7u, 60u}) {
    std::set<std::string> joined;
    std::vector<size_t> sizes;
    std::map<std::string, uint32_t> shard_of_unit; // "<problem>/r<replicate>" -> shard
    for (uint32_t index = 0; index < count; ++index) {
      config_.shard_index = index;
      config_.shard_count = count;
      std::set<std::string> mine = planned_ids();
      sizes.push_back(mine.size());
      for (const std::string &id : mine) {
        EXPECT_TRUE(joined.insert(id).second) << id << " in two shards of " << count;
        std::string unit = id.substr(0, id.find('/')) + id.substr(id.rfind('/'));
        auto [it, fresh] = shard_of_unit.try_emplace(unit, index);
        EXPECT_EQ(it->second, index) << unit << "'s arms are split across shards of " << count;
      }
    }
    EXPECT_EQ(joined, whole) << count << " shards";
    auto [smallest, largest] = std::minmax_element(sizes.begin(), sizes.end());
    EXPECT_LE(*largest - *smallest, 3u) << "within one unit (three trials) of each other: " << count << " shards";
  }
}

TEST_F(PlanSetup, AShareIsDeterministicAndOneShardIsAll) {
  std::set<shard_unit> units;
  for (int r = 0; r < 5; ++r)
    for (const char *p : {"a", "b", "c", "d", "e", "f"}) units.insert({p, r});
  std::set<shard_unit> first = shard_share(units, 1, 3);
  EXPECT_EQ(first, shard_share(units, 1, 3)) << "deterministic";
  EXPECT_EQ(first.size(), 10u);
  EXPECT_EQ(shard_share(units, 0, 1), units);
}

TEST_F(PlanSetup, AGlobThatMatchesNothingIsAConfigurationError) {
  config_.trial_patterns = {"*/solo_a/r7"};
  try {
    planned_ids();
    FAIL() << "planned with a glob that matches nothing";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_CONFIG);
    EXPECT_NE(std::string(e.what()).find("*/solo_a/r7"), std::string::npos) << e.what();
  }
}

TEST_F(PlanSetup, FingerprintsMoveWithTheContractTheProblemAndTheDsl) {
  const problem &p = *problems_.find("fused_add_rmsnorm_h4096_llama31_8b_bf16");
  const problem &other = problems_.problems().back();
  evaluation_settings settings;
  fingerprints base = fingerprints_for(p, *find_dsl("cuda"), config_, settings);
  EXPECT_EQ(base, fingerprints_for(p, *find_dsl("cuda"), config_, settings)) << "deterministic";
  session_config tighter = config_;
  tighter.budget_seconds = 600;
  fingerprints changed = fingerprints_for(p, *find_dsl("cuda"), tighter, settings);
  EXPECT_NE(changed.contract, base.contract);
  EXPECT_EQ(changed.problem, base.problem);
  settings.draws.timed_draws += 1;
  EXPECT_NE(fingerprints_for(p, *find_dsl("cuda"), config_, settings).contract, base.contract);
  EXPECT_NE(fingerprints_for(p, *find_dsl("cute"), config_, evaluation_settings{}).dsl, base.dsl);
  EXPECT_NE(fingerprints_for(other, *find_dsl("cuda"), config_, evaluation_settings{}).problem, base.problem);
}

TEST_F(PlanSetup, TheDslFingerprintMovesWithTheGuide) {
  const problem &p = *problems_.find("fused_add_rmsnorm_h4096_llama31_8b_bf16");
  const dsl &cuda = *find_dsl("cuda");
  ASSERT_FALSE(cuda.guide().empty());
  std::string now = fingerprints_for(p, cuda, config_, evaluation_settings{}).dsl;
  EXPECT_EQ(now, language_fingerprint(cuda.name(), cuda.notes(), cuda.guide())) << "the guide is part of it";
  std::string edited = std::string(cuda.guide()) + "\nOne more pitfall.\n";
  EXPECT_NE(language_fingerprint(cuda.name(), cuda.notes(), edited), now) << "a changed guide re-runs trials";
  EXPECT_NE(language_fingerprint(cuda.name(), cuda.notes(), ""), now);
  EXPECT_EQ(language_fingerprint(cuda.name(), cuda.notes(), cuda.guide()), now) << "deterministic";
}

} // namespace
} // namespace mkb
