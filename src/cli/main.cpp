// mkb: the command-line face of libmkb.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/commands.hpp"

namespace {

void usage(FILE *out) {
  std::fputs("usage: mkb <command> [options]\n"
             "\n"
             "commands:\n"
             "  version                     library, ABI and NVRTC versions\n"
             "  doctor                      check the compiler, the driver, the GPUs and the DSL toolchains\n"
             "  problems [--suite DIR]      list the suite's problems\n"
             "  suite validate [--problem ID] [--suite DIR] [--gpus LIST]\n"
             "                              prove each problem sound: solutions, degenerate outputs, sensitivity\n"
             "  check --problem ID --dsl DSL FILE [--json] [--suite DIR] [--gpus LIST] [--compile-only]\n"
             "        [--no-sandbox]\n"
             "                              evaluate one kernel and print its report\n"
             "  draw --problem ID --seed S --out DIR [--suite DIR] [--gpu N]\n"
             "                              write one draw's inputs and the anchor's outputs\n"
             "  ledger dump FILE            print every intact ledger record as a line of JSON\n"
             "  ledger repair DAMAGED NEW   copy every intact record of a damaged ledger to a new file\n"
             "  score LEDGER... [--json] [--with-stale]\n"
             "                              score the finished attempts of one or more ledgers\n"
             "  plan [--ledger FILE] [--trials GLOBS] [--directions LIST] [--problems LIST] [--families LIST]\n"
             "       [--replicates N] [--model M] [--dsl-a A --dsl-b B] [--suite DIR] [--rerun-stale] [--json]\n"
             "                              a dry run: the trials a run would plan, and which are done, stale or\n"
             "                              pending\n"
             "\n"
             "docs/CLI.md describes each command and its exit codes.\n",
             out);
}

} // namespace

int main(int argc, char **argv) {
  using namespace mkb::cli;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? exit_usage : exit_ok;
  }
  std::string command = argv[1];
  if (command == "version" || command == "--version") return run_version(argc, argv);
  if (command == "doctor") return run_doctor(argc, argv);
  if (command == "check") return run_check(argc, argv);
  if (command == "draw") return run_draw(argc, argv);
  if (command == "problems") return run_problems(argc, argv);
  if (command == "suite") return run_suite(argc, argv);
  if (command == "ledger") return run_ledger(argc, argv);
  if (command == "score") return run_score(argc, argv);
  if (command == "plan") return run_plan(argc, argv);
  std::fprintf(stderr, "mkb: unknown command '%s'\n\n", command.c_str());
  usage(stderr);
  return exit_usage;
}
