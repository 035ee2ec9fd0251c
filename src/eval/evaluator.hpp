// Evaluates one submission for one problem in one DSL: refuses what cannot enter evaluation
// (oversized, empty, unparsable), prepares code and plan through the DSL's frontend for the
// architecture of the GPU that will run it (a frontend's compile error is counted, as NVRTC's is),
// runs the worker under stage deadlines, and turns what comes back into a report. A compile check
// takes the same steps up to the plan check, on a compile worker, and runs nothing.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "dsl/dsl.hpp"
#include "eval/report.hpp"
#include "eval/worker_pool.hpp"

namespace mkb {

struct evaluation_settings {
  draw_counts draws;
  std::chrono::milliseconds launch_timeout{10000};    // one wait on the GPU
  std::chrono::milliseconds compile_timeout{120000};  // NVRTC on every module
  std::chrono::milliseconds stage_timeout{600000};    // any other stage, backstop for the worker
  std::chrono::milliseconds queue_timeout{3600000};   // waiting for the GPU behind other evaluations
  std::string gpu_lock_dir;                           // the host's GPU lock folder; empty: built-in
  int contention_retries = 2;                         // timings repeated while another process shares the GPU
  bool compile_only = false;
  std::string target_arch = default_target_arch; // what compile-only evaluations compile for; the others
                                                 // compile for the GPU of the worker that runs them
  std::string cache_dir;
  uint64_t max_source_bytes = 300000;
  frontend_environment frontends; // the Python DSLs' interpreter, CUTLASS's headers
};

class evaluator {
public:
  evaluator(worker_pool &workers, evaluation_settings settings);

  // With `audit`, a passing evaluation goes on to audit the problem itself (mkb suite validate):
  // degenerate outputs, sensitivity to the inputs, launch overhead (audit_result).
  // The report is rendered (message and JSON).
  evaluation_report evaluate(const problem &p, const dsl &d, std::string_view source, bool audit = false);
  // The same, unrendered: for a caller that adds its own fields first (a task's budget), then renders.
  evaluation_report run(const problem &p, const dsl &d, std::string_view source, bool audit = false);
  // A compile check (mkb_task_compile), unrendered: the frontend, NVRTC for the architecture an
  // evaluation would compile for, and the plan checked against the compiled code, on a compile worker
  // (worker_pool::acquire_compiler), never a GPU. Verdict COMPILED ("compiles; N launches checked")
  // or what those steps give a submission; never counted.
  evaluation_report check_compiles(const problem &p, const dsl &d, std::string_view source);
  const evaluation_settings &settings() const { return settings_; }

private:
  enum class purpose { evaluate, audit, compile_check };
  evaluation_report execute(const problem &p, const dsl &d, std::string_view source, purpose why);
  struct prepared_problem {
    prepared_submission baseline, anchor;
    std::string baseline_source, anchor_source; // what they were prepared from
  };
  // Shared: an evaluation keeps the code it started with while a changed problem is prepared again.
  std::shared_ptr<const prepared_problem> problem_code(const problem &p);
  evaluation_request build_request(const problem &p, const prepared_submission &submission, const prepared_problem &own,
                                   const std::string &arch, uint64_t seed, purpose why) const;

  worker_pool &workers_;
  evaluation_settings settings_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const prepared_problem>> prepared_;
};

} // namespace mkb
