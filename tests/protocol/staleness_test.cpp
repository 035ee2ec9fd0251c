// Which records are stale: judged against the latest session's fingerprints, skill arms by their source.
#include "protocol/staleness.hpp"

#include <gtest/gtest.h>

#include "mkb.h"

namespace mkb {
namespace {

trial_result record(const std::string &problem, int arm, const fingerprints &prints) {
  trial_result r;
  r.key = {"model", problem, "family", "cuda", arm, 0};
  r.prints = prints;
  return r;
}

const fingerprints now{"p1", "d1", "c1"}, before{"p0", "d1", "c1"};

TEST(Staleness, OtherFingerprintsThanTheCurrentPlansAreStale) {
  planned_prints current{{{"a", "cuda"}, now}, {{"b", "cuda"}, now}};
  auto latest = latest_with_staleness({record("a", MKB_ARM_SOLO_A, now), record("b", MKB_ARM_SOLO_A, before),
                                       record("c", MKB_ARM_SOLO_A, before)},
                                      current);
  ASSERT_EQ(latest.size(), 3u);
  EXPECT_FALSE(latest[0].stale);
  EXPECT_TRUE(latest[1].stale);
  EXPECT_FALSE(latest[2].stale) << "a problem the current plan lacks is judged by nothing";
}

TEST(Staleness, TheLatestRecordOfATrialCounts) {
  planned_prints current{{{"a", "cuda"}, now}};
  auto latest = latest_with_staleness({record("a", MKB_ARM_SOLO_A, before), record("a", MKB_ARM_SOLO_A, now)}, current);
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_FALSE(latest[0].stale);
}

TEST(Staleness, ASkillArmIsStaleWithItsSourceOrWhenItsSourceWasRedone) {
  planned_prints current{{{"a", "cuda"}, now}};
  auto stale_source = latest_with_staleness({record("a", MKB_ARM_SOLO_A, before), record("a", MKB_ARM_A2B_SKILL, now)},
                                            current);
  EXPECT_TRUE(stale_source[1].stale);
  auto redone = latest_with_staleness(
      {record("a", MKB_ARM_SOLO_A, now), record("a", MKB_ARM_A2B_SKILL, now), record("a", MKB_ARM_SOLO_A, now)}, current);
  ASSERT_EQ(redone.size(), 2u);
  EXPECT_FALSE(redone[0].stale);
  EXPECT_TRUE(redone[1].stale) << "it received the skill of an attempt that was replaced";
  auto fresh = latest_with_staleness({record("a", MKB_ARM_SOLO_A, now), record("a", MKB_ARM_A2B_SKILL, now)}, current);
  EXPECT_FALSE(fresh[1].stale);
}

} // namespace
} // namespace mkb
