"""Fused SSD diagonal block (Mamba-2, Nemotron Nano) in CuTe DSL: the algorithm of solutions/cuda.cu. One
256-thread block per (head, batch * chunk), everything in dynamic shared memory and registers, bf16 tensor
cores (mma.sync m16n8k16 with fp32 accumulation, as inline PTX).
  1. load C and B of the head's group ([128 x 128] each, 16-byte vectors) and X of the head, transposed
     ([p][s]); warp 0 takes fp32 inclusive prefix sums S of a (4 values a lane in order, then a warp scan);
  2. G = C B^T on tensor cores (bf16 x bf16 products exact in fp32; fp32 sums), warp tiles entirely above the
     diagonal skipped;
  3. M = G * exp(S[l] - S[s]) on and below the diagonal, else 0, stored over C and B as a pair of bf16
     (hi = bf16(M), lo = bf16(M - hi)) so that the second product keeps about 16 bits of M;
  4. Y = hi X + lo X on tensor cores, k-steps past the diagonal skipped; Y rounded to bf16 once.
Warps tile each 128 x 128 product as 4 (rows) x 2 (columns) tiles of 32 x 64.

Fragments (PTX ISA, m16n8k16, g = lane / 4, t = lane % 4): A's four b32 registers hold A(g, 2t..2t+1),
A(g+8, 2t..), A(g, 2t+8..), A(g+8, 2t+8..); B's two hold B(k = 2t.., n = g), B(k = 2t+8.., n = g), read from
an array of B^T; D's four are D(g, 2t), D(g, 2t+1), D(g+8, 2t), D(g+8, 2t+1); the fragment loads read the
bf16 shared arrays through a Uint32 view. exp is computed in Float64 and rounded once to fp32 (the DSL's fp32
exp is an ex2.approx sequence; this is within an ulp of CUDA's expf); pairs are packed by cvt.rn.bf16x2.f32."""
import cutlass
import cutlass.cute as cute

BATCH, NCH, LEN, HEADS, GROUPS, NSTATE, DIM = 16, 1, 128, 32, 8, 128, 128
PAD = 136                             # row pitch in bf16 (272 bytes): fragment loads hit 32 distinct banks
THREADS = 256
SMEM = 3 * LEN * PAD * 2 + LEN * 4
F32, F64, BF16, U32, I32 = cutlass.Float32, cutlass.Float64, cutlass.BFloat16, cutlass.Uint32, cutlass.Int32
assert LEN == 128 and NSTATE == 128 and DIM == 128


def sub_rn(a, b):
    return F32(cute.arch.inline_ptx("sub.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def mul_rn(a, b):
    return F32(cute.arch.inline_ptx("mul.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def exp_f32(x):
    return F32(cute.math.exp(F64(x)))


def cvt2(lo, hi):
    """bf16x2 of two fp32 values, lo in the lower half (the lower address), each rounded to nearest even."""
    return U32(cute.arch.inline_ptx("cvt.rn.bf16x2.f32 {$w0}, {$r0}, {$r1};", write_only_types=[U32],
                                    read_only_args=[F32(hi), F32(lo)]))


def split_lo(v):
    return sub_rn(v, v.to(BF16).to(F32))


def mma(acc, a, b0, b1):
    """acc (a 4-element fp32 register tensor) += A B on mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32."""
    d = cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4, read_only_args=[a[0], a[1], a[2], a[3], b0, b1, acc[0], acc[1], acc[2], acc[3]])
    for i in range(4):
        acc[i] = d[i]


@cute.jit
def warp_gemm(acc, s32, a2: cutlass.Constexpr, bt2: cutlass.Constexpr, r0, c0, k_end, group, tig, a, b):
    """acc[mt, nt, 4] += A[rows r0 + 16 mt ..][k] * Bt[cols c0 + 8 nt ..][k] over k in [0, k_end), both operands
    row-major (pitch PAD) in shared memory with k contiguous, read through the Uint32 view s32 (a2, bt2: the
    arrays' starts in pairs)."""
    for k0 in cutlass.range(0, k_end, 16):
        for mt in cutlass.range_constexpr(2):
            p = a2 + ((r0 + mt * 16 + group) * PAD + k0) // 2 + tig
            a[mt, 0] = s32[p]
            a[mt, 1] = s32[p + 4 * PAD]
            a[mt, 2] = s32[p + 4]
            a[mt, 3] = s32[p + 4 * PAD + 4]
        for nt in cutlass.range_constexpr(8):
            p = bt2 + ((c0 + nt * 8 + group) * PAD + k0) // 2 + tig
            b[nt, 0] = s32[p]
            b[nt, 1] = s32[p + 4]
        for mt in cutlass.range_constexpr(2):
            for nt in cutlass.range_constexpr(8):
                mma(acc[mt, nt, None], a[mt, None], b[nt, 0], b[nt, 1])


@cute.kernel
def ssd_diag(hidden_states: cute.Pointer, a_cumsum: cute.Pointer, B: cute.Pointer, C: cute.Pointer,
             y_diag: cute.Pointer, num_chunks: cutlass.Int32):
    h, bc, _ = cute.arch.block_idx()
    b = bc // NCH
    c = bc % NCH
    g = h // (HEADS // GROUPS)
    tid = cute.arch.thread_idx()[0]
    warp = tid // 32
    lane = tid % 32
    group = lane // 4
    tig = lane % 4

    base = cute.arch.get_dyn_smem(BF16, alignment=16)
    chunks = cute.make_layout((LEN, NSTATE // 8, 8), stride=(PAD, 8, 1))
    sC = cute.make_tensor(base, chunks)                        # C [l][n], later M hi [l][s]
    sB = cute.make_tensor(base + LEN * PAD, chunks)            # B [s][n], later M lo [l][s]
    sX = cute.make_tensor(base + 2 * LEN * PAD, cute.make_layout((DIM, PAD), stride=(PAD, 1)))  # X^T [p][s]
    s32 = cute.make_tensor(cute.recast_ptr(base, dtype=U32), cute.make_layout(3 * LEN * PAD // 2))
    C2, B2, X2 = 0, LEN * PAD // 2, LEN * PAD
    sS = cute.make_tensor(cute.recast_ptr(base + 3 * LEN * PAD, dtype=F32), cute.make_layout(LEN))

    bcrows = cute.make_layout((BATCH * NCH * LEN, GROUPS, NSTATE // 8, 8), stride=(GROUPS * NSTATE, NSTATE, 8, 1))
    gB, gC = cute.make_tensor(B, bcrows), cute.make_tensor(C, bcrows)
    gx = cute.make_tensor(hidden_states, cute.make_layout((BATCH * NCH * LEN, HEADS, DIM // 8, 8),
                                                          stride=(HEADS * DIM, DIM, 8, 1)))
    ga = cute.make_tensor(a_cumsum, cute.make_layout((BATCH * HEADS * NCH, 32, 4), stride=(LEN, 4, 1)))
    gy32 = cute.make_tensor(cute.recast_ptr(y_diag, dtype=U32),
                            cute.make_layout((BATCH * NCH * LEN, HEADS, DIM // 2), stride=(HEADS * DIM // 2, DIM // 2, 1)))
    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    c8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=64)
    raw = cute.make_rmem_tensor((8,), BF16)

    # 1. loads: rows of C and B (16-byte vectors), X transposed (thread = (s, 8 consecutive p))
    for it in cutlass.range(LEN * NSTATE // 8 // THREADS):
        vv = tid + it * THREADS
        row = vv // (NSTATE // 8)
        col8 = vv % (NSTATE // 8)
        cute.copy(c16, gC[bc * LEN + row, g, col8, None], raw)
        cute.copy(c16, raw, sC[row, col8, None])
        cute.copy(c16, gB[bc * LEN + row, g, col8, None], raw)
        cute.copy(c16, raw, sB[row, col8, None])
    for it in cutlass.range(LEN * DIM // 8 // THREADS):
        vv = tid + it * THREADS
        s = vv % LEN
        p0 = (vv // LEN) * 8
        cute.copy(c16, gx[bc * LEN + s, h, p0 // 8, None], raw)
        for j in cutlass.range_constexpr(8):
            sX[p0 + j, s] = raw[j]
    if warp == 0:                     # prefix sums of a over the chunk, fp32, in order: 4 a lane, then a scan
        ra = cute.make_rmem_tensor((4,), BF16)
        cute.copy(c8, ga[(b * HEADS + h) * NCH + c, lane, None], ra)
        v = cute.make_rmem_tensor((4,), F32)
        run = F32(0.0)
        for j in cutlass.range_constexpr(4):
            run = run + ra[j].to(F32)
            v[j] = run
        prefix = run
        for i in cutlass.range_constexpr(5):
            other = F32(cute.arch.shuffle_sync_up(prefix, 1 << i))
            prefix = cutlass.select_(lane >= (1 << i), prefix + other, prefix)
        before = F32(cute.arch.shuffle_sync_up(prefix, 1))
        before = cutlass.select_(lane == 0, F32(0.0), before)
        for j in cutlass.range_constexpr(4):
            sS[lane * 4 + j] = before + v[j]          # S[l] = a[0] + ... + a[l]
    cute.arch.sync_threads()

    r0 = (warp // 2) * 32
    c0 = (warp % 2) * 64
    acc = cute.make_rmem_tensor(cute.make_layout((2, 8, 4), stride=(32, 4, 1)), F32)
    a = cute.make_rmem_tensor(cute.make_layout((2, 4), stride=(4, 1)), U32)
    bq = cute.make_rmem_tensor(cute.make_layout((8, 2), stride=(2, 1)), U32)
    # 2. G = C B^T (tiles entirely above the diagonal are skipped: their M is zero)
    acc.fill(0.0)
    live = c0 <= r0 + 31
    if live:
        warp_gemm(acc, s32, C2, B2, r0, c0, NSTATE, group, tig, a, bq)
    cute.arch.sync_threads()          # every warp is done reading C and B

    # 3. M = G * exp(S[l] - S[s]) for s <= l, else 0; stored as hi + lo bf16 pairs over C and B
    sMh = cute.make_tensor(cute.recast_ptr(base, dtype=U32), cute.make_layout((LEN, PAD // 2), stride=(PAD // 2, 1)))
    sMl = cute.make_tensor(cute.recast_ptr(base + LEN * PAD, dtype=U32),
                           cute.make_layout((LEN, PAD // 2), stride=(PAD // 2, 1)))
    for mt in cutlass.range_constexpr(2):
        for half in cutlass.range_constexpr(2):
            l = r0 + mt * 16 + group + half * 8
            sl = sS[l]
            for nt in cutlass.range_constexpr(8):
                s = c0 + nt * 8 + tig * 2
                m0 = cutlass.select_(s <= l, mul_rn(acc[mt, nt, half * 2], exp_f32(sl - sS[s])), F32(0.0))
                m1 = cutlass.select_(s + 1 <= l, mul_rn(acc[mt, nt, half * 2 + 1], exp_f32(sl - sS[s + 1])), F32(0.0))
                m0 = F32(cutlass.select_(live, m0, F32(0.0)))
                m1 = F32(cutlass.select_(live, m1, F32(0.0)))
                sMh[l, s // 2] = cvt2(m0, m1)
                sMl[l, s // 2] = cvt2(split_lo(m0), split_lo(m1))
    cute.arch.sync_threads()

    # 4. Y = (hi + lo) X: rows r0 .. r0 + 31 need s < r0 + 32 only
    acc.fill(0.0)
    warp_gemm(acc, s32, C2, X2, r0, c0, r0 + 32, group, tig, a, bq)
    warp_gemm(acc, s32, B2, X2, r0, c0, r0 + 32, group, tig, a, bq)
    for mt in cutlass.range_constexpr(2):
        for half in cutlass.range_constexpr(2):
            l = r0 + mt * 16 + group + half * 8
            for nt in cutlass.range_constexpr(8):
                p = c0 + nt * 8 + tig * 2
                gy32[bc * LEN + l, h, p // 2] = cvt2(acc[mt, nt, half * 2], acc[mt, nt, half * 2 + 1])


MKB_PLAN = """/* mkb:plan
launch ssd_diag grid(num_heads, batch_size * num_chunks) block(256) shared(3 * 128 * 136 * 2 + 128 * 4)
  args(hidden_states, a_cumsum, B, C, y_diag, i32(num_chunks))
*/"""
