"""Gated linear attention (GLA) recurrence in TIRx: the algorithm of solutions/cuda.cu, one launch.
A 256-thread CTA per (32 value channels, b * h). Every state column is an independent recurrence from a zero
state: thread (column c = tx / 8, part p = tx % 8) keeps 32 of column c's 256 key channels in registers for
the 1024 tokens (16-byte group j of part p: channels (8j + p) * 4 .. + 3). Per token: S = fmaf(k, v_c, S * e)
channel by channel, then o_c = sum_k (q_k * scale) * S_k as four fmaf chains of 8, (a0 + a1) + (a2 + a3),
then xor 1, 2, 4 shuffles over the column's 8 threads. The next token's q * scale, k and exp(gk) (one channel
per thread) and v are staged in shared memory (double buffer, loads issued before this token's arithmetic);
one barrier per token.
Rounding as the cuda solution: its fused multiply-adds as fmaf, the decay product S * e through __fmul_rn
(T.call_pure_extern), the exponentials through expf."""
from tvm.script import tirx as T

BATCH, SEQ, HEADS, DK, DV = 8, 1024, 4, 256, 512
ROWS = BATCH * SEQ * HEADS
COLS, PARTS = 32, 8
THREADS = COLS * PARTS                # 256 == DK
PER = DK // PARTS
GROUPS = PER // 4


def fmul(x, y):
    return T.call_pure_extern("float32", "__fmul_rn", x, y)


def fma(x, y, z):
    return T.call_pure_extern("float32", "fmaf", x, y, z)


def expf(x):
    return T.call_pure_extern("float32", "expf", x)


@T.prim_func
def gla_recurrent(q_ptr: T.handle, k_ptr: T.handle, v_ptr: T.handle, gk_ptr: T.handle, o_ptr: T.handle,
                  scale: T.float32):
    Q = T.match_buffer(q_ptr, (ROWS, DK), "bfloat16")
    K = T.match_buffer(k_ptr, (ROWS, DK), "bfloat16")
    V = T.match_buffer(v_ptr, (ROWS, DV), "bfloat16")
    GK = T.match_buffer(gk_ptr, (ROWS, DK), "bfloat16")
    O = T.match_buffer(o_ptr, (ROWS, DV), "bfloat16")
    T.device_entry()
    cb, pair = T.cta_id([DV // COLS, BATCH * HEADS])
    tx = T.thread_id([THREADS])
    SQs = T.alloc_buffer((2, DK), "float32", scope="shared")
    SKs = T.alloc_buffer((2, DK), "float32", scope="shared")
    SEs = T.alloc_buffer((2, DK), "float32", scope="shared")
    SVs = T.alloc_buffer((2, COLS), "float32", scope="shared")
    st = T.alloc_buffer((PER,), "float32", scope="local")
    ee = T.alloc_buffer((4,), "float32", scope="local")
    kk = T.alloc_buffer((4,), "float32", scope="local")
    qq = T.alloc_buffer((4,), "float32", scope="local")
    aa = T.alloc_buffer((4,), "float32", scope="local")
    nx = T.alloc_buffer((4,), "bfloat16", scope="local")     # next token's q, k, gk, v
    vc = T.alloc_buffer((1,), "float32", scope="local")
    out = T.alloc_buffer((1,), "float32", scope="local")
    # b = pair / 4, h = pair % 4; token t is row (b * SEQ + t) * HEADS + h; column = cb * 32 + tx / 8
    for j in T.unroll(PER):
        st[j] = T.float32(0)
    SQs[0, tx] = T.Cast("float32", Q[pair // HEADS * SEQ * HEADS + pair % HEADS, tx]) * scale
    SKs[0, tx] = T.Cast("float32", K[pair // HEADS * SEQ * HEADS + pair % HEADS, tx])
    SEs[0, tx] = expf(T.Cast("float32", GK[pair // HEADS * SEQ * HEADS + pair % HEADS, tx]))
    if tx < COLS:
        SVs[0, tx] = T.Cast("float32", V[pair // HEADS * SEQ * HEADS + pair % HEADS, cb * COLS + tx])
    T.cuda.cta_sync()

    for t in T.serial(SEQ):
        for e in T.unroll(4):
            nx[e] = T.bfloat16(0)
        if t + 1 < SEQ:
            nx[0] = Q[(pair // HEADS * SEQ + t + 1) * HEADS + pair % HEADS, tx]
            nx[1] = K[(pair // HEADS * SEQ + t + 1) * HEADS + pair % HEADS, tx]
            nx[2] = GK[(pair // HEADS * SEQ + t + 1) * HEADS + pair % HEADS, tx]
            if tx < COLS:
                nx[3] = V[(pair // HEADS * SEQ + t + 1) * HEADS + pair % HEADS, cb * COLS + tx]
        vc[0] = SVs[t % 2, tx // PARTS]
        for e in T.unroll(4):
            aa[e] = T.float32(0)
        for j in T.unroll(GROUPS):
            for e in T.vectorized(4):
                ee[e] = SEs[t % 2, (j * PARTS + tx % PARTS) * 4 + e]
            for e in T.vectorized(4):
                kk[e] = SKs[t % 2, (j * PARTS + tx % PARTS) * 4 + e]
            for e in T.vectorized(4):
                qq[e] = SQs[t % 2, (j * PARTS + tx % PARTS) * 4 + e]
            for e in T.unroll(4):
                st[j * 4 + e] = fma(kk[e], vc[0], fmul(st[j * 4 + e], ee[e]))
            for e in T.unroll(4):
                aa[e] = fma(qq[e], st[j * 4 + e], aa[e])
        out[0] = (aa[0] + aa[1]) + (aa[2] + aa[3])
        out[0] = out[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), out[0], 1, 32, 32)
        out[0] = out[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), out[0], 2, 32, 32)
        out[0] = out[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), out[0], 4, 32, 32)
        if tx % PARTS == 0:
            O[(pair // HEADS * SEQ + t) * HEADS + pair % HEADS, cb * COLS + tx // PARTS] = T.Cast("bfloat16", out[0])
        if t + 1 < SEQ:   # the other buffer was last read before the previous barrier
            SQs[1 - t % 2, tx] = T.Cast("float32", nx[0]) * scale
            SKs[1 - t % 2, tx] = T.Cast("float32", nx[1])
            SEs[1 - t % 2, tx] = expf(T.Cast("float32", nx[2]))
            if tx < COLS:
                SVs[1 - t % 2, tx] = T.Cast("float32", nx[3])
        T.cuda.cta_sync()


MKB_PLAN = """/* mkb:plan
launch gla_recurrent grid(value_dim / 32, batch_size * num_heads) block(256) args(q, k, v, gk, o, f32(scale))
*/"""
