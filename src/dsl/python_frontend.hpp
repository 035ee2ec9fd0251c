// Runs src/dsl/frontends/mkb_frontend.py in a child process: the Python DSLs (Triton, CuTe DSL,
// TIRx) compile there, so that neither their packages nor a submission's own Python code ever run
// inside the library, nor outside a sandbox. One JSON request goes out on the child's socket, one JSON
// answer comes back (src/dsl/frontend.fbs), within the environment's time limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dsl/dsl.hpp"
#include "frontend_generated.h"

namespace mkb {

// The verified answer of one run; its root is frontend::Response.
struct frontend_answer {
  std::vector<uint8_t> buffer;
  std::string output; // what the frontend printed on stdout and stderr (bounded); "" from the cache
  const frontend::Response *response() const { return frontend::GetResponse(buffer.data()); }
};

// Sends `request_json` and returns the answer. Runs in the sandbox (dsl/sandbox.hpp) unless
// env.sandbox is false or MKB_NO_SANDBOX is set. Throws submission_error when the interpreter cannot
// start, no sandbox is usable, the frontend dies without answering or answers something that does
// not parse, and compile_failure when it exceeds env.time_limit; the message ends with the frontend's
// last output.
frontend_answer run_python_frontend(const frontend_environment &env, const std::string &request_json);

// The CUTLASS include folder for `cute`: env.cutlass_include, $MKB_CUTLASS_INCLUDE, then the
// nvidia-cutlass package found by env.python. nullopt (with `why`) when there is none holding
// cute/tensor.hpp.
std::optional<std::string> cutlass_include_dir(const frontend_environment &env, std::string *why);

} // namespace mkb
