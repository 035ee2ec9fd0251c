#include "protocol/planner.hpp"

#include <gtest/gtest.h>

#include "dsl/dsl.hpp"
#include "mkb.h"
#include "spec/suite.hpp"

namespace mkb {
namespace {

class Planner : public ::testing::Test {
protected:
  Planner() : problems_(suite::load(std::nullopt)) {
    for (const char *id : {"fused_add_rmsnorm_h4096_llama31_8b_bf16", "topk_softmax_routing_mixtral_8x7b_bf16"})
      selected_.push_back(problems_.find(id));
    prints_.assign(selected_.size(), fingerprints{"p", "d", "c"});
  }
  four_arm_plan make(int replicates = 1) {
    const dsl &cuda = *find_dsl("cuda");
    return four_arm_plan(selected_, cuda, cuda, replicates, "m", prints_, prints_);
  }
  suite problems_;
  std::vector<const problem *> selected_;
  std::vector<fingerprints> prints_;
};

TEST_F(Planner, SolosFirstThenEachSkillArmAfterItsSource) {
  four_arm_plan plan = make(2);
  ASSERT_EQ(plan.trials().size(), 16u); // 2 problems x 2 replicates x 4 arms
  std::vector<int> handed;
  while (auto i = plan.take()) handed.push_back(*i);
  ASSERT_EQ(handed.size(), 8u);
  for (int i : handed) EXPECT_TRUE(plan.trials()[i].key.arm == MKB_ARM_SOLO_A || plan.trials()[i].key.arm == MKB_ARM_SOLO_B);
  EXPECT_EQ(plan.trials()[handed[0]].key.replicate, 0);
  EXPECT_EQ(plan.trials()[handed[7]].key.replicate, 1);
  EXPECT_FALSE(plan.all_handed_out());

  trial_result r;
  std::optional<int> ready = plan.finish(handed[0], r); // solo_a of the first problem
  ASSERT_TRUE(ready.has_value());
  EXPECT_EQ(plan.trials()[*ready].key.arm, MKB_ARM_A2B_SKILL);
  EXPECT_EQ(plan.trials()[*ready].key.problem, plan.trials()[handed[0]].key.problem);
  EXPECT_EQ(plan.trials()[*ready].source, handed[0]);
  EXPECT_EQ(plan.take(), *ready);
  EXPECT_FALSE(plan.take().has_value());
}

TEST_F(Planner, RestoreKeepsFinishedAndReplansInterrupted) {
  four_arm_plan first = make();
  ledger_contents ledger;
  // solo_a of problem 0 finished, solo_b of problem 0 started but never finished
  trial_result done;
  done.key = first.trials()[0].key;
  done.prints = first.trials()[0].prints;
  done.skill = "skill";
  ledger.finished.push_back(done);
  ledger.started = {first.trials()[0].key, first.trials()[1].key};
  four_arm_plan plan = make();
  int interrupted = 0;
  EXPECT_TRUE(plan.restore(ledger, false, &interrupted).empty());
  EXPECT_EQ(interrupted, 1);
  EXPECT_EQ(plan.trials()[0].state, trial_state::finished);
  EXPECT_EQ(plan.trials()[1].state, trial_state::ready);
  EXPECT_EQ(plan.trials()[2].state, trial_state::ready) << "a2b's source is finished";
  EXPECT_EQ(plan.trials()[3].state, trial_state::waiting);
}

TEST_F(Planner, StaleTrialsAreKeptUnlessRerunIsAsked) {
  four_arm_plan first = make();
  ledger_contents ledger;
  trial_result old;
  old.key = first.trials()[0].key;
  old.prints = {"an older spec", "d", "c"};
  ledger.finished.push_back(old);
  trial_result arm;
  arm.key = first.trials()[2].key; // its skill arm, finished on the old source
  arm.prints = first.trials()[2].prints;
  ledger.finished.push_back(arm);
  int interrupted = 0;
  four_arm_plan keep = make();
  // The skill arm's own fingerprints are current, but it received the stale source's skill.
  EXPECT_EQ(keep.restore(ledger, false, &interrupted),
            (std::vector<std::string>{first.trials()[0].key.id(), first.trials()[2].key.id()}));
  EXPECT_EQ(keep.trials()[0].state, trial_state::finished);
  EXPECT_TRUE(keep.trials()[0].stale);
  EXPECT_TRUE(keep.trials()[2].stale);
  EXPECT_STREQ(plan_state_name(keep.trials()[2]), "stale");
  four_arm_plan rerun = make();
  EXPECT_EQ(rerun.restore(ledger, true, &interrupted).size(), 2u);
  EXPECT_EQ(rerun.trials()[0].state, trial_state::ready);
  EXPECT_EQ(rerun.trials()[2].state, trial_state::waiting) << "the skill arm follows its rerun source";
  EXPECT_STREQ(plan_state_name(rerun.trials()[2]), "rerun");
}

} // namespace
} // namespace mkb
