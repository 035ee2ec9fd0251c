"""Fused q_norm + k_norm (per-head RMSNorm, head_dim 128, bf16) in TIRx (port of solutions/cuda.cu): one
288-thread CTA per token covers its 36 head rows (32 of q, then 4 of k) as 576 16-byte pieces, 16 lanes per
head row (8 bf16 each). Thread t takes pieces t and t + 288: piece t is always in q (head t/16, 0..17);
piece t + 288 is head t/16 + 18, in q for t < 224 (heads 18..31) and in k for t >= 224 (k heads 0..3).
224 = 7 * 32, so the q/k choice is uniform per warp. Both x loads are issued first, then the weights. The
sum of squares of a head row is reduced over its aligned 16-lane half-warp with shuffles (xor 8, 4, 2, 1).
Rounding as the eager reference: fp32 statistics, n = bf16(h * rsqrt(ms + eps)), out = bf16(n * w).

The buffers are named a_.. f_ so that TVM's by-name order of the kernel parameters is the plan's order."""
from tvm.script import tirx as T

TOKENS = 16384
Q_HEADS = 32
K_HEADS = 4
HEAD_DIM = 128
LANES = HEAD_DIM // 8                      # 16 lanes per head row, 8 bf16 (16 bytes) each
THREADS = (Q_HEADS + K_HEADS) * LANES // 2  # 288 threads, two pieces each
SPLIT = Q_HEADS * LANES - THREADS           # 224: threads t >= SPLIT have their second piece in k

assert THREADS == 288 and SPLIT == 224 and SPLIT % 32 == 0 and THREADS % LANES == 0


@T.prim_func
def qk_rmsnorm(q_ptr: T.handle, k_ptr: T.handle, q_weight_ptr: T.handle, k_weight_ptr: T.handle,
               q_out_ptr: T.handle, k_out_ptr: T.handle, eps: T.float32):
    a_q = T.match_buffer(q_ptr, (TOKENS * Q_HEADS * HEAD_DIM,), "bfloat16")
    b_k = T.match_buffer(k_ptr, (TOKENS * K_HEADS * HEAD_DIM,), "bfloat16")
    c_q_weight = T.match_buffer(q_weight_ptr, (HEAD_DIM,), "bfloat16")
    d_k_weight = T.match_buffer(k_weight_ptr, (HEAD_DIM,), "bfloat16")
    e_q_out = T.match_buffer(q_out_ptr, (TOKENS * Q_HEADS * HEAD_DIM,), "bfloat16")
    f_k_out = T.match_buffer(k_out_ptr, (TOKENS * K_HEADS * HEAD_DIM,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS])
    tx = T.thread_id([THREADS])
    xs0 = T.alloc_buffer((8,), "bfloat16", scope="local")
    xs1 = T.alloc_buffer((8,), "bfloat16", scope="local")
    ws0 = T.alloc_buffer((8,), "bfloat16", scope="local")
    ws1 = T.alloc_buffer((8,), "bfloat16", scope="local")
    out0 = T.alloc_buffer((8,), "bfloat16", scope="local")
    out1 = T.alloc_buffer((8,), "bfloat16", scope="local")
    acc = T.alloc_buffer((2,), "float32", scope="local")
    # (indices are written out in full: a named index becomes a local variable and defeats vectorization)
    # Piece t: q head tx // 16 of this token.
    for e in T.vectorized(8):
        xs0[e] = a_q[(bx * Q_HEADS + tx // LANES) * HEAD_DIM + tx % LANES * 8 + e]
    # Piece t + 288: q head tx // 16 + 18, or k head (tx - 224) // 16.
    if tx < SPLIT:
        for e in T.vectorized(8):
            xs1[e] = a_q[(bx * Q_HEADS + tx // LANES + THREADS // LANES) * HEAD_DIM + tx % LANES * 8 + e]
    else:
        for e in T.vectorized(8):
            xs1[e] = b_k[(bx * K_HEADS + (tx - SPLIT) // LANES) * HEAD_DIM + tx % LANES * 8 + e]
    for e in T.vectorized(8):
        ws0[e] = c_q_weight[tx % LANES * 8 + e]
    if tx < SPLIT:
        for e in T.vectorized(8):
            ws1[e] = c_q_weight[tx % LANES * 8 + e]
    else:
        for e in T.vectorized(8):
            ws1[e] = d_k_weight[tx % LANES * 8 + e]

    acc[0] = T.float32(0)
    acc[1] = T.float32(0)
    for e in T.unroll(8):
        acc[0] = acc[0] + T.Cast("float32", xs0[e]) * T.Cast("float32", xs0[e])
    for e in T.unroll(8):
        acc[1] = acc[1] + T.Cast("float32", xs1[e]) * T.Cast("float32", xs1[e])
    # The 16 lanes of one head row are an aligned half-warp: xor offsets 8, 4, 2, 1 stay inside it.
    acc[0] = T.cuda.warp_sum(acc[0], LANES)
    acc[1] = T.cuda.warp_sum(acc[1], LANES)
    # inv = rsqrt(ms + eps); ms = sum / 128 (a power of two: the same as sum * (1 / 128))
    acc[0] = T.rsqrt(acc[0] * T.float32(1.0 / HEAD_DIM) + eps)
    acc[1] = T.rsqrt(acc[1] * T.float32(1.0 / HEAD_DIM) + eps)
    for e in T.unroll(8):
        # out = bf16(float(w) * float(bf16(h * inv)))
        out0[e] = T.Cast("bfloat16", T.Cast("float32", ws0[e])
                         * T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", xs0[e]) * acc[0])))
    for e in T.unroll(8):
        out1[e] = T.Cast("bfloat16", T.Cast("float32", ws1[e])
                         * T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", xs1[e]) * acc[1])))
    for e in T.vectorized(8):
        e_q_out[(bx * Q_HEADS + tx // LANES) * HEAD_DIM + tx % LANES * 8 + e] = out0[e]
    if tx < SPLIT:
        for e in T.vectorized(8):
            e_q_out[(bx * Q_HEADS + tx // LANES + THREADS // LANES) * HEAD_DIM + tx % LANES * 8 + e] = out1[e]
    else:
        for e in T.vectorized(8):
            f_k_out[(bx * K_HEADS + (tx - SPLIT) // LANES) * HEAD_DIM + tx % LANES * 8 + e] = out1[e]


MKB_PLAN = """/* mkb:plan
launch qk_rmsnorm grid(tokens) block(288) args(q, k, q_weight, k_weight, q_out, k_out, f32(eps))
*/"""
