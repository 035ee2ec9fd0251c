// `mkb ledger dump FILE`, `mkb ledger repair DAMAGED NEW` and `mkb score LEDGER... [--json]`.
// What a command skipped goes to stderr, so that stdout stays JSON (or the score table).
#include <fmt/format.h>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "protocol/ledger.hpp"
#include "protocol/scoring.hpp"
#include "protocol/staleness.hpp"

namespace mkb::cli {

namespace {

constexpr const char *ledger_usage = "usage: mkb ledger dump FILE\n"
                                     "       mkb ledger repair DAMAGED NEW\n";

// Says what reading `path` left out, one line each, after `prefix`. Returns whether there was damage.
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

int dump(const std::string &path) {
  ledger_dump d = ledger::dump_json(path);
  bool unprintable = false;
  for (const printed_record &r : d.records) {
    if (!r.json.empty()) {
      fmt::print("{}\n", r.json);
      continue;
    }
    std::fflush(stdout); // keeps the two streams in file order on a terminal
    fmt::print(stderr, "mkb ledger: {}: record {} at offset {}: cannot print: {}\n", path, r.number, r.offset, r.why_not);
    unprintable = true;
  }
  std::fflush(stdout);
  bool damaged = report_gaps(stderr, "mkb ledger: ", path, d.gaps, d.records.size());
  return damaged || unprintable ? exit_failed : exit_ok;
}

int repair(const std::string &damaged, const std::string &repaired) {
  ledger_repair r = ledger::repair(damaged, repaired);
  fmt::print("kept {} intact records in {} ({} bytes)\n", r.kept_records, repaired, r.kept_bytes);
  if (r.dropped.torn_tail)
    fmt::print("dropped a torn tail: {} bytes at byte {} ({})\n", r.dropped.torn_tail->bytes, r.dropped.torn_tail->offset,
               r.dropped.torn_tail->why);
  for (const ledger_frames::skipped_bytes &d : r.dropped.damage)
    fmt::print("dropped {} damaged bytes at byte {} ({})\n", d.bytes, d.offset, d.why);
  if (!r.dropped.torn_tail && r.dropped.damage.empty()) fmt::print("nothing was damaged\n");
  return exit_ok;
}

} // namespace

int run_ledger(int argc, char **argv) {
  std::string action = argc > 2 ? argv[2] : "";
  if (!((action == "dump" && argc == 4) || (action == "repair" && argc == 5))) {
    fmt::print(stderr, "{}", ledger_usage);
    return exit_usage;
  }
  try {
    return action == "dump" ? dump(argv[3]) : repair(argv[3], argv[4]);
  } catch (const error &e) {
    fmt::print(stderr, "mkb ledger: {}\n", e.what());
    return exit_failed;
  }
}

int run_score(int argc, char **argv) {
  arguments a;
  try {
    a = parse_arguments(argc, argv, 2, {}, {"json", "with-stale"});
    if (a.positional.empty()) throw std::invalid_argument("usage: mkb score LEDGER... [--json] [--with-stale]");
  } catch (const std::exception &e) {
    fmt::print(stderr, "mkb score: {}\n", e.what());
    return exit_usage;
  }
  try {
    std::vector<trial_result> results;
    bool damaged = false;
    for (const std::string &path : a.positional) {
      ledger_contents c = ledger::read_intact(path);
      damaged |= report_gaps(stderr, "mkb score: ", path, c.gaps, c.records);
      std::vector<trial_result> latest = latest_with_staleness(c.finished, c.current); // judged per file
      results.insert(results.end(), latest.begin(), latest.end());
    }
    std::string scores = score_results(results, !a.has("json"), a.has("with-stale"));
    fmt::print("{}{}", scores, a.has("json") ? "\n" : "");
    return damaged ? exit_failed : exit_ok;
  } catch (const error &e) {
    fmt::print(stderr, "mkb score: {}\n", e.what());
    return exit_failed;
  }
}

} // namespace mkb::cli
