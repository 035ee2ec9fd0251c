"""multimodal_embedding_projection_qwen3vl_nvfp4 in CuTe DSL: the algorithm of solutions/cuda.cu.
  1. act_amax: the vision features' amax (16-byte loads, butterflies, one atomic max of the float's bits
     per block into zeroed scratch);
  2. act_quant: the reference's NVFP4 quantization of each 16-element block (e4m3 block scale from the
     global encode scale 2688 / amax, e2m1 codes by correctly rounded division and round to nearest even),
     stored as the bf16 value E2M1[code] * s8 (exact: at most 6 significant bits); weight_dequant the same
     from the weight's packed codes (element 2i in the low nibble) and scales;
  3. vision_positions: each sequence's masked positions in order (a ballot per warp, warp counts in shared
     memory);
  4. text_rows: the embedding rows of the positions not replaced (16-byte copies);
  5. vision_gemm: the bf16 product on the tensor cores (128 x 128 tiles, 128-byte k tiles through a 4-stage
     cp.async ring, 16-byte shared reads of 4-word chunks, A and B k-permuted alike, mma m16n8k16 bf16 as
     inline PTX on 32-bit words of two bf16), times the two global decode scales, rounded to bf16, the bias
     added and rounded again, each row written at its sequence position.
Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32
F8 = cutlass.Float8E4M3FN
U8 = cutlass.Uint8
U32 = cutlass.Uint32
I32 = cutlass.Int32

BATCH = 32
SEQ = 1024
VT = 384             # vision tokens per sequence
HID = 8192           # output features (N)
VH = 3584            # vision features (K)
VOCAB = 151936
VROWS = BATCH * VT   # 12288 rows of the product
BM = 128
BN = 128
CH = 8
STAGES = 4
THREADS = 256
MI = 4
NI = 4
KB = VH * 2 // 128   # 128-byte k tiles of the bf16 operands: 56
SMEM = STAGES * (BM + BN) * CH * 16     # 131072
assert VROWS % BM == 0 and HID % BN == 0 and (VH * 2) % 128 == 0 and SEQ == 1024
assert BATCH * SEQ * HID < 2 ** 31 and VOCAB * HID < 2 ** 31 and VROWS * VH < 2 ** 31 and HID * VH < 2 ** 31


@cute.jit
def swz(row):
    return ((row & 1) << 2) | ((row >> 1) & 3)


@cute.jit
def float_bits(f):
    return cute.arch.inline_ptx("mov.b32 {$w0}, {$r0};", write_only_types=[I32], read_only_args=[f])


@cute.jit
def bits_float(i):
    return cute.arch.inline_ptx("mov.b32 {$w0}, {$r0};", write_only_types=[F32], read_only_args=[i])


@cute.jit
def encode_of(amax):
    """The global encode scale 2688 / amax (1 when amax is 0)."""
    return cutlass.select_(amax > F32(0.0), F32(2688.0) / amax, F32(1.0))


@cute.jit
def e2m1_value(v):
    """The nearest e2m1 value of v (clamped to +-6), ties to even, as a float (-0 for [-0.25, 0))."""
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
def act_amax(x: cute.Pointer, amax_bits: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    blk = cute.arch.block_idx()[0]
    nchunks = VROWS * VH // 8
    gx = cute.make_tensor(x, cute.make_layout((nchunks, 8), stride=(8, 1)))
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 8), cute.make_layout(8))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    rx = cute.make_rmem_tensor((8,), BF16)
    m = F32(0.0)
    for i in cutlass.range(blk * THREADS + tid, nchunks, 1056 * THREADS):
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
def act_quant(x: cute.Pointer, amax_bits: cute.Pointer, a: cute.Pointer):
    """One thread per 16-element block."""
    b = cute.arch.block_idx()[0] * THREADS + cute.arch.thread_idx()[0]
    nblk = VROWS * VH // 16
    gx = cute.make_tensor(x, cute.make_layout((nblk, 2, 8), stride=(16, 8, 1)))
    ga = cute.make_tensor(a, cute.make_layout((nblk, 2, 8), stride=(16, 8, 1)))
    gm = cute.make_tensor(amax_bits, cute.make_layout(1))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    if b < nblk:
        encode = encode_of(bits_float(gm[0]))
        decode = F32(1.0) / encode
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
        s8.store(sv.load().to(F8))
        sf = s8[0].to(F32)
        d = sf * decode
        ro = cute.make_rmem_tensor(cute.make_layout((2, 8), stride=(8, 1)), BF16)
        for e in cutlass.range_constexpr(16):
            qv = cutlass.min(cutlass.max(v[e] / d, F32(-6.0)), F32(6.0))
            ro[e // 8, e % 8] = (e2m1_value(qv) * sf).to(BF16)
        cute.copy(c128, ro[0, None], ga[b, 0, None])
        cute.copy(c128, ro[1, None], ga[b, 1, None])


@cute.kernel
def weight_dequant(packed: cute.Pointer, scale: cute.Pointer, w: cute.Pointer):
    """One thread per 16-element block of the weight: E2M1[code] * s8 in bf16, [N, K]."""
    b = cute.arch.block_idx()[0] * THREADS + cute.arch.thread_idx()[0]
    nblk = HID * VH // 16
    gp = cute.make_tensor(packed, cute.make_layout((nblk, 8), stride=(8, 1)))
    gs = cute.make_tensor(scale, cute.make_layout((nblk,), stride=(1,)))
    gw = cute.make_tensor(w, cute.make_layout((nblk, 2, 8), stride=(16, 8, 1)))
    c64 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U8, num_bits_per_copy=64)
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    if b < nblk:
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


@cute.kernel
def vision_positions(mask: cute.Pointer, vrow: cute.Pointer, replaced: cute.Pointer):
    """Per sequence (1024 threads, one per position): the rank of each masked position; the first VT are
    replaced: vrow[b, j] their positions in order (-1 past the count), replaced[b, s] = 1 for them."""
    s = cute.arch.thread_idx()[0]
    b = cute.arch.block_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    gm = cute.make_tensor(mask, cute.make_layout((BATCH, SEQ), stride=(SEQ, 1)))
    gv = cute.make_tensor(vrow, cute.make_layout((BATCH, VT), stride=(VT, 1)))
    gr = cute.make_tensor(replaced, cute.make_layout((BATCH, SEQ), stride=(SEQ, 1)))
    counts = cute.make_tensor(cute.arch.alloc_smem(I32, 32), cute.make_layout(32))
    m = gm[b, s] != U8(0)
    ballot = cute.arch.vote_ballot_sync(m)
    if lane == 0:
        counts[warp] = cute.arch.inline_ptx("popc.b32 {$w0}, {$r0};", write_only_types=[I32], read_only_args=[ballot])
    lower = ballot & ((U32(1) << lane.to(U32)) - U32(1))
    before = cute.arch.inline_ptx("popc.b32 {$w0}, {$r0};", write_only_types=[I32], read_only_args=[lower])
    if s < VT:
        gv[b, s] = I32(-1)
    cute.arch.sync_threads()
    for w in cutlass.range(warp):
        before = before + counts[w]
    take = m & (before < VT)
    if take:
        gv[b, before] = s
    gr[b, s] = cutlass.select_(take, U8(1), U8(0))


@cute.kernel
def text_rows(ids: cute.Pointer, table: cute.Pointer, replaced: cute.Pointer, out: cute.Pointer):
    """One block per position: output[t] = table[ids[t]] unless the position is replaced."""
    tid = cute.arch.thread_idx()[0]
    t = cute.arch.block_idx()[0]
    gi = cute.make_tensor(ids, cute.make_layout((BATCH * SEQ,), stride=(1,)))
    gr = cute.make_tensor(replaced, cute.make_layout((BATCH * SEQ,), stride=(1,)))
    go = cute.make_tensor(out, cute.make_layout((BATCH * SEQ, HID // 8, 8), stride=(HID, 8, 1)))
    gt = cute.make_tensor(table, cute.make_layout((VOCAB, HID // 8, 8), stride=(HID, 8, 1)))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    if gr[t] == U8(0):
        id_ = gi[t]
        rv = cute.make_rmem_tensor(cute.make_layout((HID // 8 // THREADS, 8), stride=(8, 1)), BF16)
        for i in cutlass.range_constexpr(HID // 8 // THREADS):
            cute.copy(c128, gt[id_, tid + THREADS * i, None], rv[i, None])
        for i in cutlass.range_constexpr(HID // 8 // THREADS):
            cute.copy(c128, rv[i, None], go[t, tid + THREADS * i, None])


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


@cute.kernel
def vision_gemm(a: cute.Pointer, w: cute.Pointer, amax_bits: cute.Pointer, weight_decode: cute.Pointer,
                bias: cute.Pointer, vrow: cute.Pointer, out: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    nb = cute.arch.block_idx()[0]
    m0 = cute.arch.block_idx()[1] * BM
    n0 = nb * BN
    lane = tid % 32
    warp = tid // 32
    g = lane // 4
    q = lane % 4
    wm = warp // 4
    wn = warp % 4
    a8 = cute.recast_ptr(a, dtype=U8)
    w8 = cute.recast_ptr(w, dtype=U8)
    gA = cute.make_tensor(a8, cute.make_layout((VROWS, KB, CH, 16), stride=(VH * 2, 128, 16, 1)))
    gB = cute.make_tensor(w8, cute.make_layout((HID, KB, CH, 16), stride=(VH * 2, 128, 16, 1)))
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
    acc.fill(0.0)
    ra = cute.make_rmem_tensor(cute.make_layout((MI, 2, 4), stride=(8, 4, 1)), U32)
    rb = cute.make_rmem_tensor(cute.make_layout((NI, 4), stride=(4, 1)), U32)
    for s in cutlass.range_constexpr(STAGES - 1):
        for i in cutlass.range_constexpr(BM // (THREADS // CH)):
            r = lr0 + i * (THREADS // CH)
            cute.copy(cpa, gA[m0 + r, s, lc, None], sA[s, r, lcs, None])
            cute.copy(cpa, gB[n0 + r, s, lc, None], sB[s, r, lcs, None])
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KB):
        cute.arch.cp_async_wait_group(STAGES - 2)
        cute.arch.sync_threads()
        nxt = kt + (STAGES - 1)
        if nxt < KB:
            slot_n = nxt % STAGES
            for i in cutlass.range_constexpr(BM // (THREADS // CH)):
                r = lr0 + i * (THREADS // CH)
                cute.copy(cpa, gA[m0 + r, nxt, lc, None], sA[slot_n, r, lcs, None])
                cute.copy(cpa, gB[n0 + r, nxt, lc, None], sB[slot_n, r, lcs, None])
        cute.arch.cp_async_commit_group()
        slot = kt % STAGES
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
                    cv = cute.make_tensor(acc.iterator + (i * NI + j) * 4, cute.make_layout((4,), stride=(1,)))
                    for h in cutlass.range_constexpr(2):
                        mma_bf16(cv, ra[i, 0, 2 * h], ra[i, 1, 2 * h], ra[i, 0, 2 * h + 1], ra[i, 1, 2 * h + 1],
                                 rb[j, 2 * h], rb[j, 2 * h + 1])
    cute.arch.cp_async_wait_group(0)
    gm = cute.make_tensor(amax_bits, cute.make_layout(1))
    gd = cute.make_tensor(weight_decode, cute.make_layout(1))
    scale = (F32(1.0) / encode_of(bits_float(gm[0]))) * gd[0]
    gb = cute.make_tensor(bias, cute.make_layout((HID // 2, 2), stride=(2, 1)))
    gv = cute.make_tensor(vrow, cute.make_layout((VROWS,), stride=(1,)))
    go = cute.make_tensor(out, cute.make_layout((BATCH, SEQ, HID // 2, 2), stride=(SEQ * HID, HID, 2, 1)))
    o2 = cute.make_rmem_tensor((2,), BF16)
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    for i in cutlass.range_constexpr(MI):
        for hr in cutlass.range_constexpr(2):
            r = m0 + wm * 64 + i * 16 + g + 8 * hr
            pos = gv[r]
            if pos >= 0:
                for j in cutlass.range_constexpr(NI):
                    cp = (n0 + wn * 32 + j * 8) // 2 + q
                    for e in cutlass.range_constexpr(2):
                        y = (acc[i, j, 2 * hr + e] * scale).to(BF16).to(F32)
                        o2[e] = (y + gb[cp, e].to(F32)).to(BF16)
                    cute.copy(c32, o2, go[r // VT, pos, cp, None])


MKB_PLAN = """/* mkb:plan
scratch amax_bits int32[1] zeroed
scratch a_bf16 bf16[batch_size * num_vision_tokens * vision_hidden_size]
scratch w_bf16 bf16[hidden_size * vision_hidden_size]
scratch vrow int32[batch_size * num_vision_tokens]
scratch replaced uint8[batch_size * seq_len]
launch act_amax grid(1056) block(256) args(vision_features, amax_bits)
launch act_quant grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 16, 256)) block(256)
  args(vision_features, amax_bits, a_bf16)
launch weight_dequant grid(ceil_div(hidden_size * vision_hidden_size / 16, 256)) block(256)
  args(vision_proj_weight_fp4, vision_proj_weight_scale, w_bf16)
launch vision_positions grid(batch_size) block(1024) args(vision_token_mask, vrow, replaced)
launch text_rows grid(batch_size * seq_len) block(256) args(input_ids, embed_weight, replaced, output)
launch vision_gemm grid(hidden_size / 128, batch_size * num_vision_tokens / 128) block(256) shared(131072)
  args(a_bf16, w_bf16, amax_bits, vision_proj_global_decode, vision_proj_bias, vrow, output)
*/"""
