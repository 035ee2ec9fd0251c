// The device headers (worker/device/*.cuh) that the problem's own code (baseline, anchor, generators)
// and the harness's kernels may include; a submission may not.
#pragma once

#include <vector>

#include "cuda/nvrtc_compiler.hpp"

namespace mkb::worker {

std::vector<extra_header> problem_headers();

} // namespace mkb::worker
