#include "spec/suite.hpp"

#include <gtest/gtest.h>

#include "core/embedded_files.hpp"
#include "core/error.hpp"
#include "spec/file_source.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::temp_dir;
using testing::tiny_spec;
using testing::write_problem;

class SuiteSelection : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char *id : {"rmsnorm_a", "rmsnorm_b", "layernorm_a"}) write_problem(dir_, "norm", id, tiny_spec(id, "norm"));
    write_problem(dir_, "moe", "routing_a", tiny_spec("routing_a", "moe"));
    for (const char *id : {"extra_a", "extra_b"}) write_problem(dir_, "extra", id, tiny_spec(id, "extra"));
    suite_ = std::make_unique<suite>(suite::load(dir_.path()));
  }

  std::vector<std::string> ids(const std::vector<std::string> &patterns, const std::vector<std::string> &families = {}) {
    std::vector<std::string> out;
    for (const problem *p : suite_->select(patterns, families)) out.push_back(p->id);
    return out;
  }

  // The status and text select() fails with.
  std::pair<mkb_status, std::string> failure(const std::vector<std::string> &patterns,
                                             const std::vector<std::string> &families = {}) {
    try {
      suite_->select(patterns, families);
    } catch (const error &e) {
      return {e.status(), e.what()};
    }
    return {MKB_OK, "selected"};
  }

  temp_dir dir_;
  std::unique_ptr<suite> suite_;
};

TEST_F(SuiteSelection, IdsGlobsAndFamilies) {
  using list = std::vector<std::string>;
  EXPECT_EQ(ids({}), (list{"routing_a", "layernorm_a", "rmsnorm_a", "rmsnorm_b"}));
  EXPECT_EQ(ids({"rmsnorm_b", "routing_a"}), (list{"routing_a", "rmsnorm_b"}));
  EXPECT_EQ(ids({"rms*"}), (list{"rmsnorm_a", "rmsnorm_b"}));
  EXPECT_EQ(ids({"*norm_[ab]"}), (list{"layernorm_a", "rmsnorm_a", "rmsnorm_b"}));
  EXPECT_EQ(ids({"?msnorm_?"}), (list{"rmsnorm_a", "rmsnorm_b"}));
  EXPECT_EQ(ids({}, {"moe"}), (list{"routing_a"}));
  EXPECT_EQ(ids({"*_a"}, {"norm"}), (list{"layernorm_a", "rmsnorm_a"}));
}

// Regression: "known,TYPO" dropped the typo silently.
TEST_F(SuiteSelection, WhatMatchesNothingIsNamed) {
  auto [status, text] = failure({"rmsnorm_a", "rmsnrom_b"});
  EXPECT_EQ(status, MKB_ERR_NOT_FOUND);
  EXPECT_NE(text.find("'rmsnrom_b'"), std::string::npos) << text;
  EXPECT_NE(text.find("did you mean 'rmsnorm_b'?"), std::string::npos) << text;

  std::tie(status, text) = failure({"TYPO"});
  EXPECT_EQ(status, MKB_ERR_NOT_FOUND);
  EXPECT_NE(text.find("'TYPO'"), std::string::npos) << text;
  EXPECT_EQ(text.find("did you mean"), std::string::npos) << "nothing is close to TYPO: " << text;

  std::tie(status, text) = failure({"gelu_*"});
  EXPECT_EQ(status, MKB_ERR_NOT_FOUND);
  EXPECT_NE(text.find("'gelu_*'"), std::string::npos) << text;

  std::tie(status, text) = failure({}, {"norm", "mo"});
  EXPECT_EQ(status, MKB_ERR_NOT_FOUND);
  EXPECT_NE(text.find("family 'mo'; did you mean 'moe'?"), std::string::npos) << text;

  std::tie(status, text) = failure({"routing_a"}, {"norm"});
  EXPECT_EQ(status, MKB_ERR_CONFIG) << "each matches, but no problem is in both";
  EXPECT_NE(text.find("routing_a"), std::string::npos) << text;
}

// The extra family is not the original benchmark's: a default selection leaves it out.
TEST_F(SuiteSelection, DefaultsLeaveTheExtraFamilyOut) {
  using list = std::vector<std::string>;
  EXPECT_EQ(ids({}), (list{"routing_a", "layernorm_a", "rmsnorm_a", "rmsnorm_b"}));
  EXPECT_EQ(ids({"*"}), (list{"routing_a", "layernorm_a", "rmsnorm_a", "rmsnorm_b"}));
  EXPECT_EQ(ids({"*_a"}), (list{"routing_a", "layernorm_a", "rmsnorm_a"}));
}

// An agent that asks for an extra problem by its id gets it, alone or beside others.
TEST_F(SuiteSelection, AnExactIdSelectsAnExtraProblem) {
  using list = std::vector<std::string>;
  EXPECT_EQ(ids({"extra_b"}), (list{"extra_b"}));
  EXPECT_EQ(ids({"rmsnorm_a", "extra_a"}), (list{"extra_a", "rmsnorm_a"}));
  EXPECT_EQ(ids({"*", "extra_a"}), (list{"extra_a", "routing_a", "layernorm_a", "rmsnorm_a", "rmsnorm_b"}));
}

// A glob is no name: one that matches only extra problems says why it selects nothing.
TEST_F(SuiteSelection, AGlobDoesNotSelectExtraProblems) {
  for (const std::vector<std::string> &patterns : {std::vector<std::string>{"extra_*"}, {"extra_[a]"}, {"rmsnorm_a", "extra_?"}}) {
    auto [status, text] = failure(patterns);
    EXPECT_EQ(status, MKB_ERR_CONFIG) << patterns.back() << ": " << text;
    EXPECT_NE(text.find("'" + patterns.back() + "' matches only extra problems"), std::string::npos) << text;
    EXPECT_NE(text.find("exact id or families holds 'extra'"), std::string::npos) << text;
  }
}

TEST_F(SuiteSelection, NamingTheExtraFamilySelectsItsProblems) {
  using list = std::vector<std::string>;
  EXPECT_EQ(ids({}, {"extra"}), (list{"extra_a", "extra_b"}));
  EXPECT_EQ(ids({"extra_*"}, {"extra"}), (list{"extra_a", "extra_b"}));
  EXPECT_EQ(ids({"*_a"}, {"norm", "extra"}), (list{"extra_a", "layernorm_a", "rmsnorm_a"}));
}

TEST(SuiteLoad, ASuiteOfExtraProblemsAloneSaysWhyADefaultSelectionIsEmpty) {
  temp_dir dir;
  write_problem(dir, "extra", "extra_a", tiny_spec("extra_a", "extra"));
  suite s = suite::load(dir.path());
  EXPECT_EQ(s.select({"extra_a"}, {}).size(), 1u);
  try {
    s.select({}, {});
    ADD_FAILURE() << "a default selection of extra problems alone selected something";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_CONFIG) << e.what();
    EXPECT_NE(std::string(e.what()).find("holds only extra problems"), std::string::npos) << e.what();
  }
}

// problems/_template lies beside the suite: loading problems/ leaves it out, naming it loads it.
TEST(SuiteLoad, FoldersSetAsideAreNoPartOfTheSuite) {
  temp_dir dir;
  write_problem(dir, "norm", "rmsnorm", tiny_spec("rmsnorm", "norm"));
  write_problem(dir, "norm", "_draft", tiny_spec("_draft", "norm"));
  write_problem(dir, "_template/example", "tiny", tiny_spec("tiny", "example"));
  suite s = suite::load(dir.path());
  ASSERT_EQ(s.problems().size(), 1u);
  EXPECT_EQ(s.problems()[0].id, "rmsnorm");
  EXPECT_EQ(suite::load(dir.path() / "_template").problems().at(0).folder, "example/tiny");

  temp_dir drafts_only;
  write_problem(drafts_only, "norm", "_draft", tiny_spec("_draft", "norm"));
  try {
    suite::load(drafts_only.path());
    ADD_FAILURE() << "a suite of drafts alone loaded";
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_NOT_FOUND) << e.what();
  }
}

// libmkb embeds what grading needs and nothing an agent could copy: no stored solution, no PyTorch
// cross-check (tests/api/solutions_absent.py checks the library file's bytes).
TEST(BuiltInSuite, EmbedsTheGradingFilesAndNoSolutionNorCrossCheck) {
  suite s = suite::load(std::nullopt);
  std::span<const embedded_file> files = embedded::builtin_suite();
  for (const problem &p : s.problems()) {
    EXPECT_FALSE(p.baseline_source.empty() || p.anchor_source.empty() || p.reference.empty()) << p.id;
    for (const stored_solution &solution : p.solutions)
      EXPECT_EQ(find_embedded(files, p.folder + "/" + solution.file), nullptr) << p.folder << "/" << solution.file;
  }
  for (const embedded_file &file : files) {
    EXPECT_EQ(file.path.find("/solutions/"), std::string_view::npos) << file.path;
    EXPECT_FALSE(file.path.ends_with("/torch_crosscheck.py")) << file.path;
    EXPECT_FALSE(is_set_aside(file.path)) << file.path << ": set aside, no part of the suite";
  }
}

// The GPU tests submit each stored solution, the cuda one as the known-good kernel of every problem.
TEST(BuiltInSuite, EveryProblemDeclaresACudaSolution) {
  const suite s = suite::load(std::nullopt);
  for (const problem &p : s.problems())
    EXPECT_NE(p.solution_for("cuda"), nullptr) << p.id;
}

} // namespace
} // namespace mkb
