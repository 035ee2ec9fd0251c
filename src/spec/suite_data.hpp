// The files of the suite that libmkb.so leaves out: each problem's stored solutions (and
// torch_crosscheck.py, the PyTorch cross-check that tests/gpu/cross_check_torch.py reads). An agent
// links the library and can read whatever it holds, so these stay on disk, where only tools look:
// `mkb suite validate`, the tests and the benchmark link this file; the library does not
// (src/CMakeLists.txt), and a session never needs a solution to grade.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "spec/problem.hpp"

namespace mkb {

class suite_data {
public:
  // Where to look. A folder the user gave (`--suite DIR`, whose problems lie on disk beside their
  // solutions, else $MKB_SUITE_DATA_DIR) is the only one tried, so that a wrong one is an error rather
  // than a silent fall-back. Without one: the problems/ folder of the source tree this build came from,
  // then the data folder installed beside the program, <prefix>/share/mkb/problems.
  static suite_data locate(const std::optional<std::filesystem::path> &given);

  explicit suite_data(std::vector<std::filesystem::path> candidates) : candidates_(std::move(candidates)) {}
  const std::vector<std::filesystem::path> &candidates() const { return candidates_; }

  // The folder of `p` in the first candidate holding p's spec.json as the suite loaded it: an edited or
  // older copy is another version of the problem, whose solutions need not fit. Throws
  // mkb::error(MKB_ERR_NOT_FOUND) naming every folder tried and why it was passed over.
  std::filesystem::path problem_folder(const problem &p) const;

  // The source of `s`, a solution of `p`. Throws MKB_ERR_NOT_FOUND as problem_folder() does, or naming
  // the file when it is missing or empty.
  std::string solution(const problem &p, const stored_solution &s) const;

private:
  std::vector<std::filesystem::path> candidates_;
};

} // namespace mkb
