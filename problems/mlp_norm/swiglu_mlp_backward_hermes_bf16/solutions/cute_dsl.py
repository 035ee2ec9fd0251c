# Slower than the eager baseline by design (beats_baseline: false in spec.json): its SM80 mma.sync GEMMs (no
# wgmma, no warp specialisation) and the operand transposes reach about half of cuBLAS's wgmma rate (this
# core measured 0.43x against eager on the earlier 4096-token version of this problem). solutions/cuda.cu is
# the fast solution.
"""SwiGLU MLP backward from saved activations (original #34: T = 8192 rows, H = 16384, I = 53248) in CuTe DSL,
with the rounding points of reference.md, every product on warp-level bf16 tensor cores (mma.sync m16n8k16
via cute.nvgpu.warp.MmaF16BF16Op, fp32 accumulation). One GEMM core, C[m, n] = sum_k A[m, k] B[n, k] with
both operands K-major (128 x 256 CTA tiles, k tile 64, 3-stage cp.async ring in 144 KiB of dynamic shared
memory); operands needed the other way round are transposed into scratch first (64 x 64 shared tiles):
  T1. goT = go^T, xT = x^T [H, T]; wdT = down_weight^T [I, H]; wguT = [gate_weight^T | up_weight^T] [H, 2I]
  G1. grad_h = bf16(go . wdT^T)                                  [T, I]
  E1. swiglu_bwd (elementwise, fp32 math): h = bf16(act up), grad_act = bf16(grad_h up),
      grad_up = bf16(grad_h act), s = sigmoid(gate), grad_gate = bf16(grad_act s (1 + gate (1 - s)));
      writes h [T, I] and dgu = [grad_gate | grad_up] [T, 2I]
  T2. hT = h^T [I, T]; dguT = dgu^T [2I, T]
  G2. grad_down_weight = bf16(goT . hT^T)                        [H, I]   (K = T)
  G3. grad_gate_weight = bf16(dguT[:I] . xT^T), grad_up_weight = bf16(dguT[I:] . xT^T)   [I, H]   (K = T)
  G4. grad_input = bf16(dgu . wguT^T)                            [T, H]   (K = 2I: both contributions in one
      fp32 sum, which reference.md allows)
Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32

T = 8192
H = 16384
I = 53248

BM = 128
BN = 256
CH = 8
STAGES = 3
THREADS = 256
MI = 4
NI = 8
WARPS_M = 2
SMEM = STAGES * (BM + BN) * CH * 8 * 2    # 147456
assert T % BM == 0 and H % BM == 0 and I % BM == 0 and H % BN == 0 and I % BN == 0
assert T % 64 == 0 and H % 64 == 0 and (2 * I) % 64 == 0 and I % 8 == 0
assert BM // MI == 16 * WARPS_M and BN // NI == 8 * (THREADS // 32 // WARPS_M) and SMEM == 147456
assert 2 * I * H < 2 ** 31                # element offsets fit in 32 bits (largest: wguT [H, 2I])


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


# ---- transposes: dst[c, DOFF + r] = src[r, c], src [R, C], dst rows of LDD elements; 64 x 64 tiles ----
TP = 72                                   # shared row pitch (elements): 144 bytes, 16-byte aligned rows


@cute.jit
def transpose_tile(src: cute.Pointer, dst: cute.Pointer, R: cutlass.Constexpr, C: cutlass.Constexpr,
                   LDD: cutlass.Constexpr, DOFF: cutlass.Constexpr):
    tid = cute.arch.thread_idx()[0]
    c0 = cute.arch.block_idx()[0] * 64
    r0 = cute.arch.block_idx()[1] * 64
    gs = cute.make_tensor(src, cute.make_layout((R, C // 8, 8), stride=(C, 8, 1)))
    gd = cute.make_tensor(dst, cute.make_layout((C, LDD // 8, 8), stride=(LDD, 8, 1)))
    st = cute.make_tensor(cute.arch.alloc_smem(BF16, 64 * TP, alignment=16),
                          cute.make_layout((64, 8, 8), stride=(TP, 8, 1)))   # [c][r chunk][r elem]
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    v = cute.make_rmem_tensor((8,), BF16)
    for p in cutlass.range_constexpr(2):              # 64 rows x 8 chunks = 512 pieces
        idx = tid + 256 * p
        r = idx // 8
        ch = idx % 8
        cute.copy(c128, gs[r0 + r, c0 // 8 + ch, None], v)
        for e in cutlass.range_constexpr(8):
            st[ch * 8 + e, r // 8, r % 8] = v[e]
    cute.arch.sync_threads()
    for p in cutlass.range_constexpr(2):
        idx = tid + 256 * p
        c = idx // 8
        ch = idx % 8
        cute.copy(c128, st[c, ch, None], v)
        cute.copy(c128, v, gd[c0 + c, (DOFF + r0) // 8 + ch, None])


# ---- transposes: dst[c, DOFF + r] = src[r, c], src [R, C], dst rows of LDD elements; 64 x 64 tiles ----
TP = 72                                   # shared row pitch (elements): 144 bytes, 16-byte aligned rows


@cute.jit
def transpose_tile(src: cute.Pointer, dst: cute.Pointer, R: cutlass.Constexpr, C: cutlass.Constexpr,
                   LDD: cutlass.Constexpr, DOFF: cutlass.Constexpr):
    tid = cute.arch.thread_idx()[0]
    c0 = cute.arch.block_idx()[0] * 64
    r0 = cute.arch.block_idx()[1] * 64
    gs = cute.make_tensor(src, cute.make_layout((R, C // 8, 8), stride=(C, 8, 1)))
    gd = cute.make_tensor(dst, cute.make_layout((C, LDD // 8, 8), stride=(LDD, 8, 1)))
    st = cute.make_tensor(cute.arch.alloc_smem(BF16, 64 * TP, alignment=16),
                          cute.make_layout((64, 8, 8), stride=(TP, 8, 1)))   # [c][r chunk][r elem]
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    v = cute.make_rmem_tensor((8,), BF16)
    for p in cutlass.range_constexpr(2):              # 64 rows x 8 chunks = 512 pieces
        idx = tid + 256 * p
        r = idx // 8
        ch = idx % 8
        cute.copy(c128, gs[r0 + r, c0 // 8 + ch, None], v)
        for e in cutlass.range_constexpr(8):
            st[ch * 8 + e, r // 8, r % 8] = v[e]
    cute.arch.sync_threads()
    for p in cutlass.range_constexpr(2):
        idx = tid + 256 * p
        c = idx // 8
        ch = idx % 8
        cute.copy(c128, st[c, ch, None], v)
        cute.copy(c128, v, gd[c0 + c, (DOFF + r0) // 8 + ch, None])


@cute.kernel
def transpose_tokens(src: cute.Pointer, dst: cute.Pointer):
    transpose_tile(src, dst, T, H, T, 0)


@cute.kernel
def transpose_wdown(w_down: cute.Pointer, wdT: cute.Pointer):
    transpose_tile(w_down, wdT, H, I, H, 0)


@cute.kernel
def transpose_wgate(w_gate: cute.Pointer, wguT: cute.Pointer):
    transpose_tile(w_gate, wguT, I, H, 2 * I, 0)


@cute.kernel
def transpose_wup(w_up: cute.Pointer, wguT: cute.Pointer):
    transpose_tile(w_up, wguT, I, H, 2 * I, I)


@cute.kernel
def transpose_h(h: cute.Pointer, hT: cute.Pointer):
    transpose_tile(h, hT, T, I, T, 0)


@cute.kernel
def transpose_dgu(dgu: cute.Pointer, dguT: cute.Pointer):
    transpose_tile(dgu, dguT, T, 2 * I, T, 0)


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
def gemm_dh(go: cute.Pointer, wdT: cute.Pointer, dh: cute.Pointer):
    gemm_store(go, wdT, dh, T, T, I, H, 0)


@cute.kernel
def gemm_dwdown(goT: cute.Pointer, hT: cute.Pointer, dw_down: cute.Pointer):
    gemm_store(goT, hT, dw_down, H, H, I, T, 0)


@cute.kernel
def gemm_dwgate(dguT: cute.Pointer, xT: cute.Pointer, dw_gate: cute.Pointer):
    gemm_store(dguT, xT, dw_gate, 2 * I, I, H, T, 0)


@cute.kernel
def gemm_dwup(dguT: cute.Pointer, xT: cute.Pointer, dw_up: cute.Pointer):
    gemm_store(dguT, xT, dw_up, 2 * I, I, H, T, I)


@cute.kernel
def gemm_dx(dgu: cute.Pointer, wguT: cute.Pointer, dx: cute.Pointer):
    gemm_store(dgu, wguT, dx, T, T, H, 2 * I, 0)


@cute.kernel
def swiglu_bwd(gate: cute.Pointer, up: cute.Pointer, act: cute.Pointer, dh: cute.Pointer, h: cute.Pointer,
               dgu: cute.Pointer):
    """8 consecutive elements (one row t, columns j .. j + 7) per thread."""
    e0 = cute.arch.block_idx()[0] * 2048 + cute.arch.thread_idx()[0] * 8
    row = e0 // I
    col = e0 - row * I
    flat = cute.make_layout((T * I // 8, 8), stride=(8, 1))
    gg = cute.make_tensor(gate, flat)
    gu = cute.make_tensor(up, flat)
    ga = cute.make_tensor(act, flat)
    gd = cute.make_tensor(dh, flat)
    gh = cute.make_tensor(h, flat)
    gdgu = cute.make_tensor(dgu, cute.make_layout((T, 2, I // 8, 8), stride=(2 * I, I, 8, 1)))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    rg = cute.make_rmem_tensor((8,), BF16)
    ru = cute.make_rmem_tensor((8,), BF16)
    ra = cute.make_rmem_tensor((8,), BF16)
    rd = cute.make_rmem_tensor((8,), BF16)
    rh = cute.make_rmem_tensor((8,), BF16)
    rdg = cute.make_rmem_tensor((8,), BF16)
    rdu = cute.make_rmem_tensor((8,), BF16)
    cute.copy(c128, gg[e0 // 8, None], rg)
    cute.copy(c128, gu[e0 // 8, None], ru)
    cute.copy(c128, ga[e0 // 8, None], ra)
    cute.copy(c128, gd[e0 // 8, None], rd)
    for k in cutlass.range_constexpr(8):
        gv = rg[k].to(F32)
        uv = ru[k].to(F32)
        av = ra[k].to(F32)
        dv = rd[k].to(F32)
        s = F32(1.0) / (F32(1.0) + cute.math.exp(-gv))
        rh[k] = (av * uv).to(BF16)
        da = (dv * uv).to(BF16).to(F32)
        rdu[k] = (dv * av).to(BF16)
        rdg[k] = (da * (s * (F32(1.0) + gv * (F32(1.0) - s)))).to(BF16)
    cute.copy(c128, rh, gh[e0 // 8, None])
    cute.copy(c128, rdg, gdgu[row, 0, col // 8, None])
    cute.copy(c128, rdu, gdgu[row, 1, col // 8, None])


MKB_PLAN = """/* mkb:plan
scratch goT bf16[hidden_size * batch_size * seq_len]
scratch xT bf16[hidden_size * batch_size * seq_len]
scratch wdT bf16[intermediate_size * hidden_size]
scratch wguT bf16[hidden_size * 2 * intermediate_size]
scratch dh bf16[batch_size * seq_len * intermediate_size]
scratch h bf16[batch_size * seq_len * intermediate_size]
scratch dgu bf16[batch_size * seq_len * 2 * intermediate_size]
scratch hT bf16[intermediate_size * batch_size * seq_len]
scratch dguT bf16[2 * intermediate_size * batch_size * seq_len]
launch transpose_tokens grid(hidden_size / 64, batch_size * seq_len / 64) block(256) args(grad_output, goT)
launch transpose_tokens grid(hidden_size / 64, batch_size * seq_len / 64) block(256) args(hidden_states, xT)
launch transpose_wdown grid(intermediate_size / 64, hidden_size / 64) block(256) args(down_weight, wdT)
launch transpose_wgate grid(hidden_size / 64, intermediate_size / 64) block(256) args(gate_weight, wguT)
launch transpose_wup grid(hidden_size / 64, intermediate_size / 64) block(256) args(up_weight, wguT)
launch gemm_dh grid(intermediate_size / 256, batch_size * seq_len / 128) block(256) shared(147456) args(grad_output, wdT, dh)
launch swiglu_bwd grid(batch_size * seq_len * intermediate_size / 2048) block(256) args(gate, up, act, dh, h, dgu)
launch transpose_h grid(intermediate_size / 64, batch_size * seq_len / 64) block(256) args(h, hT)
launch transpose_dgu grid(2 * intermediate_size / 64, batch_size * seq_len / 64) block(256) args(dgu, dguT)
launch gemm_dwdown grid(intermediate_size / 256, hidden_size / 128) block(256) shared(147456) args(goT, hT, grad_down_weight)
launch gemm_dwgate grid(hidden_size / 256, intermediate_size / 128) block(256) shared(147456) args(dguT, xT, grad_gate_weight)
launch gemm_dwup grid(hidden_size / 256, intermediate_size / 128) block(256) shared(147456) args(dguT, xT, grad_up_weight)
launch gemm_dx grid(hidden_size / 256, batch_size * seq_len / 128) block(256) shared(147456) args(dgu, wguT, grad_input)
*/"""
