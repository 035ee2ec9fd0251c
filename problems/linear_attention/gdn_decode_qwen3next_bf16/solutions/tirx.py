"""Gated delta-rule decode (Qwen3-Next) in TIRx: the algorithm of solutions/cuda.cu. One warp per (sequence,
value head, value row v); a 256-thread CTA holds 8 rows of one (sequence, head) pair. The k-last state's row v
(128 fp32) is column v of the [K, V] state the rule works on: lane l holds k = 4l .. 4l + 3 (one 16-byte load),
with the same four elements of k and q (8-byte loads). Per row: old = g * S, old_v = k . old (four-term fmaf
chain per lane, then a butterfly over xor 16, 8, 4, 2, 1), new_v = beta * v + (1 - beta) * old_v,
S' = (old - k * old_v) + k * new_v, out = scale * (q . S'). Gate and beta are recomputed per warp with eager's
operations (expf, log1pf; x > 20 passes x through).

Rounding as the cuda solution: every product, sum and difference of the state arithmetic through
__fmul_rn / __fadd_rn / __fsub_rn / fmaf (T.call_pure_extern), so TVM contracts nothing and its values equal
the cuda solution's bit for bit."""
from tvm.script import tirx as T

BATCH, HQK, HV, D = 64, 8, 16, 128
GROUP = HV // HQK
ROWS = 8                              # warps (value rows) per CTA
PAIRS = BATCH * HV
CTAS = PAIRS * D // ROWS              # 16384


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
def gdn_decode(q_ptr: T.handle, k_ptr: T.handle, v_ptr: T.handle, state_ptr: T.handle, a_log_ptr: T.handle,
               a_ptr: T.handle, dt_bias_ptr: T.handle, b_ptr: T.handle, output_ptr: T.handle,
               new_state_ptr: T.handle, scale: T.float32):
    Q = T.match_buffer(q_ptr, (BATCH, HQK, D), "bfloat16")
    K = T.match_buffer(k_ptr, (BATCH, HQK, D), "bfloat16")
    V = T.match_buffer(v_ptr, (PAIRS, D), "bfloat16")
    S = T.match_buffer(state_ptr, (PAIRS * D, D), "float32")
    ALOG = T.match_buffer(a_log_ptr, (HV,), "float32")
    A = T.match_buffer(a_ptr, (PAIRS,), "bfloat16")
    DTB = T.match_buffer(dt_bias_ptr, (HV,), "float32")
    B = T.match_buffer(b_ptr, (PAIRS,), "bfloat16")
    OUT = T.match_buffer(output_ptr, (PAIRS, D), "bfloat16")
    NS = T.match_buffer(new_state_ptr, (PAIRS * D, D), "float32")
    T.device_entry()
    bx = T.cta_id([CTAS])
    tx = T.thread_id([ROWS * 32])
    # pair = bx // 16 (b = pair // 16, h = pair % 16), row = bx % 16 * 8 + tx // 32, lane = tx % 32 (inline)
    s = T.alloc_buffer((4,), "float32", scope="local")
    kb = T.alloc_buffer((4,), "bfloat16", scope="local")
    qb = T.alloc_buffer((4,), "bfloat16", scope="local")
    o = T.alloc_buffer((4,), "float32", scope="local")
    ns = T.alloc_buffer((4,), "float32", scope="local")
    gb = T.alloc_buffer((2,), "float32", scope="local")     # g, beta
    x = T.alloc_buffer((1,), "float32", scope="local")
    vr = T.alloc_buffer((1,), "float32", scope="local")
    ov = T.alloc_buffer((2,), "float32", scope="local")     # old_v, new_v
    acc = T.alloc_buffer((1,), "float32", scope="local")
    for e in T.vectorized(4):
        s[e] = S[bx // (D // ROWS) * D + bx % (D // ROWS) * ROWS + tx // 32, tx % 32 * 4 + e]
    for e in T.vectorized(4):
        kb[e] = K[bx // (D // ROWS) // HV, bx // (D // ROWS) % HV // GROUP, tx % 32 * 4 + e]
    for e in T.vectorized(4):
        qb[e] = Q[bx // (D // ROWS) // HV, bx // (D // ROWS) % HV // GROUP, tx % 32 * 4 + e]
    vr[0] = T.Cast("float32", V[bx // (D // ROWS), bx % (D // ROWS) * ROWS + tx // 32])

    # g = exp(-exp(A_log) * softplus(a + dt_bias)), beta = sigmoid(b): eager's fp32 operations
    x[0] = fadd(T.Cast("float32", A[bx // (D // ROWS)]), DTB[bx // (D // ROWS) % HV])
    x[0] = T.Select(x[0] > T.float32(20), x[0], log1pf(expf(x[0])))
    gb[0] = expf(fmul(T.float32(0) - expf(ALOG[bx // (D // ROWS) % HV]), x[0]))
    gb[1] = fdiv(T.float32(1), fadd(T.float32(1), expf(T.float32(0) - T.Cast("float32", B[bx // (D // ROWS)]))))

    for e in T.unroll(4):
        o[e] = fmul(gb[0], s[e])
    acc[0] = fma(T.Cast("float32", kb[3]), o[3], fma(T.Cast("float32", kb[2]), o[2],
                 fma(T.Cast("float32", kb[1]), o[1], fmul(T.Cast("float32", kb[0]), o[0]))))
    ov[0] = T.cuda.warp_sum(acc[0], 32)
    ov[1] = fadd(fmul(gb[1], vr[0]), fmul(fsub(T.float32(1), gb[1]), ov[0]))
    for e in T.unroll(4):
        ns[e] = fadd(fsub(o[e], fmul(T.Cast("float32", kb[e]), ov[0])), fmul(T.Cast("float32", kb[e]), ov[1]))
    for e in T.vectorized(4):
        NS[bx // (D // ROWS) * D + bx % (D // ROWS) * ROWS + tx // 32, tx % 32 * 4 + e] = ns[e]
    acc[0] = fma(T.Cast("float32", qb[3]), ns[3], fma(T.Cast("float32", qb[2]), ns[2],
                 fma(T.Cast("float32", qb[1]), ns[1], fmul(T.Cast("float32", qb[0]), ns[0]))))
    acc[0] = T.cuda.warp_sum(acc[0], 32)
    if tx % 32 == 0:
        OUT[bx // (D // ROWS), bx % (D // ROWS) * ROWS + tx // 32] = T.Cast("bfloat16", fmul(scale, acc[0]))


MKB_PLAN = """/* mkb:plan
launch gdn_decode grid(batch_size * num_v_heads * head_size / 8) block(256)
  args(q, k, v, state, A_log, a, dt_bias, b, output, new_state, f32(scale))
*/"""
