"""mlp_silu_gating_qwen3_8b_nvfp4 in CuTe DSL: the algorithm of solutions/cuda.cu.
  1. amax_bf16: max |x| (16-byte loads, butterflies, one atomic max of the float's bits per block into
     zeroed scratch); quantize_expand: the reference's fp32 NVFP4 recipe per 16-element block (global
     encode min(2688 / amax, FLT_MAX), e4m3 block scale, block encode min(1 / (s * decode), FLT_MAX),
     x * encode clamped and rounded to the nearest e2m1 value, ties to even), stored as the bf16 value
     E2M1[code] * s (exact); expand_nvfp4 the same from a weight's packed codes (element 2j in the low
     nibble) and scales;
  2. gate_up_gemm: gate and up in one GEMM (a 128-column tile holds 64 gate and 64 up columns, 8 of each in
     turn), whose epilogue applies the reference's rounding points: gate and up to bf16, SiLU
     g / (1 + expf(-g)) to bf16, the product to bf16, stored, with max |hidden| by atomic max;
  3. hidden quantized the same way, and down_gemm rounds to bf16.
GEMMs: 128 x 128 tiles, 64-wide (128-byte) k tiles through a 3-stage cp.async ring, 16-byte shared reads of
4-word chunks (A and B k-permuted alike, within each k tile), mma m16n8k16 bf16 as inline PTX; each k
tile's fp32 partial is added to the total with an fp32 add, as the cuda solution's kPromote.
Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32
F8 = cutlass.Float8E4M3FN
U8 = cutlass.Uint8
U32 = cutlass.Uint32
I32 = cutlass.Int32
I64 = cutlass.Int64

TOK = 16384          # batch_size * seq_len
HID = 4096           # hidden size
INTER = 12288        # intermediate size
FLT_MAX = 3.40282346638528859812e38
BM = 128
BN = 128
CH = 8               # 16-byte chunks per 128-byte k tile row
STAGES = 3
THREADS = 256
MI = 4
NI = 4
SMEM_GEMM = STAGES * (BM + BN) * CH * 16    # 98304
NBLK_ACT = TOK * INTER // 16                # the larger activation's 16-element blocks
NBLK_W = INTER * HID // 16                  # every weight's 16-element blocks
AMAX_GRID = 1056
assert TOK % (8 * BM) == 0 and HID % BN == 0 and (2 * INTER) % BN == 0
assert TOK * INTER < 2 ** 31 and INTER * HID < 2 ** 31


@cute.jit
def swz(row):
    """The XOR applied to a 16-byte chunk index in shared memory rows: a permutation of 0..7 by row % 8."""
    return ((row & 1) << 2) | ((row >> 1) & 3)


@cute.jit
def float_bits(f):
    return cute.arch.inline_ptx("mov.b32 {$w0}, {$r0};", write_only_types=[I32], read_only_args=[f])


@cute.jit
def bits_float(i):
    return cute.arch.inline_ptx("mov.b32 {$w0}, {$r0};", write_only_types=[F32], read_only_args=[i])


@cute.jit
def bf16r(x):
    return x.to(BF16).to(F32)


@cute.jit
def global_decode_of(amax):
    """decode = fp32(1 / encode), encode = min(fp32(2688 / amax), FLT_MAX), 1 where that is 0."""
    ge = cutlass.min(F32(2688.0) / amax, F32(FLT_MAX))
    ge = cutlass.select_(ge == F32(0.0), F32(1.0), ge)
    return ge, F32(1.0) / ge


@cute.jit
def e2m1_value(v):
    """The nearest e2m1 value of v (already clamped to +-6), ties to even, as a float (-0 for [-0.25, 0))."""
    a = cute.arch.fmax(v, -v)
    m = cutlass.select_(a > F32(5.0), F32(6.0),
        cutlass.select_(a >= F32(3.5), F32(4.0),
        cutlass.select_(a > F32(2.5), F32(3.0),
        cutlass.select_(a >= F32(1.75), F32(2.0),
        cutlass.select_(a > F32(1.25), F32(1.5),
        cutlass.select_(a >= F32(0.75), F32(1.0),
        cutlass.select_(a > F32(0.25), F32(0.5), F32(0.0))))))))
    return cutlass.select_(v < F32(0.0), -m, m)


@cute.jit
def e2m1_of_code(code):
    """E2M1[code] for a 4-bit code (bit 3 the sign)."""
    mag = code & 7
    m = cutlass.select_(mag < 4, F32(0.5) * mag.to(F32),
        cutlass.select_(mag == 4, F32(2.0), cutlass.select_(mag == 5, F32(3.0), cutlass.select_(mag == 6, F32(4.0), F32(6.0)))))
    return cutlass.select_((code & 8) != 0, -m, m)


@cute.kernel
def amax_bf16(amax_bits: cute.Pointer, x: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    blk = cute.arch.block_idx()[0]
    nchunks = TOK * HID // 8
    gx = cute.make_tensor(x, cute.make_layout((nchunks, 8), stride=(8, 1)))
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 8), cute.make_layout(8))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    rx = cute.make_rmem_tensor((8,), BF16)
    m = F32(0.0)
    for i in cutlass.range(blk * THREADS + tid, nchunks, AMAX_GRID * THREADS):
        cute.copy(c128, gx[i, None], rx)
        for e in cutlass.range_constexpr(8):
            f = rx[e].to(F32)
            m = cute.arch.fmax(m, cute.arch.fmax(f, -f))
    m = cute.arch.warp_reduction_max(m)
    if lane == 0:
        red[warp] = m
    cute.arch.sync_threads()
    if tid == 0:
        t = red[0]
        for w in cutlass.range_constexpr(1, 8):
            t = cute.arch.fmax(t, red[w])
        cute.arch.atomic_max(amax_bits, float_bits(t))


@cute.kernel
def quantize_expand(dst: cute.Pointer, x: cute.Pointer, amax_bits: cute.Pointer, blocks: cutlass.Int64):
    """One thread per 16-element block of an activation (x or hidden): bf16 E2M1[code] * s."""
    b = cute.arch.block_idx()[0] * THREADS + cute.arch.thread_idx()[0]
    gx = cute.make_tensor(x, cute.make_layout((NBLK_ACT, 2, 8), stride=(16, 8, 1)))
    gd = cute.make_tensor(dst, cute.make_layout((NBLK_ACT, 2, 8), stride=(16, 8, 1)))
    gm = cute.make_tensor(amax_bits, cute.make_layout(1))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    if b.to(I64) < blocks:
        encode, decode = global_decode_of(bits_float(gm[0]))
        rx = cute.make_rmem_tensor(cute.make_layout((2, 8), stride=(8, 1)), BF16)
        cute.copy(c128, gx[b, 0, None], rx[0, None])
        cute.copy(c128, gx[b, 1, None], rx[1, None])
        v = cute.make_rmem_tensor((16,), F32)
        m = F32(0.0)
        for e in cutlass.range_constexpr(16):
            v[e] = rx[e // 8, e % 8].to(F32)
            m = cute.arch.fmax(m, cute.arch.fmax(v[e], -v[e]))
        sv = cute.make_rmem_tensor((2,), F32)
        sv[0] = cutlass.min(cutlass.max(m * F32(1.0 / 6.0) * encode, F32(-448.0)), F32(448.0))
        sv[1] = F32(0.0)
        s8 = cute.make_rmem_tensor((2,), F8)
        s8.store(sv.load().to(F8))                         # cvt.rn.satfinite.e4m3x2
        sf = s8[0].to(F32)
        enc = cutlass.min(F32(1.0) / (sf * decode), F32(FLT_MAX))
        ro = cute.make_rmem_tensor(cute.make_layout((2, 8), stride=(8, 1)), BF16)
        for e in cutlass.range_constexpr(16):
            y = cutlass.min(cutlass.max(v[e] * enc, F32(-6.0)), F32(6.0))
            ro[e // 8, e % 8] = (e2m1_value(y) * sf).to(BF16)
        cute.copy(c128, ro[0, None], gd[b, 0, None])
        cute.copy(c128, ro[1, None], gd[b, 1, None])


@cute.kernel
def expand_nvfp4(dst: cute.Pointer, codes: cute.Pointer, scales: cute.Pointer, blocks: cutlass.Int64):
    """One thread per 16-element block of a stored NVFP4 weight: dst[16 b + j] = bf16(E2M1[code] * s[b])."""
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
def gemm_tile(a: cute.Pointer, w: cute.Pointer, K: cutlass.Constexpr, m0, brow0, bstep: cutlass.Constexpr,
              tot: cute.Tensor):
    """tot (MI, NI, 4) := this warp's 64 x 32 part of the 128 x 128 tile sum_k A[m0 + i, k] B[j, k] (both
    K-contiguous bf16), each 64-wide k tile's fp32 partial added to tot with an fp32 add. Tile row
    r = tid / 8 + 32 i (i = 0..3) of B, which this thread loads, is row brow0 + bstep * i of w.
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
    KT = K * 2 // 128
    gA = cute.make_tensor(a8, cute.make_layout((TOK, KT, CH, 16), stride=(K * 2, 128, 16, 1)))
    gB = cute.make_tensor(w8, cute.make_layout((INTER, KT, CH, 16), stride=(K * 2, 128, 16, 1)))
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
            cute.copy(cpa, gB[brow0 + bstep * i, s, lc, None], sB[s, r, lcs, None])
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
                cute.copy(cpa, gB[brow0 + bstep * i, nxt, lc, None], sB[slot_n, r, lcs, None])
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


@cute.jit
def store_tile(dst: cute.Pointer, width: cutlass.Constexpr, m0, c0, tot: cute.Tensor, gscale):
    """dst[row, c0 + col] = bf16(tot * gscale) for the warp's fragment (dst [tokens, width] row-major)."""
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    g = lane // 4
    q = lane % 4
    go = cute.make_tensor(dst, cute.make_layout((TOK, width // 2, 2), stride=(width, 2, 1)))
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    for i in cutlass.range_constexpr(MI):
        for hr in cutlass.range_constexpr(2):
            r = m0 + (warp // 4) * 64 + i * 16 + g + 8 * hr
            for j in cutlass.range_constexpr(NI):
                cp = (c0 + (warp % 4) * 32 + j * 8) // 2 + q
                for e in cutlass.range_constexpr(2):
                    o2[e] = (tot[i, j, 2 * hr + e] * gscale).to(BF16)
                cute.copy(c32, o2, go[r, cp, None])


@cute.kernel
def gate_up_gemm(hidden: cute.Pointer, hidden_amax: cute.Pointer, xa: cute.Pointer, gw: cute.Pointer,
                 uw: cute.Pointer, x_amax: cute.Pointer, gd_gate: cute.Pointer, gd_up: cute.Pointer):
    """n0 counts interleaved columns: tile column c is gate ((c >> 3) & 1 == 0) or up column
    n0 / 2 + (c >> 4) * 8 + (c & 7), so a tile covers hidden columns n0 / 2 .. n0 / 2 + 63."""
    m0, n0 = tile_of(2 * INTER // BN)
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    lr0 = cute.arch.thread_idx()[0] // CH          # the B tile rows this thread loads: lr0 + 32 i
    w = gw
    if ((lr0 >> 3) & 1) == 1:
        w = uw
    gm = cute.make_tensor(x_amax, cute.make_layout(1))
    gdg = cute.make_tensor(gd_gate, cute.make_layout(1))
    gdu = cute.make_tensor(gd_up, cute.make_layout(1))
    _, x_decode = global_decode_of(bits_float(gm[0]))
    g_gate = x_decode * gdg[0]
    g_up = x_decode * gdu[0]
    tot = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    gemm_tile(xa, w, HID, m0, n0 // 2 + (lr0 >> 4) * 8 + (lr0 & 7), 16, tot)
    g = lane // 4
    q = lane % 4
    go = cute.make_tensor(hidden, cute.make_layout((TOK, INTER // 2, 2), stride=(INTER, 2, 1)))
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    local_max = F32(0.0)
    for i in cutlass.range_constexpr(MI):
        for hr in cutlass.range_constexpr(2):
            r = m0 + (warp // 4) * 64 + i * 16 + g + 8 * hr
            for j in cutlass.range_constexpr(NI // 2):
                # tot[i, 2 j] holds gate, tot[i, 2 j + 1] up, of hidden columns n0 / 2 + 16 (warp % 4) + 8 j + 2 q + e
                cp = (n0 // 2 + (warp % 4) * 16 + 8 * j) // 2 + q
                for e in cutlass.range_constexpr(2):
                    gate = bf16r(tot[i, 2 * j, 2 * hr + e] * g_gate)
                    up = bf16r(tot[i, 2 * j + 1, 2 * hr + e] * g_up)
                    act = bf16r(gate / (F32(1.0) + cute.math.exp(-gate)))
                    hv = (act * up).to(BF16)
                    o2[e] = hv
                    hf = hv.to(F32)
                    local_max = cute.arch.fmax(local_max, cute.arch.fmax(hf, -hf))
                cute.copy(c32, o2, go[r, cp, None])
    local_max = cute.arch.warp_reduction_max(local_max)
    if lane == 0:
        cute.arch.atomic_max(hidden_amax, float_bits(local_max))


@cute.kernel
def down_gemm(out: cute.Pointer, ha: cute.Pointer, dw: cute.Pointer, hidden_amax: cute.Pointer, gd_down: cute.Pointer):
    m0, n0 = tile_of(HID // BN)
    gm = cute.make_tensor(hidden_amax, cute.make_layout(1))
    gd = cute.make_tensor(gd_down, cute.make_layout(1))
    _, h_decode = global_decode_of(bits_float(gm[0]))
    gscale = h_decode * gd[0]
    tot = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    gemm_tile(ha, dw, INTER, m0, n0 + cute.arch.thread_idx()[0] // CH, THREADS // CH, tot)
    store_tile(out, HID, m0, n0, tot, gscale)


MKB_PLAN = """/* mkb:plan
scratch xamax int32[1] zeroed
scratch hamax int32[1] zeroed
scratch xa bf16[tokens * hidden_size]
scratch gw bf16[intermediate_size * hidden_size]
scratch uw bf16[intermediate_size * hidden_size]
scratch dw bf16[hidden_size * intermediate_size]
scratch hidden bf16[tokens * intermediate_size]
scratch ha bf16[tokens * intermediate_size]
launch amax_bf16 grid(1056) block(256) args(xamax, x)
launch quantize_expand grid(ceil_div(tokens * hidden_size / 16, 256)) block(256) args(xa, x, xamax, i64(tokens * hidden_size / 16))
launch expand_nvfp4 grid(ceil_div(intermediate_size * hidden_size / 16, 256)) block(256)
  args(gw, gate_weight_fp4, gate_scale, i64(intermediate_size * hidden_size / 16))
launch expand_nvfp4 grid(ceil_div(intermediate_size * hidden_size / 16, 256)) block(256)
  args(uw, up_weight_fp4, up_scale, i64(intermediate_size * hidden_size / 16))
launch gate_up_gemm grid((tokens / 128) * (2 * intermediate_size / 128)) block(256) shared(98304)
  args(hidden, hamax, xa, gw, uw, xamax, gate_global_decode_scale, up_global_decode_scale)
launch quantize_expand grid(ceil_div(tokens * intermediate_size / 16, 256)) block(256)
  args(ha, hidden, hamax, i64(tokens * intermediate_size / 16))
launch expand_nvfp4 grid(ceil_div(hidden_size * intermediate_size / 16, 256)) block(256)
  args(dw, down_weight_fp4, down_scale, i64(hidden_size * intermediate_size / 16))
launch down_gemm grid((tokens / 128) * (hidden_size / 128)) block(256) shared(98304)
  args(out, ha, dw, hamax, down_global_decode_scale)
*/"""
