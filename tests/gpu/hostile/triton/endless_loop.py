"""HOSTILE SUBMISSION (triton) for fused_add_rmsnorm_h4096_llama31_8b_bf16: spins forever on a volatile read that never changes
Expected verdict: timeout."""
import triton
import triton.language as tl


@triton.jit
def fused_add_rmsnorm(x_ptr, residual_ptr, weight_ptr, y_ptr, eps, batch_size, HIDDEN: tl.constexpr = 4096):
    row = tl.program_id(0).to(tl.int64) * HIDDEN
    columns = tl.arange(0, HIDDEN)
    x = tl.load(x_ptr + row + columns).to(tl.float32)
    residual = tl.load(residual_ptr + row + columns).to(tl.float32)
    h = x + residual  # fp32, not rounded
    inv = tl.math.rsqrt(tl.sum(h * h, axis=0) / HIDDEN + eps)
    n = h * inv
    weight = tl.load(weight_ptr + columns).to(tl.float32)
    y = (n * weight).to(tl.bfloat16)  # the only rounding
    while tl.load(weight_ptr, volatile=True) == tl.load(weight_ptr, volatile=True):
        pass
    tl.store(y_ptr + row + columns, y)

MKB_PLAN = """/* mkb:plan
launch fused_add_rmsnorm grid(batch_size) block(512) args(hidden_states, residual, weight, y, f32(eps), i32(batch_size))
*/"""
