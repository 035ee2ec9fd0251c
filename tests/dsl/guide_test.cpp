// Every registered DSL has its guide built in (tests/dsl/guides_check.py checks what each says).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/text.hpp"
#include "dsl/dsl.hpp"

namespace mkb {
namespace {

std::set<std::string> names_in(std::string_view comma_separated) {
  std::set<std::string> out;
  for (const std::string &name : split(comma_separated, ',')) out.insert(name);
  return out;
}

TEST(DslGuide, EveryRegisteredDslHasOneBuiltIn) {
  // The build's lists (cmake/dsl_guides.cmake): the DSLs it embeds a guide for, and those whose guide
  // may still be missing.
  std::set<std::string> listed = names_in(MKB_DSL_GUIDE_NAMES), pending = names_in(MKB_GUIDES_PENDING);
  std::set<std::string> registered;
  for (const dsl *d : all_dsls()) {
    registered.insert(d->name());
    std::string_view guide = d->guide();
    if (guide.empty()) {
      EXPECT_TRUE(pending.count(d->name())) << d->name() << " has no guide";
      continue;
    }
    EXPECT_TRUE(guide.starts_with("# ")) << d->name() << ": a guide starts with its title";
    EXPECT_NE(guide.find("\n## Programming model\n"), std::string_view::npos) << d->name();
  }
  EXPECT_EQ(registered, listed) << "cmake/dsl_guides.cmake names every registered DSL, and only those";
  EXPECT_FALSE(find_dsl("cuda")->guide().empty());
  EXPECT_FALSE(find_dsl("cute")->guide().empty());
  EXPECT_NE(find_dsl("cuda")->guide(), find_dsl("cute")->guide()) << "each DSL its own";
}

} // namespace
} // namespace mkb
