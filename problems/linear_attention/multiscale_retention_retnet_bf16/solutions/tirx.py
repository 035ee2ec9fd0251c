"""Causal multi-scale retention (RetNet, parallel form) in TIRx: the algorithm of solutions/cuda.cu, one
launch on the tensor cores (mma.sync m16n8k16 bf16, fp32 accumulation). A 128-thread CTA per (64 query rows,
128 value channels, b * h). Warp w owns query rows q0 + 16w .. + 15 and accumulates their 16 x 128 output in
mma accumulators. For each key tile of 64 keys at or before the query tile (later tiles skipped), the CTA
stages K (64 x 256, 16-byte copies) and V^T (128 x 64, transposed through registers) in shared memory; each
warp computes its 16 x 64 scores S = Q K^T (exact bf16 products, fp32 sums), multiplies by scale (1/16,
exact) and the decay exp2f((i - j) * s_h) (zero above the diagonal), rounds the weights to bf16 pairs in
registers (the accumulator layout of one product is the A-operand layout of the next) and accumulates S V.
Shared rows are padded by 8 elements; fragments are read with 32-bit loads through a uint32 view
(T.decl_buffer) of the shared buffer, the output stored as bf16 pairs through a uint32 view of o.
s_h = log2f(1 - powf(2, -5 - h)) as the cuda solution computes it."""
from tvm.script import tirx as T

BATCH, HEADS, SEQ, DK, DV = 8, 8, 1024, 256, 512
TQ, TK, COLS, THREADS = 64, 64, 128, 128
QS, VS = DK + 8, TK + 8                      # padded shared pitches (bf16 elements)
K_OFF = TQ * QS                              # sK after sQ
V_OFF = K_OFF + TK * QS                      # sV (V^T) after sK
SMEM = (V_OFF + COLS * VS) * 2
assert SMEM == 86016


def expf2(x):
    return T.call_pure_extern("float32", "exp2f", x)


def pack(x, y):
    # bf16(x) in the low half, bf16(y) in the high half, each rounded to nearest even
    return T.bitwise_or(T.Cast("uint32", T.reinterpret("uint16", T.Cast("bfloat16", x))),
                        T.shift_left(T.Cast("uint32", T.reinterpret("uint16", T.Cast("bfloat16", y))), T.uint32(16)))


@T.macro
def mma(acc, n, a0, a1, a2, a3, b0, b1):
    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
        acc[n, 0], acc[n, 1], acc[n, 2], acc[n, 3], a0, a1, a2, a3, b0, b1,
        acc[n, 0], acc[n, 1], acc[n, 2], acc[n, 3])


@T.prim_func
def retention_fused(q_ptr: T.handle, k_ptr: T.handle, v_ptr: T.handle, o_ptr: T.handle, scale: T.float32):
    Q = T.match_buffer(q_ptr, (BATCH * HEADS * SEQ, DK), "bfloat16")
    K = T.match_buffer(k_ptr, (BATCH * HEADS * SEQ, DK), "bfloat16")
    V = T.match_buffer(v_ptr, (BATCH * HEADS * SEQ, DV), "bfloat16")
    O = T.match_buffer(o_ptr, (BATCH * HEADS * SEQ * DV,), "bfloat16")
    T.device_entry()
    qt, cb, bh = T.cta_id([SEQ // TQ, DV // COLS, BATCH * HEADS])
    tx = T.thread_id([THREADS])
    Ou = T.decl_buffer((BATCH * HEADS * SEQ * DV // 2,), "uint32", data=O.data)
    sm = T.alloc_buffer((SMEM // 2,), "bfloat16", scope="shared.dyn")
    smu = T.decl_buffer((SMEM // 4,), "uint32", data=sm.data, scope="shared.dyn")
    acc = T.alloc_buffer((COLS // 8, 4), "float32", scope="local")
    s = T.alloc_buffer((TK // 8, 4), "float32", scope="local")
    a = T.alloc_buffer((4,), "uint32", scope="local")
    p = T.alloc_buffer((TK // 16, 4), "uint32", scope="local")
    w = T.alloc_buffer((4,), "float32", scope="local")
    vx = T.alloc_buffer((8,), "bfloat16", scope="local")
    sh = T.alloc_buffer((1,), "float32", scope="local")
    # warp w = tx / 32, lane = tx % 32, grp = lane / 4, quad = lane % 4; this lane's tile rows 16 w + grp (+ 8)
    sh[0] = T.call_pure_extern("float32", "log2f", T.float32(1) - T.call_pure_extern(
        "float32", "powf", T.float32(2), T.float32(-5) - T.Cast("float32", bh % HEADS)))
    for it in T.unroll(TQ * DK // 8 // THREADS):          # Q tile: row e / 32, 8 columns (e % 32) * 8
        for i in T.vectorized(8):
            sm[(it * THREADS + tx) // (DK // 8) * QS + tx % (DK // 8) * 8 + i] = Q[
                bh * SEQ + qt * TQ + (it * THREADS + tx) // (DK // 8), tx % (DK // 8) * 8 + i]
    for n in T.unroll(COLS // 8):
        for e in T.unroll(4):
            acc[n, e] = T.float32(0)

    for kt in T.serial(qt + 1):
        T.cuda.cta_sync()   # the previous tile's K and V^T are no longer read (and Q is staged)
        for it in T.unroll(TK * DK // 8 // THREADS):
            for i in T.vectorized(8):
                sm[K_OFF + (it * THREADS + tx) // (DK // 8) * QS + tx % (DK // 8) * 8 + i] = K[
                    bh * SEQ + kt * TK + (it * THREADS + tx) // (DK // 8), tx % (DK // 8) * 8 + i]
        for it in T.unroll(TK * COLS // 8 // THREADS):     # key r = e / 16, value channels c = (e % 16) * 8 ..
            for i in T.vectorized(8):
                vx[i] = V[bh * SEQ + kt * TK + (it * THREADS + tx) // (COLS // 8), cb * COLS + tx % (COLS // 8) * 8 + i]
            for i in T.unroll(8):
                sm[V_OFF + (tx % (COLS // 8) * 8 + i) * VS + (it * THREADS + tx) // (COLS // 8)] = vx[i]
        T.cuda.cta_sync()

        # S = Q K^T for this warp's 16 rows and the tile's 64 keys: 8 n-tiles of 8 keys
        for n in T.unroll(TK // 8):
            for e in T.unroll(4):
                s[n, e] = T.float32(0)
        for kc in T.serial(DK // 16):
            # d = 16 kc + 2 quad
            a[0] = smu[((tx // 32 * 16 + tx % 32 // 4) * QS + kc * 16 + tx % 4 * 2) // 2]
            a[1] = smu[((tx // 32 * 16 + tx % 32 // 4 + 8) * QS + kc * 16 + tx % 4 * 2) // 2]
            a[2] = smu[((tx // 32 * 16 + tx % 32 // 4) * QS + kc * 16 + tx % 4 * 2 + 8) // 2]
            a[3] = smu[((tx // 32 * 16 + tx % 32 // 4 + 8) * QS + kc * 16 + tx % 4 * 2 + 8) // 2]
            for n in T.unroll(TK // 8):
                mma(s, n, a[0], a[1], a[2], a[3],
                    smu[(K_OFF + (n * 8 + tx % 32 // 4) * QS + kc * 16 + tx % 4 * 2) // 2],
                    smu[(K_OFF + (n * 8 + tx % 32 // 4) * QS + kc * 16 + tx % 4 * 2 + 8) // 2])

        # scale, decay and the causal mask; weights as bf16 A operands for P V. Query rows
        # i0 = q0 + 16 w + grp, i1 = i0 + 8; keys j = k0 + 8 n + 2 quad (+ 1)
        for n in T.unroll(TK // 8):
            for e in T.unroll(4):
                w[e] = T.Select(
                    kt * TK + n * 8 + tx % 4 * 2 + e % 2 <= qt * TQ + tx // 32 * 16 + tx % 32 // 4 + e // 2 * 8,
                    (s[n, e] * scale) * expf2(T.Cast("float32", qt * TQ + tx // 32 * 16 + tx % 32 // 4 + e // 2 * 8
                                                     - (kt * TK + n * 8 + tx % 4 * 2 + e % 2)) * sh[0]),
                    T.float32(0))
            # n-tile n is keys 8n .. 8n + 7: k-chunk n / 2, low (even n) or high (odd n) half of the operand
            p[n // 2, n % 2 * 2] = pack(w[0], w[1])
            p[n // 2, n % 2 * 2 + 1] = pack(w[2], w[3])

        # O += P V: 4 k-chunks of 16 keys, 16 n-tiles of 8 value channels
        for kc in T.unroll(TK // 16):
            for n in T.unroll(COLS // 8):
                mma(acc, n, p[kc, 0], p[kc, 1], p[kc, 2], p[kc, 3],
                    smu[(V_OFF + (n * 8 + tx % 32 // 4) * VS + kc * 16 + tx % 4 * 2) // 2],
                    smu[(V_OFF + (n * 8 + tx % 32 // 4) * VS + kc * 16 + tx % 4 * 2 + 8) // 2])

    for n in T.unroll(COLS // 8):
        Ou[((bh * SEQ + qt * TQ + tx // 32 * 16 + tx % 32 // 4) * DV + cb * COLS + n * 8 + tx % 4 * 2) // 2] = pack(
            acc[n, 0], acc[n, 1])
        Ou[((bh * SEQ + qt * TQ + tx // 32 * 16 + tx % 32 // 4 + 8) * DV + cb * COLS + n * 8 + tx % 4 * 2) // 2] = pack(
            acc[n, 2], acc[n, 3])


MKB_PLAN = """/* mkb:plan
launch retention_fused grid(seq_len / 64, value_dim / 128, batch_size * num_heads) block(128)
  shared((64 * (key_dim + 8) * 2 + 128 * 72) * 2)
  args(q, k, v, o, f32(scale))
*/"""
