"""Parakeet FastConformer feed-forward module in fp32, in Triton:
out = x + 0.5 * (W2 silu(W1 LN(x) + b1) + b2), as in solutions/cuda.cu.

Three launches: a row-per-program LayerNorm writing the normalized rows, the up GEMM with the bias and
SiLU in its epilogue, the down GEMM with the bias, the 0.5 scale and the residual in its epilogue.
Both GEMMs are 3xTF32 on tensor cores: 128x128x32 tiles, 8 warps, grouped tile order; each 32-wide
k tile is multiplied with input_precision="tf32x3" (hi = tf32(v), lo = v - hi,
hi*hi' + hi*lo' + lo*hi') into a fresh partial product that is then added to the fp32 accumulator with
an ordinary add, so the running sum never goes through the tensor core's truncating accumulation.

Shapes: d_model = 1024, d_ff = 4096 (multiples of 128); tokens = 8000 = 62.5 row tiles: A's rows
past the end are clamped to the last row (read, never stored) and the epilogue stores are masked.
"""
import triton
import triton.language as tl


@triton.jit
def _gemm_3xtf32(a_ptr, b_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                 GROUP_M: tl.constexpr):
    """acc[BM, BN] = A[m0:m0+BM, :] @ B[n0:n0+BN, :]^T with A [M, K] and B [N, K] row-major
    (N % BN == 0, K % BK == 0; rows of A at or past M read as row M - 1)."""
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = N // BN
    in_group = GROUP_M * tiles_n
    group = pid // in_group
    first_m = group * GROUP_M
    group_m = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_m
    pid_n = (pid % in_group) // group_m
    m0 = pid_m * BM
    n0 = pid_n * BN
    rows = tl.minimum(m0 + tl.arange(0, BM), M - 1)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + (rows.to(tl.int64)[:, None] * K + rk[None, :])          # [BM, BK]
    b_ptrs = b_ptr + n0.to(tl.int64) * K + (rn[None, :] * K + rk[:, None])   # [BK, BN]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K // BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        part = tl.dot(a, b, input_precision="tf32x3")  # fresh partial sum of one k tile
        acc = acc + part                                 # round-to-nearest fp32 add
        a_ptrs += BK
        b_ptrs += BK
    return acc, m0, n0


@triton.jit
def layernorm_rows(x_ptr, w_ptr, b_ptr, xn_ptr, eps, D: tl.constexpr = 1024):
    """xn[t] = (x[t] - mean) * rstd * w + b, biased variance, two passes in registers; one row per
    program."""
    row = tl.program_id(0).to(tl.int64) * D
    cols = tl.arange(0, D)
    x = tl.load(x_ptr + row + cols)
    mean = tl.sum(x, axis=0) * (1.0 / D)
    d = x - mean
    rstd = tl.math.rsqrt(tl.sum(d * d, axis=0) * (1.0 / D) + eps)
    w = tl.load(w_ptr + cols)
    b = tl.load(b_ptr + cols)
    tl.store(xn_ptr + row + cols, d * rstd * w + b)


@triton.jit
def ffn_up(xn_ptr, w1_ptr, b1_ptr, act_ptr, M, N: tl.constexpr = 4096, K: tl.constexpr = 1024,
           BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32, GROUP_M: tl.constexpr = 8):
    """act[t, j] = silu(sum_i xn[t, i] * W1[j, i] + b1[j]): M = tokens, N = d_ff, K = d_model."""
    acc, m0, n0 = _gemm_3xtf32(xn_ptr, w1_ptr, M, N, K, BM, BN, BK, GROUP_M)
    rm = m0 + tl.arange(0, BM)
    rn = n0 + tl.arange(0, BN)
    h = acc + tl.load(b1_ptr + rn)[None, :]
    a = h / (1.0 + tl.exp(-h))
    tl.store(act_ptr + (rm.to(tl.int64)[:, None] * N + rn[None, :]), a, mask=(rm < M)[:, None])


@triton.jit
def ffn_down(act_ptr, w2_ptr, b2_ptr, x_ptr, out_ptr, M, N: tl.constexpr = 1024, K: tl.constexpr = 4096,
             BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32, GROUP_M: tl.constexpr = 8):
    """out[t, i] = x[t, i] + 0.5 * (sum_j act[t, j] * W2[i, j] + b2[i]): M = tokens, N = d_model,
    K = d_ff."""
    acc, m0, n0 = _gemm_3xtf32(act_ptr, w2_ptr, M, N, K, BM, BN, BK, GROUP_M)
    rm = m0 + tl.arange(0, BM)
    rn = n0 + tl.arange(0, BN)
    f = acc + tl.load(b2_ptr + rn)[None, :]
    offs = rm.to(tl.int64)[:, None] * N + rn[None, :]
    mask = (rm < M)[:, None]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x + 0.5 * f, mask=mask)


MKB_OPTIONS = {"ffn_up": {"num_stages": 4}, "ffn_down": {"num_stages": 4}}

MKB_PLAN = """/* mkb:plan
scratch xn fp32[tokens * d_model]
scratch act fp32[tokens * d_ff]
launch layernorm_rows grid(tokens) block(128) args(x, ln_weight, ln_bias, xn, f32(eps))
launch ffn_up grid((d_ff / 128) * ceil_div(tokens, 128)) block(256) args(xn, W1, b1, act, i32(tokens))
launch ffn_down grid((d_model / 128) * ceil_div(tokens, 128)) block(256)
  args(act, W2, b2, x, out, i32(tokens))
*/"""
