"""HOSTILE SUBMISSION (triton) for fused_add_rmsnorm_h4096_llama31_8b_bf16: forgets the weight multiply (weights are N(1, 0.05), so outputs drift by up to ~20%)
Expected verdict: wrong_answer."""
import triton
import triton.language as tl


@triton.jit
def fused_add_rmsnorm(x_ptr, residual_ptr, weight_ptr, y_ptr, eps, tokens, HIDDEN: tl.constexpr = 4096):
    row = tl.program_id(0).to(tl.int64) * HIDDEN
    columns = tl.arange(0, HIDDEN)
    x = tl.load(x_ptr + row + columns).to(tl.float32)
    residual = tl.load(residual_ptr + row + columns).to(tl.float32)
    s = (x + residual).to(tl.bfloat16)
    tl.store(residual_ptr + row + columns, s)
    h = s.to(tl.float32)
    inv = tl.math.rsqrt(tl.sum(h * h, axis=0) / HIDDEN + eps)
    n = (h * inv).to(tl.bfloat16)
    weight = tl.load(weight_ptr + columns).to(tl.float32)
    y = (n.to(tl.float32) * weight).to(tl.bfloat16)
    tl.store(y_ptr + row + columns, n)

MKB_PLAN = """/* mkb:plan
launch fused_add_rmsnorm grid(tokens) block(512) args(x, residual, weight, y, f32(eps), i32(tokens))
*/"""
