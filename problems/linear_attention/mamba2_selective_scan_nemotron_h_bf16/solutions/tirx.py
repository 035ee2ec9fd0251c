"""The Mamba2 mixer (Nemotron-H shape) in TIRx: the algorithm of solutions/cuda.cu, seven launches, every
product on bf16 tensor cores (mma.sync m16n8k16 through T.ptx, fp32 accumulation), eager's bf16 rounding
points kept (the projection, the conv output, sigmoid and product, each dt step, y, the normalized y, the
weight and gate products, the output).
  gemm_in / gemm_out  C[m][n] = sum_k A[m][k] W[n][k]: 128 x 256 tiles, 8 warps of 64 x 64, k steps of 32
                      through a 4-stage cp.async ring (80-byte shared rows), ldmatrix.x4 fragments, the bf16
                      tile staged through shared memory for 16-byte stores (one macro, two shapes: the in-
                      and the out-projection).
  conv_silu           depthwise causal conv (4 taps, fmaf from the bias) rounded to bf16; SiLU as bf16
                      sigmoid and bf16 product; token-major [token][20480] (x, B, C).
  dt_prep             dt = clamp(softplus(dt_raw + dt_bias)) (bf16 steps), a = -exp(A_log) dt (fp32),
                      head-major [b][h][t].
  chunk_scan_states   (head, batch): the states entering chunks 1..3 in mma accumulators across the chunks,
                      H_{c+1} = exp(sum a of chunk c) H_c + sum_t exp(a_cum[last] - a_cum[t]) dt_t x_t B_t^T;
                      written as bf16 hi/lo.
  chunk_output        (64-token block, chunk, batch * head): y = exp(a_cum[t]) (C_t . H_c) + sum_{s<=t}
                      (C_t . B_s) exp(a_cum[t] - a_cum[s]) dt_s x_s + D x_t, the causal part in 64 x 64
                      blocks whose masked scores stay in registers (split hi/lo) as the next A operand.
  gated_norm          (token, group of 2048): rsqrt(mean y^2 + eps), then the bf16 products with the norm
                      weight and silu(gate).
fp32 operands of the reference (the decay-weighted x dt, the masked scores, the entering states) are split
into bf16 hi + lo and multiplied twice. Head h reads group h % 8 of B and C. Fragments are read with 32-bit
loads through uint32 views (T.decl_buffer) of bf16 buffers; the prefix sums of a are one warp's (4 a lane in
order, then a shuffle-up scan). The cuda solution's contracted sums (the conv taps, the norm's squares, D x)
are written as fmaf."""
from tvm.script import tirx as T

B, S, H, P, N, G, L, KC = 8, 512, 256, 64, 256, 8, 128, 4
NC = S // L
HID, I = 8192, H * P                          # hidden, intermediate (16384)
GTS = G * N                                   # 2048
CD = I + 2 * GTS                              # conv channels (20480)
PROJ = I + CD + H                             # projection (37120)
TOK = B * S                                   # 4096 tokens
PADL, PADN, PAD64 = L + 8, N + 8, 64 + 8
# GEMM tiles
BM, BN, BK, STAGES = 128, 256, 32, 4
PITCH, OPITCH = BK + 8, BN + 8
GEMM_SMEM = STAGES * (BM + BN) * PITCH * 2    # 122880
W_OFF = STAGES * BM * PITCH
# chunk_scan_states shared memory: (w dt x)^T hi, lo [64][136], B^T [256][136] (bf16), prefix sums [128] fp32
XL_OFF, BT_OFF = P * PADL, 2 * P * PADL
SS_SMEM = (2 * P + N) * PADL * 2 + L * 4      # 104960
SS_F = (2 * P + N) * PADL // 2                # fp32 index of the prefix sums
# chunk_output shared memory: C rows [64][264]; region R: H hi, lo [64][264] each, or B rows [64][264] and
# x^T [64][72]; prefix sums and dt [128] fp32 each
R_OFF = 64 * PADN
HL_OFF = R_OFF + P * PADN
XT_OFF = R_OFF + 64 * PADN
CO_SMEM = (64 + 2 * P) * PADN * 2 + 2 * L * 4  # 102400
CO_F = (64 + 2 * P) * PADN // 2
ENTER = B * (NC - 1) * H * P * N
assert GEMM_SMEM == 122880 and SS_SMEM == 104960 and CO_SMEM == 102400


def expf(x):
    return T.call_pure_extern("float32", "expf", x)


def fma(x, y, z):
    return T.call_pure_extern("float32", "fmaf", x, y, z)


def bfr(v):
    # round to bf16 and widen back (an eager bf16 intermediate)
    return T.Cast("float32", T.Cast("bfloat16", v))


def hi(v):
    return T.Cast("bfloat16", v)


def lo(v):
    return T.Cast("bfloat16", v - T.Cast("float32", T.Cast("bfloat16", v)))


def pack(x, y):
    # two bf16 values as one 32-bit register, x in the low half
    return T.bitwise_or(T.Cast("uint32", T.reinterpret("uint16", x)),
                        T.shift_left(T.Cast("uint32", T.reinterpret("uint16", y)), T.uint32(16)))


@T.macro
def mma(acc, i, a, b0, b1):
    # acc[i, 0:4] += a (b0, b1)
    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
        acc[i, 0], acc[i, 1], acc[i, 2], acc[i, 3], a[0], a[1], a[2], a[3], b0, b1,
        acc[i, 0], acc[i, 1], acc[i, 2], acc[i, 3])


@T.macro
def load_a(a, Au, base, ld, r, k0, lane):
    # A fragment (16 x 16 at row r, column k0) of a row-major bf16 array of pitch ld, as uint32 words
    a[0] = Au[(base + (r + lane // 4) * ld + k0 + lane % 4 * 2) // 2]
    a[1] = Au[(base + (r + lane // 4 + 8) * ld + k0 + lane % 4 * 2) // 2]
    a[2] = Au[(base + (r + lane // 4) * ld + k0 + lane % 4 * 2 + 8) // 2]
    a[3] = Au[(base + (r + lane // 4 + 8) * ld + k0 + lane % 4 * 2 + 8) // 2]


@T.macro
def prefix128(src, sbuf, soff, lane, v, pf):
    # inclusive prefix sums of the 128 fp32 values src(0..127), 4 a lane in order then across lanes, by one warp
    pf[0] = T.float32(0)
    for j in T.unroll(4):
        pf[0] = pf[0] + src[lane * 4 + j]
        v[j] = pf[0]
    for st in T.unroll(5):
        pf[1] = T.tvm_warp_shuffle_up(T.uint32(0xFFFFFFFF), pf[0], 1 << st, 32, 32)
        if lane >= (1 << st):
            pf[0] = pf[0] + pf[1]
    pf[2] = T.tvm_warp_shuffle_up(T.uint32(0xFFFFFFFF), pf[0], 1, 32, 32)
    if lane == 0:
        pf[2] = T.float32(0)
    for j in T.unroll(4):
        sbuf[soff + lane * 4 + j] = pf[2] + v[j]


@T.macro
def gemm_body(A, W, C, KD, ND, sm, smu, acc, af, bq, tx, bx, by):
    # C[m0 .., n0 ..] for m0 = 128 bx, n0 = 256 by; K = KD
    for i in T.unroll(4):
        for j in T.unroll(8):
            for e in T.unroll(4):
                acc[i * 8 + j, e] = T.float32(0)
    for s in T.unroll(STAGES - 1):
        for i in T.unroll(2):      # 128 rows x 4 chunks of 8
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([s * BM * PITCH + (tx + i * 256) // 4 * PITCH + (tx + i * 256) % 4 * 8]),
                A.ptr_to([bx * BM + (tx + i * 256) // 4, s * BK + (tx + i * 256) % 4 * 8]), 16)
        for i in T.unroll(4):      # 256 rows x 4 chunks of 8
            T.ptx.cp.async_.cg.shared.global_(
                sm.ptr_to([W_OFF + s * BN * PITCH + (tx + i * 256) // 4 * PITCH + (tx + i * 256) % 4 * 8]),
                W.ptr_to([by * BN + (tx + i * 256) // 4, s * BK + (tx + i * 256) % 4 * 8]), 16)
        T.ptx.cp.async_.commit_group()
    for kt in T.serial(KD // BK):
        T.ptx.cp.async_.wait_group(STAGES - 2)
        T.cuda.cta_sync()          # tile kt landed for every thread; the stage of tile kt - 1 is free
        if kt + STAGES - 1 < KD // BK:
            for i in T.unroll(2):
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([(kt + STAGES - 1) % STAGES * BM * PITCH + (tx + i * 256) // 4 * PITCH + (tx + i * 256) % 4 * 8]),
                    A.ptr_to([bx * BM + (tx + i * 256) // 4, (kt + STAGES - 1) * BK + (tx + i * 256) % 4 * 8]), 16)
            for i in T.unroll(4):
                T.ptx.cp.async_.cg.shared.global_(
                    sm.ptr_to([W_OFF + (kt + STAGES - 1) % STAGES * BN * PITCH + (tx + i * 256) // 4 * PITCH
                               + (tx + i * 256) % 4 * 8]),
                    W.ptr_to([by * BN + (tx + i * 256) // 4, (kt + STAGES - 1) * BK + (tx + i * 256) % 4 * 8]), 16)
        T.ptx.cp.async_.commit_group()
        for kk in T.unroll(BK // 16):
            for mt in T.unroll(4):     # warp rows wm = 64 (warp / 4)
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                    af[mt, 0], af[mt, 1], af[mt, 2], af[mt, 3],
                    sm.ptr_to([kt % STAGES * BM * PITCH + (tx // 128 * 64 + mt * 16 + tx % 16) * PITCH
                               + kk * 16 + tx % 32 // 16 * 8]))
            for p in T.unroll(4):      # two n8 tiles a load; warp columns wn = 64 (warp % 4)
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                    bq[2 * p, 0], bq[2 * p, 1], bq[2 * p + 1, 0], bq[2 * p + 1, 1],
                    sm.ptr_to([W_OFF + kt % STAGES * BN * PITCH
                               + (tx // 32 % 4 * 64 + p * 16 + tx % 32 // 16 * 8 + tx % 8) * PITCH
                               + kk * 16 + tx % 16 // 8 * 8]))
            for mt in T.unroll(4):
                for nt in T.unroll(8):
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        acc[mt * 8 + nt, 0], acc[mt * 8 + nt, 1], acc[mt * 8 + nt, 2], acc[mt * 8 + nt, 3],
                        af[mt, 0], af[mt, 1], af[mt, 2], af[mt, 3], bq[nt, 0], bq[nt, 1],
                        acc[mt * 8 + nt, 0], acc[mt * 8 + nt, 1], acc[mt * 8 + nt, 2], acc[mt * 8 + nt, 3])
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()              # the ring is free: stage the bf16 tile [128][264]
    for mt in T.unroll(4):
        for nt in T.unroll(8):
            for hh in T.unroll(2):
                smu[((tx // 128 * 64 + mt * 16 + tx % 32 // 4 + hh * 8) * OPITCH + tx // 32 % 4 * 64 + nt * 8
                     + tx % 4 * 2) // 2] = pack(hi(acc[mt * 8 + nt, hh * 2]), hi(acc[mt * 8 + nt, hh * 2 + 1]))
    T.cuda.cta_sync()
    for it in T.serial(BM * BN // 8 // 256):
        for e in T.vectorized(8):
            C[bx * BM + (it * 256 + tx) // (BN // 8), by * BN + tx % (BN // 8) * 8 + e] = sm[
                (it * 256 + tx) // (BN // 8) * OPITCH + tx % (BN // 8) * 8 + e]


@T.prim_func
def gemm_in(a_ptr: T.handle, w_ptr: T.handle, c_ptr: T.handle):
    A = T.match_buffer(a_ptr, (TOK, HID), "bfloat16")
    W = T.match_buffer(w_ptr, (PROJ, HID), "bfloat16")
    C = T.match_buffer(c_ptr, (TOK, PROJ), "bfloat16")
    T.device_entry()
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        bx, by = T.cta_id([TOK // BM, PROJ // BN])
        tx = T.thread_id([256])
        sm = T.alloc_buffer((GEMM_SMEM // 2,), "bfloat16", scope="shared.dyn")
        smu = T.decl_buffer((GEMM_SMEM // 4,), "uint32", data=sm.data, scope="shared.dyn")
        acc = T.alloc_buffer((32, 4), "float32", scope="local")
        af = T.alloc_buffer((4, 4), "uint32", scope="local")
        bq = T.alloc_buffer((8, 2), "uint32", scope="local")
        gemm_body(A, W, C, HID, PROJ, sm, smu, acc, af, bq, tx, bx, by)


@T.prim_func
def gemm_out(a_ptr: T.handle, w_ptr: T.handle, c_ptr: T.handle):
    A = T.match_buffer(a_ptr, (TOK, I), "bfloat16")
    W = T.match_buffer(w_ptr, (HID, I), "bfloat16")
    C = T.match_buffer(c_ptr, (TOK, HID), "bfloat16")
    T.device_entry()
    with T.attr(0, "tirx.launch_bounds_min_blocks_per_sm", 1):
        bx, by = T.cta_id([TOK // BM, HID // BN])
        tx = T.thread_id([256])
        sm = T.alloc_buffer((GEMM_SMEM // 2,), "bfloat16", scope="shared.dyn")
        smu = T.decl_buffer((GEMM_SMEM // 4,), "uint32", data=sm.data, scope="shared.dyn")
        acc = T.alloc_buffer((32, 4), "float32", scope="local")
        af = T.alloc_buffer((4, 4), "uint32", scope="local")
        bq = T.alloc_buffer((8, 2), "uint32", scope="local")
        gemm_body(A, W, C, I, HID, sm, smu, acc, af, bq, tx, bx, by)


@T.prim_func
def conv_silu(proj_ptr: T.handle, conv_w_ptr: T.handle, conv_b_ptr: T.handle, act_ptr: T.handle):
    PR = T.match_buffer(proj_ptr, (TOK, PROJ), "bfloat16")
    CW = T.match_buffer(conv_w_ptr, (CD * KC,), "bfloat16")
    CB = T.match_buffer(conv_b_ptr, (CD,), "bfloat16")
    ACT = T.match_buffer(act_ptr, (TOK, CD), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOK * CD // 8 // 256])
    tx = T.thread_id([256])
    wv = T.alloc_buffer((8 * KC,), "bfloat16", scope="local")
    bv = T.alloc_buffer((8,), "bfloat16", scope="local")
    xv = T.alloc_buffer((8,), "bfloat16", scope="local")
    u = T.alloc_buffer((8,), "float32", scope="local")
    ov = T.alloc_buffer((8,), "bfloat16", scope="local")
    sg = T.alloc_buffer((2,), "float32", scope="local")
    # v = 256 bx + tx: token row v / 2560, channels c0 = (v % 2560) * 8 .. + 7, t = row % 512
    for j in T.unroll(4):
        for e in T.vectorized(8):
            wv[j * 8 + e] = CW[(bx * 256 + tx) % (CD // 8) * 8 * KC + j * 8 + e]
    for e in T.vectorized(8):
        bv[e] = CB[(bx * 256 + tx) % (CD // 8) * 8 + e]
    for e in T.unroll(8):
        u[e] = T.Cast("float32", bv[e])
    for j in T.unroll(KC):           # tap j reads token t - 3 + j; zero history before token 0
        if (bx * 256 + tx) // (CD // 8) % S + j >= KC - 1:
            for e in T.vectorized(8):
                xv[e] = PR[(bx * 256 + tx) // (CD // 8) + j - (KC - 1), I + (bx * 256 + tx) % (CD // 8) * 8 + e]
            for e in T.unroll(8):
                u[e] = fma(T.Cast("float32", wv[e * KC + j]), T.Cast("float32", xv[e]), u[e])
    for e in T.unroll(8):
        sg[0] = bfr(u[e])
        sg[1] = bfr(T.float32(1) / (T.float32(1) + expf(T.float32(0) - sg[0])))
        ov[e] = T.Cast("bfloat16", sg[0] * sg[1])
    for e in T.vectorized(8):
        ACT[(bx * 256 + tx) // (CD // 8), (bx * 256 + tx) % (CD // 8) * 8 + e] = ov[e]


@T.prim_func
def dt_prep(proj_ptr: T.handle, dt_bias_ptr: T.handle, a_log_ptr: T.handle, lo_: T.float32, hi_: T.float32,
            dt_ptr: T.handle, a_ptr: T.handle):
    PR = T.match_buffer(proj_ptr, (TOK, PROJ), "bfloat16")
    DTB = T.match_buffer(dt_bias_ptr, (H,), "bfloat16")
    ALOG = T.match_buffer(a_log_ptr, (H,), "bfloat16")
    DT = T.match_buffer(dt_ptr, (B * H * S,), "float32")
    AH = T.match_buffer(a_ptr, (B * H * S,), "float32")
    T.device_entry()
    bx = T.cta_id([TOK * H // 256])
    tx = T.thread_id([256])
    sv = T.alloc_buffer((3,), "float32", scope="local")
    # e = 256 bx + tx: token row = bx (256 heads a row), h = tx; b = row / 512, t = row % 512
    sv[0] = bfr(T.Cast("float32", PR[bx, PROJ - H + tx]) + T.Cast("float32", DTB[tx]))
    sv[1] = bfr(T.Select(sv[0] > T.float32(20), sv[0], T.call_pure_extern("float32", "log1pf", expf(sv[0]))))
    sv[2] = bfr(T.min(T.max(sv[1], lo_), hi_))
    DT[(bx // S * H + tx) * S + bx % S] = sv[2]
    AH[(bx // S * H + tx) * S + bx % S] = (T.float32(0) - expf(T.Cast("float32", ALOG[tx]))) * sv[2]


@T.prim_func
def chunk_scan_states(act_ptr: T.handle, dt_ptr: T.handle, a_ptr: T.handle, enter_hi_ptr: T.handle,
                      enter_lo_ptr: T.handle):
    ACT = T.match_buffer(act_ptr, (TOK, CD), "bfloat16")
    DT = T.match_buffer(dt_ptr, (B * H * S,), "float32")
    AH = T.match_buffer(a_ptr, (B * H * S,), "float32")
    EH = T.match_buffer(enter_hi_ptr, (ENTER,), "bfloat16")
    EL = T.match_buffer(enter_lo_ptr, (ENTER,), "bfloat16")
    T.device_entry()
    h, b = T.cta_id([H, B])
    tx = T.thread_id([256])
    EHu = T.decl_buffer((ENTER // 2,), "uint32", data=EH.data)
    ELu = T.decl_buffer((ENTER // 2,), "uint32", data=EL.data)
    sm = T.alloc_buffer((SS_SMEM // 2,), "bfloat16", scope="shared.dyn")
    smu = T.decl_buffer((SS_SMEM // 4,), "uint32", data=sm.data, scope="shared.dyn")
    smf = T.decl_buffer((SS_SMEM // 4,), "float32", data=sm.data, scope="shared.dyn")
    acc = T.alloc_buffer((16, 4), "float32", scope="local")     # [mt * 8 + nt]
    ah = T.alloc_buffer((2, 4), "uint32", scope="local")
    al = T.alloc_buffer((2, 4), "uint32", scope="local")
    a1 = T.alloc_buffer((4,), "uint32", scope="local")
    bb = T.alloc_buffer((8, 2), "uint32", scope="local")
    bv = T.alloc_buffer((8,), "bfloat16", scope="local")
    v4 = T.alloc_buffer((4,), "float32", scope="local")
    pf = T.alloc_buffer((3,), "float32", scope="local")
    wl = T.alloc_buffer((2,), "float32", scope="local")        # w, the chunk's decay
    # warp: d rows r0 = 32 (warp / 4) (2 m16 tiles), n columns c0 = 64 (warp % 4) (8 n8 tiles); group h % 8
    for i in T.unroll(16):
        for e in T.unroll(4):
            acc[i, e] = T.float32(0)
    for c in T.serial(NC - 1):
        T.cuda.cta_sync()          # the previous chunk's operands are consumed
        if tx < 32:
            prefix128(AH[(b * H + h) * S + c * L:(b * H + h) * S + c * L + L], smf, SS_F, tx, v4, pf)
        for it in T.unroll(L * N // 8 // 256):       # thread: token t = v % 128, n0 = (v / 128) * 8
            for e in T.vectorized(8):
                bv[e] = ACT[b * S + c * L + tx % L, I + h % G * N + (it * 2 + tx // L) * 8 + e]
            for e in T.unroll(8):
                sm[BT_OFF + ((it * 2 + tx // L) * 8 + e) * PADL + tx % L] = bv[e]
        T.cuda.cta_sync()          # prefix sums ready
        for it in T.unroll(L * P // 8 // 256):       # thread: token t = v % 128, d0 = (v / 128) * 8
            wl[0] = expf(smf[SS_F + L - 1] - smf[SS_F + tx % L]) * DT[(b * H + h) * S + c * L + tx % L]
            for e in T.vectorized(8):
                bv[e] = ACT[b * S + c * L + tx % L, h * P + (it * 2 + tx // L) * 8 + e]
            for e in T.unroll(8):
                sm[((it * 2 + tx // L) * 8 + e) * PADL + tx % L] = hi(wl[0] * T.Cast("float32", bv[e]))
                sm[XL_OFF + ((it * 2 + tx // L) * 8 + e) * PADL + tx % L] = lo(wl[0] * T.Cast("float32", bv[e]))
        wl[1] = expf(smf[SS_F + L - 1])
        for i in T.unroll(16):
            for e in T.unroll(4):
                acc[i, e] = acc[i, e] * wl[1]
        T.cuda.cta_sync()
        for k0 in T.serial(L // 16):
            for mt in T.unroll(2):
                load_a(a1, smu, 0, PADL, tx // 128 * 32 + mt * 16, k0 * 16, tx % 32)
                for e in T.unroll(4):
                    ah[mt, e] = a1[e]
                load_a(a1, smu, XL_OFF, PADL, tx // 128 * 32 + mt * 16, k0 * 16, tx % 32)
                for e in T.unroll(4):
                    al[mt, e] = a1[e]
            for nt in T.unroll(8):
                bb[nt, 0] = smu[(BT_OFF + (tx // 32 % 4 * 64 + nt * 8 + tx % 32 // 4) * PADL + k0 * 16 + tx % 4 * 2) // 2]
                bb[nt, 1] = smu[(BT_OFF + (tx // 32 % 4 * 64 + nt * 8 + tx % 32 // 4) * PADL + k0 * 16 + tx % 4 * 2 + 8) // 2]
            for mt in T.unroll(2):
                for nt in T.unroll(8):
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        acc[mt * 8 + nt, 0], acc[mt * 8 + nt, 1], acc[mt * 8 + nt, 2], acc[mt * 8 + nt, 3],
                        ah[mt, 0], ah[mt, 1], ah[mt, 2], ah[mt, 3], bb[nt, 0], bb[nt, 1],
                        acc[mt * 8 + nt, 0], acc[mt * 8 + nt, 1], acc[mt * 8 + nt, 2], acc[mt * 8 + nt, 3])
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        acc[mt * 8 + nt, 0], acc[mt * 8 + nt, 1], acc[mt * 8 + nt, 2], acc[mt * 8 + nt, 3],
                        al[mt, 0], al[mt, 1], al[mt, 2], al[mt, 3], bb[nt, 0], bb[nt, 1],
                        acc[mt * 8 + nt, 0], acc[mt * 8 + nt, 1], acc[mt * 8 + nt, 2], acc[mt * 8 + nt, 3])
        # acc is the state entering chunk c + 1: row d = r0 + 16 mt + lane / 4 (+ 8), column n = c0 + 8 nt + 2 (lane % 4)
        for mt in T.unroll(2):
            for nt in T.unroll(8):
                for hh in T.unroll(2):
                    EHu[((((b * (NC - 1) + c) * H + h) * P + tx // 128 * 32 + mt * 16 + tx % 32 // 4 + hh * 8) * N
                         + tx // 32 % 4 * 64 + nt * 8 + tx % 4 * 2) // 2] = pack(
                        hi(acc[mt * 8 + nt, hh * 2]), hi(acc[mt * 8 + nt, hh * 2 + 1]))
                    ELu[((((b * (NC - 1) + c) * H + h) * P + tx // 128 * 32 + mt * 16 + tx % 32 // 4 + hh * 8) * N
                         + tx // 32 % 4 * 64 + nt * 8 + tx % 4 * 2) // 2] = pack(
                        lo(acc[mt * 8 + nt, hh * 2]), lo(acc[mt * 8 + nt, hh * 2 + 1]))


@T.prim_func
def chunk_output(act_ptr: T.handle, dt_ptr: T.handle, a_ptr: T.handle, d_ptr: T.handle, enter_hi_ptr: T.handle,
                 enter_lo_ptr: T.handle, y_ptr: T.handle):
    ACT = T.match_buffer(act_ptr, (TOK, CD), "bfloat16")
    DT = T.match_buffer(dt_ptr, (B * H * S,), "float32")
    AH = T.match_buffer(a_ptr, (B * H * S,), "float32")
    DD = T.match_buffer(d_ptr, (H,), "bfloat16")
    EH = T.match_buffer(enter_hi_ptr, (ENTER // N, N), "bfloat16")
    EL = T.match_buffer(enter_lo_ptr, (ENTER // N, N), "bfloat16")
    Y = T.match_buffer(y_ptr, (TOK * I,), "bfloat16")
    T.device_entry()
    tb, c, bh = T.cta_id([L // 64, NC, B * H])
    tx = T.thread_id([128])
    Yu = T.decl_buffer((TOK * I // 2,), "uint32", data=Y.data)
    ACTu = T.decl_buffer((TOK * CD // 2,), "uint32", data=ACT.data)
    sm = T.alloc_buffer((CO_SMEM // 2,), "bfloat16", scope="shared.dyn")
    smu = T.decl_buffer((CO_SMEM // 4,), "uint32", data=sm.data, scope="shared.dyn")
    smf = T.decl_buffer((CO_SMEM // 4,), "float32", data=sm.data, scope="shared.dyn")
    acc = T.alloc_buffer((8, 4), "float32", scope="local")
    sc = T.alloc_buffer((8, 4), "float32", scope="local")
    a = T.alloc_buffer((4,), "uint32", scope="local")
    mh = T.alloc_buffer((4, 4), "uint32", scope="local")
    ml = T.alloc_buffer((4, 4), "uint32", scope="local")
    mv = T.alloc_buffer((4,), "float32", scope="local")
    v4 = T.alloc_buffer((4,), "float32", scope="local")
    pf = T.alloc_buffer((3,), "float32", scope="local")
    ex = T.alloc_buffer((3,), "float32", scope="local")      # a_cum of the two fragment rows, D[h]
    xb = T.alloc_buffer((8,), "bfloat16", scope="local")
    xu = T.alloc_buffer((1,), "uint32", scope="local")
    # b = bh / 256, h = bh % 256; the chunk's tokens b * 512 + c * 128 + t; warp rows 16 w; fragment rows
    # ta = 64 tb + 16 w + lane / 4 and ta + 8 (chunk-local)
    if tx < 32:
        prefix128(AH[bh * S + c * L:bh * S + c * L + L], smf, CO_F, tx, v4, pf)
    smf[CO_F + L + tx] = DT[bh * S + c * L + tx]
    for it in T.unroll(64 * N // 8 // 128):      # C rows of the block: [t][n]
        for e in T.vectorized(8):
            sm[(it * 128 + tx) // (N // 8) * PADN + tx % (N // 8) * 8 + e] = ACT[
                bh // H * S + c * L + tb * 64 + (it * 128 + tx) // (N // 8), I + GTS + bh % H % G * N + tx % (N // 8) * 8 + e]
    if c > 0:
        for it in T.unroll(P * N // 8 // 128):   # entering state hi, lo: [d][n]
            for e in T.vectorized(8):
                sm[R_OFF + (it * 128 + tx) // (N // 8) * PADN + tx % (N // 8) * 8 + e] = EH[
                    ((bh // H * (NC - 1) + c - 1) * H + bh % H) * P + (it * 128 + tx) // (N // 8), tx % (N // 8) * 8 + e]
            for e in T.vectorized(8):
                sm[HL_OFF + (it * 128 + tx) // (N // 8) * PADN + tx % (N // 8) * 8 + e] = EL[
                    ((bh // H * (NC - 1) + c - 1) * H + bh % H) * P + (it * 128 + tx) // (N // 8), tx % (N // 8) * 8 + e]
    T.cuda.cta_sync()

    ex[0] = smf[CO_F + tb * 64 + tx // 32 * 16 + tx % 32 // 4]
    ex[1] = smf[CO_F + tb * 64 + tx // 32 * 16 + tx % 32 // 4 + 8]
    for j in T.unroll(8):
        for e in T.unroll(4):
            acc[j, e] = T.float32(0)
    if c > 0:   # y_off = (C_t . H_entering) exp(a_cum[t]); chunk 0 starts from a zero state
        for k0 in T.serial(N // 16):
            load_a(a, smu, 0, PADN, tx // 32 * 16, k0 * 16, tx % 32)
            for j in T.unroll(8):
                mma(acc, j, a, smu[(R_OFF + (j * 8 + tx % 32 // 4) * PADN + k0 * 16 + tx % 4 * 2) // 2],
                    smu[(R_OFF + (j * 8 + tx % 32 // 4) * PADN + k0 * 16 + tx % 4 * 2 + 8) // 2])
                mma(acc, j, a, smu[(HL_OFF + (j * 8 + tx % 32 // 4) * PADN + k0 * 16 + tx % 4 * 2) // 2],
                    smu[(HL_OFF + (j * 8 + tx % 32 // 4) * PADN + k0 * 16 + tx % 4 * 2 + 8) // 2])
        for j in T.unroll(8):
            for e in T.unroll(4):
                acc[j, e] = acc[j, e] * expf(ex[e // 2])

    for sblk in T.serial(tb + 1):
        T.cuda.cta_sync()      # the region is free
        for it in T.unroll(64 * N // 8 // 128):  # B rows of the source block: [s][n]
            for e in T.vectorized(8):
                sm[R_OFF + (it * 128 + tx) // (N // 8) * PADN + tx % (N // 8) * 8 + e] = ACT[
                    bh // H * S + c * L + sblk * 64 + (it * 128 + tx) // (N // 8), I + bh % H % G * N + tx % (N // 8) * 8 + e]
        for it in T.unroll(64 * P // 8 // 128):  # x^T of the source block: thread s = v % 64, d0 = (v / 64) * 8
            for e in T.vectorized(8):
                xb[e] = ACT[bh // H * S + c * L + sblk * 64 + tx % 64, bh % H * P + (it * 2 + tx // 64) * 8 + e]
            for e in T.unroll(8):
                sm[XT_OFF + ((it * 2 + tx // 64) * 8 + e) * PAD64 + tx % 64] = xb[e]
        T.cuda.cta_sync()
        for j in T.unroll(8):
            for e in T.unroll(4):
                sc[j, e] = T.float32(0)
        for k0 in T.serial(N // 16):
            load_a(a, smu, 0, PADN, tx // 32 * 16, k0 * 16, tx % 32)
            for j in T.unroll(8):
                mma(sc, j, a, smu[(R_OFF + (j * 8 + tx % 32 // 4) * PADN + k0 * 16 + tx % 4 * 2) // 2],
                    smu[(R_OFF + (j * 8 + tx % 32 // 4) * PADN + k0 * 16 + tx % 4 * 2 + 8) // 2])
        # causal decay mask and dt of the source s = 64 sblk + 8 j + 2 (lane % 4) + e % 2, target row e / 2;
        # n8 tile j is the k-half j % 2 of k16 step j / 2
        for j in T.unroll(8):
            for e in T.unroll(4):
                mv[e] = T.Select(
                    sblk * 64 + j * 8 + tx % 4 * 2 + e % 2 <= tb * 64 + tx // 32 * 16 + tx % 32 // 4 + e // 2 * 8,
                    sc[j, e] * expf(ex[e // 2] - smf[CO_F + sblk * 64 + j * 8 + tx % 4 * 2 + e % 2])
                    * smf[CO_F + L + sblk * 64 + j * 8 + tx % 4 * 2 + e % 2],
                    T.float32(0))
            mh[j // 2, j % 2 * 2] = pack(hi(mv[0]), hi(mv[1]))
            mh[j // 2, j % 2 * 2 + 1] = pack(hi(mv[2]), hi(mv[3]))
            ml[j // 2, j % 2 * 2] = pack(lo(mv[0]), lo(mv[1]))
            ml[j // 2, j % 2 * 2 + 1] = pack(lo(mv[2]), lo(mv[3]))
        for kk in T.unroll(4):
            for j in T.unroll(8):
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[j, 0], acc[j, 1], acc[j, 2], acc[j, 3], mh[kk, 0], mh[kk, 1], mh[kk, 2], mh[kk, 3],
                    smu[(XT_OFF + (j * 8 + tx % 32 // 4) * PAD64 + kk * 16 + tx % 4 * 2) // 2],
                    smu[(XT_OFF + (j * 8 + tx % 32 // 4) * PAD64 + kk * 16 + tx % 4 * 2 + 8) // 2],
                    acc[j, 0], acc[j, 1], acc[j, 2], acc[j, 3])
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[j, 0], acc[j, 1], acc[j, 2], acc[j, 3], ml[kk, 0], ml[kk, 1], ml[kk, 2], ml[kk, 3],
                    smu[(XT_OFF + (j * 8 + tx % 32 // 4) * PAD64 + kk * 16 + tx % 4 * 2) // 2],
                    smu[(XT_OFF + (j * 8 + tx % 32 // 4) * PAD64 + kk * 16 + tx % 4 * 2 + 8) // 2],
                    acc[j, 0], acc[j, 1], acc[j, 2], acc[j, 3])

    ex[2] = T.Cast("float32", DD[bh % H])
    for j in T.unroll(8):
        for hh in T.unroll(2):
            # token b * 512 + c * 128 + ta (+ 8), channels h * 64 + 8 j + 2 (lane % 4) (+ 1)
            xu[0] = ACTu[((bh // H * S + c * L + tb * 64 + tx // 32 * 16 + tx % 32 // 4 + hh * 8) * CD
                          + bh % H * P + j * 8 + tx % 4 * 2) // 2]
            Yu[((bh // H * S + c * L + tb * 64 + tx // 32 * 16 + tx % 32 // 4 + hh * 8) * I + bh % H * P + j * 8
                + tx % 4 * 2) // 2] = pack(
                hi(fma(ex[2], T.Cast("float32", T.reinterpret("bfloat16", T.Cast("uint16", T.bitwise_and(xu[0], T.uint32(0xFFFF))))),
                       acc[j, hh * 2])),
                hi(fma(ex[2], T.Cast("float32", T.reinterpret("bfloat16", T.Cast("uint16", T.shift_right(xu[0], T.uint32(16))))),
                       acc[j, hh * 2 + 1])))


@T.prim_func
def gated_norm(y_ptr: T.handle, proj_ptr: T.handle, norm_w_ptr: T.handle, eps: T.float32, out_ptr: T.handle):
    Y = T.match_buffer(y_ptr, (TOK, I), "bfloat16")
    PR = T.match_buffer(proj_ptr, (TOK, PROJ), "bfloat16")
    NW = T.match_buffer(norm_w_ptr, (I,), "bfloat16")
    OUT = T.match_buffer(out_ptr, (TOK, I), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOK * G])
    tx = T.thread_id([256])
    part = T.alloc_buffer((8,), "float32", scope="shared")
    yv = T.alloc_buffer((8,), "bfloat16", scope="local")
    zv = T.alloc_buffer((8,), "bfloat16", scope="local")
    wv = T.alloc_buffer((8,), "bfloat16", scope="local")
    rv = T.alloc_buffer((8,), "bfloat16", scope="local")
    ss = T.alloc_buffer((2,), "float32", scope="local")
    t3 = T.alloc_buffer((3,), "float32", scope="local")
    # row = bx / 8, channels (bx % 8) * 2048 + tx * 8 .. + 7
    for e in T.vectorized(8):
        yv[e] = Y[bx // G, bx % G * (I // G) + tx * 8 + e]
    ss[0] = T.float32(0)
    for e in T.unroll(8):
        ss[0] = fma(T.Cast("float32", yv[e]), T.Cast("float32", yv[e]), ss[0])
    for st in T.unroll(5):
        ss[0] = ss[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), ss[0], 16 >> st, 32, 32)
    if tx % 32 == 0:
        part[tx // 32] = ss[0]
    T.cuda.cta_sync()
    ss[1] = T.float32(0)
    for w in T.unroll(8):
        ss[1] = ss[1] + part[w]
    ss[1] = T.rsqrt(ss[1] / T.float32(I // G) + eps)
    for e in T.vectorized(8):
        zv[e] = PR[bx // G, bx % G * (I // G) + tx * 8 + e]
    for e in T.vectorized(8):
        wv[e] = NW[bx % G * (I // G) + tx * 8 + e]
    for e in T.unroll(8):
        t3[0] = bfr(T.Cast("float32", yv[e]) * ss[1])
        t3[1] = bfr(t3[0] * T.Cast("float32", wv[e]))
        t3[2] = bfr(T.Cast("float32", zv[e]) * bfr(
            T.float32(1) / (T.float32(1) + expf(T.float32(0) - T.Cast("float32", zv[e])))))
        rv[e] = T.Cast("bfloat16", t3[1] * t3[2])
    for e in T.vectorized(8):
        OUT[bx // G, bx % G * (I // G) + tx * 8 + e] = rv[e]


MKB_PLAN = """/* mkb:plan
scratch projected bf16[batch_size * seq_len * projection_size]
scratch act bf16[batch_size * seq_len * conv_dim]
scratch dt_hm fp32[batch_size * num_heads * seq_len]
scratch a_hm fp32[batch_size * num_heads * seq_len]
scratch enter_hi bf16[batch_size * (seq_len / chunk_size - 1) * num_heads * head_dim * ssm_state_size]
scratch enter_lo bf16[batch_size * (seq_len / chunk_size - 1) * num_heads * head_dim * ssm_state_size]
scratch y bf16[batch_size * seq_len * intermediate_size]
scratch y_gated bf16[batch_size * seq_len * intermediate_size]
launch gemm_in grid(batch_size * seq_len / 128, projection_size / 256) block(256) shared(122880)
  args(hidden_states, in_proj_weight, projected)
launch conv_silu grid(batch_size * seq_len * conv_dim / 2048) block(256) args(projected, conv1d_weight, conv1d_bias, act)
launch dt_prep grid(batch_size * seq_len * num_heads / 256) block(256)
  args(projected, dt_bias, A_log, f32(time_step_limit_min), f32(time_step_limit_max), dt_hm, a_hm)
launch chunk_scan_states grid(num_heads, batch_size) block(256) shared(104960) args(act, dt_hm, a_hm, enter_hi, enter_lo)
launch chunk_output grid(chunk_size / 64, seq_len / chunk_size, batch_size * num_heads) block(128) shared(102400)
  args(act, dt_hm, a_hm, D, enter_hi, enter_lo, y)
launch gated_norm grid(batch_size * seq_len * n_groups) block(256) args(y, projected, norm_weight, f32(layer_norm_epsilon), y_gated)
launch gemm_out grid(batch_size * seq_len / 128, hidden_size / 256) block(256) shared(122880)
  args(y_gated, out_proj_weight, output)
*/"""
