// `mkb score LEDGER...`: the scores of the finished trials of one or more ledgers, as a table, JSON,
// Markdown or CSV. What reading a ledger left out goes to stderr.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/ledger_gaps.hpp"
#include "cli/score_formats.hpp"
#include "core/error.hpp"
#include "protocol/scoring.hpp"

namespace mkb::cli {

namespace {

struct score_options {
  std::vector<std::string> ledgers;
  std::string format = "table";
  bool json = false, with_stale = false;
};

std::string render(const score_report &report, const std::string &format) {
  if (format == "json") return scores_json(report) + "\n";
  if (format == "markdown") return scores_markdown(report);
  if (format == "csv") return scores_csv(report);
  return scores_table(report);
}

int score(const score_options &o) {
  try {
    bool damaged = false;
    std::vector<trial_result> results = read_finished_trials(stderr, "mkb score: ", o.ledgers, damaged);
    score_settings settings;
    settings.include_stale = o.with_stale;
    fmt::print("{}", render(compute_scores(results, settings), o.json ? "json" : o.format));
    return damaged ? exit_failed : exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb score: {}\n", e.what());
    return exit_failed;
  }
}

} // namespace

void add_score(CLI::App &mkb, int &exit_code) {
  CLI::App *command = mkb.add_subcommand(
      "score", "score the finished trials of one or more ledgers (docs/SCORING.md). Exit 1 when a ledger is damaged "
               "(its intact records are still scored)");
  auto o = std::make_shared<score_options>();
  command->add_option("LEDGER", o->ledgers, "the ledgers")->required()->check(CLI::ExistingFile.description(""));
  CLI::Option *format = command->add_option("--format", o->format, "table (the default), json (every figure), markdown "
                                                                   "or csv (a row per direction and group)")
                            ->type_name("FORMAT")->check(CLI::IsMember({"table", "json", "markdown", "csv"}));
  command->add_flag("--json", o->json, "the same as --format json")->excludes(format);
  command->add_flag("--with-stale", o->with_stale, "score stale trials too (they are always listed)");
  command->callback([o, &exit_code] { exit_code = score(*o); });
}

} // namespace mkb::cli
