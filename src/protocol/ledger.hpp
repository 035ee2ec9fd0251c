// The ledger: an append-only file of flatbuffers records (ledger.fbs), each framed by its length and
// an XXH3-64 checksum and synced to disk before the call that wrote it returns. docs/LEDGER.md has the
// format. One session holds a ledger at a time (an advisory lock).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "protocol/trial.hpp"

namespace mkb {

struct ledger_contents {
  std::vector<trial_result> finished;           // every TrialFinished, in file order
  std::set<trial_key> started;                  // every TrialStarted
  std::map<trial_key, fingerprints> started_prints;
  size_t records = 0;
  bool dropped_torn_tail = false;               // the last record was incomplete and was removed
};

class ledger {
public:
  // Opens or creates `path` for appending, after reading it whole. A torn last record (a crash while
  // writing) is cut off; any other damage, a foreign file or a ledger held by another process throws
  // mkb::error(MKB_ERR_LEDGER) naming the file and the offset.
  static std::unique_ptr<ledger> open(const std::filesystem::path &path);
  ~ledger();
  ledger(const ledger &) = delete;
  ledger &operator=(const ledger &) = delete;

  const ledger_contents &loaded() const { return loaded_; }
  const std::filesystem::path &path() const { return path_; }

  void session_opened(const std::string &dsl_a, const std::string &dsl_b);
  void trial_started(const trial_key &key, const fingerprints &prints);
  void submission_made(const trial_key &key, int index, bool counted, int verdict, double time_us, double baseline_us,
                       double speedup, const std::string &source_hash, const std::string &source,
                       const std::string &report_json, uint64_t input_tokens, uint64_t output_tokens, double cost_usd);
  void skill_updated(const trial_key &key, const std::string &text);
  void trial_finished(const trial_result &result);

  // Read-only access to any ledger file, for `mkb ledger dump` and `mkb score`. Throws like open().
  static ledger_contents read(const std::filesystem::path &path);
  // Every record as one line of JSON.
  static std::vector<std::string> dump_json(const std::filesystem::path &path);

private:
  ledger(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  void append(const std::vector<uint8_t> &record);

  std::filesystem::path path_;
  int fd_ = -1;
  std::mutex mutex_;
  ledger_contents loaded_;
};

} // namespace mkb
