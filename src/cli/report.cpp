// `mkb report LEDGER... --out DIR`: the scores of one or more ledgers as an HTML page with the
// paper's figures, every table beside it as CSV and JSON (docs/REPORT.md). What reading a ledger left
// out goes to stderr.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/ledger_gaps.hpp"
#include "core/error.hpp"
#include "report/report_page.hpp"

namespace mkb::cli {

namespace {

struct report_options {
  std::vector<std::string> ledgers;
  std::string out;
  bool with_stale = false;
};

int report(const report_options &o) {
  try {
    bool damaged = false;
    report::report_input in;
    in.ledgers = o.ledgers;
    in.results = read_finished_trials(stderr, "mkb report: ", o.ledgers, damaged);
    score_settings settings;
    settings.include_stale = o.with_stale;
    in.scores = compute_scores(in.results, settings);
    std::vector<std::filesystem::path> written = report::write_report(o.out, in);
    fmt::print("{}\n{} files written to {}\n", written.front().string(), written.size(), o.out);
    return damaged ? exit_failed : exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb report: {}\n", e.what());
    return exit_failed;
  }
}

} // namespace

void add_report(CLI::App &mkb, int &exit_code) {
  CLI::App *command = mkb.add_subcommand(
      "report", "the scores of one or more ledgers as an HTML page with figures, and every table as CSV and JSON "
                "(docs/REPORT.md). Exit 1 when a ledger is damaged (its intact records are still reported)");
  auto o = std::make_shared<report_options>();
  command->add_option("LEDGER", o->ledgers, "the ledgers (one model each, or several: models side by side)")
      ->required()->check(CLI::ExistingFile.description(""));
  command->add_option("--out", o->out, "the folder to write into (made if missing; files of the same names are replaced)")
      ->required()->type_name("DIR");
  command->add_flag("--with-stale", o->with_stale, "score stale trials too (they are always listed)");
  command->callback([o, &exit_code] { exit_code = report(*o); });
}

} // namespace mkb::cli
