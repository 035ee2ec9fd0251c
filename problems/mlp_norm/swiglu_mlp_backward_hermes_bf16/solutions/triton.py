"""SwiGLU MLP backward from saved activations (original #34: T = 8192 rows, H = 16384, I = 53248) in Triton,
the algorithm of solutions/cuda.cu: four tensor-core GEMMs (tl.dot on bf16 tiles, fp32 accumulation, one
rounding per product), the SwiGLU backward fused into the epilogue of the grad_h GEMM, and grad_input as one
GEMM over the concatenated K = 2I product. Nothing is transposed in memory: an operand that is M- or
N-contiguous is loaded as such and tl.dot reads it transposed.
  1. gemm_dh_bwd: grad_h = bf16(go . down_weight) (M = T, N = I, K = H); epilogue with the saved gate, up,
     act: h = bf16(act up), grad_act = bf16(grad_h up), grad_up = bf16(grad_h act), s = sigmoid(gate),
     grad_gate = bf16(grad_act s (1 + gate (1 - s))); writes h [T, I] and dgu = [grad_gate | grad_up] [T, 2I]
  2. gemm_dwdown: grad_down_weight = bf16(go^T . h)                      M = H, N = I, K = T
  3. gemm_dwgu: [grad_gate_weight; grad_up_weight] = bf16(dgu^T . x)     M = 2I, N = H, K = T
  4. gemm_dx:   grad_input = bf16(dgu . [gate_weight; up_weight])        M = T, N = H, K = 2I (one fp32 sum,
     which reference.md allows)
Tiles: 128 x 256 x 64, 8 warps, grouped rasterization (8 M tiles per group). Tile checks: T = 64 * 128,
H = 64 * 256 = 128 * 128, I = 208 * 256 = 416 * 128; K in {H, T, 2I} is a multiple of 64; an M tile of the
weight-gradient GEMM never straddles I.
Status: run in Triton's CPU interpreter on reduced shapes (T = 256, H = 256, I = 512; the dots on fp32
copies, since the interpreter's bf16 dot is wrong, and its fp32 -> bf16 cast patched to round to nearest
even as the GPU does): against torch_crosscheck.py the three weight gradients have exactly eager's error
and grad_input less (3.7e-3 against eager's 4.5e-3 of the largest magnitude: one rounding instead of
three). Compile-checked for sm_90a; not run on a GPU. Expected speed: its GEMMs are probably a little below cuBLAS's, about what the fusion
saves (~6% of eager), so it is not claimed to beat the baseline."""
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
def gemm_dh_bwd(go_ptr, w_down_ptr, gate_ptr, up_ptr, act_ptr, h_ptr, dgu_ptr, T: tl.constexpr = 8192,
                H: tl.constexpr = 16384, I: tl.constexpr = 53248, BM: tl.constexpr = 128, BN: tl.constexpr = 256,
                BK: tl.constexpr = 64, GROUP_M: tl.constexpr = 8):
    """grad_h = bf16(go[T, H] . w_down[H, I]) with the SwiGLU backward in the epilogue (eager's rounding
    points); writes h[T, I] and dgu[T, 2I] = [grad_gate | grad_up]."""
    pid_m, pid_n = _tile_coords(tl.program_id(0), T // BM, I // BN, GROUP_M)
    m0 = pid_m * BM
    n0 = pid_n * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc = _mm(acc, go_ptr, H, w_down_ptr, I, m0, n0, H // BK, True, False, BM, BN, BK)
    rm = (m0 + tl.arange(0, BM)).to(tl.int64)
    rn = n0 + tl.arange(0, BN)
    at = rm[:, None] * I + rn[None, :]
    dh = acc.to(tl.bfloat16).to(tl.float32)
    g = tl.load(gate_ptr + at).to(tl.float32)
    u = tl.load(up_ptr + at).to(tl.float32)
    a = tl.load(act_ptr + at).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-g))
    tl.store(h_ptr + at, (a * u).to(tl.bfloat16))
    da = (dh * u).to(tl.bfloat16).to(tl.float32)
    row = dgu_ptr + rm[:, None] * (2 * I) + rn[None, :]
    tl.store(row, (da * (s * (1.0 + g * (1.0 - s)))).to(tl.bfloat16))
    tl.store(row + I, (dh * a).to(tl.bfloat16))


@triton.jit
def gemm_dwdown(dy_ptr, h_ptr, dw_down_ptr, T: tl.constexpr = 8192, H: tl.constexpr = 16384,
                I: tl.constexpr = 53248, BM: tl.constexpr = 128, BN: tl.constexpr = 256, BK: tl.constexpr = 64,
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
def gemm_dwgu(dgu_ptr, x_ptr, dw_gate_ptr, dw_up_ptr, T: tl.constexpr = 8192, H: tl.constexpr = 16384,
              I: tl.constexpr = 53248, BM: tl.constexpr = 128, BN: tl.constexpr = 256, BK: tl.constexpr = 64,
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
def gemm_dx(dgu_ptr, w_gate_ptr, w_up_ptr, dx_ptr, T: tl.constexpr = 8192, H: tl.constexpr = 16384,
            I: tl.constexpr = 53248, BM: tl.constexpr = 128, BN: tl.constexpr = 256, BK: tl.constexpr = 64,
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
    "gemm_dh_bwd": {"num_stages": 3},
    "gemm_dwdown": {"num_stages": 3},
    "gemm_dwgu": {"num_stages": 3},
    "gemm_dx": {"num_stages": 3},
}

MKB_PLAN = """/* mkb:plan
scratch h bf16[batch_size * seq_len * intermediate_size]
scratch dgu bf16[batch_size * seq_len * 2 * intermediate_size]
launch gemm_dh_bwd grid((batch_size * seq_len / 128) * (intermediate_size / 256)) block(256) args(grad_output, down_weight, gate, up, act, h, dgu)
launch gemm_dwdown grid((hidden_size / 128) * (intermediate_size / 256)) block(256) args(grad_output, h, grad_down_weight)
launch gemm_dwgu grid((2 * intermediate_size / 128) * (hidden_size / 256)) block(256) args(dgu, hidden_states, grad_gate_weight, grad_up_weight)
launch gemm_dx grid((batch_size * seq_len / 128) * (hidden_size / 256)) block(256) args(dgu, gate_weight, up_weight, grad_input)
*/"""
