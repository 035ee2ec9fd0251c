// The set of problems a session draws from: the suite built into the library, or a folder.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/problem.hpp"

namespace mkb {

// The family of problems that are not the original benchmark's (docs/PROBLEMS.md): a selection
// without families leaves them out, so that a default session runs the original's suite.
inline constexpr std::string_view extra_family = "extra";

class suite {
public:
  // Loads every problem; the first malformed spec throws mkb::error(MKB_ERR_SPEC) naming it.
  // A missing folder throws MKB_ERR_NOT_FOUND.
  static suite load(const std::optional<std::filesystem::path> &root);

  const std::vector<problem> &problems() const { return problems_; }
  const problem *find(std::string_view id) const;
  // Every family once, in suite order.
  std::vector<std::string> families() const;
  // The problems whose id matches one of `patterns` (ids or shell globs, fnmatch(3)) and whose family
  // is one of `families`, in suite order; an empty list does not restrict, except that with no
  // families a problem of extra_family is selected only when a pattern is its exact id (not a glob).
  // A pattern that matches no problem, or a family the suite lacks, throws MKB_ERR_NOT_FOUND naming it
  // (and the closest name); a glob that matches only extra problems left out, and lists that match
  // only apart from each other, throw MKB_ERR_CONFIG.
  std::vector<const problem *> select(const std::vector<std::string> &patterns,
                                      const std::vector<std::string> &families) const;
  // Where it came from: "built-in" or the folder.
  const std::string &origin() const { return origin_; }

private:
  std::vector<problem> problems_;
  std::string origin_;
};

} // namespace mkb
