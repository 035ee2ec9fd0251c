#include "spec/file_source.hpp"

#include <gtest/gtest.h>

#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::temp_dir;
using testing::tiny_spec;
using testing::write_problem;

TEST(SetAside, AFamilyOrIdFolderStartingWithUnderscore) {
  EXPECT_TRUE(is_set_aside("_template/example"));
  EXPECT_TRUE(is_set_aside("norm/_draft"));
  EXPECT_TRUE(is_set_aside("_family"));
  EXPECT_FALSE(is_set_aside("norm/rms_norm_"));
  EXPECT_FALSE(is_set_aside("mlp_norm/swiglu_bf16"));
  EXPECT_FALSE(is_set_aside(""));
}

// A set-aside family, or a draft inside a family, lies on disk beside the suite and is not in it.
TEST(DirectorySource, SkipsSetAsideFolders) {
  temp_dir dir;
  write_problem(dir, "norm", "rmsnorm", tiny_spec("rmsnorm", "norm"));
  write_problem(dir, "norm", "_draft", tiny_spec("_draft", "norm"));
  write_problem(dir, "_old", "rmsnorm", tiny_spec("rmsnorm", "_old"));
  write_problem(dir, "_template/example", "tiny", tiny_spec("tiny", "example"));
  EXPECT_EQ(directory_source(dir.path()).problem_folders(), std::vector<std::string>{"norm/rmsnorm"});
  // Named as the suite itself, the template is a suite: its own folder's name does not count.
  EXPECT_EQ(directory_source(dir.path() / "_template").problem_folders(), std::vector<std::string>{"example/tiny"});
}

TEST(EmbeddedSource, SkipsSetAsideFolders) {
  const std::string spec = tiny_spec();
  const embedded_file files[] = {{"norm/rmsnorm/spec.json", spec},
                                 {"norm/_draft/spec.json", spec},
                                 {"_template/example/tiny/spec.json", spec}};
  EXPECT_EQ(embedded_source(files).problem_folders(), std::vector<std::string>{"norm/rmsnorm"});
}

} // namespace
} // namespace mkb
