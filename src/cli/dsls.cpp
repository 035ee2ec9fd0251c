// `mkb dsls`: the DSLs registered in this build and whether each can be used here.
#include <fmt/format.h>

#include <algorithm>

#include "cli/commands.hpp"
#include "cli/listings.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "dsl/dsl.hpp"

namespace mkb::cli {

namespace {

struct dsls_options {
  bool json = false, no_sandbox = false;
};

int list(const dsls_options &o) {
  if (o.json) {
    fmt::print("{}\n", list_dsls_json(o.no_sandbox));
    return exit_ok;
  }
  frontend_environment env;
  if (auto python = environment("MKB_PYTHON")) env.python = *python;
  env.sandbox = !o.no_sandbox;
  size_t name_width = std::string_view("dsl").size(), display_width = std::string_view("name").size();
  for (const dsl *d : all_dsls()) {
    name_width = std::max(name_width, d->name().size());
    display_width = std::max(display_width, d->display_name().size());
  }
  fmt::print("{:<{}}  {:<{}}  {:<10}  {}\n", "dsl", name_width, "name", display_width, "usable", "detail");
  for (const dsl *d : all_dsls()) {
    std::string why;
    bool usable = d->usable(env, &why);
    fmt::print("{:<{}}  {:<{}}  {:<10}  {}\n", d->name(), name_width, d->display_name(), display_width,
               usable ? "yes" : "no", why);
  }
  return exit_ok;
}

} // namespace

void add_dsls(CLI::App &mkb, int &exit_code) {
  CLI::App *command = mkb.add_subcommand("dsls", "list the DSLs registered in this build and whether each is usable here");
  auto o = std::make_shared<dsls_options>();
  command->add_flag("--json", o->json, "print mkb_list_dsls' JSON: the interpreter, the default pair, the sandbox and "
                                       "each DSL");
  command->add_flag("--no-sandbox", o->no_sandbox, "judge the Python DSLs as a session with --no-sandbox would");
  command->callback([o, &exit_code] { exit_code = list(*o); });
}

} // namespace mkb::cli
