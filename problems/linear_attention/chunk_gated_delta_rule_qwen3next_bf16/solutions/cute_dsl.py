"""Chunked gated delta rule (Qwen3-Next; reference.md's semantics) in CuTe DSL: the algorithm of
solutions/cuda.cu, three launches, the products on bf16 tensor cores (mma.sync m16n8k16 with fp32
accumulation, written as inline PTX). fp32 operands are split into bf16 pairs (hi = bf16(v),
lo = bf16(v - hi)); a product of two split operands takes hi*hi + hi*lo + lo*hi.
  l2norm_rows      q and k normalized in fp32 (a warp per row of 128, rsqrt of the sum of squares + 1e-6),
                   rounded to bf16 once.
  chunk_prepare    per (chunk, value head, batch): K K^T and Q K^T (exact bf16 products);
                   L = -beta_i (k_i . k_j) exp(G_i - G_j) below the diagonal; T = (I - L)^-1 by forward
                   substitution in shared memory (the reference's row loop); W = T diag(beta e^g) K,
                   U = T diag(beta) V; the decay-masked Q K^T * scale ("intra"); (e^(g_last - g) K)^T.
  chunk_recurrence per (64 value dims, value head, batch): the [128, 64] slice of the state stays in
                   registers across the 4 chunks; per chunk v_new = U - W S, out = e^g scale (q S) +
                   intra v_new, S = e^(g_last) S + (e^(g_last - g) k)^T v_new.
Value head v reads key head v % 4.

Fragments (PTX ISA, m16n8k16, g = lane / 4, q = lane % 4): A's four b32 registers hold A(g, 2q..2q+1),
A(g+8, 2q..), A(g, 2q+8..), A(g+8, 2q+8..); B's two hold B(k = 2q..2q+1, n = g), B(k = 2q+8.., n = g), read
from an array of B^T; D's four are D(g, 2q), D(g, 2q+1), D(g+8, 2q), D(g+8, 2q+1). The 32-bit fragment
loads read bf16 arrays through Uint32 views (every element offset is even). exp is computed in Float64 and
rounded once to fp32 (the DSL's fp32 exp is an ex2.approx sequence; this is within an ulp of CUDA's expf);
rsqrt is rsqrt.approx.f32, as CUDA's rsqrtf. Sums of products the cuda solution contracts (the sum of
squares, the substitution's inner sum) are fma.rn; other products are mul.rn."""
import cutlass
import cutlass.cute as cute

B, HK, HV, S, D, L = 16, 4, 16, 256, 128, 64
C = S // L
P128, P64 = D + 8, L + 8              # padded pitches of the staged bf16 rows
ROWS = B * HK * S                     # rows of q (and of k)
PREP_SMEM = 2 * D * P64 * 2 + (L * (L + 1) + 5 * L) * 4
REC_SMEM = 2 * 64 * P128 * 2 + 2 * 64 * P64 * 2
F32, F64, BF16, U32, I32 = cutlass.Float32, cutlass.Float64, cutlass.BFloat16, cutlass.Uint32, cutlass.Int32
assert S % L == 0 and D == 128 and L == 64


def sub_rn(a, b):
    return F32(cute.arch.inline_ptx("sub.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def mul_rn(a, b):
    return F32(cute.arch.inline_ptx("mul.rn.f32 {$w0}, {$r0}, {$r1};", write_only_types=[F32], read_only_args=[a, b]))


def fma_rn(a, b, c):
    return F32(cute.arch.inline_ptx("fma.rn.f32 {$w0}, {$r0}, {$r1}, {$r2};", write_only_types=[F32],
                                    read_only_args=[a, b, c]))


def exp_f32(x):
    return F32(cute.math.exp(F64(x)))


def cvt2(lo, hi):
    """bf16x2 of two fp32 values, lo in the lower half (the lower address), each rounded to nearest even."""
    return U32(cute.arch.inline_ptx("cvt.rn.bf16x2.f32 {$w0}, {$r0}, {$r1};", write_only_types=[U32],
                                    read_only_args=[F32(hi), F32(lo)]))


def split_lo(v):
    """lo = bf16(v - bf16(v))."""
    return sub_rn(v, v.to(BF16).to(F32))


def mma(acc, a, b0, b1):
    """acc (a 4-element fp32 register tensor) += A B on mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32."""
    d = cute.arch.inline_ptx(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{$w0}, {$w1}, {$w2}, {$w3}}, "
        "{{$r0}, {$r1}, {$r2}, {$r3}}, {{$r4}, {$r5}}, {{$r6}, {$r7}, {$r8}, {$r9}};",
        write_only_types=[F32] * 4, read_only_args=[a[0], a[1], a[2], a[3], b0, b1, acc[0], acc[1], acc[2], acc[3]])
    for i in range(4):
        acc[i] = d[i]


def load_a(a, A32, base2, ld, r, k0, g, q):
    """A fragment (16 x 16 at row r, k k0) of a row-major bf16 array of pitch ld, read as pairs from A32
    (a Uint32 view; base2 is the array's start in pairs)."""
    p = base2 + ((r + g) * ld + k0) // 2 + q
    a[0] = A32[p]
    a[1] = A32[p + 4 * ld]
    a[2] = A32[p + 4]
    a[3] = A32[p + 4 * ld + 4]


def b_pair(Bt32, base2, ld, c, k0, g, q):
    """B fragment (16 x 8 at k k0, column c) of an array holding B^T row-major ([column][k], pitch ld)."""
    p = base2 + ((c + g) * ld + k0) // 2 + q
    return Bt32[p], Bt32[p + 4]


def flat32(ptr, n):
    return cute.make_tensor(cute.recast_ptr(ptr, dtype=U32), cute.make_layout(n // 2))


# ---- q, k normalized: a warp per row of 128 ------------------------------------------------------------------
def l2norm_row(src, dst, row, lane):
    c8 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=64)
    rows = cute.make_layout((ROWS, 32, 4), stride=(D, 4, 1))
    gx, gy = cute.make_tensor(src, rows), cute.make_tensor(dst, rows)
    rx = cute.make_rmem_tensor((4,), BF16)
    cute.copy(c8, gx[row, lane, None], rx)
    v = rx.load().to(F32)
    ss = mul_rn(v[0], v[0])
    for j in range(1, 4):
        ss = fma_rn(v[j], v[j], ss)
    for i in range(5):
        ss = ss + F32(cute.arch.shuffle_sync_bfly(ss, 16 >> i))
    inv = cute.math.rsqrt(ss + F32(1e-6))
    ry = cute.make_rmem_tensor((4,), BF16)
    for j in range(4):
        ry[j] = mul_rn(v[j], inv).to(BF16)
    cute.copy(c8, ry, gy[row, lane, None])


@cute.kernel
def l2norm_rows(query: cute.Pointer, key: cute.Pointer, qn: cute.Pointer, kn: cute.Pointer, rows: cutlass.Int32):
    warp = (cute.arch.block_idx()[0] * 256 + cute.arch.thread_idx()[0]) // 32
    lane = cute.arch.lane_idx()
    if warp < rows:
        l2norm_row(query, qn, warp, lane)
    elif warp < 2 * rows:
        l2norm_row(key, kn, warp - rows, lane)


# ---- per chunk: the triangular solve and the chunk-local products --------------------------------------------
@cute.kernel
def chunk_prepare(qn: cute.Pointer, kn: cute.Pointer, value: cute.Pointer, g: cute.Pointer, beta: cute.Pointer,
                  scale: cutlass.Float32, w_hi: cute.Pointer, w_lo: cute.Pointer, u_out: cute.Pointer,
                  intra_hi: cute.Pointer, intra_lo: cute.Pointer, kd_hi: cute.Pointer, kd_lo: cute.Pointer):
    c, hv, b = cute.arch.block_idx()
    hk = hv % HK
    tid = cute.arch.thread_idx()[0]
    warp = tid // 32
    lane = tid % 32
    gq = lane // 4
    q = lane % 4
    kq_row0 = (b * HK + hk) * S + c * L       # first row of the chunk in qn / kn
    v_row0 = (b * HV + hv) * S + c * L        # in value, g, beta
    blk = (b * HV + hv) * C + c               # this chunk's slot in the outputs

    base = cute.arch.get_dyn_smem(BF16, alignment=16)
    sKt = cute.make_tensor(base, cute.make_layout((D, P64), stride=(P64, 1)))           # k^T: [dk][t]
    sVt = cute.make_tensor(base + D * P64, cute.make_layout((D, P64), stride=(P64, 1)))  # v^T: [dv][t]
    sKt32 = cute.make_tensor(cute.recast_ptr(base, dtype=U32), cute.make_layout(D * P64))  # both, as pairs
    fbase = cute.recast_ptr(base + 2 * D * P64, dtype=F32)
    sX = cute.make_tensor(fbase, cute.make_layout((L, L + 1), stride=(L + 1, 1)))        # L, then X = T - I
    sRow = cute.make_tensor(fbase + L * (L + 1), cute.make_layout(L))
    sCum = cute.make_tensor(fbase + L * (L + 1) + L, cute.make_layout(L))
    sBeta = cute.make_tensor(fbase + L * (L + 1) + 2 * L, cute.make_layout(L))
    sGexp = cute.make_tensor(fbase + L * (L + 1) + 3 * L, cute.make_layout(L))
    sToLast = cute.make_tensor(fbase + L * (L + 1) + 4 * L, cute.make_layout(L))

    gkn = cute.make_tensor(kn, cute.make_layout((ROWS, D // 8, 8), stride=(D, 8, 1)))
    gval = cute.make_tensor(value, cute.make_layout((B * HV * S, D // 8, 8), stride=(D, 8, 1)))
    gg = cute.make_tensor(g, cute.make_layout(B * HV * S))
    gbeta = cute.make_tensor(beta, cute.make_layout(B * HV * S))
    qn32 = flat32(qn, ROWS * D)
    kn32 = flat32(kn, ROWS * D)
    wh32, wl32 = flat32(w_hi, B * HV * S * D), flat32(w_lo, B * HV * S * D)
    ih32, il32 = flat32(intra_hi, B * HV * S * L), flat32(intra_lo, B * HV * S * L)
    gu = cute.make_tensor(u_out, cute.make_layout(B * HV * S * D))
    gkdh = cute.make_tensor(kd_hi, cute.make_layout(B * HV * S * D))
    gkdl = cute.make_tensor(kd_lo, cute.make_layout(B * HV * S * D))

    c16 = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), BF16, num_bits_per_copy=128)
    kraw = cute.make_rmem_tensor((8,), BF16)
    vraw = cute.make_rmem_tensor((8,), BF16)
    for it in cutlass.range_constexpr(L * D // 8 // 128):   # thread: token t, 8 consecutive dims
        vv = tid + it * 128
        t = vv % L
        d0 = (vv // L) * 8
        cute.copy(c16, gkn[kq_row0 + t, d0 // 8, None], kraw)
        cute.copy(c16, gval[v_row0 + t, d0 // 8, None], vraw)
        for j in cutlass.range_constexpr(8):
            sKt[d0 + j, t] = kraw[j]
            sVt[d0 + j, t] = vraw[j]
    if warp == 0:                     # G = cumsum(g) in the chunk: two tokens a lane, then across lanes
        g0 = gg[v_row0 + 2 * lane].to(F32)
        g1 = gg[v_row0 + 2 * lane + 1].to(F32)
        prefix = g0 + g1
        for i in cutlass.range_constexpr(5):
            other = F32(cute.arch.shuffle_sync_up(prefix, 1 << i))
            prefix = cutlass.select_(lane >= (1 << i), prefix + other, prefix)
        before = F32(cute.arch.shuffle_sync_up(prefix, 1))
        before = cutlass.select_(lane == 0, F32(0.0), before)
        sCum[2 * lane] = before + g0
        sCum[2 * lane + 1] = (before + g0) + g1
        last = gg[v_row0 + L - 1].to(F32)
        for e in cutlass.range_constexpr(2):
            t = 2 * lane + e
            gt = gg[v_row0 + t].to(F32)
            sBeta[t] = gbeta[v_row0 + t].to(F32)
            sGexp[t] = exp_f32(gt)
            sToLast[t] = exp_f32(last - gt)
    cute.arch.sync_threads()

    r0 = warp * 16                    # this warp's 16 rows of the 64
    a = cute.make_rmem_tensor((4,), U32)
    al = cute.make_rmem_tensor((4,), U32)
    # K K^T -> L (strictly lower), Q K^T -> intra (lower, diagonal included)
    for which in cutlass.range_constexpr(2):
        A32 = qn32 if which == 1 else kn32
        acc = cute.make_rmem_tensor(cute.make_layout((8, 4), stride=(4, 1)), F32)
        acc.fill(0.0)
        for k0 in cutlass.range(0, D, 16):
            load_a(a, A32, kq_row0 * (D // 2), D, r0, k0, gq, q)
            for j in cutlass.range_constexpr(8):
                b0, b1 = b_pair(kn32, kq_row0 * (D // 2), D, j * 8, k0, gq, q)
                mma(acc[j, None], a, b0, b1)
        for j in cutlass.range_constexpr(8):
            for half in cutlass.range_constexpr(2):
                i = r0 + gq + half * 8
                col = j * 8 + q * 2
                v = cute.make_rmem_tensor((2,), F32)
                for e in cutlass.range_constexpr(2):
                    jj = col + e
                    decay = exp_f32(sCum[i] - sCum[jj])
                    if cutlass.const_expr(which == 0):
                        v[e] = cutlass.select_(jj < i, mul_rn(mul_rn(F32(0.0) - sBeta[i], acc[j, half * 2 + e]), decay),
                                               F32(0.0))
                    else:
                        v[e] = cutlass.select_(jj <= i, mul_rn(mul_rn(scale, acc[j, half * 2 + e]), decay), F32(0.0))
                if cutlass.const_expr(which == 0):
                    sX[i, col] = v[0]
                    sX[i, col + 1] = v[1]
                else:
                    at2 = ((blk * L + i) * L + col) // 2
                    ih32[at2] = cvt2(v[0], v[1])
                    il32[at2] = cvt2(split_lo(v[0]), split_lo(v[1]))
    cute.arch.sync_threads()

    # forward substitution: X[i, :i] = L[i, :i] + L[i, :i] X[:i, :i], rows in order (row 0 of L is zero)
    for i in cutlass.range(1, L):
        if tid < i:
            sRow[tid] = sX[i, tid]
        cute.arch.sync_threads()
        if tid < i:
            accx = sRow[tid]
            for kx in cutlass.range(tid + 1, i):
                accx = fma_rn(sRow[kx], sX[kx, tid], accx)
            sX[i, tid] = accx
        cute.arch.sync_threads()

    # W = T diag(beta e^g) K  and  U = T diag(beta) V, T = I + X
    for which in cutlass.range_constexpr(2):
        bt_base2 = (D * P64 // 2) if which == 1 else 0       # sVt or sKt, in pairs
        acc = cute.make_rmem_tensor(cute.make_layout((16, 4), stride=(4, 1)), F32)
        acc.fill(0.0)
        for kk in cutlass.range_constexpr(4):
            for reg in cutlass.range_constexpr(4):
                i = r0 + gq + (reg & 1) * 8
                j0 = kk * 16 + q * 2 + (reg >> 1) * 8
                tv = cute.make_rmem_tensor((2,), F32)
                for e in cutlass.range_constexpr(2):
                    j = j0 + e
                    tij = cutlass.select_(i == j, F32(1.0), cutlass.select_(j < i, sX[i, j], F32(0.0)))
                    x = mul_rn(tij, sBeta[j])
                    if cutlass.const_expr(which == 0):
                        x = mul_rn(x, sGexp[j])
                    tv[e] = x
                a[reg] = cvt2(tv[0], tv[1])
                al[reg] = cvt2(split_lo(tv[0]), split_lo(tv[1]))
            for n in cutlass.range_constexpr(16):
                b0, b1 = b_pair(sKt32, bt_base2, P64, n * 8, kk * 16, gq, q)
                mma(acc[n, None], a, b0, b1)
                mma(acc[n, None], al, b0, b1)
        for n in cutlass.range_constexpr(16):
            for half in cutlass.range_constexpr(2):
                i = r0 + gq + half * 8
                d = n * 8 + q * 2
                at = (blk * L + i) * D + d
                if cutlass.const_expr(which == 1):
                    gu[at] = acc[n, half * 2]
                    gu[at + 1] = acc[n, half * 2 + 1]
                else:
                    wh32[at // 2] = cvt2(acc[n, half * 2], acc[n, half * 2 + 1])
                    wl32[at // 2] = cvt2(split_lo(acc[n, half * 2]), split_lo(acc[n, half * 2 + 1]))

    # (e^(g_last - g_t) k_t)^T as [dk][t]
    for it in cutlass.range(D * L // 128):
        ek = tid + it * 128
        dk = ek // L
        tk = ek % L
        xk = mul_rn(sKt[dk, tk].to(F32), sToLast[tk])
        gkdh[blk * D * L + ek] = xk.to(BF16)
        gkdl[blk * D * L + ek] = split_lo(xk).to(BF16)


# ---- the recurrence over the chunks, 64 value dims per block -------------------------------------------------
@cute.kernel
def chunk_recurrence(qn: cute.Pointer, g: cute.Pointer, scale: cutlass.Float32, w_hi: cute.Pointer,
                     w_lo: cute.Pointer, u_in: cute.Pointer, intra_hi: cute.Pointer, intra_lo: cute.Pointer,
                     kd_hi: cute.Pointer, kd_lo: cute.Pointer, output: cute.Pointer):
    bx, hv, b = cute.arch.block_idx()
    dv0 = bx * 64
    hk = hv % HK
    tid = cute.arch.thread_idx()[0]
    warp = tid // 32
    lane = tid % 32
    gq = lane // 4
    q = lane % 4
    row0 = (warp % 4) * 16            # tiles of the [64 t, 64 dv] products
    col0 = (warp // 4) * 32

    base = cute.arch.get_dyn_smem(BF16, alignment=16)
    sSh = cute.make_tensor(base, cute.make_layout((64, P128), stride=(P128, 1)))            # S^T slice: [dv][dk]
    sSl = cute.make_tensor(base + 64 * P128, cute.make_layout((64, P128), stride=(P128, 1)))
    sVh = cute.make_tensor(base + 128 * P128, cute.make_layout((64, P64), stride=(P64, 1)))  # v_new^T: [dv][t]
    sVl = cute.make_tensor(base + 128 * P128 + 64 * P64, cute.make_layout((64, P64), stride=(P64, 1)))
    s32 = cute.make_tensor(cute.recast_ptr(base, dtype=U32), cute.make_layout(REC_SMEM // 4))
    SH2, SL2, VH2, VL2 = 0, 32 * P128, 64 * P128, 64 * P128 + 32 * P64   # their starts in pairs

    qn32 = flat32(qn, ROWS * D)
    wh32, wl32 = flat32(w_hi, B * HV * S * D), flat32(w_lo, B * HV * S * D)
    ih32, il32 = flat32(intra_hi, B * HV * S * L), flat32(intra_lo, B * HV * S * L)
    kh32, kl32 = flat32(kd_hi, B * HV * S * D), flat32(kd_lo, B * HV * S * D)
    gu = cute.make_tensor(u_in, cute.make_layout(B * HV * S * D))
    gg = cute.make_tensor(g, cute.make_layout(B * HV * S))
    out32 = flat32(output, B * S * HV * D)

    st = cute.make_rmem_tensor(cute.make_layout((8, 4), stride=(4, 1)), F32)  # S rows dk = 16 warp + gq (+8),
    st.fill(0.0)                                                             # columns dv = 8 j + 2 q (+1)
    a = cute.make_rmem_tensor((4,), U32)
    al = cute.make_rmem_tensor((4,), U32)
    acc = cute.make_rmem_tensor(cute.make_layout((4, 4), stride=(4, 1)), F32)

    for c in cutlass.range(C):
        blk = (b * HV + hv) * C + c
        g_row0 = (b * HV + hv) * S + c * L
        # (a) the state as split bf16 B operands
        for j in cutlass.range_constexpr(8):
            for e in cutlass.range_constexpr(4):
                dk = warp * 16 + gq + (e >> 1) * 8
                dv = j * 8 + q * 2 + (e & 1)
                sSh[dv, dk] = st[j, e].to(BF16)
                sSl[dv, dk] = split_lo(st[j, e]).to(BF16)
        cute.arch.sync_threads()
        # (b) v_new = U - W S
        acc.fill(0.0)
        for k0 in cutlass.range(0, D, 16):
            load_a(a, wh32, blk * (L * D // 2), D, row0, k0, gq, q)
            load_a(al, wl32, blk * (L * D // 2), D, row0, k0, gq, q)
            for n in cutlass.range_constexpr(4):
                bh0, bh1 = b_pair(s32, SH2, P128, col0 + n * 8, k0, gq, q)
                bl0, bl1 = b_pair(s32, SL2, P128, col0 + n * 8, k0, gq, q)
                mma(acc[n, None], a, bh0, bh1)
                mma(acc[n, None], a, bl0, bl1)
                mma(acc[n, None], al, bh0, bh1)
        for n in cutlass.range_constexpr(4):
            for half in cutlass.range_constexpr(2):
                t = row0 + gq + half * 8
                dv = col0 + n * 8 + q * 2
                at = (blk * L + t) * D + dv0 + dv
                x0 = sub_rn(gu[at], acc[n, half * 2])
                x1 = sub_rn(gu[at + 1], acc[n, half * 2 + 1])
                sVh[dv, t] = x0.to(BF16)
                sVl[dv, t] = split_lo(x0).to(BF16)
                sVh[dv + 1, t] = x1.to(BF16)
                sVl[dv + 1, t] = split_lo(x1).to(BF16)
        cute.arch.sync_threads()
        # (c) out = e^g scale (q S) + intra v_new
        acc.fill(0.0)
        q_base2 = ((b * HK + hk) * S + c * L) * (D // 2)
        for k0 in cutlass.range(0, D, 16):
            load_a(a, qn32, q_base2, D, row0, k0, gq, q)
            for n in cutlass.range_constexpr(4):
                bh0, bh1 = b_pair(s32, SH2, P128, col0 + n * 8, k0, gq, q)
                bl0, bl1 = b_pair(s32, SL2, P128, col0 + n * 8, k0, gq, q)
                mma(acc[n, None], a, bh0, bh1)
                mma(acc[n, None], a, bl0, bl1)
        fa = mul_rn(exp_f32(gg[g_row0 + row0 + gq].to(F32)), scale)
        fb = mul_rn(exp_f32(gg[g_row0 + row0 + gq + 8].to(F32)), scale)
        for n in cutlass.range_constexpr(4):
            acc[n, 0] = mul_rn(acc[n, 0], fa)
            acc[n, 1] = mul_rn(acc[n, 1], fa)
            acc[n, 2] = mul_rn(acc[n, 2], fb)
            acc[n, 3] = mul_rn(acc[n, 3], fb)
        for kk in cutlass.range(warp % 4 + 1):    # intra is zero above the diagonal
            load_a(a, ih32, blk * (L * L // 2), L, row0, kk * 16, gq, q)
            load_a(al, il32, blk * (L * L // 2), L, row0, kk * 16, gq, q)
            for n in cutlass.range_constexpr(4):
                bh0, bh1 = b_pair(s32, VH2, P64, col0 + n * 8, kk * 16, gq, q)
                bl0, bl1 = b_pair(s32, VL2, P64, col0 + n * 8, kk * 16, gq, q)
                mma(acc[n, None], a, bh0, bh1)
                mma(acc[n, None], a, bl0, bl1)
                mma(acc[n, None], al, bh0, bh1)
        for n in cutlass.range_constexpr(4):
            for half in cutlass.range_constexpr(2):
                t = row0 + gq + half * 8
                dv = dv0 + col0 + n * 8 + q * 2
                out32[(((b * S + c * L + t) * HV + hv) * D + dv) // 2] = cvt2(acc[n, half * 2], acc[n, half * 2 + 1])
        # (d) S = e^(g_last) S + (e^(g_last - g) k)^T v_new
        keep = exp_f32(gg[g_row0 + L - 1].to(F32))
        for j in cutlass.range_constexpr(8):
            for e in cutlass.range_constexpr(4):
                st[j, e] = mul_rn(st[j, e], keep)
        for kk in cutlass.range_constexpr(4):
            load_a(a, kh32, blk * (D * L // 2), L, warp * 16, kk * 16, gq, q)
            load_a(al, kl32, blk * (D * L // 2), L, warp * 16, kk * 16, gq, q)
            for j in cutlass.range_constexpr(8):
                bh0, bh1 = b_pair(s32, VH2, P64, j * 8, kk * 16, gq, q)
                bl0, bl1 = b_pair(s32, VL2, P64, j * 8, kk * 16, gq, q)
                mma(st[j, None], a, bh0, bh1)
                mma(st[j, None], a, bl0, bl1)
                mma(st[j, None], al, bh0, bh1)
        cute.arch.sync_threads()      # S^T and v_new^T are rewritten by the next chunk


MKB_PLAN = """/* mkb:plan
scratch qn bf16[batch_size * num_k_heads * seq_len * head_k_dim]
scratch kn bf16[batch_size * num_k_heads * seq_len * head_k_dim]
scratch w_hi bf16[batch_size * num_v_heads * seq_len * head_k_dim]
scratch w_lo bf16[batch_size * num_v_heads * seq_len * head_k_dim]
scratch u fp32[batch_size * num_v_heads * seq_len * head_v_dim]
scratch intra_hi bf16[batch_size * num_v_heads * seq_len * chunk_size]
scratch intra_lo bf16[batch_size * num_v_heads * seq_len * chunk_size]
scratch kd_hi bf16[batch_size * num_v_heads * seq_len * head_k_dim]
scratch kd_lo bf16[batch_size * num_v_heads * seq_len * head_k_dim]
launch l2norm_rows grid(ceil_div(2 * batch_size * num_k_heads * seq_len, 8)) block(256)
  args(query, key, qn, kn, i32(batch_size * num_k_heads * seq_len))
launch chunk_prepare grid(seq_len / chunk_size, num_v_heads, batch_size) block(128)
  shared(2 * 128 * 72 * 2 + (64 * 65 + 5 * 64) * 4)
  args(qn, kn, value, g, beta, f32(scale), w_hi, w_lo, u, intra_hi, intra_lo, kd_hi, kd_lo)
launch chunk_recurrence grid(head_v_dim / 64, num_v_heads, batch_size) block(256)
  shared(2 * 64 * 136 * 2 + 2 * 64 * 72 * 2)
  args(qn, g, f32(scale), w_hi, w_lo, u, intra_hi, intra_lo, kd_hi, kd_lo, output)
*/"""
