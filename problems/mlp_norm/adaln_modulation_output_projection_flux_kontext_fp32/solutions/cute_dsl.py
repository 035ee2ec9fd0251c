"""FLUX.1 Kontext final layer (#39: LayerNorm without affine, SiLU(temb) -> Linear -> scale/shift modulation,
Linear 3072 -> 64) in CuTe DSL, fp32 throughout with plain fp32 FMA (no TF32), three launches, the algorithm
of solutions/cuda.cu:
  1. silu_gemm: emb = silu(temb) @ mod_weight^T + mod_bias for all 32 batch entries (M = 32, N = 6144,
     K = 3072), streaming the 75 MB weight once. One warp per two output rows j (16 rows per 256-thread
     block); silu(temb) = t * (1 / (1 + exp(-t))) (sigmoid, then the product, as eager) is staged in shared
     memory 256 columns at a time for all 32 entries (32 KB); lane l reads weight columns k0 + l + 32 u and
     keeps 2 x 32 fp32 accumulators (a fixed FMA chain each), then a warp sum per (row, entry), + bias.
  2. fold_weights: folds the modulation into the projection, per batch entry b (grid.y). With W = out_weight,
       out[t,o] = sum_c ((x[t,c] - mean_t) * rstd_t * (1 + scale[c]) + shift[c]) * W[o,c] + bias[o]
                = rstd_t * (sum_c x[t,c] * Wf[o,c] - mean_t * csum[o]) + sbias[o]
     with Wf[b,o,c] = W[o,c] * (1 + scale[b,c]), csum[b,o] = sum_c Wf[b,o,c],
     sbias[b,o] = sum_c shift[b,c] W[o,c] + bias[o] (sums in float64), one block per (o, b).
  3. adaln_proj: x @ Wf[b]^T in fp32 FMA, reading x exactly once. Block tile 64 tokens x 64 outputs (all of
     them); a block's 64 tokens lie in one batch entry b (seq_len = 256 = 4 * 64). K tile 64; 256 threads,
     thread (tm, tn) = (tid / 16, tid % 16) owns tokens tm + 16i and outputs tn + 16j (i, j < 4): 16
     accumulators. Per K tile the next tile's x and Wf pieces (4 + 4 16-byte vectors per thread) are loaded
     into registers while the current tile is computed from shared memory (rows padded to 68 floats). Each
     K tile's 64 products are summed from zero and then added to the running fp32 sums (blocked summation:
     one FMA chain over all 3072 terms missed the allowance on an H200 in the batch-1 version of this
     problem). The LayerNorm statistics come from the same registers before they are stored: per row, fp32
     partials of 4 values added in float64, reduced over the 16 threads that hold the row;
     mean = s / dim, var = max(q / dim - mean^2, 0), rstd = 1 / sqrt(var + eps) in float64, rounded to fp32
     as cuda.cu. The epilogue applies out = (acc - mean * csum) * rstd + sbias.
Adapted from the batch-1 version of this solution (which ran on an H200): stages 2 and 3 gain the batch
index; stage 1 is new (a skinny GEMM instead of a GEMV). Compile-checked only (sm_90a, ptxas: 94, 30
and 150 registers, no spills).
Expected speed: x (100 MB) is read once and the 3.2 GFLOP projection runs on fp32 FMA (about 50-100 us),
against a baseline that makes four full fp32 passes over x plus the statistics before its SGEMMs; expected
to beat it, by less than cuda.cu (which uses 3xTF32 tensor cores).
Shapes: batch = 32, seq_len = 256, tokens = 8192 = 128 * 64, dim = 3072 = 48 * 64, out = 64."""
import cutlass
import cutlass.cute as cute

BATCH = 32
SEQ = 256
TOKENS = BATCH * SEQ
DIM = 3072
EMB = 2 * DIM
OUT = 64
F32 = cutlass.Float32
F64 = cutlass.Float64
THREADS = 256

# ---- 1. modulation GEMM ----
GEMM_WARPS = 8
ROWS = 2                          # output rows per warp
CHUNK = 256                       # K columns of silu(temb) staged per step
assert DIM % CHUNK == 0 and CHUNK % 32 == 0 and EMB % (GEMM_WARPS * ROWS) == 0

# ---- 3. projection ----
BM = 64                           # tokens per block
BK = 64                           # K tile
LDS = BK + 4                      # padded shared row (floats): 272 bytes, 16-byte aligned
KT = DIM // BK                    # 48 K tiles
PIECES = BM * BK // 4 // THREADS  # 4 16-byte pieces of x (and of Wf) per thread per K tile
assert SEQ % BM == 0 and DIM % BK == 0 and OUT == 64 and PIECES == 4
assert THREADS == 16 * 16 and BM == 4 * 16 and OUT == 4 * 16


@cute.kernel
def silu_gemm(temb: cute.Pointer, w: cute.Pointer, bias: cute.Pointer, emb: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    bidx = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    j0 = (bidx * GEMM_WARPS + warp) * ROWS
    gt = cute.make_tensor(temb, cute.make_layout((BATCH, DIM), stride=(DIM, 1)))
    gw = cute.make_tensor(w, cute.make_layout((EMB, DIM), stride=(DIM, 1)))
    gb = cute.make_tensor(bias, cute.make_layout(EMB))
    ge = cute.make_tensor(emb, cute.make_layout((BATCH, EMB), stride=(EMB, 1)))
    st = cute.make_tensor(cute.arch.alloc_smem(F32, BATCH * CHUNK, alignment=16),
                          cute.make_layout((BATCH, CHUNK), stride=(CHUNK, 1)))
    acc = cute.make_rmem_tensor((ROWS, BATCH), F32)
    wv = cute.make_rmem_tensor((ROWS,), F32)
    for r in cutlass.range_constexpr(ROWS):
        for b in cutlass.range_constexpr(BATCH):
            acc[r, b] = F32(0.0)

    for kc in cutlass.range(DIM // CHUNK):
        cute.arch.sync_threads()               # everyone is done with the previous chunk
        for i in cutlass.range(tidx, BATCH * CHUNK, THREADS):
            b = i // CHUNK
            k = i % CHUNK
            t = gt[b, kc * CHUNK + k]
            sg = F32(1.0) / (F32(1.0) + cute.math.exp(-t))   # sigmoid, rounded
            st[b, k] = t * sg                                 # silu = temb * sigmoid(temb), rounded
        cute.arch.sync_threads()
        for u in cutlass.range_constexpr(CHUNK // 32):
            k = lane + 32 * u
            for r in cutlass.range_constexpr(ROWS):
                wv[r] = gw[j0 + r, kc * CHUNK + k]
            for b in cutlass.range_constexpr(BATCH):
                sv = st[b, k]
                for r in cutlass.range_constexpr(ROWS):
                    acc[r, b] = acc[r, b] + wv[r] * sv

    for r in cutlass.range_constexpr(ROWS):
        bj = gb[j0 + r]
        for b in cutlass.range_constexpr(BATCH):
            total = cute.arch.warp_reduction_sum(acc[r, b])
            if lane == 0:
                ge[b, j0 + r] = total + bj


@cute.kernel
def fold_weights(emb: cute.Pointer, pw: cute.Pointer, pb: cute.Pointer, wf: cute.Pointer, csum: cute.Pointer,
                 sbias: cute.Pointer):
    tidx = cute.arch.thread_idx()[0]
    o = cute.arch.block_idx()[0]
    b = cute.arch.block_idx()[1]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    ge = cute.make_tensor(emb, cute.make_layout((BATCH, EMB), stride=(EMB, 1)))
    gpw = cute.make_tensor(pw, cute.make_layout((OUT, DIM), stride=(DIM, 1)))
    gwf = cute.make_tensor(wf, cute.make_layout((BATCH, OUT, DIM), stride=(OUT * DIM, DIM, 1)))
    gpb = cute.make_tensor(pb, cute.make_layout(OUT))
    gcs = cute.make_tensor(csum, cute.make_layout((BATCH, OUT), stride=(OUT, 1)))
    gsb = cute.make_tensor(sbias, cute.make_layout((BATCH, OUT), stride=(OUT, 1)))
    part_c = cute.make_tensor(cute.arch.alloc_smem(F64, 8), cute.make_layout(8))
    part_s = cute.make_tensor(cute.arch.alloc_smem(F64, 8), cute.make_layout(8))
    cs = F64(0.0)
    sb = F64(0.0)
    for c in cutlass.range(tidx, DIM, THREADS):
        wv = gpw[o, c]
        s1 = F32(1.0) + ge[b, c]               # 1 + scale
        f = wv * s1
        gwf[b, o, c] = f
        cs = cs + f.to(F64)
        sb = sb + ge[b, DIM + c].to(F64) * wv.to(F64)   # shift * W
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
        gcs[b, o] = tc.to(F32)
        gsb[b, o] = (ts + gpb[o].to(F64)).to(F32)


@cute.kernel
def adaln_proj(x: cute.Pointer, wf: cute.Pointer, csum: cute.Pointer, sbias: cute.Pointer, y: cute.Pointer,
               eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    bidx = cute.arch.block_idx()[0]
    tm = tidx // 16
    tn = tidx % 16
    m0 = bidx * BM
    b = bidx // (SEQ // BM)                # the batch entry of this block's tokens

    # Global pieces: (row, K tile, 16-byte column piece, element).
    gx = cute.make_tensor(x, cute.make_layout((TOKENS, KT, BK // 4, 4), stride=(DIM, BK, 4, 1)))
    gwf = cute.make_tensor(wf, cute.make_layout((BATCH, OUT, KT, BK // 4, 4),
                                                stride=(OUT * DIM, DIM, BK, 4, 1)))
    gy = cute.make_tensor(y, cute.make_layout((TOKENS, OUT), stride=(OUT, 1)))
    gcs = cute.make_tensor(csum, cute.make_layout((BATCH, OUT), stride=(OUT, 1)))
    gsb = cute.make_tensor(sbias, cute.make_layout((BATCH, OUT), stride=(OUT, 1)))
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
        cute.copy(copy128, gwf[b, tm + 16 * p, 0, tn, None], rb[None, p])

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
                cute.copy(copy128, gwf[b, tm + 16 * p, kt + 1, tn, None], rb[None, p])

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
        cs = gcs[b, n]
        sbv = gsb[b, n]
        for i in cutlass.range_constexpr(4):
            r = tm + 16 * i
            gy[m0 + r, n] = (acc[i, jj] - row_mean[r] * cs) * row_rstd[r] + sbv


MKB_PLAN = """/* mkb:plan
# batch_size = 32, seq_len = 256: 8192 tokens = 128 blocks x 64 rows, 4 blocks per batch entry.
scratch emb fp32[batch_size * modulation_dim]
scratch wf fp32[batch_size * output_dim * inner_dim]
scratch csum fp32[batch_size * output_dim]
scratch sbias fp32[batch_size * output_dim]
launch silu_gemm grid(modulation_dim / 16) block(256) args(temb, mod_weight, mod_bias, emb)
launch fold_weights grid(output_dim, batch_size) block(256) args(emb, out_weight, out_bias, wf, csum, sbias)
launch adaln_proj grid(batch_size * seq_len / 64) block(256) args(hidden_states, wf, csum, sbias, out, f32(eps))
*/"""
