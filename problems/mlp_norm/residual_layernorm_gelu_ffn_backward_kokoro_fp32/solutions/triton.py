"""Backward of Kokoro-82M's PL-BERT (ALBERT) post-LN feed-forward block in Triton, fp32, the block's
activations recomputed (activation checkpointing), the algorithm of solutions/cuda.cu:
  forward   h = x W1^T + b1, a = gelu_tanh(h), z = x + a W2^T + b2, y = LayerNorm(z)
  backward  dz = LN-backward(dy), dW2 = dz^T a, db2 = sum dz, dh = (dz W2) * gelu_tanh'(h),
            dW1 = dh^T x, db1 = sum dh, dx = dz + dh W1, dln_weight = sum dy*zhat, dln_bias = sum dy
Six GEMMs as 3xTF32 tensor-core products (tl.dot input_precision="tf32x3": each 32-wide K tile's product
starts from zero and is added to the running fp32 sum, so the result is fp32-accurate), each with its
elementwise work in the epilogue: the up GEMM writes a and gelu'(h), the down GEMM writes z, the dz W2
GEMM writes dh and per-tile column sums of dh (for db1), the dh W1 GEMM adds dz. One row kernel does the
LayerNorm statistics and backward with per-program column partials of dy*zhat, dy and dz. The weight
gradients reduce over the tokens: split-K by 8 into fp32 partials, then a sum. All reductions are
deterministic (no atomics).
Shapes: hidden 768 = 6*128, inter 2048 = 16*128 (N and M tiles of 128, K tiles of 32); tokens = 8192 a
multiple of 8 splits x 32 (split-K) and of 32 (ln_backward rows); token rows of the other GEMMs are masked.
"""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _mm(a_ptr, lda, b_ptr, ldb, m0, n0, k0, k_tiles, rows_a,
        A_K: tl.constexpr, B_K: tl.constexpr, MASK_M: tl.constexpr,
        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """acc[BM, BN] = sum over k in [k0, k0 + BK * k_tiles) of A(m0 + i, k) * B(k, n0 + j).
    A_K: A(m, k) = a[m * lda + k] (K-major), else a[k * lda + m]. B_K: B(k, n) = b[n * ldb + k] (an
    nn.Linear weight used as x @ W^T), else b[k * ldb + n]. MASK_M: rows m >= rows_a of a K-major A read 0."""
    rm = m0 + tl.arange(0, BM)
    rn = n0 + tl.arange(0, BN)
    rk = k0 + tl.arange(0, BK)
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
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, k_tiles):
        if MASK_M:
            a = tl.load(a_ptrs, mask=(rm < rows_a)[:, None], other=0.0)
        else:
            a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b, input_precision="tf32x3")
        a_ptrs += a_step
        b_ptrs += b_step
    return acc


@triton.jit
def fwd_up(x_ptr, w1_ptr, b1_ptr, act_ptr, gp_ptr, tokens,
           HIDDEN: tl.constexpr = 768, INTER: tl.constexpr = 2048,
           BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32):
    """act = gelu_tanh(x W1^T + b1), gp = gelu_tanh'(x W1^T + b1), [tokens, INTER]."""
    m0 = tl.program_id(1) * BM
    n0 = tl.program_id(0) * BN
    acc = _mm(x_ptr, HIDDEN, w1_ptr, HIDDEN, m0, n0, 0, HIDDEN // BK, tokens, True, True, True, BM, BN, BK)
    rm = m0 + tl.arange(0, BM)
    rn = n0 + tl.arange(0, BN)
    h = acc + tl.load(b1_ptr + rn)[None, :]
    t = libdevice.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h))
    a = 0.5 * h * (1.0 + t)
    gp = 0.5 * (1.0 + t) + 0.5 * h * (1.0 - t * t) * 0.7978845608028654 * (1.0 + 0.134145 * h * h)
    offs = rm[:, None] * INTER + rn[None, :]
    mask = (rm < tokens)[:, None]
    tl.store(act_ptr + offs, a, mask=mask)
    tl.store(gp_ptr + offs, gp, mask=mask)


@triton.jit
def fwd_down(act_ptr, w2_ptr, b2_ptr, x_ptr, z_ptr, tokens,
             HIDDEN: tl.constexpr = 768, INTER: tl.constexpr = 2048,
             BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32):
    """z = x + (act W2^T + b2), [tokens, HIDDEN]."""
    m0 = tl.program_id(1) * BM
    n0 = tl.program_id(0) * BN
    acc = _mm(act_ptr, INTER, w2_ptr, INTER, m0, n0, 0, INTER // BK, tokens, True, True, True, BM, BN, BK)
    rm = m0 + tl.arange(0, BM)
    rn = n0 + tl.arange(0, BN)
    offs = rm[:, None] * HIDDEN + rn[None, :]
    mask = (rm < tokens)[:, None]
    xv = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(z_ptr + offs, xv + (acc + tl.load(b2_ptr + rn)[None, :]), mask=mask)


@triton.jit
def ln_backward(z_ptr, dy_ptr, w_ptr, dz_ptr, pgam_ptr, pbet_ptr, pb2_ptr, tokens, eps,
                HIDDEN: tl.constexpr = 768, WIDTH: tl.constexpr = 1024,
                ROWS: tl.constexpr = 32, R: tl.constexpr = 8):
    """LayerNorm backward for ROWS rows, R at a time: dz = rstd * (g - mean(g) - zhat * mean(g * zhat)) with
    g = dy * w, zhat = (z - mean) * rstd; the program's column sums of dy*zhat, dy and dz go to row
    program_id of pgam, pbet and pb2 ([tokens / ROWS, HIDDEN])."""
    pid = tl.program_id(0)
    c = tl.arange(0, WIDTH)
    cmask = c < HIDDEN
    w = tl.load(w_ptr + c, mask=cmask, other=0.0)
    pg = tl.zeros((WIDTH,), dtype=tl.float32)
    pb = tl.zeros((WIDTH,), dtype=tl.float32)
    pz = tl.zeros((WIDTH,), dtype=tl.float32)
    for i in range(0, ROWS // R):
        r = pid * ROWS + i * R + tl.arange(0, R)
        mask = (r < tokens)[:, None] & cmask[None, :]
        offs = r[:, None] * HIDDEN + c[None, :]
        z = tl.load(z_ptr + offs, mask=mask, other=0.0)
        dy = tl.load(dy_ptr + offs, mask=mask, other=0.0)
        mean = tl.sum(z, axis=1) * (1.0 / HIDDEN)
        d = tl.where(mask, z - mean[:, None], 0.0)
        rstd = tl.math.rsqrt(tl.sum(d * d, axis=1) * (1.0 / HIDDEN) + eps)
        zhat = d * rstd[:, None]
        g = dy * w[None, :]
        m1 = tl.sum(g, axis=1) * (1.0 / HIDDEN)
        m2 = tl.sum(g * zhat, axis=1) * (1.0 / HIDDEN)
        dz = rstd[:, None] * (g - m1[:, None] - zhat * m2[:, None])
        tl.store(dz_ptr + offs, dz, mask=mask)
        pg += tl.sum(dy * zhat, axis=0)
        pb += tl.sum(dy, axis=0)
        pz += tl.sum(tl.where(mask, dz, 0.0), axis=0)
    tl.store(pgam_ptr + pid * HIDDEN + c, pg, mask=cmask)
    tl.store(pbet_ptr + pid * HIDDEN + c, pb, mask=cmask)
    tl.store(pb2_ptr + pid * HIDDEN + c, pz, mask=cmask)


@triton.jit
def sum_partials(part_ptr, out_ptr, parts, cols, P: tl.constexpr = 32, C: tl.constexpr = 128):
    """out[c] = sum_p part[p * cols + c]."""
    cc = tl.program_id(0) * C + tl.arange(0, C)
    cmask = cc < cols
    pp = tl.arange(0, P)
    acc = tl.zeros((P, C), dtype=tl.float32)
    for p0 in range(0, parts, P):
        p = p0 + pp
        acc += tl.load(part_ptr + p[:, None] * cols + cc[None, :], mask=(p < parts)[:, None] & cmask[None, :],
                       other=0.0)
    tl.store(out_ptr + cc, tl.sum(acc, axis=0), mask=cmask)


@triton.jit
def bwd_dh(dz_ptr, w2_ptr, gp_ptr, dh_ptr, pb1_ptr, tokens,
           HIDDEN: tl.constexpr = 768, INTER: tl.constexpr = 2048,
           BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32):
    """dh = (dz W2) * gp, [tokens, INTER] (W2 [HIDDEN, INTER] is B, N-major); the tile's column sums of dh
    go to row program_id(1) of pb1 ([ceil(tokens / BM), INTER])."""
    m0 = tl.program_id(1) * BM
    n0 = tl.program_id(0) * BN
    acc = _mm(dz_ptr, HIDDEN, w2_ptr, INTER, m0, n0, 0, HIDDEN // BK, tokens, True, False, True, BM, BN, BK)
    rm = m0 + tl.arange(0, BM)
    rn = n0 + tl.arange(0, BN)
    offs = rm[:, None] * INTER + rn[None, :]
    mask = (rm < tokens)[:, None]
    dh = acc * tl.load(gp_ptr + offs, mask=mask, other=0.0)
    tl.store(dh_ptr + offs, dh, mask=mask)
    tl.store(pb1_ptr + tl.program_id(1) * INTER + rn, tl.sum(tl.where(mask, dh, 0.0), axis=0))


@triton.jit
def bwd_dx(dh_ptr, w1_ptr, dz_ptr, dx_ptr, tokens,
           HIDDEN: tl.constexpr = 768, INTER: tl.constexpr = 2048,
           BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32):
    """dx = dz + dh W1, [tokens, HIDDEN] (W1 [INTER, HIDDEN] is B, N-major)."""
    m0 = tl.program_id(1) * BM
    n0 = tl.program_id(0) * BN
    acc = _mm(dh_ptr, INTER, w1_ptr, HIDDEN, m0, n0, 0, INTER // BK, tokens, True, False, True, BM, BN, BK)
    rm = m0 + tl.arange(0, BM)
    rn = n0 + tl.arange(0, BN)
    offs = rm[:, None] * HIDDEN + rn[None, :]
    mask = (rm < tokens)[:, None]
    tl.store(dx_ptr + offs, tl.load(dz_ptr + offs, mask=mask, other=0.0) + acc, mask=mask)


@triton.jit
def bwd_dw2(dz_ptr, act_ptr, part2_ptr, tokens,
            HIDDEN: tl.constexpr = 768, INTER: tl.constexpr = 2048, SPLITS: tl.constexpr = 8,
            BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32):
    """part2[s] [HIDDEN, INTER] = dz^T act over the tokens of split s = program_id(2)."""
    m0 = tl.program_id(1) * BM
    n0 = tl.program_id(0) * BN
    split = tl.program_id(2)
    per = tokens // SPLITS
    acc = _mm(dz_ptr, HIDDEN, act_ptr, INTER, m0, n0, split * per, per // BK, HIDDEN, False, False, False,
              BM, BN, BK)
    rm = m0 + tl.arange(0, BM)
    rn = n0 + tl.arange(0, BN)
    tl.store(part2_ptr + split * (HIDDEN * INTER) + rm[:, None] * INTER + rn[None, :], acc)


@triton.jit
def bwd_dw1(dh_ptr, x_ptr, part1_ptr, tokens,
            HIDDEN: tl.constexpr = 768, INTER: tl.constexpr = 2048, SPLITS: tl.constexpr = 8,
            BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 32):
    """part1[s] [INTER, HIDDEN] = dh^T x over the tokens of split s = program_id(2)."""
    m0 = tl.program_id(1) * BM
    n0 = tl.program_id(0) * BN
    split = tl.program_id(2)
    per = tokens // SPLITS
    acc = _mm(dh_ptr, INTER, x_ptr, HIDDEN, m0, n0, split * per, per // BK, INTER, False, False, False,
              BM, BN, BK)
    rm = m0 + tl.arange(0, BM)
    rn = n0 + tl.arange(0, BN)
    tl.store(part1_ptr + split * (INTER * HIDDEN) + rm[:, None] * HIDDEN + rn[None, :], acc)


@triton.jit
def sum_splits(part_ptr, out_ptr, n, SPLITS: tl.constexpr = 8, BLOCK: tl.constexpr = 1024):
    """out[i] = sum_s part[s * n + i]."""
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    s = tl.load(part_ptr + i, mask=mask, other=0.0)
    for k in tl.static_range(1, SPLITS):
        s += tl.load(part_ptr + k * n + i, mask=mask, other=0.0)
    tl.store(out_ptr + i, s, mask=mask)


MKB_OPTIONS = {name: {"num_stages": 3} for name in ("fwd_up", "fwd_down", "bwd_dh", "bwd_dx", "bwd_dw2", "bwd_dw1")}

MKB_PLAN = """/* mkb:plan
# tokens = 8192: a multiple of 8 splits x 32 (split-K) and of 32 (ln_backward rows)
scratch act fp32[tokens * inter]
scratch gp fp32[tokens * inter]
scratch z fp32[tokens * hidden]
scratch dz fp32[tokens * hidden]
scratch dh fp32[tokens * inter]
scratch pgam fp32[(tokens / 32) * hidden]
scratch pbet fp32[(tokens / 32) * hidden]
scratch pb2 fp32[(tokens / 32) * hidden]
scratch pb1 fp32[ceil_div(tokens, 128) * inter]
scratch w2part fp32[8 * hidden * inter]
scratch w1part fp32[8 * inter * hidden]
launch fwd_up grid(inter / 128, ceil_div(tokens, 128)) block(256) args(x, W1, b1, act, gp, i32(tokens))
launch fwd_down grid(hidden / 128, ceil_div(tokens, 128)) block(256) args(act, W2, b2, x, z, i32(tokens))
launch ln_backward grid(tokens / 32) block(256) args(z, dy, ln_weight, dz, pgam, pbet, pb2, i32(tokens), f32(eps))
launch sum_partials grid(ceil_div(hidden, 128)) block(128) args(pgam, dln_weight, i32(tokens / 32), i32(hidden))
launch sum_partials grid(ceil_div(hidden, 128)) block(128) args(pbet, dln_bias, i32(tokens / 32), i32(hidden))
launch sum_partials grid(ceil_div(hidden, 128)) block(128) args(pb2, db2, i32(tokens / 32), i32(hidden))
launch bwd_dh grid(inter / 128, ceil_div(tokens, 128)) block(256) args(dz, W2, gp, dh, pb1, i32(tokens))
launch sum_partials grid(ceil_div(inter, 128)) block(128) args(pb1, db1, i32(ceil_div(tokens, 128)), i32(inter))
launch bwd_dx grid(hidden / 128, ceil_div(tokens, 128)) block(256) args(dh, W1, dz, dx, i32(tokens))
launch bwd_dw2 grid(inter / 128, hidden / 128, 8) block(256) args(dz, act, w2part, i32(tokens))
launch bwd_dw1 grid(hidden / 128, inter / 128, 8) block(256) args(dh, x, w1part, i32(tokens))
launch sum_splits grid(ceil_div(hidden * inter, 1024)) block(256) args(w2part, dW2, i32(hidden * inter))
launch sum_splits grid(ceil_div(inter * hidden, 1024)) block(256) args(w1part, dW1, i32(inter * hidden))
*/"""
