"""DeltaNet delta rule in TIRx: the algorithm of solutions/cuda.cu, two launches.
  1. normalize_qk: a warp per (b, h, t) row (4 channels a lane, 8-byte loads) normalizes q and k as
     F.normalize (fp32 sum of squares, xor-butterfly over the warp, sqrtf, clamp to eps, one IEEE division
     per element) and scales q; writes fp32 rows (16-byte stores).
  2. delta_rule_recurrent: a 128-thread CTA per (32-column slice of the state, b * h). Every state column
     is an independent recurrence: thread (column c = tx / 4, part p = tx % 4) holds 32 of column c's 128
     key-channel entries in registers for the whole sequence (16-byte group j of part p: channels
     (4j + p) * 4 .. + 3); the sums over the key channels are four chains of 8 in the thread,
     (r0 + r1) + (r2 + r3), then xor-1 and xor-2 shuffles over the column's 4 threads. The next token's kn,
     qs, v and beta are staged in shared memory (double buffer, loads issued before this token's
     arithmetic), one barrier per token.
Rounding as the cuda solution: the state read S * kn rounded before the sum and the update k * w rounded
before the add through __fmul_rn / __fadd_rn / __fsub_rn (T.call_pure_extern), the output dot product as
fmaf chains; the norm's sum of squares written as the cuda solution writes it, so the generated code gets
the compiler's same contraction."""
from tvm.script import tirx as T

BATCH, HEADS, SEQ, DK, DV = 8, 16, 1024, 128, 128
ROWS = BATCH * HEADS * SEQ
COLS, PARTS = 32, 4
THREADS = COLS * PARTS                # 128 == DK
PER = DK // PARTS
GROUPS = PER // 4


def fadd(x, y):
    return T.call_pure_extern("float32", "__fadd_rn", x, y)


def fsub(x, y):
    return T.call_pure_extern("float32", "__fsub_rn", x, y)


def fmul(x, y):
    return T.call_pure_extern("float32", "__fmul_rn", x, y)


def fdiv(x, y):
    return T.call_pure_extern("float32", "__fdiv_rn", x, y)


def fma(x, y, z):
    return T.call_pure_extern("float32", "fmaf", x, y, z)


@T.prim_func
def normalize_qk(q_ptr: T.handle, k_ptr: T.handle, qs_ptr: T.handle, kn_ptr: T.handle, scale: T.float32,
                 eps: T.float32):
    Q = T.match_buffer(q_ptr, (ROWS, DK), "bfloat16")
    K = T.match_buffer(k_ptr, (ROWS, DK), "bfloat16")
    QS = T.match_buffer(qs_ptr, (ROWS, DK), "float32")
    KN = T.match_buffer(kn_ptr, (ROWS, DK), "float32")
    T.device_entry()
    bx = T.cta_id([ROWS // 8])
    tx = T.thread_id([256])
    qv = T.alloc_buffer((4,), "bfloat16", scope="local")
    kv = T.alloc_buffer((4,), "bfloat16", scope="local")
    qo = T.alloc_buffer((4,), "float32", scope="local")
    ko = T.alloc_buffer((4,), "float32", scope="local")
    s = T.alloc_buffer((2,), "float32", scope="local")
    for e in T.vectorized(4):
        qv[e] = Q[bx * 8 + tx // 32, tx % 32 * 4 + e]
    for e in T.vectorized(4):
        kv[e] = K[bx * 8 + tx // 32, tx % 32 * 4 + e]
    s[0] = T.Cast("float32", qv[0]) * T.Cast("float32", qv[0]) + T.Cast("float32", qv[1]) * T.Cast("float32", qv[1]) \
        + T.Cast("float32", qv[2]) * T.Cast("float32", qv[2]) + T.Cast("float32", qv[3]) * T.Cast("float32", qv[3])
    s[1] = T.Cast("float32", kv[0]) * T.Cast("float32", kv[0]) + T.Cast("float32", kv[1]) * T.Cast("float32", kv[1]) \
        + T.Cast("float32", kv[2]) * T.Cast("float32", kv[2]) + T.Cast("float32", kv[3]) * T.Cast("float32", kv[3])
    for st in T.unroll(5):                   # xor 16, 8, 4, 2, 1
        s[0] = s[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), s[0], 16 >> st, 32, 32)
        s[1] = s[1] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), s[1], 16 >> st, 32, 32)
    s[0] = T.max(T.sqrt(s[0]), eps)
    s[1] = T.max(T.sqrt(s[1]), eps)
    for e in T.unroll(4):
        qo[e] = fmul(fdiv(T.Cast("float32", qv[e]), s[0]), scale)
        ko[e] = fdiv(T.Cast("float32", kv[e]), s[1])
    for e in T.vectorized(4):
        QS[bx * 8 + tx // 32, tx % 32 * 4 + e] = qo[e]
    for e in T.vectorized(4):
        KN[bx * 8 + tx // 32, tx % 32 * 4 + e] = ko[e]


@T.prim_func
def delta_rule_recurrent(kn_ptr: T.handle, qs_ptr: T.handle, v_ptr: T.handle, beta_ptr: T.handle,
                         initial_state_ptr: T.handle, o_ptr: T.handle, final_state_ptr: T.handle):
    KN = T.match_buffer(kn_ptr, (ROWS, DK), "float32")
    QS = T.match_buffer(qs_ptr, (ROWS, DK), "float32")
    V = T.match_buffer(v_ptr, (ROWS, DV), "bfloat16")
    BETA = T.match_buffer(beta_ptr, (ROWS,), "bfloat16")
    S0 = T.match_buffer(initial_state_ptr, (BATCH * HEADS * DK, DV), "float32")
    O = T.match_buffer(o_ptr, (ROWS, DV), "bfloat16")
    SF = T.match_buffer(final_state_ptr, (BATCH * HEADS * DK, DV), "float32")
    T.device_entry()
    cb, pair = T.cta_id([DV // COLS, BATCH * HEADS])
    tx = T.thread_id([THREADS])
    SKs = T.alloc_buffer((2, DK), "float32", scope="shared")
    SQs = T.alloc_buffer((2, DK), "float32", scope="shared")
    SVs = T.alloc_buffer((2, COLS), "float32", scope="shared")
    SBs = T.alloc_buffer((2,), "float32", scope="shared")
    st = T.alloc_buffer((PER,), "float32", scope="local")
    kk = T.alloc_buffer((PER,), "float32", scope="local")
    qq = T.alloc_buffer((4,), "float32", scope="local")
    rr = T.alloc_buffer((4,), "float32", scope="local")
    nx = T.alloc_buffer((4,), "float32", scope="local")      # next token's k, q, v, beta
    w = T.alloc_buffer((2,), "float32", scope="local")       # read (then out), w
    # column = cb * 32 + tx / 4, part = tx % 4; token t of the pair is row pair * SEQ + t
    for j in T.unroll(GROUPS):
        for e in T.unroll(4):
            st[j * 4 + e] = S0[pair * DK + (j * PARTS + tx % PARTS) * 4 + e, cb * COLS + tx // PARTS]
    SKs[0, tx] = KN[pair * SEQ, tx]
    SQs[0, tx] = QS[pair * SEQ, tx]
    if tx < COLS:
        SVs[0, tx] = T.Cast("float32", V[pair * SEQ, cb * COLS + tx])
    if tx == 0:
        SBs[0] = T.Cast("float32", BETA[pair * SEQ])
    T.cuda.cta_sync()

    for t in T.serial(SEQ):
        for e in T.unroll(4):
            nx[e] = T.float32(0)
        if t + 1 < SEQ:
            nx[0] = KN[pair * SEQ + t + 1, tx]
            nx[1] = QS[pair * SEQ + t + 1, tx]
            if tx < COLS:
                nx[2] = T.Cast("float32", V[pair * SEQ + t + 1, cb * COLS + tx])
            if tx == 0:
                nx[3] = T.Cast("float32", BETA[pair * SEQ + t + 1])
        for e in T.unroll(4):
            rr[e] = T.float32(0)
        for j in T.unroll(GROUPS):
            for e in T.vectorized(4):
                kk[j * 4 + e] = SKs[t % 2, (j * PARTS + tx % PARTS) * 4 + e]
            for e in T.unroll(4):
                rr[e] = fadd(rr[e], fmul(st[j * 4 + e], kk[j * 4 + e]))
        w[0] = (rr[0] + rr[1]) + (rr[2] + rr[3])
        w[0] = w[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), w[0], 1, 32, 32)
        w[0] = w[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), w[0], 2, 32, 32)
        w[1] = fmul(fsub(SVs[t % 2, tx // PARTS], w[0]), SBs[t % 2])
        for e in T.unroll(4):
            rr[e] = T.float32(0)
        for j in T.unroll(GROUPS):
            for e in T.vectorized(4):
                qq[e] = SQs[t % 2, (j * PARTS + tx % PARTS) * 4 + e]
            for e in T.unroll(4):
                st[j * 4 + e] = fadd(st[j * 4 + e], fmul(kk[j * 4 + e], w[1]))
            for e in T.unroll(4):
                rr[e] = fma(qq[e], st[j * 4 + e], rr[e])
        w[0] = (rr[0] + rr[1]) + (rr[2] + rr[3])
        w[0] = w[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), w[0], 1, 32, 32)
        w[0] = w[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), w[0], 2, 32, 32)
        if tx % PARTS == 0:
            O[pair * SEQ + t, cb * COLS + tx // PARTS] = T.Cast("bfloat16", w[0])
        if t + 1 < SEQ:   # the other buffer was last read before the previous barrier
            SKs[1 - t % 2, tx] = nx[0]
            SQs[1 - t % 2, tx] = nx[1]
            if tx < COLS:
                SVs[1 - t % 2, tx] = nx[2]
            if tx == 0:
                SBs[1 - t % 2] = nx[3]
        T.cuda.cta_sync()

    for j in T.unroll(GROUPS):
        for e in T.unroll(4):
            SF[pair * DK + (j * PARTS + tx % PARTS) * 4 + e, cb * COLS + tx // PARTS] = st[j * 4 + e]


MKB_PLAN = """/* mkb:plan
scratch qs fp32[batch_size * num_heads * seq_len * key_dim]
scratch kn fp32[batch_size * num_heads * seq_len * key_dim]
launch normalize_qk grid(batch_size * num_heads * seq_len / 8) block(256)
  args(q, k, qs, kn, f32(scale), f32(norm_eps))
launch delta_rule_recurrent grid(value_dim / 32, batch_size * num_heads) block(128)
  args(kn, qs, v, beta, initial_state, o, final_state)
*/"""
