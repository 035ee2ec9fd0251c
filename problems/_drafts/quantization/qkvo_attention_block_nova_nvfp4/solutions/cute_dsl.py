"""qkvo_attention_block_nova_nvfp4 in CuTe DSL: the algorithm of solutions/cuda.cu.
  1. amax_bf16: max |hidden_states| (16-byte loads, butterflies, one atomic max of the float's bits per
     block into zeroed scratch); quantize_expand: the reference's fp32 NVFP4 recipe per 16-element block
     (global encode min(2688 / amax, FLT_MAX), e4m3 block scale, block encode min(1 / (s * decode), FLT_MAX),
     x * encode clamped and rounded to the nearest e2m1 value, ties to even), stored as the bf16 value
     E2M1[code] * s (exact); expand_nvfp4 the same from a weight's packed codes (element 2j in the low
     nibble) and scales;
  2. qkv_gemm: one GEMM for q, k and v (10240 columns, each 128-column tile inside one of them), the two
     global decode scales and the bf16 rounding in the epilogue;
  3. attention, per (batch, head): RoPE of the q rows and of the kv head's k rows into shared memory with
     eager's roundings (each product and the sum rounded to bf16), v^T in shared memory, the scores on the
     tensor cores rounded to bf16, * scaling rounded to bf16, the causal -inf, a quad-per-row softmax in fp32
     rounded to bf16 and repacked from accumulators into A fragments, P V rounded to bf16, stored
     [tokens, heads * 128] with max |.| by atomic max;
  4. that quantized the same way, the o GEMM rounded to bf16.
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

BATCH = 64
SEQ = 128
HID = 8192           # hidden size = q features = o features
HEADS = 64
KVH = 8
D = 128
KV = KVH * D         # 1024
TOK = BATCH * SEQ    # 8192 tokens
QKVN = HID + 2 * KV  # 10240 columns of the q/k/v GEMM
SCALING = 0.08838834764831845     # HEAD_DIM ** -0.5 as fp32 (0.088388346f)
FLT_MAX = 3.40282346638528859812e38
BM = 128
BN = 128
CH = 8               # 16-byte chunks per 128-byte k tile row
STAGES = 3
THREADS = 256
MI = 4
NI = 4
KT = HID * 2 // 128  # 128 k tiles (K = 8192 in both GEMMs)
SMEM_GEMM = STAGES * (BM + BN) * CH * 16    # 98304
SMEM_ATT = 3 * SEQ * D * 2                  # 98304: q, k, v^T tiles of [128][128] bf16
NBLK_X = TOK * HID // 16                    # 16-element blocks of an activation
AMAX_GRID = 1056
assert TOK % BM == 0 and HID % BN == 0 and KV % BN == 0 and SEQ == 128 and D == 128
assert TOK * QKVN < 2 ** 31 and HID * HID < 2 ** 31


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
def pack_bf16(lo, hi):
    """Two fp32 values rounded to bf16 and packed in one 32-bit word, lo in the low half."""
    return cute.arch.inline_ptx("cvt.rn.bf16x2.f32 {$w0}, {$r0}, {$r1};", write_only_types=[U32],
                                read_only_args=[hi, lo])


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
def quantize_expand(dst: cute.Pointer, x: cute.Pointer, amax_bits: cute.Pointer):
    """One thread per 16-element block of a [tokens, 8192] activation: bf16 E2M1[code] * s."""
    b = cute.arch.block_idx()[0] * THREADS + cute.arch.thread_idx()[0]
    gx = cute.make_tensor(x, cute.make_layout((NBLK_X, 2, 8), stride=(16, 8, 1)))
    gd = cute.make_tensor(dst, cute.make_layout((NBLK_X, 2, 8), stride=(16, 8, 1)))
    gm = cute.make_tensor(amax_bits, cute.make_layout(1))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    if b < NBLK_X:
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
    nmax = HID * HID // 16
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
    (K = 8192, both K-contiguous bf16), each 64-wide k tile's fp32 partial added to tot with an fp32 add.
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
    gA = cute.make_tensor(a8, cute.make_layout((TOK, KT, CH, 16), stride=(HID * 2, 128, 16, 1)))
    gB = cute.make_tensor(w8, cute.make_layout((HID, KT, CH, 16), stride=(HID * 2, 128, 16, 1)))
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
def qkv_gemm(q: cute.Pointer, k: cute.Pointer, v: cute.Pointer, xa: cute.Pointer, qw: cute.Pointer,
             kw: cute.Pointer, vw: cute.Pointer, x_amax: cute.Pointer, gd_q: cute.Pointer, gd_k: cute.Pointer,
             gd_v: cute.Pointer):
    m0, n0 = tile_of(QKVN // BN)
    part = cutlass.select_(n0 < HID, I32(0), cutlass.select_(n0 < HID + KV, I32(1), I32(2)))
    c0 = n0 - cutlass.select_(part == 0, I32(0), cutlass.select_(part == 1, I32(HID), I32(HID + KV)))
    w = qw
    gdp = gd_q
    if part == 1:
        w = kw
        gdp = gd_k
    if part == 2:
        w = vw
        gdp = gd_v
    gm = cute.make_tensor(x_amax, cute.make_layout(1))
    gd = cute.make_tensor(gdp, cute.make_layout(1))
    _, x_decode = global_decode_of(bits_float(gm[0]))
    gscale = x_decode * gd[0]
    tot = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    gemm_tile(xa, w, m0, c0, tot)
    if part == 0:
        store_tile(q, HID, m0, c0, tot, gscale)
    if part == 1:
        store_tile(k, KV, m0, c0, tot, gscale)
    if part == 2:
        store_tile(v, KV, m0, c0, tot, gscale)


@cute.kernel
def o_gemm(out: cute.Pointer, aa: cute.Pointer, ow: cute.Pointer, a_amax: cute.Pointer, gd_o: cute.Pointer):
    m0, n0 = tile_of(HID // BN)
    gm = cute.make_tensor(a_amax, cute.make_layout(1))
    gd = cute.make_tensor(gd_o, cute.make_layout(1))
    _, a_decode = global_decode_of(bits_float(gm[0]))
    gscale = a_decode * gd[0]
    tot = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    gemm_tile(aa, ow, m0, n0, tot)
    store_tile(out, HID, m0, n0, tot, gscale)


@cute.kernel
def attention(out: cute.Pointer, out_amax: cute.Pointer, q: cute.Pointer, k: cute.Pointer, v: cute.Pointer,
              cosb: cute.Pointer, sinb: cute.Pointer):
    """The attention core of one (batch, head): 8 warps of 16 query rows, 96 KiB of shared memory holding
    the rotated q and k tiles and v^T as [128][16 chunks][8] bf16 with chunk c of row r at c ^ swz(r)."""
    tid = cute.arch.thread_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    bh = cute.arch.block_idx()[0]
    b = bh // HEADS
    h = bh % HEADS
    kvh = h // (HEADS // KVH)
    g = lane // 4
    qd = lane % 4
    gq = cute.make_tensor(q, cute.make_layout((TOK, HID // 8, 8), stride=(HID, 8, 1)))
    gk = cute.make_tensor(k, cute.make_layout((TOK, KV // 8, 8), stride=(KV, 8, 1)))
    gv = cute.make_tensor(v, cute.make_layout((TOK, KV // 8, 8), stride=(KV, 8, 1)))
    gc = cute.make_tensor(cosb, cute.make_layout((TOK, D // 8, 8), stride=(D, 8, 1)))
    gs = cute.make_tensor(sinb, cute.make_layout((TOK, D // 8, 8), stride=(D, 8, 1)))
    go = cute.make_tensor(out, cute.make_layout((TOK, HID // 2, 2), stride=(HID, 2, 1)))
    base = cute.arch.get_dyn_smem(BF16, alignment=128)
    tl = cute.make_layout((SEQ, D // 8, 8), stride=(D, 8, 1))
    sq = cute.make_tensor(base, tl)
    sk = cute.make_tensor(base + SEQ * D, tl)
    svt = cute.make_tensor(base + 2 * SEQ * D, tl)
    base32 = cute.recast_ptr(base, dtype=U32)
    tl32 = cute.make_layout((SEQ, D // 8, 4), stride=(D // 2, 4, 1))
    sq32 = cute.make_tensor(base32, tl32)
    sk32 = cute.make_tensor(base32 + SEQ * D // 2, tl32)
    svt32 = cute.make_tensor(base32 + SEQ * D, tl32)
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    c128w = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)
    rl = cute.make_layout((5, 8), stride=(8, 1))
    for it in cutlass.range_constexpr(SEQ * (D // 8) // THREADS):
        idx = tid + THREADS * it
        s = idx // (D // 8)
        c = idx % (D // 8)
        tok = b * SEQ + s
        cs = c ^ swz(s)
        # q and k rows: chunk c, its partner chunk c ^ 8 (d -/+ 64), cos, sin
        for which in cutlass.range_constexpr(2):
            rin = cute.make_rmem_tensor(rl, BF16)
            if cutlass.const_expr(which == 0):
                cute.copy(c128, gq[tok, h * (D // 8) + c, None], rin[0, None])
                cute.copy(c128, gq[tok, h * (D // 8) + (c ^ 8), None], rin[1, None])
            else:
                cute.copy(c128, gk[tok, kvh * (D // 8) + c, None], rin[0, None])
                cute.copy(c128, gk[tok, kvh * (D // 8) + (c ^ 8), None], rin[1, None])
            cute.copy(c128, gc[tok, c, None], rin[2, None])
            cute.copy(c128, gs[tok, c, None], rin[3, None])
            for e in cutlass.range_constexpr(8):
                y = rin[1, e].to(F32)
                rot = cutlass.select_(c < 8, -y, y)
                t0 = bf16r(rin[0, e].to(F32) * rin[2, e].to(F32))
                t1 = bf16r(rot * rin[3, e].to(F32))
                rin[4, e] = (t0 + t1).to(BF16)
            if cutlass.const_expr(which == 0):
                cute.copy(c128, rin[4, None], sq[s, cs, None])
            else:
                cute.copy(c128, rin[4, None], sk[s, cs, None])
        # v^T: row d holds feature d of the 128 keys (the B operand of P V, keys contiguous)
        rv = cute.make_rmem_tensor((8,), BF16)
        cute.copy(c128, gv[tok, kvh * (D // 8) + c, None], rv)
        for e in cutlass.range_constexpr(8):
            dd = 8 * c + e
            svt[dd, (s // 8) ^ swz(dd), s % 8] = rv[e]
    cute.arch.sync_threads()
    # Scores: this warp's 16 query rows against the 128 keys; d is k-permuted alike in A and B (chunk
    # 4 G + qd of a row, word 2 hh for k 2 qd.., word 2 hh + 1 for k 2 qd + 8..).
    acc = cute.make_rmem_tensor(cute.make_layout((SEQ // 8, 4), stride=(4, 1)), F32)
    acc.fill(0.0)
    ra = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
    rb = cute.make_rmem_tensor(cute.make_layout((SEQ // 8, 4), stride=(4, 1)), U32)
    xg = swz(g)
    r0 = warp * 16 + g
    for G in cutlass.range_constexpr(D // 32):
        chunk = (4 * G + qd) ^ xg
        cute.copy(c128w, sq32[r0, chunk, None], ra[0, None])
        cute.copy(c128w, sq32[r0 + 8, chunk, None], ra[1, None])
        for n in cutlass.range_constexpr(SEQ // 8):
            cute.copy(c128w, sk32[8 * n + g, chunk, None], rb[n, None])
        for n in cutlass.range_constexpr(SEQ // 8):
            cv = cute.make_tensor(acc.iterator + 4 * n, cute.make_layout((4,), stride=(1,)))
            for hh in cutlass.range_constexpr(2):
                mma_bf16(cv, ra[0, 2 * hh], ra[1, 2 * hh], ra[0, 2 * hh + 1], ra[1, 2 * hh + 1],
                         rb[n, 2 * hh], rb[n, 2 * hh + 1])
    # bf16(score), * scaling rounded to bf16, -inf above the diagonal; softmax per row over the quad in
    # fp32; P rounded to bf16 and packed as A fragments of P V.
    ninf = F32(-float("inf"))
    pa = cute.make_rmem_tensor(cute.make_layout((SEQ // 16, 4), stride=(4, 1)), U32)
    for half in cutlass.range_constexpr(2):
        i = r0 + 8 * half
        mx = ninf
        for n in cutlass.range_constexpr(SEQ // 8):
            for e in cutlass.range_constexpr(2):
                j = 8 * n + 2 * qd + e
                sc = cutlass.select_(j > i, ninf, bf16r(bf16r(acc[n, 2 * half + e]) * F32(SCALING)))
                acc[n, 2 * half + e] = sc
                mx = cute.arch.fmax(mx, sc)
        mx = cute.arch.fmax(mx, cute.arch.shuffle_sync_bfly(mx, 1))
        mx = cute.arch.fmax(mx, cute.arch.shuffle_sync_bfly(mx, 2))
        ssum = F32(0.0)
        for n in cutlass.range_constexpr(SEQ // 8):
            for e in cutlass.range_constexpr(2):
                ex = cute.math.exp(acc[n, 2 * half + e] - mx)
                acc[n, 2 * half + e] = ex
                ssum = ssum + ex
        ssum = ssum + cute.arch.shuffle_sync_bfly(ssum, 1)
        ssum = ssum + cute.arch.shuffle_sync_bfly(ssum, 2)
        for kk in cutlass.range_constexpr(SEQ // 16):
            pa[kk, half] = pack_bf16(acc[2 * kk, 2 * half] / ssum, acc[2 * kk, 2 * half + 1] / ssum)
            pa[kk, 2 + half] = pack_bf16(acc[2 * kk + 1, 2 * half] / ssum, acc[2 * kk + 1, 2 * half + 1] / ssum)
    # P V: B fragments from v^T (keys 16 kk + 2 qd.. in word qd of chunk 2 kk, 16 kk + 2 qd + 8.. of chunk 2 kk + 1)
    o = cute.make_rmem_tensor(cute.make_layout((D // 8, 4), stride=(4, 1)), F32)
    o.fill(0.0)
    for kk in cutlass.range_constexpr(SEQ // 16):
        for nt in cutlass.range_constexpr(D // 8):
            dd = nt * 8 + g
            b0 = svt32[dd, (2 * kk) ^ xg, qd]
            b1 = svt32[dd, (2 * kk + 1) ^ xg, qd]
            cv = cute.make_tensor(o.iterator + 4 * nt, cute.make_layout((4,), stride=(1,)))
            mma_bf16(cv, pa[kk, 0], pa[kk, 1], pa[kk, 2], pa[kk, 3], b0, b1)
    local_max = F32(0.0)
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    for half in cutlass.range_constexpr(2):
        tok = b * SEQ + r0 + 8 * half
        for n in cutlass.range_constexpr(D // 8):
            for e in cutlass.range_constexpr(2):
                xv = o[n, 2 * half + e].to(BF16)
                o2[e] = xv
                xf = xv.to(F32)
                local_max = cute.arch.fmax(local_max, cute.arch.fmax(xf, -xf))
            cute.copy(c32, o2, go[tok, h * (D // 2) + 4 * n + qd, None])
    local_max = cute.arch.warp_reduction_max(local_max)
    if lane == 0:
        cute.arch.atomic_max(out_amax, float_bits(local_max))


MKB_PLAN = """/* mkb:plan
scratch xamax int32[1] zeroed
scratch aamax int32[1] zeroed
scratch xa bf16[batch_size * seq_len * hidden_size]
scratch qw bf16[q_out_features * hidden_size]
scratch kw bf16[kv_out_features * hidden_size]
scratch vw bf16[kv_out_features * hidden_size]
scratch ow bf16[hidden_size * q_out_features]
scratch q16 bf16[batch_size * seq_len * q_out_features]
scratch k16 bf16[batch_size * seq_len * kv_out_features]
scratch v16 bf16[batch_size * seq_len * kv_out_features]
scratch ao bf16[batch_size * seq_len * q_out_features]
launch amax_bf16 grid(1056) block(256) args(xamax, hidden_states)
launch quantize_expand grid(ceil_div(batch_size * seq_len * hidden_size / 16, 256)) block(256) args(xa, hidden_states, xamax)
launch expand_nvfp4 grid(ceil_div(q_out_features * hidden_size / 16, 256)) block(256) args(qw, q_weight_fp4, q_scale, i64(q_out_features * hidden_size / 16))
launch expand_nvfp4 grid(ceil_div(kv_out_features * hidden_size / 16, 256)) block(256) args(kw, k_weight_fp4, k_scale, i64(kv_out_features * hidden_size / 16))
launch expand_nvfp4 grid(ceil_div(kv_out_features * hidden_size / 16, 256)) block(256) args(vw, v_weight_fp4, v_scale, i64(kv_out_features * hidden_size / 16))
launch qkv_gemm grid((batch_size * seq_len / 128) * ((q_out_features + 2 * kv_out_features) / 128)) block(256) shared(98304)
  args(q16, k16, v16, xa, qw, kw, vw, xamax, q_global_decode_scale, k_global_decode_scale, v_global_decode_scale)
launch attention grid(batch_size * num_heads) block(256) shared(98304) args(ao, aamax, q16, k16, v16, cos, sin)
launch quantize_expand grid(ceil_div(batch_size * seq_len * q_out_features / 16, 256)) block(256) args(xa, ao, aamax)
launch expand_nvfp4 grid(ceil_div(hidden_size * q_out_features / 16, 256)) block(256) args(ow, o_weight_fp4, o_scale, i64(hidden_size * q_out_features / 16))
launch o_gemm grid((batch_size * seq_len / 128) * (hidden_size / 128)) block(256) shared(98304)
  args(out, xa, ow, aamax, o_global_decode_scale)
*/"""
