// What every arm is told: a skill arm's instruction is its solo's, byte for byte, plus one section.
#include "protocol/instruction.hpp"

#include <gtest/gtest.h>

#include "dsl/dsl.hpp"
#include "mkb.h"
#include "spec/suite.hpp"
#include "support/scripted_session.hpp"

namespace mkb {
namespace {

TEST(Instruction, ASkillArmIsToldWhatItsSoloIsToldPlusTheSkill) {
  testing::temp_dir dir;
  session_config c = testing::scripted_config(dir);
  c.dsl_b = "cute"; // two DSLs, so that the skill arm's DSL differs from its source's
  c.problem_patterns = {"fused_add_rmsnorm_h4096_llama31_8b_bf16"};
  session s(c);
  bool done = false;
  std::vector<std::shared_ptr<task>> solos = s.next_tasks(std::chrono::milliseconds(0), 2, &done);
  ASSERT_EQ(solos.size(), 2u);
  task &solo_a = *solos[0], &solo_b = *solos[1];
  ASSERT_EQ(solo_b.key().arm, MKB_ARM_SOLO_B);
  solo_a.submit_skill("Keep the row in registers; the reduction is the only sync.");
  solo_a.finalize("agent");
  std::shared_ptr<task> skill_arm = s.next_tasks(std::chrono::milliseconds(1000), 1, &done).at(0);
  ASSERT_EQ(skill_arm->key().arm, MKB_ARM_A2B_SKILL);
  ASSERT_EQ(skill_arm->key().dsl, solo_b.key().dsl);

  EXPECT_EQ(skill_arm->instruction(), solo_b.instruction() + skill_arm->source_skill())
      << "the transferred skill must be the only difference between arms";
  EXPECT_EQ(skill_arm->source_skill(), skill_section("Keep the row in registers; the reduction is the only sync."));
  EXPECT_NE(skill_arm->source_skill().find("different kernel DSL"), std::string::npos);
  for (const dsl *d : all_dsls()) {
    EXPECT_EQ(skill_arm->source_skill().find(d->display_name()), std::string::npos) << "it names the source DSL";
  }
  EXPECT_EQ(skill_arm->source_skill().find("cuda"), std::string::npos);
}

TEST(Instruction, EveryArmIsAskedForASkillAndToldWhatCounts) {
  suite problems = suite::load(std::nullopt);
  const problem &p = problems.problems().at(0);
  std::string text = render_instruction(p, *find_dsl("cuda"), budget_limits{}, "/runs/r.ledger.guides/cuda.md");
  EXPECT_NE(text.find("keep a *skill*"), std::string::npos);
  EXPECT_NE(text.find("fails to import, trace or compile"), std::string::npos) << "compile errors count";
  EXPECT_NE(text.find("mkb_task_set_final"), std::string::npos) << "the final kernel can be named";
  EXPECT_NE(text.find("Compiling is free. `mkb_task_compile`"), std::string::npos) << "compiling costs nothing";
  EXPECT_EQ(text.find("{{"), std::string::npos) << "a placeholder left unfilled";
  EXPECT_NE(text.find("\nThe CUDA C++ (NVRTC) guide for this task: /runs/r.ledger.guides/cuda.md: programming model, "
                      "API with signatures, tensor cores, launch plan, pitfalls, tested examples.\n"),
            std::string::npos)
      << text;
  std::string without = render_instruction(p, *find_dsl("cuda"), budget_limits{}, "");
  EXPECT_EQ(without.find("guide for this task"), std::string::npos) << "no guide, no pointer";
  EXPECT_EQ(without.find("{{"), std::string::npos);
}

} // namespace
} // namespace mkb
