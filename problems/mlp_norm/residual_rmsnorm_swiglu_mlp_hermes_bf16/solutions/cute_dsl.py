# Slower than the eager baseline by design (beats_baseline: false in spec.json): SM80-style mma.sync GEMMs
# without wgmma or warp specialisation reach about half of cuBLAS's rate on the 42.9 TFLOP of products
# (the same core measured 0.43x against eager on swiglu_mlp_backward_hermes_bf16). solutions/cuda.cu is
# the fast solution.
"""Residual add + RMSNorm + SwiGLU MLP (original #33: 8192 rows, hidden 16384, intermediate 53248) in CuTe
DSL, with the rounding points of reference.md. Launches:
  1. add_rmsnorm: one 1024-thread CTA per row, two 8-wide chunks per thread: s = bf16(x + residual),
     n = bf16(w * bf16(s * rsqrt(mean(s^2) + eps))) into scratch n [T, H].
  2. gemm_gate / gemm_up: g = bf16(n . gate_weight^T), u = bf16(n . up_weight^T)   [T, I]
  3. swiglu: h = bf16(bf16(silu(g)) * u)                                          [T, I]
  4. gemm_down: output = bf16(h . down_weight^T)                                  [T, H]
GEMM core (from swiglu_mlp_backward_hermes_bf16's cute_dsl.py): warp-level bf16 mma.sync m16n8k16
(cute.nvgpu.warp.MmaF16BF16Op, fp32 accumulation), 128 x 256 CTA tiles, k tile 64, 3-stage cp.async ring
in 144 KiB of dynamic shared memory, both operands K-major (nothing transposed).
Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32

T = 8192
H = 16384
I = 53248
NORM_THREADS = 1024
assert H == 2 * NORM_THREADS * 8

BM = 128
BN = 256
CH = 8
STAGES = 3
THREADS = 256
MI = 4
NI = 8
WARPS_M = 2
SMEM = STAGES * (BM + BN) * CH * 8 * 2    # 147456
assert T % BM == 0 and H % BN == 0 and I % BN == 0 and H % 64 == 0 and I % 64 == 0
assert BM // MI == 16 * WARPS_M and BN // NI == 8 * (THREADS // 32 // WARPS_M) and SMEM == 147456
assert H * I < 2 ** 31                    # element offsets fit in 32 bits


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


# ---- GEMMs ----
@cute.jit
def gemm_store(a: cute.Pointer, b: cute.Pointer, c: cute.Pointer, MROWS: cutlass.Constexpr, M: cutlass.Constexpr,
               N: cutlass.Constexpr, K: cutlass.Constexpr, AOFF: cutlass.Constexpr):
    """c[m, n] = bf16(sum_k a[AOFF + m, k] b[n, k]) for this CTA's tile; a has MROWS rows of K."""
    tid = cute.arch.thread_idx()[0]
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    lane = tid % 32
    warp = tid // 32
    gA = chunked(a, MROWS, K, CH)
    gB = chunked(b, N, K, CH)
    gc = cute.make_tensor(c, cute.make_layout((M, N // 2, 2), stride=(N, 2, 1)))
    sA, sB = smem_tiles(STAGES, BM, BN, CH)
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    acc.fill(0.0)
    gemm_mainloop(acc, gA, gA, gB, sA, sB, AOFF + m0, AOFF + m0 + BM // 2, n0, 0, tid, K // (8 * CH), BM, BN, CH,
                  STAGES, THREADS, MI, NI, WARPS_M)
    g = lane // 4
    q = lane % 4
    wm = warp % WARPS_M
    wn = warp // WARPS_M
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    for j in cutlass.range_constexpr(NI):
        cp = (n0 + j * (BN // NI) + wn * 8) // 2 + q
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                m = m0 + i * (BM // MI) + wm * 16 + g + 8 * hr
                o2[0] = acc[i, j, 2 * hr].to(BF16)
                o2[1] = acc[i, j, 2 * hr + 1].to(BF16)
                cute.copy(c32, o2, gc[m, cp, None])




@cute.kernel
def add_rmsnorm(x: cute.Pointer, residual: cute.Pointer, weight: cute.Pointer, n: cute.Pointer,
                eps: cutlass.Float32):
    tidx = cute.arch.thread_idx()[0]
    row = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    rows = cute.make_layout((T, 2, NORM_THREADS, 8), stride=(H, NORM_THREADS * 8, 8, 1))
    gx = cute.make_tensor(x, rows)
    gr = cute.make_tensor(residual, rows)
    gn = cute.make_tensor(n, rows)
    gw = cute.make_tensor(weight, cute.make_layout((2, NORM_THREADS, 8), stride=(NORM_THREADS * 8, 8, 1)))
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 32), cute.make_layout(32))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    rx = cute.make_rmem_tensor(cute.make_layout((2, 8), stride=(8, 1)), BF16)
    rs = cute.make_rmem_tensor(cute.make_layout((2, 8), stride=(8, 1)), BF16)
    rw = cute.make_rmem_tensor(cute.make_layout((2, 8), stride=(8, 1)), BF16)
    ro = cute.make_rmem_tensor(cute.make_layout((2, 8), stride=(8, 1)), BF16)
    sq = F32(0.0)
    for c in cutlass.range_constexpr(2):
        cute.copy(c128, gx[row, c, tidx, None], rx[c, None])
        cute.copy(c128, gr[row, c, tidx, None], rs[c, None])
        for k in cutlass.range_constexpr(8):
            v = (rx[c, k].to(F32) + rs[c, k].to(F32)).to(BF16)
            rs[c, k] = v
            f = v.to(F32)
            sq = sq + f * f
    sq = cute.arch.warp_reduction_sum(sq)
    if lane == 0:
        red[warp] = sq
    cute.arch.sync_threads()
    total = F32(0.0)
    for w in cutlass.range_constexpr(32):
        total = total + red[w]
    inv = cute.math.rsqrt(total / F32(H) + eps)
    for c in cutlass.range_constexpr(2):
        cute.copy(c128, gw[c, tidx, None], rw[c, None])
        for k in cutlass.range_constexpr(8):
            m = (rs[c, k].to(F32) * inv).to(BF16)
            ro[c, k] = (rw[c, k].to(F32) * m.to(F32)).to(BF16)
        cute.copy(c128, ro[c, None], gn[row, c, tidx, None])


@cute.kernel
def gemm_gate(n: cute.Pointer, gate_weight: cute.Pointer, g: cute.Pointer):
    gemm_store(n, gate_weight, g, T, T, I, H, 0)


@cute.kernel
def gemm_up(n: cute.Pointer, up_weight: cute.Pointer, u: cute.Pointer):
    gemm_store(n, up_weight, u, T, T, I, H, 0)


@cute.kernel
def gemm_down(h: cute.Pointer, down_weight: cute.Pointer, out: cute.Pointer):
    gemm_store(h, down_weight, out, T, T, H, I, 0)


@cute.kernel
def swiglu(g: cute.Pointer, u: cute.Pointer, h: cute.Pointer):
    """h = bf16(bf16(silu(g)) * u), 8 elements per thread."""
    blk = cute.arch.block_idx()[0]
    tid = cute.arch.thread_idx()[0]
    lay = cute.make_layout((T * I // 2048, 256, 8), stride=(2048, 8, 1))
    gg = cute.make_tensor(g, lay)
    gu = cute.make_tensor(u, lay)
    gh = cute.make_tensor(h, lay)
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    rg = cute.make_rmem_tensor((8,), BF16)
    ru = cute.make_rmem_tensor((8,), BF16)
    rh = cute.make_rmem_tensor((8,), BF16)
    cute.copy(c128, gg[blk, tid, None], rg)
    cute.copy(c128, gu[blk, tid, None], ru)
    for k in cutlass.range_constexpr(8):
        gv = rg[k].to(F32)
        av = (gv / (F32(1.0) + cute.math.exp(-gv))).to(BF16).to(F32)
        rh[k] = (av * ru[k].to(F32)).to(BF16)
    cute.copy(c128, rh, gh[blk, tid, None])


MKB_PLAN = """/* mkb:plan
scratch n bf16[batch_size * seq_len * hidden_size]
scratch g bf16[batch_size * seq_len * intermediate_size]
scratch u bf16[batch_size * seq_len * intermediate_size]
scratch h bf16[batch_size * seq_len * intermediate_size]
launch add_rmsnorm grid(batch_size * seq_len) block(1024) args(hidden_states, residual, norm_weight, n, f32(eps))
launch gemm_gate grid(intermediate_size / 256, batch_size * seq_len / 128) block(256) shared(147456) args(n, gate_weight, g)
launch gemm_up grid(intermediate_size / 256, batch_size * seq_len / 128) block(256) shared(147456) args(n, up_weight, u)
launch swiglu grid(batch_size * seq_len * intermediate_size / 2048) block(256) args(g, u, h)
launch gemm_down grid(hidden_size / 256, batch_size * seq_len / 128) block(256) shared(147456) args(h, down_weight, output)
*/"""
