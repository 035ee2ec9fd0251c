// A dry run lists what a run would do, from the ledger alone, and starts nothing.
#include "protocol/dry_run.hpp"

#include <gtest/gtest.h>

#include "support/scripted_session.hpp"

namespace mkb {
namespace {

TEST(DryRun, ListsTrialsAsPendingDoneStaleOrRerun) {
  testing::temp_dir dir;
  session_config c = testing::scripted_config(dir);
  c.worker_path = "/nonexistent/mkb-worker"; // a dry run starts no worker
  std::string fresh = dry_run(c, false);
  EXPECT_NE(fresh.find("\"to_run\":8,\"counts\":{\"pending\":8}"), std::string::npos) << fresh;
  EXPECT_FALSE(std::filesystem::exists(*c.ledger_path)) << "nor does it create the ledger";

  {
    session s(testing::scripted_config(dir));
    ASSERT_TRUE(testing::play_all(s));
  }
  std::string done = dry_run(c, false);
  EXPECT_NE(done.find("\"to_run\":0,\"counts\":{\"done\":6,\"skipped\":2}"), std::string::npos) << done;

  c.budget_submissions = 5; // the contract changed: every record is stale
  std::string stale = dry_run(c, true);
  EXPECT_NE(stale.find("8 trials, 0 to run, 8 stale"), std::string::npos) << stale;
  c.rerun_stale = true;
  std::string rerun = dry_run(c, true);
  EXPECT_NE(rerun.find("8 trials, 8 to run, 8 rerun"), std::string::npos) << rerun;
  EXPECT_NE(rerun.find("rerun        fused_add_rmsnorm_h4096_llama31_8b_bf16/cuda/solo_a/r0"), std::string::npos) << rerun;
}

} // namespace
} // namespace mkb
