"""MetaKernelBench #40 (reconstructed: spec.json's notes), the Gemma 3n AltUp collapse (two 3072x3072
projections of streams 1 and 2, each rescaled to stream 0's per-token RMS, mean of the three streams) in CuTe
DSL: the algorithm of solutions/cuda.cu with warp-level bf16 tensor cores (mma.sync m16n8k16 via
cute.nvgpu.warp.MmaF16BF16Op, fp32 accumulation; the products of bf16 values are exact in fp32, so this is
the reference's fp32 projection up to summation order).
  1. altup_unembed_gemm, launched once per projected stream z = 1, 2 (grid (12, 128)):
     proj[z - 1] = hidden_states[z] @ W_z^T in fp32 (128 x 256 CTA tiles, k tile 64 with XOR-swizzled 16-byte
     chunks, 3-stage cp.async ring in 144 KiB of dynamic shared memory, 8 warps as 2 x 4 with 64 x 64 warp
     tiles). The epilogue stores fp32 and writes partial[z - 1, t, n_tile] = the sum of squares over the
     tile's 256 columns (quad shuffles, then the 4 column warps through shared memory).
  2. altup_collapse, one 384-thread block per token (8 columns per thread): tm = sqrt(mean(x0^2)),
     nm_s = sqrt(max(sum of the 12 partials / H, eps)), out = bf16((x0 + sum_s p_s * tm / nm_s) / 3) in fp32.
Shapes: tokens = 64 * 256 = 16384 = 128 * 128, hidden = 3072 = 12 * 256 = 48 * 64: no partial tiles.
Compile-checked only (no GPU run at these shapes). Expected speed: the GEMM at mma.sync rates, roughly
cuda.cu's speed, far ahead of the eager fp32 SGEMM baseline."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32

TOK = 64 * 256                 # batch_size * seq_len
HID = 3072
STREAMS = 2                    # projected streams (hidden_states[1], hidden_states[2])
NT = HID // 256                # 12 column tiles: partial sums per row
CT = HID // 8                  # 384 collapse threads per token, 8 columns each

BM = 128
BN = 256
CH = 8
STAGES = 3
THREADS = 256
MI = 4
NI = 8
WARPS_M = 2
SMEM = STAGES * (BM + BN) * CH * 8 * 2    # 147456
assert TOK % BM == 0 and HID % BN == 0 and HID % (8 * CH) == 0 and CT % 32 == 0
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
def altup_unembed_gemm(hidden_states: cute.Pointer, weight: cute.Pointer, proj: cute.Pointer, partial: cute.Pointer,
                       z: cutlass.Int32):
    """Stream z (1 or 2) of hidden_states times weight^T; outputs at rows (z - 1) * TOK + t of proj, partial."""
    tid = cute.arch.thread_idx()[0]
    nt = cute.arch.block_idx()[0]
    n0 = nt * BN
    m0 = cute.arch.block_idx()[1] * BM
    lane = tid % 32
    warp = tid // 32
    gA = chunked(hidden_states, (STREAMS + 1) * TOK, HID, CH)   # row z * TOK + t
    gB = chunked(weight, HID, HID, CH)                           # row n
    gc = cute.make_tensor(proj, cute.make_layout((STREAMS * TOK, HID // 2, 2), stride=(HID, 2, 1)))
    gpart = cute.make_tensor(partial, cute.make_layout((STREAMS * TOK, NT), stride=(NT, 1)))
    row_part = cute.make_tensor(cute.arch.alloc_smem(F32, 4 * BM), cute.make_layout((4, BM), stride=(BM, 1)))
    sA, sB = smem_tiles(STAGES, BM, BN, CH)
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    acc.fill(0.0)
    arow = z * TOK + m0
    gemm_mainloop(acc, gA, gA, gB, sA, sB, arow, arow + BM // 2, n0, 0, tid, HID // (8 * CH), BM, BN,
                  CH, STAGES, THREADS, MI, NI, WARPS_M)
    crow = (z - 1) * TOK + m0
    g = lane // 4
    q = lane % 4
    wm = warp % WARPS_M
    wn = warp // WARPS_M
    o2 = cute.make_rmem_tensor((2,), F32)
    c64 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
    for i in cutlass.range_constexpr(MI):
        for hr in cutlass.range_constexpr(2):
            r = i * (BM // MI) + wm * 16 + g + 8 * hr     # row within the tile
            ss = F32(0.0)
            for j in cutlass.range_constexpr(NI):
                cp = (n0 + j * (BN // NI) + wn * 8) // 2 + q
                for e in cutlass.range_constexpr(2):
                    f = acc[i, j, 2 * hr + e]
                    o2[e] = f
                    ss = ss + f * f
                cute.copy(c64, o2, gc[crow + r, cp, None])
            ss = ss + cute.arch.shuffle_sync_bfly(ss, offset=1)
            ss = ss + cute.arch.shuffle_sync_bfly(ss, offset=2)
            if q == 0:
                row_part[wn, r] = ss
    cute.arch.sync_threads()
    if tid < BM:
        gpart[crow + tid, nt] = (row_part[0, tid] + row_part[1, tid]) + (row_part[2, tid] + row_part[3, tid])


@cute.kernel
def altup_collapse(hidden_states: cute.Pointer, proj: cute.Pointer, partial: cute.Pointer, out: cute.Pointer,
                   eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    row = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    rows = cute.make_layout((TOK, CT, 8), stride=(HID, 8, 1))
    gx = cute.make_tensor(hidden_states, rows)                  # stream 0: the first TOK rows
    go = cute.make_tensor(out, rows)
    gp = cute.make_tensor(proj, cute.make_layout((STREAMS, TOK, 2 * CT, 4), stride=(TOK * HID, HID, 4, 1)))
    gpart = cute.make_tensor(partial, cute.make_layout((STREAMS, TOK, NT), stride=(TOK * NT, NT, 1)))
    red = cute.make_tensor(cute.arch.alloc_smem(F32, CT // 32), cute.make_layout(CT // 32))
    scale = cute.make_tensor(cute.arch.alloc_smem(F32, 4), cute.make_layout(4))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    f128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=128)
    rx = cute.make_rmem_tensor((8,), BF16)
    rp = cute.make_rmem_tensor(cute.make_layout((STREAMS, 2, 4), stride=(8, 4, 1)), F32)
    ro = cute.make_rmem_tensor((8,), BF16)
    cute.copy(c128, gx[row, tidx, None], rx)
    for s in cutlass.range_constexpr(STREAMS):
        for h in cutlass.range_constexpr(2):
            cute.copy(f128, gp[s, row, 2 * tidx + h, None], rp[s, h, None])
    ss = F32(0.0)
    for k in cutlass.range_constexpr(8):
        f = rx[k].to(F32)
        ss = ss + f * f
    ss = cute.arch.warp_reduction_sum(ss)
    if lane == 0:
        red[warp] = ss
    cute.arch.sync_threads()
    if tidx < STREAMS:
        total = F32(0.0)
        for w in cutlass.range_constexpr(CT // 32):
            total = total + red[w]
        target = cute.math.sqrt(total / F32(HID))
        qs = F32(0.0)
        for j in cutlass.range_constexpr(NT):
            qs = qs + gpart[tidx, row, j]
        ms = qs / F32(HID)
        if ms < eps:
            ms = eps
        scale[tidx] = target / cute.math.sqrt(ms)
    cute.arch.sync_threads()
    s0 = scale[0]
    s1 = scale[1]
    for k in cutlass.range_constexpr(8):
        v = rx[k].to(F32) + rp[0, k // 4, k % 4] * s0 + rp[1, k // 4, k % 4] * s1
        ro[k] = (v * F32(1.0 / 3.0)).to(BF16)
    cute.copy(c128, ro, go[row, tidx, None])


MKB_PLAN = """/* mkb:plan
scratch proj fp32[2 * batch_size * seq_len * hidden_size]
scratch partial fp32[2 * batch_size * seq_len * (hidden_size / 256)]
launch altup_unembed_gemm grid(hidden_size / 256, batch_size * seq_len / 128) block(256) shared(147456)
  args(hidden_states, unembed_weight_1, proj, partial, i32(1))
launch altup_unembed_gemm grid(hidden_size / 256, batch_size * seq_len / 128) block(256) shared(147456)
  args(hidden_states, unembed_weight_2, proj, partial, i32(2))
launch altup_collapse grid(batch_size * seq_len) block(384) args(hidden_states, proj, partial, out, f32(eps))
*/"""
