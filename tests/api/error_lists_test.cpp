// include/mkb.h is the specification, so its error lists are checked against the library: every
// (function, status) pair on an "Errors:" line is provoked here through the real API, and a status a
// provocation returns that its function does not list fails. Nothing needs a GPU: the worker TEST
// DOUBLE stands in for it (tests/doubles/worker_double.cpp).
#include <gtest/gtest.h>

#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "api/header_errors.hpp"
#include "mkb.h"
#include "support/paths.hpp"
#include "support/scoped_environment.hpp"

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path &path, const std::string &text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

class temp_folder {
public:
  temp_folder() {
    std::string pattern = (fs::temp_directory_path() / "mkb-errors-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data()) ? pattern : "";
  }
  ~temp_folder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path operator/(const std::string &name) const { return path_ / name; }

private:
  fs::path path_;
};

// Writes past `bytes` fail with EFBIG (SIGXFSZ ignored) in this process, for the scope: how a full
// disk is provoked under the ledger without one.
class file_size_limit {
public:
  explicit file_size_limit(uintmax_t bytes) {
    ::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit limited = old_;
    limited.rlim_cur = static_cast<rlim_t>(bytes);
    ::setrlimit(RLIMIT_FSIZE, &limited);
  }
  ~file_size_limit() { ::setrlimit(RLIMIT_FSIZE, &old_); }

private:
  rlimit old_{};
};

const std::string topk = "topk_softmax_routing_mixtral_8x7b_bf16";
const fs::path topk_folder = fs::path("problems/extra") / topk;

std::string kernel(const std::string &directives = "time_us=10") {
  return read(mkb::testing::source_dir() / topk_folder / "solutions/cuda.cu") + "\n// mkb-double: " + directives + "\n";
}

// A suite of one problem whose own baseline cannot be prepared (its launch plan does not parse), and
// a kernel for it: the spec is fine, so sessions open, and evaluations fail with MKB_ERR_SPEC.
const std::string tiny_kernel =
    "extern \"C\" __global__ void k(const float *x, float *y, int n) {}\n"
    "/* mkb:plan\nlaunch k grid(1) block(1) args(x, y, i32(n))\n*/\n";

void write_broken_baseline_suite(const fs::path &suite) {
  write(suite / "test/tiny/spec.json", R"({ "id": "tiny", "family": "test", "description": "a tiny problem",
  "symbols": [ { "name": "n", "value": 1000 } ],
  "inputs": [ { "name": "x", "dtype": "fp32", "shape": ["n"] } ],
  "outputs": [ { "name": "y", "dtype": "fp32", "shape": ["n"] } ], "flops": "n", "bytes": "n * 8" })");
  write(suite / "test/tiny/reference.md", "# reference\n");
  write(suite / "test/tiny/baseline.cu", "extern \"C\" __global__ void k() {}\n/* mkb:plan\nlaunch k grid((\n*/\n");
  write(suite / "test/tiny/anchor.cu",
        "extern \"C\" __global__ void k(const float *x, double *y, int n) {}\n"
        "/* mkb:plan\nlaunch k grid(1) block(1) args(x, y, i32(n))\n*/\n");
}

void write_malformed_spec_suite(const fs::path &suite) { write(suite / "test/bad/spec.json", "{ not json"); }

mkb_open_options base_options() {
  mkb_open_options o;
  mkb_open_options_init(&o, sizeof o);
  static const std::string worker = mkb::testing::worker_double();
  o.worker_path = worker.c_str();
  o.dsl_a = o.dsl_b = "cuda";
  o.problems = topk.c_str();
  return o;
}

// A session and its first task, released at the end of the scope.
struct task_scene {
  temp_folder folder;
  std::string ledger, suite;
  mkb_session *session = nullptr;
  mkb_task *task = nullptr;

  // `adjust` may point the options at this scene's folder (ledger, suite) before the open.
  explicit task_scene(const std::function<void(task_scene &, mkb_open_options &)> &adjust = nullptr) {
    mkb_open_options o = base_options();
    if (adjust) adjust(*this, o);
    if (mkb_open(&o, &session) != MKB_OK) {
      ADD_FAILURE() << "mkb_open: " << mkb_session_errmsg(session);
      return;
    }
    size_t count = 0;
    if (mkb_next_task(session, 5000, &task, 1, &count) != MKB_OK || count != 1)
      ADD_FAILURE() << "mkb_next_task: " << mkb_session_errmsg(session);
  }
  ~task_scene() {
    mkb_task_release(task);
    mkb_close(session);
  }
  // The scene's ledger, created in its folder.
  void with_ledger(mkb_open_options &o) {
    ledger = (folder / "run.ledger").string();
    o.ledger_path = ledger.c_str();
  }
  void with_broken_baseline(mkb_open_options &o) {
    suite = (folder / "suite").string();
    write_broken_baseline_suite(suite);
    o.suite_path = suite.c_str();
    o.problems = nullptr;
  }
  uintmax_t ledger_size() const { return fs::file_size(ledger); }
  // The task's state in the scene's ledger, as mkb_plan() reads it ("done", "interrupted", ...).
  std::string planned_state() const {
    mkb_open_options o = base_options();
    o.ledger_path = ledger.c_str();
    char *text = nullptr;
    EXPECT_EQ(mkb_plan(&o, MKB_PLAN_TABLE, &text, nullptr), MKB_OK);
    std::istringstream lines(text ? text : "");
    mkb_free(text);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::string state, id;
      if (words >> state >> id && id == mkb_task_id(task)) return state;
    }
    return "absent";
  }
  mkb_status submit(const std::string &source) {
    mkb_report *r = nullptr;
    mkb_status status = mkb_submit_attempt(task, source.data(), source.size(), &r);
    mkb_report_free(r);
    return status;
  }
  mkb_status set_final(const std::string &source) { return mkb_task_set_final(task, source.data(), source.size()); }
  mkb_status compile(const std::string &source) {
    mkb_report *r = nullptr;
    mkb_status status = mkb_task_compile(task, source.data(), source.size(), &r);
    mkb_report_free(r);
    return status;
  }
  mkb_status finalize() {
    mkb_report *r = nullptr;
    mkb_status status = mkb_finalize(task, &r);
    mkb_report_free(r);
    return status;
  }
};

// A task with budget_seconds 1 whose final evaluation will fail as `prepare` arranges (before the
// deadline); the provocation then calls `call` after the deadline.
mkb_status after_deadline(const std::function<void(task_scene &, mkb_open_options &)> &adjust,
                          const std::function<void(task_scene &)> &prepare,
                          const std::function<mkb_status(task_scene &)> &call) {
  task_scene scene([&](task_scene &s, mkb_open_options &o) {
    o.budget_seconds = 1;
    if (adjust) adjust(s, o);
  });
  prepare(scene);
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));
  return call(scene);
}

// The deadline passes while `call` is repeated: the first call after it meets the open task (the
// session's deadline watcher looks every 200 ms, and would otherwise end it first: MKB_ERR_STATE).
mkb_status racing_the_deadline(const std::function<mkb_status(task_scene &)> &call, mkb_status before) {
  task_scene scene([](task_scene &, mkb_open_options &o) { o.budget_seconds = 1; });
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  mkb_status status = before;
  while (status == before && std::chrono::steady_clock::now() < until) status = call(scene);
  return status;
}

// Final evaluations that cannot be done, for the calls that end an attempt.
void final_refused_by_infrastructure(task_scene &s) { EXPECT_EQ(s.set_final(kernel("verdict=refused")), MKB_OK); }
void final_of_broken_problem(task_scene &s) { EXPECT_EQ(s.set_final(tiny_kernel), MKB_OK); }
auto broken_baseline = [](task_scene &s, mkb_open_options &o) { s.with_broken_baseline(o); };
auto ledger = [](task_scene &s, mkb_open_options &o) { s.with_ledger(o); };

// A ledger that will not take the attempt's end: the worker is started first (outside the limit).
std::unique_ptr<file_size_limit> full_ledger_at_the_end(task_scene &s) {
  EXPECT_EQ(s.submit(kernel()), MKB_OK) << mkb_task_errmsg(s.task);
  return std::make_unique<file_size_limit>(s.ledger_size());
}

// A session that failed to open.
struct failed_session {
  mkb_session *session = nullptr;
  mkb_status status;
  failed_session() {
    mkb_open_options o = base_options();
    o.gpus = "0,x";
    status = mkb_open(&o, &session);
  }
  ~failed_session() { mkb_close(session); }
};

// Evaluates the stored Triton solution (a Python DSL: its frontend runs in this process, from a
// scratch folder) while `make_obstacle`'s result stands; the worker is started before, outside it.
template <typename Make>
mkb_status evaluate_python_dsl_with(Make make_obstacle) {
  task_scene s;
  mkb_report *r = nullptr;
  std::string warm = kernel();
  EXPECT_EQ(mkb_evaluate(s.session, topk.c_str(), "cuda", warm.data(), warm.size(), &r), MKB_OK) << mkb_session_errmsg(s.session);
  mkb_report_free(r);
  // Never seen before, so that no cached frontend answer stands in for running it.
  std::string source = read(mkb::testing::source_dir() / topk_folder / "solutions/triton.py") + "\n# " +
                       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "\n";
  mkb_status status;
  {
    auto obstacle = make_obstacle();
    status = mkb_evaluate(s.session, topk.c_str(), "triton", source.data(), source.size(), &r);
  }
  mkb_report_free(r);
  return status;
}

struct provocation {
  std::string function, status;
  std::function<mkb_status()> provoke;
};

// gtest names a failed parameter with this, not with the struct's bytes.
void PrintTo(const provocation &p, std::ostream *out) { *out << p.function << " " << p.status; }

std::string status_text(mkb_status s) { return mkb_status_name(s); }

#define PROVOKE(function, status, ...) provocation{#function, #status, [] () -> mkb_status { __VA_ARGS__ }}

std::vector<provocation> provocations() {
  return {
      PROVOKE(mkb_open_options_init, MKB_ERR_INVALID_ARGUMENT, return mkb_open_options_init(nullptr, 64);),
      PROVOKE(mkb_open_options_init, MKB_ERR_VERSION, mkb_open_options o; return mkb_open_options_init(&o, 8);),

      PROVOKE(mkb_open, MKB_ERR_INVALID_ARGUMENT, mkb_open_options o = base_options(); return mkb_open(&o, nullptr);),
      PROVOKE(mkb_open, MKB_ERR_VERSION, mkb_open_options o = base_options(); o.struct_size = 16; mkb_session *s = nullptr;
              mkb_status st = mkb_open(&o, &s); mkb_close(s); return st;),
      PROVOKE(mkb_open, MKB_ERR_CONFIG, failed_session f; return f.status;),
      PROVOKE(mkb_open, MKB_ERR_NOT_FOUND, mkb_open_options o = base_options(); o.suite_path = "/nonexistent/suite";
              mkb_session *s = nullptr; mkb_status st = mkb_open(&o, &s); mkb_close(s); return st;),
      PROVOKE(mkb_open, MKB_ERR_SPEC, temp_folder f; write_malformed_spec_suite(f / "suite"); std::string suite = f / "suite";
              mkb_open_options o = base_options(); o.suite_path = suite.c_str(); o.problems = nullptr;
              mkb_session *s = nullptr; mkb_status st = mkb_open(&o, &s); mkb_close(s); return st;),
      PROVOKE(mkb_open, MKB_ERR_WORKER, mkb_open_options o = base_options(); o.worker_path = "/nonexistent/mkb-worker";
              mkb_session *s = nullptr; mkb_status st = mkb_open(&o, &s); mkb_close(s); return st;),
      PROVOKE(mkb_open, MKB_ERR_IO, temp_folder f; write(f / "file", "a file, not a folder\n");
              std::string path = f / "file/run.ledger"; mkb_open_options o = base_options(); o.ledger_path = path.c_str();
              mkb_session *s = nullptr; mkb_status st = mkb_open(&o, &s); mkb_close(s); return st;),
      PROVOKE(mkb_open, MKB_ERR_LEDGER, temp_folder f; write(f / "run.ledger", "not a ledger\n"); std::string path = f / "run.ledger";
              mkb_open_options o = base_options(); o.ledger_path = path.c_str();
              mkb_session *s = nullptr; mkb_status st = mkb_open(&o, &s); mkb_close(s); return st;),

      PROVOKE(mkb_next_task, MKB_ERR_INVALID_ARGUMENT, failed_session f; mkb_task *t[1]; size_t n;
              return mkb_next_task(f.session, 0, t, 0, &n);),
      PROVOKE(mkb_next_task, MKB_ERR_STATE, failed_session f; mkb_task *t[1]; size_t n; return mkb_next_task(f.session, 0, t, 1, &n);),
      PROVOKE(mkb_next_task, MKB_ERR_IO, temp_folder f; std::string path = f / "run.ledger";
              mkb_open_options o = base_options(); o.ledger_path = path.c_str(); mkb_session *s = nullptr;
              if (mkb_open(&o, &s) != MKB_OK) return MKB_OK;
              mkb_task *t = nullptr; size_t n = 0; mkb_status st;
              {
                file_size_limit full(fs::file_size(path));
                st = mkb_next_task(s, 0, &t, 1, &n);
              }
              // The trial was not lost: once the ledger takes records again, both solos are handed out.
              mkb_task *solos[8] = {};
              EXPECT_EQ(mkb_next_task(s, 0, solos, 8, &n), MKB_OK) << mkb_session_errmsg(s);
              EXPECT_EQ(n, 2u) << "a trial whose hand-out was not recorded was lost";
              for (size_t i = 0; i < n; ++i) mkb_task_release(solos[i]);
              mkb_close(s); return st;),

      PROVOKE(mkb_submit_attempt, MKB_ERR_INVALID_ARGUMENT, mkb_report *r; return mkb_submit_attempt(nullptr, "x", 1, &r);),
      PROVOKE(mkb_submit_attempt, MKB_ERR_STATE, task_scene s; s.finalize(); return s.submit(kernel());),
      PROVOKE(mkb_submit_attempt, MKB_ERR_BUDGET, task_scene s([](task_scene &, mkb_open_options &o) { o.budget_submissions = 1; });
              EXPECT_EQ(s.submit(kernel()), MKB_OK); return s.submit(kernel());),
      PROVOKE(mkb_submit_attempt, MKB_ERR_SPEC, task_scene s(broken_baseline); return s.submit(tiny_kernel);),
      PROVOKE(mkb_submit_attempt, MKB_ERR_WORKER,
              return after_deadline(nullptr, final_refused_by_infrastructure, [](task_scene &s) { return s.submit(kernel()); });),
      PROVOKE(mkb_submit_attempt, MKB_ERR_IO, task_scene s(ledger); EXPECT_EQ(s.submit(kernel()), MKB_OK);
              file_size_limit full(s.ledger_size()); return s.submit(kernel());),

      PROVOKE(mkb_task_compile, MKB_ERR_INVALID_ARGUMENT, task_scene s; return mkb_task_compile(s.task, "x", 1, nullptr);),
      PROVOKE(mkb_task_compile, MKB_ERR_STATE, task_scene s; s.finalize(); return s.compile(kernel());),
      PROVOKE(mkb_task_compile, MKB_ERR_BUDGET, return racing_the_deadline([](task_scene &s) { return s.compile(""); }, MKB_OK);),
      PROVOKE(mkb_task_compile, MKB_ERR_SPEC, task_scene s(broken_baseline); return s.compile(tiny_kernel);),
      PROVOKE(mkb_task_compile, MKB_ERR_WORKER,
              return after_deadline(nullptr, final_refused_by_infrastructure, [](task_scene &s) { return s.compile(kernel()); });),
      PROVOKE(mkb_task_compile, MKB_ERR_IO, task_scene s(ledger); EXPECT_EQ(s.compile(kernel()), MKB_OK) << mkb_task_errmsg(s.task);
              mkb_status st;
              {
                file_size_limit full(s.ledger_size());
                st = s.compile(kernel());
              }
              // The check was made: the task is open, and the next one is recorded.
              EXPECT_EQ(s.compile(kernel()), MKB_OK) << mkb_task_errmsg(s.task);
              return st;),

      PROVOKE(mkb_submit_skill, MKB_ERR_INVALID_ARGUMENT, task_scene s; return mkb_submit_skill(s.task, nullptr, 5);),
      PROVOKE(mkb_submit_skill, MKB_ERR_STATE, task_scene s; s.finalize(); return mkb_submit_skill(s.task, "skill", 5);),
      PROVOKE(mkb_submit_skill, MKB_ERR_CONFIG, task_scene s([](task_scene &, mkb_open_options &o) { o.skill_max_bytes = 4; });
              return mkb_submit_skill(s.task, "too long", 8);),
      PROVOKE(mkb_submit_skill, MKB_ERR_IO, task_scene s(ledger); file_size_limit full(s.ledger_size());
              return mkb_submit_skill(s.task, "skill", 5);),

      PROVOKE(mkb_task_add_usage, MKB_ERR_INVALID_ARGUMENT, task_scene s; return mkb_task_add_usage(s.task, 1, 1, NAN);),
      PROVOKE(mkb_task_add_usage, MKB_ERR_STATE, task_scene s; s.finalize(); return mkb_task_add_usage(s.task, 1, 1, 0.5);),
      PROVOKE(mkb_task_add_usage_v2, MKB_ERR_INVALID_ARGUMENT, task_scene s; return mkb_task_add_usage_v2(s.task, 1, 2, 1, 0);),
      PROVOKE(mkb_task_add_usage_v2, MKB_ERR_STATE, task_scene s; s.finalize(); return mkb_task_add_usage_v2(s.task, 2, 1, 1, 0);),

      PROVOKE(mkb_task_set_final, MKB_ERR_INVALID_ARGUMENT, task_scene s; return mkb_task_set_final(s.task, nullptr, 5);),
      PROVOKE(mkb_task_set_final, MKB_ERR_STATE, task_scene s; s.finalize(); return s.set_final(kernel());),
      PROVOKE(mkb_task_set_final, MKB_ERR_BUDGET, return racing_the_deadline([](task_scene &s) { return s.set_final(""); }, MKB_OK);),
      PROVOKE(mkb_task_set_final, MKB_ERR_CONFIG, task_scene s([](task_scene &, mkb_open_options &o) { o.budget_source_bytes = 10; });
              return s.set_final(kernel());),
      PROVOKE(mkb_task_set_final, MKB_ERR_SPEC,
              return after_deadline(broken_baseline, final_of_broken_problem, [](task_scene &s) { return s.set_final(tiny_kernel); });),
      PROVOKE(mkb_task_set_final, MKB_ERR_WORKER,
              return after_deadline(nullptr, final_refused_by_infrastructure, [](task_scene &s) { return s.set_final(kernel()); });),
      PROVOKE(mkb_task_set_final, MKB_ERR_IO, std::unique_ptr<file_size_limit> full;
              return after_deadline(ledger, [&](task_scene &s) { full = full_ledger_at_the_end(s); },
                                    [](task_scene &s) { return s.set_final(kernel()); });),

      PROVOKE(mkb_task_set_final_submission, MKB_ERR_INVALID_ARGUMENT, return mkb_task_set_final_submission(nullptr, 1);),
      PROVOKE(mkb_task_set_final_submission, MKB_ERR_STATE, task_scene s; s.finalize(); return mkb_task_set_final_submission(s.task, 1);),
      PROVOKE(mkb_task_set_final_submission, MKB_ERR_BUDGET,
              return racing_the_deadline([](task_scene &s) { return mkb_task_set_final_submission(s.task, 99); }, MKB_ERR_NOT_FOUND);),
      PROVOKE(mkb_task_set_final_submission, MKB_ERR_NOT_FOUND, task_scene s; return mkb_task_set_final_submission(s.task, 99);),
      PROVOKE(mkb_task_set_final_submission, MKB_ERR_SPEC,
              return after_deadline(broken_baseline, final_of_broken_problem,
                                    [](task_scene &s) { return mkb_task_set_final_submission(s.task, 1); });),
      PROVOKE(mkb_task_set_final_submission, MKB_ERR_WORKER,
              return after_deadline(nullptr, final_refused_by_infrastructure,
                                    [](task_scene &s) { return mkb_task_set_final_submission(s.task, 1); });),
      PROVOKE(mkb_task_set_final_submission, MKB_ERR_IO, std::unique_ptr<file_size_limit> full;
              return after_deadline(ledger, [&](task_scene &s) { full = full_ledger_at_the_end(s); },
                                    [](task_scene &s) { return mkb_task_set_final_submission(s.task, 1); });),

      PROVOKE(mkb_finalize, MKB_ERR_INVALID_ARGUMENT, return mkb_finalize(nullptr, nullptr);),
      PROVOKE(mkb_finalize, MKB_ERR_STATE, task_scene s; s.finalize(); return s.finalize();),
      PROVOKE(mkb_finalize, MKB_ERR_SPEC, task_scene s(broken_baseline); final_of_broken_problem(s); return s.finalize();),
      PROVOKE(mkb_finalize, MKB_ERR_WORKER, task_scene s; final_refused_by_infrastructure(s); return s.finalize();),
      PROVOKE(mkb_finalize, MKB_ERR_IO, task_scene s(ledger); mkb_status st;
              {
                auto full = full_ledger_at_the_end(s);
                st = s.finalize();
              }
              // The attempt stayed open, not ended without a record: finalizing again records it.
              EXPECT_EQ(s.finalize(), MKB_OK) << mkb_task_errmsg(s.task);
              EXPECT_EQ(s.planned_state(), "done");
              return st;),

      PROVOKE(mkb_evaluate, MKB_ERR_INVALID_ARGUMENT, mkb_report *r; return mkb_evaluate(nullptr, "p", "cuda", "x", 1, &r);),
      PROVOKE(mkb_evaluate, MKB_ERR_STATE, failed_session f; mkb_report *r; return mkb_evaluate(f.session, topk.c_str(), "cuda", "x", 1, &r);),
      PROVOKE(mkb_evaluate, MKB_ERR_NOT_FOUND, task_scene s; mkb_report *r;
              return mkb_evaluate(s.session, "no_such_problem", "cuda", "x", 1, &r);),
      PROVOKE(mkb_evaluate, MKB_ERR_SPEC, task_scene s(broken_baseline); mkb_report *r = nullptr;
              mkb_status st = mkb_evaluate(s.session, "tiny", "cuda", tiny_kernel.data(), tiny_kernel.size(), &r);
              mkb_report_free(r); return st;),
      PROVOKE(mkb_evaluate, MKB_ERR_WORKER, return evaluate_python_dsl_with([] { return std::make_unique<mkb::testing::scoped_environment>("TMPDIR", "/proc"); });),
      PROVOKE(mkb_evaluate, MKB_ERR_IO, return evaluate_python_dsl_with([] { return std::make_unique<file_size_limit>(0); });),

      PROVOKE(mkb_score, MKB_ERR_INVALID_ARGUMENT, task_scene s; return mkb_score(s.session, MKB_SCORE_JSON, nullptr);),
      PROVOKE(mkb_score, MKB_ERR_STATE, failed_session f; char *text; return mkb_score(f.session, MKB_SCORE_JSON, &text);),
      PROVOKE(mkb_score, MKB_ERR_IO, task_scene s(ledger); fs::remove(s.ledger); char *text = nullptr;
              mkb_status st = mkb_score(s.session, MKB_SCORE_JSON, &text); mkb_free(text); return st;),
      PROVOKE(mkb_score, MKB_ERR_LEDGER, task_scene s(ledger); write(s.folder / "other", "not a ledger\n");
              fs::rename(s.folder / "other", s.ledger); char *text = nullptr;
              mkb_status st = mkb_score(s.session, MKB_SCORE_JSON, &text); mkb_free(text); return st;),

      PROVOKE(mkb_score_ledgers, MKB_ERR_INVALID_ARGUMENT, const char *paths[] = {"x"}; char *text;
              return mkb_score_ledgers(paths, 0, MKB_SCORE_JSON, &text, nullptr);),
      PROVOKE(mkb_score_ledgers, MKB_ERR_IO, const char *paths[] = {"/nonexistent/run.ledger"}; char *text;
              return mkb_score_ledgers(paths, 1, MKB_SCORE_JSON, &text, nullptr);),
      PROVOKE(mkb_score_ledgers, MKB_ERR_LEDGER, temp_folder f; write(f / "run.ledger", "not a ledger\n");
              std::string path = f / "run.ledger"; const char *paths[] = {path.c_str()}; char *text;
              return mkb_score_ledgers(paths, 1, MKB_SCORE_JSON, &text, nullptr);),

      PROVOKE(mkb_plan, MKB_ERR_INVALID_ARGUMENT, mkb_open_options o = base_options(); char *text;
              return mkb_plan(&o, 7, &text, nullptr);),
      PROVOKE(mkb_plan, MKB_ERR_VERSION, mkb_open_options o = base_options(); o.struct_size = 16; char *text;
              return mkb_plan(&o, MKB_PLAN_JSON, &text, nullptr);),
      PROVOKE(mkb_plan, MKB_ERR_CONFIG, mkb_open_options o = base_options(); o.gpus = "x"; char *text;
              return mkb_plan(&o, MKB_PLAN_JSON, &text, nullptr);),
      PROVOKE(mkb_plan, MKB_ERR_NOT_FOUND, mkb_open_options o = base_options(); o.suite_path = "/nonexistent/suite"; char *text;
              return mkb_plan(&o, MKB_PLAN_JSON, &text, nullptr);),
      PROVOKE(mkb_plan, MKB_ERR_SPEC, temp_folder f; write_malformed_spec_suite(f / "suite"); std::string suite = f / "suite";
              mkb_open_options o = base_options(); o.suite_path = suite.c_str(); o.problems = nullptr; char *text;
              return mkb_plan(&o, MKB_PLAN_JSON, &text, nullptr);),
      PROVOKE(mkb_plan, MKB_ERR_IO, temp_folder f; fs::create_directories(f / "folder.ledger"); std::string path = f / "folder.ledger";
              mkb_open_options o = base_options(); o.ledger_path = path.c_str(); char *text;
              return mkb_plan(&o, MKB_PLAN_JSON, &text, nullptr);),
      PROVOKE(mkb_plan, MKB_ERR_LEDGER, temp_folder f; write(f / "run.ledger", "not a ledger\n"); std::string path = f / "run.ledger";
              mkb_open_options o = base_options(); o.ledger_path = path.c_str(); char *text;
              return mkb_plan(&o, MKB_PLAN_JSON, &text, nullptr);),

      PROVOKE(mkb_list_problems, MKB_ERR_INVALID_ARGUMENT, return mkb_list_problems(nullptr, nullptr, nullptr);),
      PROVOKE(mkb_list_problems, MKB_ERR_VERSION, mkb_open_options o = base_options(); o.struct_size = 16; char *json;
              return mkb_list_problems(&o, &json, nullptr);),
      PROVOKE(mkb_list_problems, MKB_ERR_CONFIG, mkb_open_options o = base_options(); o.suite_path = ""; char *json;
              return mkb_list_problems(&o, &json, nullptr);),
      PROVOKE(mkb_list_problems, MKB_ERR_NOT_FOUND, mkb_open_options o = base_options(); o.suite_path = "/nonexistent/suite";
              char *json; return mkb_list_problems(&o, &json, nullptr);),
      PROVOKE(mkb_list_problems, MKB_ERR_SPEC, temp_folder f; write_malformed_spec_suite(f / "suite"); std::string suite = f / "suite";
              mkb_open_options o = base_options(); o.suite_path = suite.c_str(); char *json;
              return mkb_list_problems(&o, &json, nullptr);),

      PROVOKE(mkb_list_dsls, MKB_ERR_INVALID_ARGUMENT, return mkb_list_dsls(nullptr, nullptr, nullptr);),
      PROVOKE(mkb_list_dsls, MKB_ERR_VERSION, mkb_open_options o = base_options(); o.struct_size = 16; char *json;
              return mkb_list_dsls(&o, &json, nullptr);),
      PROVOKE(mkb_list_dsls, MKB_ERR_CONFIG, mkb_open_options o = base_options(); o.dsl_b = nullptr; char *json;
              return mkb_list_dsls(&o, &json, nullptr);),
      PROVOKE(mkb_list_dsls, MKB_ERR_NOT_FOUND, mkb_open_options o = base_options(); o.dsl_a = "fortran"; char *json;
              return mkb_list_dsls(&o, &json, nullptr);),
  };
}

// The (function, status) pairs of a list of provocations, as "function status".
std::set<std::string> pairs_of(const std::vector<provocation> &all) {
  std::set<std::string> out;
  for (const provocation &p : all) out.insert(p.function + " " + p.status);
  return out;
}

mkb::testing::header_errors header() {
  return mkb::testing::parse_header_errors(read(fs::path(mkb::testing::source_dir()) / "include/mkb.h"));
}

TEST(ErrorLists, TheHeaderFollowsTheFormat) {
  mkb::testing::header_errors h = header();
  for (const std::string &problem : h.problems) ADD_FAILURE() << "include/mkb.h: " << problem;
  EXPECT_GE(h.listed.size(), 16u) << "the parser found too few functions: has the header's format changed?";
  // The statuses no list names are the conventions' own: everywhere, or reserved.
  std::set<std::string> named;
  for (auto &[function, statuses] : h.listed) named.insert(statuses.begin(), statuses.end());
  for (mkb_status s = -1; s >= -13; --s) {
    std::string name = mkb_status_name(s);
    bool global = s == MKB_ERR_NO_MEMORY || s == MKB_ERR_INTERNAL, reserved = s == MKB_ERR_UNSUPPORTED;
    EXPECT_EQ(named.count(name) == 0, global || reserved) << name;
  }
  std::string text = read(fs::path(mkb::testing::source_dir()) / "include/mkb.h");
  EXPECT_NE(text.find("MKB_ERR_UNSUPPORTED is reserved"), std::string::npos);
  EXPECT_NE(text.find("may also return MKB_ERR_NO_MEMORY"), std::string::npos);
}

// Both ways: a listed pair nobody provokes is an untested promise, a provoked pair nobody lists is
// an untrue header.
TEST(ErrorLists, EveryListedErrorIsProvokedAndEveryProvokedOneListed) {
  std::set<std::string> listed, provoked = pairs_of(provocations());
  for (auto &[function, statuses] : header().listed)
    for (const std::string &status : statuses) listed.insert(function + " " + status);
  for (const std::string &pair : listed)
    EXPECT_TRUE(provoked.count(pair)) << pair << ": listed in include/mkb.h, but no provocation here returns it";
  for (const std::string &pair : provoked)
    EXPECT_TRUE(listed.count(pair)) << pair << ": returned by the library, but not on the function's Errors: line";
}

class Provoke : public ::testing::TestWithParam<provocation> {};

TEST_P(Provoke, ReturnsTheListedStatus) {
  const provocation &p = GetParam();
  mkb_status got = p.provoke();
  EXPECT_EQ(status_text(got), p.status) << p.function;
  if (got < 0 && got != MKB_ERR_NO_MEMORY && got != MKB_ERR_INTERNAL) {
    auto listed = header().listed[p.function];
    EXPECT_TRUE(listed.count(status_text(got))) << p.function << " returned " << status_text(got) << ", not on its Errors: line";
  }
}

INSTANTIATE_TEST_SUITE_P(Api, Provoke, ::testing::ValuesIn(provocations()),
                         [](const ::testing::TestParamInfo<provocation> &info) {
                           return info.param.function + "_" + info.param.status.substr(8); // past "MKB_ERR_"
                         });

} // namespace
