"""Fused q_norm + k_norm (per-head RMSNorm, head_dim 128, bf16) in Triton: one launch, one pass.

Each program normalizes ROWS consecutive head rows (a [ROWS, 128] tile, contiguous in memory): the
first q_heads*tokens/ROWS programs take rows of q, the rest rows of k. Rounding as the eager
reference and cuda.cu: fp32 mean of squares, n = bf16(h * rsqrt(ms + eps)), out = bf16(n * w).
"""
import triton
import triton.language as tl


@triton.jit
def _rmsnorm_rows(x_ptr, w_ptr, out_ptr, first_row, eps, ROWS: tl.constexpr, HEAD_DIM: tl.constexpr):
    rows = first_row + tl.arange(0, ROWS)
    cols = tl.arange(0, HEAD_DIM)
    offs = rows[:, None].to(tl.int64) * HEAD_DIM + cols[None, :]
    h = tl.load(x_ptr + offs).to(tl.float32)
    ms = tl.sum(h * h, axis=1) * (1.0 / HEAD_DIM)  # exact: HEAD_DIM is a power of two
    inv = tl.math.rsqrt(ms + eps)
    n = (h * inv[:, None]).to(tl.bfloat16)
    w = tl.load(w_ptr + cols).to(tl.float32)
    tl.store(out_ptr + offs, (n.to(tl.float32) * w[None, :]).to(tl.bfloat16))


@triton.jit
def qk_rmsnorm(q_ptr, k_ptr, q_weight_ptr, k_weight_ptr, q_out_ptr, k_out_ptr, q_programs, eps,
               ROWS: tl.constexpr = 32, HEAD_DIM: tl.constexpr = 128):
    pid = tl.program_id(0)
    if pid < q_programs:
        _rmsnorm_rows(q_ptr, q_weight_ptr, q_out_ptr, pid * ROWS, eps, ROWS, HEAD_DIM)
    else:
        _rmsnorm_rows(k_ptr, k_weight_ptr, k_out_ptr, (pid - q_programs) * ROWS, eps, ROWS, HEAD_DIM)


MKB_PLAN = """/* mkb:plan
launch qk_rmsnorm grid(tokens * (q_heads + kv_heads) / 32) block(128)
  args(q, k, q_weight, k_weight, q_out, k_out, i32(tokens * q_heads / 32), f32(eps))
*/"""
