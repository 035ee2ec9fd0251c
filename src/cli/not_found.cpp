#include "cli/not_found.hpp"

#include <fmt/format.h>

#include <optional>

#include "cli/commands.hpp"
#include "core/text.hpp"
#include "dsl/dsl.hpp"
#include "spec/suite.hpp"

namespace mkb::cli {

int report_not_found(const std::string &command, const std::string &kind, const std::string &wanted,
                     const std::vector<std::string> &names, const std::string &where) {
  std::optional<std::string> closest = closest_name(wanted, names);
  fmt::print(stderr, "{}: no {} '{}'{}{}\n", command, kind, wanted, where.empty() ? "" : " in " + where,
             closest ? fmt::format("; did you mean '{}'?", *closest) : "");
  fmt::print(stderr, "the {}s are:\n", kind);
  for (const std::string &name : names) fmt::print(stderr, "  {}\n", name);
  return exit_usage;
}

std::vector<std::string> problem_ids(const std::string &suite_path) {
  suite problems = suite::load(suite_path.empty() ? std::nullopt : std::optional<std::filesystem::path>(suite_path));
  std::vector<std::string> ids;
  for (const problem &p : problems.problems()) ids.push_back(p.id);
  return ids;
}

std::string suite_called(const std::string &origin) {
  return origin == "built-in" ? "the built-in suite" : "suite " + origin;
}

std::vector<std::string> dsl_names() {
  std::vector<std::string> names;
  for (const dsl *d : all_dsls()) names.push_back(d->name());
  return names;
}

} // namespace mkb::cli
