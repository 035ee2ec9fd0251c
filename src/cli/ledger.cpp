// `mkb ledger dump FILE`, `mkb ledger repair DAMAGED NEW` and `mkb ledger merge NEW LEDGER...`. What a
// command skipped goes to stderr, so that stdout stays JSON.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/ledger_gaps.hpp"
#include "core/error.hpp"
#include "protocol/ledger.hpp"

namespace mkb::cli {

namespace {

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

// Like repair, over several inputs; what reading each left out goes to stderr, and damage is exit 1
// (the intact records are still merged).
int merge(const std::string &merged, const std::vector<std::string> &inputs) {
  std::vector<std::filesystem::path> paths(inputs.begin(), inputs.end());
  ledger_merge m = ledger::merge(paths, merged);
  bool damaged = false;
  for (size_t i = 0; i < inputs.size(); ++i)
    damaged |= report_gaps(stderr, "mkb ledger merge: ", inputs[i], m.inputs[i].dropped, m.inputs[i].records);
  fmt::print("merged {} intact records of {} ledgers into {} ({} bytes)\n", m.kept_records, inputs.size(), merged,
             m.kept_bytes);
  return damaged ? exit_failed : exit_ok;
}

// A ledger that cannot be read or written is a negative answer (exit 1), as damage is.
template <typename Action> int answered(Action action) {
  try {
    return action();
  } catch (const error &e) {
    fmt::print(stderr, "mkb ledger: {}\n", e.what());
    return exit_failed;
  }
}

} // namespace

void add_ledger(CLI::App &mkb, int &exit_code) {
  CLI::App *ledger = mkb.add_subcommand("ledger", "print, repair or merge ledgers");
  ledger->require_subcommand(1);

  auto path = std::make_shared<std::string>();
  CLI::App *dump_command = ledger->add_subcommand(
      "dump", "print every intact record as a line of JSON, verdicts and arms by name. Exit 1 when it skipped damage "
              "or could not print a record");
  dump_command->add_option("FILE", *path, "the ledger")->required()->check(CLI::ExistingFile.description(""));
  dump_command->callback([path, &exit_code] { exit_code = answered([&] { return dump(*path); }); });

  auto damaged = std::make_shared<std::string>(), repaired = std::make_shared<std::string>();
  CLI::App *repair_command = ledger->add_subcommand(
      "repair", "copy every intact record of a damaged ledger to a new file (never over an existing one). Exit 1 when "
                "it cannot");
  repair_command->add_option("DAMAGED", *damaged, "the damaged ledger, left as it is")->required()->check(CLI::ExistingFile.description(""));
  repair_command->add_option("NEW", *repaired, "the new ledger to write")->required();
  repair_command->callback([damaged, repaired, &exit_code] {
    exit_code = answered([&] { return repair(*damaged, *repaired); });
  });

  auto merged = std::make_shared<std::string>();
  auto inputs = std::make_shared<std::vector<std::string>>();
  CLI::App *merge_command = ledger->add_subcommand(
      "merge", "copy every intact record of several ledgers (the shards of a run) into one new file (never over an "
               "existing one; docs/SCALING.md). Exit 1 when it cannot, or when an input is damaged (its intact records "
               "are still merged)");
  merge_command->add_option("NEW", *merged, "the merged ledger to write")->required();
  merge_command->add_option("LEDGER", *inputs, "the ledgers to merge, in order")->required()->check(CLI::ExistingFile.description(""));
  merge_command->callback([merged, inputs, &exit_code] { exit_code = answered([&] { return merge(*merged, *inputs); }); });
}

} // namespace mkb::cli
