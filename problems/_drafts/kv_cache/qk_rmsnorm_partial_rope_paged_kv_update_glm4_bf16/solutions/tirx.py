"""q/k RMSNorm + partial NeoX RoPE + paged KV write (GLM-4.5) in TIRx: the algorithm of solutions/cuda.cu.

One 256-thread CTA per token; warp w handles heads w, w + 8, ..., w + 40 of the token's 48 (32 q, 8 k,
8 v). Lane l owns dims 4l .. 4l + 3 of the head (8-byte loads and stores). The sum of squares is a warp
sum; the rotation pairs dim j (lanes 0-7) with dim j + 32 (lanes 8-15) through one xor-8 shuffle; lanes
16-31 hold the pass-through dims 64-127. k and v of padding tokens (slot -1) are not written.

Rounding as reference.md: r = rsqrt(mean(x^2) + eps) in fp32; m = bf16(bf16(x * r) * w); the rotation in
bf16 arithmetic, every product, difference and sum rounded to bf16 (Cast to bfloat16 and back).

TVM passes the buffers to the generated kernel sorted by name: they are named a_ to h_ in declared order."""
from tvm.script import tirx as T

TOKENS, QH, KVH, DIM, ROT = 2048, 32, 8, 128, 64
HALF = ROT // 2
HEADS = QH + 2 * KVH               # 48 heads per token
ROW = HEADS * DIM                  # qkv row: 6144
SLOTS = 256 * 16                   # NUM_BLOCKS * BLOCK_SIZE: rows of one cache plane
PLANE = SLOTS * KVH * DIM
WARPS = 8
assert HEADS % WARPS == 0 and DIM == 32 * 4


@T.prim_func
def qk_norm_rope_cache(qkv_ptr: T.handle, positions_ptr: T.handle, q_norm_ptr: T.handle, k_norm_ptr: T.handle,
                       cos_sin_ptr: T.handle, slot_ptr: T.handle, q_ptr: T.handle, kv_cache_ptr: T.handle,
                       eps: T.float32):
    a_qkv = T.match_buffer(qkv_ptr, (TOKENS * ROW,), "bfloat16")
    b_positions = T.match_buffer(positions_ptr, (TOKENS,), "int64")
    c_q_norm = T.match_buffer(q_norm_ptr, (DIM,), "bfloat16")
    d_k_norm = T.match_buffer(k_norm_ptr, (DIM,), "bfloat16")
    e_cos_sin = T.match_buffer(cos_sin_ptr, (4096 * ROT,), "bfloat16")
    f_slot = T.match_buffer(slot_ptr, (TOKENS,), "int64")
    g_q = T.match_buffer(q_ptr, (TOKENS * QH * DIM,), "bfloat16")
    h_kv_cache = T.match_buffer(kv_cache_ptr, (2 * PLANE,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS])
    tx = T.thread_id([WARPS * 32])
    xv = T.alloc_buffer((4,), "bfloat16", scope="local")
    wq = T.alloc_buffer((4,), "bfloat16", scope="local")
    wk = T.alloc_buffer((4,), "bfloat16", scope="local")
    cv = T.alloc_buffer((4,), "bfloat16", scope="local")
    sv = T.alloc_buffer((4,), "bfloat16", scope="local")
    m = T.alloc_buffer((4,), "float32", scope="local")
    partner = T.alloc_buffer((4,), "float32", scope="local")
    out = T.alloc_buffer((4,), "bfloat16", scope="local")
    acc = T.alloc_buffer((1,), "float32", scope="local")
    slot = T.alloc_buffer((1,), "int64", scope="local")
    slot[0] = f_slot[bx]
    for e in T.vectorized(4):
        wq[e] = c_q_norm[tx % 32 * 4 + e]
    for e in T.vectorized(4):
        wk[e] = d_k_norm[tx % 32 * 4 + e]
    for e in T.vectorized(4):   # lanes 0-15 use them: j = 4 * lane % 32
        cv[e] = e_cos_sin[b_positions[bx] * ROT + tx % 32 * 4 % HALF + e]
    for e in T.vectorized(4):
        sv[e] = e_cos_sin[b_positions[bx] * ROT + HALF + tx % 32 * 4 % HALF + e]
    for i in T.unroll(HEADS // WARPS):
        # head = tx // 32 + WARPS * i; q heads always, k and v heads only for a real slot (warp-uniform)
        if tx // 32 + WARPS * i < QH or slot[0] >= T.int64(0):
            for e in T.vectorized(4):
                xv[e] = a_qkv[bx * ROW + (tx // 32 + WARPS * i) * DIM + tx % 32 * 4 + e]
            if tx // 32 + WARPS * i >= QH + KVH:   # v head: unchanged into plane 1
                for e in T.vectorized(4):
                    h_kv_cache[PLANE + slot[0] * (KVH * DIM) + (tx // 32 + WARPS * i - QH - KVH) * DIM
                               + tx % 32 * 4 + e] = xv[e]
            else:
                acc[0] = T.float32(0)
                for e in T.unroll(4):
                    acc[0] = acc[0] + T.Cast("float32", xv[e]) * T.Cast("float32", xv[e])
                acc[0] = T.cuda.warp_sum(acc[0], 32)
                acc[0] = T.rsqrt(acc[0] * T.float32(1.0 / DIM) + eps)
                for e in T.unroll(4):
                    m[e] = T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", T.Cast(
                        "bfloat16", T.Cast("float32", xv[e]) * acc[0])) * T.Cast("float32", T.Select(
                            tx // 32 + WARPS * i < QH, wq[e], wk[e]))))
                for e in T.unroll(4):
                    partner[e] = T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), m[e], 8, 32, 32)
                for e in T.unroll(4):
                    out[e] = T.Cast("bfloat16", T.Select(
                        tx % 32 < 8,
                        T.Cast("float32", T.Cast("bfloat16", m[e] * T.Cast("float32", cv[e])))
                        - T.Cast("float32", T.Cast("bfloat16", partner[e] * T.Cast("float32", sv[e]))),
                        T.Select(tx % 32 < 16,
                                 T.Cast("float32", T.Cast("bfloat16", m[e] * T.Cast("float32", cv[e])))
                                 + T.Cast("float32", T.Cast("bfloat16", partner[e] * T.Cast("float32", sv[e]))),
                                 m[e])))
                if tx // 32 + WARPS * i < QH:
                    for e in T.vectorized(4):
                        g_q[bx * (QH * DIM) + (tx // 32 + WARPS * i) * DIM + tx % 32 * 4 + e] = out[e]
                else:
                    for e in T.vectorized(4):
                        h_kv_cache[slot[0] * (KVH * DIM) + (tx // 32 + WARPS * i - QH) * DIM + tx % 32 * 4 + e] = out[e]


MKB_PLAN = """/* mkb:plan
launch qk_norm_rope_cache grid(num_tokens) block(256)
  args(qkv, positions, q_norm_weight, k_norm_weight, cos_sin_cache, slot_mapping, q, kv_cache, f32(eps))
*/"""
