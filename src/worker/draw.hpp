// `mkb draw`: one draw's inputs and the anchor's outputs, written as files for a reader outside the
// library (a PyTorch cross-check, a person looking at a mismatch).
#pragma once

#include <string>
#include <vector>

#include "model/worker_messages.hpp"
#include "worker/gpu.hpp"
#include "worker/harness_kernels.hpp"

namespace mkb::worker {

// Writes the raw arrays and an index.json under `request.out_dir`. Returns the files written; throws
// mkb::error or evaluation_failure.
std::vector<std::string> write_draw(gpu &g, harness_kernels &harness, const draw_request &request);

} // namespace mkb::worker
