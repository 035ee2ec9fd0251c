"""Per-(token, head) FP8 quantization and paged cache append in TIRx: the algorithm of solutions/cuda.cu.

One 256-thread CTA per token, one warp per head: lane l holds dims 4l .. 4l + 3 of the key row and of the
value row (8-byte loads), the warp reduces the absolute maximum (warp_max), and each lane stores its four
e4m3 bytes (4-byte store) at the token's slot; lane 0 stores the two scales. Padding tokens (slot -1)
write nothing. The byte caches are bound as float8_e4m3fn buffers (the same bytes).

Rounding as reference.md: scale = max(absmax * fp32(1/448), fp32(1e-6)); inv = 1 / scale (IEEE division);
q = clamp(x * inv, -448, 448) with the product rounded on its own (__fmul_rn); e4m3 round-to-nearest-even.
fp32(1/448) and fp32(1e-6) come in as plan arguments (the plan rounds 1 / fp8_max to fp32 once), so no
constant's printed digits decide a rounding.

TVM passes the buffers to the generated kernel sorted by name: they are named a_ to g_ in declared order."""
from tvm.script import tirx as T

TOKENS, HEADS, DIM = 2048, 8, 128
SLOTS = 256 * 16          # NUM_BLOCKS * BLOCK_SIZE
ROW = HEADS * DIM         # 1024 values per token (and per cache slot)
THREADS = HEADS * 32
assert DIM == 32 * 4


@T.prim_func
def quantize_append(key_ptr: T.handle, value_ptr: T.handle, slot_ptr: T.handle, key_cache_ptr: T.handle,
                    value_cache_ptr: T.handle, k_scale_ptr: T.handle, v_scale_ptr: T.handle,
                    inv_fp8_max: T.float32, min_scale: T.float32, fp8_max: T.float32):
    a_key = T.match_buffer(key_ptr, (TOKENS * ROW,), "bfloat16")
    b_value = T.match_buffer(value_ptr, (TOKENS * ROW,), "bfloat16")
    c_slot = T.match_buffer(slot_ptr, (TOKENS,), "int64")
    d_key_cache = T.match_buffer(key_cache_ptr, (SLOTS * ROW,), "float8_e4m3fn")
    e_value_cache = T.match_buffer(value_cache_ptr, (SLOTS * ROW,), "float8_e4m3fn")
    f_k_scale = T.match_buffer(k_scale_ptr, (SLOTS * HEADS,), "float32")
    g_v_scale = T.match_buffer(v_scale_ptr, (SLOTS * HEADS,), "float32")
    T.device_entry()
    bx = T.cta_id([TOKENS])
    tx = T.thread_id([THREADS])
    kv = T.alloc_buffer((4,), "bfloat16", scope="local")
    vv = T.alloc_buffer((4,), "bfloat16", scope="local")
    kq = T.alloc_buffer((4,), "float8_e4m3fn", scope="local")
    vq = T.alloc_buffer((4,), "float8_e4m3fn", scope="local")
    amax = T.alloc_buffer((2,), "float32", scope="local")
    scale = T.alloc_buffer((2,), "float32", scope="local")
    inv = T.alloc_buffer((2,), "float32", scope="local")
    slot = T.alloc_buffer((1,), "int64", scope="local")
    slot[0] = c_slot[bx]
    if slot[0] >= T.int64(0):
        for e in T.vectorized(4):
            kv[e] = a_key[bx * ROW + tx * 4 + e]
        for e in T.vectorized(4):
            vv[e] = b_value[bx * ROW + tx * 4 + e]
        amax[0] = T.float32(0)
        amax[1] = T.float32(0)
        for e in T.unroll(4):
            amax[0] = T.max(amax[0], T.abs(T.Cast("float32", kv[e])))
            amax[1] = T.max(amax[1], T.abs(T.Cast("float32", vv[e])))
        amax[0] = T.cuda.warp_max(amax[0], 32)
        amax[1] = T.cuda.warp_max(amax[1], 32)
        for i in T.unroll(2):
            scale[i] = T.max(T.call_pure_extern("float32", "__fmul_rn", amax[i], inv_fp8_max), min_scale)
            inv[i] = T.float32(1) / scale[i]
        for e in T.unroll(4):
            kq[e] = T.Cast("float8_e4m3fn", T.min(T.max(T.call_pure_extern("float32", "__fmul_rn",
                                                                            T.Cast("float32", kv[e]), inv[0]),
                                                        T.float32(0) - fp8_max), fp8_max))
            vq[e] = T.Cast("float8_e4m3fn", T.min(T.max(T.call_pure_extern("float32", "__fmul_rn",
                                                                            T.Cast("float32", vv[e]), inv[1]),
                                                        T.float32(0) - fp8_max), fp8_max))
        # block slot // 16, offset slot % 16 of [num_blocks, 16, heads, dim] is row `slot` of [slots, heads * dim]
        for e in T.vectorized(4):
            d_key_cache[slot[0] * ROW + tx * 4 + e] = kq[e]
        for e in T.vectorized(4):
            e_value_cache[slot[0] * ROW + tx * 4 + e] = vq[e]
        if tx % 32 == 0:
            f_k_scale[slot[0] * HEADS + tx // 32] = scale[0]
            g_v_scale[slot[0] * HEADS + tx // 32] = scale[1]


MKB_PLAN = """/* mkb:plan
launch quantize_append grid(num_tokens) block(256)
  args(key, value, slot_mapping, key_cache, value_cache, k_scale_cache, v_scale_cache,
       f32(1 / fp8_max), f32(min_scale), f32(fp8_max))
*/"""
