"""Ling 2.0 MTP input (shifted embedding + enorm, hidden state + hnorm, concat, eh_proj Linear(8192 -> 4096))
in CuTe DSL: the algorithm of solutions/cuda.cu with warp-level bf16 tensor cores (mma.sync m16n8k16 via
cute.nvgpu.warp.MmaF16BF16Op, fp32 accumulation) instead of wgmma.
  1. shift_embed_dual_rmsnorm: one 512-thread block per token t = b * seq + s (8 columns per thread):
     e = embedding[ids[b, s + 1]] (id 0 for s = seq - 1), h = hidden_states[t]; fp32 sums of squares
     (warp shuffles + one shared slot per warp); cat[t] = [bf16(w_e * bf16(e * re)), bf16(w_h * bf16(h * rh))]
     into scratch cat [8192, 8192].
  2. eh_proj: y = bf16(cat @ W^T), 128 x 256 CTA tiles, k tile 64 (XOR-swizzled 16-byte chunks), 3-stage
     cp.async ring (144 KiB dynamic shared memory), 8 warps as 2 x 4 with 64 x 64 warp tiles.
Shapes: 8192 = 64 * 128, 4096 = 16 * 256, 8192 = 128 * 64: no partial tiles.
Compile-checked only (no GPU run). Expected speed: the GEMM at mma.sync rates, about 1.3-1.6x
cuda.cu's time; the prep kernel as cuda.cu. At these shapes the 8192 x 4096 x 8192 GEMM dominates, so
this port is declared not to beat the baseline (whose GEMM is cuBLAS): it may, narrowly."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32

BATCH = 32
SEQ = 256
TOK = BATCH * SEQ
HID = 4096
VOCAB = 157184
K2 = 2 * HID
PREP = 512                     # shift_embed_dual_rmsnorm's threads: 8 columns each

BM = 128
BN = 256
CH = 8
STAGES = 3
THREADS = 256
MI = 4
NI = 8
WARPS_M = 2
SMEM = STAGES * (BM + BN) * CH * 8 * 2    # 147456
assert TOK % BM == 0 and HID % BN == 0 and K2 % (8 * CH) == 0 and HID == PREP * 8
assert BM // MI == 16 * WARPS_M and BN // NI == 8 * (THREADS // 32 // WARPS_M) and SMEM == 147456


# ---- bf16 tensor-core GEMM core (warp-level mma.sync m16n8k16, fp32 accumulation) -------------------
# C_tile[m, n] = sum_k A[m, k] * B[n, k]: both operands K-major (rows contiguous along k) in global memory,
# viewed as (row, k tile, 16-byte chunk, element) tensors. A CTA tile is BM rows of A (two halves, each
# from its own tensor and row offset: gate + up rows, or just two halves of one matrix) by BN rows of B.
# Shared memory: STAGES slots of [BM][CH chunks][8] (A) and [BN][CH][8] (B) bf16, the 16-byte chunk
# index XOR-swizzled by swz(row) = ((row & 1) << 2) | ((row >> 1) & 3), filled with cp.async (16 bytes).
# Warp w = (wm, wn) = (w % WARPS_M, w // WARPS_M) owns the 16-row blocks i < MI at tile rows
# i * (BM // MI) + wm * 16 and the 8-column blocks j < NI at tile columns j * (BN // NI) + wn * 8.
# Fragment trick (a dot product does not depend on the order of its k terms): per 32-k step, lane
# (g, q) = (lane / 4, lane % 4) reads the 16-byte chunk 4 step + q of A rows g, g + 8 and of B row g;
# elements 0..3 feed one m16n8k16 and elements 4..7 a second one, A and B permuted alike.
# acc[i, j, e]: tile row i * (BM // MI) + wm * 16 + g + 8 * (e // 2), column j * (BN // NI) + wn * 8 +
# 2 q + e % 2 (the mma C fragment).


@cute.jit
def swz(row):
    return ((row & 1) << 2) | ((row >> 1) & 3)


@cute.jit
def gemm_load_stage(gA0: cute.Tensor, gA1: cute.Tensor, gB: cute.Tensor, sA: cute.Tensor, sB: cute.Tensor,
                    arow0, arow1, brow0, slot, kt, tid,
                    BM: cutlass.Constexpr, BN: cutlass.Constexpr, CH: cutlass.Constexpr,
                    THREADS: cutlass.Constexpr):
    cpa = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(cache_mode=cute.nvgpu.cpasync.LoadCacheMode.GLOBAL),
                              BF16, num_bits_per_copy=128)
    c = tid % CH
    r0 = tid // CH
    cs = c ^ swz(r0)                       # rows r0 + i * (THREADS / CH) share r0 & 7
    for i in cutlass.range_constexpr(BM // (THREADS // CH)):
        r = r0 + i * (THREADS // CH)
        if cutlass.const_expr(i * (THREADS // CH) < BM // 2):
            cute.copy(cpa, gA0[arow0 + r, kt, c, None], sA[slot, r, cs, None])
        else:
            cute.copy(cpa, gA1[arow1 + r - BM // 2, kt, c, None], sA[slot, r, cs, None])
    for i in cutlass.range_constexpr(BN // (THREADS // CH)):
        r = r0 + i * (THREADS // CH)
        cute.copy(cpa, gB[brow0 + r, kt, c, None], sB[slot, r, cs, None])


@cute.jit
def gemm_compute_stage(acc: cute.Tensor, sA: cute.Tensor, sB: cute.Tensor, slot, lane, warp,
                       BM: cutlass.Constexpr, BN: cutlass.Constexpr, CH: cutlass.Constexpr,
                       MI: cutlass.Constexpr, NI: cutlass.Constexpr, WARPS_M: cutlass.Constexpr):
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    mma = cute.make_mma_atom(cute.nvgpu.warp.MmaF16BF16Op(BF16, F32, (16, 8, 16)))
    g = lane // 4
    q = lane % 4
    wm = warp % WARPS_M
    wn = warp // WARPS_M
    x = swz(g)                             # rows g and g + 8 of every 16-row block: same swizzle
    ra = cute.make_rmem_tensor(cute.make_layout((MI, 2, 8), stride=(16, 8, 1)), BF16)
    rb = cute.make_rmem_tensor(cute.make_layout((NI, 8), stride=(8, 1)), BF16)
    for step in cutlass.range_constexpr(CH // 4):
        chunk = (step * 4 + q) ^ x
        for i in cutlass.range_constexpr(MI):
            row = i * (BM // MI) + wm * 16 + g
            cute.copy(c128, sA[slot, row, chunk, None], ra[i, 0, None])
            cute.copy(c128, sA[slot, row + 8, chunk, None], ra[i, 1, None])
        for j in cutlass.range_constexpr(NI):
            cute.copy(c128, sB[slot, j * (BN // NI) + wn * 8 + g, chunk, None], rb[j, None])
        for i in cutlass.range_constexpr(MI):
            for j in cutlass.range_constexpr(NI):
                cv = cute.make_tensor(acc.iterator + (i * NI + j) * 4, cute.make_layout((4, 1, 1), stride=(1, 0, 0)))
                for h in cutlass.range_constexpr(2):
                    av = cute.make_tensor(ra.iterator + i * 16 + 4 * h,
                                          cute.make_layout(((2, 2, 2), 1, 1), stride=((1, 8, 2), 0, 0)))
                    bv = cute.make_tensor(rb.iterator + j * 8 + 4 * h,
                                          cute.make_layout(((2, 2), 1, 1), stride=((1, 2), 0, 0)))
                    cute.gemm(mma, cv, av, bv, cv)


@cute.jit
def gemm_mainloop(acc: cute.Tensor, gA0: cute.Tensor, gA1: cute.Tensor, gB: cute.Tensor, sA: cute.Tensor,
                  sB: cute.Tensor, arow0, arow1, brow0, kt0, tid,
                  KT: cutlass.Constexpr, BM: cutlass.Constexpr, BN: cutlass.Constexpr, CH: cutlass.Constexpr,
                  STAGES: cutlass.Constexpr, THREADS: cutlass.Constexpr, MI: cutlass.Constexpr,
                  NI: cutlass.Constexpr, WARPS_M: cutlass.Constexpr):
    """acc (MI, NI, 4) fp32 += the tile product over k tiles kt0 .. kt0 + KT - 1 (multistage cp.async)."""
    lane = tid % 32
    warp = tid // 32
    for s in cutlass.range_constexpr(STAGES - 1):
        gemm_load_stage(gA0, gA1, gB, sA, sB, arow0, arow1, brow0, s, kt0 + s, tid, BM, BN, CH, THREADS)
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KT):
        cute.arch.cp_async_wait_group(STAGES - 2)   # this thread's copies of tile kt have landed
        cute.arch.sync_threads()                    # everyone's; and slot (kt - 1) % STAGES is free
        nxt = kt + (STAGES - 1)
        if nxt < KT:
            gemm_load_stage(gA0, gA1, gB, sA, sB, arow0, arow1, brow0, nxt % STAGES, kt0 + nxt, tid,
                            BM, BN, CH, THREADS)
        cute.arch.cp_async_commit_group()
        gemm_compute_stage(acc, sA, sB, kt % STAGES, lane, warp, BM, BN, CH, MI, NI, WARPS_M)
    cute.arch.cp_async_wait_group(0)


def smem_tiles(STAGES, BM, BN, CH):
    """The dynamic shared memory as the A and B stage rings (bf16, 128-byte aligned)."""
    base = cute.arch.get_dyn_smem(BF16, alignment=128)
    sA = cute.make_tensor(base, cute.make_layout((STAGES, BM, CH, 8), stride=(BM * CH * 8, CH * 8, 8, 1)))
    sB = cute.make_tensor(base + STAGES * BM * CH * 8,
                          cute.make_layout((STAGES, BN, CH, 8), stride=(BN * CH * 8, CH * 8, 8, 1)))
    return sA, sB


def chunked(ptr, rows, ld, CH):
    """A row-major [rows, ld] bf16 matrix as (row, k tile of 8 CH, chunk, element)."""
    return cute.make_tensor(ptr, cute.make_layout((rows, ld // (8 * CH), CH, 8), stride=(ld, 8 * CH, 8, 1)))
# ---- end of the GEMM core ---------------------------------------------------------------------------


@cute.kernel
def shift_embed_dual_rmsnorm(input_ids: cute.Pointer, embedding: cute.Pointer, hidden_states: cute.Pointer,
                             enorm_weight: cute.Pointer, hnorm_weight: cute.Pointer, cat: cute.Pointer,
                             eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    t = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    s = t % SEQ
    gid = cute.make_tensor(input_ids, cute.make_layout(TOK))
    gemb = cute.make_tensor(embedding, cute.make_layout((VOCAB, PREP, 8), stride=(HID, 8, 1)))
    ghs = cute.make_tensor(hidden_states, cute.make_layout((TOK, PREP, 8), stride=(HID, 8, 1)))
    gcat = cute.make_tensor(cat, cute.make_layout((TOK, 2, PREP, 8), stride=(K2, HID, 8, 1)))
    gwe = cute.make_tensor(enorm_weight, cute.make_layout((PREP, 8), stride=(8, 1)))
    gwh = cute.make_tensor(hnorm_weight, cute.make_layout((PREP, 8), stride=(8, 1)))
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 2 * (PREP // 32)), cute.make_layout((PREP // 32, 2), stride=(2, 1)))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    idv = cutlass.Int32(0)
    if s + 1 < SEQ:
        idv = cutlass.Int32(gid[t + 1])
    re_ = cute.make_rmem_tensor((8,), BF16)
    rh = cute.make_rmem_tensor((8,), BF16)
    we = cute.make_rmem_tensor((8,), BF16)
    wh = cute.make_rmem_tensor((8,), BF16)
    oe = cute.make_rmem_tensor((8,), BF16)
    oh = cute.make_rmem_tensor((8,), BF16)
    cute.copy(c128, gemb[idv, tidx, None], re_)
    cute.copy(c128, ghs[t, tidx, None], rh)
    se = F32(0.0)
    sh = F32(0.0)
    for k in cutlass.range_constexpr(8):
        fe = re_[k].to(F32)
        fh = rh[k].to(F32)
        se = se + fe * fe
        sh = sh + fh * fh
    se = cute.arch.warp_reduction_sum(se)
    sh = cute.arch.warp_reduction_sum(sh)
    if lane == 0:
        red[warp, 0] = se
        red[warp, 1] = sh
    cute.arch.sync_threads()
    te = F32(0.0)
    th = F32(0.0)
    for w in cutlass.range_constexpr(PREP // 32):
        te = te + red[w, 0]
        th = th + red[w, 1]
    rse = cute.math.rsqrt(te / F32(HID) + eps)
    rsh = cute.math.rsqrt(th / F32(HID) + eps)
    cute.copy(c128, gwe[tidx, None], we)
    cute.copy(c128, gwh[tidx, None], wh)
    for k in cutlass.range_constexpr(8):
        en = (re_[k].to(F32) * rse).to(BF16).to(F32)
        hn = (rh[k].to(F32) * rsh).to(BF16).to(F32)
        oe[k] = (we[k].to(F32) * en).to(BF16)
        oh[k] = (wh[k].to(F32) * hn).to(BF16)
    cute.copy(c128, oe, gcat[t, 0, tidx, None])
    cute.copy(c128, oh, gcat[t, 1, tidx, None])


@cute.kernel
def eh_proj(cat: cute.Pointer, weight: cute.Pointer, y: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    lane = tid % 32
    warp = tid // 32
    gA = chunked(cat, TOK, K2, CH)
    gB = chunked(weight, HID, K2, CH)
    gc = cute.make_tensor(y, cute.make_layout((TOK, HID // 2, 2), stride=(HID, 2, 1)))
    sA, sB = smem_tiles(STAGES, BM, BN, CH)
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    acc.fill(0.0)
    gemm_mainloop(acc, gA, gA, gB, sA, sB, m0, m0 + BM // 2, n0, 0, tid, K2 // (8 * CH), BM, BN, CH, STAGES,
                  THREADS, MI, NI, WARPS_M)
    g = lane // 4
    q = lane % 4
    wm = warp % WARPS_M
    wn = warp // WARPS_M
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    for j in cutlass.range_constexpr(NI):
        cp = (n0 + j * (BN // NI) + wn * 8) // 2 + q          # column pair index
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                m = m0 + i * (BM // MI) + wm * 16 + g + 8 * hr
                o2[0] = acc[i, j, 2 * hr].to(BF16)
                o2[1] = acc[i, j, 2 * hr + 1].to(BF16)
                cute.copy(c32, o2, gc[m, cp, None])


MKB_PLAN = """/* mkb:plan
scratch cat bf16[batch_size * seq_len * concat_size]
launch shift_embed_dual_rmsnorm grid(batch_size * seq_len) block(512)
  args(input_ids, word_embeddings, hidden_states, enorm_weight, hnorm_weight, cat, f32(rms_norm_eps))
launch eh_proj grid(hidden_size / 256, batch_size * seq_len / 128) block(256) shared(147456) args(cat, eh_proj_weight, output)
*/"""
