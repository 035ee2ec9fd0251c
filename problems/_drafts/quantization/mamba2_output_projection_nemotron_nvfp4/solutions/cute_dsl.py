"""mamba2_output_projection_nemotron_nvfp4 in CuTe DSL: the algorithm of solutions/cuda.cu.
  1. expand_nvfp4 (two launches): each operand's codes (element 2j in the low nibble) and e4m3 block scales
     expanded to the bf16 values E2M1[code] * s (exact: at most 6 significant bits), one thread per
     16-element block;
  2. nvfp4_gemm: the bf16 product on the tensor cores (128 x 128 tiles, 64-wide (128-byte) k tiles through
     a 3-stage cp.async ring, 16-byte shared reads of 4-word chunks with A and B k-permuted alike within
     each k tile, mma m16n8k16 bf16 as inline PTX), each k tile's fp32 partial added to the total with an
     fp32 add (the cuda solution's kPromote), times the product of the two global decode scales, fp32 out.
Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32
U8 = cutlass.Uint8
U32 = cutlass.Uint32
I32 = cutlass.Int32
I64 = cutlass.Int64

M = 8192             # tokens
N = 1920             # hidden_size: output features
K = 1920             # intermediate_size: input features
BM = 128
BN = 128
CH = 8               # 16-byte chunks per 128-byte k tile row
STAGES = 3
THREADS = 256
MI = 4
NI = 4
KT = K * 2 // 128    # 30 k tiles
SMEM_GEMM = STAGES * (BM + BN) * CH * 16    # 98304
NBLK_W = M * K // 16                        # the larger operand's 16-element blocks
assert M % (8 * BM) == 0 and N % BN == 0 and (K * 2) % 128 == 0 and M >= N
assert M * K < 2 ** 31 and M * N < 2 ** 31


@cute.jit
def swz(row):
    """The XOR applied to a 16-byte chunk index in shared memory rows: a permutation of 0..7 by row % 8."""
    return ((row & 1) << 2) | ((row >> 1) & 3)


@cute.jit
def e2m1_of_code(code):
    """E2M1[code] for a 4-bit code (bit 3 the sign)."""
    mag = code & 7
    m = cutlass.select_(mag < 4, F32(0.5) * mag.to(F32),
        cutlass.select_(mag == 4, F32(2.0), cutlass.select_(mag == 5, F32(3.0), cutlass.select_(mag == 6, F32(4.0), F32(6.0)))))
    return cutlass.select_((code & 8) != 0, -m, m)


@cute.kernel
def expand_nvfp4(dst: cute.Pointer, codes: cute.Pointer, scales: cute.Pointer, blocks: cutlass.Int64):
    """One thread per 16-element block of a stored NVFP4 tensor: dst[16 b + j] = bf16(E2M1[code] * s[b])."""
    b = cute.arch.block_idx()[0] * THREADS + cute.arch.thread_idx()[0]
    nmax = NBLK_W
    gp = cute.make_tensor(codes, cute.make_layout((nmax, 8), stride=(8, 1)))
    gs = cute.make_tensor(scales, cute.make_layout((nmax,), stride=(1,)))
    gw = cute.make_tensor(dst, cute.make_layout((nmax, 2, 8), stride=(16, 8, 1)))
    c64 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U8, num_bits_per_copy=64)
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    if b.to(I64) < blocks:
        rp = cute.make_rmem_tensor((8,), U8)
        cute.copy(c64, gp[b, None], rp)
        sf = gs[b].to(F32)
        ro = cute.make_rmem_tensor(cute.make_layout((2, 8), stride=(8, 1)), BF16)
        for j in cutlass.range_constexpr(8):
            byte = rp[j].to(I32)
            ro[(2 * j) // 8, (2 * j) % 8] = (e2m1_of_code(byte & 15) * sf).to(BF16)
            ro[(2 * j + 1) // 8, (2 * j + 1) % 8] = (e2m1_of_code(byte >> 4) * sf).to(BF16)
        cute.copy(c128, ro[0, None], gw[b, 0, None])
        cute.copy(c128, ro[1, None], gw[b, 1, None])


@cute.jit
def mma_bf16(c: cute.Tensor, a0, a1, a2, a3, b0, b1):
    """c[0..3] += the m16n8k16 bf16 product of the fragments (each a 32-bit word of two bf16)."""
    d0, d1, d2, d3 = cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4, read_only_args=[a0, a1, a2, a3, b0, b1, c[0], c[1], c[2], c[3]])
    c[0] = d0
    c[1] = d1
    c[2] = d2
    c[3] = d3


@cute.jit
def tile_of(tiles_n: cutlass.Constexpr):
    """The tile of blockIdx.x: groups of 8 row tiles sweep the column tiles (as the cuda solution)."""
    bid = cute.arch.block_idx()[0]
    per_group = 8 * tiles_n
    group = bid // per_group
    inner = bid % per_group
    return (group * 8 + inner % 8) * BM, (inner // 8) * BN


@cute.jit
def gemm_tile(a: cute.Pointer, w: cute.Pointer, m0, r0, tot: cute.Tensor):
    """tot (MI, NI, 4) := this warp's 64 x 32 part of the 128 x 128 tile sum_k A[m0 + i, k] W[r0 + j, k]
    (both K-contiguous bf16), each 64-wide k tile's fp32 partial added to tot with an fp32 add.
    tot[i, j, 2 h + e] is row 64 (warp / 4) + 16 i + lane / 4 + 8 h, column 32 (warp % 4) + 8 j + 2 (lane % 4) + e."""
    tid = cute.arch.thread_idx()[0]
    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    q = lane % 4
    wm = warp // 4
    wn = warp % 4
    a8 = cute.recast_ptr(a, dtype=U8)
    w8 = cute.recast_ptr(w, dtype=U8)
    gA = cute.make_tensor(a8, cute.make_layout((M, KT, CH, 16), stride=(K * 2, 128, 16, 1)))
    gB = cute.make_tensor(w8, cute.make_layout((N, KT, CH, 16), stride=(K * 2, 128, 16, 1)))
    base = cute.arch.get_dyn_smem(U8, alignment=128)
    sA = cute.make_tensor(base, cute.make_layout((STAGES, BM, CH, 16), stride=(BM * CH * 16, CH * 16, 16, 1)))
    sB = cute.make_tensor(base + STAGES * BM * CH * 16,
                          cute.make_layout((STAGES, BN, CH, 16), stride=(BN * CH * 16, CH * 16, 16, 1)))
    base32 = cute.recast_ptr(base, dtype=U32)
    sA32 = cute.make_tensor(base32, cute.make_layout((STAGES, BM, CH, 4), stride=(BM * CH * 4, CH * 4, 4, 1)))
    sB32 = cute.make_tensor(base32 + STAGES * BM * CH * 4,
                            cute.make_layout((STAGES, BN, CH, 4), stride=(BN * CH * 4, CH * 4, 4, 1)))
    cpa = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(cache_mode=cute.nvgpu.cpasync.LoadCacheMode.GLOBAL),
                              U8, num_bits_per_copy=128)
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)
    lc = tid % CH
    lr0 = tid // CH
    lcs = lc ^ swz(lr0)
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    tot.fill(0.0)
    ra = cute.make_rmem_tensor(cute.make_layout((MI, 2, 4), stride=(8, 4, 1)), U32)
    rb = cute.make_rmem_tensor(cute.make_layout((NI, 4), stride=(4, 1)), U32)
    for s in cutlass.range_constexpr(STAGES - 1):
        for i in cutlass.range_constexpr(BM // (THREADS // CH)):
            r = lr0 + i * (THREADS // CH)
            cute.copy(cpa, gA[m0 + r, s, lc, None], sA[s, r, lcs, None])
            cute.copy(cpa, gB[r0 + r, s, lc, None], sB[s, r, lcs, None])
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KT):
        cute.arch.cp_async_wait_group(STAGES - 2)
        cute.arch.sync_threads()
        nxt = kt + (STAGES - 1)
        if nxt < KT:
            slot_n = nxt % STAGES
            for i in cutlass.range_constexpr(BM // (THREADS // CH)):
                r = lr0 + i * (THREADS // CH)
                cute.copy(cpa, gA[m0 + r, nxt, lc, None], sA[slot_n, r, lcs, None])
                cute.copy(cpa, gB[r0 + r, nxt, lc, None], sB[slot_n, r, lcs, None])
        cute.arch.cp_async_commit_group()
        slot = kt % STAGES
        x = swz(g)
        acc.fill(0.0)
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
                    cv = cute.make_tensor(acc.iterator + (i * NI + j) * 4, cute.make_layout((4,), stride=(1,)))
                    for h in cutlass.range_constexpr(2):
                        mma_bf16(cv, ra[i, 0, 2 * h], ra[i, 1, 2 * h], ra[i, 0, 2 * h + 1], ra[i, 1, 2 * h + 1],
                                 rb[j, 2 * h], rb[j, 2 * h + 1])
        for i in cutlass.range_constexpr(MI):
            for j in cutlass.range_constexpr(NI):
                for e in cutlass.range_constexpr(4):
                    tot[i, j, e] = tot[i, j, e] + acc[i, j, e]
    cute.arch.cp_async_wait_group(0)


@cute.kernel
def nvfp4_gemm(out: cute.Pointer, a: cute.Pointer, b: cute.Pointer, gd_a: cute.Pointer, gd_b: cute.Pointer):
    m0, n0 = tile_of(N // BN)
    ga = cute.make_tensor(gd_a, cute.make_layout(1))
    gb = cute.make_tensor(gd_b, cute.make_layout(1))
    gscale = ga[0] * gb[0]
    tot = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    gemm_tile(a, b, m0, n0, tot)
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    g = lane // 4
    q = lane % 4
    go = cute.make_tensor(out, cute.make_layout((M, N // 2, 2), stride=(N, 2, 1)))
    o2 = cute.make_rmem_tensor((2,), F32)
    c64 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
    for i in cutlass.range_constexpr(MI):
        for hr in cutlass.range_constexpr(2):
            r = m0 + (warp // 4) * 64 + i * 16 + g + 8 * hr
            for j in cutlass.range_constexpr(NI):
                cp = (n0 + (warp % 4) * 32 + j * 8) // 2 + q
                for e in cutlass.range_constexpr(2):
                    o2[e] = tot[i, j, 2 * hr + e] * gscale
                cute.copy(c64, o2, go[r, cp, None])


MKB_PLAN = """/* mkb:plan
scratch xa bf16[batch * m * intermediate_size]
scratch wb bf16[batch * hidden_size * intermediate_size]
launch expand_nvfp4 grid(ceil_div(batch * m * intermediate_size / 16, 256)) block(256)
  args(xa, hidden_states, hidden_states_scale, i64(batch * m * intermediate_size / 16))
launch expand_nvfp4 grid(ceil_div(batch * hidden_size * intermediate_size / 16, 256)) block(256)
  args(wb, weight, weight_scale, i64(batch * hidden_size * intermediate_size / 16))
launch nvfp4_gemm grid((m / 128) * (hidden_size / 128)) block(256) shared(98304)
  args(out, xa, wb, global_decode_scale_input, global_decode_scale_weight)
*/"""
