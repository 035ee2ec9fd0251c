"""Fused backward of residual add + RMSNorm (Qwen3-4B, hidden 2560) in Triton, forward recomputed.

Kernel 1 (persistent, as cuda.cu): 264 programs (2 per SM) walk the rows pid, pid + 264, ...; the
next row's x, residual, dy, ds are loaded while the current row is reduced. A 2560-wide row is held in
registers as two power-of-two chunks, columns 0..2047 and 2048..2559, so no lane is masked. Per row:
s = bf16(residual + x), h = fp32(s), g = bf16(dy * w); the sums of h^2 and g*h;
r = rsqrt(sum/2560 + eps); grad_q = ((-0.5 * dot) * r^3) / 2560; dx = bf16(bf16(g*r + grad_q*2h) + ds).
The weight-gradient terms bf16(dy * bf16(h*r)) are accumulated in fp32 registers over the program's
rows and written once as an fp32 partial row. Kernel 2 sums the 264 partial rows per column and
rounds once to bf16. Rounding points are those of reference.md / cuda.cu (divisions IEEE, as nvrtc
compiles '/'; Triton may fuse a bf16(bf16 + bf16) into one add.bf16x2, the same rounding).
"""
import triton
import triton.language as tl


@triton.jit
def _load_row(x_ptr, res_ptr, dy_ptr, ds_ptr, row, cols, HIDDEN: tl.constexpr):
    offs = row * HIDDEN + cols  # tokens * hidden < 2^31: int32 offsets
    return tl.load(x_ptr + offs), tl.load(res_ptr + offs), tl.load(dy_ptr + offs), tl.load(ds_ptr + offs)


@triton.jit
def _row_terms(x, res, dy, w):
    h = (res.to(tl.float32) + x.to(tl.float32)).to(tl.bfloat16).to(tl.float32)  # h = fp32(bf16(residual + x))
    dyf = dy.to(tl.float32)
    g = (dyf * w).to(tl.bfloat16).to(tl.float32)                                # grad_n = bf16(dy * weight)
    return h, dyf, g


@triton.jit
def _row_backward(h, dyf, g, ds, r, grad_q, dw, dx_ptr, row, cols, HIDDEN: tl.constexpr):
    n = (h * r).to(tl.bfloat16).to(tl.float32)               # n = bf16(h * r)
    dw += (dyf * n).to(tl.bfloat16).to(tl.float32)           # bf16(dy * n), fp32 accumulation
    grad_h = g * r + grad_q * (2.0 * h)
    grad_s = grad_h.to(tl.bfloat16).to(tl.float32)           # ToCopyBackward to bf16
    tl.store(dx_ptr + row * HIDDEN + cols, (grad_s + ds.to(tl.float32)).to(tl.bfloat16))
    return dw


@triton.jit
def residual_rmsnorm_backward(x_ptr, res_ptr, w_ptr, dy_ptr, ds_ptr, dx_ptr, dw_partial_ptr, tokens, eps,
                              HIDDEN: tl.constexpr = 2560, CA: tl.constexpr = 2048, CB: tl.constexpr = 512):
    tl.static_assert(CA + CB == HIDDEN)
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    ca = tl.arange(0, CA)
    cb = CA + tl.arange(0, CB)
    wa = tl.load(w_ptr + ca).to(tl.float32)
    wb = tl.load(w_ptr + cb).to(tl.float32)
    dwa = tl.zeros([CA], dtype=tl.float32)
    dwb = tl.zeros([CB], dtype=tl.float32)
    # The next row's four vectors load while this row is reduced (the last iteration reloads its own row).
    first = tl.minimum(pid, tokens - 1)
    nxa, nra, ndya, ndsa = _load_row(x_ptr, res_ptr, dy_ptr, ds_ptr, first, ca, HIDDEN)
    nxb, nrb, ndyb, ndsb = _load_row(x_ptr, res_ptr, dy_ptr, ds_ptr, first, cb, HIDDEN)
    for row in range(pid, tokens, nprog):
        xa, ra, dya, dsa = nxa, nra, ndya, ndsa
        xb, rb, dyb, dsb = nxb, nrb, ndyb, ndsb
        following = tl.minimum(row + nprog, tokens - 1)
        nxa, nra, ndya, ndsa = _load_row(x_ptr, res_ptr, dy_ptr, ds_ptr, following, ca, HIDDEN)
        nxb, nrb, ndyb, ndsb = _load_row(x_ptr, res_ptr, dy_ptr, ds_ptr, following, cb, HIDDEN)
        ha, dyfa, ga = _row_terms(xa, ra, dya, wa)
        hb, dyfb, gb = _row_terms(xb, rb, dyb, wb)
        square_sum = tl.sum(ha * ha, axis=0) + tl.sum(hb * hb, axis=0)
        dot = tl.sum(ga * ha, axis=0) + tl.sum(gb * hb, axis=0)
        r = tl.math.rsqrt(tl.math.div_rn(square_sum, HIDDEN * 1.0) + eps)
        grad_q = tl.math.div_rn((-0.5 * dot) * (r * r * r), HIDDEN * 1.0)
        dwa = _row_backward(ha, dyfa, ga, dsa, r, grad_q, dwa, dx_ptr, row, ca, HIDDEN)
        dwb = _row_backward(hb, dyfb, gb, dsb, r, grad_q, dwb, dx_ptr, row, cb, HIDDEN)
    out = dw_partial_ptr + pid.to(tl.int64) * HIDDEN
    tl.store(out + ca, dwa)
    tl.store(out + cb, dwb)


@triton.jit
def dweight_reduce(dw_partial_ptr, dweight_ptr, parts, HIDDEN: tl.constexpr = 2560, BLOCK_C: tl.constexpr = 128,
                   BLOCK_P: tl.constexpr = 32):
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    p = tl.arange(0, BLOCK_P)
    acc = tl.zeros([BLOCK_P, BLOCK_C], dtype=tl.float32)
    for p0 in range(0, parts, BLOCK_P):
        rows = p0 + p
        acc += tl.load(dw_partial_ptr + rows[:, None] * HIDDEN + cols[None, :], mask=(rows < parts)[:, None],
                       other=0.0)
    tl.store(dweight_ptr + cols, tl.sum(acc, axis=0).to(tl.bfloat16))


MKB_PLAN = """/* mkb:plan
# 264 = 2 programs per SM x 132 SMs, as cuda.cu.
scratch dw_partial fp32[264 * hidden]
launch residual_rmsnorm_backward grid(264) block(256)
  args(x, residual, weight, dy, ds, dx, dw_partial, i32(tokens), f32(eps))
launch dweight_reduce grid(hidden / 128) block(128) args(dw_partial, dweight, i32(264))
*/"""
