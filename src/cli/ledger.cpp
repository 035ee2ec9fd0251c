// `mkb ledger dump FILE` and `mkb score LEDGER... [--json]`.
#include <fmt/format.h>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "protocol/ledger.hpp"
#include "protocol/scoring.hpp"

namespace mkb::cli {

int run_ledger(int argc, char **argv) {
  if (argc != 4 || std::string(argv[2]) != "dump") {
    fmt::print(stderr, "usage: mkb ledger dump FILE\n");
    return exit_usage;
  }
  try {
    for (const std::string &line : ledger::dump_json(argv[3])) fmt::print("{}\n", line);
    return exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb ledger: {}\n", e.what());
    return exit_failed;
  }
}

int run_score(int argc, char **argv) {
  arguments a;
  try {
    a = parse_arguments(argc, argv, 2, {}, {"json"});
    if (a.positional.empty()) throw std::invalid_argument("usage: mkb score LEDGER... [--json]");
  } catch (const std::exception &e) {
    fmt::print(stderr, "mkb score: {}\n", e.what());
    return exit_usage;
  }
  try {
    std::vector<trial_result> results;
    for (const std::string &path : a.positional) {
      ledger_contents c = ledger::read(path);
      if (c.dropped_torn_tail) fmt::print(stderr, "mkb score: {}: its last record is torn and was ignored\n", path);
      results.insert(results.end(), c.finished.begin(), c.finished.end());
    }
    fmt::print("{}", a.has("json") ? score_json(results) + "\n" : score_table(results));
    return exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb score: {}\n", e.what());
    return exit_failed;
  }
}

} // namespace mkb::cli
