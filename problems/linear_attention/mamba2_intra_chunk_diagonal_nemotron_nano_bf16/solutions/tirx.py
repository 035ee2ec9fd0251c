"""Fused SSD diagonal block (Nemotron Nano shape) in TIRx: the algorithm of solutions/cuda.cu, one launch. A
256-thread CTA per (head, batch * chunk), everything in shared memory and registers, bf16 tensor cores
(mma.sync m16n8k16 through T.ptx, fp32 accumulation):
  1. load C and B of the head's group ([128 x 128] each, 16-byte copies) and X of the head transposed ([p][s]);
     one warp forms the fp32 inclusive prefix sums S of a (4 a lane in order, then a shuffle-up scan);
  2. G = C B^T (exact bf16 products, fp32 sums); warp tiles entirely above the diagonal are skipped;
  3. M = G * exp(S[l] - S[s]) on and below the diagonal, else 0, stored over C and B as bf16 hi = bf16(M) and
     lo = bf16(M - hi);
  4. Y = hi X + lo X, k-steps past the diagonal skipped; Y rounded to bf16 once.
Warps tile each 128 x 128 product as 4 (rows) x 2 (columns) tiles of 32 x 64. Fragments are read with 32-bit
loads through a uint32 view (T.decl_buffer) of the shared buffer (272-byte rows), M and Y stored as bf16 pairs
through uint32 views."""
from tvm.script import tirx as T

BATCH, NCH, LEN, HEADS, GROUPS, NS, DIM = 16, 1, 128, 32, 8, 128, 128
PAD = 136
B_OFF, X_OFF = LEN * PAD, 2 * LEN * PAD
SMEM = 3 * LEN * PAD * 2 + LEN * 4            # 104960
S_F = 3 * LEN * PAD // 2                      # fp32 index of the prefix sums
ROWS = BATCH * NCH * LEN
assert SMEM == 104960


def expf(x):
    return T.call_pure_extern("float32", "expf", x)


def pack(x, y):
    # two bf16 values as one 32-bit register, x in the low half
    return T.bitwise_or(T.Cast("uint32", T.reinterpret("uint16", x)),
                        T.shift_left(T.Cast("uint32", T.reinterpret("uint16", y)), T.uint32(16)))


@T.macro
def warp_gemm(acc, smu, a_off, bt_off, r0, c0, ksteps, a, bq, lane):
    # acc[mt * 8 + nt] += A[rows r0 + 16 mt ..][k] * Bt[cols c0 + 8 nt ..][k], k < 16 ksteps; A, Bt row-major in
    # shared memory (pitch 136) with k contiguous, read as uint32 words
    for k0 in T.serial(ksteps):
        for mt in T.unroll(2):
            a[mt, 0] = smu[(a_off + (r0 + mt * 16 + lane // 4) * PAD + k0 * 16 + lane % 4 * 2) // 2]
            a[mt, 1] = smu[(a_off + (r0 + mt * 16 + lane // 4 + 8) * PAD + k0 * 16 + lane % 4 * 2) // 2]
            a[mt, 2] = smu[(a_off + (r0 + mt * 16 + lane // 4) * PAD + k0 * 16 + lane % 4 * 2 + 8) // 2]
            a[mt, 3] = smu[(a_off + (r0 + mt * 16 + lane // 4 + 8) * PAD + k0 * 16 + lane % 4 * 2 + 8) // 2]
        for nt in T.unroll(8):
            bq[nt, 0] = smu[(bt_off + (c0 + nt * 8 + lane // 4) * PAD + k0 * 16 + lane % 4 * 2) // 2]
            bq[nt, 1] = smu[(bt_off + (c0 + nt * 8 + lane // 4) * PAD + k0 * 16 + lane % 4 * 2 + 8) // 2]
        for mt in T.unroll(2):
            for nt in T.unroll(8):
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[mt * 8 + nt, 0], acc[mt * 8 + nt, 1], acc[mt * 8 + nt, 2], acc[mt * 8 + nt, 3],
                    a[mt, 0], a[mt, 1], a[mt, 2], a[mt, 3], bq[nt, 0], bq[nt, 1],
                    acc[mt * 8 + nt, 0], acc[mt * 8 + nt, 1], acc[mt * 8 + nt, 2], acc[mt * 8 + nt, 3])


@T.prim_func
def ssd_diag(hidden_states_ptr: T.handle, a_cumsum_ptr: T.handle, b_ptr: T.handle, c_ptr: T.handle,
             y_diag_ptr: T.handle):
    X = T.match_buffer(hidden_states_ptr, (ROWS * HEADS, DIM), "bfloat16")
    AC = T.match_buffer(a_cumsum_ptr, (BATCH * HEADS * NCH * LEN,), "bfloat16")
    BB = T.match_buffer(b_ptr, (ROWS * GROUPS, NS), "bfloat16")
    CC = T.match_buffer(c_ptr, (ROWS * GROUPS, NS), "bfloat16")
    Y = T.match_buffer(y_diag_ptr, (ROWS * HEADS * DIM,), "bfloat16")
    T.device_entry()
    h, bc = T.cta_id([HEADS, BATCH * NCH])
    tx = T.thread_id([256])
    Yu = T.decl_buffer((ROWS * HEADS * DIM // 2,), "uint32", data=Y.data)
    sm = T.alloc_buffer((SMEM // 2,), "bfloat16", scope="shared.dyn")
    smu = T.decl_buffer((SMEM // 4,), "uint32", data=sm.data, scope="shared.dyn")
    smf = T.decl_buffer((SMEM // 4,), "float32", data=sm.data, scope="shared.dyn")
    acc = T.alloc_buffer((16, 4), "float32", scope="local")
    a = T.alloc_buffer((2, 4), "uint32", scope="local")
    bq = T.alloc_buffer((8, 2), "uint32", scope="local")
    xv = T.alloc_buffer((8,), "bfloat16", scope="local")
    v4 = T.alloc_buffer((4,), "float32", scope="local")
    pf = T.alloc_buffer((3,), "float32", scope="local")
    m = T.alloc_buffer((2,), "float32", scope="local")
    # b = bc / NCH, c = bc % NCH, group h / 4; warp tile rows r0 = 32 (warp / 2), columns c0 = 64 (warp % 2)

    # 1. loads: rows of C and B, X transposed (thread = (s, 8 consecutive p)), prefix sums of a
    for it in T.unroll(LEN * NS // 8 // 256):
        for e in T.vectorized(8):
            sm[(it * 256 + tx) // (NS // 8) * PAD + tx % (NS // 8) * 8 + e] = CC[
                (bc * LEN + (it * 256 + tx) // (NS // 8)) * GROUPS + h // (HEADS // GROUPS), tx % (NS // 8) * 8 + e]
        for e in T.vectorized(8):
            sm[B_OFF + (it * 256 + tx) // (NS // 8) * PAD + tx % (NS // 8) * 8 + e] = BB[
                (bc * LEN + (it * 256 + tx) // (NS // 8)) * GROUPS + h // (HEADS // GROUPS), tx % (NS // 8) * 8 + e]
    for it in T.unroll(LEN * DIM // 8 // 256):    # s = tx % 128, p0 = (2 it + tx / 128) * 8
        for e in T.vectorized(8):
            xv[e] = X[(bc * LEN + tx % LEN) * HEADS + h, (it * 2 + tx // LEN) * 8 + e]
        for e in T.unroll(8):
            sm[X_OFF + ((it * 2 + tx // LEN) * 8 + e) * PAD + tx % LEN] = xv[e]
    if tx < 32:
        pf[0] = T.float32(0)
        for j in T.unroll(4):
            pf[0] = pf[0] + T.Cast("float32", AC[((bc // NCH * HEADS + h) * NCH + bc % NCH) * LEN + tx * 4 + j])
            v4[j] = pf[0]
        for st in T.unroll(5):
            pf[1] = T.tvm_warp_shuffle_up(T.uint32(0xFFFFFFFF), pf[0], 1 << st, 32, 32)
            if tx >= (1 << st):
                pf[0] = pf[0] + pf[1]
        pf[2] = T.tvm_warp_shuffle_up(T.uint32(0xFFFFFFFF), pf[0], 1, 32, 32)
        if tx == 0:
            pf[2] = T.float32(0)
        for j in T.unroll(4):
            smf[S_F + tx * 4 + j] = pf[2] + v4[j]
    T.cuda.cta_sync()

    # 2. G = C B^T (warp tiles entirely above the diagonal skipped: their M is zero)
    for i in T.unroll(16):
        for e in T.unroll(4):
            acc[i, e] = T.float32(0)
    if tx // 32 % 2 * 64 <= tx // 64 * 32 + 31:
        warp_gemm(acc, smu, 0, B_OFF, tx // 64 * 32, tx // 32 % 2 * 64, NS // 16, a, bq, tx % 32)
    T.cuda.cta_sync()      # every warp is done reading C and B

    # 3. M = G * exp(S[l] - S[s]) for s <= l, else 0; hi over C, lo over B
    for mt in T.unroll(2):
        for hh in T.unroll(2):
            for nt in T.unroll(8):
                # l = r0 + 16 mt + lane / 4 + 8 hh, s = c0 + 8 nt + 2 (lane % 4) (+ 1)
                for e in T.unroll(2):
                    m[e] = T.Select(
                        T.And(tx // 32 % 2 * 64 + nt * 8 + tx % 4 * 2 + e <= tx // 64 * 32 + mt * 16 + tx % 32 // 4 + hh * 8,
                              tx // 32 % 2 * 64 <= tx // 64 * 32 + 31),
                        acc[mt * 8 + nt, hh * 2 + e] * expf(smf[S_F + tx // 64 * 32 + mt * 16 + tx % 32 // 4 + hh * 8]
                                                            - smf[S_F + tx // 32 % 2 * 64 + nt * 8 + tx % 4 * 2 + e]),
                        T.float32(0))
                smu[((tx // 64 * 32 + mt * 16 + tx % 32 // 4 + hh * 8) * PAD + tx // 32 % 2 * 64 + nt * 8 + tx % 4 * 2) // 2] = pack(
                    T.Cast("bfloat16", m[0]), T.Cast("bfloat16", m[1]))
                smu[(B_OFF + (tx // 64 * 32 + mt * 16 + tx % 32 // 4 + hh * 8) * PAD + tx // 32 % 2 * 64 + nt * 8
                     + tx % 4 * 2) // 2] = pack(
                    T.Cast("bfloat16", m[0] - T.Cast("float32", T.Cast("bfloat16", m[0]))),
                    T.Cast("bfloat16", m[1] - T.Cast("float32", T.Cast("bfloat16", m[1]))))
    T.cuda.cta_sync()

    # 4. Y = (hi + lo) X: rows r0 .. r0 + 31 need s < r0 + 32 only
    for i in T.unroll(16):
        for e in T.unroll(4):
            acc[i, e] = T.float32(0)
    warp_gemm(acc, smu, 0, X_OFF, tx // 64 * 32, tx // 32 % 2 * 64, tx // 64 * 2 + 2, a, bq, tx % 32)
    warp_gemm(acc, smu, B_OFF, X_OFF, tx // 64 * 32, tx // 32 % 2 * 64, tx // 64 * 2 + 2, a, bq, tx % 32)
    for mt in T.unroll(2):
        for hh in T.unroll(2):
            for nt in T.unroll(8):
                Yu[(((bc * LEN + tx // 64 * 32 + mt * 16 + tx % 32 // 4 + hh * 8) * HEADS + h) * DIM
                    + tx // 32 % 2 * 64 + nt * 8 + tx % 4 * 2) // 2] = pack(
                    T.Cast("bfloat16", acc[mt * 8 + nt, hh * 2]), T.Cast("bfloat16", acc[mt * 8 + nt, hh * 2 + 1]))


MKB_PLAN = """/* mkb:plan
launch ssd_diag grid(num_heads, batch_size * num_chunks) block(256) shared(104960)
  args(hidden_states, a_cumsum, B, C, y_diag)
*/"""
