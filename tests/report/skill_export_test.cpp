// The skills' export: names as Agent Skills require them, the front matter, the provenance, and the
// folders written.
#include <gtest/gtest.h>

#include "core/files.hpp"
#include "report/skill_export.hpp"
#include "sample_results.hpp"
#include "support/temp_dir.hpp"

namespace mkb::report {
namespace {

bool valid_name(const std::string &n) {
  if (n.empty() || n.size() > 64 || n.front() == '-' || n.back() == '-' || n.find("--") != std::string::npos) return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

TEST(SkillExport, OneSkillPerTrialWithOneNamedAsTheFormatRequires) {
  std::vector<exported_skill> skills = skills_to_export(testing::sample_results());
  ASSERT_EQ(skills.size(), 16u) << "two models x four problems x two solo arms";
  EXPECT_EQ(skills[0].name, "model-x-problem-0-cute-dsl-r0") << "the model first: two models";
  EXPECT_EQ(skills[1].name, "model-x-problem-0-tirx-r0");
  EXPECT_EQ(skills[8].name, "model-y-problem-0-cute-dsl-r0") << "\"model <y>\" as a slug";
  for (const exported_skill &s : skills) EXPECT_TRUE(valid_name(s.name)) << s.name;
}

TEST(SkillExport, ALongOrCollidingNameIsCutAndEndsWithAHash) {
  std::vector<trial_result> results(3);
  results[0].key = {"m", std::string(80, 'p'), "f", "cuda", MKB_ARM_SOLO_A, 0};
  results[1].key = {"m", "a_b", "f", "cuda", MKB_ARM_SOLO_A, 0};
  results[2].key = {"m", "a-b", "f", "cuda", MKB_ARM_SOLO_A, 0}; // the same slug as a_b
  for (trial_result &r : results) r.skill = "text";
  std::vector<exported_skill> skills = skills_to_export(results);
  ASSERT_EQ(skills.size(), 3u);
  EXPECT_EQ(skills[0].name.size(), 64u);
  EXPECT_TRUE(valid_name(skills[0].name)) << skills[0].name;
  EXPECT_EQ(skills[1].name, "a-b-cuda-r0");
  EXPECT_NE(skills[2].name, skills[1].name);
  EXPECT_TRUE(valid_name(skills[2].name)) << skills[2].name;
}

TEST(SkillExport, FrontMatterQuotesTheDescriptionAndTheBodyIsTheSkill) {
  std::vector<trial_result> results(1);
  results[0].key = {"evil\"\nname: x", "p", "f", "cuda", MKB_ARM_SOLO_B, 2};
  results[0].skill = "Use \"shared\" memory.";
  results[0].verdict = MKB_VERDICT_PASSED;
  results[0].speedup = 1.5;
  std::vector<exported_skill> skills = skills_to_export(results);
  std::string md = skill_markdown(skills[0]);
  EXPECT_EQ(md.rfind("---\nname: p-cuda-r2\ndescription: \"What evil\\\"\\x0aname: x learned writing a cuda kernel", 0), 0u)
      << md;
  EXPECT_NE(md.find("ended passed at 1.50x the baseline"), std::string::npos) << md;
  EXPECT_NE(md.find("\"\n---\n\nUse \"shared\" memory.\n"), std::string::npos) << md;
  std::string provenance = skill_provenance_json(skills[0]);
  EXPECT_NE(provenance.find("\"arm\":\"solo_b\",\"replicate\":2,\"verdict\":\"passed\",\"speedup\":1.5"), std::string::npos)
      << provenance;
}

TEST(SkillExport, WritesAFolderPerSkillReplacingAnEarlierOne) {
  mkb::testing::temp_dir dir;
  dir.write("p-cuda-r0/old.txt", "from an earlier export");
  std::vector<trial_result> results(1);
  results[0].key = {"m", "p", "f", "cuda", MKB_ARM_SOLO_A, 0};
  results[0].skill = "text";
  export_skills(dir.path(), skills_to_export(results));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "p-cuda-r0/old.txt"));
  EXPECT_EQ(read_file(dir.path() / "p-cuda-r0/SKILL.md").substr(0, 19), "---\nname: p-cuda-r0");
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "p-cuda-r0/provenance.json"));
}

} // namespace
} // namespace mkb::report
