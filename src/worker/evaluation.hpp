// One evaluation of a submission on the worker's GPU (docs/CONTRACT.md is the procedure): compile,
// load and check plans, correctness draws, interleaved timing of submission and baseline with
// re-verification of secretly chosen timed draws, and on request the problem's audit. Every failure
// becomes a verdict with its detail.
#pragma once

#include <functional>
#include <string>

#include "model/evaluation_request.hpp"
#include "model/evaluation_result.hpp"
#include "worker/gpu.hpp"
#include "worker/harness_kernels.hpp"

namespace mkb::worker {

using progress_callback = std::function<void(const std::string &stage)>;

// `g` and `harness` are null when the worker has no GPU: the evaluation then compiles and checks
// the plans against the PTX only (verdict COMPILED).
evaluation_result evaluate(gpu *g, harness_kernels *harness, const evaluation_request &request,
                           const progress_callback &progress);

} // namespace mkb::worker
