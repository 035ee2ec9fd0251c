"""Chunked gated delta rule (Qwen3-Next, reference.md) in TIRx: the algorithm of solutions/cuda.cu, three
launches, the products on bf16 tensor cores (mma.sync m16n8k16, fp32 accumulation). fp32 operands are split
into bf16 pairs (hi = bf16(v), lo = bf16(v - hi)); a product of two split operands takes hi*hi + hi*lo + lo*hi.
  l2norm_rows      a warp per row of 128 (4 values a lane): q and k normalized in fp32, one bf16 rounding.
  chunk_prepare    per (chunk, value head, batch), 4 warps of 16 rows: K K^T and Q K^T from the normalized
                   rows in global memory (exact bf16 products); L = -beta_i (k_i . k_j) exp(G_i - G_j) below
                   the diagonal; T = (I - L)^-1 by forward substitution in shared memory (a row at a time);
                   W = T diag(beta e^g) K, U = T diag(beta) V (A operand built split from T in registers,
                   B from K^T / V^T in shared memory); the decay-masked Q K^T * scale ("intra", split);
                   (e^(g_last - g) K)^T (split).
  chunk_recurrence per (64 value dims, value head, batch), 8 warps: the [128, 64] state slice stays in mma
                   accumulators across the 4 chunks; per chunk v_new = U - W S, out = e^g scale (q S) +
                   intra v_new, S = e^(g_last) S + (e^(g_last - g) k)^T v_new.
Value head v reads key head v % 4. The mma fragments are read with 32-bit loads through uint32 views
(T.decl_buffer on the same data) of the bf16 buffers, as the cuda solution's ld32; the cuda solution's
contracted sums (the squares of the norm, the substitution's dot products) are written as fmaf.
Shared memory is one dynamic buffer with bf16, uint32 and fp32 views, laid out as the cuda solution's."""
from tvm.script import tirx as T

B, HK, HV, S, D, L = 16, 4, 16, 256, 128, 64
C = S // L
P128, P64 = D + 8, L + 8                      # padded shared pitches (bf16 elements)
ROWS = B * HK * S                             # normalized rows of q (and of k)
QK_ELEMS = ROWS * D
VD_ELEMS = B * HV * S * D                     # w, u, kd
IN_ELEMS = B * HV * S * L                     # intra
# chunk_prepare shared memory: K^T, V^T [128][72] bf16, then fp32 X [65][65] (row 64 is sRow), cum, beta,
# e^g, e^(g_last - g)
PREP_SMEM = 2 * D * P64 * 2 + (L * (L + 1) + 5 * L) * 4
XOFF = 2 * D * P64 * 2 // 4                   # fp32 index of X
ROWOFF = XOFF + L * (L + 1)
CUMOFF, BETAOFF, GEXPOFF, LASTOFF = ROWOFF + L, ROWOFF + 2 * L, ROWOFF + 3 * L, ROWOFF + 4 * L
# chunk_recurrence shared memory: S^T hi / lo [64][136], v_new^T hi / lo [64][72], bf16
REC_SMEM = 2 * 64 * P128 * 2 + 2 * 64 * P64 * 2
SL_OFF, VH_OFF, VL_OFF = 64 * P128, 2 * 64 * P128, 2 * 64 * P128 + 64 * P64
assert PREP_SMEM == 54784 and REC_SMEM == 53248


def expf(x):
    return T.call_pure_extern("float32", "expf", x)


def fma(x, y, z):
    return T.call_pure_extern("float32", "fmaf", x, y, z)


def hi(v):
    return T.Cast("bfloat16", v)


def lo(v):
    return T.Cast("bfloat16", v - T.Cast("float32", T.Cast("bfloat16", v)))


def pack(x, y):
    # two bf16 values as one 32-bit register, x in the low half
    return T.bitwise_or(T.Cast("uint32", T.reinterpret("uint16", x)),
                        T.shift_left(T.Cast("uint32", T.reinterpret("uint16", y)), T.uint32(16)))


@T.macro
def load_a(a, Au, base, ld2, r, k0, lane):
    # A fragment (16 x 16 at row r, column k0) of a row-major bf16 array viewed as uint32 (pitch ld2 words)
    a[0] = Au[base + (r + lane // 4) * ld2 + k0 // 2 + lane % 4]
    a[1] = Au[base + (r + lane // 4 + 8) * ld2 + k0 // 2 + lane % 4]
    a[2] = Au[base + (r + lane // 4) * ld2 + k0 // 2 + 4 + lane % 4]
    a[3] = Au[base + (r + lane // 4 + 8) * ld2 + k0 // 2 + 4 + lane % 4]


@T.macro
def load_b(b, Bu, base, ld2, c, k0, lane):
    # B fragment (16 x 8 at k k0, column c) of an array holding B^T row-major ([column][k]) as uint32
    b[0] = Bu[base + (c + lane // 4) * ld2 + k0 // 2 + lane % 4]
    b[1] = Bu[base + (c + lane // 4) * ld2 + k0 // 2 + 4 + lane % 4]


@T.macro
def mma(acc, n, a, b):
    # acc[n, 0:4] += a b
    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
        acc[n, 0], acc[n, 1], acc[n, 2], acc[n, 3], a[0], a[1], a[2], a[3], b[0], b[1],
        acc[n, 0], acc[n, 1], acc[n, 2], acc[n, 3])


@T.macro
def norm_row(X, Y, row, lane, v, ss):
    for e in T.vectorized(4):
        v[e] = X[row, lane * 4 + e]
    ss[0] = T.float32(0)
    for e in T.unroll(4):
        ss[0] = fma(T.Cast("float32", v[e]), T.Cast("float32", v[e]), ss[0])
    ss[0] = T.cuda.warp_sum(ss[0], 32)
    ss[0] = T.rsqrt(ss[0] + T.float32(1e-6))
    for e in T.unroll(4):
        v[e] = T.Cast("bfloat16", T.Cast("float32", v[e]) * ss[0])
    for e in T.vectorized(4):
        Y[row, lane * 4 + e] = v[e]


@T.prim_func
def l2norm_rows(query_ptr: T.handle, key_ptr: T.handle, qn_ptr: T.handle, kn_ptr: T.handle):
    Q = T.match_buffer(query_ptr, (ROWS, D), "bfloat16")
    K = T.match_buffer(key_ptr, (ROWS, D), "bfloat16")
    QN = T.match_buffer(qn_ptr, (ROWS, D), "bfloat16")
    KN = T.match_buffer(kn_ptr, (ROWS, D), "bfloat16")
    T.device_entry()
    bx = T.cta_id([2 * ROWS // 8])
    tx = T.thread_id([256])
    v = T.alloc_buffer((4,), "bfloat16", scope="local")
    ss = T.alloc_buffer((1,), "float32", scope="local")
    if bx < ROWS // 8:                  # warps 0 .. rows - 1: queries, then keys
        norm_row(Q, QN, bx * 8 + tx // 32, tx % 32, v, ss)
    else:
        norm_row(K, KN, (bx - ROWS // 8) * 8 + tx // 32, tx % 32, v, ss)


@T.prim_func
def chunk_prepare(qn_ptr: T.handle, kn_ptr: T.handle, value_ptr: T.handle, g_ptr: T.handle, beta_ptr: T.handle,
                  scale: T.float32, w_hi_ptr: T.handle, w_lo_ptr: T.handle, u_ptr: T.handle,
                  intra_hi_ptr: T.handle, intra_lo_ptr: T.handle, kd_hi_ptr: T.handle, kd_lo_ptr: T.handle):
    QN = T.match_buffer(qn_ptr, (QK_ELEMS,), "bfloat16")
    KN = T.match_buffer(kn_ptr, (ROWS, D), "bfloat16")
    VAL = T.match_buffer(value_ptr, (B * HV * S, D), "bfloat16")
    G = T.match_buffer(g_ptr, (B * HV * S,), "bfloat16")
    BETA = T.match_buffer(beta_ptr, (B * HV * S,), "bfloat16")
    WH = T.match_buffer(w_hi_ptr, (VD_ELEMS,), "bfloat16")
    WL = T.match_buffer(w_lo_ptr, (VD_ELEMS,), "bfloat16")
    U = T.match_buffer(u_ptr, (VD_ELEMS,), "float32")
    IH = T.match_buffer(intra_hi_ptr, (IN_ELEMS,), "bfloat16")
    IL = T.match_buffer(intra_lo_ptr, (IN_ELEMS,), "bfloat16")
    KDH = T.match_buffer(kd_hi_ptr, (VD_ELEMS,), "bfloat16")
    KDL = T.match_buffer(kd_lo_ptr, (VD_ELEMS,), "bfloat16")
    T.device_entry()
    c, hv, b = T.cta_id([C, HV, B])
    tx = T.thread_id([128])
    QNu = T.decl_buffer((QK_ELEMS // 2,), "uint32", data=QN.data)
    KNu = T.decl_buffer((QK_ELEMS // 2,), "uint32", data=KN.data)
    sm = T.alloc_buffer((PREP_SMEM // 2,), "bfloat16", scope="shared.dyn")
    smu = T.decl_buffer((PREP_SMEM // 4,), "uint32", data=sm.data, scope="shared.dyn")
    smf = T.decl_buffer((PREP_SMEM // 4,), "float32", data=sm.data, scope="shared.dyn")
    kx = T.alloc_buffer((8,), "bfloat16", scope="local")
    vx = T.alloc_buffer((8,), "bfloat16", scope="local")
    gg = T.alloc_buffer((3,), "float32", scope="local")      # g0, g1, the chunk's last g
    pf = T.alloc_buffer((3,), "float32", scope="local")      # prefix, shuffled, before
    acc8 = T.alloc_buffer((8, 4), "float32", scope="local")
    acc16 = T.alloc_buffer((16, 4), "float32", scope="local")
    a = T.alloc_buffer((4,), "uint32", scope="local")
    al = T.alloc_buffer((4,), "uint32", scope="local")
    bb = T.alloc_buffer((2,), "uint32", scope="local")
    sv = T.alloc_buffer((4,), "float32", scope="local")
    # chunk rows: q / k rows (b * 4 + hv % 4) * 256 + c * 64 + t; value, g, beta rows (b * 16 + hv) * 256 + c * 64 + t;
    # this chunk's slot in the outputs: blk = (b * 16 + hv) * 4 + c

    # K^T and V^T of the chunk into shared memory: thread covers token tx % 64, 8 dims per step
    for it in T.unroll(L * D // 8 // 128):
        for e in T.vectorized(8):
            kx[e] = KN[(b * HK + hv % HK) * S + c * L + tx % 64, (tx // 64 + 2 * it) * 8 + e]
        for e in T.vectorized(8):
            vx[e] = VAL[(b * HV + hv) * S + c * L + tx % 64, (tx // 64 + 2 * it) * 8 + e]
        for e in T.unroll(8):
            sm[((tx // 64 + 2 * it) * 8 + e) * P64 + tx % 64] = kx[e]
            sm[D * P64 + ((tx // 64 + 2 * it) * 8 + e) * P64 + tx % 64] = vx[e]
    if tx < 32:  # G = cumsum(g) in the chunk: two tokens a lane, then an inclusive scan across lanes
        gg[0] = T.Cast("float32", G[(b * HV + hv) * S + c * L + 2 * tx])
        gg[1] = T.Cast("float32", G[(b * HV + hv) * S + c * L + 2 * tx + 1])
        pf[0] = gg[0] + gg[1]
        for st in T.unroll(5):
            pf[1] = T.tvm_warp_shuffle_up(T.uint32(0xFFFFFFFF), pf[0], 1 << st, 32, 32)
            if tx >= (1 << st):
                pf[0] = pf[0] + pf[1]
        pf[2] = T.tvm_warp_shuffle_up(T.uint32(0xFFFFFFFF), pf[0], 1, 32, 32)
        if tx == 0:
            pf[2] = T.float32(0)
        smf[CUMOFF + 2 * tx] = pf[2] + gg[0]
        smf[CUMOFF + 2 * tx + 1] = pf[2] + gg[0] + gg[1]
        gg[2] = T.Cast("float32", G[(b * HV + hv) * S + c * L + L - 1])
        for e in T.unroll(2):
            smf[BETAOFF + 2 * tx + e] = T.Cast("float32", BETA[(b * HV + hv) * S + c * L + 2 * tx + e])
            smf[GEXPOFF + 2 * tx + e] = expf(gg[e])
            smf[LASTOFF + 2 * tx + e] = expf(gg[2] - gg[e])
    T.cuda.cta_sync()

    # K K^T -> L (strictly lower, fp32 in X), Q K^T -> intra (lower with the diagonal, split); warp rows 16 w ..
    for which in T.serial(2):
        for j in T.unroll(8):
            for e in T.unroll(4):
                acc8[j, e] = T.float32(0)
        for k0 in T.serial(D // 16):
            if which == 0:
                load_a(a, KNu, ((b * HK + hv % HK) * S + c * L) * (D // 2), D // 2, tx // 32 * 16, k0 * 16, tx % 32)
            else:
                load_a(a, QNu, ((b * HK + hv % HK) * S + c * L) * (D // 2), D // 2, tx // 32 * 16, k0 * 16, tx % 32)
            for j in T.unroll(8):
                load_b(bb, KNu, ((b * HK + hv % HK) * S + c * L) * (D // 2), D // 2, j * 8, k0 * 16, tx % 32)
                mma(acc8, j, a, bb)
        for j in T.unroll(8):
            for half in T.unroll(2):
                for e in T.unroll(2):
                    # row i = 16 w + lane / 4 + 8 half, column jj = 8 j + 2 (lane % 4) + e
                    if which == 0:
                        smf[XOFF + (tx // 32 * 16 + tx % 32 // 4 + half * 8) * (L + 1) + j * 8 + tx % 4 * 2 + e] = T.Select(
                            j * 8 + tx % 4 * 2 + e < tx // 32 * 16 + tx % 32 // 4 + half * 8,
                            -smf[BETAOFF + tx // 32 * 16 + tx % 32 // 4 + half * 8] * acc8[j, half * 2 + e]
                            * expf(smf[CUMOFF + tx // 32 * 16 + tx % 32 // 4 + half * 8] - smf[CUMOFF + j * 8 + tx % 4 * 2 + e]),
                            T.float32(0))
                    else:
                        sv[0] = T.Select(
                            j * 8 + tx % 4 * 2 + e <= tx // 32 * 16 + tx % 32 // 4 + half * 8,
                            scale * acc8[j, half * 2 + e]
                            * expf(smf[CUMOFF + tx // 32 * 16 + tx % 32 // 4 + half * 8] - smf[CUMOFF + j * 8 + tx % 4 * 2 + e]),
                            T.float32(0))
                        IH[(((b * HV + hv) * C + c) * L + tx // 32 * 16 + tx % 32 // 4 + half * 8) * L + j * 8 + tx % 4 * 2 + e] = hi(sv[0])
                        IL[(((b * HV + hv) * C + c) * L + tx // 32 * 16 + tx % 32 // 4 + half * 8) * L + j * 8 + tx % 4 * 2 + e] = lo(sv[0])
    T.cuda.cta_sync()

    # forward substitution: X[i, :i] = L[i, :i] + L[i, :i] X[:i, :i], rows in order (row 0 of L is zero)
    for i in T.serial(1, L):
        if tx < i:
            smf[ROWOFF + tx] = smf[XOFF + i * (L + 1) + tx]
        T.cuda.cta_sync()
        if tx < i:
            sv[0] = smf[ROWOFF + tx]
            for k in T.serial(tx + 1, i):
                sv[0] = fma(smf[ROWOFF + k], smf[XOFF + k * (L + 1) + tx], sv[0])
            smf[XOFF + i * (L + 1) + tx] = sv[0]
        T.cuda.cta_sync()

    # W = T diag(beta e^g) K (which 0) and U = T diag(beta) V (which 1), T = I + X
    for which in T.serial(2):
        for n in T.unroll(16):
            for e in T.unroll(4):
                acc16[n, e] = T.float32(0)
        for kk in T.unroll(L // 16):
            for reg in T.unroll(4):
                # row i = 16 w + lane / 4 + 8 (reg % 2), columns j = 16 kk + 2 (lane % 4) + 8 (reg / 2) + e
                for e in T.unroll(2):
                    sv[e] = T.Select(
                        tx // 32 * 16 + tx % 32 // 4 + reg % 2 * 8 == kk * 16 + tx % 4 * 2 + reg // 2 * 8 + e,
                        T.float32(1),
                        T.Select(kk * 16 + tx % 4 * 2 + reg // 2 * 8 + e < tx // 32 * 16 + tx % 32 // 4 + reg % 2 * 8,
                                 smf[XOFF + (tx // 32 * 16 + tx % 32 // 4 + reg % 2 * 8) * (L + 1)
                                     + kk * 16 + tx % 4 * 2 + reg // 2 * 8 + e], T.float32(0))) \
                        * smf[BETAOFF + kk * 16 + tx % 4 * 2 + reg // 2 * 8 + e]
                    sv[e] = T.Select(which == 0, sv[e] * smf[GEXPOFF + kk * 16 + tx % 4 * 2 + reg // 2 * 8 + e], sv[e])
                a[reg] = pack(hi(sv[0]), hi(sv[1]))
                al[reg] = pack(lo(sv[0]), lo(sv[1]))
            for n in T.unroll(16):
                load_b(bb, smu, which * (D * P64 // 2), P64 // 2, n * 8, kk * 16, tx % 32)
                mma(acc16, n, a, bb)
                mma(acc16, n, al, bb)
        for n in T.unroll(16):
            for half in T.unroll(2):
                for e in T.unroll(2):
                    # row i = 16 w + lane / 4 + 8 half, dim 8 n + 2 (lane % 4) + e
                    if which == 1:
                        U[(((b * HV + hv) * C + c) * L + tx // 32 * 16 + tx % 32 // 4 + half * 8) * D + n * 8 + tx % 4 * 2 + e] = acc16[n, half * 2 + e]
                    else:
                        WH[(((b * HV + hv) * C + c) * L + tx // 32 * 16 + tx % 32 // 4 + half * 8) * D + n * 8 + tx % 4 * 2 + e] = hi(acc16[n, half * 2 + e])
                        WL[(((b * HV + hv) * C + c) * L + tx // 32 * 16 + tx % 32 // 4 + half * 8) * D + n * 8 + tx % 4 * 2 + e] = lo(acc16[n, half * 2 + e])

    # (e^(g_last - g_t) k_t)^T as [dk][t]
    for it in T.serial(D * L // 128):
        sv[0] = T.Cast("float32", sm[(it * 128 + tx) // L * P64 + tx % L]) * smf[LASTOFF + tx % L]
        KDH[((b * HV + hv) * C + c) * D * L + it * 128 + tx] = hi(sv[0])
        KDL[((b * HV + hv) * C + c) * D * L + it * 128 + tx] = lo(sv[0])


@T.prim_func
def chunk_recurrence(qn_ptr: T.handle, g_ptr: T.handle, scale: T.float32, w_hi_ptr: T.handle, w_lo_ptr: T.handle,
                     u_ptr: T.handle, intra_hi_ptr: T.handle, intra_lo_ptr: T.handle, kd_hi_ptr: T.handle,
                     kd_lo_ptr: T.handle, output_ptr: T.handle):
    QN = T.match_buffer(qn_ptr, (QK_ELEMS,), "bfloat16")
    G = T.match_buffer(g_ptr, (B * HV * S,), "bfloat16")
    WH = T.match_buffer(w_hi_ptr, (VD_ELEMS,), "bfloat16")
    WL = T.match_buffer(w_lo_ptr, (VD_ELEMS,), "bfloat16")
    U = T.match_buffer(u_ptr, (VD_ELEMS,), "float32")
    IH = T.match_buffer(intra_hi_ptr, (IN_ELEMS,), "bfloat16")
    IL = T.match_buffer(intra_lo_ptr, (IN_ELEMS,), "bfloat16")
    KDH = T.match_buffer(kd_hi_ptr, (VD_ELEMS,), "bfloat16")
    KDL = T.match_buffer(kd_lo_ptr, (VD_ELEMS,), "bfloat16")
    OUT = T.match_buffer(output_ptr, (B * S * HV * D,), "bfloat16")
    T.device_entry()
    dvb, hv, b = T.cta_id([D // 64, HV, B])
    tx = T.thread_id([256])
    QNu = T.decl_buffer((QK_ELEMS // 2,), "uint32", data=QN.data)
    WHu = T.decl_buffer((VD_ELEMS // 2,), "uint32", data=WH.data)
    WLu = T.decl_buffer((VD_ELEMS // 2,), "uint32", data=WL.data)
    IHu = T.decl_buffer((IN_ELEMS // 2,), "uint32", data=IH.data)
    ILu = T.decl_buffer((IN_ELEMS // 2,), "uint32", data=IL.data)
    KDHu = T.decl_buffer((VD_ELEMS // 2,), "uint32", data=KDH.data)
    KDLu = T.decl_buffer((VD_ELEMS // 2,), "uint32", data=KDL.data)
    sm = T.alloc_buffer((REC_SMEM // 2,), "bfloat16", scope="shared.dyn")
    smu = T.decl_buffer((REC_SMEM // 4,), "uint32", data=sm.data, scope="shared.dyn")
    st = T.alloc_buffer((8, 4), "float32", scope="local")
    acc = T.alloc_buffer((4, 4), "float32", scope="local")
    ah = T.alloc_buffer((4,), "uint32", scope="local")
    al = T.alloc_buffer((4,), "uint32", scope="local")
    bh = T.alloc_buffer((2,), "uint32", scope="local")
    bl = T.alloc_buffer((2,), "uint32", scope="local")
    f = T.alloc_buffer((3,), "float32", scope="local")     # fa, fb, keep
    # warp w: tile rows (warp % 4) * 16, columns (warp / 4) * 32 of the [64 t, 64 dv] products; state rows
    # dk = 16 w + lane / 4 (+ 8), columns dv = 8 j + 2 (lane % 4) (+ 1) of the slice
    for j in T.unroll(8):
        for e in T.unroll(4):
            st[j, e] = T.float32(0)
    for c in T.serial(C):
        # (a) the state as split bf16 B operands, S^T [dv][dk]
        for j in T.unroll(8):
            for e in T.unroll(4):
                sm[(j * 8 + tx % 4 * 2 + e % 2) * P128 + tx // 32 * 16 + tx % 32 // 4 + e // 2 * 8] = hi(st[j, e])
                sm[SL_OFF + (j * 8 + tx % 4 * 2 + e % 2) * P128 + tx // 32 * 16 + tx % 32 // 4 + e // 2 * 8] = lo(st[j, e])
        T.cuda.cta_sync()
        # (b) v_new = U - W S
        for n in T.unroll(4):
            for e in T.unroll(4):
                acc[n, e] = T.float32(0)
        for k0 in T.serial(D // 16):
            load_a(ah, WHu, ((b * HV + hv) * C + c) * L * (D // 2), D // 2, tx // 32 % 4 * 16, k0 * 16, tx % 32)
            load_a(al, WLu, ((b * HV + hv) * C + c) * L * (D // 2), D // 2, tx // 32 % 4 * 16, k0 * 16, tx % 32)
            for n in T.unroll(4):
                load_b(bh, smu, 0, P128 // 2, tx // 128 * 32 + n * 8, k0 * 16, tx % 32)
                load_b(bl, smu, SL_OFF // 2, P128 // 2, tx // 128 * 32 + n * 8, k0 * 16, tx % 32)
                mma(acc, n, ah, bh)
                mma(acc, n, ah, bl)
                mma(acc, n, al, bh)
        for n in T.unroll(4):
            for half in T.unroll(2):
                for e in T.unroll(2):
                    # t = row0 + lane / 4 + 8 half, dv = col0 + 8 n + 2 (lane % 4) + e (in the slice)
                    sm[VH_OFF + (tx // 128 * 32 + n * 8 + tx % 4 * 2 + e) * P64 + tx // 32 % 4 * 16 + tx % 32 // 4 + half * 8] = hi(
                        U[(((b * HV + hv) * C + c) * L + tx // 32 % 4 * 16 + tx % 32 // 4 + half * 8) * D + dvb * 64
                          + tx // 128 * 32 + n * 8 + tx % 4 * 2 + e] - acc[n, half * 2 + e])
                    sm[VL_OFF + (tx // 128 * 32 + n * 8 + tx % 4 * 2 + e) * P64 + tx // 32 % 4 * 16 + tx % 32 // 4 + half * 8] = lo(
                        U[(((b * HV + hv) * C + c) * L + tx // 32 % 4 * 16 + tx % 32 // 4 + half * 8) * D + dvb * 64
                          + tx // 128 * 32 + n * 8 + tx % 4 * 2 + e] - acc[n, half * 2 + e])
        T.cuda.cta_sync()
        # (c) out = e^g scale (q S) + intra v_new
        for n in T.unroll(4):
            for e in T.unroll(4):
                acc[n, e] = T.float32(0)
        for k0 in T.serial(D // 16):
            load_a(ah, QNu, ((b * HK + hv % HK) * S + c * L) * (D // 2), D // 2, tx // 32 % 4 * 16, k0 * 16, tx % 32)
            for n in T.unroll(4):
                load_b(bh, smu, 0, P128 // 2, tx // 128 * 32 + n * 8, k0 * 16, tx % 32)
                load_b(bl, smu, SL_OFF // 2, P128 // 2, tx // 128 * 32 + n * 8, k0 * 16, tx % 32)
                mma(acc, n, ah, bh)
                mma(acc, n, ah, bl)
        f[0] = expf(T.Cast("float32", G[(b * HV + hv) * S + c * L + tx // 32 % 4 * 16 + tx % 32 // 4])) * scale
        f[1] = expf(T.Cast("float32", G[(b * HV + hv) * S + c * L + tx // 32 % 4 * 16 + tx % 32 // 4 + 8])) * scale
        for n in T.unroll(4):
            for e in T.unroll(4):
                acc[n, e] = acc[n, e] * f[e // 2]
        for kk in T.serial(tx // 32 % 4 + 1):     # intra is zero above the diagonal
            load_a(ah, IHu, ((b * HV + hv) * C + c) * L * (L // 2), L // 2, tx // 32 % 4 * 16, kk * 16, tx % 32)
            load_a(al, ILu, ((b * HV + hv) * C + c) * L * (L // 2), L // 2, tx // 32 % 4 * 16, kk * 16, tx % 32)
            for n in T.unroll(4):
                load_b(bh, smu, VH_OFF // 2, P64 // 2, tx // 128 * 32 + n * 8, kk * 16, tx % 32)
                load_b(bl, smu, VL_OFF // 2, P64 // 2, tx // 128 * 32 + n * 8, kk * 16, tx % 32)
                mma(acc, n, ah, bh)
                mma(acc, n, ah, bl)
                mma(acc, n, al, bh)
        for n in T.unroll(4):
            for half in T.unroll(2):
                for e in T.unroll(2):
                    OUT[((b * S + c * L + tx // 32 % 4 * 16 + tx % 32 // 4 + half * 8) * HV + hv) * D + dvb * 64
                        + tx // 128 * 32 + n * 8 + tx % 4 * 2 + e] = T.Cast("bfloat16", acc[n, half * 2 + e])
        # (d) S = e^(g_last) S + (e^(g_last - g) k)^T v_new
        f[2] = expf(T.Cast("float32", G[(b * HV + hv) * S + c * L + L - 1]))
        for j in T.unroll(8):
            for e in T.unroll(4):
                st[j, e] = st[j, e] * f[2]
        for kk in T.unroll(L // 16):
            load_a(ah, KDHu, ((b * HV + hv) * C + c) * D * (L // 2), L // 2, tx // 32 * 16, kk * 16, tx % 32)
            load_a(al, KDLu, ((b * HV + hv) * C + c) * D * (L // 2), L // 2, tx // 32 * 16, kk * 16, tx % 32)
            for j in T.unroll(8):
                load_b(bh, smu, VH_OFF // 2, P64 // 2, j * 8, kk * 16, tx % 32)
                load_b(bl, smu, VL_OFF // 2, P64 // 2, j * 8, kk * 16, tx % 32)
                mma(st, j, ah, bh)
                mma(st, j, ah, bl)
                mma(st, j, al, bh)
        T.cuda.cta_sync()   # S^T and v_new^T are rewritten by the next chunk


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
launch l2norm_rows grid(2 * batch_size * num_k_heads * seq_len / 8) block(256) args(query, key, qn, kn)
launch chunk_prepare grid(seq_len / chunk_size, num_v_heads, batch_size) block(128) shared(54784)
  args(qn, kn, value, g, beta, f32(scale), w_hi, w_lo, u, intra_hi, intra_lo, kd_hi, kd_lo)
launch chunk_recurrence grid(head_v_dim / 64, num_v_heads, batch_size) block(256) shared(53248)
  args(qn, g, f32(scale), w_hi, w_lo, u, intra_hi, intra_lo, kd_hi, kd_lo, output)
*/"""
