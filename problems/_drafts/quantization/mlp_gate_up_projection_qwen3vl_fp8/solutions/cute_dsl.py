"""mlp_gate_up_projection_qwen3vl_fp8 in CuTe DSL: the algorithm of solutions/cuda.cu.
  1. transpose_bytes: both weights from the inputs' K x N layout to K-major N x K (mma.sync's B operand
     wants K contiguous, and ldmatrix has no 8-bit transpose on sm_90), 64 x 64 byte tiles through shared
     memory;
  2. gemm_gate_up_silu: 128-token x 64-output tiles computing gate and up together on the FP8 tensor cores
     (the B tile's 128 rows interleave 16 gate rows and 16 up rows per warp column; per-k-tile promotion
     with each weight's block scale), problem #52's port's core otherwise (16-byte shared reads of
     4-fp8 words, A and B k-permuted alike, m16n8k32 e4m3 as inline PTX, a 4-stage cp.async ring); the
     epilogue computes silu(gate) * up in fp32 and rounds to bf16 once.
Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32
F8 = cutlass.Float8E4M3FN
U8 = cutlass.Uint8
U32 = cutlass.Uint32

M = 8704             # tokens
HID = 3584           # K
INTER = 18944        # N
BM = 128
BN = 128
CH = 8
STAGES = 4
THREADS = 256
MI = 4
NI = 4
SMEM = STAGES * (BM + BN) * CH * 16     # 131072
assert M % BM == 0 and INTER % 64 == 0 and HID % 128 == 0 and SMEM == 131072
assert M * HID < 2 ** 31 and HID * INTER < 2 ** 31 and M * INTER < 2 ** 31


@cute.jit
def swz(row):
    return ((row & 1) << 2) | ((row >> 1) & 3)


@cute.jit
def mma_e4m3(part: cute.Tensor, a0, a1, a2, a3, b0, b1):
    """part[0..3] += the m16n8k32 e4m3 product of the fragments (a0..a3, b0, b1: 4 fp8 bytes each)."""
    d0, d1, d2, d3 = cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4, read_only_args=[a0, a1, a2, a3, b0, b1, part[0], part[1], part[2], part[3]])
    part[0] = d0
    part[1] = d1
    part[2] = d2
    part[3] = d3


@cute.jit
def gemm_tile_dual(acc: cute.Tensor, a: cute.Pointer, sa: cute.Pointer, bg: cute.Pointer, sg: cute.Pointer,
                   bu: cute.Pointer, su: cute.Pointer, m0, n0, nb, tid,
                   MROWS: cutlass.Constexpr, NROWS: cutlass.Constexpr, KDIM: cutlass.Constexpr):
    """acc (MI, NI, 4): the CTA's tile of dq(A) [dq(G) | dq(U)]^T for outputs n0 .. n0 + 63. The B tile's rows
    interleave the two K-major weights by 16: row r is G's (r & 31 < 16) or U's row n0 + 16 (r >> 5) +
    (r & 15), so warp column wn's n-tiles 0, 1 are gate and 2, 3 up of the same 16 outputs. A e4m3
    [MROWS, KDIM] with scales [MROWS, KDIM / 128]; G, U e4m3 [NROWS, KDIM] with scales [NROWS / 128,
    KDIM / 128] (the 64 outputs lie in scale block row nb)."""
    KBc = KDIM // 128
    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    wm = warp // 4
    gA = cute.make_tensor(a, cute.make_layout((MROWS, KBc, CH, 16), stride=(KDIM, 128, 16, 1)))
    gG = cute.make_tensor(bg, cute.make_layout((NROWS, KBc, CH, 16), stride=(KDIM, 128, 16, 1)))
    gU = cute.make_tensor(bu, cute.make_layout((NROWS, KBc, CH, 16), stride=(KDIM, 128, 16, 1)))
    gsa = cute.make_tensor(sa, cute.make_layout((MROWS, KBc), stride=(KBc, 1)))
    gsg = cute.make_tensor(sg, cute.make_layout((NROWS // 128, KBc), stride=(KBc, 1)))
    gsu = cute.make_tensor(su, cute.make_layout((NROWS // 128, KBc), stride=(KBc, 1)))
    base = cute.arch.get_dyn_smem(F8, alignment=128)
    sA = cute.make_tensor(base, cute.make_layout((STAGES, BM, CH, 16), stride=(BM * CH * 16, CH * 16, 16, 1)))
    sB = cute.make_tensor(base + STAGES * BM * CH * 16,
                          cute.make_layout((STAGES, BN, CH, 16), stride=(BN * CH * 16, CH * 16, 16, 1)))
    base32 = cute.recast_ptr(base, dtype=U32)
    sA32 = cute.make_tensor(base32, cute.make_layout((STAGES, BM, CH, 4), stride=(BM * CH * 4, CH * 4, 4, 1)))
    sB32 = cute.make_tensor(base32 + STAGES * BM * CH * 4,
                            cute.make_layout((STAGES, BN, CH, 4), stride=(BN * CH * 4, CH * 4, 4, 1)))
    cpa = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(cache_mode=cute.nvgpu.cpasync.LoadCacheMode.GLOBAL),
                              F8, num_bits_per_copy=128)
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)
    lc = tid % CH
    lr0 = tid // CH
    lcs = lc ^ swz(lr0)
    within = lr0 % 32               # r % 32 for every row r = lr0 + 32 i this thread copies
    acc.fill(0.0)
    part = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    srow = cute.make_rmem_tensor(cute.make_layout((MI, 2), stride=(2, 1)), F32)
    ra = cute.make_rmem_tensor(cute.make_layout((MI, 2, 4), stride=(8, 4, 1)), U32)
    rb = cute.make_rmem_tensor(cute.make_layout((NI, 4), stride=(4, 1)), U32)
    for s in cutlass.range_constexpr(STAGES - 1):
        for i in cutlass.range_constexpr(BM // (THREADS // CH)):
            r = lr0 + i * (THREADS // CH)
            cute.copy(cpa, gA[m0 + r, s, lc, None], sA[s, r, lcs, None])
            nrow = n0 + 16 * (r // 32) + within % 16
            if within < 16:
                cute.copy(cpa, gG[nrow, s, lc, None], sB[s, r, lcs, None])
            else:
                cute.copy(cpa, gU[nrow, s, lc, None], sB[s, r, lcs, None])
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KBc):
        cute.arch.cp_async_wait_group(STAGES - 2)
        cute.arch.sync_threads()
        nxt = kt + (STAGES - 1)
        if nxt < KBc:
            slot_n = nxt % STAGES
            for i in cutlass.range_constexpr(BM // (THREADS // CH)):
                r = lr0 + i * (THREADS // CH)
                cute.copy(cpa, gA[m0 + r, nxt, lc, None], sA[slot_n, r, lcs, None])
                nrow = n0 + 16 * (r // 32) + within % 16
                if within < 16:
                    cute.copy(cpa, gG[nrow, nxt, lc, None], sB[slot_n, r, lcs, None])
                else:
                    cute.copy(cpa, gU[nrow, nxt, lc, None], sB[slot_n, r, lcs, None])
        cute.arch.cp_async_commit_group()
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                srow[i, hr] = gsa[m0 + wm * 64 + i * 16 + g + 8 * hr, kt]
        sgate = gsg[nb, kt]
        sup = gsu[nb, kt]
        part.fill(0.0)
        slot = kt % STAGES
        q = lane % 4
        wn = warp % 4
        x = swz(g)
        for step in cutlass.range_constexpr(CH // 4):
            chunk = (step * 4 + q) ^ x
            for i in cutlass.range_constexpr(MI):
                row = wm * 64 + i * 16 + g
                cute.copy(c128, sA32[slot, row, chunk, None], ra[i, 0, None])
                cute.copy(c128, sA32[slot, row + 8, chunk, None], ra[i, 1, None])
            for j in cutlass.range_constexpr(NI):
                cute.copy(c128, sB32[slot, wn * 32 + j * 8 + g, chunk, None], rb[j, None])
            for i in cutlass.range_constexpr(MI):
                for j in cutlass.range_constexpr(NI):
                    cv = cute.make_tensor(part.iterator + (i * NI + j) * 4, cute.make_layout((4,), stride=(1,)))
                    for h in cutlass.range_constexpr(2):
                        mma_e4m3(cv, ra[i, 0, 2 * h], ra[i, 1, 2 * h], ra[i, 0, 2 * h + 1], ra[i, 1, 2 * h + 1],
                                 rb[j, 2 * h], rb[j, 2 * h + 1])
        for i in cutlass.range_constexpr(MI):
            for hr in cutlass.range_constexpr(2):
                fg = srow[i, hr] * sgate
                fu = srow[i, hr] * sup
                for j in cutlass.range_constexpr(NI):
                    for e in cutlass.range_constexpr(2):
                        if cutlass.const_expr(j < 2):
                            acc[i, j, 2 * hr + e] = acc[i, j, 2 * hr + e] + part[i, j, 2 * hr + e] * fg
                        else:
                            acc[i, j, 2 * hr + e] = acc[i, j, 2 * hr + e] + part[i, j, 2 * hr + e] * fu
    cute.arch.cp_async_wait_group(0)


@cute.jit
def transpose_tile(src: cute.Pointer, dst: cute.Pointer):
    """dst [INTER, HID] = src [HID, INTER]^T for the 64 x 64 tile (bx, by): a thread reads 16 bytes of a
    source row into shared memory, then gathers 16 bytes of a source column for a destination row."""
    tid = cute.arch.thread_idx()[0]
    bx, by, _ = cute.arch.block_idx()
    gs = cute.make_tensor(cute.recast_ptr(src, dtype=U8), cute.make_layout((HID, INTER // 16, 16), stride=(INTER, 16, 1)))
    gd = cute.make_tensor(cute.recast_ptr(dst, dtype=U8), cute.make_layout((INTER, HID // 16, 16), stride=(HID, 16, 1)))
    tile = cute.make_tensor(cute.arch.alloc_smem(U8, 64 * 80), cute.make_layout((64, 80), stride=(80, 1)))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U8, num_bits_per_copy=128)
    r = tid // 4
    c = (tid % 4) * 16
    rv = cute.make_rmem_tensor((16,), U8)
    cute.copy(c128, gs[by * 64 + r, bx * 4 + tid % 4, None], rv)
    for j in cutlass.range_constexpr(16):
        tile[r, c + j] = rv[j]
    cute.arch.sync_threads()
    oc = tid // 4
    orr = (tid % 4) * 16
    ov = cute.make_rmem_tensor((16,), U8)
    for j in cutlass.range_constexpr(16):
        ov[j] = tile[orr + j, oc]
    cute.copy(c128, ov, gd[bx * 64 + oc, by * 4 + tid % 4, None])


@cute.kernel
def transpose_bytes(src: cute.Pointer, dst: cute.Pointer):
    transpose_tile(src, dst)


@cute.kernel
def gemm_gate_up_silu(a: cute.Pointer, sa: cute.Pointer, wg: cute.Pointer, sg: cute.Pointer, wu: cute.Pointer,
                      su: cute.Pointer, out: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    n0 = cute.arch.block_idx()[0] * 64
    m0 = cute.arch.block_idx()[1] * BM
    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    q = lane % 4
    wm = warp // 4
    wn = warp % 4
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    gemm_tile_dual(acc, a, sa, wg, sg, wu, su, m0, n0, n0 // 128, tid, M, INTER, HID)
    gc = cute.make_tensor(out, cute.make_layout((M, INTER // 2, 2), stride=(INTER, 2, 1)))
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    for i in cutlass.range_constexpr(MI):
        for hr in cutlass.range_constexpr(2):
            m = m0 + wm * 64 + i * 16 + g + 8 * hr
            for j in cutlass.range_constexpr(2):
                for e in cutlass.range_constexpr(2):
                    gate = acc[i, j, 2 * hr + e]
                    up = acc[i, j + 2, 2 * hr + e]
                    o2[e] = (gate / (F32(1.0) + cute.math.exp(-gate)) * up).to(BF16)
                cute.copy(c32, o2, gc[m, (n0 + 16 * wn + 8 * j) // 2 + q, None])


MKB_PLAN = """/* mkb:plan
scratch wg_t fp8_e4m3[hidden_size * intermediate_size]
scratch wu_t fp8_e4m3[hidden_size * intermediate_size]
launch transpose_bytes grid(intermediate_size / 64, hidden_size / 64) block(256) args(gate_proj_weight, wg_t)
launch transpose_bytes grid(intermediate_size / 64, hidden_size / 64) block(256) args(up_proj_weight, wu_t)
launch gemm_gate_up_silu grid(intermediate_size / 64, m / 128) block(256) shared(131072)
  args(x, scale_x, wg_t, scale_gate, wu_t, scale_up, output)
*/"""
