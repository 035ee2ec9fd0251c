#include "eval/evaluator.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/output_tail.hpp"
#include "core/random.hpp"
#include "spec/problem.hpp"

namespace mkb {

namespace {

constexpr int crash_retries = 1;

// A report for a submission the worker never saw.
evaluation_report unevaluated(const problem &p, const dsl &d, std::string_view source, int verdict, std::string detail) {
  evaluation_report r;
  r.verdict = verdict;
  r.counted = verdict != MKB_VERDICT_REFUSED;
  r.problem_id = p.id;
  r.dsl = d.name();
  r.source_bytes = source.size();
  r.source_hash = xxh3_128(source).hex();
  r.detail = std::move(detail);
  r.result.verdict = r.verdict;
  r.result.detail = r.detail;
  return r;
}

// `infrastructure`: the harness failed, not the submission (a final evaluation is then tried again).
evaluation_report refused(const problem &p, const dsl &d, std::string_view source, std::string detail,
                          bool infrastructure, double gpu_wait_ms = 0) {
  evaluation_report r = unevaluated(p, d, source, MKB_VERDICT_REFUSED, std::move(detail));
  r.infrastructure_failure = infrastructure;
  r.result.gpu_wait_ms = gpu_wait_ms;
  complete_report(r, p);
  return r;
}

// The DSL's frontend compiled the submission and it failed: counted, with the log where the worker
// puts NVRTC's (the detail, and the submission's entry among the compiles).
evaluation_report does_not_compile(const problem &p, const dsl &d, std::string_view source, std::string log,
                                   double milliseconds) {
  evaluation_report r = unevaluated(p, d, source, MKB_VERDICT_COMPILE_ERROR, log);
  r.result.stage = "compile";
  r.result.phases.compile_ms = milliseconds;
  r.result.phases.total_ms = milliseconds;
  r.result.compiles.push_back({"submission", false, milliseconds, std::move(log)});
  complete_report(r, p);
  return r;
}

} // namespace

evaluator::evaluator(worker_pool &workers, evaluation_settings settings) : workers_(workers), settings_(std::move(settings)) {}

std::shared_ptr<const evaluator::prepared_problem> evaluator::problem_code(const problem &p) {
  std::lock_guard lock(mutex_);
  // Keyed by id, but a problem changed under its id (an edited suite, a test's variant) is prepared
  // again: serving the old code would grade against the wrong baseline.
  auto it = prepared_.find(p.id);
  if (it != prepared_.end() && it->second->baseline_source == p.baseline_source &&
      it->second->anchor_source == p.anchor_source)
    return it->second;
  const dsl *cuda = find_dsl("cuda");
  auto own = std::make_shared<prepared_problem>();
  try {
    own->baseline = cuda->prepare(p.baseline_source, p, plan_role::baseline);
    own->anchor = cuda->prepare(p.anchor_source, p, plan_role::anchor);
  } catch (const submission_error &e) {
    fail(MKB_ERR_SPEC, "problem '{}': {}", p.id, e.what());
  }
  own->baseline.module.name = p.folder + "/baseline.cu";
  own->anchor.module.name = p.folder + "/anchor.cu";
  own->baseline_source = p.baseline_source;
  own->anchor_source = p.anchor_source;
  prepared_[p.id] = own;
  return own;
}

evaluation_request evaluator::build_request(const problem &p, const prepared_submission &submission,
                                            const prepared_problem &own, const std::string &arch, uint64_t seed,
                                            purpose why) const {
  evaluation_request r;
  r.problem = instance_of(p);
  r.submission = {submission.module, submission.plan};
  r.baseline = {own.baseline.module, own.baseline.plan};
  r.anchor = {own.anchor.module, own.anchor.plan};
  run_settings &s = r.settings;
  s.draws = settings_.draws;
  s.time_baseline = true;
  s.compile_only = settings_.compile_only || why == purpose::compile_check;
  s.launch_timeout_ms = static_cast<int>(settings_.launch_timeout.count());
  s.cache_dir = settings_.cache_dir;
  s.arch = arch;
  s.audit = why == purpose::audit;
  s.gpu_lock_dir = settings_.gpu_lock_dir;
  s.contention_retries = settings_.contention_retries;
  r.seed = seed;
  return r;
}

evaluation_report evaluator::evaluate(const problem &p, const dsl &d, std::string_view source, bool audit) {
  evaluation_report r = run(p, d, source, audit);
  render_report(r);
  return r;
}

evaluation_report evaluator::run(const problem &p, const dsl &d, std::string_view source, bool audit) {
  return execute(p, d, source, audit ? purpose::audit : purpose::evaluate);
}

evaluation_report evaluator::check_compiles(const problem &p, const dsl &d, std::string_view source) {
  evaluation_report r = execute(p, d, source, purpose::compile_check);
  r.counted = false;
  r.compile_check = true;
  return r;
}

evaluation_report evaluator::execute(const problem &p, const dsl &d, std::string_view source, purpose why) {
  const bool checking = why == purpose::compile_check;
  if (source.empty()) return refused(p, d, source, "the submission is empty", false);
  if (source.size() > settings_.max_source_bytes)
    return refused(p, d, source, fmt::format("the submission is {} bytes; the limit is {}", source.size(), settings_.max_source_bytes), false);
  // The code is compiled for the GPU that will run it; compile-only, for the configured target.
  frontend_environment frontends = settings_.frontends;
  try {
    frontends.arch = settings_.compile_only ? settings_.target_arch : workers_.gpu_arch();
  } catch (const error &e) {
    return refused(p, d, source, fmt::format("infrastructure failure: {}", e.what()), true);
  }
  prepared_submission submission;
  auto preparing = std::chrono::steady_clock::now();
  try {
    submission = d.prepare(source, p, plan_role::submission, frontends);
  } catch (const submission_error &e) {
    return refused(p, d, source, e.what(), false);
  } catch (const compile_failure &e) {
    return does_not_compile(p, d, source, e.what(),
                            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - preparing).count());
  }
  const std::shared_ptr<const prepared_problem> code = problem_code(p);
  const prepared_problem &own = *code;

  evaluation_report r;
  r.problem_id = p.id;
  r.dsl = d.name();
  r.source_bytes = source.size();
  r.source_hash = xxh3_128(source).hex();
  auto budget = [this](const std::string &stage) {
    if (stage == "queued") return settings_.queue_timeout;
    return stage == "" || stage == "compile" ? settings_.compile_timeout : settings_.stage_timeout;
  };
  double pool_wait_ms = 0; // waiting for this session's worker of the GPU is waiting for the GPU too
  for (int attempt = 0;; ++attempt) {
    auto asked = std::chrono::steady_clock::now();
    worker_pool::lease worker =
        checking ? workers_.acquire_compiler() : workers_.acquire(settings_.compile_only ? "" : frontends.arch);
    if (!settings_.compile_only && !checking)
      pool_wait_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - asked).count();
    worker_reply reply;
    try {
      reply = worker->request(build_request(p, submission, own, frontends.arch, os_random_u64(), why), budget);
    } catch (const error &e) {
      return refused(p, d, source, fmt::format("infrastructure failure: {}", e.what()), true, pool_wait_ms);
    }
    r.worker_output = reply.output;
    if (reply.status == worker_reply::timed_out && reply.last_stage == "queued")
      return refused(p, d, source, fmt::format("infrastructure failure: waited over {} min for the GPU, which other "
                                               "evaluations hold; the worker was stopped",
                                               settings_.queue_timeout.count() / 60000),
                     true, pool_wait_ms + static_cast<double>(settings_.queue_timeout.count()));
    if (reply.status == worker_reply::timed_out) {
      bool compiling = reply.last_stage.empty() || reply.last_stage == "compile";
      r.verdict = compiling ? MKB_VERDICT_COMPILE_ERROR : MKB_VERDICT_TIMEOUT;
      r.detail = compiling ? fmt::format("compilation took longer than {} s", settings_.compile_timeout.count() / 1000)
                           : fmt::format("the evaluation did not finish within {} s in stage '{}'; the worker was stopped",
                                         settings_.stage_timeout.count() / 1000, reply.last_stage);
      r.result.stage = reply.last_stage;
      break;
    }
    if (reply.status == worker_reply::died) {
      if (attempt < crash_retries) continue; // once more on a fresh worker: it may not be the submission's doing
      r.verdict = MKB_VERDICT_CRASHED;
      r.detail = fmt::format("the {} worker {} while in stage '{}', twice", checking ? "compile" : "GPU",
                             reply.how_it_ended, reply.last_stage);
      if (!reply.output.empty()) r.detail += "; its last output:\n" + last_bytes_of(reply.output, 2048);
      r.result.stage = reply.last_stage;
      break;
    }
    if (const worker_failure *failure = std::get_if<worker_failure>(&reply.answer))
      return refused(p, d, source, "infrastructure failure: " + failure->message, true, pool_wait_ms);
    evaluation_result *result = std::get_if<evaluation_result>(&reply.answer);
    if (!result)
      return refused(p, d, source, "infrastructure failure: the worker answered with the wrong message", true,
                     pool_wait_ms);
    r.result = std::move(*result);
    r.verdict = r.result.verdict;
    r.detail = r.result.detail;
    r.counted = !r.result.infrastructure_error;
    r.infrastructure_failure = r.result.infrastructure_error;
    if (r.result.worker_must_exit) worker->stop();
    break;
  }
  if (checking && r.verdict == MKB_VERDICT_COMPILED) {
    size_t n = submission.plan.launches.size();
    r.detail = fmt::format("compiles; {} {} checked against the code compiled for {}; nothing was run", n,
                           n == 1 ? "launch" : "launches", frontends.arch);
    r.result.detail = r.detail;
  }
  r.result.verdict = r.verdict;
  r.result.gpu_wait_ms += pool_wait_ms;
  if (r.result.detail.empty()) r.result.detail = r.detail;
  complete_report(r, p);
  return r;
}

} // namespace mkb
