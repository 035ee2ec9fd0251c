// A session: the suite, the DSL pair, the GPU workers and the evaluator, the four-arm plan with its
// ledger, the tasks handed out, and the watcher that ends tasks whose deadline passed. The C API's
// mkb_session wraps one. Safe to use from many threads.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "eval/evaluator.hpp"
#include "eval/worker_pool.hpp"
#include "protocol/ledger.hpp"
#include "protocol/planner.hpp"
#include "protocol/session_config.hpp"
#include "protocol/task.hpp"
#include "spec/suite.hpp"

namespace mkb {

class session final : public task_host {
public:
  explicit session(session_config config);
  ~session() override;

  const session_config &config() const { return config_; }
  const suite &problems() const { return suite_; }
  bool compile_only() const { return compile_only_; }
  const std::vector<int> &gpus() const { return gpus_; }
  std::string dsl_a() const { return dsl_a_->name(); }
  std::string dsl_b() const { return dsl_b_->name(); }
  // What resuming the ledger found: stale trial ids, interrupted count, a torn tail dropped.
  const std::vector<std::string> &stale_trials() const { return stale_; }
  int interrupted_trials() const { return interrupted_; }

  // Up to `capacity` ready tasks, waiting up to `wait` for one. Empty with *done set when every trial
  // has been handed out; empty with *done clear when none is ready yet.
  std::vector<std::shared_ptr<task>> next_tasks(std::chrono::milliseconds wait, size_t capacity, bool *done);

  // Evaluates outside any task (mkb_evaluate). Throws MKB_ERR_NOT_FOUND for unknown names.
  evaluation_report evaluate(const std::string &problem_id, const std::string &dsl_name, std::string_view source);
  // The same, then the problem's audit when the submission passed (mkb suite validate).
  evaluation_report audit(const std::string &problem_id, const std::string &dsl_name, std::string_view source);

  // Scores of every finished trial of the ledger (all models in it), or of this session without one;
  // stale trials left out unless with_stale.
  std::string score(bool table, bool with_stale);

  // task_host
  evaluation_report evaluate_for_task(const problem &p, const dsl &d, std::string_view source) override;
  evaluation_report compile_for_task(const problem &p, const dsl &d, std::string_view source) override;
  void record_submission(const trial_key &key, const evaluation_report &report, const std::string &source,
                         const usage_totals &usage) override;
  void record_compile_check(const trial_key &key, const evaluation_report &report, int index,
                            double wall_seconds) override;
  void record_skill(const trial_key &key, const std::string &text) override;
  void trial_ended(int trial_index, const trial_result &result) override;

private:
  evaluation_report evaluate_outside_tasks(const std::string &problem_id, const std::string &dsl_name,
                                           std::string_view source, bool audit);
  void skip_if_no_skill(int skill_arm); // with mutex_ held
  // The path of d's guide, written the first time it is asked for; "" for a DSL without one. With
  // mutex_ held; throws MKB_ERR_IO when it cannot be written.
  const std::string &guide_path(const dsl &d);
  void watch_deadlines();

  session_config config_;
  suite suite_;
  const dsl *dsl_a_ = nullptr, *dsl_b_ = nullptr;
  std::vector<int> gpus_;
  bool compile_only_ = false;
  std::unique_ptr<worker_pool> workers_;
  std::unique_ptr<evaluator> evaluator_;
  std::unique_ptr<ledger> ledger_;
  std::unique_ptr<four_arm_plan> plan_;
  planned_prints current_prints_;
  std::vector<std::string> stale_;
  int interrupted_ = 0;

  std::mutex mutex_; // plan_, live_, guide_paths_
  std::condition_variable changed_;
  std::vector<std::weak_ptr<task>> live_;
  std::map<std::string, std::string> guide_paths_; // by DSL name: the guides written so far
  bool stopping_ = false;
  std::thread watcher_;
};

} // namespace mkb
