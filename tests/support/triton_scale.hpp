// A small Triton submission for the scaling problem of the DSL tests: y = 2 x over n elements.
#pragma once

namespace mkb::testing {

inline constexpr const char *triton_scale = R"(import triton
import triton.language as tl

@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr = 256):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)

MKB_PLAN = """/* mkb:plan
launch scale grid(ceil_div(n, 256)) block(128) args(x, y, i32(n))
*/"""
)";

} // namespace mkb::testing
