"""SwiGLU MLP backward (Llama 3.1 8B shapes, 4096 tokens) in Triton, the algorithm of solutions/cuda.cu:
five tensor-core GEMMs (tl.dot on bf16 tiles, fp32 accumulation, one rounding per product), the SwiGLU
forward and backward fused into the epilogue of the gate/up GEMM, and dx as one GEMM over the
concatenated K = 2I product [dg | du] . [w_gate; w_up]. Nothing is transposed in memory: an operand that
is M- or N-contiguous is loaded as such and tl.dot reads it transposed.
  1. gemm_dh:   dh = bf16(dy . w_down)                      M = T, N = I, K = H
  2. gate_up:   g = bf16(x . w_gate^T), u = bf16(x . w_up^T) (two accumulators over the same x tile);
                a = bf16(silu(g)), h = bf16(a u), da = bf16(dh u), du = bf16(dh a),
                dg = bf16(da s (1 + g (1 - s))); writes h [T, I] and dgu = [dg | du] [T, 2I]
  3. gemm_dwdown: dw_down = bf16(dy^T . h)                  M = H, N = I, K = T
  4. gemm_dwgu: [dw_gate; dw_up] = bf16(dgu^T . x)          M = 2I, N = H, K = T (rows < I: dw_gate)
  5. gemm_dx:   dx = bf16(dgu . [w_gate; w_up])             M = T, N = H, K = 2I (one fp32 sum)
dx is summed in fp32 over both contributions before its one rounding (reference.md allows it: it is
more accurate than eager's bf16(bf16(.) + bf16(.))).
Tiles: 128 x 256 x 64 (gate/up: 128 x (128 gate + 128 up) x 64), 8 warps, grouped rasterization
(8 M tiles per group) so concurrent programs share operand tiles in L2.
Tile checks: T = H = 4096 = 16 * 256, I = 14336 = 56 * 256 = 112 * 128, 2I % 128 == 0, K % 64 == 0 for
K in {H, T, 2I}; an M tile of the dw_gate/dw_up GEMM never straddles I (I % 128 == 0).
Status: checked in Triton's CPU interpreter on reduced shapes against a float64 reference of
reference.md; compile-checked for sm_90a only (not run on a GPU). Expected speed: below cuda.cu's
persistent warp-specialized wgmma kernels (roughly 0.6-0.9x of it), likely near the eager baseline."""
import triton
import triton.language as tl


@triton.jit
def _tile_coords(pid, MT: tl.constexpr, NT: tl.constexpr, GROUP_M: tl.constexpr):
    """program -> (M tile, N tile): groups of GROUP_M M tiles, M tile fastest inside a group."""
    in_group = GROUP_M * NT
    first_m = (pid // in_group) * GROUP_M
    group_m = tl.minimum(MT - first_m, GROUP_M)
    local = pid % in_group
    return first_m + local % group_m, local // group_m


@triton.jit
def _mm(acc, a_ptr, lda, b_ptr, ldb, m0, n0, k_tiles,
        A_K: tl.constexpr, B_K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """acc[BM, BN] += sum over k in [0, BK * k_tiles) of A(m0 + i, k) * B(k, n0 + j).
    A_K: A(m, k) = a[m * lda + k] (K-contiguous), else a[k * lda + m] (M-contiguous).
    B_K: B(k, n) = b[n * ldb + k] (an nn.Linear weight used as x @ W^T), else b[k * ldb + n]."""
    rm = (m0 + tl.arange(0, BM)).to(tl.int64)
    rn = (n0 + tl.arange(0, BN)).to(tl.int64)
    rk = tl.arange(0, BK).to(tl.int64)
    if A_K:
        a_ptrs = a_ptr + rm[:, None] * lda + rk[None, :]
        a_step = BK
    else:
        a_ptrs = a_ptr + rk[None, :] * lda + rm[:, None]
        a_step = BK * lda
    if B_K:
        b_ptrs = b_ptr + rn[None, :] * ldb + rk[:, None]
        b_step = BK
    else:
        b_ptrs = b_ptr + rk[:, None] * ldb + rn[None, :]
        b_step = BK * ldb
    for _ in range(0, k_tiles):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += a_step
        b_ptrs += b_step
    return acc


@triton.jit
def gemm_dh(dy_ptr, w_down_ptr, dh_ptr, T: tl.constexpr = 4096, H: tl.constexpr = 4096,
            I: tl.constexpr = 14336, BM: tl.constexpr = 128, BN: tl.constexpr = 256, BK: tl.constexpr = 64,
            GROUP_M: tl.constexpr = 8):
    """dh[T, I] = bf16(dy[T, H] . w_down[H, I]): A = dy K-contiguous, B(k, n) = w_down[k, n]."""
    pid_m, pid_n = _tile_coords(tl.program_id(0), T // BM, I // BN, GROUP_M)
    m0 = pid_m * BM
    n0 = pid_n * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc = _mm(acc, dy_ptr, H, w_down_ptr, I, m0, n0, H // BK, True, False, BM, BN, BK)
    rm = (m0 + tl.arange(0, BM)).to(tl.int64)
    rn = n0 + tl.arange(0, BN)
    tl.store(dh_ptr + rm[:, None] * I + rn[None, :], acc.to(tl.bfloat16))


@triton.jit
def gate_up_swiglu(x_ptr, w_gate_ptr, w_up_ptr, dh_ptr, h_ptr, dgu_ptr, T: tl.constexpr = 4096,
                   H: tl.constexpr = 4096, I: tl.constexpr = 14336, BM: tl.constexpr = 128,
                   BN: tl.constexpr = 128, BK: tl.constexpr = 64, GROUP_M: tl.constexpr = 8):
    """g = x . w_gate^T, u = x . w_up^T over a BM x BN tile of [T, I], then the SwiGLU forward and backward
    with eager's rounding points; writes h[T, I] and dgu[T, 2I] = [dg | du]."""
    pid_m, pid_n = _tile_coords(tl.program_id(0), T // BM, I // BN, GROUP_M)
    m0 = pid_m * BM
    n0 = pid_n * BN
    rm = (m0 + tl.arange(0, BM)).to(tl.int64)
    rn = (n0 + tl.arange(0, BN)).to(tl.int64)
    rk = tl.arange(0, BK).to(tl.int64)
    a_ptrs = x_ptr + rm[:, None] * H + rk[None, :]
    g_ptrs = w_gate_ptr + rn[None, :] * H + rk[:, None]  # [BK, BN]: B(k, n) = w_gate[n, k]
    u_ptrs = w_up_ptr + rn[None, :] * H + rk[:, None]
    acc_g = tl.zeros((BM, BN), dtype=tl.float32)
    acc_u = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, H // BK):
        a = tl.load(a_ptrs)
        acc_g = tl.dot(a, tl.load(g_ptrs), acc_g)
        acc_u = tl.dot(a, tl.load(u_ptrs), acc_u)
        a_ptrs += BK
        g_ptrs += BK
        u_ptrs += BK
    g = acc_g.to(tl.bfloat16).to(tl.float32)
    u = acc_u.to(tl.bfloat16).to(tl.float32)
    dh = tl.load(dh_ptr + rm[:, None] * I + rn[None, :]).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-g))
    a_act = (g / (1.0 + tl.exp(-g))).to(tl.bfloat16).to(tl.float32)
    h = (a_act * u).to(tl.bfloat16)
    da = (dh * u).to(tl.bfloat16).to(tl.float32)
    du = (dh * a_act).to(tl.bfloat16)
    dg = (da * (s * (1.0 + g * (1.0 - s)))).to(tl.bfloat16)
    tl.store(h_ptr + rm[:, None] * I + rn[None, :], h)
    row = dgu_ptr + rm[:, None] * (2 * I)
    tl.store(row + rn[None, :], dg)
    tl.store(row + I + rn[None, :], du)


@triton.jit
def gemm_dwdown(dy_ptr, h_ptr, dw_down_ptr, T: tl.constexpr = 4096, H: tl.constexpr = 4096,
                I: tl.constexpr = 14336, BM: tl.constexpr = 128, BN: tl.constexpr = 256, BK: tl.constexpr = 64,
                GROUP_M: tl.constexpr = 8):
    """dw_down[H, I] = bf16(dy^T . h): A(m, k) = dy[k, m] (M-contiguous), B(k, n) = h[k, n]."""
    pid_m, pid_n = _tile_coords(tl.program_id(0), H // BM, I // BN, GROUP_M)
    m0 = pid_m * BM
    n0 = pid_n * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc = _mm(acc, dy_ptr, H, h_ptr, I, m0, n0, T // BK, False, False, BM, BN, BK)
    rm = (m0 + tl.arange(0, BM)).to(tl.int64)
    rn = n0 + tl.arange(0, BN)
    tl.store(dw_down_ptr + rm[:, None] * I + rn[None, :], acc.to(tl.bfloat16))


@triton.jit
def gemm_dwgu(dgu_ptr, x_ptr, dw_gate_ptr, dw_up_ptr, T: tl.constexpr = 4096, H: tl.constexpr = 4096,
              I: tl.constexpr = 14336, BM: tl.constexpr = 128, BN: tl.constexpr = 256, BK: tl.constexpr = 64,
              GROUP_M: tl.constexpr = 8):
    """[dw_gate; dw_up][2I, H] = bf16(dgu^T . x): A(m, k) = dgu[k, m] (M-contiguous), B(k, n) = x[k, n].
    Rows m < I go to dw_gate[m], the others to dw_up[m - I] (a tile never straddles I)."""
    pid_m, pid_n = _tile_coords(tl.program_id(0), (2 * I) // BM, H // BN, GROUP_M)
    m0 = pid_m * BM
    n0 = pid_n * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc = _mm(acc, dgu_ptr, 2 * I, x_ptr, H, m0, n0, T // BK, False, False, BM, BN, BK)
    rn = n0 + tl.arange(0, BN)
    out = acc.to(tl.bfloat16)
    if m0 < I:
        rm = (m0 + tl.arange(0, BM)).to(tl.int64)
        tl.store(dw_gate_ptr + rm[:, None] * H + rn[None, :], out)
    else:
        rm = (m0 - I + tl.arange(0, BM)).to(tl.int64)
        tl.store(dw_up_ptr + rm[:, None] * H + rn[None, :], out)


@triton.jit
def gemm_dx(dgu_ptr, w_gate_ptr, w_up_ptr, dx_ptr, T: tl.constexpr = 4096, H: tl.constexpr = 4096,
            I: tl.constexpr = 14336, BM: tl.constexpr = 128, BN: tl.constexpr = 256, BK: tl.constexpr = 64,
            GROUP_M: tl.constexpr = 8):
    """dx[T, H] = bf16(dgu[T, 2I] . [w_gate; w_up]): K = 2I in one fp32 sum; A = dgu K-contiguous,
    B(k, n) = w_gate[k, n] for k < I, then w_up[k - I, n]."""
    pid_m, pid_n = _tile_coords(tl.program_id(0), T // BM, H // BN, GROUP_M)
    m0 = pid_m * BM
    n0 = pid_n * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc = _mm(acc, dgu_ptr, 2 * I, w_gate_ptr, H, m0, n0, I // BK, True, False, BM, BN, BK)
    acc = _mm(acc, dgu_ptr + I, 2 * I, w_up_ptr, H, m0, n0, I // BK, True, False, BM, BN, BK)
    rm = (m0 + tl.arange(0, BM)).to(tl.int64)
    rn = n0 + tl.arange(0, BN)
    tl.store(dx_ptr + rm[:, None] * H + rn[None, :], acc.to(tl.bfloat16))


MKB_OPTIONS = {
    "gemm_dh": {"num_stages": 3},
    "gate_up_swiglu": {"num_stages": 3},
    "gemm_dwdown": {"num_stages": 3},
    "gemm_dwgu": {"num_stages": 3},
    "gemm_dx": {"num_stages": 3},
}

MKB_PLAN = """/* mkb:plan
scratch dh bf16[tokens * intermediate]
scratch h bf16[tokens * intermediate]
scratch dgu bf16[tokens * 2 * intermediate]
launch gemm_dh grid((tokens / 128) * (intermediate / 256)) block(256) args(dy, w_down, dh)
launch gate_up_swiglu grid((tokens / 128) * (intermediate / 128)) block(256) args(x, w_gate, w_up, dh, h, dgu)
launch gemm_dwdown grid((hidden / 128) * (intermediate / 256)) block(256) args(dy, h, dw_down)
launch gemm_dwgu grid((2 * intermediate / 128) * (hidden / 256)) block(256) args(dgu, x, dw_gate, dw_up)
launch gemm_dx grid((tokens / 128) * (hidden / 256)) block(256) args(dgu, w_gate, w_up, dx)
*/"""
