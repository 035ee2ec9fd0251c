"""MiniMax-M3 (1 + w) RMSNorm + partial RoPE + dual cache insert in TIRx: the algorithm of solutions/cuda.cu.

One 256-thread CTA per token; warp w handles heads w, w + 8, w + 16, w + 24 of the token's 29, in qkv's
column order (0-15 q, 16-19 k, 20-23 v, 24-27 indexer q, 28 indexer k; 29-31 are nothing). Lane l owns
dims 4l .. 4l + 3 (8-byte loads and stores). The sum of squares is a warp sum; the rotation pairs dim j
(lanes 0-7) with dim j + 32 (lanes 8-15) through one xor-8 shuffle; lanes 16-31 hold dims 64-127.

Rounding as reference.md: y = x * rsqrt(mean(x^2) + eps) rounded to fp32, n = bf16(y * (1 + w)), each
product on its own (__fmul_rn, so no multiply-add is contracted); the rotation in fp32 on the bf16 values,
products and the sum or difference each rounded (__fmul_rn, __fadd_rn, __fsub_rn), bf16 once.

TVM passes the buffers to the generated kernel sorted by name: they are named a_ to m_ in declared order."""
from tvm.script import tirx as T

TOKENS, QH, KVH, IQH, DIM, ROT = 513, 16, 4, 4, 128, 64
HALF = ROT // 2
HEADS = QH + 2 * KVH + IQH + 1    # 29
ROW = HEADS * DIM                 # 3712
BLOCK = 64                        # BLOCK_SIZE
SLOTS = 10 * BLOCK                # NUM_BLOCKS * BLOCK_SIZE
WARPS = 8
K0, V0, IQ0, IK = QH, QH + KVH, QH + 2 * KVH, QH + 2 * KVH + IQH   # first head of each kind
assert DIM == 32 * 4 and HEADS <= 4 * WARPS


def fmul(a, b):
    return T.call_pure_extern("float32", "__fmul_rn", a, b)


@T.prim_func
def dual_insert(qkv_ptr: T.handle, q_norm_ptr: T.handle, k_norm_ptr: T.handle, iq_norm_ptr: T.handle,
                ik_norm_ptr: T.handle, positions_ptr: T.handle, cos_sin_ptr: T.handle, slot_ptr: T.handle,
                index_slot_ptr: T.handle, q_ptr: T.handle, iq_ptr: T.handle, kv_cache_ptr: T.handle,
                index_cache_ptr: T.handle, eps: T.float32):
    a_qkv = T.match_buffer(qkv_ptr, (TOKENS * ROW,), "bfloat16")
    b_q_norm = T.match_buffer(q_norm_ptr, (DIM,), "bfloat16")
    c_k_norm = T.match_buffer(k_norm_ptr, (DIM,), "bfloat16")
    d_iq_norm = T.match_buffer(iq_norm_ptr, (DIM,), "bfloat16")
    e_ik_norm = T.match_buffer(ik_norm_ptr, (DIM,), "bfloat16")
    f_positions = T.match_buffer(positions_ptr, (TOKENS,), "int64")
    g_cos_sin = T.match_buffer(cos_sin_ptr, (4096 * ROT,), "bfloat16")
    h_slot = T.match_buffer(slot_ptr, (TOKENS,), "int64")
    i_index_slot = T.match_buffer(index_slot_ptr, (TOKENS,), "int64")
    j_q = T.match_buffer(q_ptr, (TOKENS * QH * DIM,), "bfloat16")
    k_iq = T.match_buffer(iq_ptr, (TOKENS * IQH * DIM,), "bfloat16")
    l_kv_cache = T.match_buffer(kv_cache_ptr, (SLOTS * KVH * 2 * DIM,), "bfloat16")
    m_index_cache = T.match_buffer(index_cache_ptr, (SLOTS * DIM,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS])
    tx = T.thread_id([WARPS * 32])
    xv = T.alloc_buffer((4,), "bfloat16", scope="local")
    w0 = T.alloc_buffer((4,), "bfloat16", scope="local")
    w1 = T.alloc_buffer((4,), "bfloat16", scope="local")
    w2 = T.alloc_buffer((4,), "bfloat16", scope="local")
    w3 = T.alloc_buffer((4,), "bfloat16", scope="local")
    cv = T.alloc_buffer((4,), "bfloat16", scope="local")
    sv = T.alloc_buffer((4,), "bfloat16", scope="local")
    n = T.alloc_buffer((4,), "float32", scope="local")
    partner = T.alloc_buffer((4,), "float32", scope="local")
    out = T.alloc_buffer((4,), "bfloat16", scope="local")
    acc = T.alloc_buffer((1,), "float32", scope="local")
    slot = T.alloc_buffer((2,), "int64", scope="local")
    slot[0] = h_slot[bx]
    slot[1] = i_index_slot[bx]
    for e in T.vectorized(4):
        w0[e] = b_q_norm[tx % 32 * 4 + e]
    for e in T.vectorized(4):
        w1[e] = c_k_norm[tx % 32 * 4 + e]
    for e in T.vectorized(4):
        w2[e] = d_iq_norm[tx % 32 * 4 + e]
    for e in T.vectorized(4):
        w3[e] = e_ik_norm[tx % 32 * 4 + e]
    for e in T.vectorized(4):   # lanes 0-15 use them: j = 4 * lane % 32
        cv[e] = g_cos_sin[f_positions[bx] * ROT + tx % 32 * 4 % HALF + e]
    for e in T.vectorized(4):
        sv[e] = g_cos_sin[f_positions[bx] * ROT + HALF + tx % 32 * 4 % HALF + e]
    for i in T.unroll(4):
        # head = tx // 32 + WARPS * i (warp-uniform)
        if tx // 32 + WARPS * i < HEADS:
            for e in T.vectorized(4):
                xv[e] = a_qkv[bx * ROW + (tx // 32 + WARPS * i) * DIM + tx % 32 * 4 + e]
            if tx // 32 + WARPS * i >= V0 and tx // 32 + WARPS * i < IQ0:   # v: unchanged into [..., 128:256]
                for e in T.vectorized(4):
                    l_kv_cache[((slot[0] // BLOCK * KVH + (tx // 32 + WARPS * i - V0)) * BLOCK + slot[0] % BLOCK)
                               * (2 * DIM) + DIM + tx % 32 * 4 + e] = xv[e]
            else:
                acc[0] = T.float32(0)
                for e in T.unroll(4):
                    acc[0] = acc[0] + T.Cast("float32", xv[e]) * T.Cast("float32", xv[e])
                acc[0] = T.cuda.warp_sum(acc[0], 32)
                acc[0] = T.rsqrt(acc[0] * T.float32(1.0 / DIM) + eps)
                for e in T.unroll(4):
                    n[e] = T.Cast("float32", T.Cast("bfloat16", fmul(
                        fmul(T.Cast("float32", xv[e]), acc[0]),
                        T.call_pure_extern("float32", "__fadd_rn", T.Cast("float32", T.Select(
                            tx // 32 + WARPS * i < K0, w0[e], T.Select(
                                tx // 32 + WARPS * i < V0, w1[e], T.Select(
                                    tx // 32 + WARPS * i < IK, w2[e], w3[e])))), T.float32(1)))))
                for e in T.unroll(4):
                    partner[e] = T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), n[e], 8, 32, 32)
                for e in T.unroll(4):
                    out[e] = T.Cast("bfloat16", T.Select(
                        tx % 32 < 8,
                        T.call_pure_extern("float32", "__fsub_rn", fmul(n[e], T.Cast("float32", cv[e])),
                                           fmul(partner[e], T.Cast("float32", sv[e]))),
                        T.Select(tx % 32 < 16,
                                 T.call_pure_extern("float32", "__fadd_rn", fmul(n[e], T.Cast("float32", cv[e])),
                                                    fmul(partner[e], T.Cast("float32", sv[e]))),
                                 n[e])))
                if tx // 32 + WARPS * i < K0:
                    for e in T.vectorized(4):
                        j_q[bx * (QH * DIM) + (tx // 32 + WARPS * i) * DIM + tx % 32 * 4 + e] = out[e]
                elif tx // 32 + WARPS * i < V0:
                    for e in T.vectorized(4):
                        l_kv_cache[((slot[0] // BLOCK * KVH + (tx // 32 + WARPS * i - K0)) * BLOCK + slot[0] % BLOCK)
                                   * (2 * DIM) + tx % 32 * 4 + e] = out[e]
                elif tx // 32 + WARPS * i < IK:
                    for e in T.vectorized(4):
                        k_iq[bx * (IQH * DIM) + (tx // 32 + WARPS * i - IQ0) * DIM + tx % 32 * 4 + e] = out[e]
                else:
                    for e in T.vectorized(4):
                        m_index_cache[slot[1] * DIM + tx % 32 * 4 + e] = out[e]


MKB_PLAN = """/* mkb:plan
launch dual_insert grid(num_tokens) block(256)
  args(qkv, q_norm_weight, k_norm_weight, index_q_norm_weight, index_k_norm_weight, positions, cos_sin_cache,
       slot_mapping, index_slot_mapping, q, iq, kv_cache, index_cache, f32(eps))
*/"""
