// Remembers the Python frontends' answers on disk, next to the compile cache: preparing the same
// submission again (an agent resubmitting, a suite validated twice, a four-arm run replaying stored
// solutions) skips the DSL's compiler, which takes seconds (Triton, TIRx) to a minute (CuTe DSL).
#pragma once

#include <string>
#include <string_view>

#include "dsl/python_frontend.hpp"

namespace mkb {

// Runs the frontend for `request_json`, or answers from env.cache_dir (empty: no cache). The key is
// XXH3-128 of the frontend script, `pinned` ("triton 3.6.0") and the request: the submission, the
// architecture, and each kernel's parameters and launch shape. Only answers that compiled with the
// pinned package are kept, and an entry is verified again when read. *hit says which happened.
frontend_answer run_python_frontend_cached(const frontend_environment &env, std::string_view pinned,
                                           const std::string &request_json, bool *hit = nullptr);

} // namespace mkb
