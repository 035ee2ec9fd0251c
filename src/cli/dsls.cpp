// `mkb dsls`: the DSLs registered in this build and whether each can be used here, as aligned columns
// or, with --json, as mkb_list_dsls gives them; with --guide, one DSL's guide.
#include <fmt/format.h>

#include <algorithm>

#include "api/open_options.hpp"
#include "cli/commands.hpp"
#include "cli/listings.hpp"
#include "cli/not_found.hpp"
#include "core/error.hpp"
#include "dsl/dsl.hpp"
#include "protocol/discovery.hpp"

namespace mkb::cli {

namespace {

struct dsls_options {
  bool json = false, no_sandbox = false;
  std::string guide; // a DSL's name: print its guide instead of the list
};

void print_columns(const toolchain_survey &t) {
  size_t name_width = std::string_view("dsl").size(), display_width = std::string_view("name").size();
  for (const dsl_availability &d : t.dsls) {
    name_width = std::max(name_width, d.name.size());
    display_width = std::max(display_width, d.display_name.size());
  }
  fmt::print("{:<{}}  {:<{}}  {:<6}  {}\n", "dsl", name_width, "name", display_width, "usable", "detail");
  for (const dsl_availability &d : t.dsls)
    fmt::print("{:<{}}  {:<{}}  {:<6}  {}\n", d.name, name_width, d.display_name, display_width, d.usable ? "yes" : "no",
               d.detail);
  fmt::print("\nPython DSLs run with {}; sandbox {}: {}\ndefault pair: {} and {}\n", t.python,
             t.sandbox_confined ? "usable" : t.sandbox_usable ? "off" : "NOT usable", t.sandbox_detail,
             t.default_pair.first, t.default_pair.second);
}

int print_guide(const std::string &name) {
  const dsl *d = find_dsl(name);
  if (!d) return report_not_found("mkb dsls", "DSL", name, dsl_names());
  std::string_view text = d->guide();
  if (text.empty()) {
    fmt::print(stderr, "mkb dsls: this build has no guide for '{}' (docs/DSLS.md, Guides)\n", name);
    return exit_environment;
  }
  fmt::print("{}", text);
  return exit_ok;
}

int list(const dsls_options &o) {
  if (!o.guide.empty()) return print_guide(o.guide);
  try {
    if (o.json) {
      fmt::print("{}\n", list_dsls_json(o.no_sandbox));
    } else {
      mkb_open_options options;
      mkb_open_options_init(&options, sizeof options);
      if (o.no_sandbox) options.flags |= MKB_OPEN_NO_SANDBOX;
      print_columns(survey_toolchains(config_from_options(&options)));
    }
    return exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb dsls: {}\n", e.what());
    return exit_environment;
  }
}

} // namespace

void add_dsls(CLI::App &mkb, int &exit_code) {
  CLI::App *command = mkb.add_subcommand("dsls", "list the DSLs registered in this build and whether each is usable here");
  auto o = std::make_shared<dsls_options>();
  command->add_flag("--json", o->json, "print mkb_list_dsls' JSON: the interpreter, the default pair, the sandbox and "
                                       "each DSL");
  command->add_flag("--no-sandbox", o->no_sandbox, "judge the Python DSLs as a session with --no-sandbox would");
  command->add_option("--guide", o->guide, "print the guide of this DSL (the file every task in it points to)")
      ->excludes("--json")
      ->excludes("--no-sandbox");
  command->callback([o, &exit_code] { exit_code = list(*o); });
}

} // namespace mkb::cli
