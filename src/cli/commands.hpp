// The mkb tool's subcommands. Each adds itself to the tool's CLI11 app; when the command line names
// it, it runs and leaves the process exit code (docs/CLI.md) in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

namespace mkb::cli {

void add_version(CLI::App &mkb, int &exit_code);
void add_doctor(CLI::App &mkb, int &exit_code);
void add_problems(CLI::App &mkb, int &exit_code);
void add_dsls(CLI::App &mkb, int &exit_code);
void add_suite(CLI::App &mkb, int &exit_code);
void add_check(CLI::App &mkb, int &exit_code);
void add_draw(CLI::App &mkb, int &exit_code);
void add_ledger(CLI::App &mkb, int &exit_code);
void add_score(CLI::App &mkb, int &exit_code);
void add_report(CLI::App &mkb, int &exit_code);
void add_skills(CLI::App &mkb, int &exit_code);
void add_plan(CLI::App &mkb, int &exit_code);

// Exit codes shared by the subcommands.
inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;      // the command ran and its answer is negative (a failing kernel, ...)
inline constexpr int exit_usage = 2;       // bad command line, including a name that names nothing
inline constexpr int exit_environment = 3; // what the command needs is missing (no GPU, no worker, ...)

} // namespace mkb::cli
