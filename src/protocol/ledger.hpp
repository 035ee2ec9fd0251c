// The ledger: an append-only file of flatbuffers records (ledger.fbs), each framed (ledger_frames.hpp)
// and synced to disk before the call that wrote it returns. docs/PROTOCOL.md has the format and the
// damage rules. One session holds a ledger at a time (an advisory lock).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "eval/report.hpp"
#include "protocol/ledger_frames.hpp"
#include "protocol/trial.hpp"

namespace mkb {

// What a reader left out of a ledger file.
struct ledger_gaps {
  std::optional<ledger_frames::skipped_bytes> torn_tail; // an incomplete last record: a crash while appending
  std::vector<ledger_frames::skipped_bytes> damage;      // anything else that is not an intact record
  bool empty_file = false;                                // zero bytes
};

// The fingerprints a session planned with, by (problem, DSL).
using planned_prints = std::map<std::pair<std::string, std::string>, fingerprints>;

// One compile check as the ledger keeps it.
struct compile_check_record {
  trial_key key;
  int index = 0; // 1-based in its attempt
  int verdict = 0;
  std::string source_hash;
  double wall_seconds = 0, unix_time = 0;
};

struct ledger_contents {
  std::vector<trial_result> finished;           // every TrialFinished, in file order
  std::vector<compile_check_record> compile_checks; // every CompileChecked, in file order
  std::set<trial_key> started;                  // every TrialStarted
  std::map<trial_key, fingerprints> started_prints;
  planned_prints current;                       // of the latest SessionOpened: what "stale" is judged by
  std::string provenance;                       // of the latest SessionOpened (JSON)
  size_t records = 0;                           // intact records read
  ledger_gaps gaps;
};

// One intact record as `mkb ledger dump` prints it.
struct printed_record {
  size_t number = 0; // 1-based, among the intact records
  size_t offset = 0; // of its header in the file
  std::string json;  // one line of JSON, ASCII only; empty when the record cannot be printed
  std::string why_not;
};

struct ledger_dump {
  std::vector<printed_record> records;
  ledger_gaps gaps;
};

struct ledger_repair {
  size_t kept_records = 0;
  size_t kept_bytes = 0; // the new file's size
  ledger_gaps dropped;
};

struct ledger_merge {
  size_t kept_records = 0;
  size_t kept_bytes = 0;
  struct input {
    size_t records = 0; // intact, merged
    ledger_gaps dropped;
  };
  std::vector<input> inputs; // in the order given
};

class ledger {
public:
  // Opens or creates `path` for appending, after reading it whole. A torn last record (a crash while
  // writing) is cut off. Damage anywhere else, a foreign file or a ledger held by another process
  // throws mkb::error(MKB_ERR_LEDGER) naming the file (and the offset of the damage, which leaves the
  // file unchanged: `mkb ledger repair` copies its intact records to a new file).
  static std::unique_ptr<ledger> open(const std::filesystem::path &path);
  ~ledger();
  ledger(const ledger &) = delete;
  ledger &operator=(const ledger &) = delete;

  const ledger_contents &loaded() const { return loaded_; }
  const std::filesystem::path &path() const { return path_; }

  void session_opened(const std::string &dsl_a, const std::string &dsl_b, const planned_prints &current,
                      const std::string &provenance_json);
  void trial_started(const trial_key &key, const fingerprints &prints);
  void submission_made(const trial_key &key, const evaluation_report &report, const std::string &source,
                       const usage_totals &usage);
  void compile_checked(const trial_key &key, const evaluation_report &report, int index, double wall_seconds);
  void skill_updated(const trial_key &key, const std::string &text);
  void trial_finished(const trial_result &result);

  // Reads a ledger file without changing it. Throws like open(), damage included.
  static ledger_contents read(const std::filesystem::path &path);
  // Reads every intact record of a ledger file, listing the damage it skipped instead of throwing.
  // Throws mkb::error(MKB_ERR_LEDGER) only for a file that is not a ledger of this format.
  static ledger_contents read_intact(const std::filesystem::path &path);
  // Every intact record as one line of JSON (text that is not UTF-8 is escaped byte by byte, as \u00XX).
  static ledger_dump dump_json(const std::filesystem::path &path);
  // Writes every intact record of `damaged` to `repaired`, a new file (created atomically; an existing
  // file is never replaced). Throws mkb::error(MKB_ERR_IO) if `repaired` exists or cannot be written.
  static ledger_repair repair(const std::filesystem::path &damaged, const std::filesystem::path &repaired);
  // Writes every intact record of each input, in the order given, to `merged`, a new file (as repair):
  // the shards of a run as one ledger (docs/SCALING.md). The inputs' latest sessions must have planned
  // the same fingerprints, since a reader judges staleness by the last one: otherwise MKB_ERR_CONFIG
  // naming the two files and a (problem, DSL) they differ on. MKB_ERR_IO as repair.
  static ledger_merge merge(const std::vector<std::filesystem::path> &inputs, const std::filesystem::path &merged);

private:
  ledger(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  void append(const std::vector<uint8_t> &record);

  std::filesystem::path path_;
  int fd_ = -1;
  std::mutex mutex_;
  ledger_contents loaded_;
};

} // namespace mkb
