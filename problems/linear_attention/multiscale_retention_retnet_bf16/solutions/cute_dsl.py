"""Causal multi-scale retention (RetNet) in CuTe DSL: the algorithm of solutions/cuda.cu, one launch on the
tensor cores (mma.sync m16n8k16 bf16 with fp32 accumulation, as inline PTX). One 128-thread block per
(64 query rows, 128 value channels, b * h): 16 x 4 x 64 = 4096 blocks. Warp w owns query rows q0 + 16w .. + 15
and accumulates their 16 x 128 output in registers. For each key tile of 64 keys at or before the query tile
(causal: later tiles are skipped), the block stages K (64 x 256) and V^T (128 x 64) in dynamic shared memory;
each warp computes its 16 x 64 scores S = Q K^T (exact bf16 products, fp32 sums), multiplies by 1/16 (exact)
and the decay exp2((i - j) * s_h) (zero above the diagonal), rounds the weights to bf16 pairs in registers
(the accumulator layout of one product is the operand layout of the next) and accumulates P V. Shared rows
are padded by 8 elements so the 32-bit fragment loads are conflict-free.

Fragments (PTX ISA, m16n8k16, g = lane / 4, t = lane % 4): A regs a0..a3 = A(g, 2t..2t+1), A(g+8, 2t..),
A(g, 2t+8..), A(g+8, 2t+8..); B regs b0, b1 = B(k = 2t..2t+1, n = g), B(k = 2t+8.., n = g); D d0..d3 =
D(g, 2t), D(g, 2t+1), D(g+8, 2t), D(g+8, 2t+1). Rounding: s_h = log2(1 - 2^(-5 - h)) and each decay exp2 are
computed in Float64 and rounded to fp32 once (the reference's log2 / exp2, within an ulp of CUDA's log2f /
exp2f); the decay's argument (i - j) * s_h and the weight (s * scale) * decay are mul.rn products; the
weights and the output are rounded to bf16 once (cvt.rn.bf16x2.f32)."""
import cutlass
import cutlass.cute as cute

BATCH, HEADS, SEQ, K, V = 8, 8, 1024, 256, 512
TQ, TK, COLS, THREADS = 64, 64, 128, 128
QS = K + 8                            # bf16 elements per staged Q / K row
VS = TK + 8                           # bf16 elements per staged V^T row
SMEM = (TQ * QS * 2 + COLS * VS) * 2  # 86016 bytes: the plan's shared(...)
F32, F64, BF16, U32, I32 = cutlass.Float32, cutlass.Float64, cutlass.BFloat16, cutlass.Uint32, cutlass.Int32
assert SEQ % TQ == 0 and TQ == TK and V % COLS == 0 and THREADS == 4 * 32


def mul_rn(a, b):
    return F32(cute.arch.inline_ptx("mul.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def pack_bf16(lo, hi):
    """bf16x2 with lo in the lower half (lower address), each rounded to nearest even."""
    return U32(cute.arch.inline_ptx("cvt.rn.bf16x2.f32 {$w0}, {$r0}, {$r1};", write_only_types=[U32],
                                    read_only_args=[F32(hi), F32(lo)]))


def mma_bf16(d, a, b0, b1):
    """d (4 fp32) += A (4 x b32) B (2 x b32): mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32."""
    return cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4, read_only_args=[a[0], a[1], a[2], a[3], b0, b1, d[0], d[1], d[2], d[3]])


@cute.kernel
def retention_fused(q: cute.Pointer, k: cute.Pointer, v: cute.Pointer, o: cute.Pointer, scale: cutlass.Float32):
    tid = cute.arch.thread_idx()[0]
    warp = tid // 32
    lane = tid % 32
    grp = lane // 4
    quad = lane % 4
    qt, cy, bh = cute.arch.block_idx()
    c0 = cy * COLS
    h = bh % HEADS
    q0 = qt * TQ
    qk_rows = cute.make_layout((BATCH * HEADS, SEQ, K // 8, 8), stride=(SEQ * K, K, 8, 1))
    gq, gk = cute.make_tensor(q, qk_rows), cute.make_tensor(k, qk_rows)
    gv = cute.make_tensor(v, cute.make_layout((BATCH * HEADS, SEQ, V // 8, 8), stride=(SEQ * V, V, 8, 1)))
    # the output as bf16 pairs
    go = cute.make_tensor(cute.recast_ptr(o, dtype=U32),
                          cute.make_layout((BATCH * HEADS, SEQ, V // 2), stride=(SEQ * V // 2, V // 2, 1)))
    # s_h = log2(1 - 2^(-5 - h)): 2^(-5 - h) and the difference are exact in fp32
    s_h = F32(cute.math.log2(F64(F32(1.0) - F32(cute.math.exp2(F64(F32(-5.0) - F32(h)))))))

    base = cute.arch.get_dyn_smem(BF16, alignment=16)
    chunks = cute.make_layout((TQ, K // 8, 8), stride=(QS, 8, 1))       # staged rows as 16-byte chunks
    sQ = cute.make_tensor(base, chunks)
    sK = cute.make_tensor(base + TQ * QS, chunks)
    sV = cute.make_tensor(base + 2 * TQ * QS, cute.make_layout((COLS, TK), stride=(VS, 1)))  # V^T
    # the same memory as 32-bit pairs, for the fragment loads
    base32 = cute.recast_ptr(base, dtype=U32)
    sQ32 = cute.make_tensor(base32, cute.make_layout((TQ, QS // 2), stride=(QS // 2, 1)))
    sK32 = cute.make_tensor(base32 + TQ * QS // 2, cute.make_layout((TK, QS // 2), stride=(QS // 2, 1)))
    sV32 = cute.make_tensor(base32 + TQ * QS, cute.make_layout((COLS, VS // 2), stride=(VS // 2, 1)))

    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    stage = cute.make_rmem_tensor((8,), BF16)
    for i in cutlass.range_constexpr(TQ * K // 8 // THREADS):
        e = tid + i * THREADS
        cute.copy(c16, gq[bh, q0 + e // (K // 8), e % (K // 8), None], stage)
        cute.copy(c16, stage, sQ[e // (K // 8), e % (K // 8), None])

    acc = cute.make_rmem_tensor(cute.make_layout((COLS // 8, 4), stride=(4, 1)), F32)
    acc.fill(0.0)
    s = cute.make_rmem_tensor(cute.make_layout((TK // 8, 4), stride=(4, 1)), F32)
    a = cute.make_rmem_tensor((4,), U32)
    p = cute.make_rmem_tensor(cute.make_layout((TK // 16, 4), stride=(4, 1)), U32)
    row_a = warp * 16 + grp           # this lane's rows in the tile: row_a and row_a + 8
    i0 = q0 + row_a
    i1 = i0 + 8

    for kt in cutlass.range(qt + 1):
        k0 = kt * TK
        cute.arch.sync_threads()      # the previous tile's K and V^T are no longer read (and Q is staged)
        for i in cutlass.range_constexpr(TK * K // 8 // THREADS):
            e = tid + i * THREADS
            cute.copy(c16, gk[bh, k0 + e // (K // 8), e % (K // 8), None], stage)
            cute.copy(c16, stage, sK[e // (K // 8), e % (K // 8), None])
        for i in cutlass.range_constexpr(TK * COLS // 8 // THREADS):
            e = tid + i * THREADS
            r = e // (COLS // 8)      # key r, value channels c .. c + 7
            c = (e % (COLS // 8)) * 8
            cute.copy(c16, gv[bh, k0 + r, (c0 + c) // 8, None], stage)
            for x in cutlass.range_constexpr(8):
                sV[c + x, r] = stage[x]
        cute.arch.sync_threads()

        # S = Q K^T for this warp's 16 rows and the tile's 64 keys: 8 n-tiles of 8 keys
        s.fill(0.0)
        for kc in cutlass.range(K // 16, unroll=4):
            d2 = kc * 8 + quad        # pair index of channel kc * 16 + 2 * quad
            a[0] = sQ32[row_a, d2]
            a[1] = sQ32[row_a + 8, d2]
            a[2] = sQ32[row_a, d2 + 4]
            a[3] = sQ32[row_a + 8, d2 + 4]
            for n in cutlass.range_constexpr(TK // 8):
                r0, r1, r2, r3 = mma_bf16(s[n, None], a, sK32[n * 8 + grp, d2], sK32[n * 8 + grp, d2 + 4])
                s[n, 0] = r0
                s[n, 1] = r1
                s[n, 2] = r2
                s[n, 3] = r3

        # scale, decay and the causal mask, then bf16 operands for P V
        for n in cutlass.range_constexpr(TK // 8):
            j = k0 + n * 8 + quad * 2
            w = cute.make_rmem_tensor((4,), F32)
            for x in cutlass.range_constexpr(4):
                ii = i0 if x < 2 else i1
                jj = j + (x % 2)
                dec = F32(cute.math.exp2(F64(mul_rn(F32(ii - jj), s_h))))
                w[x] = cutlass.select_(jj <= ii, mul_rn(mul_rn(s[n, x], scale), dec), F32(0.0))
            # n-tile n is keys 8n .. 8n + 7: k-chunk n // 2, the low (even n) or high (odd n) half
            p[n // 2, (n % 2) * 2 + 0] = pack_bf16(w[0], w[1])
            p[n // 2, (n % 2) * 2 + 1] = pack_bf16(w[2], w[3])

        # O += P V: 4 k-chunks of 16 keys, 16 n-tiles of 8 value channels
        for kc in cutlass.range_constexpr(TK // 16):
            key2 = kc * 8 + quad
            for n in cutlass.range_constexpr(COLS // 8):
                r0, r1, r2, r3 = mma_bf16(acc[n, None], p[kc, None], sV32[n * 8 + grp, key2],
                                          sV32[n * 8 + grp, key2 + 4])
                acc[n, 0] = r0
                acc[n, 1] = r1
                acc[n, 2] = r2
                acc[n, 3] = r3

    for n in cutlass.range_constexpr(COLS // 8):
        c2 = (c0 + n * 8 + quad * 2) // 2
        go[bh, i0, c2] = pack_bf16(acc[n, 0], acc[n, 1])
        go[bh, i1, c2] = pack_bf16(acc[n, 2], acc[n, 3])


MKB_PLAN = """/* mkb:plan
launch retention_fused grid(seq_len / 64, value_dim / 128, batch_size * num_heads) block(128)
  shared((64 * (key_dim + 8) * 2 + 128 * 72) * 2)
  args(q, k, v, o, f32(scale))
*/"""
