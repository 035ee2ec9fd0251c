"""Pre-norm Hyena block (Hyena-small shape) in TIRx: the algorithm of solutions/cuda.cu, eight launches. The
four projections are fp32 GEMMs on tensor cores in the 3xTF32 scheme: each operand x is split into
hi = tf32(x) (cvt.rna) and lo = tf32(x - hi), and a*b is taken as a_lo b_hi + a_hi b_lo + a_hi b_hi, accumulated
in fp32 by mma.sync m16n8k8 (T.ptx) into a fresh partial per 32-wide k tile, added to the accumulator in fp32; bias, GELU and the residuals are fused into their epilogues. The mixer's
long convolution is computed directly (y[c, t] = sum_{s <= t} k[c, s] g[c, t - s], what the reference's
zero-padded FFT computes) in one kernel with the short conv and both gatings.
  layer_norm_rows  LN1 (a warp per token)          gemm_in      u = n1 W_in^T + b_in
  implicit_filter  the filter h[position, channel]  mixer_conv   short conv, gates, long conv
  gemm_out         r1 = gated W_out^T + b + x       layer_norm_rows  LN2
  gemm_fc1         act = gelu(n2 W_fc1^T + b)       gemm_fc2     out = act W_fc2^T + b + r1
The GEMM is one macro (128 x 128 tiles, 8 warps of 64 x 32, k steps of 32 double-buffered by cp.async, 144-byte
shared rows) compiled four times, since TIRx shapes are static. The arithmetic is written as the cuda solution
writes it (the same expression trees, so the compiler contracts the same products into multiply-adds),
with cosf / sinf / expf / tanhf / sqrtf as CUDA's accurate functions."""
from tvm.script import tirx as T

B, L, D, W, F, DI = 32, 256, 256, 768, 64, 1024
ROWS = B * L                                   # 8192 tokens
BM, BN, BK = 128, 128, 32
PITCH = BK + 4
W_OFF = 2 * BM * PITCH
GEMM_SMEM = 2 * 2 * 128 * PITCH * 4            # 73728
CH, HKP = 32, L + 1
MIX_SMEM = (CH * HKP + 2 * L * CH) * 4         # 98432
G_OFF, X0_OFF = CH * HKP, CH * HKP + L * CH
assert GEMM_SMEM == 73728 and MIX_SMEM == 98432


def f32(x):
    return T.float32(x)


def gelu_tanh(x):
    return f32(0.5) * x * (f32(1) + T.call_pure_extern("float32", "tanhf", f32(0.7978845608028654) * (
        x + f32(0.044715) * x * x * x)))


@T.macro
def gemm_body(A, Wt, C, bias, res, KD, ND, EPI, sm, acc, part, ah, al, bh, bl, tx, bx, by):
    # C[m0 .., n0 ..] = A W^T (+ epilogue) for m0 = 128 by, n0 = 128 bx; A [M, KD], W [ND, KD] row-major.
    # EPI 0: + bias; 1: + bias + res; 2: gelu(+ bias). Warp tile rows wm = 64 (warp / 4), columns wn = 32 (warp % 4).
    for i in T.unroll(16):
        for e in T.unroll(4):
            acc[i, e] = T.float32(0)
    for it in T.unroll(BM * (BK // 4) // 256):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([(it * 256 + tx) // (BK // 4) * PITCH + tx % (BK // 4) * 4]),
            A.ptr_to([by * BM + (it * 256 + tx) // (BK // 4), tx % (BK // 4) * 4]), 16)
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([W_OFF + (it * 256 + tx) // (BK // 4) * PITCH + tx % (BK // 4) * 4]),
            Wt.ptr_to([bx * BN + (it * 256 + tx) // (BK // 4), tx % (BK // 4) * 4]), 16)
    T.ptx.cp.async_.commit_group()
    for kt in T.serial(KD // BK):
        if kt + 1 < KD // BK:
            for it in T.unroll(BM * (BK // 4) // 256):
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([((kt + 1) % 2 * BM + (it * 256 + tx) // (BK // 4)) * PITCH + tx % (BK // 4) * 4]),
                    A.ptr_to([by * BM + (it * 256 + tx) // (BK // 4), (kt + 1) * BK + tx % (BK // 4) * 4]), 16)
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([W_OFF + ((kt + 1) % 2 * BN + (it * 256 + tx) // (BK // 4)) * PITCH + tx % (BK // 4) * 4]),
                    Wt.ptr_to([bx * BN + (it * 256 + tx) // (BK // 4), (kt + 1) * BK + tx % (BK // 4) * 4]), 16)
            T.ptx.cp.async_.commit_group()
            T.ptx.cp.async_.wait_group(1)
        else:
            T.ptx.cp.async_.wait_group(0)
        T.cuda.cta_sync()
        # each 32-wide k tile into a fresh partial, added to acc with an fp32 add (round to nearest): the
        # tensor cores' own accumulation truncates and drifts over K = 1024 (spec notes)
        for i in T.unroll(16):
            for e in T.unroll(4):
                part[i, e] = T.float32(0)
        for kk in T.unroll(BK // 8):
            for mt in T.unroll(4):
                # p = as + (wm + 16 mt + g) * PITCH + 8 kk + q: p[0], p[8 PITCH], p[4], p[8 PITCH + 4]
                for r in T.unroll(4):
                    T.ptx.cvt.rna.tf32.f32(ah[mt, r], sm[(kt % 2 * BM + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + r % 2 * 8) * PITCH
                                                        + kk * 8 + tx % 4 + r // 2 * 4])
                    T.ptx.cvt.rna.tf32.f32(al[mt, r], sm[(kt % 2 * BM + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + r % 2 * 8) * PITCH
                                                        + kk * 8 + tx % 4 + r // 2 * 4] - T.reinterpret("float32", ah[mt, r]))
            for nt in T.unroll(4):
                for r in T.unroll(2):
                    T.ptx.cvt.rna.tf32.f32(bh[nt, r], sm[W_OFF + (kt % 2 * BN + tx // 32 % 4 * 32 + nt * 8 + tx % 32 // 4) * PITCH
                                                        + kk * 8 + tx % 4 + r * 4])
                    T.ptx.cvt.rna.tf32.f32(bl[nt, r], sm[W_OFF + (kt % 2 * BN + tx // 32 % 4 * 32 + nt * 8 + tx % 32 // 4) * PITCH
                                                        + kk * 8 + tx % 4 + r * 4] - T.reinterpret("float32", bh[nt, r]))
            for mt in T.unroll(4):
                for nt in T.unroll(4):
                    T.ptx.mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32(
                        part[mt * 4 + nt, 0], part[mt * 4 + nt, 1], part[mt * 4 + nt, 2], part[mt * 4 + nt, 3],
                        al[mt, 0], al[mt, 1], al[mt, 2], al[mt, 3], bh[nt, 0], bh[nt, 1],
                        part[mt * 4 + nt, 0], part[mt * 4 + nt, 1], part[mt * 4 + nt, 2], part[mt * 4 + nt, 3])
                    T.ptx.mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32(
                        part[mt * 4 + nt, 0], part[mt * 4 + nt, 1], part[mt * 4 + nt, 2], part[mt * 4 + nt, 3],
                        ah[mt, 0], ah[mt, 1], ah[mt, 2], ah[mt, 3], bl[nt, 0], bl[nt, 1],
                        part[mt * 4 + nt, 0], part[mt * 4 + nt, 1], part[mt * 4 + nt, 2], part[mt * 4 + nt, 3])
                    T.ptx.mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32(
                        part[mt * 4 + nt, 0], part[mt * 4 + nt, 1], part[mt * 4 + nt, 2], part[mt * 4 + nt, 3],
                        ah[mt, 0], ah[mt, 1], ah[mt, 2], ah[mt, 3], bh[nt, 0], bh[nt, 1],
                        part[mt * 4 + nt, 0], part[mt * 4 + nt, 1], part[mt * 4 + nt, 2], part[mt * 4 + nt, 3])
        for i in T.unroll(16):
            for e in T.unroll(4):
                acc[i, e] = acc[i, e] + part[i, e]
        T.cuda.cta_sync()
    for mt in T.unroll(4):
        for nt in T.unroll(4):
            for hh in T.unroll(2):
                for e in T.unroll(2):
                    # row m0 + wm + 16 mt + g + 8 hh, column n0 + wn + 8 nt + 2 q + e
                    if EPI == 0:
                        C[by * BM + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + hh * 8,
                          bx * BN + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = \
                            acc[mt * 4 + nt, hh * 2 + e] + bias[bx * BN + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e]
                    elif EPI == 1:
                        C[by * BM + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + hh * 8,
                          bx * BN + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = \
                            acc[mt * 4 + nt, hh * 2 + e] + bias[bx * BN + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] \
                            + res[by * BM + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + hh * 8,
                                  bx * BN + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e]
                    else:
                        C[by * BM + tx // 128 * 64 + mt * 16 + tx % 32 // 4 + hh * 8,
                          bx * BN + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e] = gelu_tanh(
                            acc[mt * 4 + nt, hh * 2 + e] + bias[bx * BN + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e])


@T.prim_func
def gemm_in(c_ptr: T.handle, a_ptr: T.handle, w_ptr: T.handle, bias_ptr: T.handle):
    C = T.match_buffer(c_ptr, (ROWS, W), "float32")
    A = T.match_buffer(a_ptr, (ROWS, D), "float32")
    Wt = T.match_buffer(w_ptr, (W, D), "float32")
    BIAS = T.match_buffer(bias_ptr, (W,), "float32")
    T.device_entry()
    bx, by = T.cta_id([W // BN, ROWS // BM])
    tx = T.thread_id([256])
    sm = T.alloc_buffer((GEMM_SMEM // 4,), "float32", scope="shared.dyn")
    acc = T.alloc_buffer((16, 4), "float32", scope="local")
    part = T.alloc_buffer((16, 4), "float32", scope="local")
    ah = T.alloc_buffer((4, 4), "uint32", scope="local")
    al = T.alloc_buffer((4, 4), "uint32", scope="local")
    bh = T.alloc_buffer((4, 2), "uint32", scope="local")
    bl = T.alloc_buffer((4, 2), "uint32", scope="local")
    gemm_body(A, Wt, C, BIAS, C, D, W, 0, sm, acc, part, ah, al, bh, bl, tx, bx, by)


@T.prim_func
def gemm_out(c_ptr: T.handle, a_ptr: T.handle, w_ptr: T.handle, bias_ptr: T.handle, res_ptr: T.handle):
    C = T.match_buffer(c_ptr, (ROWS, D), "float32")
    A = T.match_buffer(a_ptr, (ROWS, D), "float32")
    Wt = T.match_buffer(w_ptr, (D, D), "float32")
    BIAS = T.match_buffer(bias_ptr, (D,), "float32")
    RES = T.match_buffer(res_ptr, (ROWS, D), "float32")
    T.device_entry()
    bx, by = T.cta_id([D // BN, ROWS // BM])
    tx = T.thread_id([256])
    sm = T.alloc_buffer((GEMM_SMEM // 4,), "float32", scope="shared.dyn")
    acc = T.alloc_buffer((16, 4), "float32", scope="local")
    part = T.alloc_buffer((16, 4), "float32", scope="local")
    ah = T.alloc_buffer((4, 4), "uint32", scope="local")
    al = T.alloc_buffer((4, 4), "uint32", scope="local")
    bh = T.alloc_buffer((4, 2), "uint32", scope="local")
    bl = T.alloc_buffer((4, 2), "uint32", scope="local")
    gemm_body(A, Wt, C, BIAS, RES, D, D, 1, sm, acc, part, ah, al, bh, bl, tx, bx, by)


@T.prim_func
def gemm_fc1(c_ptr: T.handle, a_ptr: T.handle, w_ptr: T.handle, bias_ptr: T.handle):
    C = T.match_buffer(c_ptr, (ROWS, DI), "float32")
    A = T.match_buffer(a_ptr, (ROWS, D), "float32")
    Wt = T.match_buffer(w_ptr, (DI, D), "float32")
    BIAS = T.match_buffer(bias_ptr, (DI,), "float32")
    T.device_entry()
    bx, by = T.cta_id([DI // BN, ROWS // BM])
    tx = T.thread_id([256])
    sm = T.alloc_buffer((GEMM_SMEM // 4,), "float32", scope="shared.dyn")
    acc = T.alloc_buffer((16, 4), "float32", scope="local")
    part = T.alloc_buffer((16, 4), "float32", scope="local")
    ah = T.alloc_buffer((4, 4), "uint32", scope="local")
    al = T.alloc_buffer((4, 4), "uint32", scope="local")
    bh = T.alloc_buffer((4, 2), "uint32", scope="local")
    bl = T.alloc_buffer((4, 2), "uint32", scope="local")
    gemm_body(A, Wt, C, BIAS, C, D, DI, 2, sm, acc, part, ah, al, bh, bl, tx, bx, by)


@T.prim_func
def gemm_fc2(c_ptr: T.handle, a_ptr: T.handle, w_ptr: T.handle, bias_ptr: T.handle, res_ptr: T.handle):
    C = T.match_buffer(c_ptr, (ROWS, D), "float32")
    A = T.match_buffer(a_ptr, (ROWS, DI), "float32")
    Wt = T.match_buffer(w_ptr, (D, DI), "float32")
    BIAS = T.match_buffer(bias_ptr, (D,), "float32")
    RES = T.match_buffer(res_ptr, (ROWS, D), "float32")
    T.device_entry()
    bx, by = T.cta_id([D // BN, ROWS // BM])
    tx = T.thread_id([256])
    sm = T.alloc_buffer((GEMM_SMEM // 4,), "float32", scope="shared.dyn")
    acc = T.alloc_buffer((16, 4), "float32", scope="local")
    part = T.alloc_buffer((16, 4), "float32", scope="local")
    ah = T.alloc_buffer((4, 4), "uint32", scope="local")
    al = T.alloc_buffer((4, 4), "uint32", scope="local")
    bh = T.alloc_buffer((4, 2), "uint32", scope="local")
    bl = T.alloc_buffer((4, 2), "uint32", scope="local")
    gemm_body(A, Wt, C, BIAS, RES, DI, D, 1, sm, acc, part, ah, al, bh, bl, tx, bx, by)


@T.prim_func
def layer_norm_rows(x_ptr: T.handle, w_ptr: T.handle, b_ptr: T.handle, eps: T.float32, out_ptr: T.handle):
    X = T.match_buffer(x_ptr, (ROWS, D), "float32")
    WN = T.match_buffer(w_ptr, (D,), "float32")
    BN_ = T.match_buffer(b_ptr, (D,), "float32")
    OUT = T.match_buffer(out_ptr, (ROWS, D), "float32")
    T.device_entry()
    bx = T.cta_id([ROWS // 8])
    tx = T.thread_id([256])
    v = T.alloc_buffer((8,), "float32", scope="local")
    r = T.alloc_buffer((8,), "float32", scope="local")
    s = T.alloc_buffer((3,), "float32", scope="local")      # sum, mean, sd
    # row = 8 bx + warp; lane holds columns 4 lane .. + 3 and 128 + 4 lane .. + 3
    for e in T.vectorized(4):
        v[e] = X[bx * 8 + tx // 32, tx % 32 * 4 + e]
    for e in T.vectorized(4):
        v[4 + e] = X[bx * 8 + tx // 32, 128 + tx % 32 * 4 + e]
    s[0] = T.float32(0)
    for j in T.unroll(8):
        s[0] = s[0] + v[j]
    for st in T.unroll(5):
        s[0] = s[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), s[0], 16 >> st, 32, 32)
    s[1] = s[0] / T.float32(D)
    s[0] = T.float32(0)
    for j in T.unroll(8):
        s[0] = s[0] + (v[j] - s[1]) * (v[j] - s[1])
    for st in T.unroll(5):
        s[0] = s[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), s[0], 16 >> st, 32, 32)
    s[2] = T.sqrt(s[0] / T.float32(D) + eps)
    for j in T.unroll(4):
        r[j] = (v[j] - s[1]) / s[2] * WN[tx % 32 * 4 + j] + BN_[tx % 32 * 4 + j]
        r[4 + j] = (v[4 + j] - s[1]) / s[2] * WN[128 + tx % 32 * 4 + j] + BN_[128 + tx % 32 * 4 + j]
    for e in T.vectorized(4):
        OUT[bx * 8 + tx // 32, tx % 32 * 4 + e] = r[e]
    for e in T.vectorized(4):
        OUT[bx * 8 + tx // 32, 128 + tx % 32 * 4 + e] = r[4 + e]


@T.prim_func
def implicit_filter(w1_ptr: T.handle, b1_ptr: T.handle, sin_freq_ptr: T.handle, w2_ptr: T.handle, b2_ptr: T.handle,
                    w3_ptr: T.handle, b3_ptr: T.handle, w_final_ptr: T.handle, filter_bias_ptr: T.handle,
                    deltas_ptr: T.handle, shift: T.float32, hk_ptr: T.handle):
    W1 = T.match_buffer(w1_ptr, (F * 5,), "float32")
    B1 = T.match_buffer(b1_ptr, (F,), "float32")
    SF = T.match_buffer(sin_freq_ptr, (F,), "float32")
    W2 = T.match_buffer(w2_ptr, (F * F,), "float32")
    B2 = T.match_buffer(b2_ptr, (F,), "float32")
    W3 = T.match_buffer(w3_ptr, (F * F,), "float32")
    B3 = T.match_buffer(b3_ptr, (F,), "float32")
    WF = T.match_buffer(w_final_ptr, (D * F,), "float32")
    FB = T.match_buffer(filter_bias_ptr, (D,), "float32")
    DL = T.match_buffer(deltas_ptr, (D,), "float32")
    HK = T.match_buffer(hk_ptr, (L * D,), "float32")
    T.device_entry()
    i = T.cta_id([L])
    tx = T.thread_id([D])
    z = T.alloc_buffer((5,), "float32", scope="shared")
    ha = T.alloc_buffer((F,), "float32", scope="shared")
    hb = T.alloc_buffer((F,), "float32", scope="shared")
    tw = T.alloc_buffer((2,), "float32", scope="local")     # t, w
    acc = T.alloc_buffer((1,), "float32", scope="local")
    # positional features in fp32 as the reference forms them (linspace steps, 2 pi t_rescaled / L)
    tw[0] = T.Select(i < L // 2, T.float32(1.0 / (L - 1)) * T.Cast("float32", i),
                     T.float32(1) - T.float32(1.0 / (L - 1)) * T.Cast("float32", L - 1 - i))
    tw[1] = T.float32(6.2831855) * T.Cast("float32", i) * T.float32(1.0 / L)
    if tx == 0:
        z[0] = tw[0]
        z[1] = T.call_pure_extern("float32", "cosf", T.float32(-1e-4) * tw[1])
        z[2] = T.call_pure_extern("float32", "cosf", -tw[1])
        z[3] = T.call_pure_extern("float32", "sinf", T.float32(-1e-4) * tw[1])
        z[4] = T.call_pure_extern("float32", "sinf", -tw[1])
    T.cuda.cta_sync()
    if tx < F:
        acc[0] = B1[tx]
        for k in T.serial(5):
            acc[0] = acc[0] + W1[tx * 5 + k] * z[k]
        ha[tx] = T.call_pure_extern("float32", "sinf", SF[tx] * acc[0])
    T.cuda.cta_sync()
    if tx < F:
        acc[0] = B2[tx]
        for k in T.serial(F):
            acc[0] = acc[0] + W2[tx * F + k] * ha[k]
        hb[tx] = T.call_pure_extern("float32", "sinf", SF[tx] * acc[0])
    T.cuda.cta_sync()
    if tx < F:
        acc[0] = B3[tx]
        for k in T.serial(F):
            acc[0] = acc[0] + W3[tx * F + k] * hb[k]
        ha[tx] = T.call_pure_extern("float32", "sinf", SF[tx] * acc[0])
    T.cuda.cta_sync()
    acc[0] = T.float32(0)
    for k in T.serial(F):
        acc[0] = acc[0] + WF[tx * F + k] * ha[k]
    HK[i * D + tx] = acc[0] * (T.call_pure_extern("float32", "expf", -tw[0] * T.abs(DL[tx])) + shift) \
        + FB[tx]


@T.prim_func
def mixer_conv(u_ptr: T.handle, conv_w_ptr: T.handle, conv_b_ptr: T.handle, hk_ptr: T.handle,
               filter_bias_ptr: T.handle, gated_ptr: T.handle):
    U = T.match_buffer(u_ptr, (ROWS, W), "float32")
    CW = T.match_buffer(conv_w_ptr, (W * 3,), "float32")
    CB = T.match_buffer(conv_b_ptr, (W,), "float32")
    HK = T.match_buffer(hk_ptr, (D, L), "float32")
    FB = T.match_buffer(filter_bias_ptr, (D,), "float32")
    GT = T.match_buffer(gated_ptr, (ROWS, D), "float32")
    T.device_entry()
    cb, b = T.cta_id([D // CH, B])
    tx = T.thread_id([256])
    sm = T.alloc_buffer((MIX_SMEM // 4,), "float32", scope="shared.dyn")
    cw = T.alloc_buffer((3, 3), "float32", scope="local")
    cbv = T.alloc_buffer((3,), "float32", scope="local")
    o = T.alloc_buffer((3,), "float32", scope="local")
    y = T.alloc_buffer((1,), "float32", scope="local")
    fb = T.alloc_buffer((1,), "float32", scope="local")
    # sK [32 channels][257] (the filter of channel c = row c of hk), g = v * x1 [t][32], x0 [t][32];
    # lane = channel c0 + lane, thread group tg = tx / 32
    for it in T.serial(CH * L // 256):
        sm[(it * 256 + tx) // L * HKP + tx % L] = HK[cb * CH + (it * 256 + tx) // L, tx % L]
    for part in T.unroll(3):
        cbv[part] = CB[part * D + cb * CH + tx % 32]
        for j in T.unroll(3):
            cw[part, j] = CW[(part * D + cb * CH + tx % 32) * 3 + j]
    for it in T.serial(L // 8):                  # t = tg + 8 it
        for part in T.unroll(3):
            o[part] = cw[part, 0] * T.if_then_else(tx // 32 + it * 8 >= 2, U[b * L + tx // 32 + it * 8 - 2, part * D + cb * CH + tx % 32], T.float32(0)) \
                + cw[part, 1] * T.if_then_else(tx // 32 + it * 8 >= 1, U[b * L + tx // 32 + it * 8 - 1, part * D + cb * CH + tx % 32], T.float32(0)) \
                + cw[part, 2] * U[b * L + tx // 32 + it * 8, part * D + cb * CH + tx % 32] + cbv[part]
        sm[X0_OFF + (tx // 32 + it * 8) * CH + tx % 32] = o[0]
        sm[G_OFF + (tx // 32 + it * 8) * CH + tx % 32] = o[2] * o[1]
    T.cuda.cta_sync()
    fb[0] = FB[cb * CH + tx % 32]
    for j in T.serial(L // 8):
        # interleave short and long rows across the 8 thread groups: t = 8 j + tg (j even), 8 j + 7 - tg (j odd)
        y[0] = T.float32(0)
        for s in T.serial(j * 8 + T.Select(j % 2 == 0, tx // 32, 7 - tx // 32) + 1):
            y[0] = y[0] + sm[tx % 32 * HKP + s] * sm[G_OFF + (j * 8 + T.Select(j % 2 == 0, tx // 32, 7 - tx // 32) - s) * CH + tx % 32]
        GT[b * L + j * 8 + T.Select(j % 2 == 0, tx // 32, 7 - tx // 32), cb * CH + tx % 32] = \
            (y[0] + sm[G_OFF + (j * 8 + T.Select(j % 2 == 0, tx // 32, 7 - tx // 32)) * CH + tx % 32] * fb[0]) \
            * sm[X0_OFF + (j * 8 + T.Select(j % 2 == 0, tx // 32, 7 - tx // 32)) * CH + tx % 32]


MKB_PLAN = """/* mkb:plan
scratch n1 fp32[batch_size * seq_len * d_model]
scratch u fp32[batch_size * seq_len * inner_width]
scratch hk fp32[seq_len * d_model]
scratch gated fp32[batch_size * seq_len * d_model]
scratch r1 fp32[batch_size * seq_len * d_model]
scratch n2 fp32[batch_size * seq_len * d_model]
scratch act fp32[batch_size * seq_len * d_inner]
launch layer_norm_rows grid(batch_size * seq_len / 8) block(256)
  args(hidden_states, norm1_weight, norm1_bias, f32(layer_norm_eps), n1)
launch gemm_in grid(inner_width / 128, batch_size * seq_len / 128) block(256) shared(73728)
  args(u, n1, in_proj_weight, in_proj_bias)
launch implicit_filter grid(seq_len) block(d_model)
  args(filter_linear1_weight, filter_linear1_bias, sin_freq, filter_linear2_weight, filter_linear2_bias,
       filter_linear3_weight, filter_linear3_bias, filter_linear_final_weight, filter_bias, exp_mod_deltas,
       f32(exp_mod_shift), hk)
launch mixer_conv grid(d_model / 32, batch_size) block(256) shared(98432)
  args(u, short_conv_weight, short_conv_bias, hk, filter_bias, gated)
launch gemm_out grid(d_model / 128, batch_size * seq_len / 128) block(256) shared(73728)
  args(r1, gated, out_proj_weight, out_proj_bias, hidden_states)
launch layer_norm_rows grid(batch_size * seq_len / 8) block(256)
  args(r1, norm2_weight, norm2_bias, f32(layer_norm_eps), n2)
launch gemm_fc1 grid(d_inner / 128, batch_size * seq_len / 128) block(256) shared(73728)
  args(act, n2, mlp_fc1_weight, mlp_fc1_bias)
launch gemm_fc2 grid(d_model / 128, batch_size * seq_len / 128) block(256) shared(73728)
  args(output, act, mlp_fc2_weight, mlp_fc2_bias, r1)
*/"""
