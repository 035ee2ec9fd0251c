"""Qwen3-Omni vision patch merger (original #27) in Triton, the algorithm of solutions/cuda.cu in three launches:
  1. layernorm_rows: 4 patch rows of 1536 per program (a [4, 2048] tile masked to 1536 columns), fp32
     statistics (mean, then the biased variance of the centred values), bf16 out stored at the merged
     position (the spec's invariant: every grid is 1 x 64 x 64): patch p = (grid g, row y, column x) goes to
     merged row 1024 g + 32 (y / 2) + x / 2, column block 2 (y % 2) + x % 2 of [8192, 6144].
  2. fc1_gelu: g = bf16(gelu(bf16(xn @ W1^T + b1))), erf GELU in fp32 on the rounded linear output.
  3. fc2_bias: out = bf16(g @ W2^T + b2).
Both GEMMs are tl.dot on bf16 tiles with fp32 accumulation, 128 x 256 x 64 tiles, grouped rasterization,
bias (and GELU) in the epilogue, so neither linear's fp32 result nor the pre-GELU tensor reaches memory.
Tile checks: 6144 = 24 * 256 = 96 * 64, 3584 = 14 * 256, merged = 8192 = 64 * 128 (rows past M would be
clamped on load and skipped on store).
Status: run in Triton's CPU interpreter on reduced shapes (hidden 64, two grids of 1 x 16 x 16, 256 -> 256,
GRID_W = 16; the dots on fp32 copies, since the interpreter's bf16 dot is wrong, and its fp32 -> bf16 cast
patched to round to nearest even, as the GPU does, instead of truncating): the merged rows equal torch's
permute-merge and the output's error against torch_crosscheck.py equals eager's (3.7e-3 of the largest
magnitude). Compile-checked for sm_90a; not run on a GPU."""
import triton
import triton.language as tl


@triton.jit
def layernorm_rows(x_ptr, gamma_ptr, beta_ptr, y_ptr, rows, eps, HIDDEN: tl.constexpr = 1536,
                   BLOCK: tl.constexpr = 2048, ROWS: tl.constexpr = 4, GRID_W: tl.constexpr = 64):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    c = tl.arange(0, BLOCK)
    in_row = c < HIDDEN
    mask = (r < rows)[:, None] & in_row[None, :]
    offsets = r.to(tl.int64)[:, None] * HIDDEN + c[None, :]
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=1) / HIDDEN
    d = tl.where(in_row[None, :], x - mean[:, None], 0.0)
    rstd = tl.math.rsqrt(tl.sum(d * d, axis=1) / HIDDEN + eps)
    gamma = tl.load(gamma_ptr + c, mask=in_row, other=0.0).to(tl.float32)
    beta = tl.load(beta_ptr + c, mask=in_row, other=0.0).to(tl.float32)
    y = d * rstd[:, None] * gamma[None, :] + beta[None, :]
    # the 2x2 merge of square 1 x GRID_W x GRID_W grids: patch r -> merged row, column block
    per_grid = GRID_W * GRID_W
    mrow = r // per_grid * (per_grid // 4) + r % per_grid // (2 * GRID_W) * (GRID_W // 2) + r % GRID_W // 2
    part = r // GRID_W % 2 * 2 + r % 2
    dst = (mrow.to(tl.int64) * 4 + part)[:, None] * HIDDEN + c[None, :]
    tl.store(y_ptr + dst, y.to(tl.bfloat16), mask=mask)


@triton.jit
def _gemm_bias(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, GELU: tl.constexpr, BLOCK_M: tl.constexpr,
               BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """C[M, N] = bf16(A[M, K] @ B[N, K]^T + bias), or bf16(gelu(bf16(... + bias))) with GELU.
    Needs N % BLOCK_N == 0 and K % BLOCK_K == 0."""
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = N // BLOCK_N
    in_group = GROUP_M * num_n
    first_m = (pid // in_group) * GROUP_M
    group_m = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_m
    pid_n = (pid % in_group) // group_m

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rows_in = tl.where(rows < M, rows, M - 1)  # clamped: rows past M load a valid row, are not stored
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows_in.to(tl.int64)[:, None] * K + ks[None, :]
    b_ptrs = b_ptr + cols.to(tl.int64)[:, None] * K + ks[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, tl.trans(b), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K

    v = acc + tl.load(bias_ptr + cols).to(tl.float32)[None, :]
    if GELU:
        # the linear's output is rounded to bf16 first, then the erf GELU runs in fp32 on it
        v = v.to(tl.bfloat16).to(tl.float32)
        v = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    c_ptrs = c_ptr + rows.to(tl.int64)[:, None] * N + cols[None, :]
    tl.store(c_ptrs, v.to(tl.bfloat16), mask=(rows < M)[:, None])


@triton.jit
def fc1_gelu(xn_ptr, w1_ptr, b1_ptr, g_ptr, M, N, K, BLOCK_M: tl.constexpr = 128, BLOCK_N: tl.constexpr = 256,
             BLOCK_K: tl.constexpr = 64, GROUP_M: tl.constexpr = 8):
    _gemm_bias(xn_ptr, w1_ptr, b1_ptr, g_ptr, M, N, K, True, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M)


@triton.jit
def fc2_bias(g_ptr, w2_ptr, b2_ptr, out_ptr, M, N, K, BLOCK_M: tl.constexpr = 128, BLOCK_N: tl.constexpr = 256,
             BLOCK_K: tl.constexpr = 64, GROUP_M: tl.constexpr = 8):
    _gemm_bias(g_ptr, w2_ptr, b2_ptr, out_ptr, M, N, K, False, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M)


MKB_OPTIONS = {"fc1_gelu": {"num_stages": 3}, "fc2_bias": {"num_stages": 3}}

MKB_PLAN = """/* mkb:plan
scratch xn bf16[num_patches * hidden_size]
scratch g bf16[num_patches / 4 * hidden_size_expanded]
launch layernorm_rows grid(ceil_div(num_patches, 4)) block(256)
  args(hidden, ln_weight, ln_bias, xn, i32(num_patches), f32(eps))
launch fc1_gelu grid(ceil_div(num_patches / 4, 128) * (hidden_size_expanded / 256)) block(256)
  args(xn, fc1_weight, fc1_bias, g, i32(num_patches / 4), i32(hidden_size_expanded), i32(hidden_size_expanded))
launch fc2_bias grid(ceil_div(num_patches / 4, 128) * (out_hidden_size / 256)) block(256)
  args(g, fc2_weight, fc2_bias, output, i32(num_patches / 4), i32(out_hidden_size), i32(hidden_size_expanded))
*/"""
