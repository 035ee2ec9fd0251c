"""quantized_attention_scores_qwen3_14b_nvfp4 in CuTe DSL: the algorithm of solutions/cuda.cu.
  1. amax_bf16 (three launches): max |q|, max |k|, max |v| (16-byte loads, butterflies, one atomic max of
     the float's bits per block into zeroed scratch), the global scales of the quantized operands;
  2. scores_softmax, per (batch, head, 64 query rows), 4 warps: the q rows and the head's k rows quantized
     with the reference's fp32 recipe into shared memory as bf16 E2M1[code] * s (exact); the scores on the
     tensor cores; then in registers: * both global decode scales, bf16, * scaling, bf16, + mask, bf16; the
     row's softmax over its quad of threads in fp32 (expf(x - max) / sum), rounded to bf16, stored as
     attn_weights, with max(attn_weights) by atomic max;
  3. attn_pv, per (batch, head, 64 query rows): those rows of attn_weights quantized along the keys, v^T
     quantized along the keys (16 keys of one feature per block), P V on the tensor cores, * both global
     decode scales, bf16.
Shared tiles are rows of 16-byte chunks with chunk c of row r at c ^ swz(r); the MMA operands are read as
16-byte chunks of four 32-bit words (two bf16 each) with A and B k-permuted alike (no ldmatrix), mma
m16n8k16 bf16 as inline PTX. Compile-checked only (no GPU here)."""
import cutlass
import cutlass.cute as cute

BF16 = cutlass.BFloat16
F32 = cutlass.Float32
F8 = cutlass.Float8E4M3FN
U32 = cutlass.Uint32
I32 = cutlass.Int32

BATCH = 64
HEADS = 40
KVH = 8
GROUP = HEADS // KVH
SEQ = 256
D = 128
ROWS = 64            # query rows per CTA
THREADS = 128
SCALING = 0.08838834764831845     # HEAD_DIM ** -0.5 as fp32 (0.088388346f)
FLT_MAX = 3.40282346638528859812e38
SMEM_SCORES = (ROWS + SEQ) * D * 2          # 81920
SMEM_PV = (ROWS * SEQ + D * SEQ) * 2        # 98304
AMAX_GRID = 1056
assert SEQ % ROWS == 0 and ROWS == 16 * (THREADS // 32) and D % 32 == 0 and SEQ % 32 == 0
assert BATCH * HEADS * SEQ * SEQ < 2 ** 31 and BATCH * HEADS * SEQ * D < 2 ** 31


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
def global_scales(amax_bits: cute.Pointer):
    """(encode, decode) from a tensor's max |.|: encode = min(fp32(2688 / amax), FLT_MAX), 1 where that is
    0; decode = fp32(1 / encode)."""
    amax = bits_float(cute.make_tensor(amax_bits, cute.make_layout(1))[0])
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
def quant16(v: cute.Tensor, encode, decode, ro: cute.Tensor):
    """ro (2, 8) bf16 := the 16 fp32 values of v quantized with the reference's recipe, as E2M1[code] * s."""
    m = F32(0.0)
    for e in cutlass.range_constexpr(16):
        m = cute.arch.fmax(m, cute.arch.fmax(v[e], -v[e]))
    sv = cute.make_rmem_tensor((2,), F32)
    sv[0] = cutlass.min(cutlass.max(m * F32(1.0 / 6.0) * encode, F32(-448.0)), F32(448.0))
    sv[1] = F32(0.0)
    s8 = cute.make_rmem_tensor((2,), F8)
    s8.store(sv.load().to(F8))                             # cvt.rn.satfinite.e4m3x2
    sf = s8[0].to(F32)
    enc = cutlass.min(F32(1.0) / (sf * decode), F32(FLT_MAX))
    for e in cutlass.range_constexpr(16):
        y = cutlass.min(cutlass.max(v[e] * enc, F32(-6.0)), F32(6.0))
        ro[e // 8, e % 8] = (e2m1_value(y) * sf).to(BF16)


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
def warp_product(sa: cute.Tensor, sb: cute.Tensor, kchunks: cutlass.Constexpr, ntiles: cutlass.Constexpr,
                 acc: cute.Tensor):
    """acc (ntiles, 4) += rows 16 warp .. 16 warp + 15 of sa times rows 0 .. 8 ntiles - 1 of sb, both
    [rows][kchunks][4 words] (32-bit views of swizzled bf16 tiles, K contiguous). k is permuted alike in A
    and B: thread (g, qd) takes chunk 4 G + qd, word 2 hh for k 2 qd.., word 2 hh + 1 for k 2 qd + 8..."""
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    g = lane // 4
    qd = lane % 4
    xg = swz(g)
    r0 = warp * 16 + g
    c128w = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), U32, num_bits_per_copy=128)
    ra = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
    rb = cute.make_rmem_tensor((4,), U32)
    for G in cutlass.range_constexpr(kchunks // 4):
        chunk = (4 * G + qd) ^ xg
        cute.copy(c128w, sa[r0, chunk, None], ra[0, None])
        cute.copy(c128w, sa[r0 + 8, chunk, None], ra[1, None])
        for n in cutlass.range_constexpr(ntiles):
            cute.copy(c128w, sb[8 * n + g, chunk, None], rb)
            cv = cute.make_tensor(acc.iterator + 4 * n, cute.make_layout((4,), stride=(1,)))
            for hh in cutlass.range_constexpr(2):
                mma_bf16(cv, ra[0, 2 * hh], ra[1, 2 * hh], ra[0, 2 * hh + 1], ra[1, 2 * hh + 1], rb[2 * hh], rb[2 * hh + 1])


@cute.kernel
def amax_bf16(amax_bits: cute.Pointer, x: cute.Pointer, n: cutlass.Int64):
    tid = cute.arch.thread_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    blk = cute.arch.block_idx()[0]
    nchunks = (n // 8).to(I32)
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 8), cute.make_layout(8))
    gx = cute.make_tensor(x, cute.make_layout((BATCH * HEADS * SEQ * D // 8, 8), stride=(8, 1)))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    rx = cute.make_rmem_tensor((8,), BF16)
    m = F32(0.0)
    for i in cutlass.range(blk * 256 + tid, nchunks, AMAX_GRID * 256):
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
def scores_softmax(attn_weights: cute.Pointer, p_amax: cute.Pointer, q: cute.Pointer, k: cute.Pointer,
                   mask: cute.Pointer, amax_q: cute.Pointer, amax_k: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    bid = cute.arch.block_idx()[0]
    bh = bid // (SEQ // ROWS)
    q0 = (bid % (SEQ // ROWS)) * ROWS
    b = bh // HEADS
    h = bh % HEADS
    kvrow0 = (b * KVH + h // GROUP) * SEQ
    enc_q, dec_q = global_scales(amax_q)
    enc_k, dec_k = global_scales(amax_k)
    gq = cute.make_tensor(q, cute.make_layout((BATCH * HEADS * SEQ, D // 16, 2, 8), stride=(D, 16, 8, 1)))
    gk = cute.make_tensor(k, cute.make_layout((BATCH * KVH * SEQ, D // 16, 2, 8), stride=(D, 16, 8, 1)))
    base = cute.arch.get_dyn_smem(BF16, alignment=128)
    sq = cute.make_tensor(base, cute.make_layout((ROWS, D // 8, 8), stride=(D, 8, 1)))
    sk = cute.make_tensor(base + ROWS * D, cute.make_layout((SEQ, D // 8, 8), stride=(D, 8, 1)))
    base32 = cute.recast_ptr(base, dtype=U32)
    sq32 = cute.make_tensor(base32, cute.make_layout((ROWS, D // 8, 4), stride=(D // 2, 4, 1)))
    sk32 = cute.make_tensor(base32 + ROWS * D // 2, cute.make_layout((SEQ, D // 8, 4), stride=(D // 2, 4, 1)))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    rl = cute.make_layout((2, 8), stride=(8, 1))
    for it in cutlass.range_constexpr(ROWS * (D // 16) // THREADS):
        blk = tid + THREADS * it
        r = blk // (D // 16)
        c = blk % (D // 16)
        rx = cute.make_rmem_tensor(rl, BF16)
        cute.copy(c128, gq[bh * SEQ + q0 + r, c, 0, None], rx[0, None])
        cute.copy(c128, gq[bh * SEQ + q0 + r, c, 1, None], rx[1, None])
        v = cute.make_rmem_tensor((16,), F32)
        for e in cutlass.range_constexpr(16):
            v[e] = rx[e // 8, e % 8].to(F32)
        ro = cute.make_rmem_tensor(rl, BF16)
        quant16(v, enc_q, dec_q, ro)
        cute.copy(c128, ro[0, None], sq[r, (2 * c) ^ swz(r), None])
        cute.copy(c128, ro[1, None], sq[r, (2 * c + 1) ^ swz(r), None])
    for it in cutlass.range_constexpr(SEQ * (D // 16) // THREADS):
        blk = tid + THREADS * it
        r = blk // (D // 16)
        c = blk % (D // 16)
        rx = cute.make_rmem_tensor(rl, BF16)
        cute.copy(c128, gk[kvrow0 + r, c, 0, None], rx[0, None])
        cute.copy(c128, gk[kvrow0 + r, c, 1, None], rx[1, None])
        v = cute.make_rmem_tensor((16,), F32)
        for e in cutlass.range_constexpr(16):
            v[e] = rx[e // 8, e % 8].to(F32)
        ro = cute.make_rmem_tensor(rl, BF16)
        quant16(v, enc_k, dec_k, ro)
        cute.copy(c128, ro[0, None], sk[r, (2 * c) ^ swz(r), None])
        cute.copy(c128, ro[1, None], sk[r, (2 * c + 1) ^ swz(r), None])
    cute.arch.sync_threads()
    acc = cute.make_rmem_tensor(cute.make_layout((SEQ // 8, 4), stride=(4, 1)), F32)
    acc.fill(0.0)
    warp_product(sq32, sk32, D // 8, SEQ // 8, acc)
    # Rows i (values 0, 1) and i + 8 (values 2, 3) of this thread; columns 8 n + 2 qd + e.
    g4 = lane // 4
    qd = lane % 4
    gsc = dec_q * dec_k
    gm = cute.make_tensor(mask, cute.make_layout((BATCH * SEQ, SEQ // 2, 2), stride=(SEQ, 2, 1)))
    gw = cute.make_tensor(attn_weights, cute.make_layout((BATCH * HEADS * SEQ, SEQ // 2, 2), stride=(SEQ, 2, 1)))
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    rm = cute.make_rmem_tensor(cute.make_layout((SEQ // 8, 2), stride=(2, 1)), BF16)
    o2 = cute.make_rmem_tensor((2,), BF16)
    local_max = F32(0.0)
    for half in cutlass.range_constexpr(2):
        i = q0 + warp * 16 + g4 + 8 * half
        for n in cutlass.range_constexpr(SEQ // 8):
            cute.copy(c32, gm[b * SEQ + i, 4 * n + qd, None], rm[n, None])
        mx = F32(-float("inf"))
        for n in cutlass.range_constexpr(SEQ // 8):
            for e in cutlass.range_constexpr(2):
                s1 = bf16r(acc[n, 2 * half + e] * gsc)            # .to(bf16) of the fp32 product
                s2 = bf16r(s1 * F32(SCALING))                     # * scaling
                s3 = bf16r(s2 + rm[n, e].to(F32))                 # + attention_mask
                acc[n, 2 * half + e] = s3
                mx = cute.arch.fmax(mx, s3)
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
        for n in cutlass.range_constexpr(SEQ // 8):
            for e in cutlass.range_constexpr(2):
                pv = (acc[n, 2 * half + e] / ssum).to(BF16)
                o2[e] = pv
                local_max = cute.arch.fmax(local_max, pv.to(F32))
            cute.copy(c32, o2, gw[bh * SEQ + i, 4 * n + qd, None])
    local_max = cute.arch.warp_reduction_max(local_max)
    if lane == 0:
        cute.arch.atomic_max(p_amax, float_bits(local_max))


@cute.kernel
def attn_pv(attn_output: cute.Pointer, attn_weights: cute.Pointer, v: cute.Pointer, amax_v: cute.Pointer,
            p_amax: cute.Pointer):
    tid = cute.arch.thread_idx()[0]
    lane = cute.arch.lane_idx()
    warp = cute.arch.warp_idx()
    bid = cute.arch.block_idx()[0]
    bh = bid // (SEQ // ROWS)
    q0 = (bid % (SEQ // ROWS)) * ROWS
    b = bh // HEADS
    h = bh % HEADS
    kvrow0 = (b * KVH + h // GROUP) * SEQ
    enc_p, dec_p = global_scales(p_amax)
    enc_v, dec_v = global_scales(amax_v)
    gp = cute.make_tensor(attn_weights, cute.make_layout((BATCH * HEADS * SEQ, SEQ // 16, 2, 8), stride=(SEQ, 16, 8, 1)))
    gv = cute.make_tensor(v, cute.make_layout((BATCH * KVH * SEQ, D), stride=(D, 1)))
    base = cute.arch.get_dyn_smem(BF16, alignment=128)
    sp = cute.make_tensor(base, cute.make_layout((ROWS, SEQ // 8, 8), stride=(SEQ, 8, 1)))
    svt = cute.make_tensor(base + ROWS * SEQ, cute.make_layout((D, SEQ // 8, 8), stride=(SEQ, 8, 1)))
    base32 = cute.recast_ptr(base, dtype=U32)
    sp32 = cute.make_tensor(base32, cute.make_layout((ROWS, SEQ // 8, 4), stride=(SEQ // 2, 4, 1)))
    svt32 = cute.make_tensor(base32 + ROWS * SEQ // 2, cute.make_layout((D, SEQ // 8, 4), stride=(SEQ // 2, 4, 1)))
    c128 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    rl = cute.make_layout((2, 8), stride=(8, 1))
    for it in cutlass.range_constexpr(ROWS * (SEQ // 16) // THREADS):
        blk = tid + THREADS * it
        r = blk // (SEQ // 16)
        c = blk % (SEQ // 16)
        rx = cute.make_rmem_tensor(rl, BF16)
        cute.copy(c128, gp[bh * SEQ + q0 + r, c, 0, None], rx[0, None])
        cute.copy(c128, gp[bh * SEQ + q0 + r, c, 1, None], rx[1, None])
        x = cute.make_rmem_tensor((16,), F32)
        for e in cutlass.range_constexpr(16):
            x[e] = rx[e // 8, e % 8].to(F32)
        ro = cute.make_rmem_tensor(rl, BF16)
        quant16(x, enc_p, dec_p, ro)
        cute.copy(c128, ro[0, None], sp[r, (2 * c) ^ swz(r), None])
        cute.copy(c128, ro[1, None], sp[r, (2 * c + 1) ^ swz(r), None])
    # v^T of the head: row d holds the 256 keys of feature d; a block is 16 consecutive keys of one feature.
    for it in cutlass.range_constexpr(D * (SEQ // 16) // THREADS):
        blk = tid + THREADS * it
        d = blk % D
        kb = blk // D
        x = cute.make_rmem_tensor((16,), F32)
        for j in cutlass.range_constexpr(16):
            x[j] = gv[kvrow0 + kb * 16 + j, d].to(F32)
        ro = cute.make_rmem_tensor(rl, BF16)
        quant16(x, enc_v, dec_v, ro)
        cute.copy(c128, ro[0, None], svt[d, (2 * kb) ^ swz(d), None])
        cute.copy(c128, ro[1, None], svt[d, (2 * kb + 1) ^ swz(d), None])
    cute.arch.sync_threads()
    acc = cute.make_rmem_tensor(cute.make_layout((D // 8, 4), stride=(4, 1)), F32)
    acc.fill(0.0)
    warp_product(sp32, svt32, SEQ // 8, D // 8, acc)
    g4 = lane // 4
    qd = lane % 4
    gsc = dec_p * dec_v
    go = cute.make_tensor(attn_output, cute.make_layout((BATCH * HEADS * SEQ, D // 2, 2), stride=(D, 2, 1)))
    c32 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=32)
    o2 = cute.make_rmem_tensor((2,), BF16)
    for half in cutlass.range_constexpr(2):
        i = q0 + warp * 16 + g4 + 8 * half
        for n in cutlass.range_constexpr(D // 8):
            for e in cutlass.range_constexpr(2):
                o2[e] = (acc[n, 2 * half + e] * gsc).to(BF16)
            cute.copy(c32, o2, go[bh * SEQ + i, 4 * n + qd, None])


MKB_PLAN = """/* mkb:plan
scratch amax_q int32[1] zeroed
scratch amax_k int32[1] zeroed
scratch amax_v int32[1] zeroed
scratch amax_p int32[1] zeroed
launch amax_bf16 grid(1056) block(256) args(amax_q, query_states, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch amax_bf16 grid(1056) block(256) args(amax_k, key_states, i64(batch_size * num_key_value_heads * seq_len * head_dim))
launch amax_bf16 grid(1056) block(256) args(amax_v, value_states, i64(batch_size * num_key_value_heads * seq_len * head_dim))
launch scores_softmax grid(batch_size * num_attention_heads * (seq_len / 64)) block(128) shared(81920)
  args(attn_weights, amax_p, query_states, key_states, attention_mask, amax_q, amax_k)
launch attn_pv grid(batch_size * num_attention_heads * (seq_len / 64)) block(128) shared(98304)
  args(attn_output, attn_weights, value_states, amax_v, amax_p)
*/"""
