// The command line itself (src/cli/main.cpp): --help on every subcommand, one error line and exit 2
// for a bad command line, and an unknown command listed with the closest one.
#include <gtest/gtest.h>

#include "support/run_mkb.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

using testing::run_mkb;

struct help_case {
  std::vector<std::string> command;
  std::vector<std::string> mentions; // options or arguments its help must name
};

TEST(MainCli, EveryCommandHasHelpThatNamesItsOptions) {
  const help_case cases[] = {
      {{}, {"version", "doctor", "problems", "dsls", "suite", "check", "draw", "ledger", "score", "plan"}},
      {{"version"}, {"--json"}},
      {{"doctor"}, {"--json"}},
      {{"problems"}, {"--suite", "--json"}},
      {{"dsls"}, {"--json", "--no-sandbox"}},
      {{"suite"}, {"validate"}},
      {{"suite", "validate"}, {"--problem", "--dsl", "--json", "--compile-only", "--gpus", "--no-sandbox"}},
      {{"check"}, {"--problem", "--dsl", "FILE", "--json", "--target-arch", "--gpu-lock-dir"}},
      {{"draw"}, {"--problem", "--seed", "--out", "--gpu"}},
      {{"ledger"}, {"dump", "repair"}},
      {{"ledger", "dump"}, {"FILE"}},
      {{"ledger", "repair"}, {"DAMAGED", "NEW"}},
      {{"score"}, {"LEDGER", "--format", "--json", "--with-stale"}},
      {{"plan"}, {"--ledger", "--trials", "--dsl-a", "--dsl-b", "--replicates", "--json"}},
  };
  testing::temp_dir io;
  for (const help_case &c : cases) {
    std::vector<std::string> arguments = c.command;
    arguments.push_back("--help");
    std::string name = "mkb";
    for (const std::string &word : c.command) name += " " + word;
    auto r = run_mkb(io, arguments);
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("Usage: " + name), std::string::npos) << name << ":\n" << r.out;
    for (const std::string &m : c.mentions) EXPECT_NE(r.out.find(m), std::string::npos) << name << " --help lacks " << m;
    EXPECT_EQ(r.err, "") << name;
  }
}

TEST(MainCli, ABadCommandLineGetsOneErrorLineAPointerToHelpAndExit2) {
  testing::temp_dir io;
  std::string ledger = io.write("run.ledger", "").string();
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"score", "--bogus", ledger}, "mkb score: The following argument was not expected: --bogus"},
      {{"plan", "--replicates"}, "mkb plan: --replicates: 1 required"},
      {{"plan", "--replicates", "0"}, "mkb plan: --replicates: Value 0 not in range"},
      {{"check", "--dsl", "cuda", ledger}, "mkb check: --problem is required"},
      {{"ledger", "dump", ledger, "extra"}, "mkb ledger dump: The following argument was not expected: extra"},
      {{"score", "--format", "xml", ledger}, "mkb score: --format: xml not in {table,json,markdown,csv}"},
      {{"score", "--json", "--format", "csv", ledger}, "mkb score: --format excludes --json"},
      {{}, "mkb: A subcommand is required"},
  };
  for (const auto &[arguments, message] : cases) {
    auto r = run_mkb(io, arguments);
    EXPECT_EQ(r.exit_code, 2) << message;
    EXPECT_EQ(r.err.find(message), 0u) << r.err;
    EXPECT_NE(r.err.find("\nRun with --help for more information.\n"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(MainCli, AFileThatDoesNotExistIsABadCommandLineEverywhere) {
  testing::temp_dir io;
  std::string missing = (io.path() / "missing").string();
  const std::vector<std::string> commands[] = {
      {"check", "--problem", "p", "--dsl", "cuda", missing},
      {"ledger", "dump", missing},
      {"ledger", "repair", missing, (io.path() / "new").string()},
      {"score", missing},
      {"problems", "--suite", missing},
      {"suite", "validate", "--suite", missing},
      {"draw", "--problem", "p", "--seed", "1", "--out", io.path().string(), "--suite", missing},
      {"plan", "--suite", missing},
  };
  for (const std::vector<std::string> &arguments : commands) {
    auto r = run_mkb(io, arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments[0] << ": " << r.err;
    EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  }
}

TEST(MainCli, AnUnknownCommandIsListedWithTheClosestOne) {
  testing::temp_dir io;
  auto r = run_mkb(io, {"chek", "--problem", "p"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find("mkb: no command 'chek'; did you mean 'check'?\n"), 0u) << r.err;
  EXPECT_NE(r.err.find("\n  plan\n"), std::string::npos) << "the list of commands: " << r.err;

  auto nested = run_mkb(io, {"ledger", "dumb", "x"});
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_EQ(nested.err.find("mkb ledger: no command 'dumb'; did you mean 'dump'?\n"), 0u) << nested.err;

  auto far = run_mkb(io, {"frobnicate"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err.find("mkb: no command 'frobnicate'\n"), 0u) << "no suggestion when nothing is close: " << far.err;
}

} // namespace
} // namespace mkb
