// The C ABI (include/mkb.h). Every exported function is noexcept: it runs its body inside
// api_boundary(), the one place where exceptions become a status and a message on the handle.
#include "mkb.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <string>

#include "api/error_slot.hpp"
#include "api/open_options.hpp"
#include "core/error.hpp"
#include "core/names.hpp"
#include "eval/report.hpp"
#include "protocol/discovery.hpp"
#include "protocol/ledger.hpp"
#include "protocol/scoring.hpp"
#include "protocol/dry_run.hpp"
#include "protocol/session.hpp"
#include "protocol/staleness.hpp"

// ---- Handles ----------------------------------------------------------------------------------------

using mkb::api::error_slot;

struct mkb_session {
  error_slot errors;
  std::unique_ptr<mkb::session> impl; // null when mkb_open failed
};

struct mkb_task {
  error_slot errors;
  std::shared_ptr<mkb::task> impl;
};

struct mkb_report {
  mkb::evaluation_report report;
};

namespace {

// Runs `body`, mapping every exception to a status and storing its text in `errors` (if any).
template <typename Body>
mkb_status api_boundary(error_slot *errors, Body &&body) noexcept {
  try {
    if (errors) errors->clear();
    return body();
  } catch (const mkb::error &e) {
    if (errors) errors->set(e.what());
    return e.status();
  } catch (const std::bad_alloc &) {
    if (errors) errors->set("out of host memory");
    return MKB_ERR_NO_MEMORY;
  } catch (const std::exception &e) {
    if (errors) errors->set(std::string("internal error: ") + e.what());
    return MKB_ERR_INTERNAL;
  } catch (...) {
    if (errors) errors->set("internal error: unknown exception");
    return MKB_ERR_INTERNAL;
  }
}

// Arguments are checked inside api_boundary, after the handle's error text was cleared, so that a
// refused call never leaves the text of an earlier one behind, and the text says what was wrong.
void require(bool ok, const char *what) {
  if (!ok) mkb::fail(MKB_ERR_INVALID_ARGUMENT, "{}", what);
}

char *owned_copy(const std::string &text) {
  char *out = static_cast<char *>(std::malloc(text.size() + 1));
  if (!out) throw std::bad_alloc();
  std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

// Hands a session-less call's error text to its caller, if asked for.
void hand_out_error(const error_slot &errors, char **error_out, mkb_status status) noexcept {
  if (status == MKB_OK || !error_out) return;
  try {
    *error_out = owned_copy(errors.get());
  } catch (...) {
  }
}

// The shape of the calls that need no session (plans, discovery): an owned text, or an owned error text.
template <typename Produce>
mkb_status owned_answer(char **text_out, char **error_out, Produce &&produce) noexcept {
  if (text_out) *text_out = nullptr;
  if (error_out) *error_out = nullptr;
  if (!text_out) return MKB_ERR_INVALID_ARGUMENT;
  error_slot errors;
  mkb_status status = api_boundary(&errors, [&] {
    *text_out = owned_copy(produce());
    return MKB_OK;
  });
  hand_out_error(errors, error_out, status);
  return status;
}

} // namespace

// ---- Library ----------------------------------------------------------------------------------------

extern "C" {

const char *mkb_status_name(mkb_status status) noexcept { return mkb::status_name(status); }
const char *mkb_verdict_name(int32_t verdict) noexcept { return mkb::verdict_name(verdict); }
const char *mkb_arm_name(int32_t arm) noexcept { return mkb::arm_name(arm); }
const char *mkb_version(void) noexcept { return MKB_VERSION_STRING; }
uint32_t mkb_version_number(void) noexcept { return MKB_VERSION_NUMBER; }
uint32_t mkb_abi_version(void) noexcept { return MKB_ABI_VERSION; }
void mkb_free(void *pointer) noexcept { std::free(pointer); }

// ---- Session ----------------------------------------------------------------------------------------

mkb_status mkb_open_options_init(mkb_open_options *options, size_t struct_size) noexcept {
  if (!options) return MKB_ERR_INVALID_ARGUMENT;
  if (struct_size < offsetof(mkb_open_options, python) + sizeof(options->python)) return MKB_ERR_VERSION;
  // Only the caller's part of the struct is written: it may be an older, smaller version.
  std::memset(options, 0, std::min(struct_size, sizeof(mkb_open_options)));
  options->struct_size = struct_size;
  return MKB_OK;
}

mkb_status mkb_open(const mkb_open_options *options, mkb_session **session_out) noexcept {
  if (!session_out) return MKB_ERR_INVALID_ARGUMENT;
  *session_out = nullptr;
  mkb_session *s = new (std::nothrow) mkb_session;
  if (!s) return MKB_ERR_NO_MEMORY;
  *session_out = s;
  return api_boundary(&s->errors, [&] {
    s->impl = std::make_unique<mkb::session>(mkb::config_from_options(options));
    return MKB_OK;
  });
}

void mkb_close(mkb_session *session) noexcept {
  if (!session) return;
  try {
    session->impl.reset();
  } catch (...) {
    // Closing must not fail; what could not be released is released by the process exit.
  }
  delete session;
}

const char *mkb_session_errmsg(const mkb_session *session) noexcept {
  if (!session) return "no session (NULL handle)";
  return session->errors.get();
}

// ---- Tasks (the four-arm protocol) -----------------------------------------------------------------

mkb_status mkb_next_task(mkb_session *session, uint32_t wait_ms, mkb_task **tasks_out, size_t capacity,
                         size_t *count_out) noexcept {
  if (count_out) *count_out = 0;
  if (!session) return MKB_ERR_INVALID_ARGUMENT;
  return api_boundary(&session->errors, [&] {
    require(tasks_out && count_out, "mkb_next_task: tasks_out and count_out must not be NULL");
    require(capacity > 0, "mkb_next_task: capacity must be at least 1");
    if (!session->impl) mkb::fail(MKB_ERR_STATE, "the session failed to open");
    bool done = false;
    auto tasks = session->impl->next_tasks(std::chrono::milliseconds(wait_ms), capacity, &done);
    std::vector<std::unique_ptr<mkb_task>> handles;
    for (auto &t : tasks) {
      handles.push_back(std::make_unique<mkb_task>());
      handles.back()->impl = std::move(t);
    }
    for (size_t i = 0; i < handles.size(); ++i) tasks_out[i] = handles[i].release();
    *count_out = tasks.size();
    if (!tasks.empty()) return MKB_OK;
    return done ? MKB_DONE : MKB_NOT_READY;
  });
}

const char *mkb_task_id(const mkb_task *t) noexcept { return t ? t->impl->id().c_str() : nullptr; }
const char *mkb_task_problem(const mkb_task *t) noexcept { return t ? t->impl->key().problem.c_str() : nullptr; }
const char *mkb_task_family(const mkb_task *t) noexcept { return t ? t->impl->key().family.c_str() : nullptr; }
const char *mkb_task_dsl(const mkb_task *t) noexcept { return t ? t->impl->key().dsl.c_str() : nullptr; }
int32_t mkb_task_arm(const mkb_task *t) noexcept { return t ? t->impl->key().arm : -1; }
uint32_t mkb_task_replicate(const mkb_task *t) noexcept { return t ? static_cast<uint32_t>(t->impl->key().replicate) : 0; }
const char *mkb_task_instruction(const mkb_task *t) noexcept { return t ? t->impl->instruction().c_str() : nullptr; }
const char *mkb_task_source_skill(const mkb_task *t) noexcept {
  return t && !t->impl->source_skill().empty() ? t->impl->source_skill().c_str() : nullptr;
}
const char *mkb_task_json(const mkb_task *t) noexcept { return t ? t->impl->json().c_str() : nullptr; }
const char *mkb_task_errmsg(const mkb_task *task) noexcept { return task ? task->errors.get() : "no task (NULL handle)"; }

mkb_status mkb_submit_attempt(mkb_task *task, const char *source, size_t size, mkb_report **report_out) noexcept {
  if (report_out) *report_out = nullptr;
  if (!task) return MKB_ERR_INVALID_ARGUMENT;
  return api_boundary(&task->errors, [&] {
    require(source || !size, "mkb_submit_attempt: source is NULL but size is not 0");
    require(report_out, "mkb_submit_attempt: report_out must not be NULL");
    auto report = std::make_unique<mkb_report>();
    report->report = task->impl->submit(std::string_view(source ? source : "", size));
    *report_out = report.release();
    return MKB_OK;
  });
}

mkb_status mkb_task_compile(mkb_task *task, const char *source, size_t size, mkb_report **report_out) noexcept {
  if (report_out) *report_out = nullptr;
  if (!task) return MKB_ERR_INVALID_ARGUMENT;
  return api_boundary(&task->errors, [&] {
    require(source || !size, "mkb_task_compile: source is NULL but size is not 0");
    require(report_out, "mkb_task_compile: report_out must not be NULL");
    auto report = std::make_unique<mkb_report>();
    report->report = task->impl->compile(std::string_view(source ? source : "", size));
    *report_out = report.release();
    return MKB_OK;
  });
}

// Neither may fail (mkb.h); only taking the task's lock could throw.
uint32_t mkb_task_submissions_left(const mkb_task *t) noexcept {
  try {
    return t ? t->impl->submissions_left() : 0;
  } catch (...) {
    return 0;
  }
}

double mkb_task_seconds_left(const mkb_task *t) noexcept {
  try {
    return t ? t->impl->seconds_left() : NAN;
  } catch (...) {
    return NAN;
  }
}

mkb_status mkb_submit_skill(mkb_task *task, const char *text, size_t size) noexcept {
  if (!task) return MKB_ERR_INVALID_ARGUMENT;
  return api_boundary(&task->errors, [&] {
    require(text || !size, "mkb_submit_skill: text is NULL but size is not 0");
    task->impl->submit_skill(std::string_view(text ? text : "", size));
    return MKB_OK;
  });
}

mkb_status mkb_task_add_usage(mkb_task *task, uint64_t input_tokens, uint64_t output_tokens, double cost_usd) noexcept {
  return mkb_task_add_usage_v2(task, input_tokens, 0, output_tokens, cost_usd);
}

mkb_status mkb_task_add_usage_v2(mkb_task *task, uint64_t input_tokens, uint64_t cached_input_tokens,
                                 uint64_t output_tokens, double cost_usd) noexcept {
  if (!task) return MKB_ERR_INVALID_ARGUMENT;
  return api_boundary(&task->errors, [&] {
    task->impl->add_usage({input_tokens, cached_input_tokens, output_tokens, cost_usd});
    return MKB_OK;
  });
}

mkb_status mkb_task_set_final(mkb_task *task, const char *source, size_t size) noexcept {
  if (!task) return MKB_ERR_INVALID_ARGUMENT;
  return api_boundary(&task->errors, [&] {
    require(source || !size, "mkb_task_set_final: source is NULL but size is not 0");
    task->impl->set_final(std::string_view(source ? source : "", size));
    return MKB_OK;
  });
}

mkb_status mkb_task_set_final_submission(mkb_task *task, uint32_t submission) noexcept {
  if (!task) return MKB_ERR_INVALID_ARGUMENT;
  return api_boundary(&task->errors, [&] {
    task->impl->set_final_submission(submission);
    return MKB_OK;
  });
}

mkb_status mkb_finalize(mkb_task *task, mkb_report **report_out) noexcept {
  if (report_out) *report_out = nullptr;
  if (!task) return MKB_ERR_INVALID_ARGUMENT;
  return api_boundary(&task->errors, [&] {
    auto report = std::make_unique<mkb_report>();
    report->report = task->impl->finalize("agent");
    if (report_out) *report_out = report.release();
    return MKB_OK;
  });
}

void mkb_task_release(mkb_task *task) noexcept {
  if (!task) return;
  try {
    if (!task->impl->ended()) task->impl->finalize("release");
  } catch (...) {
    // A closed session or a failed final evaluation: the trial stays unfinished and is planned again.
  }
  delete task;
}

// ---- Reports ----------------------------------------------------------------------------------------

int32_t mkb_report_verdict(const mkb_report *r) noexcept { return r ? r->report.verdict : -1; }
int32_t mkb_report_counted(const mkb_report *r) noexcept { return r && r->report.counted ? 1 : 0; }
int32_t mkb_report_final(const mkb_report *r) noexcept { return r && r->report.final ? 1 : 0; }
double mkb_report_time_us(const mkb_report *r) noexcept { return r ? r->report.time_us : NAN; }
double mkb_report_baseline_us(const mkb_report *r) noexcept { return r ? r->report.baseline_us : NAN; }
double mkb_report_speedup(const mkb_report *r) noexcept { return r ? r->report.speedup : NAN; }
double mkb_report_eager_us(const mkb_report *r) noexcept { return r ? r->report.eager_us : NAN; }
double mkb_report_speedup_vs_eager(const mkb_report *r) noexcept { return r ? r->report.speedup_vs_eager : NAN; }
uint32_t mkb_report_submission(const mkb_report *r) noexcept { return r ? r->report.submission : 0; }
uint32_t mkb_report_submissions_left(const mkb_report *r) noexcept { return r ? r->report.submissions_left : 0; }
double mkb_report_seconds_left(const mkb_report *r) noexcept { return r ? r->report.seconds_left : NAN; }
const char *mkb_report_message(const mkb_report *r) noexcept { return r ? r->report.message.c_str() : nullptr; }
const char *mkb_report_json(const mkb_report *r) noexcept { return r ? r->report.json.c_str() : nullptr; }
void mkb_report_free(mkb_report *r) noexcept { delete r; }

// ---- Evaluation outside the protocol ---------------------------------------------------------------

mkb_status mkb_evaluate(mkb_session *session, const char *problem, const char *dsl, const char *source, size_t size,
                        mkb_report **report_out) noexcept {
  if (report_out) *report_out = nullptr;
  if (!session) return MKB_ERR_INVALID_ARGUMENT;
  return api_boundary(&session->errors, [&] {
    require(problem && dsl, "mkb_evaluate: problem and dsl must not be NULL");
    require(source || !size, "mkb_evaluate: source is NULL but size is not 0");
    require(report_out, "mkb_evaluate: report_out must not be NULL");
    if (!session->impl) mkb::fail(MKB_ERR_STATE, "the session failed to open");
    auto report = std::make_unique<mkb_report>();
    report->report = session->impl->evaluate(problem, dsl, std::string_view(source ? source : "", size));
    *report_out = report.release();
    return MKB_OK;
  });
}

// ---- Scores -----------------------------------------------------------------------------------------

mkb_status mkb_score(mkb_session *session, uint32_t format, char **text_out) noexcept {
  if (text_out) *text_out = nullptr;
  if (!session) return MKB_ERR_INVALID_ARGUMENT;
  return api_boundary(&session->errors, [&] {
    require(text_out, "mkb_score: text_out must not be NULL");
    require((format & ~MKB_SCORE_WITH_STALE) <= MKB_SCORE_TABLE,
            "mkb_score: format must be MKB_SCORE_JSON or MKB_SCORE_TABLE, optionally with MKB_SCORE_WITH_STALE");
    if (!session->impl) mkb::fail(MKB_ERR_STATE, "the session failed to open");
    *text_out = owned_copy(session->impl->score((format & ~MKB_SCORE_WITH_STALE) == MKB_SCORE_TABLE,
                                                format & MKB_SCORE_WITH_STALE));
    return MKB_OK;
  });
}

mkb_status mkb_score_ledgers(const char *const *paths, size_t count, uint32_t format, char **text_out,
                             char **error_out) noexcept {
  if (text_out) *text_out = nullptr;
  if (error_out) *error_out = nullptr;
  if (!paths || count == 0 || !text_out || (format & ~MKB_SCORE_WITH_STALE) > MKB_SCORE_TABLE)
    return MKB_ERR_INVALID_ARGUMENT;
  error_slot errors;
  mkb_status status = api_boundary(&errors, [&] {
    std::vector<mkb::trial_result> results;
    for (size_t i = 0; i < count; ++i) {
      if (!paths[i]) mkb::fail(MKB_ERR_INVALID_ARGUMENT, "paths[{}] is NULL", i);
      auto contents = mkb::ledger::read(paths[i]);
      auto latest = mkb::latest_with_staleness(contents.finished, contents.current); // judged per file
      results.insert(results.end(), latest.begin(), latest.end());
    }
    *text_out = owned_copy(mkb::score_results(results, (format & ~MKB_SCORE_WITH_STALE) == MKB_SCORE_TABLE,
                                              format & MKB_SCORE_WITH_STALE));
    return MKB_OK;
  });
  hand_out_error(errors, error_out, status);
  return status;
}

// ---- Plans ------------------------------------------------------------------------------------------

mkb_status mkb_plan(const mkb_open_options *options, uint32_t format, char **text_out, char **error_out) noexcept {
  return owned_answer(text_out, error_out, [&] {
    require(format <= MKB_PLAN_TABLE, "format: expected MKB_PLAN_JSON or MKB_PLAN_TABLE");
    return mkb::dry_run(mkb::config_from_options(options), format == MKB_PLAN_TABLE);
  });
}

mkb_status mkb_list_problems(const mkb_open_options *options, char **json_out, char **error_out) noexcept {
  return owned_answer(json_out, error_out, [&] {
    return mkb::problems_json(mkb::suite::load(mkb::config_from_options(options).suite_path));
  });
}

mkb_status mkb_list_dsls(const mkb_open_options *options, char **json_out, char **error_out) noexcept {
  return owned_answer(json_out, error_out, [&] {
    return mkb::toolchains_json(mkb::survey_toolchains(mkb::config_from_options(options)));
  });
}

} // extern "C"
