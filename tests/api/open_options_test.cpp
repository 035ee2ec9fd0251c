// mkb_open_options to session_config (src/api/open_options.cpp): the target architecture of
// compile-only sessions, from the option, MKB_TARGET_ARCH, then sm_90a, checked against NVRTC; shards.
#include "api/open_options.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "support/scoped_environment.hpp"

namespace mkb {
namespace {

using testing::scoped_environment;

mkb_open_options defaults() {
  mkb_open_options o{}; // as mkb_open_options_init leaves them
  o.struct_size = sizeof o;
  return o;
}

// The MKB_ERR_CONFIG message of `options`, or "" when they are accepted.
std::string config_error(const mkb_open_options *options) {
  try {
    config_from_options(options);
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_CONFIG) << e.what();
    return e.what();
  }
  return {};
}

TEST(OpenOptions, TargetArchFromTheOptionThenTheEnvironmentThenHopper) {
  scoped_environment unset("MKB_TARGET_ARCH", nullptr);
  mkb_open_options o = defaults();
  EXPECT_EQ(config_from_options(nullptr).target_arch, "sm_90a");
  EXPECT_EQ(config_from_options(&o).target_arch, "sm_90a");
  scoped_environment blackwell("MKB_TARGET_ARCH", "sm_100a");
  EXPECT_EQ(config_from_options(nullptr).target_arch, "sm_100a");
  EXPECT_EQ(config_from_options(&o).target_arch, "sm_100a");
  o.target_arch = "sm_89";
  EXPECT_EQ(config_from_options(&o).target_arch, "sm_89");
}

TEST(OpenOptions, AWrongTargetArchNamesTheFieldAndWhatIsExpected) {
  scoped_environment unset("MKB_TARGET_ARCH", nullptr);
  mkb_open_options o = defaults();
  o.target_arch = "hopper";
  std::string message = config_error(&o);
  EXPECT_NE(message.find("target_arch: 'hopper' is not an architecture"), std::string::npos) << message;
  EXPECT_NE(message.find("sm_90a"), std::string::npos) << message;
  o.target_arch = "sm_99";
  message = config_error(&o);
  EXPECT_NE(message.find("target_arch: NVRTC"), std::string::npos) << message;
  o.target_arch = "";
  EXPECT_NE(config_error(&o).find("target_arch:"), std::string::npos);

  scoped_environment wrong("MKB_TARGET_ARCH", "sm90");
  message = config_error(nullptr);
  EXPECT_NE(message.find("MKB_TARGET_ARCH: 'sm90' is not an architecture"), std::string::npos) << message;
  o.target_arch = "sm_100a"; // the option wins, and the variable is not consulted
  EXPECT_EQ(config_error(&o), "");
}

TEST(OpenOptions, AShardIsBelowItsCountAndNoCountMeansNoSharding) {
  mkb_open_options o = defaults();
  EXPECT_EQ(config_from_options(&o).shard_count, 1u);
  o.shard_index = 2;
  o.shard_count = 4;
  session_config c = config_from_options(&o);
  EXPECT_EQ(c.shard_index, 2u);
  EXPECT_EQ(c.shard_count, 4u);
  o.shard_index = 4;
  EXPECT_NE(config_error(&o).find("shard_index: expected a shard below shard_count 4 (shards count from 0), got 4"),
            std::string::npos);
  o.shard_count = 0;
  o.shard_index = 1;
  EXPECT_NE(config_error(&o).find("shard_index:"), std::string::npos) << "no count: only shard 0";
  o.struct_size = offsetof(mkb_open_options, shard_index);
  EXPECT_EQ(config_from_options(&o).shard_count, 1u) << "an older caller's struct has no shard fields";
}

} // namespace
} // namespace mkb
