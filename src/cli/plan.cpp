// mkb plan: a dry run. Lists the trials a configuration plans and the state of each in the ledger
// (done, skipped, stale, rerun, interrupted, pending), starting nothing.
#include <fmt/format.h>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "protocol/dry_run.hpp"

namespace mkb::cli {

int run_plan(int argc, char **argv) {
  arguments a;
  try {
    a = parse_arguments(argc, argv, 2,
                        {"suite", "dsl-a", "dsl-b", "problems", "families", "trials", "directions", "replicates", "model",
                         "ledger"},
                        {"json", "rerun-stale"});
    if (!a.positional.empty()) throw std::invalid_argument("mkb plan takes no positional argument");
  } catch (const std::exception &e) {
    fmt::print(stderr, "mkb plan: {}\n", e.what());
    return exit_usage;
  }
  mkb_open_options o;
  mkb_open_options_init(&o, sizeof o);
  // The strings live in `a` for the whole call.
  auto text = [&](const char *name) { return a.values.count(name) ? a.values.at(name).c_str() : nullptr; };
  o.suite_path = text("suite");
  o.dsl_a = text("dsl-a");
  o.dsl_b = text("dsl-b");
  o.problems = text("problems");
  o.families = text("families");
  o.trials = text("trials");
  o.directions = text("directions");
  o.model = text("model");
  o.ledger_path = text("ledger");
  if (a.has("rerun-stale")) o.flags |= MKB_OPEN_RERUN_STALE;
  if (auto r = a.get("replicates")) {
    try {
      size_t end = 0;
      unsigned long n = std::stoul(*r, &end);
      if (end != r->size() || n == 0 || n > 1000) throw std::invalid_argument(*r);
      o.replicates = static_cast<uint32_t>(n);
    } catch (const std::exception &) {
      fmt::print(stderr, "mkb plan: --replicates: expected 1 to 1000, got '{}'\n", *r);
      return exit_usage;
    }
  }
  try {
    std::string out = dry_run(config_from_options(&o), !a.has("json"));
    fmt::print("{}{}", out, a.has("json") ? "\n" : "");
    return exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb plan: {}\n", e.what());
    return exit_failed;
  }
}

} // namespace mkb::cli
