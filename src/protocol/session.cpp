#include "protocol/session.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "dsl/dsl.hpp"
#include "protocol/guide_files.hpp"
#include "protocol/instruction.hpp"
#include "protocol/plan_setup.hpp"
#include "protocol/provenance.hpp"
#include "protocol/scoring.hpp"
#include "protocol/staleness.hpp"

namespace mkb {

session::session(session_config config) : config_(std::move(config)), suite_(suite::load(config_.suite_path)) {
  std::tie(dsl_a_, dsl_b_) = resolve_dsl_pair(config_);
  std::vector<const problem *> selected = suite_.select(config_.problem_patterns, config_.families);

  std::string worker = find_worker_executable(config_.worker_path);
  compile_only_ = config_.compile_only;
  if (!compile_only_) {
    if (config_.gpus) {
      gpus_ = *config_.gpus;
    } else {
      // Every visible GPU; with none, the session compiles and checks but runs nothing.
      worker_client probe(worker, 0);
      worker_status status = probe.ping();
      for (const device_info &d : status.devices) gpus_.push_back(d.ordinal);
      compile_only_ = gpus_.empty();
    }
  }
  workers_ = std::make_unique<worker_pool>(worker, compile_only_ ? std::vector<int>{} : gpus_);
  evaluation_settings settings;
  settings.compile_only = compile_only_;
  settings.target_arch = config_.target_arch;
  settings.cache_dir = config_.cache_dir;
  settings.max_source_bytes = config_.budget_source_bytes;
  settings.frontends.python = config_.python;
  settings.gpu_lock_dir = config_.gpu_lock_dir;
  settings.frontends.cache_dir = config_.cache_dir;
  settings.frontends.sandbox = config_.sandbox;
  settings.compile_timeout = config_.compile_limit;
  settings.frontends.time_limit = config_.compile_limit;
  evaluator_ = std::make_unique<evaluator>(*workers_, settings);

  session_plan planned = make_session_plan(config_, selected, *dsl_a_, *dsl_b_, evaluator_->settings());
  plan_ = std::move(planned.plan);
  current_prints_ = std::move(planned.current);
  if (config_.ledger_path) {
    ledger_ = ledger::open(*config_.ledger_path);
    stale_ = plan_->restore(ledger_->loaded(), config_.rerun_stale, &interrupted_);
    ledger_->session_opened(dsl_a_->name(), dsl_b_->name(), current_prints_,
                            provenance_json({config_, suite_, *dsl_a_, *dsl_b_, evaluator_->settings(), gpus_, compile_only_}));
  }
  {
    std::lock_guard lock(mutex_);
    for (size_t i = 0; i < plan_->trials().size(); ++i)
      if (plan_->trials()[i].source >= 0 && plan_->trials()[i].state == trial_state::ready)
        skip_if_no_skill(static_cast<int>(i));
  }
  watcher_ = std::thread([this] { watch_deadlines(); });
}

session::~session() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (watcher_.joinable()) watcher_.join();
  std::vector<std::shared_ptr<task>> live;
  {
    std::lock_guard lock(mutex_);
    for (auto &w : live_)
      if (auto t = w.lock()) live.push_back(t);
  }
  for (auto &t : live) t->detach(); // unfinished attempts are planned again when the ledger resumes
  if (workers_) workers_->stop_all();
}

void session::skip_if_no_skill(int skill_arm) {
  if (!plan_->left_without_skill(skill_arm)) return;
  planned_trial &t = plan_->trials()[skill_arm];
  // Recorded as skipped, never handed out, scored as its base.
  trial_result r;
  r.key = t.key;
  r.prints = t.prints;
  r.skipped = true;
  r.ended_by = "skipped";
  if (ledger_) ledger_->trial_finished(r);
  plan_->finish(skill_arm, r);
}

std::vector<std::shared_ptr<task>> session::next_tasks(std::chrono::milliseconds wait, size_t capacity, bool *done) {
  std::vector<std::shared_ptr<task>> out;
  std::unique_lock lock(mutex_);
  auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    while (out.size() < capacity) {
      std::optional<int> index = plan_->take();
      if (!index) break;
      planned_trial &t = plan_->trials()[*index];
      std::string guide;
      try {
        guide = guide_path(*t.language);
        if (ledger_) ledger_->trial_started(t.key, t.prints);
      } catch (...) {
        // The guide could not be written or the hand-out recorded: the trial stays ready (not lost),
        // and the tasks already taken go out; the error comes back on the next call if it persists.
        plan_->put_back(*index);
        if (out.empty()) throw;
        *done = false;
        return out;
      }
      budget_limits budget{config_.budget_seconds, config_.budget_submissions, config_.budget_source_bytes,
                           config_.skill_max_bytes};
      // A skill arm is told exactly what its solo is told, plus the skill: nothing else differs.
      std::string instruction = render_instruction(*t.p, *t.language, budget, guide), source_skill;
      if (t.source >= 0) {
        source_skill = skill_section(plan_->trials()[t.source].result->skill);
        instruction += source_skill;
      }
      auto handed = std::make_shared<task>(*this, *index, t.key, t.prints, *t.p, *t.language, budget,
                                           std::move(instruction), std::move(source_skill), std::move(guide));
      live_.push_back(handed);
      out.push_back(std::move(handed));
    }
    *done = out.empty() && plan_->all_handed_out();
    if (!out.empty() || *done || stopping_) return out;
    if (changed_.wait_until(lock, deadline) == std::cv_status::timeout) {
      *done = plan_->all_handed_out();
      return out;
    }
  }
}

const std::string &session::guide_path(const dsl &d) {
  auto it = guide_paths_.find(d.name());
  if (it != guide_paths_.end()) return it->second;
  std::string path;
  if (std::string_view text = d.guide(); !text.empty())
    path = write_guide_file(guide_file_path(config_, d.name(), text), text).string();
  return guide_paths_.emplace(d.name(), std::move(path)).first->second;
}

evaluation_report session::evaluate(const std::string &problem_id, const std::string &dsl_name, std::string_view source) {
  return evaluate_outside_tasks(problem_id, dsl_name, source, false);
}

evaluation_report session::audit(const std::string &problem_id, const std::string &dsl_name, std::string_view source) {
  return evaluate_outside_tasks(problem_id, dsl_name, source, true);
}

evaluation_report session::evaluate_outside_tasks(const std::string &problem_id, const std::string &dsl_name,
                                                  std::string_view source, bool audit) {
  const problem *p = suite_.find(problem_id);
  if (!p) fail(MKB_ERR_NOT_FOUND, "no problem '{}' in suite {}", problem_id, suite_.origin());
  const dsl *d = find_dsl(dsl_name);
  if (!d) fail(MKB_ERR_NOT_FOUND, "DSL '{}' is not registered in this build", dsl_name);
  return evaluator_->evaluate(*p, *d, source, audit);
}

evaluation_report session::evaluate_for_task(const problem &p, const dsl &d, std::string_view source) {
  return evaluator_->run(p, d, source);
}

evaluation_report session::compile_for_task(const problem &p, const dsl &d, std::string_view source) {
  return evaluator_->check_compiles(p, d, source);
}

void session::record_compile_check(const trial_key &key, const evaluation_report &r, int index, double wall_seconds) {
  if (ledger_) ledger_->compile_checked(key, r, index, wall_seconds);
}

void session::record_submission(const trial_key &key, const evaluation_report &r, const std::string &source,
                                const usage_totals &usage) {
  if (ledger_) ledger_->submission_made(key, r, source, usage);
}

void session::record_skill(const trial_key &key, const std::string &text) {
  if (ledger_) ledger_->skill_updated(key, text);
}

void session::trial_ended(int trial_index, const trial_result &result) {
  std::lock_guard lock(mutex_);
  if (ledger_) ledger_->trial_finished(result);
  if (std::optional<int> dependent = plan_->finish(trial_index, result)) skip_if_no_skill(*dependent);
  changed_.notify_all();
}

std::string session::score(bool table, bool with_stale) {
  std::vector<trial_result> results;
  if (ledger_) {
    ledger_contents contents = ledger::read(ledger_->path());
    results = latest_with_staleness(contents.finished, contents.current);
  } else {
    std::lock_guard lock(mutex_);
    for (const planned_trial &t : plan_->trials())
      if (t.result) results.push_back(*t.result);
  }
  return score_results(results, table, with_stale);
}

void session::watch_deadlines() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    changed_.wait_for(lock, std::chrono::milliseconds(200));
    if (stopping_) break;
    std::vector<std::shared_ptr<task>> live;
    for (auto it = live_.begin(); it != live_.end();) {
      if (auto t = it->lock()) {
        live.push_back(t);
        ++it;
      } else {
        it = live_.erase(it);
      }
    }
    lock.unlock(); // a task ending calls back into the session
    for (auto &t : live)
      if (!t->ended() && std::chrono::steady_clock::now() >= t->deadline()) {
        try {
          t->end_if_expired();
        } catch (const std::exception &) {
          // The final evaluation could not run (infrastructure); tried again when due (it backs off).
        }
      }
    lock.lock();
  }
}

} // namespace mkb
