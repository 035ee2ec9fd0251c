#include "protocol/task.hpp"

#include <fmt/format.h>

#include <algorithm>
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
           budget_limits budget, std::string instruction, std::string source_skill, std::string guide_path)
    : host_(&host), trial_index_(trial_index), key_(std::move(key)), id_(key_.id()), prints_(std::move(prints)), problem_(p), dsl_(d),
      budget_(budget), instruction_(std::move(instruction)), source_skill_(std::move(source_skill)),
      guide_path_(std::move(guide_path)),
      started_(clock::now()), deadline_((started_ + std::chrono::seconds(budget.seconds)).time_since_epoch().count()) {
  json_writer j;
  j.begin_object().field("id", key_.id()).field("problem", key_.problem).field("family", key_.family);
  j.field("dsl", key_.dsl).field("arm", arm_name(key_.arm)).field("replicate", key_.replicate).field("model", key_.model);
  j.key("budget").begin_object().field("seconds", budget_.seconds).field("submissions", budget_.submissions);
  j.field("source_bytes", budget_.source_bytes).field("skill_bytes", budget_.skill_bytes).end_object();
  j.field("instruction", instruction_);
  if (source_skill_.empty()) j.key("source_skill").null();
  else j.field("source_skill", source_skill_);
  if (guide_path_.empty()) j.key("guide_path").null();
  else j.field("guide_path", guide_path_);
  j.end_object();
  json_ = j.take();
}

bool task::ended() const {
  std::lock_guard lock(mutex_);
  return ended_;
}

uint32_t task::submissions_left() const {
  std::lock_guard lock(mutex_);
  return submissions_remaining();
}

double task::seconds_left() const {
  std::lock_guard lock(mutex_);
  return ended_ ? 0 : seconds_remaining();
}

uint32_t task::submissions_remaining() const {
  return counted_ >= static_cast<int>(budget_.submissions) ? 0 : budget_.submissions - static_cast<uint32_t>(counted_);
}

double task::seconds_remaining() const {
  return std::max(0.0, std::chrono::duration<double>(deadline() - clock::now()).count());
}

void task::pause_clock(double gpu_wait_ms) {
  if (!(gpu_wait_ms > 0)) return;
  gpu_wait_ms_ += gpu_wait_ms;
  deadline_ += std::chrono::duration_cast<clock::duration>(std::chrono::duration<double, std::milli>(gpu_wait_ms)).count();
}

void task::render_in_task(evaluation_report &r) const {
  r.in_task = true;
  r.submissions_left = submissions_remaining();
  r.seconds_left = ended_ ? 0 : seconds_remaining();
  render_report(r);
}

void task::check_open_locked() {
  if (detached_) fail(MKB_ERR_STATE, "the session of task {} is closed", key_.id());
  if (ended_) fail(MKB_ERR_STATE, "task {} has ended; mkb_finalize returns its record", key_.id());
  if (clock::now() >= deadline()) {
    end_locked("deadline");
    fail(MKB_ERR_BUDGET, "the {} s wall-clock budget of task {} is spent; the attempt has ended and its final kernel "
                         "was evaluated: mkb_finalize returns the record",
         budget_.seconds, key_.id());
  }
}

evaluation_report task::submit(std::string_view source) {
  std::lock_guard lock(mutex_);
  check_open_locked();
  if (submissions_remaining() == 0)
    fail(MKB_ERR_BUDGET, "all {} submissions of task {} are spent; call mkb_finalize", budget_.submissions, key_.id());
  evaluation_report r = host_->evaluate_for_task(problem_, dsl_, source);
  pause_clock(r.result.gpu_wait_ms);
  r.submission = static_cast<uint32_t>(++submissions_);
  if (r.counted) {
    ++counted_;
    latest_counted_ = r.submission;
    counted_sources_[r.submission].assign(source);
  }
  render_in_task(r);
  if (clock::now() >= deadline())
    r.message += "The wall-clock budget ran out during this evaluation: the attempt ends now.\n";
  host_->record_submission(key_, r, std::string(source), usage_);
  return r;
}

evaluation_report task::compile(std::string_view source) {
  std::lock_guard lock(mutex_);
  check_open_locked();
  const clock::time_point started = clock::now();
  evaluation_report r = host_->compile_for_task(problem_, dsl_, source);
  const double wall_seconds = std::chrono::duration<double>(clock::now() - started).count();
  ++compile_checks_;
  render_in_task(r);
  if (clock::now() >= deadline())
    r.message += "The wall-clock budget ran out during this compile check: the attempt ends now.\n";
  host_->record_compile_check(key_, r, compile_checks_, wall_seconds);
  return r;
}

void task::submit_skill(std::string_view text) {
  std::lock_guard lock(mutex_);
  if (detached_) fail(MKB_ERR_STATE, "the session of task {} is closed", key_.id());
  if (ended_) fail(MKB_ERR_STATE, "task {} has ended; its skill is frozen", key_.id());
  if (text.size() > budget_.skill_bytes)
    fail(MKB_ERR_CONFIG, "the skill is {} bytes; the limit is {} (the previous skill is kept)", text.size(),
         budget_.skill_bytes);
  skill_.assign(text);
  host_->record_skill(key_, skill_);
}

void task::add_usage(const usage_totals &more) {
  if (!std::isfinite(more.cost_usd) || more.cost_usd < 0) fail(MKB_ERR_INVALID_ARGUMENT, "cost_usd must be finite and >= 0");
  if (more.cached_input_tokens > more.input_tokens)
    fail(MKB_ERR_INVALID_ARGUMENT, "cached_input_tokens ({}) is part of input_tokens ({}) and cannot exceed it; nothing was added",
         more.cached_input_tokens, more.input_tokens);
  std::lock_guard lock(mutex_);
  if (ended_ || detached_) fail(MKB_ERR_STATE, "task {} has ended", key_.id());
  // All or nothing: a sum that wraps would record a small usage for a large one.
  usage_totals sum = usage_;
  if (__builtin_add_overflow(sum.input_tokens, more.input_tokens, &sum.input_tokens) ||
      __builtin_add_overflow(sum.cached_input_tokens, more.cached_input_tokens, &sum.cached_input_tokens) ||
      __builtin_add_overflow(sum.output_tokens, more.output_tokens, &sum.output_tokens))
    fail(MKB_ERR_INVALID_ARGUMENT, "the token counts of task {} would pass 2^64 - 1 ({} + {} input, {} + {} output); "
                                   "nothing was added", key_.id(), usage_.input_tokens, more.input_tokens, usage_.output_tokens,
         more.output_tokens);
  sum.cost_usd += more.cost_usd;
  if (!std::isfinite(sum.cost_usd))
    fail(MKB_ERR_INVALID_ARGUMENT, "the cost of task {} would no longer be finite; nothing was added", key_.id());
  usage_ = sum;
}

void task::set_final(std::string_view source) {
  std::lock_guard lock(mutex_);
  check_open_locked();
  if (source.size() > budget_.source_bytes)
    fail(MKB_ERR_CONFIG, "the final kernel is {} bytes; the limit is {} (the previous choice is kept)", source.size(),
         budget_.source_bytes);
  chosen_source_.emplace(source);
  chosen_submission_ = 0;
}

void task::set_final_submission(uint32_t submission) {
  std::lock_guard lock(mutex_);
  check_open_locked();
  auto it = counted_sources_.find(submission);
  if (it == counted_sources_.end() && submission >= 1 && submission <= static_cast<uint32_t>(submissions_))
    fail(MKB_ERR_NOT_FOUND, "submission {} of task {} did not enter evaluation; only such a kernel can be named final",
         submission, key_.id());
  if (it == counted_sources_.end())
    fail(MKB_ERR_NOT_FOUND, "task {} has no submission {} (it has made {})", key_.id(), submission, submissions_);
  chosen_source_.reset();
  chosen_submission_ = submission;
}

void task::end_locked(const std::string &ended_by) {
  if (ended_ || detached_) return;
  trial_result t;
  t.key = key_;
  t.prints = prints_;
  // The final kernel: the one the agent named, else its latest kernel that entered evaluation.
  const std::string *final_source = nullptr;
  if (chosen_source_) {
    final_source = &*chosen_source_;
    t.final_kernel = "named source";
  } else if (uint32_t n = chosen_submission_ ? chosen_submission_ : latest_counted_) {
    final_source = &counted_sources_.at(n);
    t.final_kernel = chosen_submission_ ? fmt::format("submission {}", n) : "latest submission";
  }
  evaluation_report r;
  if (final_source) {
    r = host_->evaluate_for_task(problem_, dsl_, *final_source);
    // The harness failed, not the kernel: the attempt stays open so that finalizing can be retried.
    if (r.verdict == MKB_VERDICT_REFUSED && r.infrastructure_failure)
      fail(MKB_ERR_WORKER, "the final evaluation of task {} could not run: {}", key_.id(), r.detail);
    t.time_us = r.time_us;
    t.baseline_us = r.baseline_us;
    t.speedup = r.speedup;
    t.eager_us = r.eager_us;
    t.final_source_hash = r.source_hash;
  } else {
    r.verdict = MKB_VERDICT_NO_KERNEL;
    r.problem_id = key_.problem;
    r.dsl = key_.dsl;
    r.detail = "no kernel entered evaluation during the attempt, and none was named final; the attempt counts as failed";
  }
  r.final = true;
  r.counted = false;
  t.verdict = r.verdict;
  t.skill = skill_;
  t.submissions_used = counted_;
  t.compile_checks = compile_checks_;
  t.seconds_used = std::chrono::duration<double>(clock::now() - started_).count() - gpu_wait_ms_ / 1000;
  t.gpu_wait_ms = gpu_wait_ms_;
  t.contended = r.result.contention.contended;
  t.input_tokens = usage_.input_tokens;
  t.cached_input_tokens = usage_.cached_input_tokens;
  t.output_tokens = usage_.output_tokens;
  t.cost_usd = usage_.cost_usd;
  t.ended_by = ended_by;
  ended_ = true;
  render_in_task(r);
  t.final_report_json = r.json;
  final_ = std::move(r);
  try {
    host_->trial_ended(trial_index_, t);
  } catch (...) {
    // Not recorded (the ledger could not be written): the attempt stays open, as when the final
    // evaluation could not run, so that finalizing can be retried and the plan is not left waiting.
    ended_ = false;
    final_.reset();
    throw;
  }
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
  clock::time_point now = clock::now();
  if (ended_ || detached_ || now < deadline() || now < next_expiry_try_) return;
  try {
    end_locked("deadline");
  } catch (...) {
    // The final evaluation could not run or be recorded: tried again later, 0.2 s after the first
    // failure, doubling up to a minute, so that a harness that stays broken is not asked 5 times a second.
    expiry_failures_ = std::min(expiry_failures_ + 1, 9);
    next_expiry_try_ = now + std::min<clock::duration>(std::chrono::milliseconds(100 << expiry_failures_),
                                                       std::chrono::minutes(1));
    throw;
  }
}

void task::detach() {
  std::lock_guard lock(mutex_);
  detached_ = true;
  host_ = nullptr;
}

} // namespace mkb
