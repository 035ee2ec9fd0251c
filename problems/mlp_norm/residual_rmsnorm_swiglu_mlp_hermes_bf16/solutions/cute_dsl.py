"""Residual add + RMSNorm + SwiGLU MLP, Hermes-3 (Llama 3.1 8B) decode step of 32 tokens, in CuTe DSL.
The algorithm of solutions/cuda.cu, with bf16 tensor cores (warp-level mma.sync m16n8k16 through
cute.nvgpu.warp.MmaF16BF16Op, fp32 accumulation) on cp.async-filled shared tiles:
  1. add_rmsnorm (grid 32, 512 threads, 8 columns each): residual = bf16(x + residual) in place;
     n = bf16(bf16(s * rsqrt(mean(s^2) + eps)) * w) into scratch `n` [32, 4096].
  2. gate_up_swiglu (224 CTAs x 256 threads): each CTA owns 64 intermediate columns j: its A tile is
     the 64 w_gate rows + the matching 64 w_up rows (M = 128), B = the 32 token rows of n, K = 4096 in
     128-wide stages (2-stage cp.async ring, 80 KiB). Warp (wm, wn) owns rows wm*16.. of both halves, so
     gate and up of one (j, t) meet in one thread: h = bf16(bf16(silu(bf16 g)) * bf16 u) into scratch
     `hbuf` [32, 14336].
  3. down_proj (grid 32 x 7 = 224 CTAs): 128 w_down rows per CTA, split-K by 7 (2048 each), fp32 partials
     [7, 32, 4096] into scratch; 4. down_reduce sums the 7 partials in split order and rounds to bf16.
     (cuda.cu folds step 4 into the last CTA with an atomic ticket; here it is one more small launch.)
Rounding points as reference.md. Compile-checked only (no GPU run); expected speed: close to cuda.cu
(same weight-streaming design; one extra ~3 us launch), i.e. near the HBM floor of ~75-90 us."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32

TOKENS = 32
HIDDEN = 4096
INTER = 14336
CH = 16                        # 16-byte chunks per row per stage: k tile of 128
THREADS = 256
STAGES = 2
HALF = 64                      # gate_up: 64 j per CTA (64 gate + 64 up rows); down: 2 x 64 output rows
SPLITS = 7
DOWN_K = INTER // SPLITS       # 2048
assert HIDDEN % (8 * CH) == 0 and DOWN_K % (8 * CH) == 0 and INTER % HALF == 0 and HIDDEN % (2 * HALF) == 0
assert TOKENS == 32 and HIDDEN == 512 * 8
SMEM = STAGES * (2 * HALF + TOKENS) * CH * 8 * 2   # 81920 bytes
assert SMEM == 81920


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
def add_rmsnorm(x: cute.Pointer, residual: cute.Pointer, weight: cute.Pointer, n: cute.Pointer,
                eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    row = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    rows = cute.make_layout((TOKENS, 512, 8), stride=(HIDDEN, 8, 1))
    gx = cute.make_tensor(x, rows)
    gr = cute.make_tensor(residual, rows)
    gn = cute.make_tensor(n, rows)
    gw = cute.make_tensor(weight, cute.make_layout((512, 8), stride=(8, 1)))
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 16), cute.make_layout(16))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    rx = cute.make_rmem_tensor((8,), BF16)
    rr = cute.make_rmem_tensor((8,), BF16)
    rw = cute.make_rmem_tensor((8,), BF16)
    ro = cute.make_rmem_tensor((8,), BF16)
    cute.copy(c128, gx[row, tidx, None], rx)
    cute.copy(c128, gr[row, tidx, None], rr)
    sq = F32(0.0)
    for k in cutlass.range_constexpr(8):
        v = (rx[k].to(F32) + rr[k].to(F32)).to(BF16)
        rr[k] = v
        f = v.to(F32)
        sq = sq + f * f
    cute.copy(c128, rr, gr[row, tidx, None])
    sq = cute.arch.warp_reduction_sum(sq)
    if lane == 0:
        red[warp] = sq
    cute.arch.sync_threads()
    total = F32(0.0)
    for w in cutlass.range_constexpr(16):
        total = total + red[w]
    inv = cute.math.rsqrt(total / F32(HIDDEN) + eps)
    cute.copy(c128, gw[tidx, None], rw)
    for k in cutlass.range_constexpr(8):
        m = (rr[k].to(F32) * inv).to(BF16)
        ro[k] = (m.to(F32) * rw[k].to(F32)).to(BF16)
    cute.copy(c128, ro, gn[row, tidx, None])


@cute.kernel
def gate_up_swiglu(n: cute.Pointer, w_gate: cute.Pointer, w_up: cute.Pointer, h: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    j0 = cute.arch.block_idx()[0] * HALF
    lane = tid % 32
    warp = tid // 32
    gA0 = chunked(w_gate, INTER, HIDDEN, CH)
    gA1 = chunked(w_up, INTER, HIDDEN, CH)
    gB = chunked(n, TOKENS, HIDDEN, CH)
    gh = cute.make_tensor(h, cute.make_layout((TOKENS, INTER), stride=(INTER, 1)))
    sA, sB = smem_tiles(STAGES, 2 * HALF, TOKENS, CH)
    acc = cute.make_rmem_tensor(cute.make_layout((2, 2, 4), stride=(8, 4, 1)), F32)
    acc.fill(0.0)
    gemm_mainloop(acc, gA0, gA1, gB, sA, sB, j0, j0, 0, 0, tid, HIDDEN // (8 * CH), 2 * HALF, TOKENS, CH,
                  STAGES, THREADS, 2, 2, 4)
    # acc[0] = gate, acc[1] = up, same (j, t): j = j0 + wm*16 + g + 8(e//2), t = jj*16 + wn*8 + 2q + e%2
    g = lane // 4
    q = lane % 4
    wm = warp % 4
    wn = warp // 4
    for jj in cutlass.range_constexpr(2):
        for e in cutlass.range_constexpr(4):
            j = j0 + wm * 16 + g + 8 * (e // 2)
            t = jj * 16 + wn * 8 + 2 * q + e % 2
            gv = acc[0, jj, e].to(BF16).to(F32)
            uv = acc[1, jj, e].to(BF16).to(F32)
            av = (gv / (F32(1.0) + cute.math.exp(-gv))).to(BF16).to(F32)
            gh[t, j] = (av * uv).to(BF16)


@cute.kernel
def down_proj(h: cute.Pointer, w_down: cute.Pointer, partial: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    o0 = cute.arch.block_idx()[0] * (2 * HALF)
    split = cute.arch.block_idx()[1]
    lane = tid % 32
    warp = tid // 32
    gA = chunked(w_down, HIDDEN, INTER, CH)
    gB = chunked(h, TOKENS, INTER, CH)
    gp = cute.make_tensor(partial, cute.make_layout((SPLITS, TOKENS, HIDDEN), stride=(TOKENS * HIDDEN, HIDDEN, 1)))
    sA, sB = smem_tiles(STAGES, 2 * HALF, TOKENS, CH)
    acc = cute.make_rmem_tensor(cute.make_layout((2, 2, 4), stride=(8, 4, 1)), F32)
    acc.fill(0.0)
    gemm_mainloop(acc, gA, gA, gB, sA, sB, o0, o0 + HALF, 0, split * (DOWN_K // (8 * CH)), tid,
                  DOWN_K // (8 * CH), 2 * HALF, TOKENS, CH, STAGES, THREADS, 2, 2, 4)
    g = lane // 4
    q = lane % 4
    wm = warp % 4
    wn = warp // 4
    for i in cutlass.range_constexpr(2):
        for jj in cutlass.range_constexpr(2):
            for e in cutlass.range_constexpr(4):
                o = o0 + i * HALF + wm * 16 + g + 8 * (e // 2)
                t = jj * 16 + wn * 8 + 2 * q + e % 2
                gp[split, t, o] = acc[i, jj, e]


@cute.kernel
def down_reduce(partial: cute.Pointer, y: cute.Pointer):
    i = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    gp = cute.make_tensor(partial, cute.make_layout((SPLITS, TOKENS * HIDDEN), stride=(TOKENS * HIDDEN, 1)))
    gy = cute.make_tensor(y, cute.make_layout(TOKENS * HIDDEN))
    s = gp[0, i]
    for k in cutlass.range_constexpr(1, SPLITS):
        s = s + gp[k, i]
    gy[i] = s.to(BF16)


MKB_PLAN = """/* mkb:plan
scratch n bf16[tokens * hidden]
scratch hbuf bf16[tokens * intermediate]
scratch partial fp32[7 * tokens * hidden]
launch add_rmsnorm grid(tokens) block(512) args(x, residual, norm_weight, n, f32(eps))
launch gate_up_swiglu grid(intermediate / 64) block(256) shared(81920) args(n, w_gate, w_up, hbuf)
launch down_proj grid(hidden / 128, 7) block(256) shared(81920) args(hbuf, w_down, partial)
launch down_reduce grid(tokens * hidden / 256) block(256) args(partial, y)
*/"""
