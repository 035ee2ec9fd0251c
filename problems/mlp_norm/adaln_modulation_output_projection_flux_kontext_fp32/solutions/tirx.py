"""FLUX.1 Kontext final layer (AdaLayerNormContinuous + proj_out) in TIRx, fp32 accuracy with plain fp32
FMA (no TF32), three launches, the algorithm of solutions/cuda.cu:
  1. silu_gemv: emb = silu(temb) @ norm_weight^T + norm_bias. Weight-streaming GEMV, one warp per output
     row (8 rows per 256-thread CTA), 16-byte loads (12 in flight per lane), silu(temb) = t / (1 + expf(-t))
     staged in shared memory, warp-shuffle sum, then + bias (two fp32 roundings, as eager).
  2. fold_weights: folds the modulation into the projection. With W = proj_weight,
       y[t,o] = sum_c ((x[t,c] - mean_t) * rstd_t * (1 + scale[c]) + shift[c]) * W[o,c] + bias[o]
              = rstd_t * (sum_c x[t,c] * Wf[o,c] - mean_t * csum[o]) + sbias[o]
     with Wf[o,c] = W[o,c] * (1 + scale[c]) (fp32), csum[o] = sum_c Wf[o,c], sbias[o] = sum_c shift[c] W[o,c]
     + bias[o] (sums in float64), one CTA per output channel. Wf is stored transposed, wft[c, o], so that
     the GEMM's K-tiles of it are contiguous 64-float rows.
  3. adaln_proj: x @ Wf^T in fp32 FMA, reading x exactly once: one 256-thread CTA per 64 tokens computes
     the 64 x 64 output tile, each thread a 4 x 4 block (rows 4 * (t / 16) + i, columns 4 * (t % 16) + j),
     with blocked summation as cuda.cu: each K tile's 32 products are summed from zero into a partial that
     is then added to the running fp32 sum (one FMA chain over all 3072 failed y's allowance on the H200 by
     6%, 1 element of 524288), over 96 K-tiles of 32 (x tile [64][32 + 4 pad] and wft tile [32][64] in
     shared memory, double-buffered; the next tile is loaded into registers while the current one is
     multiplied, one barrier per tile).
     The LayerNorm statistics (row sum and sum of squares: fp32 partials of 4 values, accumulated in
     float64) come from the same registers as they are staged; mean = s / dim, var = max(q / dim - mean^2, 0)
     and rstd = 1 / sqrt(var + eps) in float64, rounded to fp32 as cuda.cu does; the epilogue applies
     y = (acc - mean * csum) * rstd + sbias.
Shapes are fixed: batch = 1, tokens = 8192 = 128 * 64, dim = 3072 = 96 * 32, out_channels = 64.
The buffers are named a_.. so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

TOKENS = 8192
DIM = 3072
EMB = 2 * DIM
OUT = 64

GEMV_WARPS = 8
GEMV_CHUNK = 12                     # float4 loads in flight per lane
GEMV_ITERS = DIM // 4 // 32         # 24 float4 per lane per row

BM = 64                             # tokens per CTA
BK = 32                             # K tile
LDA = BK + 4                        # padded row of the x tile
KT = DIM // BK                      # 96 K tiles
THREADS = 256
A_TILE = BM * LDA                   # floats per x tile buffer
B_TILE = BK * OUT                   # floats per wft tile buffer

assert GEMV_ITERS % GEMV_CHUNK == 0 and EMB % GEMV_WARPS == 0 and DIM % (THREADS * 4) == 0
assert TOKENS % BM == 0 and DIM % BK == 0 and BM * BK // 4 == 2 * THREADS and BK * OUT // 4 == 2 * THREADS
assert (BM // 4) * (OUT // 4) == THREADS


@T.prim_func
def silu_gemv(temb_ptr: T.handle, norm_weight_ptr: T.handle, norm_bias_ptr: T.handle, emb_ptr: T.handle):
    a_temb = T.match_buffer(temb_ptr, (DIM,), "float32")
    b_norm_weight = T.match_buffer(norm_weight_ptr, (EMB * DIM,), "float32")
    c_norm_bias = T.match_buffer(norm_bias_ptr, (EMB,), "float32")
    d_emb = T.match_buffer(emb_ptr, (EMB,), "float32")
    T.device_entry()
    bx = T.cta_id([EMB // GEMV_WARPS])
    tx = T.thread_id([THREADS])
    tv = T.alloc_buffer((4,), "float32", scope="local")
    wv = T.alloc_buffer((GEMV_CHUNK * 4,), "float32", scope="local")
    acc = T.alloc_buffer((1,), "float32", scope="local")
    st = T.alloc_buffer((DIM,), "float32", scope="shared")
    # (indices are written out in full: a named index becomes a local variable and defeats vectorization)
    # silu(temb) = t / (1 + expf(-t)), rounded once to fp32
    for i in T.unroll(DIM // (THREADS * 4)):
        for e in T.vectorized(4):
            tv[e] = a_temb[i * (THREADS * 4) + tx * 4 + e]
        for e in T.unroll(4):
            tv[e] = tv[e] / (T.float32(1) + T.call_pure_extern("float32", "expf", T.float32(0) - tv[e]))
        for e in T.vectorized(4):
            st[i * (THREADS * 4) + tx * 4 + e] = tv[e]
    T.cuda.cta_sync()
    # warp w: row bx * 8 + w of norm_weight; lane l: float4 columns l, l + 32, ..., l + 23 * 32
    acc[0] = T.float32(0)
    for h in T.unroll(GEMV_ITERS // GEMV_CHUNK):
        for i in T.unroll(GEMV_CHUNK):
            for e in T.vectorized(4):
                wv[i * 4 + e] = b_norm_weight[(bx * GEMV_WARPS + tx // 32) * DIM
                                              + (h * GEMV_CHUNK + i) * 128 + tx % 32 * 4 + e]
        for i in T.unroll(GEMV_CHUNK):
            for e in T.unroll(4):
                acc[0] = acc[0] + wv[i * 4 + e] * st[(h * GEMV_CHUNK + i) * 128 + tx % 32 * 4 + e]
    acc[0] = T.cuda.warp_sum(acc[0], 32)
    if tx % 32 == 0:
        d_emb[bx * GEMV_WARPS + tx // 32] = acc[0] + c_norm_bias[bx * GEMV_WARPS + tx // 32]


@T.prim_func
def fold_weights(emb_ptr: T.handle, proj_weight_ptr: T.handle, proj_bias_ptr: T.handle, wft_ptr: T.handle,
                 csum_ptr: T.handle, sbias_ptr: T.handle):
    # CTA o: Wf[o, c] = W[o, c] * (1 + scale[c]) -> wft[c, o]; csum[o] = sum_c Wf[o, c];
    # sbias[o] = sum_c shift[c] * W[o, c] + bias[o] (float64 sums, rounded once to fp32)
    a_emb = T.match_buffer(emb_ptr, (EMB,), "float32")
    b_proj_weight = T.match_buffer(proj_weight_ptr, (OUT * DIM,), "float32")
    c_proj_bias = T.match_buffer(proj_bias_ptr, (OUT,), "float32")
    d_wft = T.match_buffer(wft_ptr, (DIM * OUT,), "float32")
    e_csum = T.match_buffer(csum_ptr, (OUT,), "float32")
    f_sbias = T.match_buffer(sbias_ptr, (OUT,), "float32")
    T.device_entry()
    bx = T.cta_id([OUT])
    tx = T.thread_id([THREADS])
    f = T.alloc_buffer((1,), "float32", scope="local")
    cs = T.alloc_buffer((1,), "float64", scope="local")
    sb = T.alloc_buffer((1,), "float64", scope="local")
    cs_parts = T.alloc_buffer((THREADS // 32,), "float64", scope="shared")
    sb_parts = T.alloc_buffer((THREADS // 32,), "float64", scope="shared")
    cs[0] = T.float64(0)
    sb[0] = T.float64(0)
    for i in T.unroll(DIM // THREADS):
        f[0] = b_proj_weight[bx * DIM + i * THREADS + tx] * (T.float32(1) + a_emb[i * THREADS + tx])
        d_wft[(i * THREADS + tx) * OUT + bx] = f[0]
        cs[0] = cs[0] + T.Cast("float64", f[0])
        sb[0] = sb[0] + T.Cast("float64", a_emb[DIM + i * THREADS + tx]) * T.Cast(
            "float64", b_proj_weight[bx * DIM + i * THREADS + tx])
    # warp sums, then thread 0 adds the 8 warp partials in order (T.cuda.cta_sum is not used: next to
    # warp_sum in one module, TVM 0.27 defines its warp-reduce helper twice)
    cs[0] = T.cuda.warp_sum(cs[0], 32)
    sb[0] = T.cuda.warp_sum(sb[0], 32)
    if tx % 32 == 0:
        cs_parts[tx // 32] = cs[0]
        sb_parts[tx // 32] = sb[0]
    T.cuda.cta_sync()
    if tx == 0:
        cs[0] = T.float64(0)
        sb[0] = T.float64(0)
        for w in T.unroll(THREADS // 32):
            cs[0] = cs[0] + cs_parts[w]
            sb[0] = sb[0] + sb_parts[w]
        e_csum[bx] = T.Cast("float32", cs[0])
        f_sbias[bx] = T.Cast("float32", sb[0] + T.Cast("float64", c_proj_bias[bx]))


@T.prim_func
def adaln_proj(x_ptr: T.handle, wft_ptr: T.handle, csum_ptr: T.handle, sbias_ptr: T.handle, y_ptr: T.handle,
               eps: T.float32):
    a_x = T.match_buffer(x_ptr, (TOKENS * DIM,), "float32")
    b_wft = T.match_buffer(wft_ptr, (DIM * OUT,), "float32")
    c_csum = T.match_buffer(csum_ptr, (OUT,), "float32")
    d_sbias = T.match_buffer(sbias_ptr, (OUT,), "float32")
    e_y = T.match_buffer(y_ptr, (TOKENS * OUT,), "float32")
    T.device_entry()
    bx = T.cta_id([TOKENS // BM])
    tx = T.thread_id([THREADS])
    acc = T.alloc_buffer((16,), "float32", scope="local")    # [i][j]: row 4 * (tx / 16) + i, column 4 * (tx % 16) + j
    tacc = T.alloc_buffer((16,), "float32", scope="local")   # this K tile's partial of acc
    af = T.alloc_buffer((16,), "float32", scope="local")     # [i][q]: x tile, row 4 * (tx / 16) + i, k 4 kk + q
    bf = T.alloc_buffer((16,), "float32", scope="local")     # [q][j]: wft tile, k 4 kk + q, column 4 * (tx % 16) + j
    # the staged next tile: x rows tx / 8 and 32 + tx / 8, k 4 (tx % 8) .. + 4; wft rows tx / 16 and 16 + tx / 16,
    # columns 4 (tx % 16) .. + 4
    ra = T.alloc_buffer((8,), "float32", scope="local")
    rb = T.alloc_buffer((8,), "float32", scope="local")
    rs = T.alloc_buffer((2,), "float64", scope="local")      # row sums of x rows tx / 8, 32 + tx / 8 (this thread's part)
    rq = T.alloc_buffer((2,), "float64", scope="local")      # row sums of squares
    cs = T.alloc_buffer((4,), "float32", scope="local")
    sbv = T.alloc_buffer((4,), "float32", scope="local")
    stat = T.alloc_buffer((4,), "float64", scope="local")    # s, q, mean, var of a row
    res = T.alloc_buffer((4,), "float32", scope="local")
    a_s = T.alloc_buffer((2 * A_TILE,), "float32", scope="shared")
    b_s = T.alloc_buffer((2 * B_TILE,), "float32", scope="shared")
    part_s = T.alloc_buffer((2 * THREADS,), "float64", scope="shared")
    part_q = T.alloc_buffer((2 * THREADS,), "float64", scope="shared")
    row_mean = T.alloc_buffer((BM,), "float32", scope="shared")
    row_rstd = T.alloc_buffer((BM,), "float32", scope="shared")
    # (indices are written out in full: a named index becomes a local variable and defeats vectorization)
    for e in T.unroll(16):
        acc[e] = T.float32(0)
    for i in T.unroll(2):
        rs[i] = T.float64(0)
        rq[i] = T.float64(0)
    # K tile 0 -> registers -> buffer 0
    for i in T.unroll(2):
        for e in T.vectorized(4):
            ra[i * 4 + e] = a_x[(bx * BM + i * 32 + tx // 8) * DIM + tx % 8 * 4 + e]
        for e in T.vectorized(4):
            rb[i * 4 + e] = b_wft[(i * 16 + tx // 16) * OUT + tx % 16 * 4 + e]
    for i in T.unroll(2):
        for e in T.vectorized(4):
            a_s[(i * 32 + tx // 8) * LDA + tx % 8 * 4 + e] = ra[i * 4 + e]
        for e in T.vectorized(4):
            b_s[(i * 16 + tx // 16) * OUT + tx % 16 * 4 + e] = rb[i * 4 + e]
        rs[i] = rs[i] + T.Cast("float64", (ra[i * 4] + ra[i * 4 + 1]) + (ra[i * 4 + 2] + ra[i * 4 + 3]))
        rq[i] = rq[i] + T.Cast("float64", (ra[i * 4] * ra[i * 4] + ra[i * 4 + 1] * ra[i * 4 + 1])
                               + (ra[i * 4 + 2] * ra[i * 4 + 2] + ra[i * 4 + 3] * ra[i * 4 + 3]))
    T.cuda.cta_sync()
    for kt in T.serial(KT):
        # K tile kt + 1 -> registers (in flight during this tile's products)
        if kt + 1 < KT:
            for i in T.unroll(2):
                for e in T.vectorized(4):
                    ra[i * 4 + e] = a_x[(bx * BM + i * 32 + tx // 8) * DIM + (kt + 1) * BK + tx % 8 * 4 + e]
                for e in T.vectorized(4):
                    rb[i * 4 + e] = b_wft[((kt + 1) * BK + i * 16 + tx // 16) * OUT + tx % 16 * 4 + e]
        # products of K tile kt (buffer kt % 2), four k at a time, summed from zero into tacc (blocked sum)
        for e in T.unroll(16):
            tacc[e] = T.float32(0)
        for kk in T.unroll(BK // 4):
            for i in T.unroll(4):
                for e in T.vectorized(4):
                    af[i * 4 + e] = a_s[kt % 2 * A_TILE + (tx // 16 * 4 + i) * LDA + kk * 4 + e]
            for q in T.unroll(4):
                for e in T.vectorized(4):
                    bf[q * 4 + e] = b_s[kt % 2 * B_TILE + (kk * 4 + q) * OUT + tx % 16 * 4 + e]
            for i in T.unroll(4):
                for j in T.unroll(4):
                    for q in T.unroll(4):
                        tacc[i * 4 + j] = tacc[i * 4 + j] + af[i * 4 + q] * bf[q * 4 + j]
        # the tile's 32-term partial is added to the running fp32 sums once per tile (as cuda.cu does)
        for e in T.unroll(16):
            acc[e] = acc[e] + tacc[e]
        # registers -> buffer (kt + 1) % 2: every thread finished tile kt - 1 (the barrier below, last tile)
        if kt + 1 < KT:
            for i in T.unroll(2):
                for e in T.vectorized(4):
                    a_s[(kt + 1) % 2 * A_TILE + (i * 32 + tx // 8) * LDA + tx % 8 * 4 + e] = ra[i * 4 + e]
                for e in T.vectorized(4):
                    b_s[(kt + 1) % 2 * B_TILE + (i * 16 + tx // 16) * OUT + tx % 16 * 4 + e] = rb[i * 4 + e]
                rs[i] = rs[i] + T.Cast("float64", (ra[i * 4] + ra[i * 4 + 1]) + (ra[i * 4 + 2] + ra[i * 4 + 3]))
                rq[i] = rq[i] + T.Cast("float64", (ra[i * 4] * ra[i * 4] + ra[i * 4 + 1] * ra[i * 4 + 1])
                                       + (ra[i * 4 + 2] * ra[i * 4 + 2] + ra[i * 4 + 3] * ra[i * 4 + 3]))
        T.cuda.cta_sync()

    # Row statistics: row r = 32 i + tx / 8 has its 8 parts at part_*[i * 256 + 8 (r % 32) .. + 8].
    for i in T.unroll(2):
        part_s[i * THREADS + tx] = rs[i]
        part_q[i * THREADS + tx] = rq[i]
    T.cuda.cta_sync()
    if tx < BM:
        stat[0] = T.float64(0)
        stat[1] = T.float64(0)
        for p in T.unroll(8):
            stat[0] = stat[0] + part_s[tx // 32 * THREADS + tx % 32 * 8 + p]
            stat[1] = stat[1] + part_q[tx // 32 * THREADS + tx % 32 * 8 + p]
        stat[2] = stat[0] / T.float64(DIM)
        stat[3] = T.max(stat[1] / T.float64(DIM) - stat[2] * stat[2], T.float64(0))
        row_mean[tx] = T.Cast("float32", stat[2])
        row_rstd[tx] = T.Cast("float32", T.float64(1) / T.sqrt(stat[3] + T.Cast("float64", eps)))
    T.cuda.cta_sync()

    # y = (acc - mean * csum) * rstd + sbias
    for e in T.vectorized(4):
        cs[e] = c_csum[tx % 16 * 4 + e]
    for e in T.vectorized(4):
        sbv[e] = d_sbias[tx % 16 * 4 + e]
    for i in T.unroll(4):
        for j in T.unroll(4):
            res[j] = (acc[i * 4 + j] - row_mean[tx // 16 * 4 + i] * cs[j]) * row_rstd[tx // 16 * 4 + i] + sbv[j]
        for e in T.vectorized(4):
            e_y[(bx * BM + tx // 16 * 4 + i) * OUT + tx % 16 * 4 + e] = res[e]


MKB_PLAN = """/* mkb:plan
# batch = 1; tokens = 8192 = 128 CTAs x 64 rows; dim = 3072 = 96 K tiles x 32.
scratch emb fp32[batch * 2 * dim]
scratch wft fp32[dim * out_channels]
scratch csum fp32[out_channels]
scratch sbias fp32[out_channels]
launch silu_gemv grid(2 * dim / 8) block(256) args(temb, norm_weight, norm_bias, emb)
launch fold_weights grid(out_channels) block(256) args(emb, proj_weight, proj_bias, wft, csum, sbias)
launch adaln_proj grid(batch * tokens / 64) block(256) args(x, wft, csum, sbias, y, f32(eps))
*/"""
