// PTX units to one cubin with nvJitLink, loaded with dlopen on first use. The Python DSLs' frontends
// (Triton, CuTe DSL) hand back one PTX unit per compiled kernel; linking them gives the worker one
// module, exactly as a CUDA C++ submission does. Needs no GPU.
#pragma once

#include <string>
#include <vector>

#include "cuda/nvrtc_compiler.hpp"

namespace mkb {

// Links `units` (named by `names`, for messages) for `arch`. Failure is reported in the output's
// `ok` and `log`; the output's `ptx` is the units joined, for the plan's parameter checks.
compile_output link_ptx(const std::vector<std::string> &units, const std::string &arch);

} // namespace mkb
