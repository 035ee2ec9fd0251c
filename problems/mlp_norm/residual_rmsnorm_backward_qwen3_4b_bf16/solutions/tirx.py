"""Fused RMSNorm backward from saved normalized activations and rstd (Qwen3-4B, hidden 2560) in TIRx (port
of solutions/cuda.cu).

Kernel 1 (persistent): 264 CTAs = 2 per SM on 132 SMs, 320 threads each; CTA b walks the rows b, b + 264,
... and each thread owns 8 contiguous columns (one 16-byte vector of each tensor; 320 * 8 = 2560 = hidden
exactly). Per row: one pass over grad_output and normalized (loaded one row ahead), one CTA reduction of
sum(g * n) (warp shuffles, then 10 warp partials in shared memory double-buffered by row parity, so one
barrier per row), then the gradient is written to both outputs. The weight gradient is accumulated per
thread in fp32 registers across the CTA's rows and written once per CTA as an fp32 partial row. Kernel 2
sums the 264 partial rows per column (32 columns x 32 part lanes per CTA) and rounds once to bf16.
All arithmetic is fp32 (reference.md): g = dy * w, mean = sum(g * n) / 2560 (an IEEE division),
dx = rstd * (g - n * mean), outputs bf16(dx); grad_weight = bf16(sum dy * n).

The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

ROWS = 64 * 8192
HIDDEN = 2560
VEC = 8                        # bf16 per 16-byte vector
THREADS = HIDDEN // VEC        # 320
WARPS = THREADS // 32          # 10
CTAS = 264                     # 2 per SM x 132 SMs
STEPS = (ROWS + CTAS - 1) // CTAS  # 1986: the most rows one CTA takes

assert THREADS * VEC == HIDDEN and THREADS % 32 == 0


@T.prim_func
def rmsnorm_backward(go_ptr: T.handle, n_ptr: T.handle, rstd_ptr: T.handle, weight_ptr: T.handle,
                     gh_ptr: T.handle, gr_ptr: T.handle, gw_partial_ptr: T.handle):
    a_go = T.match_buffer(go_ptr, (ROWS * HIDDEN,), "bfloat16")
    b_n = T.match_buffer(n_ptr, (ROWS * HIDDEN,), "bfloat16")
    c_rstd = T.match_buffer(rstd_ptr, (ROWS,), "bfloat16")
    d_weight = T.match_buffer(weight_ptr, (HIDDEN,), "bfloat16")
    e_gh = T.match_buffer(gh_ptr, (ROWS * HIDDEN,), "bfloat16")
    f_gr = T.match_buffer(gr_ptr, (ROWS * HIDDEN,), "bfloat16")
    g_gw_partial = T.match_buffer(gw_partial_ptr, (CTAS * HIDDEN,), "float32")
    T.device_entry()
    bx = T.cta_id([CTAS])
    tx = T.thread_id([THREADS])
    wp = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    # the next row's vectors (loaded one row ahead) and the current row's
    ngo = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    nn = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    cgo = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    cn = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    out = T.alloc_buffer((VEC,), "bfloat16", scope="local")
    gw = T.alloc_buffer((VEC,), "float32", scope="local")
    rs = T.alloc_buffer((2,), "float32", scope="local")      # [0]: this row's rstd, [1]: the next row's
    sums = T.alloc_buffer((1,), "float32", scope="local")    # sum g * n, then the mean
    red = T.alloc_buffer((2 * WARPS,), "float32", scope="shared")   # [row parity][warp]
    # (indices are written out in full: a named index becomes a local variable and defeats vectorization)
    for k in T.vectorized(VEC):
        wp[k] = d_weight[tx * VEC + k]
    for k in T.unroll(VEC):
        gw[k] = T.float32(0)
    # row bx < CTAS <= ROWS: every CTA has a first row
    for k in T.vectorized(VEC):
        ngo[k] = a_go[bx * HIDDEN + tx * VEC + k]
    for k in T.vectorized(VEC):
        nn[k] = b_n[bx * HIDDEN + tx * VEC + k]
    rs[1] = T.Cast("float32", c_rstd[bx])
    for i in T.serial(STEPS):
        # row bx + i * CTAS (the condition is uniform over the CTA: its barrier is safe)
        if bx + i * CTAS < ROWS:
            for k in T.vectorized(VEC):
                cgo[k] = ngo[k]
            for k in T.vectorized(VEC):
                cn[k] = nn[k]
            rs[0] = rs[1]
            if bx + (i + 1) * CTAS < ROWS:
                for k in T.vectorized(VEC):
                    ngo[k] = a_go[(bx + (i + 1) * CTAS) * HIDDEN + tx * VEC + k]
                for k in T.vectorized(VEC):
                    nn[k] = b_n[(bx + (i + 1) * CTAS) * HIDDEN + tx * VEC + k]
                rs[1] = T.Cast("float32", c_rstd[bx + (i + 1) * CTAS])

            # gw += dy * n; sum of g * n with g = dy * w
            sums[0] = T.float32(0)
            for k in T.unroll(VEC):
                gw[k] = gw[k] + T.Cast("float32", cgo[k]) * T.Cast("float32", cn[k])
                sums[0] = sums[0] + (T.Cast("float32", cgo[k]) * T.Cast("float32", wp[k])) * T.Cast("float32", cn[k])
            sums[0] = T.cuda.warp_sum(sums[0], 32)
            if tx % 32 == 0:
                red[i % 2 * WARPS + tx // 32] = sums[0]
            T.cuda.cta_sync()
            sums[0] = T.float32(0)
            for w in T.unroll(WARPS):
                sums[0] = sums[0] + red[i % 2 * WARPS + w]
            sums[0] = sums[0] / T.float32(HIDDEN)   # (g * n).mean(-1)
            for k in T.unroll(VEC):
                out[k] = T.Cast("bfloat16", rs[0] * (T.Cast("float32", cgo[k]) * T.Cast("float32", wp[k])
                                                     - T.Cast("float32", cn[k]) * sums[0]))
            for k in T.vectorized(VEC):
                e_gh[(bx + i * CTAS) * HIDDEN + tx * VEC + k] = out[k]
            for k in T.vectorized(VEC):
                f_gr[(bx + i * CTAS) * HIDDEN + tx * VEC + k] = out[k]
    for k in T.vectorized(4):
        g_gw_partial[bx * HIDDEN + tx * VEC + k] = gw[k]
    for k in T.vectorized(4):
        g_gw_partial[bx * HIDDEN + tx * VEC + 4 + k] = gw[4 + k]


@T.prim_func
def grad_weight_reduce(gw_partial_ptr: T.handle, grad_weight_ptr: T.handle):
    # grad_weight[c] = bf16(sum over the 264 parts of gw_partial[p, c]); thread t: column lane t % 32, part
    # lane t // 32 (parts t // 32, t // 32 + 32, ...); then the 32 part lanes of a column are summed in order.
    a_gw_partial = T.match_buffer(gw_partial_ptr, (CTAS * HIDDEN,), "float32")
    b_grad_weight = T.match_buffer(grad_weight_ptr, (HIDDEN,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([HIDDEN // 32])
    tx = T.thread_id([1024])
    acc = T.alloc_buffer((1,), "float32", scope="local")
    part_sums = T.alloc_buffer((32 * 33,), "float32", scope="shared")
    acc[0] = T.float32(0)
    for m in T.unroll((CTAS + 31) // 32):
        if tx // 32 + m * 32 < CTAS:
            acc[0] = acc[0] + a_gw_partial[(tx // 32 + m * 32) * HIDDEN + bx * 32 + tx % 32]
    part_sums[tx // 32 * 33 + tx % 32] = acc[0]
    T.cuda.cta_sync()
    if tx < 32:
        acc[0] = T.float32(0)
        for p in T.unroll(32):
            acc[0] = acc[0] + part_sums[p * 33 + tx]
        b_grad_weight[bx * 32 + tx] = T.Cast("bfloat16", acc[0])


MKB_PLAN = """/* mkb:plan
# 264 = 2 resident CTAs per SM x 132 SMs, as cuda.cu.
scratch gw_partial fp32[264 * hidden_size]
launch rmsnorm_backward grid(264) block(320)
  args(grad_output, normalized, rstd, weight, grad_hidden_states, grad_residual, gw_partial)
launch grad_weight_reduce grid(hidden_size / 32) block(1024) args(gw_partial, grad_weight)
*/"""
