// The mkb tool's subcommands. Each returns the process exit code (docs/CLI.md).
#pragma once

namespace mkb::cli {

int run_version(int argc, char **argv);
int run_doctor(int argc, char **argv);
int run_check(int argc, char **argv);
int run_draw(int argc, char **argv);
int run_problems(int argc, char **argv);
int run_suite(int argc, char **argv);
int run_ledger(int argc, char **argv);
int run_score(int argc, char **argv);
int run_plan(int argc, char **argv);

// Exit codes shared by the subcommands.
inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;      // the command ran and its answer is negative (a failing kernel, ...)
inline constexpr int exit_usage = 2;       // bad command line
inline constexpr int exit_environment = 3; // what the command needs is missing (no GPU, no worker, ...)

} // namespace mkb::cli
