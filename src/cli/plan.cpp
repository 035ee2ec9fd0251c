// `mkb plan`: a dry run. Lists the trials a configuration plans and the state of each in the ledger
// (done, skipped, stale, rerun, interrupted, pending), starting nothing.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "api/open_options.hpp"
#include "cli/commands.hpp"
#include "cli/not_found.hpp"
#include "core/error.hpp"
#include "protocol/dry_run.hpp"

namespace mkb::cli {

namespace {

struct plan_options {
  std::string suite, dsl_a, dsl_b, problems, families, trials, directions, model, ledger;
  uint32_t replicates = 0, shard_index = 0, shard_count = 0;
  bool rerun_stale = false, json = false;
};

int plan(const plan_options &o) {
  std::vector<std::string> dsls = dsl_names();
  for (const std::string *name : {&o.dsl_a, &o.dsl_b})
    if (!name->empty() && std::find(dsls.begin(), dsls.end(), *name) == dsls.end())
      return report_not_found("mkb plan", "DSL", *name, dsls, "this build");
  mkb_open_options options;
  mkb_open_options_init(&options, sizeof options);
  auto text = [](const std::string &s) { return s.empty() ? nullptr : s.c_str(); };
  options.suite_path = text(o.suite);
  options.dsl_a = text(o.dsl_a);
  options.dsl_b = text(o.dsl_b);
  options.problems = text(o.problems);
  options.families = text(o.families);
  options.trials = text(o.trials);
  options.directions = text(o.directions);
  options.model = text(o.model);
  options.ledger_path = text(o.ledger);
  options.replicates = o.replicates;
  options.shard_index = o.shard_index;
  options.shard_count = o.shard_count;
  if (o.rerun_stale) options.flags |= MKB_OPEN_RERUN_STALE;
  try {
    std::string out = dry_run(config_from_options(&options), !o.json);
    fmt::print("{}{}", out, o.json ? "\n" : "");
    return exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb plan: {}\n", e.what());
    return exit_failed; // a configuration a session would refuse
  }
}

// "I/N" with I < N, shards counting from 0; an empty string when it is one, else what is wrong.
std::string parse_shard(const std::string &text, uint32_t &index, uint32_t &count) {
  size_t slash = text.find('/');
  auto number = [](std::string_view part, uint32_t &out) {
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return !part.empty() && ec == std::errc() && end == part.data() + part.size();
  };
  if (slash == std::string::npos || !number(std::string_view(text).substr(0, slash), index) ||
      !number(std::string_view(text).substr(slash + 1), count) || count == 0 || index >= count)
    return fmt::format("expected I/N with 0 <= I < N, such as 0/4 (shards count from 0), got \"{}\"", text);
  return "";
}

} // namespace

void add_plan(CLI::App &mkb, int &exit_code) {
  CLI::App *command = mkb.add_subcommand(
      "plan", "a dry run: the trials a run would plan, and which are done, stale or pending. Starts nothing, writes "
              "nothing. Exit 1 for a configuration a session would refuse");
  auto o = std::make_shared<plan_options>();
  // Not ExistingFile: a ledger the run would create is a fine answer (nothing done yet).
  command->add_option("--ledger", o->ledger, "the ledger whose records say what is done (missing: nothing is)")
      ->type_name("FILE");
  command->add_option("--trials", o->trials, "shell globs over trial ids <problem>/<dsl>/<arm>/r<replicate>, "
                                             "comma-separated")->type_name("GLOBS");
  command->add_option("--directions", o->directions, "a_to_b, b_to_a or both, comma-separated")->type_name("LIST");
  command->add_option("--problems", o->problems, "problem ids or shell globs, comma-separated")->type_name("LIST");
  command->add_option("--families", o->families, "problem families, comma-separated")->type_name("LIST");
  command->add_option("--replicates", o->replicates, "replicates of each trial")->type_name("N")->check(CLI::Range(1, 1000));
  command->add_option("--model", o->model, "the model's name, as the ledger records it")->type_name("M");
  CLI::Option *dsl_a = command->add_option("--dsl-a", o->dsl_a, "the pair's first DSL (`mkb dsls` lists them)")->type_name("A");
  CLI::Option *dsl_b = command->add_option("--dsl-b", o->dsl_b, "the pair's second DSL")->type_name("B");
  dsl_a->needs(dsl_b);
  dsl_b->needs(dsl_a);
  command->add_option("--suite", o->suite, "the suite folder (default: the built-in suite)")->type_name("DIR")
      ->check(CLI::ExistingDirectory.description(""));
  command->add_option_function<std::string>(
               "--shard",
               [o](const std::string &text) {
                 if (std::string wrong = parse_shard(text, o->shard_index, o->shard_count); !wrong.empty())
                   throw CLI::ValidationError("--shard", wrong);
               },
               "only shard I of N: a balanced share in which each problem and replicate keeps all its arms "
               "(docs/SCALING.md)")
      ->type_name("I/N");
  command->add_flag("--rerun-stale", o->rerun_stale, "plan stale trials again");
  command->add_flag("--json", o->json, "print the plan as JSON");
  command->callback([o, &exit_code] { exit_code = plan(*o); });
}

} // namespace mkb::cli
