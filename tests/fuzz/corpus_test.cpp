// Every fuzz target over its seed corpus (tests/fuzz/corpus/<target>/) and its regression inputs
// (tests/fuzz/regressions/<target>/): inputs that once crashed the library stay harmless in every
// build, with or without clang. A crash here fails the test binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz/fuzz_targets.hpp"
#include "support/paths.hpp"

namespace mkb::fuzz {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> files_in(const fs::path &folder) {
  std::vector<fs::path> files;
  if (fs::is_directory(folder))
    for (const fs::directory_entry &e : fs::directory_iterator(folder))
      if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<uint8_t> contents(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class FuzzCorpus : public ::testing::TestWithParam<target> {};

TEST_P(FuzzCorpus, SurvivesItsSeedsAndRegressions) {
  const fs::path root = fs::path(mkb::testing::source_dir()) / "tests" / "fuzz";
  std::vector<fs::path> seeds = files_in(root / "corpus" / GetParam().name);
  EXPECT_FALSE(seeds.empty()) << "no seed corpus in " << (root / "corpus" / GetParam().name);
  std::vector<fs::path> inputs = files_in(root / "regressions" / GetParam().name);
  inputs.insert(inputs.end(), seeds.begin(), seeds.end());
  for (const fs::path &file : inputs) {
    SCOPED_TRACE(file.string());
    std::vector<uint8_t> data = contents(file);
    GetParam().run(bytes(data));
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzCorpus, ::testing::ValuesIn(targets),
                         [](const ::testing::TestParamInfo<target> &info) { return std::string(info.param.name); });

} // namespace
} // namespace mkb::fuzz
