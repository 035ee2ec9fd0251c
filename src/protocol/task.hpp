// One attempt handed to an agent: budgets enforced here (wall clock, submissions that entered
// evaluation, source size), the skill kept up to date, the kernel the agent names as final, and the
// final evaluation that is the attempt's record. Calls on one task are serialized by its own lock.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "eval/report.hpp"
#include "protocol/instruction.hpp"
#include "protocol/trial.hpp"

namespace mkb {

struct problem;
class dsl;

// What a task needs from its session.
class task_host {
public:
  virtual ~task_host() = default;
  // Unrendered (evaluator::run): the task adds its budget, then renders.
  virtual evaluation_report evaluate_for_task(const problem &p, const dsl &d, std::string_view source) = 0;
  // Unrendered (evaluator::check_compiles): a compile check, never counted.
  virtual evaluation_report compile_for_task(const problem &p, const dsl &d, std::string_view source) = 0;
  virtual void record_submission(const trial_key &key, const evaluation_report &report, const std::string &source,
                                 const usage_totals &usage) = 0;
  // `index`: the check's number in the attempt, 1-based; `wall_seconds`: how long it took.
  virtual void record_compile_check(const trial_key &key, const evaluation_report &report, int index,
                                    double wall_seconds) = 0;
  virtual void record_skill(const trial_key &key, const std::string &text) = 0;
  virtual void trial_ended(int trial_index, const trial_result &result) = 0;
};

class task {
public:
  using clock = std::chrono::steady_clock;

  // guide_path: the DSL's guide as the session wrote it for agents to read; empty: none (task JSON null).
  task(task_host &host, int trial_index, trial_key key, fingerprints prints, const problem &p, const dsl &d,
       budget_limits budget, std::string instruction, std::string source_skill, std::string guide_path);

  // Each throws mkb::error with the C API's status (docs in mkb.h).
  evaluation_report submit(std::string_view source);
  // A compile check: spends no submission, only the wall clock it takes; allowed while time is left,
  // submissions or not (the original's agents compiled in their sandbox for free).
  evaluation_report compile(std::string_view source);
  void submit_skill(std::string_view text);
  void add_usage(const usage_totals &more);
  // The kernel the final evaluation grades: a source, or a submission that entered evaluation.
  void set_final(std::string_view source);
  void set_final_submission(uint32_t submission);
  // Ends the attempt if it is still open (final evaluation of the latest kernel), then hands out the
  // final report the first time only (MKB_ERR_STATE after).
  evaluation_report finalize(const std::string &ended_by);
  // Ends the attempt if it is open and its deadline has passed. For the session's deadline watcher.
  // Throws when the final evaluation cannot run; until the next try is due (0.2 s after the first
  // failure, doubling to a minute) calls return at once.
  void end_if_expired();
  // The session is closing: the attempt stays unfinished (it is planned again on resume).
  void detach();

  bool ended() const;
  uint32_t submissions_left() const;
  double seconds_left() const; // 0 once the attempt has ended
  const trial_key &key() const { return key_; }
  const std::string &id() const { return id_; }
  const problem &target() const { return problem_; }
  const std::string &instruction() const { return instruction_; }
  const std::string &source_skill() const { return source_skill_; }
  const std::string &guide_path() const { return guide_path_; }
  const std::string &json() const { return json_; }
  // Moves out by the time the task's evaluations spent queued for the GPU: that time is not the agent's.
  clock::time_point deadline() const { return clock::time_point(clock::duration(deadline_.load())); }

private:
  void end_locked(const std::string &ended_by);
  void check_open_locked(); // throws unless the attempt can still act; ends it when its time is up
  void pause_clock(double gpu_wait_ms);
  void render_in_task(evaluation_report &r) const;
  uint32_t submissions_remaining() const; // with mutex_ held
  double seconds_remaining() const;

  mutable std::mutex mutex_;
  task_host *host_;
  const int trial_index_;
  const trial_key key_;
  const std::string id_;
  const fingerprints prints_;
  const problem &problem_;
  const dsl &dsl_;
  const budget_limits budget_;
  const std::string instruction_, source_skill_, guide_path_;
  std::string json_;
  const clock::time_point started_;
  std::atomic<clock::rep> deadline_;         // read by the session's deadline watcher without the lock
  double gpu_wait_ms_ = 0;                   // summed over the attempt's evaluations

  int submissions_ = 0;          // every submission, refused ones included
  int counted_ = 0;              // submissions that entered evaluation
  int compile_checks_ = 0;       // compile checks made (mkb_task_compile), each recorded
  std::map<uint32_t, std::string> counted_sources_; // by submission number: what set_final_submission names
  uint32_t latest_counted_ = 0;  // the latest submission that entered evaluation (0: none)
  std::optional<std::string> chosen_source_; // set_final: graded instead of the latest submission
  uint32_t chosen_submission_ = 0;           // set_final_submission
  std::string skill_;
  usage_totals usage_;
  bool ended_ = false, detached_ = false, final_handed_out_ = false;
  int expiry_failures_ = 0;            // final evaluations at the deadline that could not run
  clock::time_point next_expiry_try_;  // the deadline watcher's next try after one failed
  std::optional<evaluation_report> final_;
};

} // namespace mkb
