// What an architecture allows a block, known without its GPU: a compile-only check (mkb_task_compile,
// `mkb check --compile-only`) tells a plan that asks for more than the target has before a
// submission is spent on it. With a GPU the device's own attributes decide (src/worker/loaded_plan.cpp).
#pragma once

#include <string_view>

namespace mkb {

// The most shared memory one block may opt in to, static and dynamic together, in bytes, for a target
// such as "sm_90a" or "sm_100a" (the CUDA C++ Programming Guide's table of compute capabilities); 0 for
// an architecture not in the table.
int max_shared_per_block_optin(std::string_view arch);

} // namespace mkb
