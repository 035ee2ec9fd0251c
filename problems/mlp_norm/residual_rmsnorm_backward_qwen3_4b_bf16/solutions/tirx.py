"""Fused backward of residual add + RMSNorm (Qwen3-4B, hidden 2560) in TIRx, forward recomputed (port of
solutions/cuda.cu).

Kernel 1 (persistent): 264 CTAs = 2 per SM on 132 SMs, 320 threads each; CTA b walks the rows b, b + 264,
... (125 rows for b < 32, 124 for the others) and each thread owns 8 contiguous columns (one 16-byte vector
of each tensor; 320 * 8 = 2560 = hidden exactly). Per row: one pass over x, residual, dy, ds (loaded one
row ahead, so the next row's loads are in flight during this row's reduction), one CTA reduction of two
sums (sum h^2 and sum grad_n * h: warp shuffles, then 10 warp partials in shared memory double-buffered by
row parity, so one barrier per row), then dx is written. The weight gradient is accumulated per thread in
fp32 registers across the CTA's rows and written once per CTA as an fp32 partial row. Kernel 2 sums the
264 partial rows per column (32 columns x 32 part lanes per CTA) and rounds once to bf16.
Rounding points follow the eager reference (reference.md) exactly, as cuda.cu; only summation orders
differ from eager. The divisions by 2560 are IEEE divisions, as in cuda.cu (not products with 1/2560).

The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

TOKENS = 32768
HIDDEN = 2560
VEC = 8                        # bf16 per 16-byte vector
THREADS = HIDDEN // VEC        # 320
WARPS = THREADS // 32          # 10
CTAS = 264                     # 2 per SM x 132 SMs
ROWS = (TOKENS + CTAS - 1) // CTAS  # 125: the most rows one CTA takes

assert THREADS * VEC == HIDDEN and THREADS % 32 == 0


@T.prim_func
def residual_rmsnorm_backward(x_ptr: T.handle, residual_ptr: T.handle, weight_ptr: T.handle, dy_ptr: T.handle,
                              ds_ptr: T.handle, dx_ptr: T.handle, dw_partial_ptr: T.handle, eps: T.float32):
    a_x = T.match_buffer(x_ptr, (TOKENS * HIDDEN,), "bfloat16")
    b_residual = T.match_buffer(residual_ptr, (TOKENS * HIDDEN,), "bfloat16")
    c_weight = T.match_buffer(weight_ptr, (HIDDEN,), "bfloat16")
    d_dy = T.match_buffer(dy_ptr, (TOKENS * HIDDEN,), "bfloat16")
    e_ds = T.match_buffer(ds_ptr, (TOKENS * HIDDEN,), "bfloat16")
    f_dx = T.match_buffer(dx_ptr, (TOKENS * HIDDEN,), "bfloat16")
    g_dw_partial = T.match_buffer(dw_partial_ptr, (CTAS * HIDDEN,), "float32")
    T.device_entry()
    bx = T.cta_id([CTAS])
    tx = T.thread_id([THREADS])
    wp = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    # the next row's vectors (loaded one row ahead) and the current row's
    nx = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    nr = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    ndy = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    nds = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    cx = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    cr = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    cdy = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    cds = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    out = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    dw = T.alloc_buffer((VEC,), "float32", scope="local")
    sums = T.alloc_buffer((2,), "float32", scope="local")    # sum h^2, sum grad_n * h
    coef = T.alloc_buffer((2,), "float32", scope="local")    # r, grad_q
    red_sq = T.alloc_buffer((2 * WARPS,), "float32", scope="shared")   # [row parity][warp]
    red_dot = T.alloc_buffer((2 * WARPS,), "float32", scope="shared")
    # (indices are written out in full: a named index becomes a local variable and defeats vectorization)
    for k in T.vectorized(VEC):
        wp[k] = c_weight[tx * VEC + k]
    for k in T.unroll(VEC):
        dw[k] = T.float32(0)
    # row bx < CTAS <= TOKENS: every CTA has a first row
    for k in T.vectorized(VEC):
        nx[k] = a_x[bx * HIDDEN + tx * VEC + k]
    for k in T.vectorized(VEC):
        nr[k] = b_residual[bx * HIDDEN + tx * VEC + k]
    for k in T.vectorized(VEC):
        ndy[k] = d_dy[bx * HIDDEN + tx * VEC + k]
    for k in T.vectorized(VEC):
        nds[k] = e_ds[bx * HIDDEN + tx * VEC + k]
    for i in T.serial(ROWS):
        # row bx + i * CTAS (the condition is uniform over the CTA: its barrier is safe)
        if bx + i * CTAS < TOKENS:
            for k in T.vectorized(VEC):
                cx[k] = nx[k]
            for k in T.vectorized(VEC):
                cr[k] = nr[k]
            for k in T.vectorized(VEC):
                cdy[k] = ndy[k]
            for k in T.vectorized(VEC):
                cds[k] = nds[k]
            if bx + (i + 1) * CTAS < TOKENS:
                for k in T.vectorized(VEC):
                    nx[k] = a_x[(bx + (i + 1) * CTAS) * HIDDEN + tx * VEC + k]
                for k in T.vectorized(VEC):
                    nr[k] = b_residual[(bx + (i + 1) * CTAS) * HIDDEN + tx * VEC + k]
                for k in T.vectorized(VEC):
                    ndy[k] = d_dy[(bx + (i + 1) * CTAS) * HIDDEN + tx * VEC + k]
                for k in T.vectorized(VEC):
                    nds[k] = e_ds[(bx + (i + 1) * CTAS) * HIDDEN + tx * VEC + k]

            # h = fp32(bf16(residual + x)); grad_n = bf16(dy * weight). (h and grad_n are recomputed from the
            # bf16 vectors after the reduction instead of being kept in 16 more registers, as in cuda.cu.)
            sums[0] = T.float32(0)
            sums[1] = T.float32(0)
            for k in T.unroll(VEC):
                sums[0] = sums[0] + (T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", cr[k])
                                                                + T.Cast("float32", cx[k])))
                                     * T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", cr[k])
                                                                  + T.Cast("float32", cx[k]))))
                sums[1] = sums[1] + (T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", cdy[k])
                                                                * T.Cast("float32", wp[k])))
                                     * T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", cr[k])
                                                                  + T.Cast("float32", cx[k]))))
            sums[0] = T.cuda.warp_sum(sums[0], 32)
            sums[1] = T.cuda.warp_sum(sums[1], 32)
            if tx % 32 == 0:
                red_sq[i % 2 * WARPS + tx // 32] = sums[0]
                red_dot[i % 2 * WARPS + tx // 32] = sums[1]
            T.cuda.cta_sync()
            sums[0] = T.float32(0)
            sums[1] = T.float32(0)
            for w in T.unroll(WARPS):
                sums[0] = sums[0] + red_sq[i % 2 * WARPS + w]
                sums[1] = sums[1] + red_dot[i % 2 * WARPS + w]

            # r = rsqrt(mean(h^2) + eps); grad_q = ((-0.5 * grad_r) * r^3) / hidden
            coef[0] = T.rsqrt(sums[0] / T.float32(HIDDEN) + eps)
            coef[1] = ((T.float32(-0.5) * sums[1]) * (coef[0] * coef[0] * coef[0])) / T.float32(HIDDEN)
            for k in T.unroll(VEC):
                # dw += bf16(dy * n), n = bf16(h * r)
                dw[k] = dw[k] + T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", cdy[k]) * T.Cast(
                    "float32", T.Cast("bfloat16", T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", cr[k])
                                                                            + T.Cast("float32", cx[k])))
                                      * coef[0]))))
                # dx = bf16(bf16(grad_n * r + grad_q * (2 * h)) + ds)
                out[k] = T.Cast("bfloat16", T.Cast("float32", T.Cast("bfloat16",
                    T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", cdy[k]) * T.Cast("float32", wp[k])))
                    * coef[0]
                    + coef[1] * (T.float32(2) * T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", cr[k])
                                                                             + T.Cast("float32", cx[k]))))))
                    + T.Cast("float32", cds[k]))
            for k in T.vectorized(VEC):
                f_dx[(bx + i * CTAS) * HIDDEN + tx * VEC + k] = out[k]
    for k in T.vectorized(4):
        g_dw_partial[bx * HIDDEN + tx * VEC + k] = dw[k]
    for k in T.vectorized(4):
        g_dw_partial[bx * HIDDEN + tx * VEC + 4 + k] = dw[4 + k]


@T.prim_func
def dweight_reduce(dw_partial_ptr: T.handle, dweight_ptr: T.handle):
    # dweight[c] = bf16(sum over the 264 parts of dw_partial[p, c]); thread t: column lane t % 32, part lane
    # t // 32 (parts t // 32, t // 32 + 32, ...); then the 32 part lanes of a column are summed in order.
    a_dw_partial = T.match_buffer(dw_partial_ptr, (CTAS * HIDDEN,), "float32")
    b_dweight = T.match_buffer(dweight_ptr, (HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([HIDDEN // 32])
    tx = T.thread_id([1024])
    acc = T.alloc_buffer((1,), "float32", scope="local")
    part_sums = T.alloc_buffer((32 * 33,), "float32", scope="shared")
    acc[0] = T.float32(0)
    for m in T.unroll((CTAS + 31) // 32):
        if tx // 32 + m * 32 < CTAS:
            acc[0] = acc[0] + a_dw_partial[(tx // 32 + m * 32) * HIDDEN + bx * 32 + tx % 32]
    part_sums[tx // 32 * 33 + tx % 32] = acc[0]
    T.cuda.cta_sync()
    if tx < 32:
        acc[0] = T.float32(0)
        for p in T.unroll(32):
            acc[0] = acc[0] + part_sums[p * 33 + tx]
        b_dweight[bx * 32 + tx] = T.Cast("bfloat16", acc[0])


MKB_PLAN = """/* mkb:plan
# 264 = 2 resident CTAs per SM x 132 SMs, as cuda.cu.
scratch dw_partial fp32[264 * hidden]
launch residual_rmsnorm_backward grid(264) block(320) args(x, residual, weight, dy, ds, dx, dw_partial, f32(eps))
launch dweight_reduce grid(hidden / 32) block(1024) args(dw_partial, dweight)
*/"""
