"""Gated delta-rule varlen prefill (Qwen3-Next) in TIRx: the algorithm of solutions/cuda.cu, one launch.
A 128-thread CTA per (32 value rows, value head, sequence). Row v of the k-last state is column v of the
[K, V] state and rows are independent: thread (row r = tx / 4, part p = tx % 4) keeps 32 of row v's 128 key
channels in registers over the sequence's tokens (16-byte group j of part p: channels (4j + p) * 4 .. + 3).
Per token: old = g * S, old_v = k . old (four fmaf chains of 8 terms, (r0 + r1) + (r2 + r3), two shuffles
over the row's 4 threads), new_v = beta * v + (1 - beta) * old_v, S = (old - k * old_v) + k * new_v,
out = bf16(scale * (q . S)) the same way. The next token's q, k (head h / 2), v and gate are staged in
shared memory (double buffer; the loads issued before this token's arithmetic; thread 0 computes g and beta
with eager's fp32 operations); one barrier per token.

Rounding as the cuda solution: the state arithmetic through __fmul_rn / __fadd_rn / __fsub_rn / fmaf
(T.call_pure_extern), so TVM contracts nothing and the values equal the cuda solution's bit for bit."""
from tvm.script import tirx as T

TOTAL, NSEQ, HQK, HV, D = 959, 4, 8, 16, 128
GROUP = HV // HQK
ROWS, PARTS = 32, 4
THREADS = ROWS * PARTS                # 128 == D
PER = D // PARTS                      # 32 channels a thread
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


def expf(x):
    return T.call_pure_extern("float32", "expf", x)


def log1pf(x):
    return T.call_pure_extern("float32", "log1pf", x)


@T.macro
def gate(A, B, index, hc, x, SG, SB, buf):
    # g = exp(-exp(A_log) * softplus(a + dt_bias)), beta = sigmoid(b): eager's fp32 operations
    x[0] = fadd(T.Cast("float32", A[index]), hc[1])
    x[0] = T.Select(x[0] > T.float32(20), x[0], log1pf(expf(x[0])))
    SG[buf] = expf(fmul(hc[0], x[0]))
    SB[buf] = fdiv(T.float32(1), fadd(T.float32(1), expf(T.float32(0) - T.Cast("float32", B[index]))))


@T.prim_func
def gdn_prefill(q_ptr: T.handle, k_ptr: T.handle, v_ptr: T.handle, state_ptr: T.handle, a_log_ptr: T.handle,
                a_ptr: T.handle, dt_bias_ptr: T.handle, b_ptr: T.handle, cu_seqlens_ptr: T.handle,
                output_ptr: T.handle, new_state_ptr: T.handle, scale: T.float32):
    Q = T.match_buffer(q_ptr, (TOTAL, HQK, D), "bfloat16")
    K = T.match_buffer(k_ptr, (TOTAL, HQK, D), "bfloat16")
    V = T.match_buffer(v_ptr, (TOTAL, HV, D), "bfloat16")
    S0 = T.match_buffer(state_ptr, (NSEQ * HV * D, D), "float32")
    ALOG = T.match_buffer(a_log_ptr, (HV,), "float32")
    A = T.match_buffer(a_ptr, (TOTAL * HV,), "bfloat16")
    DTB = T.match_buffer(dt_bias_ptr, (HV,), "float32")
    B = T.match_buffer(b_ptr, (TOTAL * HV,), "bfloat16")
    CU = T.match_buffer(cu_seqlens_ptr, (NSEQ + 1,), "int64")
    OUT = T.match_buffer(output_ptr, (TOTAL, HV, D), "bfloat16")
    NS = T.match_buffer(new_state_ptr, (NSEQ * HV * D, D), "float32")
    T.device_entry()
    rb, h, seq = T.cta_id([D // ROWS, HV, NSEQ])
    tx = T.thread_id([THREADS])
    SQ = T.alloc_buffer((2, D), "float32", scope="shared")
    SK = T.alloc_buffer((2, D), "float32", scope="shared")
    SV = T.alloc_buffer((2, ROWS), "float32", scope="shared")
    SG = T.alloc_buffer((2,), "float32", scope="shared")
    SB = T.alloc_buffer((2,), "float32", scope="shared")
    st = T.alloc_buffer((PER,), "float32", scope="local")
    kk = T.alloc_buffer((PER,), "float32", scope="local")
    rr = T.alloc_buffer((4,), "float32", scope="local")
    nx = T.alloc_buffer((3,), "bfloat16", scope="local")     # next token's q, k, v
    se = T.alloc_buffer((2,), "int32", scope="local")        # first, last token of the sequence
    hc = T.alloc_buffer((2,), "float32", scope="local")      # -exp(A_log[h]), dt_bias[h]
    x = T.alloc_buffer((1,), "float32", scope="local")
    ov = T.alloc_buffer((2,), "float32", scope="local")      # old_v (then out), new_v
    # row = rb * 32 + tx / 4 of the (seq, h) matrix; part = tx % 4
    se[0] = T.Cast("int32", CU[seq])
    se[1] = T.Cast("int32", CU[seq + 1])
    hc[0] = T.float32(0) - expf(ALOG[h])
    hc[1] = DTB[h]
    for j in T.unroll(GROUPS):
        for e in T.vectorized(4):
            st[j * 4 + e] = S0[(seq * HV + h) * D + rb * ROWS + tx // PARTS, (j * PARTS + tx % PARTS) * 4 + e]
    if se[0] < se[1]:
        SQ[0, tx] = T.Cast("float32", Q[se[0], h // GROUP, tx])
        SK[0, tx] = T.Cast("float32", K[se[0], h // GROUP, tx])
        if tx < ROWS:
            SV[0, tx] = T.Cast("float32", V[se[0], h, rb * ROWS + tx])
        if tx == 0:
            gate(A, B, se[0] * HV + h, hc, x, SG, SB, 0)
    T.cuda.cta_sync()

    for it in T.serial(se[1] - se[0]):
        # token se[0] + it, buffer it % 2; prefetch token se[0] + it + 1
        nx[0] = T.bfloat16(0)
        nx[1] = T.bfloat16(0)
        nx[2] = T.bfloat16(0)
        if se[0] + it + 1 < se[1]:
            nx[0] = Q[se[0] + it + 1, h // GROUP, tx]
            nx[1] = K[se[0] + it + 1, h // GROUP, tx]
            if tx < ROWS:
                nx[2] = V[se[0] + it + 1, h, rb * ROWS + tx]
        for e in T.unroll(4):
            rr[e] = T.float32(0)
        for j in T.unroll(GROUPS):
            for e in T.vectorized(4):
                kk[j * 4 + e] = SK[it % 2, (j * PARTS + tx % PARTS) * 4 + e]
            for e in T.unroll(4):
                st[j * 4 + e] = fmul(SG[it % 2], st[j * 4 + e])
            for e in T.unroll(4):
                rr[e] = fma(kk[j * 4 + e], st[j * 4 + e], rr[e])
        ov[0] = (rr[0] + rr[1]) + (rr[2] + rr[3])
        ov[0] = ov[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), ov[0], 1, 32, 32)
        ov[0] = ov[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), ov[0], 2, 32, 32)
        ov[1] = fadd(fmul(SB[it % 2], SV[it % 2, tx // PARTS]), fmul(fsub(T.float32(1), SB[it % 2]), ov[0]))
        for e in T.unroll(4):
            rr[e] = T.float32(0)
        for j in T.unroll(GROUPS):
            for e in T.unroll(4):
                st[j * 4 + e] = fadd(fsub(st[j * 4 + e], fmul(kk[j * 4 + e], ov[0])), fmul(kk[j * 4 + e], ov[1]))
            for e in T.unroll(4):
                rr[e] = fma(SQ[it % 2, (j * PARTS + tx % PARTS) * 4 + e], st[j * 4 + e], rr[e])
        ov[0] = (rr[0] + rr[1]) + (rr[2] + rr[3])
        ov[0] = ov[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), ov[0], 1, 32, 32)
        ov[0] = ov[0] + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), ov[0], 2, 32, 32)
        if tx % PARTS == 0:
            OUT[se[0] + it, h, rb * ROWS + tx // PARTS] = T.Cast("bfloat16", fmul(scale, ov[0]))
        if se[0] + it + 1 < se[1]:   # the other buffer was last read before the previous barrier
            SQ[1 - it % 2, tx] = T.Cast("float32", nx[0])
            SK[1 - it % 2, tx] = T.Cast("float32", nx[1])
            if tx < ROWS:
                SV[1 - it % 2, tx] = T.Cast("float32", nx[2])
            if tx == 0:
                gate(A, B, (se[0] + it + 1) * HV + h, hc, x, SG, SB, 1 - it % 2)
        T.cuda.cta_sync()

    for j in T.unroll(GROUPS):
        for e in T.vectorized(4):
            NS[(seq * HV + h) * D + rb * ROWS + tx // PARTS, (j * PARTS + tx % PARTS) * 4 + e] = st[j * 4 + e]


MKB_PLAN = """/* mkb:plan
launch gdn_prefill grid(head_size / 32, num_v_heads, num_seqs) block(128)
  args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, output, new_state, f32(scale))
*/"""
