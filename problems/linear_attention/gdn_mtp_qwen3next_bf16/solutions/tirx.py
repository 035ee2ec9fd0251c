"""Gated delta rule over 4 draft tokens (Qwen3-Next MTP verification) in TIRx: the algorithm of
solutions/cuda.cu, two launches.
  1. gdn_mtp: one warp per (sequence, value head, value row v); a 256-thread CTA holds 8 rows of one
     (sequence, head) pair. Row v of the k-last pool slot the sequence names (128 fp32; lane l holds
     k = 4l .. 4l + 3, one 16-byte load) is column v of the [K, V] state, and rows are independent, so the
     warp keeps its row in registers through the 4 tokens: per token old = g * S, old_v = k . old (a four-term
     fmaf chain per lane, then a butterfly over xor 16, 8, 4, 2, 1), new_v = beta * v + (1 - beta) * old_v,
     S = (old - k * old_v) + k * new_v, output = bf16(scale * (q . S)). Gate and beta with eager's fp32
     operations (expf, log1pf; x > 20 passes x through).
  2. copy_pool: final_state is the input pool unchanged, a 16-byte-vector copy (one float4 per thread).

Rounding as the cuda solution: the state arithmetic through __fmul_rn / __fadd_rn / __fsub_rn / fmaf
(T.call_pure_extern), so TVM contracts nothing and the values equal the cuda solution's bit for bit."""
from tvm.script import tirx as T

BATCH, SEQ, HQK, HV, D, POOL = 32, 4, 8, 16, 128, 49
GROUP = HV // HQK
ROWS = 8                              # warps (value rows) per CTA
PAIRS = BATCH * HV
CTAS = PAIRS * D // ROWS              # 8192
POOL4 = POOL * HV * D * D // 4        # float4 elements of the pool
assert POOL4 % 256 == 0


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


def expf(x):
    return T.call_pure_extern("float32", "expf", x)


def log1pf(x):
    return T.call_pure_extern("float32", "log1pf", x)


@T.prim_func
def gdn_mtp(q_ptr: T.handle, k_ptr: T.handle, v_ptr: T.handle, initial_state_ptr: T.handle,
            indices_ptr: T.handle, a_log_ptr: T.handle, a_ptr: T.handle, dt_bias_ptr: T.handle, b_ptr: T.handle,
            output_ptr: T.handle, scale: T.float32):
    Q = T.match_buffer(q_ptr, (BATCH * SEQ, HQK, D), "bfloat16")
    K = T.match_buffer(k_ptr, (BATCH * SEQ, HQK, D), "bfloat16")
    V = T.match_buffer(v_ptr, (BATCH * SEQ * HV, D), "bfloat16")
    S0 = T.match_buffer(initial_state_ptr, (POOL * HV * D, D), "float32")
    IDX = T.match_buffer(indices_ptr, (BATCH,), "int32")
    ALOG = T.match_buffer(a_log_ptr, (HV,), "float32")
    A = T.match_buffer(a_ptr, (BATCH * SEQ, HV), "bfloat16")
    DTB = T.match_buffer(dt_bias_ptr, (HV,), "float32")
    B = T.match_buffer(b_ptr, (BATCH * SEQ, HV), "bfloat16")
    OUT = T.match_buffer(output_ptr, (BATCH * SEQ * HV, D), "bfloat16")
    T.device_entry()
    bx = T.cta_id([CTAS])
    tx = T.thread_id([ROWS * 32])
    # pair = bx // 16 (b = pair // 16, h = pair % 16), row = bx % 16 * 8 + tx // 32, lane = tx % 32 (inline);
    # token t of sequence b is b * 4 + t
    s = T.alloc_buffer((4,), "float32", scope="local")
    kb = T.alloc_buffer((4,), "bfloat16", scope="local")
    qb = T.alloc_buffer((4,), "bfloat16", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    hc = T.alloc_buffer((2,), "float32", scope="local")     # -exp(A_log[h]), dt_bias[h]
    gb = T.alloc_buffer((2,), "float32", scope="local")     # g, beta
    x = T.alloc_buffer((1,), "float32", scope="local")
    vr = T.alloc_buffer((1,), "float32", scope="local")
    ov = T.alloc_buffer((2,), "float32", scope="local")     # old_v, new_v
    acc = T.alloc_buffer((1,), "float32", scope="local")
    for e in T.vectorized(4):
        s[e] = S0[(IDX[bx // (D // ROWS) // HV] * HV + bx // (D // ROWS) % HV) * D
                  + bx % (D // ROWS) * ROWS + tx // 32, tx % 32 * 4 + e]
    hc[0] = T.float32(0) - expf(ALOG[bx // (D // ROWS) % HV])
    hc[1] = DTB[bx // (D // ROWS) % HV]
    for t in T.unroll(SEQ):
        for e in T.vectorized(4):
            kb[e] = K[bx // (D // ROWS) // HV * SEQ + t, bx // (D // ROWS) % HV // GROUP, tx % 32 * 4 + e]
        for e in T.vectorized(4):
            qb[e] = Q[bx // (D // ROWS) // HV * SEQ + t, bx // (D // ROWS) % HV // GROUP, tx % 32 * 4 + e]
        vr[0] = T.Cast("float32", V[(bx // (D // ROWS) // HV * SEQ + t) * HV + bx // (D // ROWS) % HV,
                                    bx % (D // ROWS) * ROWS + tx // 32])
        x[0] = fadd(T.Cast("float32", A[bx // (D // ROWS) // HV * SEQ + t, bx // (D // ROWS) % HV]), hc[1])
        x[0] = T.Select(x[0] > T.float32(20), x[0], log1pf(expf(x[0])))
        gb[0] = expf(fmul(hc[0], x[0]))
        gb[1] = fdiv(T.float32(1), fadd(T.float32(1), expf(
            T.float32(0) - T.Cast("float32", B[bx // (D // ROWS) // HV * SEQ + t, bx // (D // ROWS) % HV]))))
        for e in T.unroll(4):
            o[e] = fmul(gb[0], s[e])
        acc[0] = fma(T.Cast("float32", kb[3]), o[3], fma(T.Cast("float32", kb[2]), o[2],
                     fma(T.Cast("float32", kb[1]), o[1], fmul(T.Cast("float32", kb[0]), o[0]))))
        ov[0] = T.cuda.warp_sum(acc[0], 32)
        ov[1] = fadd(fmul(gb[1], vr[0]), fmul(fsub(T.float32(1), gb[1]), ov[0]))
        for e in T.unroll(4):
            s[e] = fadd(fsub(o[e], fmul(T.Cast("float32", kb[e]), ov[0])), fmul(T.Cast("float32", kb[e]), ov[1]))
        acc[0] = fma(T.Cast("float32", qb[3]), s[3], fma(T.Cast("float32", qb[2]), s[2],
                     fma(T.Cast("float32", qb[1]), s[1], fmul(T.Cast("float32", qb[0]), s[0]))))
        acc[0] = T.cuda.warp_sum(acc[0], 32)
        if tx % 32 == 0:
            OUT[(bx // (D // ROWS) // HV * SEQ + t) * HV + bx // (D // ROWS) % HV,
                bx % (D // ROWS) * ROWS + tx // 32] = T.Cast("bfloat16", fmul(scale, acc[0]))


@T.prim_func
def copy_pool(src_ptr: T.handle, dst_ptr: T.handle):
    SRC = T.match_buffer(src_ptr, (POOL4 * 4,), "float32")
    DST = T.match_buffer(dst_ptr, (POOL4 * 4,), "float32")
    T.device_entry()
    bx = T.cta_id([POOL4 // 256])
    tx = T.thread_id([256])
    r = T.alloc_buffer((4,), "float32", scope="local")
    for e in T.vectorized(4):
        r[e] = SRC[(bx * 256 + tx) * 4 + e]
    for e in T.vectorized(4):
        DST[(bx * 256 + tx) * 4 + e] = r[e]


MKB_PLAN = """/* mkb:plan
launch gdn_mtp grid(batch_size * num_v_heads * head_size / 8) block(256)
  args(q, k, v, initial_state, initial_state_indices, A_log, a, dt_bias, b, output, f32(scale))
launch copy_pool grid(pool_size * num_v_heads * head_size * head_size / 1024) block(256)
  args(initial_state, final_state)
*/"""
