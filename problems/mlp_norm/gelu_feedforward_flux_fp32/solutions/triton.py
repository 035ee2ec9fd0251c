"""FLUX.1 FeedForward in fp32 accuracy on tensor cores, in Triton: two 3xTF32 GEMMs with the bias and
the GELU (tanh) in their epilogues, as in solutions/cuda.cu.

GEMM: 128x128x32 tiles, 8 warps, grouped (L2-friendly) tile order. Each 32-wide k tile is multiplied
with input_precision="tf32x3" (v = hi + lo, hi = tf32(v), hi*hi' + hi*lo' + lo*hi') into a fresh
partial product that is then added to the fp32 accumulator with an ordinary add, so the running sum
never goes through the tensor core's truncating accumulation.

Shapes (spec): tokens = batch_size * seq_len = 16384, hidden = hidden_dim = 3072, ffn = mlp_hidden_dim = 12288: M % 128, N % 128 and K % 32 are 0, so no
tile needs masking.
"""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _gemm_3xtf32(a_ptr, b_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                 GROUP_M: tl.constexpr):
    """acc[BM, BN] = A[m0:m0+BM, :] @ B[n0:n0+BN, :]^T with A [M, K] and B [N, K] row-major."""
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
    a_ptrs = a_ptr + m0.to(tl.int64) * K + (rm[:, None] * K + rk[None, :])   # [BM, BK]
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
def ff_up(x_ptr, w1_ptr, b1_ptr, a_ptr, M, N, K, BM: tl.constexpr = 128, BN: tl.constexpr = 128,
          BK: tl.constexpr = 32, GROUP_M: tl.constexpr = 8):
    """a[t, j] = gelu_tanh(sum_k x[t, k] * w1[j, k] + b1[j]): M = tokens, N = ffn, K = hidden."""
    acc, m0, n0 = _gemm_3xtf32(x_ptr, w1_ptr, M, N, K, BM, BN, BK, GROUP_M)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    bias = tl.load(b1_ptr + n0 + rn)
    h = acc + bias[None, :]
    g = 0.5 * h * (1.0 + libdevice.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h)))
    out = a_ptr + m0.to(tl.int64) * N + n0 + (rm[:, None] * N + rn[None, :])
    tl.store(out, g)


@triton.jit
def ff_down(a_ptr, w2_ptr, b2_ptr, y_ptr, M, N, K, BM: tl.constexpr = 128, BN: tl.constexpr = 128,
            BK: tl.constexpr = 32, GROUP_M: tl.constexpr = 8):
    """y[t, i] = sum_j a[t, j] * w2[i, j] + b2[i]: M = tokens, N = hidden, K = ffn."""
    acc, m0, n0 = _gemm_3xtf32(a_ptr, w2_ptr, M, N, K, BM, BN, BK, GROUP_M)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    bias = tl.load(b2_ptr + n0 + rn)
    out = y_ptr + m0.to(tl.int64) * N + n0 + (rm[:, None] * N + rn[None, :])
    tl.store(out, acc + bias[None, :])


MKB_OPTIONS = {"ff_up": {"num_stages": 4}, "ff_down": {"num_stages": 4}}

MKB_PLAN = """/* mkb:plan
scratch a fp32[batch_size * seq_len * mlp_hidden_dim]
launch ff_up grid((mlp_hidden_dim / 128) * (batch_size * seq_len / 128)) block(256)
  args(x, w1, b1, a, i32(batch_size * seq_len), i32(mlp_hidden_dim), i32(hidden_dim))
launch ff_down grid((hidden_dim / 128) * (batch_size * seq_len / 128)) block(256)
  args(a, w2, b2, y, i32(batch_size * seq_len), i32(hidden_dim), i32(mlp_hidden_dim))
*/"""
