#include "protocol/task.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/json_writer.hpp"
#include "core/names.hpp"
#include "dsl/dsl.hpp"
#include "mkb.h"
#include "spec/problem.hpp"

namespace mkb {

task::task(task_host &host, int trial_index, trial_key key, fingerprints prints, const problem &p, const dsl &d,
           budget_limits budget, std::string instruction, std::string source_skill)
    : host_(&host), trial_index_(trial_index), key_(std::move(key)), id_(key_.id()), prints_(std::move(prints)), problem_(p), dsl_(d),
      budget_(budget), instruction_(std::move(instruction)), source_skill_(std::move(source_skill)),
      started_(clock::now()), deadline_((started_ + std::chrono::seconds(budget.seconds)).time_since_epoch().count()) {
  json_writer j;
  j.begin_object().field("id", key_.id()).field("problem", key_.problem).field("family", key_.family);
  j.field("dsl", key_.dsl).field("arm", arm_name(key_.arm)).field("replicate", key_.replicate).field("model", key_.model);
  j.key("budget").begin_object().field("seconds", budget_.seconds).field("submissions", budget_.submissions);
  j.field("source_bytes", budget_.source_bytes).field("skill_bytes", budget_.skill_bytes).end_object();
  j.field("instruction", instruction_);
  if (source_skill_.empty()) j.key("source_skill").null();
  else j.field("source_skill", source_skill_);
  j.end_object();
  json_ = j.take();
}

bool task::ended() const {
  std::lock_guard lock(mutex_);
  return ended_;
}

uint32_t task::submissions_left() const {
  return counted_ >= static_cast<int>(budget_.submissions) ? 0 : budget_.submissions - static_cast<uint32_t>(counted_);
}

double task::seconds_left() const {
  return std::max(0.0, std::chrono::duration<double>(deadline() - clock::now()).count());
}

void task::pause_clock(double gpu_wait_ms) {
  if (!(gpu_wait_ms > 0)) return;
  gpu_wait_ms_ += gpu_wait_ms;
  deadline_ += std::chrono::duration_cast<clock::duration>(std::chrono::duration<double, std::milli>(gpu_wait_ms)).count();
}

void task::fill_budget(evaluation_report &r) const {
  r.submissions_left = submissions_left();
  r.seconds_left = seconds_left();
  r.message += fmt::format("Budget: {} of {} submissions left, {:.0f} s left.\n", r.submissions_left,
                           budget_.submissions, r.seconds_left);
  // The JSON ends with '}': insert the budget before it rather than render everything again.
  r.json.insert(r.json.size() - 1, fmt::format(",\"budget_after\":{{\"submissions_left\":{},\"seconds_left\":{:.3f}}}",
                                               r.submissions_left, r.seconds_left));
}

evaluation_report task::submit(std::string_view source) {
  std::lock_guard lock(mutex_);
  if (detached_) fail(MKB_ERR_STATE, "the session of task {} is closed", key_.id());
  if (ended_) fail(MKB_ERR_STATE, "task {} has ended; mkb_finalize returns its record", key_.id());
  if (clock::now() >= deadline()) {
    end_locked("deadline");
    fail(MKB_ERR_BUDGET, "the {} s wall-clock budget of task {} is spent; the attempt has ended and its latest kernel "
                         "was evaluated: mkb_finalize returns the record",
         budget_.seconds, key_.id());
  }
  if (submissions_left() == 0)
    fail(MKB_ERR_BUDGET, "all {} submissions of task {} are spent; call mkb_finalize", budget_.submissions, key_.id());
  evaluation_report r = host_->evaluate_for_task(problem_, dsl_, source);
  pause_clock(r.result.gpu_wait_ms);
  ++submissions_;
  if (r.counted) {
    ++counted_;
    latest_source_.assign(source);
  }
  host_->record_submission(key_, submissions_, r, std::string(source), usage_);
  fill_budget(r);
  if (clock::now() >= deadline())
    r.message += "The wall-clock budget ran out during this evaluation: the attempt ends now.\n";
  return r;
}

void task::submit_skill(std::string_view text) {
  std::lock_guard lock(mutex_);
  if (key_.arm != MKB_ARM_SOLO_A && key_.arm != MKB_ARM_SOLO_B)
    fail(MKB_ERR_STATE, "task {} is a skill arm; only solo attempts write skills", key_.id());
  if (detached_) fail(MKB_ERR_STATE, "the session of task {} is closed", key_.id());
  if (ended_) fail(MKB_ERR_STATE, "task {} has ended; its skill is frozen", key_.id());
  if (text.size() > budget_.skill_bytes)
    fail(MKB_ERR_CONFIG, "the skill is {} bytes; the limit is {} (the previous skill is kept)", text.size(),
         budget_.skill_bytes);
  skill_.assign(text);
  host_->record_skill(key_, skill_);
}

void task::add_usage(uint64_t input_tokens, uint64_t output_tokens, double cost_usd) {
  if (!std::isfinite(cost_usd) || cost_usd < 0) fail(MKB_ERR_INVALID_ARGUMENT, "cost_usd must be finite and >= 0");
  std::lock_guard lock(mutex_);
  if (ended_ || detached_) fail(MKB_ERR_STATE, "task {} has ended", key_.id());
  // All or nothing: a sum that wraps would record a small usage for a large one.
  usage_totals sum = usage_;
  if (__builtin_add_overflow(sum.input_tokens, input_tokens, &sum.input_tokens) ||
      __builtin_add_overflow(sum.output_tokens, output_tokens, &sum.output_tokens))
    fail(MKB_ERR_INVALID_ARGUMENT, "the token counts of task {} would pass 2^64 - 1 ({} + {} input, {} + {} output); "
                                   "nothing was added", key_.id(), usage_.input_tokens, input_tokens, usage_.output_tokens, output_tokens);
  sum.cost_usd += cost_usd;
  if (!std::isfinite(sum.cost_usd))
    fail(MKB_ERR_INVALID_ARGUMENT, "the cost of task {} would no longer be finite; nothing was added", key_.id());
  usage_ = sum;
}

void task::end_locked(const std::string &ended_by) {
  if (ended_ || detached_) return;
  trial_result t;
  t.key = key_;
  t.prints = prints_;
  if (!latest_source_.empty()) {
    evaluation_report r = host_->evaluate_for_task(problem_, dsl_, latest_source_);
    // The harness failed, not the kernel: the attempt stays open so that finalizing can be retried.
    if (r.verdict == MKB_VERDICT_REFUSED)
      fail(MKB_ERR_WORKER, "the final evaluation of task {} could not run: {}", key_.id(), r.detail);
    r.final = true;
    r.counted = false;
    finish_report(r, problem_); // rendered again, so that its JSON and message say final and not counted
    t.verdict = r.verdict;
    t.time_us = r.time_us;
    t.baseline_us = r.baseline_us;
    t.speedup = r.speedup;
    t.final_source_hash = r.source_hash;
    t.final_report_json = r.json;
    final_ = std::move(r);
  } else {
    evaluation_report r;
    r.verdict = MKB_VERDICT_NO_KERNEL;
    r.final = true;
    r.counted = false;
    r.problem_id = key_.problem;
    r.dsl = key_.dsl;
    r.detail = "no kernel entered evaluation during the attempt";
    r.message = "NO_KERNEL: " + r.detail + "; the attempt counts as failed.\n";
    json_writer j;
    j.begin_object().field("verdict", verdict_name(r.verdict)).field("counted", r.counted).field("final", r.final);
    j.field("problem", r.problem_id).field("dsl", r.dsl).field("detail", r.detail).end_object();
    r.json = j.take();
    t.verdict = r.verdict;
    final_ = std::move(r);
  }
  t.skill = skill_;
  t.submissions_used = counted_;
  t.seconds_used = std::chrono::duration<double>(clock::now() - started_).count() - gpu_wait_ms_ / 1000;
  t.gpu_wait_ms = gpu_wait_ms_;
  t.contended = final_->result.contention.contended;
  t.input_tokens = usage_.input_tokens;
  t.output_tokens = usage_.output_tokens;
  t.cost_usd = usage_.cost_usd;
  t.ended_by = ended_by;
  ended_ = true;
  fill_budget(*final_);
  host_->trial_ended(trial_index_, t);
}

evaluation_report task::finalize(const std::string &ended_by) {
  std::lock_guard lock(mutex_);
  if (detached_) fail(MKB_ERR_STATE, "the session of task {} is closed", key_.id());
  end_locked(ended_by);
  if (final_handed_out_) fail(MKB_ERR_STATE, "task {} was already finalized", key_.id());
  final_handed_out_ = true;
  return *final_;
}

void task::end_if_expired() {
  std::lock_guard lock(mutex_);
  if (!ended_ && !detached_ && clock::now() >= deadline()) end_locked("deadline");
}

void task::detach() {
  std::lock_guard lock(mutex_);
  detached_ = true;
  host_ = nullptr;
}

} // namespace mkb
