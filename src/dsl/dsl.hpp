// The DSL registry. A DSL turns a submission's text into code the worker compiles plus a resolved
// launch plan; everything after that is the same for every DSL. docs/DSLS.md says how to add one.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/build_info.hpp"
#include "cuda/nvrtc_compiler.hpp"
#include "plan/launch_plan.hpp"
#include "model/evaluation_request.hpp"

namespace mkb {

struct problem;

struct prepared_submission {
  module_source module;
  resolved_plan plan;
};

// A submission that cannot enter evaluation: a launch plan or Python source that does not parse, or a
// frontend that cannot work here (no interpreter, no sandbox, its answer unreadable). Refused, not
// counted (docs/CONTRACT.md, "Verdicts and what counts").
class submission_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A submission that entered evaluation and does not compile in its DSL: its Python raised while
// importing or tracing, the DSL's compiler rejected it, it took too long to compile, or its plan does
// not fit what was compiled. A counted compile_error, as an NVRTC error is; what() is the log.
class compile_failure : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Where frontends find their tools; from the session's configuration (mkb_open_options).
struct frontend_environment {
  std::string python = default_python(); // the interpreter of the Python DSLs (child processes): the
                                         // recorded one, as a session gets it
  std::string cutlass_include;        // CUTLASS's include folder for `cute`; empty: $MKB_CUTLASS_INCLUDE,
                                      // then the nvidia-cutlass package of `python`
  std::chrono::seconds time_limit{120}; // for one frontend run, as for one compilation
  std::string cache_dir;              // where answers are remembered (the compile cache's folder); empty: nowhere
  bool sandbox = true;                // run them confined (dsl/sandbox.hpp); false: MKB_OPEN_NO_SANDBOX
  std::string arch = default_target_arch; // what to compile for: the evaluating GPU's ("sm_100a"), set
                                          // by the evaluator for each evaluation
};

class dsl {
public:
  virtual ~dsl() = default;
  virtual std::string name() const = 0;         // "cuda"
  virtual std::string display_name() const = 0; // "CUDA C++ (NVRTC)"
  // What an agent needs to know to write a submission: format, plan, environment, versions.
  virtual std::string notes() const = 0;
  // The DSL's guide, src/dsl/guides/<name>.md built in: the offline manual every task in this DSL
  // points its agent to (programming model, API, tensor cores, launch plan, pitfalls, examples). Empty
  // only for a DSL whose guide the build was configured without (src/CMakeLists.txt: mkb_guides_pending).
  std::string_view guide() const;
  // Whether the toolchain works here, and if not, why (with the versions found).
  virtual bool usable(const frontend_environment &env, std::string *why) const = 0;
  // Throws submission_error (refused) or compile_failure (counted) naming what is wrong, with the line
  // where there is one. Python DSLs run the submission's own code in a child process under
  // env.time_limit and compile it for env.arch.
  virtual prepared_submission prepare(std::string_view source, const problem &p, plan_role role,
                                      const frontend_environment &env) const = 0;

  bool usable(std::string *why) const { return usable(frontend_environment{}, why); }
  prepared_submission prepare(std::string_view source, const problem &p, plan_role role) const {
    return prepare(source, p, role, frontend_environment{});
  }
};

// nullptr if no DSL has that name.
const dsl *find_dsl(std::string_view name);
std::vector<const dsl *> all_dsls();

} // namespace mkb
