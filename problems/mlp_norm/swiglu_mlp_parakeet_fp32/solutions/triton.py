"""SwiGLU MLP (original #32, reconstructed) in fp32, in Triton, as solutions/cuda.cu:
out = (silu(gate) * up) @ w_down.T with gate, up = (x @ w_gate_up.T).chunk(2, -1) (the first half gates).

Two launches: the gate-up GEMM (each program computes a 128 x 64 tile of gate columns j and of the
matching up columns I + j, then the gating in its epilogue: act is written, h never is), then the down
GEMM. Both are 3xTF32 on tensor cores, grouped tile order; each 32-wide k tile is multiplied with
input_precision="tf32x3" (hi = tf32(v), lo = v - hi, hi*hi' + hi*lo' + lo*hi') into a fresh partial
product that is then added to the fp32 accumulator with an ordinary add, so the running sum never goes
through the tensor core's truncating accumulation. The gating rounds as eager does: s = 1 / (1 + exp(-gate))
(libdevice exp, a correctly rounded division), g = gate * s, act = g * up.

Shapes: hidden 1024, intermediate 4096 (multiples of 128); tokens = 64 x 128 = 8192 rows: A's rows past
the end (none here) are clamped to the last row (read, never stored) and the stores are masked.
"""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _tile_ids(M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP_M: tl.constexpr):
    """(m0, n0) of this program's [BM, BN] tile of an [M, N] output, grouped along M for L2 reuse."""
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = N // BN
    in_group = GROUP_M * tiles_n
    group = pid // in_group
    first_m = group * GROUP_M
    group_m = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_m
    pid_n = (pid % in_group) // group_m
    return pid_m * BM, pid_n * BN


@triton.jit
def swiglu_up(x_ptr, w_ptr, act_ptr, M, I: tl.constexpr = 4096, K: tl.constexpr = 1024,
              BM: tl.constexpr = 128, BN: tl.constexpr = 64, BK: tl.constexpr = 32, GROUP_M: tl.constexpr = 8):
    """act[t, j] = (gate * sigmoid(gate)) * up, gate = x[t] . w[j], up = x[t] . w[I + j]: M = tokens."""
    m0, n0 = _tile_ids(M, I, BM, BN, GROUP_M)
    rows = tl.minimum(m0 + tl.arange(0, BM), M - 1)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = x_ptr + (rows.to(tl.int64)[:, None] * K + rk[None, :])                  # [BM, BK]
    g_ptrs = w_ptr + n0.to(tl.int64) * K + (rn[None, :] * K + rk[:, None])           # [BK, BN] gate rows
    u_ptrs = g_ptrs + I * K                                                          # [BK, BN] up rows
    acc_g = tl.zeros((BM, BN), dtype=tl.float32)
    acc_u = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K // BK):
        a = tl.load(a_ptrs)
        acc_g = acc_g + tl.dot(a, tl.load(g_ptrs), input_precision="tf32x3")  # fresh partials, fp32 adds
        acc_u = acc_u + tl.dot(a, tl.load(u_ptrs), input_precision="tf32x3")
        a_ptrs += BK
        g_ptrs += BK
        u_ptrs += BK
    s = tl.math.div_rn(tl.full((BM, BN), 1.0, tl.float32), 1.0 + libdevice.exp(-acc_g))  # torch.sigmoid
    act = (acc_g * s) * acc_u
    rm = m0 + tl.arange(0, BM)
    cols = n0 + rn
    tl.store(act_ptr + (rm.to(tl.int64)[:, None] * I + cols[None, :]), act, mask=(rm < M)[:, None])


@triton.jit
def mlp_down(act_ptr, w_ptr, out_ptr, M, N: tl.constexpr = 1024, K: tl.constexpr = 4096,
             BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32, GROUP_M: tl.constexpr = 8):
    """out[t, i] = act[t] . w_down[i]: M = tokens, N = hidden, K = intermediate."""
    m0, n0 = _tile_ids(M, N, BM, BN, GROUP_M)
    rows = tl.minimum(m0 + tl.arange(0, BM), M - 1)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = act_ptr + (rows.to(tl.int64)[:, None] * K + rk[None, :])
    b_ptrs = w_ptr + n0.to(tl.int64) * K + (rn[None, :] * K + rk[:, None])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K // BK):
        acc = acc + tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), input_precision="tf32x3")
        a_ptrs += BK
        b_ptrs += BK
    rm = m0 + tl.arange(0, BM)
    offs = rm.to(tl.int64)[:, None] * N + (n0 + rn)[None, :]
    tl.store(out_ptr + offs, acc, mask=(rm < M)[:, None])


MKB_OPTIONS = {"swiglu_up": {"num_stages": 4}, "mlp_down": {"num_stages": 4}}

MKB_PLAN = """/* mkb:plan
scratch act fp32[batch_size * seq_len * intermediate_size]
launch swiglu_up grid((intermediate_size / 64) * ceil_div(batch_size * seq_len, 128)) block(256)
  args(x, w_gate_up, act, i32(batch_size * seq_len))
launch mlp_down grid((hidden_size / 128) * ceil_div(batch_size * seq_len, 128)) block(256)
  args(act, w_down, out, i32(batch_size * seq_len))
*/"""
