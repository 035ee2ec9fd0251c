# Measured on an H200 (2026-12-02) at the earlier, smaller shapes: 0.66x of the eager baseline. Kept to show
# the DSL, and declared in spec.json as slower than the baseline (beats_baseline: false): warp-level
# mma.sync GEMMs run at about two thirds of the baseline's cuBLAS wgmma GEMMs, more than the fusion
# saves. solutions/cuda.cu is the fast solution.
"""Qwen3-Omni vision patch merger (original #27: LayerNorm per 1536-wide patch, 2x2 spatial merge into
[8192, 6144], Linear(6144, 6144) + erf GELU + Linear(6144, 3584)) in CuTe DSL: the algorithm of solutions/cuda.cu with warp-level bf16
tensor cores (mma.sync m16n8k16 via cute.nvgpu.warp.MmaF16BF16Op, fp32 accumulation) instead of wgmma.
  1. layernorm_rows: one warp per patch row (8 rows per 256-thread block), fp32 mean, then the centred
     sum of squares, rstd = rsqrt(var + eps); n = bf16((x - mean) * rstd * w + b) into scratch xn
     [8192, 6144] at its merged position (the invariant: every grid is 1 x 64 x 64): patch p goes to row
     1024 (p / 4096) + 32 (p % 4096 / 128) + p % 64 / 2, column block 2 (p / 64 % 2) + p % 2.
  2. fc1_gelu: g = bf16(gelu(bf16(xn @ W1^T + b1))) into scratch g (GELU in fp32 on the rounded linear).
  3. fc2_bias: out = bf16(g @ W2^T + b2).
GEMM: 128 x 256 CTA tiles, k tile 64 (128-byte rows, XOR-swizzled 16-byte chunks), 3-stage cp.async
ring (144 KiB of dynamic shared memory), 8 warps as 2 (M) x 4 (N), 64 x 64 warp tiles = 4 x 8 mma
tiles, fp32 accumulators in registers; bias (+ GELU) in the register epilogue, bf16x2 stores.
Shapes: 8192 = 64 * 128, 6144 = 24 * 256 = 96 * 64, 3584 = 14 * 256: no partial tiles.
Compile-checked only (no GPU run). Expected speed: mma.sync without warp specialization reaches maybe
60-70% of a wgmma kernel's rate, so about 1.3-1.6x cuda.cu's time (still faster than or near the eager
baseline, which pays for the extra bias/GELU passes)."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32

MERGED = 8192
PATCHES = 4 * MERGED
HID = 1536
MH = 6144
OUT = 3584
LN_CHUNKS = HID // 8           # 192 16-byte chunks per patch row
LN_PER_LANE = 6                # 192 / 32

BM = 128
BN = 256
CH = 8                         # k tile 64
STAGES = 3
THREADS = 256
MI = 4
NI = 8
WARPS_M = 2
SMEM = STAGES * (BM + BN) * CH * 8 * 2    # 147456
assert MERGED % BM == 0 and MH % BN == 0 and OUT % BN == 0 and MH % (8 * CH) == 0
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
def layernorm_rows(x: cute.Pointer, gamma: cute.Pointer, beta: cute.Pointer, y: cute.Pointer,
                   eps: cutlass.Float32):
    warp = cute.arch.warp_idx()
    lane = cute.arch.lane_idx()
    row = cute.arch.block_idx()[0] * 8 + warp
    rows = cute.make_layout((PATCHES, LN_CHUNKS, 8), stride=(HID, 8, 1))
    gx = cute.make_tensor(x, rows)
    gy = cute.make_tensor(y, cute.make_layout((MERGED, 4, LN_CHUNKS, 8), stride=(MH, HID, 8, 1)))
    mrow = row // 4096 * 1024 + row % 4096 // 128 * 32 + row % 64 // 2      # the merge (1 x 64 x 64 grids)
    part = row // 64 % 2 * 2 + row % 2
    gg = cute.make_tensor(gamma, cute.make_layout((LN_CHUNKS, 8), stride=(8, 1)))
    gb = cute.make_tensor(beta, cute.make_layout((LN_CHUNKS, 8), stride=(8, 1)))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    rv = cute.make_rmem_tensor(cute.make_layout((LN_PER_LANE, 8), stride=(8, 1)), BF16)
    rg = cute.make_rmem_tensor((8,), BF16)
    rbb = cute.make_rmem_tensor((8,), BF16)
    ro = cute.make_rmem_tensor((8,), BF16)
    s = F32(0.0)
    for i in cutlass.range_constexpr(LN_PER_LANE):
        if cutlass.const_expr(i < LN_PER_LANE - 1):
            cute.copy(c128, gx[row, lane + 32 * i, None], rv[i, None])
            for k in cutlass.range_constexpr(8):
                s = s + rv[i, k].to(F32)
        else:
            if lane + 32 * i < LN_CHUNKS:
                cute.copy(c128, gx[row, lane + 32 * i, None], rv[i, None])
                for k in cutlass.range_constexpr(8):
                    s = s + rv[i, k].to(F32)
    s = cute.arch.warp_reduction_sum(s)
    mean = s / F32(HID)
    sq = F32(0.0)
    for i in cutlass.range_constexpr(LN_PER_LANE):
        if lane + 32 * i < LN_CHUNKS:
            for k in cutlass.range_constexpr(8):
                d = rv[i, k].to(F32) - mean
                sq = sq + d * d
    sq = cute.arch.warp_reduction_sum(sq)
    rstd = cute.math.rsqrt(sq / F32(HID) + eps)
    for i in cutlass.range_constexpr(LN_PER_LANE):
        if lane + 32 * i < LN_CHUNKS:
            cute.copy(c128, gg[lane + 32 * i, None], rg)
            cute.copy(c128, gb[lane + 32 * i, None], rbb)
            for k in cutlass.range_constexpr(8):
                ro[k] = ((rv[i, k].to(F32) - mean) * rstd * rg[k].to(F32) + rbb[k].to(F32)).to(BF16)
            cute.copy(c128, ro, gy[mrow, part, lane + 32 * i, None])


@cute.jit
def linear_tile(a: cute.Pointer, w: cute.Pointer, bias: cute.Pointer, c: cute.Pointer,
                N: cutlass.Constexpr, GELU: cutlass.Constexpr):
    """c[m0.., n0..] = epilogue(a[M, MH] @ w[N, MH]^T + bias) for this CTA's 128 x 256 tile."""
    tid = cute.arch.thread_idx()[0]
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    lane = tid % 32
    warp = tid // 32
    gA = chunked(a, MERGED, MH, CH)
    gB = chunked(w, N, MH, CH)
    gc = cute.make_tensor(c, cute.make_layout((MERGED, N // 2, 2), stride=(N, 2, 1)))
    gbias = cute.make_tensor(bias, cute.make_layout((N // 2, 2), stride=(2, 1)))
    sA, sB = smem_tiles(STAGES, BM, BN, CH)
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    acc.fill(0.0)
    gemm_mainloop(acc, gA, gA, gB, sA, sB, m0, m0 + BM // 2, n0, 0, tid, MH // (8 * CH), BM, BN, CH, STAGES,
                  THREADS, MI, NI, WARPS_M)
    g = lane // 4
    q = lane % 4
    wm = warp % WARPS_M
    wn = warp // WARPS_M
    b2 = cute.make_rmem_tensor((2,), BF16)
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    for j in cutlass.range_constexpr(NI):
        cp = (n0 + j * (BN // NI) + wn * 8) // 2 + q          # column pair index
        cute.copy(c32, gbias[cp, None], b2)
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                m = m0 + i * (BM // MI) + wm * 16 + g + 8 * hr
                for e in cutlass.range_constexpr(2):
                    v = acc[i, j, 2 * hr + e] + b2[e].to(F32)
                    if cutlass.const_expr(GELU):
                        v = v.to(BF16).to(F32)
                        v = F32(0.5) * v * (F32(1.0) + cute.math.erf(v * F32(0.70710678118654752)))
                    o2[e] = v.to(BF16)
                cute.copy(c32, o2, gc[m, cp, None])


@cute.kernel
def fc1_gelu(xn: cute.Pointer, w1: cute.Pointer, b1: cute.Pointer, g: cute.Pointer):
    linear_tile(xn, w1, b1, g, MH, True)


@cute.kernel
def fc2_bias(g: cute.Pointer, w2: cute.Pointer, b2: cute.Pointer, out: cute.Pointer):
    linear_tile(g, w2, b2, out, OUT, False)


MKB_PLAN = """/* mkb:plan
scratch xn bf16[num_patches * hidden_size]
scratch g bf16[num_patches / 4 * hidden_size_expanded]
launch layernorm_rows grid(num_patches / 8) block(256) args(hidden, ln_weight, ln_bias, xn, f32(eps))
launch fc1_gelu grid(hidden_size_expanded / 256, num_patches / 4 / 128) block(256) shared(147456) args(xn, fc1_weight, fc1_bias, g)
launch fc2_bias grid(out_hidden_size / 256, num_patches / 4 / 128) block(256) shared(147456) args(g, fc2_weight, fc2_bias, output)
*/"""
