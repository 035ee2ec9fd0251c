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
  // The build's list (cmake/dsl_guides.cmake): the DSLs it embeds a guide for.
  std::set<std::string> listed = names_in(MKB_DSL_GUIDE_NAMES);
  std::set<std::string> registered;
  for (const dsl *d : all_dsls()) {
    registered.insert(d->name());
    std::string_view guide = d->guide();
    ASSERT_FALSE(guide.empty()) << d->name() << " has no guide";
    EXPECT_TRUE(guide.starts_with("# ")) << d->name() << ": a guide starts with its title";
    EXPECT_NE(guide.find("\n## Programming model\n"), std::string_view::npos) << d->name();
  }
  EXPECT_EQ(registered, listed) << "cmake/dsl_guides.cmake names every registered DSL, and only those";
  std::set<std::string_view> texts;
  for (const dsl *d : all_dsls()) texts.insert(d->guide());
  EXPECT_EQ(texts.size(), registered.size()) << "each DSL its own";
}

} // namespace
} // namespace mkb
