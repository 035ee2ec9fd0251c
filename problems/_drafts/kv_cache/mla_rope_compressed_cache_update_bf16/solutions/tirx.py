"""MLA q projection + RoPE + compressed cache write in TIRx: the two kernels of solutions/cuda.cu.

mla_cache_write: one 128-thread CTA per token; a valid token's cache row gets kv_c (64 threads, one
  16-byte copy each) and the rotated k_pe (4 threads, 8 dims of each half).
mla_q_gemm_rope: q = bf16(q_c @ W^T), q_c = qkv_lora[:, :1536] read in place (row stride 2112), on
  mma.sync m16n8k16 (bf16 -> fp32): one 256-thread CTA per 128-token x 192-column tile (one head), 8 warps
  as 2 x 4 of 64 x 48 (4 x 6 mma tiles), ldmatrix.x4 operands, k steps of 64 through a 3-stage cp.async
  ring of 128-byte shared rows with 16-byte chunk c of row r at c ^ (r % 8) (the guide's GEMM core).
  Epilogue: the tile rounded to bf16 once (F.linear's rounding) into shared memory (rows padded to 200),
  then per row 16 vectors of q_nope copied and 4 pairs of q_pe vectors rotated in bf16 arithmetic (every
  product, difference and sum rounded to bf16), 16-byte stores to q_out.

TVM passes the buffers to the generated kernels sorted by name: they are named a_, b_, ... in declared
order."""
from tvm.script import tirx as T

TOKENS, HEADS, HEAD_DIM, NOPE, ROPE = 2048, 16, 192, 128, 64
HALF = ROPE // 2
Q_RANK, KV_RANK = 1536, 512
LORA_ROW = Q_RANK + KV_RANK + ROPE      # 2112
N = HEADS * HEAD_DIM                    # 3072
CACHE_ROW = KV_RANK + ROPE              # 576
SLOTS = 256 * 16
MAX_POSITION = 4096
BM, BN, BK, STAGES = 128, HEAD_DIM, 64, 3
ST = (BM + BN) * BK                     # bf16 elements per stage: A tile then B tile
C_STRIDE = BN + 8                       # epilogue tile row, padded
ITEMS = NOPE // 8 + HALF // 8           # per row: 16 copied vectors + 4 rotated pairs
THREADS = 256
assert BM * C_STRIDE <= STAGES * ST and BM * ITEMS % THREADS == 0 and Q_RANK % BK == 0


@T.macro
def rotate8(x1, x2, c, s, o1, o2):
    # o1 = x1 c - x2 s, o2 = x2 c + x1 s, every op rounded to bf16
    for e in T.unroll(8):
        o1[e] = T.Cast("bfloat16",
                       T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", x1[e]) * T.Cast("float32", c[e])))
                       - T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", x2[e]) * T.Cast("float32", s[e]))))
        o2[e] = T.Cast("bfloat16",
                       T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", x2[e]) * T.Cast("float32", c[e])))
                       + T.Cast("float32", T.Cast("bfloat16", T.Cast("float32", x1[e]) * T.Cast("float32", s[e]))))


@T.prim_func
def mla_cache_write(lora_ptr: T.handle, positions_ptr: T.handle, cos_sin_ptr: T.handle, slot_ptr: T.handle,
                    cache_ptr: T.handle):
    a_lora = T.match_buffer(lora_ptr, (TOKENS * LORA_ROW,), "bfloat16")
    b_positions = T.match_buffer(positions_ptr, (TOKENS,), "int64")
    c_cos_sin = T.match_buffer(cos_sin_ptr, (MAX_POSITION * ROPE,), "bfloat16")
    d_slot = T.match_buffer(slot_ptr, (TOKENS,), "int64")
    e_cache = T.match_buffer(cache_ptr, (SLOTS * CACHE_ROW,), "bfloat16")
    T.device_entry()
    bx = T.cta_id([TOKENS])
    tx = T.thread_id([128])
    x1 = T.alloc_buffer((8,), "bfloat16", scope="local")
    x2 = T.alloc_buffer((8,), "bfloat16", scope="local")
    cv = T.alloc_buffer((8,), "bfloat16", scope="local")
    sv = T.alloc_buffer((8,), "bfloat16", scope="local")
    o1 = T.alloc_buffer((8,), "bfloat16", scope="local")
    o2 = T.alloc_buffer((8,), "bfloat16", scope="local")
    slot = T.alloc_buffer((1,), "int64", scope="local")
    slot[0] = d_slot[bx]
    if slot[0] >= T.int64(0):
        if tx < KV_RANK // 8:
            for e in T.vectorized(8):
                x1[e] = a_lora[bx * LORA_ROW + Q_RANK + tx * 8 + e]
            for e in T.vectorized(8):
                e_cache[slot[0] * CACHE_ROW + tx * 8 + e] = x1[e]
        elif tx < KV_RANK // 8 + HALF // 8:
            for e in T.vectorized(8):
                x1[e] = a_lora[bx * LORA_ROW + Q_RANK + KV_RANK + (tx - KV_RANK // 8) * 8 + e]
            for e in T.vectorized(8):
                x2[e] = a_lora[bx * LORA_ROW + Q_RANK + KV_RANK + HALF + (tx - KV_RANK // 8) * 8 + e]
            for e in T.vectorized(8):
                cv[e] = c_cos_sin[b_positions[bx] * ROPE + (tx - KV_RANK // 8) * 8 + e]
            for e in T.vectorized(8):
                sv[e] = c_cos_sin[b_positions[bx] * ROPE + HALF + (tx - KV_RANK // 8) * 8 + e]
            rotate8(x1, x2, cv, sv, o1, o2)
            for e in T.vectorized(8):
                e_cache[slot[0] * CACHE_ROW + KV_RANK + (tx - KV_RANK // 8) * 8 + e] = o1[e]
            for e in T.vectorized(8):
                e_cache[slot[0] * CACHE_ROW + KV_RANK + HALF + (tx - KV_RANK // 8) * 8 + e] = o2[e]


@T.macro
def load_stage(sm, slot, A, B, m0, n0, k0, tx):
    # thread tx copies chunk tx % 8 of rows tx // 8 + 32 i: 4 steps of A (128 rows), 6 of B (192 rows)
    for i in T.unroll(BM // 32):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * ST + (tx // 8 + 32 * i) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
            A.ptr_to([(m0 + tx // 8 + 32 * i) * LORA_ROW + k0 + tx % 8 * 8]), 16)
    for i in T.unroll(BN // 32):
        T.ptx.cp.async_.cg.shared.global_(
            sm.ptr_to([slot * ST + BM * BK + (tx // 8 + 32 * i) * BK + T.bitwise_xor(tx % 8, tx // 8 % 8) * 8]),
            B.ptr_to([(n0 + tx // 8 + 32 * i) * Q_RANK + k0 + tx % 8 * 8]), 16)


@T.macro
def mma_stage(sm, a0, b0, acc, af, bf, lane):
    # The warp's 64 x 48 product over one 64-wide k tile; a0 / b0: offsets of its first A / B row.
    for ks in T.unroll(BK // 16):
        for mi in T.unroll(4):                                   # A rows 16 mi + lane % 16, k half lane // 16
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(af[mi * 4], af[mi * 4 + 1], af[mi * 4 + 2], af[mi * 4 + 3],
                sm.ptr_to([a0 + (mi * 16 + lane % 16) * BK + T.bitwise_xor(ks * 2 + lane // 16, lane % 8) * 8]))
        for nj in T.unroll(3):                                   # B rows: (b0, b1) of n tiles 2 nj, 2 nj + 1
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(bf[nj * 4], bf[nj * 4 + 1], bf[nj * 4 + 2], bf[nj * 4 + 3],
                sm.ptr_to([b0 + (nj * 16 + lane % 8 + lane // 16 * 8) * BK
                           + T.bitwise_xor(ks * 2 + lane // 8 % 2, lane % 8) * 8]))
        for mi in T.unroll(4):
            for ni in T.unroll(6):
                T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                    acc[mi, ni, 0], acc[mi, ni, 1], acc[mi, ni, 2], acc[mi, ni, 3],
                    af[mi * 4], af[mi * 4 + 1], af[mi * 4 + 2], af[mi * 4 + 3], bf[ni * 2], bf[ni * 2 + 1],
                    acc[mi, ni, 0], acc[mi, ni, 1], acc[mi, ni, 2], acc[mi, ni, 3])


@T.prim_func
def mla_q_gemm_rope(lora_ptr: T.handle, weight_ptr: T.handle, positions_ptr: T.handle, cos_sin_ptr: T.handle,
                    q_out_ptr: T.handle):
    a_lora = T.match_buffer(lora_ptr, (TOKENS * LORA_ROW,), "bfloat16")
    b_weight = T.match_buffer(weight_ptr, (N * Q_RANK,), "bfloat16")
    c_positions = T.match_buffer(positions_ptr, (TOKENS,), "int64")
    d_cos_sin = T.match_buffer(cos_sin_ptr, (MAX_POSITION * ROPE,), "bfloat16")
    e_q_out = T.match_buffer(q_out_ptr, (TOKENS * N,), "bfloat16")
    T.device_entry()
    bx, by = T.cta_id([HEADS, TOKENS // BM])                # grid(num_heads, num_tokens / 128)
    tx = T.thread_id([THREADS])
    sm = T.alloc_buffer((STAGES * ST,), "bfloat16", scope="shared.dyn")
    acc = T.alloc_buffer((4, 6, 4), "float32", scope="local")
    af = T.alloc_buffer((16,), "uint32", scope="local")
    bf = T.alloc_buffer((12,), "uint32", scope="local")
    x1 = T.alloc_buffer((8,), "bfloat16", scope="local")
    x2 = T.alloc_buffer((8,), "bfloat16", scope="local")
    cv = T.alloc_buffer((8,), "bfloat16", scope="local")
    sv = T.alloc_buffer((8,), "bfloat16", scope="local")
    o1 = T.alloc_buffer((8,), "bfloat16", scope="local")
    o2 = T.alloc_buffer((8,), "bfloat16", scope="local")
    for mi, ni, e in T.grid(4, 6, 4):
        acc[mi, ni, e] = T.float32(0)
    for s in T.unroll(STAGES - 1):
        load_stage(sm, s, a_lora, b_weight, by * BM, bx * BN, s * BK, tx)
        T.ptx.cp.async_.commit_group()
    for kt in T.serial(Q_RANK // BK):
        T.ptx.cp.async_.wait_group(STAGES - 2)                   # this thread's copies of tile kt landed
        T.cuda.cta_sync()                                        # everyone's; stage kt - 1 is free again
        if kt + STAGES - 1 < Q_RANK // BK:
            load_stage(sm, (kt + STAGES - 1) % STAGES, a_lora, b_weight, by * BM, bx * BN, (kt + STAGES - 1) * BK, tx)
        T.ptx.cp.async_.commit_group()
        mma_stage(sm, kt % STAGES * ST + tx // 128 * 64 * BK, kt % STAGES * ST + BM * BK + tx // 32 % 4 * 48 * BK,
                  acc, af, bf, tx % 32)
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()                                            # the ring is no longer read or written
    # acc[mi, ni, e]: row 64 (warp // 4) + 16 mi + lane // 4 + 8 (e // 2), column 48 (warp % 4) + 8 ni + 2 (lane % 4) + e % 2
    for mi, ni, h, e in T.grid(4, 6, 2, 2):
        sm[(tx // 128 * 64 + mi * 16 + tx % 32 // 4 + h * 8) * C_STRIDE
           + tx // 32 % 4 * 48 + ni * 8 + tx % 4 * 2 + e] = T.Cast("bfloat16", acc[mi, ni, h * 2 + e])
    T.cuda.cta_sync()
    for it in T.unroll(BM * ITEMS // THREADS):
        # item tx + 256 it: row (item // 20) of the tile, vector (item % 20)
        if (tx + THREADS * it) % ITEMS < NOPE // 8:
            for e in T.vectorized(8):
                x1[e] = sm[(tx + THREADS * it) // ITEMS * C_STRIDE + (tx + THREADS * it) % ITEMS * 8 + e]
            for e in T.vectorized(8):
                e_q_out[(by * BM + (tx + THREADS * it) // ITEMS) * N + bx * BN + (tx + THREADS * it) % ITEMS * 8 + e] = x1[e]
        else:
            for e in T.vectorized(8):
                x1[e] = sm[(tx + THREADS * it) // ITEMS * C_STRIDE + NOPE + ((tx + THREADS * it) % ITEMS - NOPE // 8) * 8 + e]
            for e in T.vectorized(8):
                x2[e] = sm[(tx + THREADS * it) // ITEMS * C_STRIDE + NOPE + HALF
                           + ((tx + THREADS * it) % ITEMS - NOPE // 8) * 8 + e]
            for e in T.vectorized(8):
                cv[e] = d_cos_sin[c_positions[by * BM + (tx + THREADS * it) // ITEMS] * ROPE
                                  + ((tx + THREADS * it) % ITEMS - NOPE // 8) * 8 + e]
            for e in T.vectorized(8):
                sv[e] = d_cos_sin[c_positions[by * BM + (tx + THREADS * it) // ITEMS] * ROPE + HALF
                                  + ((tx + THREADS * it) % ITEMS - NOPE // 8) * 8 + e]
            rotate8(x1, x2, cv, sv, o1, o2)
            for e in T.vectorized(8):
                e_q_out[(by * BM + (tx + THREADS * it) // ITEMS) * N + bx * BN + NOPE
                        + ((tx + THREADS * it) % ITEMS - NOPE // 8) * 8 + e] = o1[e]
            for e in T.vectorized(8):
                e_q_out[(by * BM + (tx + THREADS * it) // ITEMS) * N + bx * BN + NOPE + HALF
                        + ((tx + THREADS * it) % ITEMS - NOPE // 8) * 8 + e] = o2[e]


MKB_PLAN = """/* mkb:plan
launch mla_cache_write grid(num_tokens) block(128)
  args(qkv_lora, positions, cos_sin_cache, slot_mapping, kv_cache)
launch mla_q_gemm_rope grid(num_heads, num_tokens / 128) block(256) shared(122880)
  args(qkv_lora, q_b_weight, positions, cos_sin_cache, q_out)
*/"""
