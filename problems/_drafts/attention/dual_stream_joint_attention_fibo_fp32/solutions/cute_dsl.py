"""FIBO joint attention block (#13), fp32, in CuTe DSL: the launches of solutions/cuda.cu, every product on
tensor cores with its 3xTF32 split (big = cvt.rna.tf32(a), small = cvt.rna.tf32(a - big); per 32-deep k
tile and output fragment the chain small*big' (from zero), big*small', big*big' over four k8 steps, then
one fp32 add into the register accumulators). One GEMM core, C = A B^T with A [M, K] rows of stride lda
and B [N, K] rows of stride ldb, 128 x 128 block tiles, 8 warps as 4 (M) x 2 (N) of 32 x 64 (m16n8k8),
BK = 32, 3-stage cp.async ring, shared rows padded to 36 floats, M clamped; cvt.rna.tf32, mma.sync and
cp.async as inline PTX. The cuda solution's one GEMM kernel with a runtime `mode` is three entry points
here, one per epilogue (the same core, the mode a compile-time constant):
  gemm_bias:    C = acc + bias[n]                                   (the AdaLN and q/k/v/text projections)
  gemm_batched: C = alpha * acc, batch z over (z / heads, z % heads) offsets   (scores, probs @ values)
  gemm_gated:   C = res + gate[row / gate_rows][n] * (acc + bias[n]), the fma nvcc contracts it to
                                                                              (the output projection)
The other launches as in the cuda solution: silu_vec (x / (1 + expf(-x))), ln_modulate (one block per
row: sums over 12 values a thread, warp xor trees and 8 warp partials exactly as its block_sum; the
squared deviations summed with fma; rsqrt.approx as rsqrtf; ((x - mean) * rstd) * (1 + scale) + shift
with the final fma), rope_inplace (one thread per row, head and slot j < 64; x1 * c - x2 * s and
x1 * s + x2 * c as fma(x1, c, -(x2 s)) and fma(x1, s, x2 c), the contraction nvcc's fused multiply-add
pass produces for these expressions), transpose_values (32 x 32 tiles through shared memory) and
softmax_1280 (one block per row, the same reductions). expf is computed in Float64 and rounded once
(the DSL's fp32 exp is ex2.approx-based); fp32 fma is written as fma.rn.f32 where the cuda solution's
compiler contracts, and nowhere else (PTX read back). Compile-checked only (no GPU run)."""
import cutlass
import cutlass.cute as cute

B, S, T, D, NH, HD, L, MOD, F = 4, 1024, 256, 3072, 24, 128, 1280, 6 * 3072, 64
F32, F64, I32, I64, U32 = cutlass.Float32, cutlass.Float64, cutlass.Int32, cutlass.Int64, cutlass.Uint32
NEG_INF = float("-inf")

BM, BN, BK, STAGES, THREADS = 128, 128, 32, 3, 256
LD = BK + 4
A_TILE, B_TILE = BM * LD, BN * LD
STAGE = A_TILE + B_TILE
GEMM_SMEM = STAGES * STAGE * 4                      # 110592
MI, NI, KS, GROUP = 2, 8, BK // 8, 2
assert GEMM_SMEM == 110592 and BM * BK // 4 == 4 * THREADS
assert D % 256 == 0 and L % 256 == 0 and L % 32 == 0 and HD % 32 == 0 and B * NH * S * L < 2**31


@cute.jit
def fma_rn(a, b, c):
    return cute.arch.inline_ptx("fma.rn.f32 {$w0}, {$r0}, {$r1}, {$r2};", write_only_types=[F32],
                                read_only_args=[a, b, c])


@cute.jit
def expf(x):
    return F32(cute.math.exp(F64(x)))


@cute.jit
def split_tf32(x):
    """big = cvt.rna.tf32(x), small = cvt.rna.tf32(x - big), as bit patterns."""
    big = cute.arch.inline_ptx("cvt.rna.tf32.f32 {$w0}, {$r0};", write_only_types=[U32], read_only_args=[x])
    rest = x - F32(cute.arch.inline_ptx("mov.b32 {$w0}, {$r0};", write_only_types=[F32], read_only_args=[big]))
    small = cute.arch.inline_ptx("cvt.rna.tf32.f32 {$w0}, {$r0};", write_only_types=[U32], read_only_args=[rest])
    return big, small


@cute.jit
def mma_tf32(d, a0, a1, a2, a3, b0, b1):
    """d (4 fp32 in a register tensor) += A . B: mma.sync m16n8k8 row.col tf32, fp32 accumulate."""
    r0, r1, r2, r3 = cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4, read_only_args=[a0, a1, a2, a3, b0, b1, d[0], d[1], d[2], d[3]])
    d[0] = r0
    d[1] = r1
    d[2] = r2
    d[3] = r3


@cute.jit
def cp_async16(dst_smem, src_gmem):
    cute.arch.inline_ptx("cp.async.cg.shared.global [{$r0}], [{$r1}], 16;",
                         read_only_args=[dst_smem.toint(), src_gmem.toint()])


@cute.jit
def load_stage(a, b, sflat, stage, kt, m0, n0, M, lda, ldb, tid):
    for i in cutlass.range_constexpr(4):
        c = tid + i * THREADS                       # 128 rows x 8 chunks of 4 floats
        row = c // 8
        col = c % 8 * 4
        arow = cutlass.min(m0 + row, M - 1)
        cp_async16(sflat + (stage * STAGE + row * LD + col), a + (arow * lda + kt * BK + col))
    for i in cutlass.range_constexpr(4):
        c = tid + i * THREADS
        row = c // 8
        col = c % 8 * 4
        cp_async16(sflat + (stage * STAGE + A_TILE + row * LD + col), b + ((n0 + row) * ldb + kt * BK + col))


@cute.jit
def gemm_core(a, b, acc, m0, n0, M, K, lda, ldb):
    """acc[mi, ni, e] (this thread's fragments) = the 128 x 128 tile (m0, n0) of A B^T, 3xTF32.
    acc[mi][ni][2h + e] is row m0 + wm + mi*16 + g + 8h, column n0 + wn + ni*8 + 2t + e."""
    tid = cute.arch.thread_idx()[0]
    lane = tid % 32
    warp = tid // 32
    wm = warp // 2 * 32
    wn = warp % 2 * 64
    g = lane // 4
    t = lane % 4
    sflat = cute.arch.get_dyn_smem(F32, alignment=16)
    sm = cute.make_tensor(sflat, cute.make_layout((STAGES, STAGE), stride=(STAGE, 1)))
    abig = cute.make_rmem_tensor(cute.make_layout((MI, KS, 4), stride=(KS * 4, 4, 1)), U32)
    asml = cute.make_rmem_tensor(cute.make_layout((MI, KS, 4), stride=(KS * 4, 4, 1)), U32)
    bbig = cute.make_rmem_tensor(cute.make_layout((GROUP, KS, 2), stride=(KS * 2, 2, 1)), U32)
    bsml = cute.make_rmem_tensor(cute.make_layout((GROUP, KS, 2), stride=(KS * 2, 2, 1)), U32)
    d = cute.make_rmem_tensor(cute.make_layout((GROUP, MI, 4), stride=(MI * 4, 4, 1)), F32)
    acc.fill(0.0)
    KT = K // BK
    for s in cutlass.range_constexpr(STAGES - 1):
        load_stage(a, b, sflat, s, s, m0, n0, M, lda, ldb, tid)
        cute.arch.cp_async_commit_group()
    for kt in cutlass.range(KT):
        cute.arch.cp_async_wait_group(STAGES - 2)   # tile kt has landed (one group committed per iteration)
        cute.arch.sync_threads()                    # for every thread; stage (kt - 1) % STAGES is free again
        nxt = kt + STAGES - 1
        if nxt < KT:
            load_stage(a, b, sflat, nxt % STAGES, nxt, m0, n0, M, lda, ldb, tid)
        cute.arch.cp_async_commit_group()
        st = kt % STAGES
        # A fragments: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
        for mi in cutlass.range_constexpr(MI):
            for ks in cutlass.range_constexpr(KS):
                base = (wm + mi * 16 + g) * LD + ks * 8 + t
                for e in cutlass.range_constexpr(4):
                    bg, sl = split_tf32(sm[st, base + (e % 2) * 8 * LD + (e // 2) * 4])
                    abig[mi, ks, e] = bg
                    asml[mi, ks, e] = sl
        for n2 in cutlass.range_constexpr(0, NI, GROUP):
            # B fragments (k8 x n8): b0 (k = t, n = g), b1 (k = t + 4, n = g)
            for j in cutlass.range_constexpr(GROUP):
                bbase = A_TILE + (wn + (n2 + j) * 8 + g) * LD + t
                for ks in cutlass.range_constexpr(KS):
                    for e in cutlass.range_constexpr(2):
                        bg, sl = split_tf32(sm[st, bbase + ks * 8 + e * 4])
                        bbig[j, ks, e] = bg
                        bsml[j, ks, e] = sl
            d.fill(0.0)
            for ks in cutlass.range_constexpr(KS):
                for j in cutlass.range_constexpr(GROUP):
                    for mi in cutlass.range_constexpr(MI):
                        dv = cute.make_tensor(d.iterator + (j * MI + mi) * 4, cute.make_layout(4))
                        mma_tf32(dv, asml[mi, ks, 0], asml[mi, ks, 1], asml[mi, ks, 2], asml[mi, ks, 3],
                                 bbig[j, ks, 0], bbig[j, ks, 1])
                        mma_tf32(dv, abig[mi, ks, 0], abig[mi, ks, 1], abig[mi, ks, 2], abig[mi, ks, 3],
                                 bsml[j, ks, 0], bsml[j, ks, 1])
                        mma_tf32(dv, abig[mi, ks, 0], abig[mi, ks, 1], abig[mi, ks, 2], abig[mi, ks, 3],
                                 bbig[j, ks, 0], bbig[j, ks, 1])
            for j in cutlass.range_constexpr(GROUP):
                for mi in cutlass.range_constexpr(MI):
                    for e in cutlass.range_constexpr(4):
                        acc[mi, n2 + j, e] = acc[mi, n2 + j, e] + d[j, mi, e]
    cute.arch.cp_async_wait_group(0)


def gptr(addr):
    return cute.make_ptr(F32, addr, cute.AddressSpace.gmem, assumed_align=8)


@cute.jit
def epilogue(acc, c, m0, n0, M, ldc, bias, res, gate, alpha, gate_rows, gate_stride, gate_off,
             MODE: cutlass.Constexpr):
    """mode 0: C = alpha * acc; 1: C = acc + bias[n]; 2: C = res + g[n] * (acc + bias[n]) (as an fma),
    g = gate + (row / gate_rows) * gate_stride + gate_off. Float pairs (8-byte stores)."""
    tid = cute.arch.thread_idx()[0]
    lane = tid % 32
    warp = tid // 32
    wm = warp // 2 * 32
    wn = warp % 2 * 64
    g = lane // 4
    t = lane % 4
    c64 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), F32, num_bits_per_copy=64)
    o2 = cute.make_rmem_tensor((2,), F32)
    r2 = cute.make_rmem_tensor((2,), F32)
    for mi in cutlass.range_constexpr(MI):
        for h in cutlass.range_constexpr(2):
            row = m0 + wm + mi * 16 + g + 8 * h
            if row < M:
                for ni in cutlass.range_constexpr(NI):
                    col = n0 + wn + ni * 8 + 2 * t
                    crow = cute.make_tensor(gptr((c + I64(row) * ldc + col).toint()), cute.make_layout(2))
                    if cutlass.const_expr(MODE == 2):
                        rrow = cute.make_tensor(gptr((res + I64(row) * ldc + col).toint()), cute.make_layout(2))
                        cute.copy(c64, rrow, r2)
                    for e in cutlass.range_constexpr(2):
                        a = acc[mi, ni, 2 * h + e]
                        if cutlass.const_expr(MODE == 0):
                            o2[e] = alpha * a
                        elif cutlass.const_expr(MODE == 1):
                            o2[e] = a + bias[col + e]
                        else:
                            gr = gate[(row // gate_rows) * gate_stride + gate_off + col + e]
                            o2[e] = fma_rn(gr, a + bias[col + e], r2[e])
                    cute.copy(c64, o2, crow)


@cute.kernel
def gemm_bias(a: cute.Pointer, b: cute.Pointer, c: cute.Pointer, bias: cute.Pointer, M: cutlass.Int32,
              K: cutlass.Int32, lda: cutlass.Int32, ldb: cutlass.Int32, ldc: cutlass.Int32):
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    gemm_core(a, b, acc, m0, n0, M, K, lda, ldb)
    gb = cute.make_tensor(bias, cute.make_layout(1 << 30))
    epilogue(acc, c, m0, n0, M, ldc, gb, c, gb, F32(1.0), I32(1), I32(0), I32(0), 1)


@cute.kernel
def gemm_batched(a: cute.Pointer, b: cute.Pointer, c: cute.Pointer, M: cutlass.Int32, K: cutlass.Int32,
                 lda: cutlass.Int32, ldb: cutlass.Int32, ldc: cutlass.Int32, heads: cutlass.Int32,
                 a_s1: cutlass.Int64, a_s2: cutlass.Int64, b_s1: cutlass.Int64, b_s2: cutlass.Int64,
                 c_s1: cutlass.Int64, c_s2: cutlass.Int64, c_off: cutlass.Int64, alpha: cutlass.Float32):
    z = cute.arch.block_idx()[2]
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    za = I64(z // heads)
    zh = I64(z % heads)
    az = a + (za * a_s1 + zh * a_s2)
    bz = b + (za * b_s1 + zh * b_s2)
    cz = c + (za * c_s1 + zh * c_s2 + c_off)
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    gemm_core(az, bz, acc, m0, n0, M, K, lda, ldb)
    epilogue(acc, cz, m0, n0, M, ldc, None, None, None, alpha, I32(1), I32(0), I32(0), 0)


@cute.kernel
def gemm_gated(a: cute.Pointer, b: cute.Pointer, c: cute.Pointer, bias: cute.Pointer, res: cute.Pointer,
               gate: cute.Pointer, M: cutlass.Int32, K: cutlass.Int32, lda: cutlass.Int32, ldb: cutlass.Int32,
               ldc: cutlass.Int32, gate_rows: cutlass.Int32, gate_stride: cutlass.Int32,
               gate_off: cutlass.Int32):
    n0 = cute.arch.block_idx()[0] * BN
    m0 = cute.arch.block_idx()[1] * BM
    acc = cute.make_rmem_tensor(cute.make_layout((MI, NI, 4), stride=(NI * 4, 4, 1)), F32)
    gemm_core(a, b, acc, m0, n0, M, K, lda, ldb)
    gb = cute.make_tensor(bias, cute.make_layout(1 << 30))
    gg = cute.make_tensor(gate, cute.make_layout(1 << 30))
    epilogue(acc, c, m0, n0, M, ldc, gb, res, gg, F32(1.0), gate_rows, gate_stride, gate_off, 2)


# ---- the small kernels -------------------------------------------------------------------------------
@cute.jit
def block_sum(v, red, tid, IS_MAX: cutlass.Constexpr):
    """The cuda solution's block_sum / block_max over 256 threads: xor tree in each warp, the 8 warp
    results through shared memory, the same xor tree over them (lanes 8..31 contribute 0 / -inf)."""
    for o in cutlass.range_constexpr(5):
        if cutlass.const_expr(IS_MAX):
            v = cute.arch.fmax(v, cute.arch.shuffle_sync_bfly(v, 16 >> o))
        else:
            v = v + cute.arch.shuffle_sync_bfly(v, 16 >> o)
    w = tid // 32
    lane = tid % 32
    cute.arch.sync_threads()
    if lane == 0:
        red[w] = v
    cute.arch.sync_threads()
    init = F32(0.0)
    if cutlass.const_expr(IS_MAX):
        init = F32(NEG_INF)
    s = init
    if lane < 8:
        s = red[lane]
    for o in cutlass.range_constexpr(5):
        if cutlass.const_expr(IS_MAX):
            s = cute.arch.fmax(s, cute.arch.shuffle_sync_bfly(s, 16 >> o))
        else:
            s = s + cute.arch.shuffle_sync_bfly(s, 16 >> o)
    return s


@cute.kernel
def silu_vec(out: cute.Pointer, x: cute.Pointer):
    i = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]
    gx = cute.make_tensor(x, cute.make_layout(B * D))
    go = cute.make_tensor(out, cute.make_layout(B * D))
    if i < B * D:
        xv = gx[i]
        go[i] = xv / (F32(1.0) + expf(-xv))


@cute.kernel
def ln_modulate(out: cute.Pointer, x: cute.Pointer, emb: cute.Pointer, eps: cutlass.Float32):
    r = cute.arch.block_idx()[0]
    tid = cute.arch.thread_idx()[0]
    bidx = r // S
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 32), cute.make_layout(32))
    gx = cute.make_tensor(x, cute.make_layout((B * S, D // 256, 256), stride=(D, 256, 1)))
    go = cute.make_tensor(out, cute.make_layout((B * S, D // 256, 256), stride=(D, 256, 1)))
    ge = cute.make_tensor(emb, cute.make_layout((B, 6, D // 256, 256), stride=(MOD, D, 256, 1)))
    v = cute.make_rmem_tensor((D // 256,), F32)
    s = F32(0.0)
    for j in cutlass.range_constexpr(D // 256):
        v[j] = gx[r, j, tid]
        s = s + v[j]
    mean = block_sum(s, red, tid, False) / F32(D)
    q = F32(0.0)
    for j in cutlass.range_constexpr(D // 256):
        dv = v[j] - mean
        q = fma_rn(dv, dv, q)
    rstd = cute.math.rsqrt(block_sum(q, red, tid, False) / F32(D) + eps)
    for j in cutlass.range_constexpr(D // 256):
        shift = ge[bidx, 0, j, tid]
        scale = ge[bidx, 1, j, tid]
        go[r, j, tid] = fma_rn((v[j] - mean) * rstd, F32(1.0) + scale, shift)


@cute.kernel
def rope_inplace(x: cute.Pointer, p0: cute.Pointer, p1: cute.Pointer, p2: cute.Pointer, c0: cute.Pointer,
                 s0: cute.Pointer, c1: cute.Pointer, s1: cute.Pointer, c2: cute.Pointer, s2: cute.Pointer):
    idx = cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]   # < rows * 24 * 64 exactly
    j = idx % F
    h = (idx // F) % NH
    r = idx // (F * NH)
    s = r % S
    gp0 = cute.make_tensor(p0, cute.make_layout(S))
    gp1 = cute.make_tensor(p1, cute.make_layout(S))
    gp2 = cute.make_tensor(p2, cute.make_layout(S))
    tab = cute.make_layout((56, F), stride=(F, 1))
    gc0, gs0 = cute.make_tensor(c0, tab), cute.make_tensor(s0, tab)
    gc1, gs1 = cute.make_tensor(c1, tab), cute.make_tensor(s1, tab)
    gc2, gs2 = cute.make_tensor(c2, tab), cute.make_tensor(s2, tab)
    c = F32(0.0)
    sn = F32(0.0)
    if j < 8:
        pos = gp0[s].to(I32)
        c = gc0[pos, j]
        sn = gs0[pos, j]
    else:
        if j < 36:
            pos = gp1[s].to(I32)
            c = gc1[pos, j]
            sn = gs1[pos, j]
        else:
            pos = gp2[s].to(I32)
            c = gc2[pos, j]
            sn = gs2[pos, j]
    gx = cute.make_tensor(x, cute.make_layout((B * S, NH, 2, F), stride=(D, HD, F, 1)))
    x1 = gx[r, h, 0, j]
    x2 = gx[r, h, 1, j]
    gx[r, h, 0, j] = fma_rn(x1, c, -(x2 * sn))
    gx[r, h, 1, j] = fma_rn(x1, sn, x2 * c)


@cute.kernel
def transpose_values(vt: cute.Pointer, cv: cute.Pointer, v: cute.Pointer):
    tx, ty, _ = cute.arch.thread_idx()
    bx, by, z = cute.arch.block_idx()
    bb = z // NH
    h = z % NH
    l0 = bx * 32
    d0 = by * 32
    tile = cute.make_tensor(cute.arch.alloc_smem(F32, 32 * 33), cute.make_layout((32, 33), stride=(33, 1)))
    gcv = cute.make_tensor(cv, cute.make_layout((B, T, D), stride=(T * D, D, 1)))
    gv = cute.make_tensor(v, cute.make_layout((B, S, D), stride=(S * D, D, 1)))
    gvt = cute.make_tensor(vt, cute.make_layout((B * NH, HD, L), stride=(HD * L, L, 1)))
    for i in cutlass.range_constexpr(4):
        yy = ty + 8 * i
        l = l0 + yy
        dd = d0 + tx
        val = F32(0.0)
        if l < T:
            val = gcv[bb, l, h * HD + dd]
        else:
            val = gv[bb, l - T, h * HD + dd]
        tile[yy, tx] = val
    cute.arch.sync_threads()
    for i in cutlass.range_constexpr(4):
        yy = ty + 8 * i
        gvt[z, d0 + yy, l0 + tx] = tile[tx, yy]


@cute.kernel
def softmax_1280(p: cute.Pointer):
    row = cute.arch.block_idx()[0]
    tid = cute.arch.thread_idx()[0]
    red = cute.make_tensor(cute.arch.alloc_smem(F32, 32), cute.make_layout(32))
    gp = cute.make_tensor(p, cute.make_layout((B * NH * S, L // 256, 256), stride=(L, 256, 1)))
    v = cute.make_rmem_tensor((L // 256,), F32)
    m = F32(NEG_INF)
    for j in cutlass.range_constexpr(L // 256):
        v[j] = gp[row, j, tid]
        m = cute.arch.fmax(m, v[j])
    m = block_sum(m, red, tid, True)
    s = F32(0.0)
    for j in cutlass.range_constexpr(L // 256):
        v[j] = expf(v[j] - m)
        s = s + v[j]
    s = block_sum(s, red, tid, False)
    for j in cutlass.range_constexpr(L // 256):
        gp[row, j, tid] = v[j] / s


MKB_PLAN = """/* mkb:plan
scratch st fp32[batch_size * hidden_size]
scratch emb fp32[batch_size * modulation_dim]
scratch xm fp32[batch_size * seq_len * hidden_size]
scratch q fp32[batch_size * seq_len * hidden_size]
scratch k fp32[batch_size * seq_len * hidden_size]
scratch v fp32[batch_size * seq_len * hidden_size]
scratch ck fp32[batch_size * text_seq_len * hidden_size]
scratch cv fp32[batch_size * text_seq_len * hidden_size]
scratch vt fp32[batch_size * kv_len * hidden_size]
scratch sc fp32[batch_size * num_heads * seq_len * kv_len]
scratch att fp32[batch_size * seq_len * hidden_size]
launch silu_vec grid(ceil_div(batch_size * hidden_size, 256)) block(256) args(st, timestep_embedding)
launch gemm_bias grid(modulation_dim / 128, ceil_div(batch_size, 128)) block(256) shared(110592)
  args(st, adaln_linear_weight, emb, adaln_linear_bias, i32(batch_size), i32(hidden_size), i32(hidden_size),
       i32(hidden_size), i32(modulation_dim))
launch ln_modulate grid(batch_size * seq_len) block(256) args(xm, hidden_states, emb, f32(layer_norm_eps))
launch gemm_bias grid(hidden_size / 128, ceil_div(batch_size * seq_len, 128)) block(256) shared(110592)
  args(xm, to_q_weight, q, to_q_bias, i32(batch_size * seq_len), i32(hidden_size), i32(hidden_size), i32(hidden_size),
       i32(hidden_size))
launch gemm_bias grid(hidden_size / 128, ceil_div(batch_size * seq_len, 128)) block(256) shared(110592)
  args(xm, to_k_weight, k, to_k_bias, i32(batch_size * seq_len), i32(hidden_size), i32(hidden_size), i32(hidden_size),
       i32(hidden_size))
launch gemm_bias grid(hidden_size / 128, ceil_div(batch_size * seq_len, 128)) block(256) shared(110592)
  args(xm, to_v_weight, v, to_v_bias, i32(batch_size * seq_len), i32(hidden_size), i32(hidden_size), i32(hidden_size),
       i32(hidden_size))
launch gemm_bias grid(hidden_size / 128, ceil_div(batch_size * text_seq_len, 128)) block(256) shared(110592)
  args(encoder_hidden_states, to_k_context_weight, ck, to_k_context_bias, i32(batch_size * text_seq_len),
       i32(joint_attention_dim), i32(joint_attention_dim), i32(joint_attention_dim), i32(hidden_size))
launch gemm_bias grid(hidden_size / 128, ceil_div(batch_size * text_seq_len, 128)) block(256) shared(110592)
  args(encoder_hidden_states, to_v_context_weight, cv, to_v_context_bias, i32(batch_size * text_seq_len),
       i32(joint_attention_dim), i32(joint_attention_dim), i32(joint_attention_dim), i32(hidden_size))
launch rope_inplace grid(batch_size * seq_len * num_heads * 64 / 256) block(256)
  args(q, pos_idx_axis0, pos_idx_axis1, pos_idx_axis2, cos_axis0, sin_axis0, cos_axis1, sin_axis1, cos_axis2, sin_axis2)
launch rope_inplace grid(batch_size * seq_len * num_heads * 64 / 256) block(256)
  args(k, pos_idx_axis0, pos_idx_axis1, pos_idx_axis2, cos_axis0, sin_axis0, cos_axis1, sin_axis1, cos_axis2, sin_axis2)
launch transpose_values grid(kv_len / 32, head_dim / 32, batch_size * num_heads) block(32, 8) args(vt, cv, v)
# scores[z = b * 24 + h] = q_bh k_bh^T / sqrt(128): text keys into columns 0..255, image keys into 256..1279
launch gemm_batched grid(text_seq_len / 128, seq_len / 128, batch_size * num_heads) block(256) shared(110592)
  args(q, ck, sc, i32(seq_len), i32(head_dim), i32(hidden_size), i32(hidden_size), i32(kv_len), i32(num_heads),
       i64(seq_len * hidden_size), i64(head_dim), i64(text_seq_len * hidden_size), i64(head_dim),
       i64(num_heads * seq_len * kv_len), i64(seq_len * kv_len), i64(0), f32(0.08838834764831845))
launch gemm_batched grid(seq_len / 128, seq_len / 128, batch_size * num_heads) block(256) shared(110592)
  args(q, k, sc, i32(seq_len), i32(head_dim), i32(hidden_size), i32(hidden_size), i32(kv_len), i32(num_heads),
       i64(seq_len * hidden_size), i64(head_dim), i64(seq_len * hidden_size), i64(head_dim),
       i64(num_heads * seq_len * kv_len), i64(seq_len * kv_len), i64(text_seq_len), f32(0.08838834764831845))
launch softmax_1280 grid(batch_size * num_heads * seq_len) block(256) args(sc)
# attention output [b, s, h * 128 + d] = P_bh [1024 x 1280] @ vt_bh^T
launch gemm_batched grid(head_dim / 128, seq_len / 128, batch_size * num_heads) block(256) shared(110592)
  args(sc, vt, att, i32(seq_len), i32(kv_len), i32(kv_len), i32(kv_len), i32(hidden_size), i32(num_heads),
       i64(num_heads * seq_len * kv_len), i64(seq_len * kv_len), i64(num_heads * head_dim * kv_len),
       i64(head_dim * kv_len), i64(seq_len * hidden_size), i64(head_dim), i64(0), f32(1.0))
# output = hidden_states + gate_msa * (att @ to_out^T + to_out_bias); gate_msa = emb[b, 2D:3D]
launch gemm_gated grid(hidden_size / 128, ceil_div(batch_size * seq_len, 128)) block(256) shared(110592)
  args(att, to_out_weight, output, to_out_bias, hidden_states, emb, i32(batch_size * seq_len), i32(hidden_size),
       i32(hidden_size), i32(hidden_size), i32(hidden_size), i32(seq_len), i32(modulation_dim), i32(2 * hidden_size))
*/"""
