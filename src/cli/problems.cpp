// `mkb problems`: the suite's problems, as aligned columns or, with --json, as mkb_list_problems
// gives them.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/listings.hpp"
#include "core/error.hpp"
#include "spec/suite.hpp"

namespace mkb::cli {

namespace {

struct problems_options {
  std::string suite;
  bool json = false;
};

constexpr const char *extra_mark = " (extra: not in default sessions; name it by id or select its family)";

void print_columns(const suite &problems) {
  size_t family_width = std::string_view("family").size(), id_width = std::string_view("problem").size();
  for (const problem &p : problems.problems()) {
    family_width = std::max(family_width, p.family.size());
    id_width = std::max(id_width, p.id.size());
  }
  fmt::print("{:<{}}  {:<{}}  {}\n", "family", family_width, "problem", id_width, "description");
  // Every problem is listed; the extra ones say that a default session leaves them out.
  for (const problem &p : problems.problems())
    fmt::print("{:<{}}  {:<{}}  {}{}\n", p.family, family_width, p.id, id_width, p.description,
               p.family == extra_family ? extra_mark : "");
}

int list(const problems_options &o) {
  try {
    if (o.json) {
      fmt::print("{}\n", list_problems_json(o.suite));
      return exit_ok;
    }
    print_columns(suite::load(o.suite.empty() ? std::nullopt : std::optional<std::filesystem::path>(o.suite)));
    return exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb problems: {}\n", e.what());
    return exit_failed; // a malformed spec: the suite's answer is negative
  }
}

} // namespace

void add_problems(CLI::App &mkb, int &exit_code) {
  CLI::App *command = mkb.add_subcommand("problems", "list the suite's problems. Exit 1 when a spec is malformed");
  auto o = std::make_shared<problems_options>();
  command->add_option("--suite", o->suite, "the suite folder (default: the built-in suite)")->type_name("DIR")
      ->check(CLI::ExistingDirectory.description(""));
  command->add_flag("--json", o->json, "print mkb_list_problems' JSON: each problem's id, family, description, inputs "
                                       "and outputs");
  command->callback([o, &exit_code] { exit_code = list(*o); });
}

} // namespace mkb::cli
