// mkb: the command-line face of libmkb. CLI11 parses the command line and writes each subcommand's
// --help; bad command lines get one error line, a pointer to --help, and exit code 2 (docs/CLI.md).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/not_found.hpp"
#include "core/error.hpp"
#include "mkb.h"

namespace {

using namespace mkb::cli;

// "mkb ledger dump": the subcommands the parse had reached.
std::string command_path(const CLI::App &mkb) {
  std::string path = mkb.get_name();
  for (const CLI::App *at = &mkb; !at->get_subcommands().empty();) {
    at = at->get_subcommands().front();
    path += " " + at->get_name();
  }
  return path;
}

// A word where a subcommand is expected that names none gets the list and the closest name, before
// CLI11 would call it an unexpected argument.
bool names_unknown_subcommand(const CLI::App &mkb, int argc, char **argv, int *exit_code) {
  const CLI::App *at = &mkb;
  std::string path = mkb.get_name();
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    std::vector<std::string> names;
    for (const CLI::App *sub : at->get_subcommands({})) names.push_back(sub->get_name());
    if (names.empty()) return false; // past the subcommands: a positional argument
    const CLI::App *next = nullptr;
    for (const CLI::App *sub : at->get_subcommands({}))
      if (sub->get_name() == argv[i]) next = sub;
    if (!next) {
      *exit_code = report_not_found(path, "command", argv[i], names);
      return true;
    }
    at = next;
    path += " " + at->get_name();
  }
  return false;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App mkb("mkb: the command-line face of libmkb, the MetaKernelBench library. docs/CLI.md describes each "
               "command and its exit codes.",
               "mkb");
  mkb.set_version_flag("--version", fmt::format("mkb {} (ABI {})", mkb_version(), mkb_abi_version()));
  mkb.require_subcommand(1);
  int exit_code = exit_ok;
  add_version(mkb, exit_code);
  add_doctor(mkb, exit_code);
  add_problems(mkb, exit_code);
  add_dsls(mkb, exit_code);
  add_suite(mkb, exit_code);
  add_check(mkb, exit_code);
  add_draw(mkb, exit_code);
  add_ledger(mkb, exit_code);
  add_score(mkb, exit_code);
  add_report(mkb, exit_code);
  add_skills(mkb, exit_code);
  add_plan(mkb, exit_code);

  if (int unknown = 0; names_unknown_subcommand(mkb, argc, argv, &unknown)) return unknown;
  try {
    mkb.parse(argc, argv);
  } catch (const CLI::CallForHelp &) {
    fmt::print("{}", mkb.help());
    return exit_ok;
  } catch (const CLI::CallForVersion &e) {
    fmt::print("{}\n", e.what());
    return exit_ok;
  } catch (const CLI::ParseError &e) {
    fmt::print(stderr, "{}: {}\nRun with --help for more information.\n", command_path(mkb), e.what());
    return exit_usage;
  } catch (const mkb::error &e) { // one a command did not expect: a suite that does not load, ...
    fmt::print(stderr, "{}: {}: {}\n", command_path(mkb), mkb_status_name(e.status()), e.what());
    return e.status() == MKB_ERR_WORKER ? exit_environment : exit_failed;
  }
  return exit_code;
}
