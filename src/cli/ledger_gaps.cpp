#include "cli/ledger_gaps.hpp"

#include <fmt/format.h>

#include "protocol/staleness.hpp"

namespace mkb::cli {

bool report_gaps(std::FILE *to, const std::string &prefix, const std::string &path, const ledger_gaps &gaps,
                 size_t intact_records) {
  if (gaps.empty_file || (intact_records == 0 && !gaps.torn_tail && gaps.damage.empty()))
    fmt::print(to, "{}{}: empty ledger ({})\n", prefix, path, gaps.empty_file ? "0 bytes" : "no records");
  if (gaps.torn_tail)
    fmt::print(to, "{}{}: dropped a torn tail: {} bytes at byte {} ({}, what a crash while appending leaves)\n", prefix,
               path, gaps.torn_tail->bytes, gaps.torn_tail->offset, gaps.torn_tail->why);
  for (const ledger_frames::skipped_bytes &d : gaps.damage)
    fmt::print(to, "{}{}: DAMAGE: skipped {} bytes at byte {} ({})\n", prefix, path, d.bytes, d.offset, d.why);
  if (!gaps.damage.empty())
    fmt::print(to, "{}{}: the ledger is damaged; its {} intact records were read. `mkb ledger repair {} NEW` copies "
                   "them to a new ledger\n",
               prefix, path, intact_records, path);
  return !gaps.damage.empty();
}

std::vector<trial_result> read_finished_trials(std::FILE *to, const std::string &prefix,
                                               const std::vector<std::string> &paths, bool &damaged) {
  std::vector<trial_result> results;
  for (const std::string &path : paths) {
    ledger_contents c = ledger::read_intact(path);
    damaged |= report_gaps(to, prefix, path, c.gaps, c.records);
    std::vector<trial_result> latest = latest_with_staleness(c.finished, c.current); // judged per file
    results.insert(results.end(), latest.begin(), latest.end());
  }
  return results;
}

} // namespace mkb::cli
