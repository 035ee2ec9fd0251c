# Measured on an H200 (2026-12-02): 17597 us against the eager baseline's 12604 us (0.72x). Kept to show
# the DSL, and declared in spec.json as slower than the baseline (beats_baseline: false): Triton's
# 3xTF32 products on these GEMMs (two of them read an operand MN-major) run below cuBLAS's SGEMM; not
# investigated further. solutions/cuda.cu is the fast solution.
"""Step1X-Edit MLP backward in fp32 accuracy on tensor cores, in Triton: four 3xTF32 GEMMs, with the
GELU recompute, the GELU backward and the per-tile db1 column sums fused into the epilogue of the
dy W2 GEMM (as in solutions/cuda.cu).

Launches: (1) bwd_dh: da = dy W2 (never stored); a = gelu_tanh(h) and dh = da * gelu_tanh'(h) stored
(scratch), the column sums of dh over the tile's 128 rows stored to dbp[tokens / 128, ffn] (plain
stores, no atomics). (2) column_sum: db2 = sum_t dy. (3) column_sum: db1 = sum of dbp's 16 rows.
(4) bwd_dw2: dW2 = dy^T a. (5) bwd_dw1: dW1 = dh^T x. (6) bwd_dx: dx = dh W1.

GEMM: 128x128x32 tiles, 8 warps, grouped tile order. Each 32-wide k tile is multiplied with
input_precision="tf32x3" (hi = tf32(v), lo = v - hi, hi*hi' + hi*lo' + lo*hi') into a fresh partial
product that is added to the fp32 accumulator with an ordinary add: the running sum never goes
through the tensor core's truncating accumulation. Operands are K-contiguous or M/N-contiguous in
memory (constexpr flags).

Shapes (spec): tokens = 2048, hidden = 3072, ffn = 12288, all multiples of 128: no tile is masked.
"""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _gemm_3xtf32(a_ptr, b_ptr, M, N, K, lda, ldb, A_K: tl.constexpr, B_K: tl.constexpr, BM: tl.constexpr,
                 BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    """acc[BM, BN] = sum_k A[m0 + i, k] * B[k, n0 + j].
    A_K: A[m, k] at a_ptr[m * lda + k], else at a_ptr[k * lda + m].
    B_K: B[k, n] at b_ptr[n * ldb + k], else at b_ptr[k * ldb + n]."""
    pid = tl.program_id(0)
    tiles_m = M // BM
    tiles_n = N // BN
    in_group = GROUP_M * tiles_n
    group = pid // in_group
    first_m = group * GROUP_M
    group_m = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_m
    pid_n = (pid % in_group) // group_m
    m0 = pid_m * BM
    n0 = pid_n * BN
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    if A_K:
        a_ptrs = a_ptr + m0.to(tl.int64) * lda + (rm[:, None] * lda + rk[None, :])   # [BM, BK]
        a_step = BK
    else:
        a_ptrs = a_ptr + m0 + (rk[None, :] * lda + rm[:, None])
        a_step = BK * lda
    if B_K:
        b_ptrs = b_ptr + n0.to(tl.int64) * ldb + (rn[None, :] * ldb + rk[:, None])   # [BK, BN]
        b_step = BK
    else:
        b_ptrs = b_ptr + n0 + (rk[:, None] * ldb + rn[None, :])
        b_step = BK * ldb
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K // BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        part = tl.dot(a, b, input_precision="tf32x3")  # fresh partial sum of one k tile
        acc = acc + part                                 # round-to-nearest fp32 add
        a_ptrs += a_step
        b_ptrs += b_step
    return acc, m0, n0


@triton.jit
def bwd_dh(dy_ptr, w2_ptr, h_ptr, a_ptr, dh_ptr, dbp_ptr, M, N, K, BM: tl.constexpr = 128, BN: tl.constexpr = 128,
           BK: tl.constexpr = 32, GROUP_M: tl.constexpr = 8):
    """da = dy W2 (M = tokens, N = ffn, K = hidden; dy [T, D] K-contiguous, w2 [D, F] N-contiguous);
    a = gelu_tanh(h), dh = da * gelu_tanh'(h); dbp[m0 / BM, n] = sum over the tile's rows of dh."""
    da, m0, n0 = _gemm_3xtf32(dy_ptr, w2_ptr, M, N, K, K, N, True, False, BM, BN, BK, GROUP_M)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    offs = m0.to(tl.int64) * N + n0 + (rm[:, None] * N + rn[None, :])
    v = tl.load(h_ptr + offs)
    th = libdevice.tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))  # k = sqrt(2 / pi)
    tl.store(a_ptr + offs, 0.5 * v * (1.0 + th))
    grad = 0.5 * (1.0 + th) + 0.5 * v * (1.0 - th * th) * 0.7978845608028654 * (1.0 + 3.0 * 0.044715 * v * v)
    dh = da * grad
    tl.store(dh_ptr + offs, dh)
    tl.store(dbp_ptr + (m0 // BM).to(tl.int64) * N + n0 + rn, tl.sum(dh, axis=0))


@triton.jit
def column_sum(g_ptr, out_ptr, rows, cols, BR: tl.constexpr = 64, BC: tl.constexpr = 32):
    """out[c] = sum_r g[r, c] for the program's BC columns (cols % BC == 0; rows masked)."""
    c = tl.program_id(0) * BC + tl.arange(0, BC)
    r = tl.arange(0, BR)
    acc = tl.zeros((BR, BC), dtype=tl.float32)
    for r0 in range(0, rows, BR):
        rr = r0 + r
        acc += tl.load(g_ptr + (rr[:, None] * cols + c[None, :]), mask=(rr < rows)[:, None], other=0.0)
    tl.store(out_ptr + c, tl.sum(acc, axis=0))


@triton.jit
def bwd_dw2(dy_ptr, a_ptr, dw2_ptr, M, N, K, BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32,
            GROUP_M: tl.constexpr = 8):
    """dW2 = dy^T a (M = hidden, N = ffn, K = tokens; dy [T, D] M-contiguous, a [T, F] N-contiguous)."""
    acc, m0, n0 = _gemm_3xtf32(dy_ptr, a_ptr, M, N, K, M, N, False, False, BM, BN, BK, GROUP_M)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    tl.store(dw2_ptr + m0.to(tl.int64) * N + n0 + (rm[:, None] * N + rn[None, :]), acc)


@triton.jit
def bwd_dw1(dh_ptr, x_ptr, dw1_ptr, M, N, K, BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32,
            GROUP_M: tl.constexpr = 8):
    """dW1 = dh^T x (M = ffn, N = hidden, K = tokens; dh [T, F] M-contiguous, x [T, D] N-contiguous)."""
    acc, m0, n0 = _gemm_3xtf32(dh_ptr, x_ptr, M, N, K, M, N, False, False, BM, BN, BK, GROUP_M)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    tl.store(dw1_ptr + m0.to(tl.int64) * N + n0 + (rm[:, None] * N + rn[None, :]), acc)


@triton.jit
def bwd_dx(dh_ptr, w1_ptr, dx_ptr, M, N, K, BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32,
           GROUP_M: tl.constexpr = 8):
    """dx = dh W1 (M = tokens, N = hidden, K = ffn; dh [T, F] K-contiguous, w1 [F, D] N-contiguous)."""
    acc, m0, n0 = _gemm_3xtf32(dh_ptr, w1_ptr, M, N, K, K, N, True, False, BM, BN, BK, GROUP_M)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    tl.store(dx_ptr + m0.to(tl.int64) * N + n0 + (rm[:, None] * N + rn[None, :]), acc)


MKB_OPTIONS = {"bwd_dh": {"num_stages": 4}, "bwd_dw2": {"num_stages": 4}, "bwd_dw1": {"num_stages": 4},
               "bwd_dx": {"num_stages": 4}}

MKB_PLAN = """/* mkb:plan
scratch a fp32[tokens * ffn]
scratch dh fp32[tokens * ffn]
scratch dbp fp32[(tokens / 128) * ffn]
launch bwd_dh grid((ffn / 128) * (tokens / 128)) block(256)
  args(dy, w2, h, a, dh, dbp, i32(tokens), i32(ffn), i32(hidden))
launch column_sum grid(hidden / 32) block(128) args(dy, db2, i32(tokens), i32(hidden))
launch column_sum grid(ffn / 32) block(128) args(dbp, db1, i32(tokens / 128), i32(ffn))
launch bwd_dw2 grid((ffn / 128) * (hidden / 128)) block(256)
  args(dy, a, dw2, i32(hidden), i32(ffn), i32(tokens))
launch bwd_dw1 grid((hidden / 128) * (ffn / 128)) block(256)
  args(dh, x, dw1, i32(ffn), i32(hidden), i32(tokens))
launch bwd_dx grid((hidden / 128) * (tokens / 128)) block(256)
  args(dh, w1, dx, i32(tokens), i32(hidden), i32(ffn))
*/"""
