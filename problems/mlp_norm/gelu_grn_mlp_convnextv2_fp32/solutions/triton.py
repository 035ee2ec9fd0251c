"""ConvNeXt V2 MLP (LayerNorm -> Linear -> GELU -> GRN -> Linear) in Triton, fp32 accuracy, four launches,
the algorithm of solutions/cuda.cu:
  1. ln_rows: LayerNorm, eight 512-wide rows per program held in registers (two-pass statistics).
  2. gemm1_gelu_grnsum: xn @ w1^T as 3xTF32 tensor-core products (tl.dot input_precision="tf32x3": each
     32-wide K tile's product starts from zero and is added to the running fp32 sum), epilogue adds b1,
     applies the exact GELU, stores h and adds the GRN's per-(image, channel) sums of squares with one
     atomic per column and image (a 128-row tile spans at most two images of 196 rows).
  3. grn_scale: per image, Gx = sqrt(sum of squares), Nx = Gx / (mean Gx + eps), sc = gamma * Nx + 1.
  4. gemm2_grn: (h * sc + beta) @ w2^T + b2 (3xTF32); the GRN affine is applied to each A tile after it
     is loaded, so the GRN output never goes to memory (g = h * (gamma * Nx + 1) + beta, a rounding that
     reference.md allows).
Rows are masked (any batch works); dim = 512 and hidden = 2048 are multiples of the 128 and 32 tiles.
"""
import triton
import triton.language as tl


@triton.jit
def ln_rows(x_ptr, w_ptr, b_ptr, xn_ptr, rows, eps, DIM: tl.constexpr = 512, ROWS: tl.constexpr = 8):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    c = tl.arange(0, DIM)
    rmask = r < rows
    offs = r[:, None] * DIM + c[None, :]
    x = tl.load(x_ptr + offs, mask=rmask[:, None], other=0.0)
    mean = tl.sum(x, axis=1) * (1.0 / DIM)
    d = x - mean[:, None]
    rstd = tl.math.rsqrt(tl.sum(d * d, axis=1) * (1.0 / DIM) + eps)
    w = tl.load(w_ptr + c)
    b = tl.load(b_ptr + c)
    xn = d * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(xn_ptr + offs, xn, mask=rmask[:, None])


@triton.jit
def gemm1_gelu_grnsum(xn_ptr, w1_ptr, b1_ptr, h_ptr, ss_ptr, rows, hw,
                      DIM: tl.constexpr = 512, HIDDEN: tl.constexpr = 2048,
                      BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    m0 = pid_m * BM
    rm = m0 + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    mmask = rm < rows
    a_ptrs = xn_ptr + rm[:, None] * DIM + rk[None, :]   # [BM, BK] of xn, K contiguous
    b_ptrs = w1_ptr + rn[None, :] * DIM + rk[:, None]   # [BK, BN] of w1^T, K contiguous
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, DIM, BK):
        a = tl.load(a_ptrs, mask=mmask[:, None], other=0.0)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b, input_precision="tf32x3")
        a_ptrs += BK
        b_ptrs += BK
    bias = tl.load(b1_ptr + rn)
    v = acc + bias[None, :]
    hv = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(h_ptr + rm[:, None] * HIDDEN + rn[None, :], hv, mask=mmask[:, None])
    # GRN sums of squares per (image, channel): rows below `boundary` belong to image img0, the rest to img0 + 1.
    img0 = m0 // hw
    boundary = (img0 + 1) * hw
    sq = tl.where(mmask[:, None], hv * hv, 0.0)
    first = (rm < boundary)[:, None]
    s_lo = tl.sum(tl.where(first, sq, 0.0), axis=0)
    s_hi = tl.sum(tl.where(first, 0.0, sq), axis=0)
    tl.atomic_add(ss_ptr + img0 * HIDDEN + rn, s_lo)
    last_row = tl.minimum(m0 + BM, rows) - 1
    if last_row >= boundary:
        tl.atomic_add(ss_ptr + (img0 + 1) * HIDDEN + rn, s_hi)


@triton.jit
def grn_scale(ss_ptr, gamma_ptr, sc_ptr, eps, HIDDEN: tl.constexpr = 2048):
    b = tl.program_id(0)
    c = tl.arange(0, HIDDEN)
    gx = tl.sqrt_rn(tl.load(ss_ptr + b * HIDDEN + c))
    den = tl.sum(gx, axis=0) * (1.0 / HIDDEN) + eps
    nx = tl.math.div_rn(gx, tl.zeros_like(gx) + den)
    gamma = tl.load(gamma_ptr + c)
    tl.store(sc_ptr + b * HIDDEN + c, gamma * nx + 1.0)


@triton.jit
def gemm2_grn(h_ptr, w2_ptr, b2_ptr, sc_ptr, beta_ptr, y_ptr, rows, hw, batch,
              DIM: tl.constexpr = 512, HIDDEN: tl.constexpr = 2048,
              BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    m0 = pid_m * BM
    rm = m0 + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    mmask = rm < rows
    img0 = m0 // hw
    second = ((rm // hw) > img0)[:, None]            # the row belongs to image img0 + 1
    has_next = (rk * 0 + img0 + 1) < batch             # [BK]: whether image img0 + 1 exists
    a_ptrs = h_ptr + rm[:, None] * HIDDEN + rk[None, :]
    b_ptrs = w2_ptr + rn[None, :] * HIDDEN + rk[:, None]
    sc0_ptrs = sc_ptr + img0 * HIDDEN + rk
    beta_ptrs = beta_ptr + rk
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, HIDDEN, BK):
        a = tl.load(a_ptrs, mask=mmask[:, None], other=0.0)
        s0 = tl.load(sc0_ptrs)
        s1 = tl.load(sc0_ptrs + HIDDEN, mask=has_next, other=0.0)
        be = tl.load(beta_ptrs)
        s = tl.where(second, s1[None, :], s0[None, :])
        g = tl.fma(a, s, be[None, :])                  # the GRN output, h * (gamma * Nx + 1) + beta
        b = tl.load(b_ptrs)
        acc += tl.dot(g, b, input_precision="tf32x3")
        a_ptrs += BK
        b_ptrs += BK
        sc0_ptrs += BK
        beta_ptrs += BK
    bias = tl.load(b2_ptr + rn)
    tl.store(y_ptr + rm[:, None] * DIM + rn[None, :], acc + bias[None, :], mask=mmask[:, None])


MKB_OPTIONS = {
    "gemm1_gelu_grnsum": {"num_stages": 3},
    "gemm2_grn": {"num_stages": 3},
}

MKB_PLAN = """/* mkb:plan
scratch xn fp32[batch * height * width * dim]
scratch h fp32[batch * height * width * hidden]
scratch ss fp32[batch * hidden] zeroed
scratch sc fp32[batch * hidden]
launch ln_rows grid(ceil_div(batch * height * width, 8)) block(256)
  args(x, ln_weight, ln_bias, xn, i32(batch * height * width), f32(ln_eps))
launch gemm1_gelu_grnsum grid(hidden / 128, ceil_div(batch * height * width, 128)) block(256)
  args(xn, w1, b1, h, ss, i32(batch * height * width), i32(height * width))
launch grn_scale grid(batch) block(256) args(ss, grn_gamma, sc, f32(grn_eps))
launch gemm2_grn grid(dim / 128, ceil_div(batch * height * width, 128)) block(256)
  args(h, w2, b2, sc, grn_beta, y, i32(batch * height * width), i32(height * width), i32(batch))
*/"""
