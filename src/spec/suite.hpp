// The set of problems a session draws from: the suite built into the library, or a folder.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spec/problem.hpp"

namespace mkb {

class suite {
public:
  // Loads every problem; the first malformed spec throws mkb::error(MKB_ERR_SPEC) naming it.
  // A missing folder throws MKB_ERR_NOT_FOUND.
  static suite load(const std::optional<std::filesystem::path> &root);

  const std::vector<problem> &problems() const { return problems_; }
  const problem *find(std::string_view id) const;
  // The problems whose id matches one of `patterns` (ids or shell globs, fnmatch(3)) and whose family
  // is one of `families`, in suite order; an empty list does not restrict. A pattern that matches no
  // problem, or a family the suite lacks, throws MKB_ERR_NOT_FOUND naming it (and the closest name);
  // lists that match only apart from each other throw MKB_ERR_CONFIG.
  std::vector<const problem *> select(const std::vector<std::string> &patterns,
                                      const std::vector<std::string> &families) const;
  // Where it came from: "built-in" or the folder.
  const std::string &origin() const { return origin_; }

private:
  std::vector<problem> problems_;
  std::string origin_;
};

} // namespace mkb
