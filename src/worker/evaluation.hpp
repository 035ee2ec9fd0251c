// One evaluation of a submission on the worker's GPU (docs/CONTRACT.md is the procedure):
// compile, load and check plans, correctness draws, interleaved timing of submission and baseline,
// re-verification of randomly chosen timed draws. Every failure becomes a verdict with its detail.
#pragma once

#include <functional>
#include <string>

#include "cuda/compile_cache.hpp"
#include "wire/codec.hpp"
#include "worker/gpu.hpp"
#include "worker/harness_kernels.hpp"

namespace mkb::worker {

using progress_callback = std::function<void(const std::string &stage)>;

// `g` and `harness` are null when the worker has no GPU: the evaluation then compiles and checks
// the plans against the PTX only (verdict COMPILED).
wire::evaluation_result evaluate(gpu *g, harness_kernels *harness, const wire::Evaluate &request,
                                 const progress_callback &progress);

// Writes one draw's inputs and the anchor's outputs under `out_dir` (raw arrays and index.json).
// Returns the files written; throws mkb::error or evaluation_failure.
std::vector<std::string> write_draw(gpu &g, harness_kernels &harness, const wire::Draw &request);

} // namespace mkb::worker
