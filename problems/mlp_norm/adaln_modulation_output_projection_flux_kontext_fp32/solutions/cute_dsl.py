"""FLUX.1 Kontext final layer (AdaLayerNormContinuous + proj_out) in CuTe DSL, fp32 throughout with
plain fp32 FMA (no TF32), three launches, the algorithm of solutions/cuda.cu:
  1. silu_gemv: emb = silu(temb) @ norm_weight^T + norm_bias, a weight-streaming GEMV: one warp per
     output row (8 rows per 256-thread block), 24 16-byte loads per lane (12 in flight at a time),
     silu(temb) = t / (1 + exp(-t)) staged in shared memory, fp32 FMA chain per lane, then a warp sum.
  2. fold_weights: folds the modulation into the projection. With W = proj_weight,
       y[t,o] = sum_c ((x[t,c] - mean_t) * rstd_t * (1 + scale[c]) + shift[c]) * W[o,c] + bias[o]
              = rstd_t * (sum_c x[t,c] * Wf[o,c] - mean_t * csum[o]) + sbias[o]
     with Wf[o,c] = W[o,c] * (1 + scale[c]), csum[o] = sum_c Wf[o,c], sbias[o] = sum_c shift[c] W[o,c] + bias[o]
     (sums in float64), one block per output channel.
  3. adaln_proj: x @ Wf^T in fp32 FMA, reading x exactly once. Block tile 64 tokens x 64 outputs (all
     of them), K tile 64; 256 threads, thread (tm, tn) = (tid / 16, tid % 16) owns tokens tm + 16i and
     outputs tn + 16j (i, j < 4): 16 accumulators. Per K tile the next tile's x and Wf pieces (4 + 4
     16-byte vectors per thread) are loaded into registers while the current tile is computed from
     shared memory (rows padded to 68 floats: conflict-free 16-byte reads). Each K tile's products are
     summed from zero and then added to the running fp32 sums (as cuda.cu). The LayerNorm statistics
     come from the same registers before they are stored: per row, fp32 partials of 4 values added in
     float64, reduced over the 16 threads that hold the row; mean = s / dim, var = max(q / dim - mean^2, 0),
     rstd = 1 / sqrt(var + eps) in float64, rounded to fp32 as cuda.cu. The epilogue applies
     y = (acc - mean * csum) * rstd + sbias.
Shapes: batch = 1, tokens = 8192 = 128 * 64, dim = 3072 = 48 * 64, out_channels = 64."""
import cutlass
import cutlass.cute as cute

BATCH = 1
TOKENS = 8192
DIM = 3072
EMB = 2 * DIM
OUT = 64
F32 = cutlass.Float32
F64 = cutlass.Float64

# ---- 1. GEMV ----
GEMV_WARPS = 8
GEMV_ITERS = DIM // 4 // 32       # 24 float4 per lane per row
GEMV_CHUNK = 12                   # float4 loads in flight per lane
assert DIM % 128 == 0 and GEMV_ITERS % GEMV_CHUNK == 0 and EMB % GEMV_WARPS == 0

# ---- 3. projection ----
BM = 64                           # tokens per block
BK = 64                           # K tile
LDS = BK + 4                      # padded shared row (floats): 272 bytes, 16-byte aligned
THREADS = 256
KT = DIM // BK                    # 48 K tiles
PIECES = BM * BK // 4 // THREADS  # 4 16-byte pieces of x (and of Wf) per thread per K tile
assert BATCH == 1 and TOKENS % BM == 0 and DIM % BK == 0 and OUT == 64 and PIECES == 4
assert THREADS == 16 * 16 and BM == 4 * 16 and OUT == 4 * 16


@cute.kernel
def silu_gemv(temb: cute.Pointer, w: cute.Pointer, bias: cute.Pointer, emb: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    bidx = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    j = bidx * GEMV_WARPS + warp
    gt = cute.make_tensor(temb, cute.make_layout(DIM))
    gb = cute.make_tensor(bias, cute.make_layout(EMB))
    ge = cute.make_tensor(emb, cute.make_layout(EMB))
    # Row j of the weight as (row, i, lane, element): lane l's i-th vector is columns 4 (l + 32 i) .. + 3.
    gw = cute.make_tensor(w, cute.make_layout((EMB, GEMV_ITERS, 32, 4), stride=(DIM, 128, 4, 1)))
    s_ptr = cute.arch.alloc_smem(F32, DIM, alignment=16)
    st = cute.make_tensor(s_ptr, cute.make_layout(DIM))
    st4 = cute.make_tensor(s_ptr, cute.make_layout((GEMV_ITERS, 32, 4), stride=(128, 4, 1)))

    for i in cutlass.range(tidx, DIM, THREADS):
        t = gt[i]
        st[i] = t / (F32(1.0) + cute.math.exp(-t))         # silu, one fp32 rounding per op
    cute.arch.sync_threads()

    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    if j < EMB:
        acc = F32(0.0)
        rv = cute.make_rmem_tensor((4, GEMV_CHUNK), F32)   # column-major: [None, i] contiguous
        sv = cute.make_rmem_tensor((4,), F32)
        for half in cutlass.range_constexpr(GEMV_ITERS // GEMV_CHUNK):
            for i in cutlass.range_constexpr(GEMV_CHUNK):
                cute.copy(copy128, gw[j, half * GEMV_CHUNK + i, lane, None], rv[None, i])
            for i in cutlass.range_constexpr(GEMV_CHUNK):
                cute.copy(copy128, st4[half * GEMV_CHUNK + i, lane, None], sv)
                for e in cutlass.range_constexpr(4):
                    acc = acc + rv[e, i] * sv[e]
        total = cute.arch.warp_reduction_sum(acc)
        if lane == 0:
            ge[j] = total + gb[j]


@cute.kernel
def fold_weights(emb: cute.Pointer, pw: cute.Pointer, pb: cute.Pointer, wf: cute.Pointer, csum: cute.Pointer,
                 sbias: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    o = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    ge = cute.make_tensor(emb, cute.make_layout(EMB))
    gpw = cute.make_tensor(pw, cute.make_layout((OUT, DIM), stride=(DIM, 1)))
    gwf = cute.make_tensor(wf, cute.make_layout((OUT, DIM), stride=(DIM, 1)))
    gpb = cute.make_tensor(pb, cute.make_layout(OUT))
    gcs = cute.make_tensor(csum, cute.make_layout(OUT))
    gsb = cute.make_tensor(sbias, cute.make_layout(OUT))
    part_c = cute.make_tensor(cute.arch.alloc_smem(F64, 8), cute.make_layout(8))
    part_s = cute.make_tensor(cute.arch.alloc_smem(F64, 8), cute.make_layout(8))
    cs = F64(0.0)
    sb = F64(0.0)
    for c in cutlass.range(tidx, DIM, 256):
        wv = gpw[o, c]
        s1 = F32(1.0) + ge[c]                  # 1 + scale
        f = wv * s1
        gwf[o, c] = f
        cs = cs + f.to(F64)
        sb = sb + ge[DIM + c].to(F64) * wv.to(F64)   # shift * W
    cs = cute.arch.warp_reduction_sum(cs)
    sb = cute.arch.warp_reduction_sum(sb)
    if lane == 0:
        part_c[warp] = cs
        part_s[warp] = sb
    cute.arch.sync_threads()
    if tidx == 0:
        tc = F64(0.0)
        ts = F64(0.0)
        for i in cutlass.range_constexpr(8):
            tc = tc + part_c[i]
            ts = ts + part_s[i]
        gcs[o] = tc.to(F32)
        gsb[o] = (ts + gpb[o].to(F64)).to(F32)


@cute.kernel
def adaln_proj(x: cute.Pointer, wf: cute.Pointer, csum: cute.Pointer, sbias: cute.Pointer, y: cute.Pointer,
               eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    bidx = cute.arch.block_idx()[0]
    tm = tidx // 16
    tn = tidx % 16
    m0 = bidx * BM

    # Global pieces: (row, K tile, 16-byte column piece, element).
    gx = cute.make_tensor(x, cute.make_layout((TOKENS, KT, BK // 4, 4), stride=(DIM, BK, 4, 1)))
    gwf = cute.make_tensor(wf, cute.make_layout((OUT, KT, BK // 4, 4), stride=(DIM, BK, 4, 1)))
    gy = cute.make_tensor(y, cute.make_layout((TOKENS, OUT), stride=(OUT, 1)))
    gcs = cute.make_tensor(csum, cute.make_layout(OUT))
    gsb = cute.make_tensor(sbias, cute.make_layout(OUT))
    # Shared tiles as (row, 16-byte piece, element), rows padded to LDS floats.
    sa = cute.make_tensor(cute.arch.alloc_smem(F32, BM * LDS, alignment=16),
                          cute.make_layout((BM, BK // 4, 4), stride=(LDS, 4, 1)))
    sbw = cute.make_tensor(cute.arch.alloc_smem(F32, OUT * LDS, alignment=16),
                           cute.make_layout((OUT, BK // 4, 4), stride=(LDS, 4, 1)))
    row_mean = cute.make_tensor(cute.arch.alloc_smem(F32, BM), cute.make_layout(BM))
    row_rstd = cute.make_tensor(cute.arch.alloc_smem(F32, BM), cute.make_layout(BM))

    copy128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)

    # Loader: piece p (< 4) of this thread is row tm + 16 p, 16-byte column piece tn, of both tiles.
    ra = cute.make_rmem_tensor((4, PIECES), F32)   # column-major: [None, p] contiguous
    rb = cute.make_rmem_tensor((4, PIECES), F32)
    # Compute fragments: a[None, i] = x row tm + 16 i, b[None, j] = Wf row tn + 16 j (4 k values each).
    fa = cute.make_rmem_tensor((4, 4), F32)
    fb = cute.make_rmem_tensor((4, 4), F32)
    acc = cute.make_rmem_tensor((4, 4), F32)
    tacc = cute.make_rmem_tensor((4, 4), F32)
    # LayerNorm statistics of rows tm + 16 p over this thread's columns, in float64.
    rs = cute.make_rmem_tensor((PIECES,), F64)
    rq = cute.make_rmem_tensor((PIECES,), F64)
    for i in cutlass.range_constexpr(4):
        rs[i] = F64(0.0)
        rq[i] = F64(0.0)
        for jj in cutlass.range_constexpr(4):
            acc[i, jj] = F32(0.0)

    for p in cutlass.range_constexpr(PIECES):
        cute.copy(copy128, gx[m0 + tm + 16 * p, 0, tn, None], ra[None, p])
        cute.copy(copy128, gwf[tm + 16 * p, 0, tn, None], rb[None, p])

    for kt in cutlass.range(KT):
        cute.arch.sync_threads()            # everyone is done reading the previous tile
        for p in cutlass.range_constexpr(PIECES):
            # statistics from the registers: fp32 partials of 4 values, accumulated in float64
            s4 = (ra[0, p] + ra[1, p]) + (ra[2, p] + ra[3, p])
            q4 = (ra[0, p] * ra[0, p] + ra[1, p] * ra[1, p]) + (ra[2, p] * ra[2, p] + ra[3, p] * ra[3, p])
            rs[p] = rs[p] + s4.to(F64)
            rq[p] = rq[p] + q4.to(F64)
            cute.copy(copy128, ra[None, p], sa[tm + 16 * p, tn, None])
            cute.copy(copy128, rb[None, p], sbw[tm + 16 * p, tn, None])
        cute.arch.sync_threads()            # tile kt is in shared memory
        if kt + 1 < KT:                     # the next tile loads while this one is computed
            for p in cutlass.range_constexpr(PIECES):
                cute.copy(copy128, gx[m0 + tm + 16 * p, kt + 1, tn, None], ra[None, p])
                cute.copy(copy128, gwf[tm + 16 * p, kt + 1, tn, None], rb[None, p])

        for i in cutlass.range_constexpr(4):
            for jj in cutlass.range_constexpr(4):
                tacc[i, jj] = F32(0.0)
        for kk in cutlass.range_constexpr(BK // 4):
            for i in cutlass.range_constexpr(4):
                cute.copy(copy128, sa[tm + 16 * i, kk, None], fa[None, i])
                cute.copy(copy128, sbw[tn + 16 * i, kk, None], fb[None, i])
            for e in cutlass.range_constexpr(4):
                for i in cutlass.range_constexpr(4):
                    for jj in cutlass.range_constexpr(4):
                        tacc[i, jj] = tacc[i, jj] + fa[e, i] * fb[e, jj]
        for i in cutlass.range_constexpr(4):
            for jj in cutlass.range_constexpr(4):
                acc[i, jj] = acc[i, jj] + tacc[i, jj]

    # Row statistics: the 16 threads holding row tm + 16 p are lanes of one half-warp.
    for p in cutlass.range_constexpr(PIECES):
        s = cute.arch.warp_reduction_sum(rs[p], threads_in_group=16)
        q = cute.arch.warp_reduction_sum(rq[p], threads_in_group=16)
        if tn == 0:
            mean = s / F64(DIM)
            var = q / F64(DIM) - mean * mean
            if var < F64(0.0):
                var = F64(0.0)
            row_mean[tm + 16 * p] = mean.to(F32)
            row_rstd[tm + 16 * p] = (F64(1.0) / cute.math.sqrt(var + eps.to(F64))).to(F32)
    cute.arch.sync_threads()

    for jj in cutlass.range_constexpr(4):
        n = tn + 16 * jj
        cs = gcs[n]
        sbv = gsb[n]
        for i in cutlass.range_constexpr(4):
            r = tm + 16 * i
            gy[m0 + r, n] = (acc[i, jj] - row_mean[r] * cs) * row_rstd[r] + sbv


MKB_PLAN = """/* mkb:plan
scratch emb fp32[batch * 2 * dim]
scratch wf fp32[batch * out_channels * dim]
scratch csum fp32[batch * out_channels]
scratch sbias fp32[batch * out_channels]
launch silu_gemv grid(2 * dim / 8) block(256) args(temb, norm_weight, norm_bias, emb)
launch fold_weights grid(out_channels) block(256) args(emb, proj_weight, proj_bias, wf, csum, sbias)
launch adaln_proj grid(batch * tokens / 64) block(256) args(x, wf, csum, sbias, y, f32(eps))
*/"""
