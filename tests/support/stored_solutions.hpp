// The suite's stored solutions, for tests that submit a known-good kernel. libmkb embeds none
// (spec/suite_data.hpp), so they come from the source tree's problems/ folder (support/paths.hpp).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "spec/suite_data.hpp"
#include "support/paths.hpp"

namespace mkb::testing {

inline suite_data source_tree_suite_data() { return suite_data::locate(std::filesystem::path(source_dir()) / "problems"); }

// The source of p's solution in `dsl`; throws when the spec declares none.
inline std::string stored_solution_source(const problem &p, std::string_view dsl) {
  const stored_solution *s = p.solution_for(dsl);
  if (!s) throw std::invalid_argument("problem '" + p.id + "' has no stored solution in " + std::string(dsl));
  return source_tree_suite_data().solution(p, *s);
}

} // namespace mkb::testing
