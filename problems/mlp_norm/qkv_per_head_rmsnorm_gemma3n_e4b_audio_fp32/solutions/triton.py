"""Q/K/V projections + per-head RMSNorm of q and k (#41, Gemma 3n audio shapes), fp32, in Triton (the
algorithm of solutions/cuda.cu): one program computes 128 rows x one head (128 columns) of q, k or v, so
the per-head RMSNorm over head_dim = 128 is done in the GEMM's epilogue.

The GEMM is 3xTF32 on tensor cores: each 32-wide k tile is multiplied with input_precision="tf32x3"
(hi = tf32(v), lo = v - hi, hi*hi' + hi*lo' + lo*hi') into a fresh partial product that is then added to
the fp32 accumulator with an ordinary add, so the running sum over K = 1024 never goes through the tensor
core's truncating accumulation. Epilogue in the baseline's form: r = rsqrt(mean(P^2) + eps),
out = (P * r) * weight.

Launches: head_norm for q (q_weight, q_norm_weight), head_norm for k, head_proj for v.
Rows = batch_size * seq_len = 8192 = 64 * 128 (rows past the end would be clamped on load, masked on store).
Adapted from the port for the earlier 1536 -> 8 x 192 shapes (which passed on an H200); compile-checked only.
"""
import triton
import triton.language as tl


@triton.jit
def _head_gemm(x_ptr, w_ptr, M, BM: tl.constexpr, BK: tl.constexpr, HEADS: tl.constexpr, D: tl.constexpr,
               HD: tl.constexpr):
    """For the program's (row tile, head): the [BM, HD] block x @ W[head rows]^T."""
    pid = tl.program_id(0)
    pid_m = pid // HEADS
    head = pid % HEADS
    m0 = pid_m * BM
    rows = tl.minimum(m0 + tl.arange(0, BM), M - 1)
    rk = tl.arange(0, BK)
    rn = tl.arange(0, HD)
    a_ptrs = x_ptr + (rows.to(tl.int64)[:, None] * D + rk[None, :])                       # [BM, BK]
    b_ptrs = w_ptr + (head * HD).to(tl.int64) * D + (rn[None, :] * D + rk[:, None])       # [BK, HD]
    acc = tl.zeros((BM, HD), dtype=tl.float32)
    for _ in range(0, D // BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        # a fresh partial sum of one k tile, added with a round-to-nearest fp32 add
        acc = acc + tl.dot(a, b, input_precision="tf32x3")
        a_ptrs += BK
        b_ptrs += BK
    return acc, m0, head


@triton.jit
def head_norm(x_ptr, w_ptr, nw_ptr, out_ptr, M, eps, BM: tl.constexpr = 128, BK: tl.constexpr = 32,
              HEADS: tl.constexpr = 8, D: tl.constexpr = 1024, HD: tl.constexpr = 128):
    """out[f, head, :] = (P * rsqrt(mean(P^2) + eps)) * nw with P = x[f] @ W[head * 128 : head * 128 + 128]^T."""
    acc, m0, head = _head_gemm(x_ptr, w_ptr, M, BM, BK, HEADS, D, HD)
    ms = tl.sum(acc * acc, axis=1) / HD
    r = tl.math.rsqrt(ms + eps)[:, None]
    rm = m0 + tl.arange(0, BM)
    rn = tl.arange(0, HD)
    mask = (rm < M)[:, None]
    base = out_ptr + (rm.to(tl.int64)[:, None] * D + head * HD + rn[None, :])
    tl.store(base, (acc * r) * tl.load(nw_ptr + rn)[None, :], mask=mask)


@triton.jit
def head_proj(x_ptr, w_ptr, out_ptr, M, BM: tl.constexpr = 128, BK: tl.constexpr = 32, HEADS: tl.constexpr = 8,
              D: tl.constexpr = 1024, HD: tl.constexpr = 128):
    """out[f, head, :] = x[f] @ W[head * 128 : head * 128 + 128]^T (v: no norm)."""
    acc, m0, head = _head_gemm(x_ptr, w_ptr, M, BM, BK, HEADS, D, HD)
    rm = m0 + tl.arange(0, BM)
    rn = tl.arange(0, HD)
    mask = (rm < M)[:, None]
    tl.store(out_ptr + (rm.to(tl.int64)[:, None] * D + head * HD + rn[None, :]), acc, mask=mask)


MKB_OPTIONS = {"head_norm": {"num_stages": 3}, "head_proj": {"num_stages": 3}}

MKB_PLAN = """/* mkb:plan
launch head_norm grid(ceil_div(batch_size * seq_len, 128) * num_heads) block(256)
  args(hidden_states, q_weight, q_norm_weight, q, i32(batch_size * seq_len), f32(eps))
launch head_norm grid(ceil_div(batch_size * seq_len, 128) * num_heads) block(256)
  args(hidden_states, k_weight, k_norm_weight, k, i32(batch_size * seq_len), f32(eps))
launch head_proj grid(ceil_div(batch_size * seq_len, 128) * num_heads) block(256)
  args(hidden_states, v_weight, v, i32(batch_size * seq_len))
*/"""
