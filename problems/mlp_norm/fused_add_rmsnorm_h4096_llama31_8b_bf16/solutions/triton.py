"""Fused add + RMSNorm in Triton: one program per row, the whole 4096-wide row held in registers
between the two passes, fp32 throughout and one rounding, as reference.md."""
import triton
import triton.language as tl


@triton.jit
def fused_add_rmsnorm(x_ptr, residual_ptr, weight_ptr, y_ptr, eps, HIDDEN: tl.constexpr = 4096):
    row = tl.program_id(0).to(tl.int64) * HIDDEN
    columns = tl.arange(0, HIDDEN)
    x = tl.load(x_ptr + row + columns).to(tl.float32)
    residual = tl.load(residual_ptr + row + columns).to(tl.float32)
    h = x + residual  # fp32, not rounded
    inv = tl.math.rsqrt(tl.sum(h * h, axis=0) / HIDDEN + eps)
    weight = tl.load(weight_ptr + columns).to(tl.float32)
    tl.store(y_ptr + row + columns, ((h * inv) * weight).to(tl.bfloat16))


MKB_PLAN = """/* mkb:plan
launch fused_add_rmsnorm grid(batch_size) block(512) args(hidden_states, residual, weight, y, f32(eps))
*/"""
