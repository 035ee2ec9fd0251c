"""Q/K/V projections + per-head RMSNorm of q and k, fp32, in Triton (the algorithm of
solutions/cuda.cu): one program computes 128 frames x one head (192 columns) of q, k or v, so the
per-head RMSNorm over head_dim = 192 is done in the GEMM's epilogue.

192 is not a power of two: the head is held as three 128 x 64 accumulators (columns 0-63, 64-127,
128-191 of the head), each fed by its own 64-row slice of the weight. The GEMM is 3xTF32 on tensor
cores: each 32-wide k tile is multiplied with input_precision="tf32x3" (hi = tf32(v), lo = v - hi,
hi*hi' + hi*lo' + lo*hi') into a fresh partial product that is then added to the fp32 accumulator
with an ordinary add, so the running sum over K = 1536 never goes through the tensor core's
truncating accumulation.

Launches: head_norm for q (q_weight, q_norm_weight), head_norm for k, head_proj for v.
Shapes: hidden = 1536 = 8 heads x 192 = 48 x 32; frames = 6000 = 46 * 128 + 112: rows past the end
are clamped to the last row on load (read, never stored) and masked on store.
"""
import triton
import triton.language as tl


@triton.jit
def _head_gemm(x_ptr, w_ptr, M, BM: tl.constexpr, BK: tl.constexpr, HEADS: tl.constexpr, D: tl.constexpr,
               HD: tl.constexpr):
    """For the program's (row tile, head): the three [BM, 64] column blocks of x @ W[head rows]^T."""
    pid = tl.program_id(0)
    pid_m = pid // HEADS
    head = pid % HEADS
    m0 = pid_m * BM
    rows = tl.minimum(m0 + tl.arange(0, BM), M - 1)
    rk = tl.arange(0, BK)
    rn = tl.arange(0, 64)
    a_ptrs = x_ptr + (rows.to(tl.int64)[:, None] * D + rk[None, :])                       # [BM, BK]
    b_ptrs = w_ptr + (head * HD).to(tl.int64) * D + (rn[None, :] * D + rk[:, None])       # [BK, 64]
    acc0 = tl.zeros((BM, 64), dtype=tl.float32)
    acc1 = tl.zeros((BM, 64), dtype=tl.float32)
    acc2 = tl.zeros((BM, 64), dtype=tl.float32)
    for _ in range(0, D // BK):
        a = tl.load(a_ptrs)
        b0 = tl.load(b_ptrs)
        b1 = tl.load(b_ptrs + 64 * D)
        b2 = tl.load(b_ptrs + 128 * D)
        # fresh partial sums of one k tile, each added with a round-to-nearest fp32 add
        acc0 = acc0 + tl.dot(a, b0, input_precision="tf32x3")
        acc1 = acc1 + tl.dot(a, b1, input_precision="tf32x3")
        acc2 = acc2 + tl.dot(a, b2, input_precision="tf32x3")
        a_ptrs += BK
        b_ptrs += BK
    return acc0, acc1, acc2, m0, head


@triton.jit
def head_norm(x_ptr, w_ptr, nw_ptr, out_ptr, M, eps, BM: tl.constexpr = 128, BK: tl.constexpr = 32,
              HEADS: tl.constexpr = 8, D: tl.constexpr = 1536, HD: tl.constexpr = 192):
    """out[f, head, :] = P / sqrt(mean(P^2) + eps) * nw with P = x[f] @ W[head * 192 : head * 192 + 192]^T."""
    acc0, acc1, acc2, m0, head = _head_gemm(x_ptr, w_ptr, M, BM, BK, HEADS, D, HD)
    ss = tl.sum(acc0 * acc0, axis=1) + tl.sum(acc1 * acc1, axis=1) + tl.sum(acc2 * acc2, axis=1)
    den = tl.sqrt_rn(ss / HD + eps)[:, None]                       # sqrt(mean(P^2) + eps)
    rm = m0 + tl.arange(0, BM)
    rn = tl.arange(0, 64)
    mask = (rm < M)[:, None]
    base = out_ptr + (rm.to(tl.int64)[:, None] * D + head * HD + rn[None, :])
    tl.store(base, tl.math.div_rn(acc0, den) * tl.load(nw_ptr + rn)[None, :], mask=mask)
    tl.store(base + 64, tl.math.div_rn(acc1, den) * tl.load(nw_ptr + 64 + rn)[None, :], mask=mask)
    tl.store(base + 128, tl.math.div_rn(acc2, den) * tl.load(nw_ptr + 128 + rn)[None, :], mask=mask)


@triton.jit
def head_proj(x_ptr, w_ptr, out_ptr, M, BM: tl.constexpr = 128, BK: tl.constexpr = 32, HEADS: tl.constexpr = 8,
              D: tl.constexpr = 1536, HD: tl.constexpr = 192):
    """out[f, head, :] = x[f] @ W[head * 192 : head * 192 + 192]^T (v: no norm)."""
    acc0, acc1, acc2, m0, head = _head_gemm(x_ptr, w_ptr, M, BM, BK, HEADS, D, HD)
    rm = m0 + tl.arange(0, BM)
    rn = tl.arange(0, 64)
    mask = (rm < M)[:, None]
    base = out_ptr + (rm.to(tl.int64)[:, None] * D + head * HD + rn[None, :])
    tl.store(base, acc0, mask=mask)
    tl.store(base + 64, acc1, mask=mask)
    tl.store(base + 128, acc2, mask=mask)


MKB_OPTIONS = {"head_norm": {"num_stages": 3}, "head_proj": {"num_stages": 3}}

MKB_PLAN = """/* mkb:plan
launch head_norm grid(ceil_div(frames, 128) * heads) block(256)
  args(x, q_weight, q_norm_weight, q, i32(frames), f32(eps))
launch head_norm grid(ceil_div(frames, 128) * heads) block(256)
  args(x, k_weight, k_norm_weight, k, i32(frames), f32(eps))
launch head_proj grid(ceil_div(frames, 128) * heads) block(256)
  args(x, v_weight, v, i32(frames))
*/"""
