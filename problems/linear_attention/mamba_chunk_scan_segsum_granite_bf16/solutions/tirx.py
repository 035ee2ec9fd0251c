"""Chunked SSD scan (Granite shape) in TIRx: the algorithm of solutions/cuda.cu, three launches, every product
on bf16 tensor cores (mma.sync m16n8k16 through T.ptx, fp32 accumulation). Operands that are fp32 in the
reference (the decay-weighted x, the decay-masked scores, the entering states) are split into bf16 hi =
bf16(v) and lo = bf16(v - hi) and multiplied twice; B, C and x are bf16 already.
  chunk_states   (chunk, head, batch), 8 warps: the chunk's own end state S[d][n] = sum_t w_t x[t][d] B[t][n],
                 w_t = exp(S_A[last] - S_A[t]) from fp32 prefix sums of A (one warp: 8 a lane in order, then a
                 shuffle-up scan), in two halves of n; also the chunk's A sum.
  chunk_carry    (head, batch): H_0 = the initial state; H_{c+1} = exp(sum A of chunk c) H_c + S_c (fmaf, as the
                 cuda solution's contraction); writes the state entering each chunk as hi/lo bf16 and the final
                 state (bf16).
  chunk_output   (64-token block, chunk, batch * head), 4 warps: y = exp(S_A[t]) (C_t . H_c) + sum_{s<=t}
                 (C_t . B_s) exp(S_A[t] - S_A[s]) x_s + D x_t, the causal part in 64 x 64 blocks whose masked
                 scores stay in registers (split hi/lo) as the next product's A operand.
Fragments are read with 32-bit loads through uint32 views (T.decl_buffer) of the bf16 buffers; shared memory is
one dynamic buffer with bf16, uint32 and fp32 views laid out as the cuda solution's."""
from tvm.script import tirx as T

B, S, H, P, N, L = 8, 1024, 16, 64, 256, 256
NC = S // L
TOK = B * S
PADL, PAD64 = L + 8, 64 + 8
STATE = B * NC * H * P * N
# chunk_states: (w x)^T hi, lo [64][264], B^T half [128][264] (bf16), prefix sums [256] fp32
XL_OFF, BT_OFF = P * PADL, 2 * P * PADL
CS_SMEM = (2 * P + 128) * PADL * 2 + L * 4          # 136192
CS_F = (2 * P + 128) * PADL // 2
# chunk_output: C rows [64][264]; region R: H hi, lo [64][264] each, or B rows [64][264] and x^T [64][72]
R_OFF = 64 * PADL
HL_OFF = R_OFF + P * PADL
XT_OFF = R_OFF + 64 * PADL
CO_SMEM = (64 + 2 * P) * PADL * 2 + L * 4           # 102400
CO_F = (64 + 2 * P) * PADL // 2
assert CS_SMEM == 136192 and CO_SMEM == 102400


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


def bf16_of(word, upper):
    # the bf16 in the low (upper = 0) or high half of a 32-bit word, widened
    return T.Cast("float32", T.reinterpret("bfloat16", T.Cast("uint16", T.bitwise_and(
        T.shift_right(word, T.uint32(16 * upper)), T.uint32(0xFFFF)))))


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
def prefix256(Abuf, base, sbuf, soff, lane, v, pf):
    # inclusive prefix sums of the 256 bf16 values Abuf[base ..], 8 a lane in order then across lanes, one warp
    pf[0] = T.float32(0)
    for j in T.unroll(8):
        pf[0] = pf[0] + T.Cast("float32", Abuf[base + lane * 8 + j])
        v[j] = pf[0]
    for st in T.unroll(5):
        pf[1] = T.tvm_warp_shuffle_up(T.uint32(0xFFFFFFFF), pf[0], 1 << st, 32, 32)
        if lane >= (1 << st):
            pf[0] = pf[0] + pf[1]
    pf[2] = T.tvm_warp_shuffle_up(T.uint32(0xFFFFFFFF), pf[0], 1, 32, 32)
    if lane == 0:
        pf[2] = T.float32(0)
    for j in T.unroll(8):
        sbuf[soff + lane * 8 + j] = pf[2] + v[j]


@T.prim_func
def chunk_states(hidden_states_ptr: T.handle, a_ptr: T.handle, b_ptr: T.handle, local_ptr: T.handle,
                 chunk_sum_ptr: T.handle):
    X = T.match_buffer(hidden_states_ptr, (TOK * H, P), "bfloat16")
    AA = T.match_buffer(a_ptr, (B * H * S,), "bfloat16")
    BB = T.match_buffer(b_ptr, (TOK, N), "bfloat16")
    LOC = T.match_buffer(local_ptr, (STATE,), "float32")
    CSUM = T.match_buffer(chunk_sum_ptr, (B * H * NC,), "float32")
    T.device_entry()
    c, h, b = T.cta_id([NC, H, B])
    tx = T.thread_id([256])
    sm = T.alloc_buffer((CS_SMEM // 2,), "bfloat16", scope="shared.dyn")
    smu = T.decl_buffer((CS_SMEM // 4,), "uint32", data=sm.data, scope="shared.dyn")
    smf = T.decl_buffer((CS_SMEM // 4,), "float32", data=sm.data, scope="shared.dyn")
    acc = T.alloc_buffer((8, 4), "float32", scope="local")      # [mt * 4 + nt]
    ah = T.alloc_buffer((2, 4), "uint32", scope="local")
    al = T.alloc_buffer((2, 4), "uint32", scope="local")
    a1 = T.alloc_buffer((4,), "uint32", scope="local")
    bq = T.alloc_buffer((4, 2), "uint32", scope="local")
    xv = T.alloc_buffer((8,), "bfloat16", scope="local")
    v8 = T.alloc_buffer((8,), "float32", scope="local")
    pf = T.alloc_buffer((3,), "float32", scope="local")
    w = T.alloc_buffer((1,), "float32", scope="local")
    # tokens b * 1024 + c * 256 + t; warp: d rows r0 = 32 (warp / 4), n columns c0 = 32 (warp % 4) of the half
    if tx < 32:
        prefix256(AA, (b * H + h) * S + c * L, smf, CS_F, tx, v8, pf)
    T.cuda.cta_sync()
    if tx == 0:
        CSUM[(b * H + h) * NC + c] = smf[CS_F + L - 1]
    for it in T.unroll(L * P // 8 // 256):       # thread: token t = tx, d0 = 8 it
        w[0] = expf(smf[CS_F + L - 1] - smf[CS_F + tx])
        for e in T.vectorized(8):
            xv[e] = X[(b * S + c * L + tx) * H + h, it * 8 + e]
        for e in T.unroll(8):
            sm[(it * 8 + e) * PADL + tx] = hi(w[0] * T.Cast("float32", xv[e]))
            sm[XL_OFF + (it * 8 + e) * PADL + tx] = lo(w[0] * T.Cast("float32", xv[e]))
    for half in T.serial(2):
        T.cuda.cta_sync()      # sBt free; (w x)^T written
        for it in T.unroll(L * 128 // 8 // 256):  # thread: token t = tx, n0 = 8 it of the half
            for e in T.vectorized(8):
                xv[e] = BB[b * S + c * L + tx, half * 128 + it * 8 + e]
            for e in T.unroll(8):
                sm[BT_OFF + (it * 8 + e) * PADL + tx] = xv[e]
        T.cuda.cta_sync()
        for i in T.unroll(8):
            for e in T.unroll(4):
                acc[i, e] = T.float32(0)
        for k0 in T.serial(L // 16):
            for mt in T.unroll(2):
                load_a(a1, smu, 0, PADL, tx // 128 * 32 + mt * 16, k0 * 16, tx % 32)
                for e in T.unroll(4):
                    ah[mt, e] = a1[e]
                load_a(a1, smu, XL_OFF, PADL, tx // 128 * 32 + mt * 16, k0 * 16, tx % 32)
                for e in T.unroll(4):
                    al[mt, e] = a1[e]
            for nt in T.unroll(4):
                bq[nt, 0] = smu[(BT_OFF + (tx // 32 % 4 * 32 + nt * 8 + tx % 32 // 4) * PADL + k0 * 16 + tx % 4 * 2) // 2]
                bq[nt, 1] = smu[(BT_OFF + (tx // 32 % 4 * 32 + nt * 8 + tx % 32 // 4) * PADL + k0 * 16 + tx % 4 * 2 + 8) // 2]
            for mt in T.unroll(2):
                for nt in T.unroll(4):
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        acc[mt * 4 + nt, 0], acc[mt * 4 + nt, 1], acc[mt * 4 + nt, 2], acc[mt * 4 + nt, 3],
                        ah[mt, 0], ah[mt, 1], ah[mt, 2], ah[mt, 3], bq[nt, 0], bq[nt, 1],
                        acc[mt * 4 + nt, 0], acc[mt * 4 + nt, 1], acc[mt * 4 + nt, 2], acc[mt * 4 + nt, 3])
                    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        acc[mt * 4 + nt, 0], acc[mt * 4 + nt, 1], acc[mt * 4 + nt, 2], acc[mt * 4 + nt, 3],
                        al[mt, 0], al[mt, 1], al[mt, 2], al[mt, 3], bq[nt, 0], bq[nt, 1],
                        acc[mt * 4 + nt, 0], acc[mt * 4 + nt, 1], acc[mt * 4 + nt, 2], acc[mt * 4 + nt, 3])
        # row d = r0 + 16 mt + lane / 4 (+ 8), column n = 128 half + c0 + 8 nt + 2 (lane % 4) (+ 1)
        for mt in T.unroll(2):
            for nt in T.unroll(4):
                for hh in T.unroll(2):
                    for e in T.unroll(2):
                        LOC[((((b * NC + c) * H + h) * P + tx // 128 * 32 + mt * 16 + tx % 32 // 4 + hh * 8) * N
                             + half * 128 + tx // 32 % 4 * 32 + nt * 8 + tx % 4 * 2 + e)] = acc[mt * 4 + nt, hh * 2 + e]


@T.prim_func
def chunk_carry(initial_states_ptr: T.handle, local_ptr: T.handle, chunk_sum_ptr: T.handle,
                enter_hi_ptr: T.handle, enter_lo_ptr: T.handle, final_state_ptr: T.handle):
    INIT = T.match_buffer(initial_states_ptr, (B * H * P * N,), "bfloat16")
    LOC = T.match_buffer(local_ptr, (STATE,), "float32")
    CSUM = T.match_buffer(chunk_sum_ptr, (B * H * NC,), "float32")
    EH = T.match_buffer(enter_hi_ptr, (STATE,), "bfloat16")
    EL = T.match_buffer(enter_lo_ptr, (STATE,), "bfloat16")
    FIN = T.match_buffer(final_state_ptr, (B * H * P * N,), "bfloat16")
    T.device_entry()
    h, b = T.cta_id([H, B])
    tx = T.thread_id([256])
    v = T.alloc_buffer((4,), "float32", scope="local")
    ad = T.alloc_buffer((4,), "float32", scope="local")
    dc = T.alloc_buffer((1,), "float32", scope="local")
    ib = T.alloc_buffer((4,), "bfloat16", scope="local")
    for it in T.serial(P * N // 1024):          # elements e = 4 tx + 1024 it .. + 3 of the [64, 256] state
        for j in T.vectorized(4):
            ib[j] = INIT[(b * H + h) * P * N + it * 1024 + tx * 4 + j]
        for j in T.unroll(4):
            v[j] = T.Cast("float32", ib[j])
        for c in T.unroll(NC):
            dc[0] = expf(CSUM[(b * H + h) * NC + c])
            for j in T.vectorized(4):
                ad[j] = LOC[((b * NC + c) * H + h) * P * N + it * 1024 + tx * 4 + j]
            for j in T.unroll(4):
                EH[((b * NC + c) * H + h) * P * N + it * 1024 + tx * 4 + j] = hi(v[j])
                EL[((b * NC + c) * H + h) * P * N + it * 1024 + tx * 4 + j] = lo(v[j])
                v[j] = fma(dc[0], v[j], ad[j])
        for j in T.unroll(4):
            ib[j] = T.Cast("bfloat16", v[j])
        for j in T.vectorized(4):
            FIN[(b * H + h) * P * N + it * 1024 + tx * 4 + j] = ib[j]


@T.prim_func
def chunk_output(hidden_states_ptr: T.handle, a_ptr: T.handle, b_ptr: T.handle, c_ptr: T.handle, d_ptr: T.handle,
                 enter_hi_ptr: T.handle, enter_lo_ptr: T.handle, output_ptr: T.handle):
    X = T.match_buffer(hidden_states_ptr, (TOK * H, P), "bfloat16")
    AA = T.match_buffer(a_ptr, (B * H * S,), "bfloat16")
    BB = T.match_buffer(b_ptr, (TOK, N), "bfloat16")
    CC = T.match_buffer(c_ptr, (TOK, N), "bfloat16")
    DD = T.match_buffer(d_ptr, (H,), "bfloat16")
    EH = T.match_buffer(enter_hi_ptr, (STATE // N, N), "bfloat16")
    EL = T.match_buffer(enter_lo_ptr, (STATE // N, N), "bfloat16")
    OUT = T.match_buffer(output_ptr, (TOK * H * P,), "bfloat16")
    T.device_entry()
    tb, c, bh = T.cta_id([L // 64, NC, B * H])
    tx = T.thread_id([128])
    OUTu = T.decl_buffer((TOK * H * P // 2,), "uint32", data=OUT.data)
    Xu = T.decl_buffer((TOK * H * P // 2,), "uint32", data=X.data)
    sm = T.alloc_buffer((CO_SMEM // 2,), "bfloat16", scope="shared.dyn")
    smu = T.decl_buffer((CO_SMEM // 4,), "uint32", data=sm.data, scope="shared.dyn")
    smf = T.decl_buffer((CO_SMEM // 4,), "float32", data=sm.data, scope="shared.dyn")
    acc = T.alloc_buffer((8, 4), "float32", scope="local")
    sc = T.alloc_buffer((8, 4), "float32", scope="local")
    a = T.alloc_buffer((4,), "uint32", scope="local")
    mh = T.alloc_buffer((4, 4), "uint32", scope="local")
    ml = T.alloc_buffer((4, 4), "uint32", scope="local")
    mv = T.alloc_buffer((4,), "float32", scope="local")
    v8 = T.alloc_buffer((8,), "float32", scope="local")
    pf = T.alloc_buffer((3,), "float32", scope="local")
    ex = T.alloc_buffer((3,), "float32", scope="local")      # S_A of the two fragment rows, D[h]
    xb = T.alloc_buffer((8,), "bfloat16", scope="local")
    xu = T.alloc_buffer((1,), "uint32", scope="local")
    # b = bh / 16, h = bh % 16; the chunk's tokens b * 1024 + c * 256 + t; warp rows 16 w; fragment rows
    # ta = 64 tb + 16 w + lane / 4 and ta + 8 (chunk-local)
    if tx < 32:
        prefix256(AA, bh * S + c * L, smf, CO_F, tx, v8, pf)
    for it in T.unroll(64 * N // 8 // 128):      # C rows of the block: [t][n]
        for e in T.vectorized(8):
            sm[(it * 128 + tx) // (N // 8) * PADL + tx % (N // 8) * 8 + e] = CC[
                bh // H * S + c * L + tb * 64 + (it * 128 + tx) // (N // 8), tx % (N // 8) * 8 + e]
    for it in T.unroll(P * N // 8 // 128):       # entering state hi, lo: [d][n]
        for e in T.vectorized(8):
            sm[R_OFF + (it * 128 + tx) // (N // 8) * PADL + tx % (N // 8) * 8 + e] = EH[
                ((bh // H * NC + c) * H + bh % H) * P + (it * 128 + tx) // (N // 8), tx % (N // 8) * 8 + e]
        for e in T.vectorized(8):
            sm[HL_OFF + (it * 128 + tx) // (N // 8) * PADL + tx % (N // 8) * 8 + e] = EL[
                ((bh // H * NC + c) * H + bh % H) * P + (it * 128 + tx) // (N // 8), tx % (N // 8) * 8 + e]
    T.cuda.cta_sync()

    # y_off = C_t . H_entering, then scaled by exp(S_A[t])
    for j in T.unroll(8):
        for e in T.unroll(4):
            acc[j, e] = T.float32(0)
    for k0 in T.serial(N // 16):
        load_a(a, smu, 0, PADL, tx // 32 * 16, k0 * 16, tx % 32)
        for j in T.unroll(8):
            mma(acc, j, a, smu[(R_OFF + (j * 8 + tx % 32 // 4) * PADL + k0 * 16 + tx % 4 * 2) // 2],
                smu[(R_OFF + (j * 8 + tx % 32 // 4) * PADL + k0 * 16 + tx % 4 * 2 + 8) // 2])
            mma(acc, j, a, smu[(HL_OFF + (j * 8 + tx % 32 // 4) * PADL + k0 * 16 + tx % 4 * 2) // 2],
                smu[(HL_OFF + (j * 8 + tx % 32 // 4) * PADL + k0 * 16 + tx % 4 * 2 + 8) // 2])
    ex[0] = smf[CO_F + tb * 64 + tx // 32 * 16 + tx % 32 // 4]
    ex[1] = smf[CO_F + tb * 64 + tx // 32 * 16 + tx % 32 // 4 + 8]
    for j in T.unroll(8):
        for e in T.unroll(4):
            acc[j, e] = acc[j, e] * expf(ex[e // 2])

    for sblk in T.serial(tb + 1):
        T.cuda.cta_sync()      # the region is free
        for it in T.unroll(64 * N // 8 // 128):  # B rows of the source block: [s][n]
            for e in T.vectorized(8):
                sm[R_OFF + (it * 128 + tx) // (N // 8) * PADL + tx % (N // 8) * 8 + e] = BB[
                    bh // H * S + c * L + sblk * 64 + (it * 128 + tx) // (N // 8), tx % (N // 8) * 8 + e]
        for it in T.unroll(64 * P // 8 // 128):  # x^T of the source block: thread s = v % 64, d0 = (v / 64) * 8
            for e in T.vectorized(8):
                xb[e] = X[(bh // H * S + c * L + sblk * 64 + tx % 64) * H + bh % H, (it * 2 + tx // 64) * 8 + e]
            for e in T.unroll(8):
                sm[XT_OFF + ((it * 2 + tx // 64) * 8 + e) * PAD64 + tx % 64] = xb[e]
        T.cuda.cta_sync()
        for j in T.unroll(8):
            for e in T.unroll(4):
                sc[j, e] = T.float32(0)
        for k0 in T.serial(N // 16):
            load_a(a, smu, 0, PADL, tx // 32 * 16, k0 * 16, tx % 32)
            for j in T.unroll(8):
                mma(sc, j, a, smu[(R_OFF + (j * 8 + tx % 32 // 4) * PADL + k0 * 16 + tx % 4 * 2) // 2],
                    smu[(R_OFF + (j * 8 + tx % 32 // 4) * PADL + k0 * 16 + tx % 4 * 2 + 8) // 2])
        # decay mask of source s = 64 sblk + 8 j + 2 (lane % 4) + e % 2 against target row e / 2;
        # n8 tile j is the k-half j % 2 of k16 step j / 2
        for j in T.unroll(8):
            for e in T.unroll(4):
                mv[e] = T.Select(
                    sblk * 64 + j * 8 + tx % 4 * 2 + e % 2 <= tb * 64 + tx // 32 * 16 + tx % 32 // 4 + e // 2 * 8,
                    sc[j, e] * expf(ex[e // 2] - smf[CO_F + sblk * 64 + j * 8 + tx % 4 * 2 + e % 2]),
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
            # token b * 1024 + c * 256 + ta (+ 8), head h, channels 8 j + 2 (lane % 4) (+ 1)
            xu[0] = Xu[(((bh // H * S + c * L + tb * 64 + tx // 32 * 16 + tx % 32 // 4 + hh * 8) * H + bh % H) * P
                        + j * 8 + tx % 4 * 2) // 2]
            OUTu[(((bh // H * S + c * L + tb * 64 + tx // 32 * 16 + tx % 32 // 4 + hh * 8) * H + bh % H) * P
                  + j * 8 + tx % 4 * 2) // 2] = pack(hi(fma(ex[2], bf16_of(xu[0], 0), acc[j, hh * 2])),
                                                     hi(fma(ex[2], bf16_of(xu[0], 1), acc[j, hh * 2 + 1])))


MKB_PLAN = """/* mkb:plan
scratch local fp32[batch_size * seq_len / chunk_size * num_heads * head_dim * state_size]
scratch chunk_sum fp32[batch_size * num_heads * seq_len / chunk_size]
scratch enter_hi bf16[batch_size * seq_len / chunk_size * num_heads * head_dim * state_size]
scratch enter_lo bf16[batch_size * seq_len / chunk_size * num_heads * head_dim * state_size]
launch chunk_states grid(seq_len / chunk_size, num_heads, batch_size) block(256) shared(136192)
  args(hidden_states, A, B, local, chunk_sum)
launch chunk_carry grid(num_heads, batch_size) block(256)
  args(initial_states, local, chunk_sum, enter_hi, enter_lo, final_state)
launch chunk_output grid(chunk_size / 64, seq_len / chunk_size, batch_size * num_heads) block(128) shared(102400)
  args(hidden_states, A, B, C, D, enter_hi, enter_lo, output)
*/"""
